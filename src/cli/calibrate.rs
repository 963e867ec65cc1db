//! `inquiry calibrate`: measure how retrieval separates answerable from
//! unanswerable questions and propose thresholds.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::bail;

use super::args::RetrievalArgs;
use super::{check_out_dir, decided};
use crate::catalogue::Catalogue;

/// Arguments of `inquiry calibrate`.
#[derive(Debug, clap::Args)]
pub struct CalibrateArgs {
    /// Retrieval golden set.
    #[arg(long, default_value = "golden/golden.yaml", value_name = "FILE")]
    pub golden: PathBuf,
    /// Catalogue directory.
    #[arg(long, default_value = "data", env = "INQUIRY_DATA")]
    pub data: PathBuf,
    /// Output directory for calibration-<date>.md/.json/.svg.
    #[arg(long, default_value = "reports", value_name = "DIR")]
    pub out: PathBuf,
    /// Report file stem instead of calibration-<date> (e.g. to keep one report per model).
    #[arg(long, value_name = "STEM")]
    pub name: Option<String>,
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
    use crate::calibrate::{calibrate, report, write_proposal};
    use crate::retrieval::{KeepRule, RetrievalSettings, Retriever};
    let config = args.retrieval.config();
    let date = chrono::Utc::now().format("%Y-%m-%d").to_string();
    let stem = args.name.clone().unwrap_or_else(|| format!("calibration-{date}"));
    if stem.is_empty() || stem.starts_with('.') || stem.contains(['/', '\\']) {
        bail!("--name {stem:?}: expected a plain file name without slashes or a leading dot");
    }
    check_out_dir(&args.out)?;
    let catalogue = Catalogue::load(&args.data)?;
    let golden = crate::golden::GoldenSet::load(&args.golden, &catalogue)?;
    if golden.answerable.is_empty() || golden.unanswerable.is_empty() {
        bail!(
            "{}: calibration needs answerable and unanswerable questions (found {} and {}): a threshold sits between the two",
            args.golden.display(),
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
    let result = calibrate(&golden, &retriever)?;
    if result.answerable == 0 {
        bail!(
            "{}: every answerable question is marked needs_real_embeddings, so none is measured with {}; calibrate with --embedder e5",
            args.golden.display(),
            result.embedder
        );
    }
    let svg_name = format!("{stem}.svg");
    crate::eval::report::write_atomic(&args.out.join(&svg_name), report::render_svg(&result).as_bytes())?;
    crate::eval::report::write_atomic(
        &args.out.join(format!("{stem}.md")),
        report::render_markdown(&result, &date, &svg_name).as_bytes(),
    )?;
    let json = serde_json::to_string_pretty(&result)? + "\n";
    crate::eval::report::write_atomic(&args.out.join(format!("{stem}.json")), json.as_bytes())?;
    eprint!("{}", report::render_terminal(&result));
    eprintln!("report: {}", args.out.join(format!("{stem}.md")).display());
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
