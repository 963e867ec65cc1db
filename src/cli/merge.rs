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
    /// Also write JUnit XML here: a test case per eval case and per metric threshold.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Append the merged run's line to this history file (as `eval --history`).
    #[arg(long, value_name = "FILE.jsonl")]
    pub history: Option<PathBuf>,
    /// Judge rubrics the shards used (hashed into the history line).
    #[arg(long, default_value = "rubrics", value_name = "DIR")]
    pub rubrics: PathBuf,
    /// Golden set the shards used (hashed into the history line).
    #[arg(long, default_value = "golden/golden.yaml", value_name = "FILE")]
    pub golden: PathBuf,
    /// Retrieval thresholds the shards used (hashed into the history line).
    #[arg(long, default_value = "retrieval.thresholds.json", value_name = "FILE")]
    pub retrieval_thresholds: PathBuf,
    /// Price table the shards used (hashed into the history line).
    #[arg(long, default_value = "prices.json", value_name = "FILE")]
    pub prices: PathBuf,
}

/// Merges, writes the report set, and exits 0/1 by the thresholds.
///
/// # Errors
/// Unreadable reports, shards of different runs, duplicate cases (exit 2).
pub fn run(args: MergeArgs) -> anyhow::Result<ExitCode> {
    let dest = report_set::destination(args.out.as_deref(), &args.name, chrono::Utc::now())?;
    if let Some(path) = &args.junit {
        report_set::check_writable_file("--junit", path)?;
    }
    if let Some(path) = &args.history {
        crate::analysis::history::check_appendable(path)?;
    }
    let dirty = args.history.as_ref().and_then(|_| crate::analysis::history::working_tree_dirty());
    let parts =
        args.reports.iter().map(|p| crate::analysis::stored::load_stored(p)).collect::<anyhow::Result<Vec<_>>>()?;
    let (suite, thresholds) = args.suite.load()?;
    let merged = crate::analysis::merge::merge(&parts, &suite, &thresholds, &args.name)?;
    let written = report::write_reports(&merged, &dest)?;
    if let Some(path) = &args.junit {
        report::write_atomic(path, crate::eval::junit::render_junit(&merged)?.as_bytes())?;
    }
    if let Some(path) = &args.history {
        let paths = crate::analysis::history::InputPaths {
            cases: &args.suite.cases_dir,
            rubrics: &args.rubrics,
            catalogue: &args.suite.data,
            fixtures: &args.suite.fixtures,
            thresholds: &args.suite.thresholds,
            retrieval_thresholds: &args.retrieval_thresholds,
            golden: &args.golden,
            prices: &args.prices,
        };
        crate::analysis::history::append(path, &crate::analysis::history::line_for(&merged, &paths, dirty)?)?;
        eprintln!("history: appended a line to {}", path.display());
    }
    eprint!("{}", report::render_terminal(&merged));
    eprintln!("merged {} reports into {}", parts.len(), written.dir.display());
    let code = if merged.passed() { 0 } else { 1 };
    decided(code);
    Ok(ExitCode::from(code))
}
