//! `inquiry view [DIR]…`: browse report sets in a local, read-only viewer;
//! with `--review`, also the review page (`/review`) over the sets' replies.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use super::runtime;

/// Arguments of `inquiry view`.
#[derive(Debug, clap::Args)]
pub struct ViewArgs {
    /// Directories to scan for report sets (default: reports and runs).
    #[arg(value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// Listen address; loopback only.
    #[arg(long, default_value = crate::view::DEFAULT_BIND, value_parser = crate::view::parse_bind)]
    pub bind: std::net::SocketAddr,
    /// Serve the review page at /review: a queue of the sets' replies (judges
    /// disagree, a judge undecided, a random sample) for people to grade.
    #[arg(long)]
    pub review: bool,
    /// Review database (with --review).
    #[arg(long, default_value = crate::review::DEFAULT_DB, value_name = "FILE", env = "INQUIRY_REVIEWS_DB")]
    pub reviews: PathBuf,
    /// Size of the review queue's uniform random sample (with --review).
    #[arg(long, default_value_t = 10)]
    pub sample: usize,
    /// Desk database whose tickets marked "reply was wrong" join the review queue (with --review).
    #[arg(long, value_name = "FILE")]
    pub desk: Option<PathBuf>,
    /// Token the review page's writes need (default: a random one, printed at start).
    #[arg(long, env = "INQUIRY_REVIEW_TOKEN", hide_env_values = true)]
    pub review_token: Option<String>,
}

/// Builds the review routes: the queue from every eval report set found.
fn review_routes(args: &ViewArgs, roots: &[PathBuf]) -> anyhow::Result<(axum::Router, String, String)> {
    let store = Arc::new(crate::review::ReviewStore::open(&args.reviews)?);
    let mut reports = vec![];
    for set in crate::view::scan(roots).sets {
        let dir = set.html.parent().map(std::path::Path::to_path_buf).unwrap_or_default();
        match crate::analysis::stored::load_stored(&dir) {
            Ok(r) => reports.push(r.report),
            // Calibration and judge-check sets have no replies to review.
            Err(e) => tracing::debug!("review: {} left out: {e:#}", dir.display()),
        }
    }
    let mut queue = crate::review::queue::build(&reports, args.sample, crate::stats::SEED);
    if let Some(db) = &args.desk {
        let desk = crate::desk::TicketStore::open_read_only(db)?;
        let marks = crate::desk::wrong_reply::wrong_replies(&desk)?;
        crate::review::queue::add_tickets(&mut queue, &marks, &db.display().to_string());
    }
    let c = &queue.counts;
    let summary = format!(
        "review queue: {} replies from {} report set(s): {} where the judges disagree, {} a judge left undecided, {} sampled at random from {} graded, {} desk ticket(s) marked wrong ({} entries in all)",
        c.replies, reports.len(), c.disagreement, c.undecided, c.sampled, c.graded, c.tickets, c.entries
    );
    let token = match args.review_token.as_deref().map(str::trim) {
        Some(t) if !t.is_empty() => t.to_owned(),
        Some(_) => anyhow::bail!(
            "--review-token (or INQUIRY_REVIEW_TOKEN) is only whitespace; give a real secret, or leave it unset"
        ),
        None => crate::review::server::new_token()?,
    };
    let state = Arc::new(crate::review::server::ReviewState { queue, store, token: token.clone() });
    Ok((crate::review::server::routes(state), token, summary))
}

/// Serves the viewer until Ctrl-C or SIGTERM.
///
/// # Errors
/// A named directory that does not exist, a non-loopback address, or a bind
/// failure; with --review, a review database that cannot be opened.
pub fn run(args: ViewArgs) -> anyhow::Result<ExitCode> {
    for dir in &args.dirs {
        if !dir.is_dir() {
            anyhow::bail!("{}: not a directory; expected a directory holding report sets", dir.display());
        }
    }
    let roots =
        if args.dirs.is_empty() { vec![PathBuf::from("reports"), PathBuf::from("runs")] } else { args.dirs.clone() };
    let review = if args.review { Some(review_routes(&args, &roots)?) } else { None };
    runtime()?.block_on(async move {
        let shutdown = async {
            let why = super::interrupt_signal().await;
            tracing::info!("view: {why}; shutting down");
        };
        let (extra, review) = match review {
            Some((routes, token, summary)) => (Some(routes), Some((token, summary))),
            None => (None, None),
        };
        let (addr, task) = crate::view::bind(roots.clone(), extra, args.bind, shutdown).await?;
        let found = crate::view::scan(&roots);
        let dirs: Vec<String> = roots.iter().map(|r| r.display().to_string()).collect();
        eprintln!(
            "inquiry view: {} report set(s) under {}; open http://{addr}/ (Ctrl-C to stop)",
            found.sets.len(),
            dirs.join(", ")
        );
        if let Some((token, summary)) = review {
            eprintln!("  {summary}");
            eprintln!("  review: open http://{addr}/review#token={token} (reviews in {})", args.reviews.display());
        }
        if !found.without_html.is_empty() {
            eprintln!(
                "  not listed: {} set(s) without report.html (written before report.html existed, or judge-check sets)",
                found.without_html.len()
            );
        }
        if found.sets.is_empty() {
            eprintln!("  no report set yet: run `inquiry eval`; new sets appear without a restart");
        }
        task.await??;
        Ok(ExitCode::SUCCESS)
    })
}
