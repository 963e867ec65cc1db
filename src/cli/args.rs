//! Flag groups shared by several subcommands: retrieval settings and agent limits.

use std::path::PathBuf;
use std::time::Duration;

use crate::agent::Limits;
use crate::retrieval::thresholds::DEFAULT_THRESHOLDS_FILE;
use crate::retrieval::{EmbedderChoice, RetrievalConfig};

/// Retrieval flags shared by every command that searches knowledge.
#[derive(Debug, Clone, clap::Args)]
pub struct RetrievalArgs {
    /// Embedder: `hashing` (offline default) or `e5` (multilingual-e5-small from --models).
    #[arg(long, default_value = "hashing", value_parser = |s: &str| s.parse::<EmbedderChoice>())]
    pub embedder: EmbedderChoice,
    /// Directory holding model folders (see scripts/fetch-models).
    #[arg(long, default_value = "models", value_name = "DIR")]
    pub models: PathBuf,
    /// Cross-encoder reranker: `none` or a model directory.
    #[arg(long, default_value = "none", value_name = "none|PATH")]
    pub reranker: String,
    /// Retrieval thresholds file (keyed by model id; written by `inquiry calibrate --write`).
    #[arg(long, default_value = DEFAULT_THRESHOLDS_FILE, value_name = "FILE")]
    pub retrieval_thresholds: PathBuf,
    /// Do not read or write the retrieval cache (.cache/retrieval: passage embeddings and the persisted index); index in memory.
    #[arg(long)]
    pub no_cache: bool,
}

impl RetrievalArgs {
    /// The library configuration these flags describe.
    pub fn config(&self) -> RetrievalConfig {
        RetrievalConfig {
            embedder: self.embedder,
            models_dir: self.models.clone(),
            reranker: (self.reranker != "none").then(|| PathBuf::from(&self.reranker)),
            thresholds: self.retrieval_thresholds.clone(),
            cache_dir: (!self.no_cache).then(|| PathBuf::from(crate::retrieval::RETRIEVAL_CACHE_DIR)),
        }
    }
}

/// Agent limits, overridable per run (SPEC §6 defaults).
#[derive(Debug, Clone, clap::Args)]
pub struct LimitArgs {
    /// Most model calls per inquiry (at least 1).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_model_calls: u32,
    /// Token budget per inquiry (tokens, at least 1).
    #[arg(long, default_value_t = 80_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub token_budget: u64,
    /// Timeout of one model call (seconds, at least 1).
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..))]
    pub model_timeout: u64,
    /// Timeout of one tool call (seconds, at least 1).
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..))]
    pub tool_timeout: u64,
}

impl LimitArgs {
    /// The agent limits these flags describe.
    pub fn limits(&self) -> Limits {
        Limits {
            max_model_calls: self.max_model_calls,
            token_budget: self.token_budget,
            model_timeout: Duration::from_secs(self.model_timeout),
            tool_timeout: Duration::from_secs(self.tool_timeout),
            ..Limits::default()
        }
    }
}

/// Response-cache flags for commands that call real model providers.
#[derive(Debug, Clone, clap::Args)]
pub struct CacheArgs {
    /// Response cache: `use` (read hits, store misses; the default), `off`,
    /// or `replay` (no network: a call without a stored answer is exit 2).
    /// The demo model needs no cache.
    #[arg(long = "cache", default_value = "use", value_name = "use|off|replay",
          value_parser = |s: &str| s.parse::<crate::cache::CacheMode>())]
    pub mode: crate::cache::CacheMode,
    /// Directory of the response cache (cache.sqlite).
    #[arg(long, default_value = crate::cache::DEFAULT_CACHE_DIR, value_name = "DIR", env = "INQUIRY_CACHE_DIR")]
    pub cache_dir: PathBuf,
    /// Revision of the weights behind the model id (a tag, a digest, a
    /// date): part of every cache key, so answers recorded from other
    /// weights under the same id are not reused. Local servers (Ollama,
    /// vLLM) often keep an id while the weights change.
    #[arg(long, value_name = "REV", env = "INQUIRY_MODEL_REVISION")]
    pub model_revision: Option<String>,
}

