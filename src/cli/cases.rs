//! `inquiry cases add --from-trace <trace.json>`: a run that went wrong becomes
//! a new eval case draft, appended to a chosen case file (see
//! [`crate::eval::case_draft`]).

use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `inquiry cases`.
#[derive(Debug, clap::Args)]
pub struct CasesArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: CasesAction,
}

/// The `cases` actions.
#[derive(Debug, clap::Subcommand)]
pub enum CasesAction {
    /// Append a case draft made from a run's trace to a case file.
    Add(AddArgs),
}

/// Arguments of `inquiry cases add`.
#[derive(Debug, clap::Args)]
pub struct AddArgs {
    /// The case trace: `cases/<id>.json` of a report set.
    #[arg(long, value_name = "TRACE.json")]
    pub from_trace: PathBuf,
    /// The case file the draft is appended to (created when absent; never overwritten).
    #[arg(long, value_name = "FILE.yaml", default_value = "cases/drafts.yaml")]
    pub to: PathBuf,
    /// Id of the new case (default: `<trace case>-draft`, or the first free `-draft-N`); an id in use is refused.
    #[arg(long)]
    pub id: Option<String>,
    /// The run (its attempt number) to draft from (default: the first failing run, else the first).
    #[arg(long, value_name = "N")]
    pub run: Option<usize>,
    /// The suite whose ids must stay unique (its case of the trace's id lends overlay, listings and hand-off rules).
    #[arg(long = "cases", default_value = "cases", value_name = "DIR")]
    pub cases_dir: PathBuf,
    /// Catalogue directory (listing ids are checked against it).
    #[arg(long, default_value = "data", env = "INQUIRY_DATA")]
    pub data: PathBuf,
    /// Directory of overlay catalogues used by cases.
    #[arg(long, default_value = "fixtures", value_name = "DIR")]
    pub fixtures: PathBuf,
}

/// Writes the draft and prints its id on stdout.
///
/// # Errors
/// A bad trace (naming the file and field), an id in use, or a draft that
/// does not validate: all exit 2, and nothing is written.
pub fn run(args: CasesArgs) -> anyhow::Result<ExitCode> {
    let CasesAction::Add(a) = args.action;
    let listings = crate::catalogue::load_listings(&a.data.join("listings.json"))?;
    let known = crate::eval::Known::new(listings.iter().map(|l| l.id.clone()).collect(), &a.fixtures)?;
    let added =
        crate::eval::case_draft::add_from_trace(&a.from_trace, a.run, &a.to, &a.cases_dir, a.id.as_deref(), &known)?;
    let c = &added.case.case;
    eprintln!(
        "cases add: `{}` appended to {} ({} must and {} must_not item(s) to check or fill; listings {:?}; hand-offs {:?})",
        added.id,
        a.to.display(),
        c.must.len(),
        c.must_not.len(),
        c.listings,
        c.handoffs.iter().map(|h| h.as_str()).collect::<Vec<_>>()
    );
    println!("{}", added.id);
    Ok(ExitCode::SUCCESS)
}
