//! `inquiry compare BASE CAND`: is the candidate better or worse than the baseline?

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;

use super::args::GateArgs;
use super::decided;
use crate::analysis::compare::compare;
use crate::analysis::compare_render::{render_markdown, verdict_line};
use crate::analysis::stored::load_report;

/// Arguments of `inquiry compare`.
#[derive(Debug, clap::Args)]
pub struct CompareArgs {
    /// Baseline: a report set directory or its report.json.
    #[arg(value_name = "BASE")]
    pub base: PathBuf,
    /// Candidate: a report set directory or its report.json.
    #[arg(value_name = "CAND")]
    pub cand: PathBuf,
    /// Gates.
    #[command(flatten)]
    pub gates: GateArgs,
    /// Also write the Markdown to FILE (e.g. a pull-request comment); without
    /// --json, the Markdown goes to stdout as well.
    #[arg(long, value_name = "FILE")]
    pub summary_md: Option<PathBuf>,
    /// Also write the candidate's HTML report with a "changed since baseline"
    /// view to FILE (its case pages read the candidate's trace files).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Thresholds applied to the candidate's metrics (default: thresholds.json
    /// when it exists; a named file must exist).
    #[arg(long, value_name = "FILE")]
    pub thresholds: Option<PathBuf>,
    /// Also write the gates as JUnit XML to FILE: one test case per gate (a
    /// failure when missed, an error when it could not be decided; the suite
    /// is named after the verdict).
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Print the comparison as JSON on stdout instead of Markdown.
    #[arg(long)]
    pub json: bool,
    /// Also report each side's judge-corrected pass rate from the reviewed
    /// random sample in this review database (prediction-powered inference).
    #[arg(long, value_name = "FILE")]
    pub reviews: Option<PathBuf>,
}

/// Compares two reports; exit 0 when every gate holds, 1 when one is missed,
/// 2 when the reports cannot be compared or a gate cannot be decided.
///
/// # Errors
/// Unreadable reports (exit 2).
pub fn run(args: CompareArgs) -> anyhow::Result<ExitCode> {
    if let Some(path) = &args.summary_md {
        crate::eval::report_set::check_writable_file("--summary-md", path)?;
    }
    if let Some(path) = &args.html {
        crate::eval::report_set::check_writable_file("--html", path)?;
    }
    if let Some(path) = &args.junit {
        crate::eval::report_set::check_writable_file("--junit", path)?;
    }
    let thresholds = match &args.thresholds {
        Some(path) => Some(crate::eval::metrics::Thresholds::load(path)?),
        None => {
            let default = std::path::Path::new("thresholds.json");
            if default.is_file() {
                Some(crate::eval::metrics::Thresholds::load(default)?)
            } else {
                eprintln!("note: no thresholds.json here; the thresholds gate is not applied (--thresholds FILE)");
                None
            }
        }
    };
    let step_summary = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|s| !s.is_empty()).map(PathBuf::from);
    if let Some(path) = &step_summary {
        crate::eval::report_set::check_writable_file("GITHUB_STEP_SUMMARY", path)?;
    }
    let base = load_report(&args.base)?;
    let cand = load_report(&args.cand)?;
    // An output never replaces an input (either report set's files).
    for (flag, out) in [("--summary-md", &args.summary_md), ("--html", &args.html), ("--junit", &args.junit)] {
        let Some(out) = out else { continue };
        for input in [&base.dir, &cand.dir] {
            for name in ["report.json", "report.html", "report.md"] {
                if crate::text_file::same_file(out, &input.join(name)) {
                    anyhow::bail!(
                        "{flag} {}: that is an input ({}); name another file",
                        out.display(),
                        input.join(name).display()
                    );
                }
            }
        }
    }
    for (which, loaded) in [("BASE", &base), ("CAND", &cand)] {
        let mut seen = std::collections::HashSet::new();
        if let Some(dup) = loaded.report.cases.iter().find(|c| !seen.insert(c.id.as_str())) {
            anyhow::bail!(
                "{which} {}: case id {} appears twice; a report must list each case once (merge refuses this too)",
                loaded.dir.display(),
                crate::text_file::escape_for_terminal(&dup.id, 80)
            );
        }
    }
    let gates = crate::analysis::compare::Gates { thresholds, ..args.gates.gates() };
    let comparison = compare(&base, &cand, gates).map_err(|e| anyhow::anyhow!("{e}"))?;
    let md = render_markdown(&comparison);
    if let Some(path) = &args.summary_md {
        crate::eval::report::write_atomic(path, md.as_bytes())?;
    }
    if let Some(path) = &args.junit {
        crate::eval::report::write_atomic(
            path,
            crate::analysis::compare_render::render_junit(&comparison)?.as_bytes(),
        )?;
    }
    if let Some(path) = &args.html {
        let summary = crate::eval::report::summary_json(&cand.report);
        let cases = cand.report.cases.iter().map(|c| crate::analysis::stored::read_trace(&cand.dir, &c.id));
        let page = crate::eval::html::render(
            &cand.report,
            &summary,
            cases,
            Some(&crate::analysis::compare_render::baseline_view(&comparison)),
        )?;
        crate::eval::report::write_atomic(path, page.as_bytes())?;
        eprintln!("html: {}", path.display());
    }
    if let Some(summary) = &step_summary {
        append(summary, &md).with_context(|| format!("GITHUB_STEP_SUMMARY {}", summary.display()))?;
    }
    eprintln!("{}", verdict_line(&comparison));
    if let Some(db) = &args.reviews {
        super::eval::print_corrected(db, &[("baseline", &args.base), ("candidate", &args.cand)])?;
    }
    super::warn_inconclusive(&comparison);
    let code = comparison.exit_code();
    decided(code);
    if args.json {
        super::print_stdout(&format!("{}\n", serde_json::to_string_pretty(&comparison)?))?;
    } else {
        super::print_stdout(&crate::text_file::printable(&md))?;
    }
    Ok(ExitCode::from(code))
}

/// Appends `text` to a file (the GitHub step summary).
pub(crate) fn append(path: &std::path::Path, text: &str) -> anyhow::Result<()> {
    use std::io::Write as _;
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| anyhow::anyhow!("{}: cannot open for appending: {e}", path.display()))?;
    f.write_all(text.as_bytes())?;
    Ok(())
}
