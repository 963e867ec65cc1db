//! `inquiry calibrate`: measure how retrieval separates answerable from
//! unanswerable questions and propose thresholds.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::bail;

use super::args::RetrievalArgs;
use super::decided;
use crate::catalogue::Catalogue;

/// Arguments of `inquiry calibrate`.
#[derive(Debug, clap::Args)]
pub struct CalibrateArgs {
    /// Retrieval golden set; repeat to calibrate on several files as one set
    /// (e.g. `--golden golden/golden.yaml --golden golden/keywords.yaml`).
    #[arg(long, default_value = "golden/golden.yaml", value_name = "FILE")]
    pub golden: Vec<PathBuf>,
    /// Catalogue directory.
    #[arg(long, default_value = "data", env = "INQUIRY_DATA")]
    pub data: PathBuf,
    /// Write the report set to DIR/<name>/ instead of runs/<UTC time>-<name>/.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Name of the report set.
    #[arg(long, default_value = "calibration", value_name = "NAME")]
    pub name: String,
    /// With --out: replace an existing set of the same name (otherwise it is kept and this is an error).
    #[arg(long)]
    pub replace: bool,
    /// Choose a threshold with "false-positive rate ≤ ALPHA" at --confidence (PAC conformal rule).
    #[arg(long, value_name = "ALPHA")]
    pub max_false_positive_rate: Option<f64>,
    /// Confidence 1 − δ of that guarantee.
    #[arg(long, default_value_t = 0.95, value_name = "P")]
    pub confidence: f64,
    /// Write the proposal into the thresholds file (only the active model's entry) and print the diff.
    #[arg(long)]
    pub write: bool,
    /// Print the JSON report on stdout.
    #[arg(long)]
    pub json: bool,
    /// Retrieval settings (the thresholds file is only read with --write).
    #[command(flatten)]
    pub retrieval: RetrievalArgs,
}

/// Scores the golden set, writes the calibration report, optionally writes the proposal.
///
/// # Errors
/// Bad flags or files (exit 2); exit 1 is returned as a value when nothing separates.
pub fn run(args: CalibrateArgs) -> anyhow::Result<ExitCode> {
    use crate::calibrate::{calibrate_with, report, write_proposal, Options};
    use crate::eval::report_set;
    use crate::retrieval::{KeepRule, RetrievalSettings, Retriever};
    let config = args.retrieval.config();
    let now = chrono::Utc::now();
    let date = now.format("%Y-%m-%d %H:%M UTC").to_string();
    let guarantee = match args.max_false_positive_rate {
        Some(a) if !(a > 0.0 && a < 1.0) => {
            bail!("--max-false-positive-rate {a}: expected a fraction between 0 and 1 (0.05, not 5)")
        }
        Some(_) if !(args.confidence > 0.0 && args.confidence < 1.0) => {
            bail!("--confidence {}: expected a fraction between 0 and 1 (0.95, not 95)", args.confidence)
        }
        Some(a) => Some((a, args.confidence)),
        None => None,
    };
    let dest = destination(args.out.as_deref(), &args.name, args.replace, now)?;
    if args.write {
        // Checked before any work: a run that cannot save its proposal should not start.
        report_set::check_writable_file("--write: the thresholds file", &config.thresholds)?;
        if config.thresholds.exists() {
            crate::retrieval::thresholds::ThresholdsFile::load(&config.thresholds)?;
        }
    }
    // Creating the staging directory is also the check that the output is writable.
    let mut staging = report_set::Staging::begin(&dest, "calibrate")?;
    let catalogue = Catalogue::load(&args.data)?;
    let golden = crate::golden::GoldenSet::load_all(&args.golden, &catalogue)?;
    let golden_name = args.golden.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(" + ");
    if golden.answerable.is_empty() || golden.unanswerable.is_empty() {
        bail!(
            "{}: calibration needs answerable and unanswerable questions (found {} and {}): a threshold sits between the two",
            golden_name,
            golden.answerable.len(),
            golden.unanswerable.len()
        );
    }
    let (embedder, reranker) = config.models()?;
    // Calibration measures raw signals: the keep rule is irrelevant here, so
    // a missing thresholds entry is not an error (that is what this command fixes).
    let keep = KeepRule::Fused { vector_z: f64::INFINITY, keyword_coverage: f64::INFINITY };
    let retriever = Retriever::build(
        &catalogue,
        RetrievalSettings { embedder, reranker, keep, cache_dir: config.cache_dir.clone() },
    )?;
    // The entry in force (if any), to show today's figures per question style beside the proposal.
    let model_id = retriever.reranker_id().unwrap_or(retriever.embedder_id()).to_owned();
    let in_force = crate::retrieval::thresholds::ThresholdsFile::load(&config.thresholds)
        .ok()
        .and_then(|f| f.entries.get(&model_id).copied());
    let result = calibrate_with(&golden, &retriever, Options { guarantee, in_force })?;
    if result.answerable == 0 {
        bail!(
            "{}: every answerable question is marked needs_real_embeddings, so none is measured with {}; calibrate with --embedder e5",
            golden_name,
            result.embedder
        );
    }
    let json = serde_json::to_string_pretty(&result)? + "\n";
    let svg = crate::calibrate::chart::render_svg(&result)?;
    let markdown = report::render_markdown(&result, &date, "report.svg");
    let title = format!("Retrieval calibration: {}", result.model_id);
    staging.write("report.svg", svg.as_bytes())?;
    staging.write("report.md", markdown.as_bytes())?;
    staging.write("report.html", crate::calibrate::html::render_html(&markdown, &svg, &title).as_bytes())?;
    staging.write("report.json", json.as_bytes())?;
    let dir = staging.commit()?;
    eprint!("{}", report::render_terminal(&result));
    eprintln!("report: {}", dir.join("report.md").display());
    if args.write {
        let diff = write_proposal(&config.thresholds, &result.model_id, result.proposal, result.reranker.is_some())?;
        if diff.is_empty() {
            eprintln!("{}: entry `{}` already equals the proposal", config.thresholds.display(), result.model_id);
        } else {
            eprint!("{diff}");
        }
    }
    decided(if result.separates { 0 } else { 1 });
    if args.json {
        std::io::stdout().lock().write_all(json.as_bytes())?;
    }
    Ok(if result.separates { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// Where the set goes: `--out DIR` gives `DIR/<name>`, refused when it exists
/// unless `--replace`; otherwise `runs/<UTC time>-<name>`, with `-2`, `-3`, …
/// added when a run in the same second already took the name, so an earlier
/// report is never overwritten.
fn destination(
    out: Option<&std::path::Path>,
    name: &str,
    replace: bool,
    now: chrono::DateTime<chrono::Utc>,
) -> anyhow::Result<crate::eval::report_set::Destination> {
    use crate::eval::report_set::destination as resolve;
    let dest = resolve(out, name, now)?;
    if !dest.dir.exists() {
        return Ok(dest);
    }
    if out.is_some() {
        if replace {
            return Ok(dest);
        }
        bail!(
            "{}: a report set of this name exists and is kept; choose another --name, or pass --replace to replace it",
            dest.dir.display()
        );
    }
    for i in 2..1000 {
        let next = resolve(None, &format!("{name}-{i}"), now)?;
        if !next.dir.exists() {
            return Ok(next);
        }
    }
    bail!("{}: too many report sets of this name in one second", dest.dir.display())
}