impl CacheArgs {
    /// Opens the cache when one of `models` is a real provider and the mode is
    /// not `off`; the demo model alone opens nothing.
    ///
    /// # Errors
    /// A cache directory that cannot be created or written, or (replay) a
    /// missing or unreadable cache file.
    pub fn settings(&self, models: &[&str]) -> anyhow::Result<crate::providers::CacheSettings> {
        let real = models.iter().any(|m| ["anthropic:", "bedrock:", "openai:"].iter().any(|p| m.starts_with(p)));
        if !real || self.mode == crate::cache::CacheMode::Off {
            return Ok(crate::providers::CacheSettings { cache: None, mode: self.mode, revision: None });
        }
        let writable = self.mode != crate::cache::CacheMode::Replay;
        let cache = crate::cache::ResponseCache::open(&self.cache_dir, writable)?;
        let revision = self.model_revision.as_deref().map(str::trim).filter(|r| !r.is_empty()).map(str::to_owned);
        Ok(crate::providers::CacheSettings { cache: Some(std::sync::Arc::new(cache)), mode: self.mode, revision })
    }
}

/// Gates of a comparison with a baseline (`compare`, `eval --baseline`).
#[derive(Debug, Clone, clap::Args)]
pub struct GateArgs {
    /// Largest allowed fall of the case pass rate below the baseline, as a
    /// fraction of 1 (0.02 = two points), on the shared cases.
    #[arg(long, value_name = "FRACTION", value_parser = parse_fraction)]
    pub max_drop: Option<f64>,
    /// Every critical case must pass every one of its runs.
    #[arg(long)]
    pub critical_all_runs: bool,
    /// Fail when the paired test finds the candidate significantly worse.
    #[arg(long)]
    pub fail_on_significant_regression: bool,
    /// Significance level of --fail-on-significant-regression.
    #[arg(long, default_value_t = 0.05, value_parser = parse_alpha)]
    pub alpha: f64,
    /// What an INCONCLUSIVE gate does (the suite cannot decide it): `pass`
    /// exits 0 with a warning, `fail` exits 1.
    #[arg(long, value_enum, default_value_t = Inconclusive::Pass)]
    pub inconclusive: Inconclusive,
}

/// `--inconclusive pass|fail`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Inconclusive {
    /// Exit 0 with a loud warning.
    Pass,
    /// Exit 1.
    Fail,
}

impl GateArgs {
    /// The library's gate settings.
    pub fn gates(&self) -> crate::analysis::compare::Gates {
        crate::analysis::compare::Gates {
            max_drop: self.max_drop,
            critical_all_runs: self.critical_all_runs,
            significant_regression_alpha: self.fail_on_significant_regression.then_some(self.alpha),
            thresholds: None,
            inconclusive_fails: self.inconclusive == Inconclusive::Fail,
        }
    }
}

fn parse_fraction(s: &str) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|_| format!("`{s}`: expected a fraction such as 0.02"))?;
    if !(0.0..=1.0).contains(&v) {
        return Err(format!("`{s}`: expected a fraction from 0 to 1 (0.02 = two points), not a percentage"));
    }
    Ok(v)
}

fn parse_alpha(s: &str) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|_| format!("`{s}`: expected a probability such as 0.05"))?;
    if !(v > 0.0 && v < 1.0) {
        return Err(format!("`{s}`: expected a probability above 0 and below 1"));
    }
    Ok(v)
}

/// Judge flags shared by `eval` and `rescore`.
#[derive(Debug, Clone, clap::Args)]
pub struct JudgeArgs {
    /// Judge: `rules` (offline, default), `llm` (needs --judge-model),
    /// `rules+llm` (the LLM grades only what the rule judge leaves undecided) or `none`.
    #[arg(long, default_value = "rules", value_parser = ["rules", "llm", "rules+llm", "none"])]
    pub judge: String,
    /// Model of the LLM judge: `anthropic:<id>`, `bedrock:<id>` or `openai:<id>`.
    #[arg(long, value_name = "MODEL")]
    pub judge_model: Option<String>,
    /// Base URL of the judge model's provider.
    #[arg(long, value_name = "URL")]
    pub judge_base_url: Option<String>,
    /// AWS region of a `bedrock:` judge (set from `eval --region`; else AWS_REGION).
    #[arg(skip)]
    pub region: Option<String>,
    /// Judge rubric templates.
    #[arg(long, default_value = "rubrics", value_name = "DIR")]
    pub rubrics: PathBuf,
    /// Sentence embedder of the rule judge's embedding route, off by default
    /// (a generic item reached cosine 0.88 with an unrelated negated sentence,
    /// see labels/README.md): `none`, `auto`
    /// (multilingual-e5-small when the models directory holds it, else none),
    /// `e5` (required) or `none` (lexical meaning only). The judge's id says
    /// which was used (`rules+multilingual-e5-small` or `rules`).
    #[arg(long, default_value = "none", value_parser = ["auto", "e5", "none"])]
    pub judge_embedder: String,
    /// Models directory of the judge's embedder (set from `eval --models`; else `models`).
    #[arg(skip)]
    pub models: Option<PathBuf>,
}

