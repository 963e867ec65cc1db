//! `inquiry merge A B … --name all`: one report from the shards of a CI matrix.

use std::path::PathBuf;
use std::process::ExitCode;

use super::args::SuiteArgs;
use super::decided;
use crate::eval::{report, report_set};

/// Arguments of `inquiry merge`.
#[derive(Debug, clap::Args)]
pub struct MergeArgs {
    /// The shard reports (set directories or their report.json), with their traces.
    #[arg(value_name = "REPORT", required = true, num_args = 1..)]
    pub reports: Vec<PathBuf>,
    /// Name of the merged report set.
    #[arg(long, default_value = "all")]
    pub name: String,
    /// Output directory (default runs/<UTC time>-<name>/).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// The suite the shards ran.
    #[command(flatten)]
    pub suite: SuiteArgs,
}

/// Merges, writes the report set, and exits 0/1 by the thresholds.
///
/// # Errors
/// Unreadable reports, shards of different runs, duplicate cases (exit 2).
pub fn run(args: MergeArgs) -> anyhow::Result<ExitCode> {
    let dest = report_set::destination(args.out.as_deref(), &args.name, chrono::Utc::now())?;
    let parts =
        args.reports.iter().map(|p| crate::analysis::stored::load_stored(p)).collect::<anyhow::Result<Vec<_>>>()?;
    let (suite, thresholds) = args.suite.load()?;
    let merged = crate::analysis::merge::merge(&parts, &suite, &thresholds, &args.name)?;
    let written = report::write_reports(&merged, &dest)?;
    eprint!("{}", report::render_terminal(&merged));
    eprintln!("merged {} reports into {}", parts.len(), written.dir.display());
    let code = if merged.passed() { 0 } else { 1 };
    decided(code);
    Ok(ExitCode::from(code))
}
