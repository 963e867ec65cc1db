//! `inquiry eval`: run the suite and the golden set, write the reports, gate the metrics.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{bail, Context};

use super::args::{CacheArgs, GateArgs, JudgeArgs, LimitArgs, RetrievalArgs};
use super::{decided, runtime};
use crate::app::{model_client_for, ProviderFlags};
use crate::eval::RunStatus;
use crate::providers::CacheSettings;

/// Arguments of `inquiry eval`.
#[derive(Debug, clap::Args)]
pub struct EvalArgs {
    /// Run only the cases marked `subset`.
    #[arg(long)]
    pub subset: bool,
    /// Run only this case (repeatable).
    #[arg(long = "case", value_name = "ID")]
    pub cases_selected: Vec<String>,
    /// Run only cases with this tag (repeatable).
    #[arg(long = "tag", value_name = "TAG")]
    pub tags: Vec<String>,
    /// Run only shard i of n (a stable split by a hash of the case id; the
    /// golden set runs in shard 1). Merge the shards with `inquiry merge`.
    #[arg(long, value_name = "i/n", value_parser = |s: &str| s.parse::<crate::eval::Shard>())]
    pub shard: Option<crate::eval::Shard>,
    /// Compare the run with this baseline report (directory or report.json)
    /// and apply the gates; the comparison goes to stderr and the step summary.
    #[arg(long, value_name = "REPORT")]
    pub baseline: Option<PathBuf>,
    /// Gates of the baseline comparison.
    #[command(flatten)]
    pub gates: GateArgs,
    /// Append one line for this run to a JSON Lines history file.
    #[arg(long, value_name = "FILE.jsonl")]
    pub history: Option<PathBuf>,
    /// Catalogue directory.
    #[arg(long, default_value = "data", env = "INQUIRY_DATA")]
    pub data: PathBuf,
    /// Case directory (*.yaml).
    #[arg(long = "cases", default_value = "cases", value_name = "DIR")]
    pub cases_dir: PathBuf,
    /// Retrieval golden set.
    #[arg(long, default_value = "golden/golden.yaml", value_name = "FILE")]
    pub golden: PathBuf,
    /// Directory of overlay catalogues used by cases (`fixtures:`).
    #[arg(long, default_value = "fixtures", value_name = "DIR")]
    pub fixtures: PathBuf,
    /// Metric thresholds.
    #[arg(long, default_value = "thresholds.json", value_name = "FILE")]
    pub thresholds: PathBuf,
    /// Price table (USD per million tokens by model id); default prices.json
    /// when present (a file named here must exist).
    #[arg(long, value_name = "FILE")]
    pub prices: Option<PathBuf>,
    /// Report name: the set <out>/<name>/ (report.md, report.json, cases/<case-id>.json).
    #[arg(long, default_value = "eval")]
    pub name: String,
    /// Output directory. Without it, the set goes to runs/<UTC time>-<name>/
    /// (git-ignored) and runs/latest points at it; the committed reports are
    /// written with `--out reports`.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// The judge.
    #[command(flatten)]
    pub judge: JudgeArgs,
    /// Agent model: `demo` (offline, default), `anthropic:<id>`, `bedrock:<id>` or `openai:<id>`.
    #[arg(long, default_value = "demo")]
    pub model: String,
    /// Base URL of the agent model's provider (overrides ANTHROPIC_BASE_URL / OPENAI_BASE_URL / AWS_ENDPOINT_URL_BEDROCK_RUNTIME).
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// AWS region of `bedrock:` models, the agent's and the judge's (overrides AWS_REGION; default eu-central-1).
    #[arg(long, value_name = "REGION")]
    pub region: Option<String>,
    /// Runs per case (pass rate per case, pass^N for critical cases, flaky list).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub repeat: u32,
    /// Cases run at once.
    #[arg(short = 'j', long = "jobs", default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub jobs: u32,
    /// Also write a JUnit XML file (one test case per eval case).
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Print the JSON report on stdout.
    #[arg(long)]
    pub json: bool,
    /// Also report the judge-corrected pass rate from the reviewed random
    /// sample in this review database (prediction-powered inference).
    #[arg(long, value_name = "FILE")]
    pub reviews: Option<PathBuf>,
    /// Retrieval settings.
    #[command(flatten)]
    pub retrieval: RetrievalArgs,
    /// Agent limits.
    #[command(flatten)]
    pub limits: LimitArgs,
    /// Response cache.
    #[command(flatten)]
    pub cache: CacheArgs,
}