impl JudgeArgs {
    /// The rule judge with the sentence embedder `--judge-embedder` names.
    ///
    /// # Errors
    /// `--judge-embedder e5` without the model files.
    pub fn rule_judge(&self) -> anyhow::Result<crate::eval::judge::RuleJudge> {
        let models = self.models.clone().unwrap_or_else(|| PathBuf::from("models"));
        Ok(
            match crate::eval::judge::similarity::judge_embedder(&self.judge_embedder, &models)
                .map_err(|e| anyhow::anyhow!("--judge-embedder: {e}"))?
            {
                Some(s) => crate::eval::judge::RuleJudge::with_embedder(s),
                None => crate::eval::judge::RuleJudge::default(),
            },
        )
    }

    /// The LLM judge's model spec, when `--judge llm`.
    pub fn llm_model(&self) -> Option<&str> {
        if self.judge == "llm" || self.judge == "rules+llm" {
            self.judge_model.as_deref()
        } else {
            None
        }
    }

    /// The judge these flags name; an LLM judge calls its model through `cache`.
    ///
    /// # Errors
    /// `--judge llm` without `--judge-model`, a provider without its settings,
    /// or unreadable rubric templates.
    pub fn judge(
        &self,
        cache: crate::providers::CacheSettings,
    ) -> anyhow::Result<Option<std::sync::Arc<dyn crate::eval::judge::Judge>>> {
        use anyhow::Context as _;
        Ok(match self.judge.as_str() {
            "none" => None,
            "rules" => Some(std::sync::Arc::new(self.rule_judge()?)),
            _ => {
                let spec = self
                    .judge_model
                    .as_deref()
                    .context("--judge llm needs --judge-model anthropic:<id>, bedrock:<id> or openai:<id>")?;
                let flags = crate::app::ProviderFlags {
                    base_url: self.judge_base_url.as_deref(),
                    region: self.region.as_deref(),
                };
                let model = crate::app::model_client_for(spec, flags, cache)?;
                let llm = crate::eval::judge::LlmJudge::load(model, &self.rubrics)?;
                if self.judge == "rules+llm" {
                    Some(std::sync::Arc::new(crate::eval::judge::HybridJudge::new(self.rule_judge()?, llm)))
                } else {
                    Some(std::sync::Arc::new(llm))
                }
            }
        })
    }
}

/// Where the current suite lives, for commands that meet stored runs with it
/// (`rescore`, `merge`).
#[derive(Debug, Clone, clap::Args)]
pub struct SuiteArgs {
    /// Case directory (or one case file).
    #[arg(long = "cases", default_value = "cases", value_name = "DIR")]
    pub cases_dir: PathBuf,
    /// Catalogue directory (case listing ids are checked against it).
    #[arg(long, default_value = "data", env = "INQUIRY_DATA")]
    pub data: PathBuf,
    /// Directory of overlay catalogues used by cases.
    #[arg(long, default_value = "fixtures", value_name = "DIR")]
    pub fixtures: PathBuf,
    /// Metric thresholds applied to the new report.
    #[arg(long, default_value = "thresholds.json", value_name = "FILE")]
    pub thresholds: PathBuf,
}

impl SuiteArgs {
    /// The loaded cases and thresholds.
    ///
    /// # Errors
    /// Case, catalogue or thresholds file errors, naming the file.
    pub fn load(&self) -> anyhow::Result<(Vec<crate::eval::case::LoadedCase>, crate::eval::metrics::Thresholds)> {
        let thresholds = crate::eval::metrics::Thresholds::load(&self.thresholds)?;
        let cases = crate::eval::load_suite(&self.cases_dir, &self.data, &self.fixtures)?;
        Ok((cases, thresholds))
    }
}
