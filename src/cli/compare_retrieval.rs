//! `inquiry compare-retrieval --base SPEC --cand SPEC`: two retrieval
//! configurations on the same golden set, question by question.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::bail;

use super::decided;
use crate::catalogue::Catalogue;
use crate::retrieval::{RetrievalConfig, Retriever};

/// Arguments of `inquiry compare-retrieval`.
#[derive(Debug, clap::Args)]
pub struct CompareRetrievalArgs {
    /// Baseline configuration: comma-separated `key=value` with keys
    /// `embedder` (hashing|e5), `reranker` (none|DIR), `thresholds` (FILE),
    /// `models` (DIR); unset keys take the usual defaults
    /// (e.g. `embedder=hashing`).
    #[arg(long, value_name = "SPEC", value_parser = parse_spec)]
    pub base: RetrievalConfig,
    /// Candidate configuration, same form (e.g. `embedder=e5,thresholds=new.json`).
    #[arg(long, value_name = "SPEC", value_parser = parse_spec)]
    pub cand: RetrievalConfig,
    /// Retrieval golden set; repeat for several files as one set.
    #[arg(long, default_value = "golden/golden.yaml", value_name = "FILE")]
    pub golden: Vec<PathBuf>,
    /// Catalogue directory.
    #[arg(long, default_value = "data", env = "INQUIRY_DATA")]
    pub data: PathBuf,
    /// Print the comparison as JSON on stdout instead of Markdown.
    #[arg(long)]
    pub json: bool,
    /// Do not read or write the retrieval cache (.cache/retrieval: passage embeddings and the persisted index); index in memory.
    #[arg(long)]
    pub no_cache: bool,
}

/// A configuration from `key=value,key=value`.
///
/// # Errors
/// An unknown key, a missing `=`, a repeated key or a bad embedder name.
pub fn parse_spec(spec: &str) -> Result<RetrievalConfig, String> {
    let mut config = RetrievalConfig::default();
    let mut seen: Vec<&str> = vec![];
    for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let Some((key, value)) = part.split_once('=') else {
            return Err(format!("`{part}`: expected key=value (keys: embedder, reranker, thresholds, models)"));
        };
        let (key, value) = (key.trim(), value.trim());
        if seen.contains(&key) {
            return Err(format!("`{key}` given twice"));
        }
        seen.push(key);
        match key {
            "embedder" => config.embedder = value.parse()?,
            "reranker" => config.reranker = (value != "none").then(|| PathBuf::from(value)),
            "thresholds" => config.thresholds = PathBuf::from(value),
            "models" => config.models_dir = PathBuf::from(value),
            other => return Err(format!("unknown key `{other}`; expected embedder, reranker, thresholds or models")),
        }
    }
    Ok(config)
}

/// Builds one side and describes it (models and the keep rule in force).
fn side(config: &RetrievalConfig, catalogue: &Catalogue, which: &str) -> anyhow::Result<(Retriever, String)> {
    let retriever = config.build(catalogue).map_err(|e| anyhow::anyhow!("--{which}: {e}"))?;
    let keep = match retriever.keep_rule() {
        crate::retrieval::KeepRule::Fused { vector_z, keyword_coverage } => {
            format!("keyword coverage ≥ {keyword_coverage} or vector z ≥ {vector_z}")
        }
        crate::retrieval::KeepRule::Rerank { min_score } => format!("reranker score ≥ {min_score}"),
    };
    let label = format!(
        "embedder `{}`, reranker `{}`, thresholds `{}` ({keep})",
        retriever.embedder_id(),
        retriever.reranker_id().unwrap_or("none"),
        config.thresholds.display()
    );
    Ok((retriever, label))
}

/// Measures both configurations and prints the comparison.
///
/// # Errors
/// Bad files or a configuration that cannot be built (exit 2).
pub fn run(mut args: CompareRetrievalArgs) -> anyhow::Result<ExitCode> {
    use crate::calibrate::compare::{compare, measure, render_markdown};
    let catalogue = Catalogue::load(&args.data)?;
    let golden = crate::golden::GoldenSet::load_all(&args.golden, &catalogue)?;
    let golden_name = args.golden.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(" + ");
    if golden.answerable.is_empty() {
        bail!("{golden_name}: no answerable question to compare on");
    }
    for c in [&mut args.base, &mut args.cand] {
        if args.no_cache {
            c.cache_dir = None;
        }
    }
    let (base, base_label) = side(&args.base, &catalogue, "base")?;
    let (cand, cand_label) = side(&args.cand, &catalogue, "cand")?;
    let b = measure(&golden, &base)?;
    let c = measure(&golden, &cand)?;
    let comparison = compare(&base_label, &b, &cand_label, &c)?;
    let out = if args.json {
        serde_json::to_string_pretty(&comparison)? + "\n"
    } else {
        render_markdown(&comparison, &golden_name)
    };
    decided(0);
    std::io::stdout().lock().write_all(out.as_bytes())?;
    eprintln!("{} questions changed between the two configurations", comparison.changed.len());
    Ok(ExitCode::SUCCESS)
}