/// Progress on stderr: a bar on a terminal, plain lines otherwise.
struct EvalProgress {
    bar: Option<indicatif::ProgressBar>,
    total: std::sync::atomic::AtomicUsize,
    count: std::sync::atomic::AtomicUsize,
}

impl EvalProgress {
    fn new() -> Self {
        use std::io::IsTerminal;
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = indicatif::ProgressBar::with_draw_target(Some(0), indicatif::ProgressDrawTarget::stderr());
            if let Ok(style) = indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} cases {msg}") {
                bar.set_style(style);
            }
            bar
        });
        Self { bar, total: 0.into(), count: 0.into() }
    }
}

impl crate::eval::Progress for EvalProgress {
    fn start(&self, total: usize) {
        self.total.store(total, std::sync::atomic::Ordering::SeqCst);
        if let Some(bar) = &self.bar {
            bar.set_length(total as u64);
        }
    }
    fn done(&self, case_id: &str, status: RunStatus, latency_ms: u64) {
        let n = self.count.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
        let word = match status {
            RunStatus::Pass => "pass",
            RunStatus::Fail => "FAIL",
            RunStatus::Unmeasured => "UNMEASURED",
        };
        match &self.bar {
            Some(bar) => {
                bar.set_message(format!("{case_id} {word}"));
                bar.inc(1);
            }
            None => eprintln!(
                "[{n}/{}] {word} {case_id} ({latency_ms} ms)",
                self.total.load(std::sync::atomic::Ordering::SeqCst)
            ),
        }
    }
    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// Runs the eval and writes the report set; exit 1 when a threshold is missed.
///
/// # Errors
/// Bad flags, files or cases (exit 2), naming the file, line or flag.
pub fn run(args: EvalArgs) -> anyhow::Result<ExitCode> {
    use crate::eval::{report, report_set, run_eval, EvalSetup, ModelFactory, Selection};
    // Every output path is checked before the run, so a late failure cannot
    // leave a mixed report set.
    let dest = report_set::destination(args.out.as_deref(), &args.name, chrono::Utc::now())?;
    if let Some(path) = &args.junit {
        report_set::check_writable_file("--junit", path)?;
    }
    let step_summary = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|s| !s.is_empty()).map(PathBuf::from);
    if let Some(path) = &step_summary {
        report_set::check_writable_file("GITHUB_STEP_SUMMARY", path)?;
    }
    if let Some(path) = &args.history {
        crate::analysis::history::check_appendable(path)?;
    }
    // Taken before the run: the history line says whether the tree that ran had uncommitted changes.
    let dirty_at_start = args.history.as_ref().and_then(|_| crate::analysis::history::working_tree_dirty());
    let thresholds = crate::eval::metrics::Thresholds::load(&args.thresholds)?;
    // The baseline is read before the run, so a bad path costs nothing.
    let baseline = args.baseline.as_deref().map(crate::analysis::stored::load_report).transpose()?;
    let prices = match &args.prices {
        Some(p) => crate::eval::prices::PriceTable::load_named(p, true)?,
        None => crate::eval::prices::PriceTable::load(std::path::Path::new("prices.json"))?,
    };
    let judge_spec = args.judge.llm_model();
    // Check the model settings (keys, URLs) before a cache directory is created for them.
    let flags = crate::app::ProviderFlags { base_url: args.base_url.as_deref(), region: args.region.as_deref() };
    model_client_for(&args.model, flags, CacheSettings::off())?;
    if let Some(spec) = judge_spec {
        let judge_flags =
            ProviderFlags { base_url: args.judge.judge_base_url.as_deref(), region: args.region.as_deref() };
        model_client_for(spec, judge_flags, CacheSettings::off())?;
    }
    let cache = args.cache.settings(&[args.model.as_str(), judge_spec.unwrap_or("")])?;
    let model = model_client_for(&args.model, flags, cache.clone())?;
    let mut args = args;
    args.judge.region = args.region.clone();
    args.judge.models = Some(args.retrieval.models.clone());
    let judge = args.judge.judge(cache.clone())?;
    let setup = EvalSetup {
        data: args.data.clone(),
        cases_dir: args.cases_dir.clone(),
        golden: args.golden.clone(),
        fixtures: args.fixtures.clone(),
        retrieval: args.retrieval.config(),
        thresholds,
        selection: Selection {
            subset: args.subset,
            case_ids: args.cases_selected.clone(),
            tags: args.tags.clone(),
            shard: args.shard,
        },
        concurrency: args.jobs as usize,
        repeat: args.repeat as usize,
        limits: args.limits.limits(),
        prices,
        name: args.name.clone(),
    };
    // A baseline of another selection cannot be compared: say so before the run, not after it.
    if let Some(base) = &baseline {
        if base.report.selection != setup.selection {
            let why = crate::analysis::compare::Incomparable::DifferentSelection {
                base: crate::eval::selection_words(&base.report.selection),
                cand: crate::eval::selection_words(&setup.selection),
            };
            bail!("--baseline {}: {why}; nothing was run", base.dir.display());
        }
    }
    let model_id = model.id().to_owned();
    let factory: ModelFactory = Arc::new(move |_, _| model.clone());
    let progress = EvalProgress::new();
    // Traces go to the staged report set as cases finish, not all at the end.
    let traces = report::StagedTraces::new(&dest);
    let result = runtime()?.block_on(run_eval(
        &setup,
        Arc::new(crate::app::McpAgentRunner),
        &model_id,
        factory,
        judge,
        &progress,
        super::interrupt_signal(),
        &traces,
    ))?;
    let mut result = result;
    let measured = std::path::Path::new("reports")
        .join(crate::eval::judge_check::measured_set_name(&result.judge))
        .join("report.json");
    result.judge_notes = crate::eval::judge_check::judge_notes(&result.judge, &model_id, &measured);
    // The comparison is made before the set is written, so its report.html shows it.
    let comparison = match &baseline {
        Some(base) => {
            let cand = crate::analysis::stored::LoadedReport { report: result.clone(), dir: dest.dir.clone() };
            Some(
                crate::analysis::compare::compare(base, &cand, args.gates.gates())
                    .map_err(|e| anyhow::anyhow!("--baseline: {e}"))?,
            )
        }
        None => None,
    };
    let written = report::finish_set(
        traces.into_staging()?,
        &result,
        comparison.as_ref().map(crate::analysis::compare_render::baseline_view).as_ref(),
    )?;
    if let Some(path) = &args.junit {
        let mut junit = crate::eval::junit::junit_report(&result);
        if let Some(c) = &comparison {
            junit.add_test_suite(crate::analysis::compare_render::junit_suite(c));
        }
        report::write_atomic(path, junit.to_string()?.as_bytes())?;
    }
    if let Some(summary) = &step_summary {
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(summary)
            .with_context(|| format!("GITHUB_STEP_SUMMARY {}: cannot open", summary.display()))?;
        f.write_all(report::render_summary(&result).as_bytes())
            .with_context(|| format!("GITHUB_STEP_SUMMARY {}: cannot write", summary.display()))?;
    }
    eprint!("{}", report::render_terminal(&result));
    for note in &result.judge_notes {
        eprintln!("{note}");
    }
    eprintln!(
        "report: {} and {} (traces in {})",
        written.markdown.display(),
        written.html.display(),
        written.dir.join("cases").display()
    );
    if let Some(db) = &args.reviews {
        print_corrected(db, &[("eval", &written.dir)])?;
    }
    let errors: Vec<String> = result
        .runs()
        .filter_map(|(c, r)| {
            r.error
                .clone()
                .or_else(|| r.result.as_ref().and_then(|x| x.error.clone()))
                .map(|e| format!("{}: {e}", c.id))
        })
        .collect();
    if !errors.is_empty() {
        eprintln!("warning: {} run(s) ended with an agent or provider error; first: {}", errors.len(), errors[0]);
    }
    if let Some(inc) = &result.incomplete {
        // The report so far is written; a re-run replays every finished call from the cache.
        eprintln!(
            "INCOMPLETE: {} ({} of {} runs finished; the report covers those). Run the same command again to finish: completed model calls are answered from the response cache.",
            inc.reason, inc.runs_finished, inc.runs_planned
        );
        decided(130);
        return Ok(ExitCode::from(130));
    }
    if let Some(path) = &args.history {
        use crate::analysis::history::{append, line_for, InputPaths};
        let prices = args.prices.clone().unwrap_or_else(|| PathBuf::from("prices.json"));
        let paths = InputPaths {
            cases: &args.cases_dir,
            rubrics: &args.judge.rubrics,
            catalogue: &args.data,
            fixtures: &args.fixtures,
            thresholds: &args.thresholds,
            retrieval_thresholds: &args.retrieval.retrieval_thresholds,
            golden: &args.golden,
            prices: &prices,
        };
        append(path, &line_for(&result, &paths, dirty_at_start)?)?;
        eprintln!("history: appended a line to {}", path.display());
    }
    let mut gate_code = 0;
    if let Some(comparison) = &comparison {
        use crate::analysis::compare_render::{render_markdown, verdict_line};
        let md = render_markdown(comparison);
        eprint!("\n{md}");
        if let Some(summary) = &step_summary {
            super::compare::append(summary, &md)?;
        }
        eprintln!("baseline: {}", verdict_line(comparison));
        super::warn_inconclusive(comparison);
        gate_code = comparison.exit_code();
    }
    if cache.mode == crate::cache::CacheMode::Replay {
        if let Some(miss) = first_replay_miss(&result) {
            decided(2);
            bail!("--cache replay: {miss}");
        }
    }
    // Nothing was learnt about the agent: an infrastructure error, exit 2.
    if let Some(cause) = result.infrastructure_failure() {
        decided(2);
        if args.json {
            let mut out = std::io::stdout().lock();
            serde_json::to_writer_pretty(&mut out, &report::summary_json(&result))?;
            writeln!(out)?;
        }
        bail!("{cause}");
    }
    let empty_shard = result.verdict == crate::eval::EMPTY_SHARD;
    let code = match (result.passed() || empty_shard, gate_code) {
        (_, 2) => 2,
        (true, 0) => 0,
        _ => 1,
    };
    decided(code);
    if args.json {
        let mut out = std::io::stdout().lock();
        serde_json::to_writer_pretty(&mut out, &report::summary_json(&result))?;
        writeln!(out)?;
    }
    Ok(ExitCode::from(code))
}

