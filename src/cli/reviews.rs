//! `inquiry reviews export|import`: the review database to and from the
//! `labels/` YAML format (see [`crate::review::export`]).

use std::path::PathBuf;
use std::process::ExitCode;

use crate::review::ReviewStore;

/// Arguments of `inquiry reviews`.
#[derive(Debug, clap::Args)]
pub struct ReviewsArgs {
    /// Review database (the one `inquiry view --review` writes).
    #[arg(long, global = true, default_value = crate::review::DEFAULT_DB, value_name = "FILE", env = "INQUIRY_REVIEWS_DB")]
    pub reviews: PathBuf,
    /// Case directory (or file) the reviews answer.
    #[arg(long = "cases", global = true, default_value = "cases", value_name = "DIR")]
    pub cases_dir: PathBuf,
    /// Catalogue directory (listing ids of the cases are checked against it).
    #[arg(long, global = true, default_value = "data", env = "INQUIRY_DATA")]
    pub data: PathBuf,
    /// Directory of overlay catalogues used by cases.
    #[arg(long, global = true, default_value = "fixtures", value_name = "DIR")]
    pub fixtures: PathBuf,
    /// What to do.
    #[command(subcommand)]
    pub action: ReviewsAction,
}

/// The `reviews` actions.
#[derive(Debug, clap::Subcommand)]
pub enum ReviewsAction {
    /// Write every complete (reviewer, reply) as a label to a new YAML file
    /// (put it in a labels directory for `judge-check`).
    Export {
        /// The new file (never overwritten).
        #[arg(long, value_name = "FILE.yaml")]
        out: PathBuf,
    },
    /// Store the verdicts of a labels file (or directory) in the database.
    Import {
        /// A labels YAML file or a directory of them.
        #[arg(value_name = "LABELS")]
        from: PathBuf,
        /// Reviewer for labels without a `reviewer` field (the hand-written ones).
        #[arg(long)]
        reviewer: Option<String>,
    },
}

/// Runs one action.
///
/// # Errors
/// A database, case or label file that does not load (exit 2), naming the
/// file and field; an export file that exists.
pub fn run(args: ReviewsArgs) -> anyhow::Result<ExitCode> {
    let listings = crate::catalogue::load_listings(&args.data.join("listings.json"))?;
    let known = crate::eval::Known::new(listings.iter().map(|l| l.id.clone()).collect(), &args.fixtures)?;
    let cases = crate::eval::case::load_cases(&args.cases_dir, &known)?;
    let texts = |id: &str| {
        cases.iter().find(|c| c.case.id == id).map(|c| {
            (
                c.case.must.iter().map(|e| e.text.clone()).collect::<Vec<_>>(),
                c.case.must_not.iter().map(|e| e.text.clone()).collect::<Vec<_>>(),
            )
        })
    };
    match args.action {
        ReviewsAction::Export { out } => {
            if std::fs::symlink_metadata(&out).is_ok() {
                anyhow::bail!("{}: exists; an export never overwrites a file (name a new one)", out.display());
            }
            if !args.reviews.is_file() {
                anyhow::bail!(
                    "--reviews {}: no review database here yet (`inquiry view --review` creates it)",
                    args.reviews.display()
                );
            }
            let store = ReviewStore::open(&args.reviews)?;
            let export = crate::review::export::export(&store, &texts)?;
            crate::review::export::write_yaml(&export.labels, &out)?;
            let reviewers: std::collections::BTreeSet<&str> =
                export.labels.iter().filter_map(|l| l.reviewer.as_deref()).collect();
            eprintln!(
                "reviews export: {} label(s) from {} reviewer(s) written to {}; {} reviewer/reply pair(s) left out",
                export.labels.len(),
                reviewers.len(),
                out.display(),
                export.skipped.len()
            );
            for (reviewer, case, why) in &export.skipped {
                eprintln!("  left out: {reviewer} on {case}: {why}");
            }
        }
        ReviewsAction::Import { from, reviewer } => {
            let labels = crate::eval::labels::load_labels(&from, &|id| texts(id).map(|(m, n)| (m.len(), n.len())))?;
            let store = ReviewStore::open(&args.reviews)?;
            let n = crate::review::export::import(&store, &labels, &texts, reviewer.as_deref())?;
            eprintln!(
                "reviews import: {n} verdict(s) of {} label(s) stored in {}",
                labels.len(),
                args.reviews.display()
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
