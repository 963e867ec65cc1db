//! `inquiry rescore RUN`: re-grade a stored report set with the current
//! cases, rubrics and thresholds; no agent and no tool call.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use super::args::{CacheArgs, JudgeArgs, SuiteArgs};
use super::{decided, runtime};
use crate::analysis::rescore::rescore;
use crate::analysis::stored::load_stored;
use crate::eval::{report, report_set};

/// Arguments of `inquiry rescore`.
#[derive(Debug, clap::Args)]
pub struct RescoreArgs {
    /// The stored run: a report set directory or its report.json.
    #[arg(value_name = "RUN")]
    pub run: PathBuf,
    /// The current suite (its items are graded).
    #[command(flatten)]
    pub suite: SuiteArgs,
    /// Price table; default prices.json when present.
    #[arg(long, value_name = "FILE")]
    pub prices: Option<PathBuf>,
    /// The judge.
    #[command(flatten)]
    pub judge: JudgeArgs,
    /// Name of the new report set.
    #[arg(long, default_value = "rescore")]
    pub name: String,
    /// Output directory (default runs/<UTC time>-<name>/).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Print the changes as JSON on stdout instead of text.
    #[arg(long)]
    pub json: bool,
    /// Response cache for the LLM judge.
    #[command(flatten)]
    pub cache: CacheArgs,
}

/// Rescores, writes the new report set and prints every changed verdict.
/// Exit 0 when the new report passes its thresholds, 1 when it does not.
///
/// # Errors
/// An unreadable stored report or trace, bad cases or flags (exit 2).
pub fn run(args: RescoreArgs) -> anyhow::Result<ExitCode> {
    let dest = report_set::destination(args.out.as_deref(), &args.name, chrono::Utc::now())?;
    let stored = load_stored(&args.run)?;
    // The regraded set is an output: it must never replace the set it is read from.
    if crate::text_file::same_file(&dest.dir, &stored.dir) {
        anyhow::bail!(
            "--out/--name: {} is the report set being rescored; write the new set elsewhere (another --name)",
            dest.dir.display()
        );
    }
    let prices = match &args.prices {
        Some(p) => crate::eval::prices::PriceTable::load_named(p, true)?,
        None => crate::eval::prices::PriceTable::load(std::path::Path::new("prices.json"))?,
    };
    let (current, thresholds) = args.suite.load()?;
    let judge = match args.judge.llm_model() {
        Some(spec) => {
            // Check the model settings before a cache directory is created for them.
            crate::app::model_client_with(spec, args.judge.judge_base_url.as_deref())?;
            args.judge.judge(args.cache.settings(&[spec])?)?
        }
        None => args.judge.judge(crate::providers::CacheSettings::off())?,
    };
    let done = runtime()?.block_on(rescore(&stored.report, &current, judge, &thresholds, &prices, &args.name));
    let written = report::write_reports(&done.report, &dest)?;
    eprint!("{}", report::render_terminal(&done.report));
    eprintln!("rescored {} → {}", stored.dir.display(), written.dir.display());
    for id in &done.removed {
        eprintln!("note: case {id} is no longer in {}; left out", args.suite.cases_dir.display());
    }
    for id in &done.items_changed {
        eprintln!(
            "note: case {id}: its must/must_not texts changed since the run; its runs are unmeasured, not regraded"
        );
    }
    let code = if done.report.passed() { 0 } else { 1 };
    decided(code);
    let mut out = std::io::stdout().lock();
    if args.json {
        let value = serde_json::json!({
            "report": written.json,
            "verdict": done.report.verdict,
            "changes": done.changes,
            "items_changed": done.items_changed,
            "removed": done.removed,
        });
        serde_json::to_writer_pretty(&mut out, &value)?;
        writeln!(out)?;
    } else if done.changes.is_empty() {
        writeln!(out, "no verdict changed ({} cases rescored)", done.report.cases.len())?;
    } else {
        writeln!(out, "{} verdict(s) changed:", done.changes.len())?;
        for c in &done.changes {
            writeln!(out, "{}: {} → {}", c.case, c.before.word(), c.after.word())?;
            writeln!(out, "  before: {}", c.before_line.as_deref().unwrap_or("(no failure)"))?;
            writeln!(out, "  after:  {}", c.after_line.as_deref().unwrap_or("(no failure)"))?;
        }
    }
    Ok(ExitCode::from(code))
}