/// The first model call that `--cache replay` could not answer: case, run,
/// model-call number and key.
fn first_replay_miss(report: &crate::eval::EvalReport) -> Option<String> {
    report.runs().find_map(|(case, run)| {
        let agent_miss = run.result.as_ref().and_then(|result| {
            result.exchanges.iter().find(|x| {
                x.error.as_deref().is_some_and(|e| e.starts_with("no cached response")) && x.cache_key.is_some()
            })
        });
        if let Some(miss) = agent_miss {
            return Some(format!(
                "case {} run {} model call {}: no cached response (key {}); record it with --cache use",
                case.id,
                run.attempt,
                miss.model_call,
                miss.cache_key.as_deref().unwrap_or("?")
            ));
        }
        let judge_miss = run.judge_error.as_deref().filter(|e| e.contains("no cached response"))?;
        Some(format!("case {} run {} judge call: {judge_miss}; record it with --cache use", case.id, run.attempt))
    })
}

/// Prints each named report set's judge-corrected pass rate (stderr) from
/// the reviews in `db` (see [`crate::review::corrected`]).
///
/// # Errors
/// The database or a report set cannot be read.
pub(crate) fn print_corrected(db: &std::path::Path, sets: &[(&str, &std::path::Path)]) -> anyhow::Result<()> {
    if !db.is_file() {
        anyhow::bail!("--reviews {}: no review database here (`inquiry view --review` creates it)", db.display());
    }
    let store = crate::review::ReviewStore::open(db)?;
    for (name, dir) in sets {
        let stored = crate::analysis::stored::load_stored(dir)?;
        let c = crate::review::corrected::corrected_pass_rate(&stored.report, &store)?;
        eprintln!("{}", crate::review::corrected::render_line(name, c.as_ref()));
    }
    Ok(())
}
