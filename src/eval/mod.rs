//! `inquiry eval` (SPEC §7): run the case suite against the agent and the
//! golden set against retrieval, check and judge every run, compute metrics,
//! apply `thresholds.json`, and produce an [`EvalReport`] that reporters render.

pub mod case;
pub mod checks;
pub mod golden;
pub mod judge;
pub mod metrics;
pub mod prices;
pub mod report;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::agent::model::ModelClient;
use crate::agent::AgentRunner;
use crate::agent::{Limits, RunResult};
use crate::golden::GoldenSet;
use crate::handoff::HandoffReason;
use crate::knowledge::Knowledge;
use crate::retrieval::{KeepRule, RetrievalConfig};
use case::{load_cases, KnownListings, LoadedCase};
use checks::CodeChecks;
use golden::GoldenReport;
use judge::{Judge, Verdict};
use metrics::{gate, percentile, GatedMetric, Metric, Thresholds};
use prices::PriceTable;

/// Which cases to run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Selection {
    /// Only cases marked `subset`.
    pub subset: bool,
    /// Only these ids (empty = all).
    pub case_ids: Vec<String>,
    /// Only cases with one of these tags (empty = all).
    pub tags: Vec<String>,
}

/// Everything an eval run needs besides the model and the judge.
#[derive(Debug, Clone)]
pub struct EvalSetup {
    /// Catalogue directory.
    pub data: PathBuf,
    /// Case directory.
    pub cases_dir: PathBuf,
    /// Golden set file.
    pub golden: PathBuf,
    /// Fixtures directory holding overlay catalogues.
    pub fixtures: PathBuf,
    /// Retrieval configuration.
    pub retrieval: RetrievalConfig,
    /// Thresholds.
    pub thresholds: Thresholds,
    /// Which cases.
    pub selection: Selection,
    /// Cases run at once.
    pub concurrency: usize,
    /// Runs per case.
    pub repeat: usize,
    /// Agent limits.
    pub limits: Limits,
    /// Price table for cost metrics.
    pub prices: PriceTable,
    /// Report name.
    pub name: String,
}

/// Makes the model for one run of one case (the CLI returns the same model
/// every time; tests script a model per case).
pub type ModelFactory = Arc<dyn Fn(&LoadedCase, usize) -> Arc<dyn ModelClient> + Send + Sync>;

/// Progress callbacks (the CLI draws a bar or prints lines on stderr).
pub trait Progress: Send + Sync {
    /// The run starts with `total` case runs.
    fn start(&self, total: usize);
    /// One case run finished.
    fn done(&self, case_id: &str, passed: bool, latency_ms: u64);
    /// All runs finished.
    fn finish(&self);
}

/// Progress that reports nothing.
pub struct Silent;

impl Progress for Silent {
    fn start(&self, _: usize) {}
    fn done(&self, _: &str, _: bool, _: u64) {}
    fn finish(&self) {}
}

/// One run of one case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaseRun {
    /// 1-based attempt number (with `--repeat`).
    pub attempt: usize,
    /// The agent's result; `None` when the agent could not run.
    pub result: Option<RunResult>,
    /// Why the agent could not run, if so.
    pub error: Option<String>,
    /// Code checks (absent when the agent could not run).
    pub checks: Option<CodeChecks>,
    /// The judge's verdict, if judged.
    pub verdict: Option<Verdict>,
    /// Why the judge could not grade, if so (the run is then unmeasured, not passed).
    pub judge_error: Option<String>,
    /// Wall time of the agent run (ms).
    pub latency_ms: u64,
    /// Agent cost (USD), `None` when the model's price is unknown.
    pub cost_usd: Option<f64>,
    /// Judge cost (USD), `None` when unknown or not judged.
    pub judge_cost_usd: Option<f64>,
    /// Every check and the judge passed.
    pub passed: bool,
    /// One line per failure.
    pub failures: Vec<String>,
}

/// All runs of one case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaseReport {
    /// Case id.
    pub id: String,
    /// Case file.
    pub file: String,
    /// Language.
    pub lang: crate::golden::Lang,
    /// Tags.
    pub tags: Vec<String>,
    /// Critical case.
    pub critical: bool,
    /// In the subset.
    pub subset: bool,
    /// The inquiry.
    pub inquiry: String,
    /// Every run.
    pub runs: Vec<CaseRun>,
    /// Passing runs / runs.
    pub pass_rate: f64,
    /// Passed in some runs and failed in others.
    pub flaky: bool,
    /// Passed every run.
    pub passed: bool,
}

/// Per-reason hand-off counts over all runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReasonRow {
    /// Reason.
    pub reason: HandoffReason,
    /// Runs that required it.
    pub required: usize,
    /// Runs that created it (allowed-only creations excluded).
    pub created: usize,
    /// Required and created.
    pub correct: usize,
    /// Required, not created.
    pub missed: usize,
    /// Created, neither required nor allowed.
    pub extra: usize,
}

/// Pass counts of a group of cases.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Breakdown {
    /// Runs in the group.
    pub runs: usize,
    /// Passing runs.
    pub passed: usize,
}

/// Identity of the retrieval configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RetrievalInfo {
    /// Embedder model id.
    pub embedder: String,
    /// Reranker model id, if any.
    pub reranker: Option<String>,
    /// The keep rule in force, as text.
    pub keep_rule: String,
}

/// The whole eval result: what reports render (they recompute nothing).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvalReport {
    /// Schema id of this JSON shape.
    pub schema: String,
    /// Report name.
    pub name: String,
    /// Start time, RFC 3339 UTC.
    pub date: String,
    /// `git rev-parse --short HEAD` of the working directory, if available.
    pub git_commit: Option<String>,
    /// Agent model id.
    pub model: String,
    /// Judge id, or `none`.
    pub judge: String,
    /// Retrieval configuration.
    pub retrieval: RetrievalInfo,
    /// Case selection.
    pub selection: Selection,
    /// Runs per case.
    pub repeat: usize,
    /// Cases run at once.
    pub concurrency: usize,
    /// `PASS` when every bounded metric is met, else `FAIL`.
    pub verdict: String,
    /// Metrics with bounds and status.
    pub metrics: Vec<GatedMetric>,
    /// Hand-off counts per reason.
    pub handoffs_by_reason: Vec<ReasonRow>,
    /// Pass counts per tag.
    pub by_tag: BTreeMap<String, Breakdown>,
    /// Pass counts per language.
    pub by_lang: BTreeMap<String, Breakdown>,
    /// Golden-set retrieval results.
    pub golden: GoldenReport,
    /// Every case.
    pub cases: Vec<CaseReport>,
    /// Wall time of the whole eval (ms).
    pub wall_ms: u64,
}

impl EvalReport {
    /// Whether every bounded metric was met (exit 0) or not (exit 1).
    pub fn passed(&self) -> bool {
        self.verdict == "PASS"
    }
}

/// The report schema id.
pub const REPORT_SCHEMA: &str = "inquiry.eval.report/v1";

/// Main catalogue ids plus overlay ids, for case validation.
struct Known {
    main: Vec<String>,
    overlays: HashMap<String, Vec<String>>,
}

impl KnownListings for Known {
    fn knows(&self, id: &str, overlay: Option<&str>) -> bool {
        self.main.iter().any(|m| m == id)
            || overlay.and_then(|o| self.overlays.get(o)).is_some_and(|ids| ids.iter().any(|m| m == id))
    }
    fn has_overlay(&self, name: &str) -> bool {
        self.overlays.contains_key(name)
    }
}

fn overlay_ids(fixtures: &Path) -> HashMap<String, Vec<String>> {
    let mut out = HashMap::new();
    let Ok(entries) = std::fs::read_dir(fixtures) else { return out };
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        let file = path.join("listings.json");
        if path.is_dir() && file.exists() {
            let ids = crate::catalogue::load_listings(&file)
                .map(|ls| ls.into_iter().map(|l| l.id).collect())
                .unwrap_or_default();
            out.insert(entry.file_name().to_string_lossy().into_owned(), ids);
        }
    }
    out
}

/// Loads and selects cases.
///
/// # Errors
/// Case file errors, an unknown `--case` id (listing close matches), a selection
/// that matches nothing.
pub fn select_cases(setup: &EvalSetup, main_ids: Vec<String>) -> anyhow::Result<Vec<LoadedCase>> {
    let known = Known { main: main_ids, overlays: overlay_ids(&setup.fixtures) };
    let all = load_cases(&setup.cases_dir, &known)?;
    for id in &setup.selection.case_ids {
        if !all.iter().any(|c| &c.case.id == id) {
            let mut close: Vec<(f64, &str)> = all
                .iter()
                .map(|c| (strsim::jaro_winkler(id, &c.case.id), c.case.id.as_str()))
                .filter(|(s, _)| *s > 0.7)
                .collect();
            close.sort_by(|a, b| b.0.total_cmp(&a.0));
            let names: Vec<&str> = close.iter().take(5).map(|(_, n)| *n).collect();
            let hint = if names.is_empty() { String::new() } else { format!("; did you mean: {}?", names.join(", ")) };
            anyhow::bail!("--case {id}: no such case in {}{hint}", setup.cases_dir.display());
        }
    }
    let selected: Vec<LoadedCase> = all
        .into_iter()
        .filter(|c| !setup.selection.subset || c.case.subset)
        .filter(|c| setup.selection.case_ids.is_empty() || setup.selection.case_ids.contains(&c.case.id))
        .filter(|c| setup.selection.tags.is_empty() || c.case.tags.iter().any(|t| setup.selection.tags.contains(t)))
        .collect();
    if selected.is_empty() {
        anyhow::bail!("the selection (subset/case/tag) matches no case in {}", setup.cases_dir.display());
    }
    Ok(selected)
}

/// Runs the eval: golden set, then every selected case `repeat` times with
/// `concurrency` at once, each with a fresh tool server and ticket queue.
///
/// # Errors
/// Data, configuration or golden-set errors (exit 2). Agent and judge failures
/// do not error: they are recorded per run.
pub async fn run_eval(
    setup: &EvalSetup,
    runner: Arc<dyn AgentRunner>,
    model_id: &str,
    models: ModelFactory,
    judge: Option<Arc<dyn Judge>>,
    progress: &dyn Progress,
) -> anyhow::Result<EvalReport> {
    let started = Instant::now();
    let date = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let main = Arc::new(Knowledge::load(&setup.data, None, &setup.retrieval)?);
    let cases = select_cases(setup, main.catalogue.listings.iter().map(|l| l.id.clone()).collect())?;
    let golden_set = GoldenSet::load(&setup.golden, &main.catalogue)?;
    let golden = golden::evaluate(&golden_set, &main.retriever)?;

    let mut knowledge: HashMap<Option<String>, Arc<Knowledge>> = HashMap::new();
    knowledge.insert(None, main.clone());
    for c in &cases {
        if let Some(o) = &c.case.fixtures {
            if let std::collections::hash_map::Entry::Vacant(slot) = knowledge.entry(Some(o.clone())) {
                slot.insert(Arc::new(Knowledge::load(&setup.data, Some(&setup.fixtures.join(o)), &setup.retrieval)?));
            }
        }
    }

    let repeat = setup.repeat.max(1);
    progress.start(cases.len() * repeat);
    let semaphore = Arc::new(tokio::sync::Semaphore::new(setup.concurrency.max(1)));
    let mut tasks = tokio::task::JoinSet::new();
    let mut runs: Vec<Vec<CaseRun>> = vec![vec![]; cases.len()];
    let record = |done: (usize, CaseRun), runs: &mut Vec<Vec<CaseRun>>| {
        let (i, run) = done;
        progress.done(&cases[i].case.id, run.passed, run.latency_ms);
        runs[i].push(run);
    };
    for (index, case) in cases.iter().enumerate() {
        for attempt in 1..=repeat {
            let case = case.clone();
            let k = knowledge[&case.case.fixtures].clone();
            let model = models(&case, attempt);
            let judge = judge.clone();
            let limits = setup.limits;
            let prices = setup.prices.clone();
            let runner = runner.clone();
            let permit = semaphore.clone().acquire_owned().await?;
            tasks.spawn(async move {
                let run = run_case(&case, attempt, &k, runner.as_ref(), model, judge.as_deref(), limits, &prices).await;
                drop(permit);
                (index, run)
            });
            // Record finished runs as we go so progress is live.
            while let Some(done) = tasks.try_join_next() {
                record(done?, &mut runs);
            }
        }
    }
    while let Some(done) = tasks.join_next().await {
        record(done?, &mut runs);
    }
    progress.finish();

    let case_reports: Vec<CaseReport> = cases
        .iter()
        .zip(runs)
        .map(|(c, mut runs)| {
            runs.sort_by_key(|r| r.attempt);
            let passes = runs.iter().filter(|r| r.passed).count();
            CaseReport {
                id: c.case.id.clone(),
                file: c.file.display().to_string(),
                lang: c.case.lang,
                tags: c.case.tags.clone(),
                critical: c.case.critical,
                subset: c.case.subset,
                inquiry: c.case.inquiry.clone(),
                pass_rate: passes as f64 / runs.len().max(1) as f64,
                flaky: passes > 0 && passes < runs.len(),
                passed: passes == runs.len(),
                runs,
            }
        })
        .collect();

    let (metrics_list, reasons) = compute_metrics(&cases, &case_reports, &golden, judge.is_some());
    let (gated, ok) = gate(&metrics_list, &setup.thresholds);
    let mut by_tag: BTreeMap<String, Breakdown> = BTreeMap::new();
    let mut by_lang: BTreeMap<String, Breakdown> = BTreeMap::new();
    for r in &case_reports {
        let passed = r.runs.iter().filter(|x| x.passed).count();
        for t in &r.tags {
            let b = by_tag.entry(t.clone()).or_default();
            b.runs += r.runs.len();
            b.passed += passed;
        }
        let b = by_lang.entry(r.lang.as_str().to_owned()).or_default();
        b.runs += r.runs.len();
        b.passed += passed;
    }
    let keep_rule = match main.retriever.keep_rule() {
        KeepRule::Fused { vector_z, keyword_coverage } => {
            format!("fused: vector z >= {vector_z} or keyword coverage >= {keyword_coverage}")
        }
        KeepRule::Rerank { min_score } => format!("reranker score >= {min_score}"),
    };
    Ok(EvalReport {
        schema: REPORT_SCHEMA.into(),
        name: setup.name.clone(),
        date,
        git_commit: git_commit(),
        model: model_id.to_owned(),
        judge: judge.as_ref().map(|j| j.id()).unwrap_or_else(|| "none".into()),
        retrieval: RetrievalInfo {
            embedder: main.retriever.embedder_id().to_owned(),
            reranker: main.retriever.reranker_id().map(str::to_owned),
            keep_rule,
        },
        selection: setup.selection.clone(),
        repeat,
        concurrency: setup.concurrency.max(1),
        verdict: if ok { "PASS".into() } else { "FAIL".into() },
        metrics: gated,
        handoffs_by_reason: reasons,
        by_tag,
        by_lang,
        golden,
        cases: case_reports,
        wall_ms: started.elapsed().as_millis() as u64,
    })
}

#[allow(clippy::too_many_arguments)]
async fn run_case(
    case: &LoadedCase,
    attempt: usize,
    knowledge: &Knowledge,
    runner: &dyn AgentRunner,
    model: Arc<dyn ModelClient>,
    judge: Option<&dyn Judge>,
    limits: Limits,
    prices: &PriceTable,
) -> CaseRun {
    let started = Instant::now();
    let model_id = model.id().to_owned();
    let outcome = runner.run(model, knowledge.toolbox(), limits, &case.case.inquiry, &case.case.history).await;
    let latency_ms = started.elapsed().as_millis() as u64;
    let result = match outcome {
        Ok(r) => r,
        Err(e) => {
            let error = format!("{e:#}");
            return CaseRun {
                attempt,
                result: None,
                error: Some(error.clone()),
                checks: None,
                verdict: None,
                judge_error: None,
                latency_ms,
                cost_usd: None,
                judge_cost_usd: None,
                passed: false,
                failures: vec![format!("agent error: {error}")],
            };
        }
    };
    let checks = CodeChecks::run(&case.case, &result);
    let mut failures = checks.failure_lines();
    if let Some(e) = &result.error {
        failures.push(format!("agent error: {e}"));
    }
    let (verdict, judge_error) = match judge {
        None => (None, None),
        Some(j) => match j.judge(case, &result).await {
            Ok(v) => {
                failures.extend(v.failure_lines());
                (Some(v), None)
            }
            Err(e) => {
                failures.push(format!("judge: unmeasured ({e})"));
                (None, Some(e.to_string()))
            }
        },
    };
    let cost_usd = prices.cost(&model_id, &result.usage);
    let judge_cost_usd = verdict.as_ref().and_then(|v| prices.cost(v.judge.trim_start_matches("llm:"), &v.usage));
    CaseRun {
        attempt,
        passed: failures.is_empty(),
        failures,
        result: Some(result),
        error: None,
        checks: Some(checks),
        verdict,
        judge_error,
        latency_ms,
        cost_usd,
        judge_cost_usd,
    }
}

fn compute_metrics(
    cases: &[LoadedCase],
    reports: &[CaseReport],
    golden: &GoldenReport,
    judged: bool,
) -> (Vec<Metric>, Vec<ReasonRow>) {
    let runs: Vec<(&LoadedCase, &CaseRun)> =
        cases.iter().zip(reports).flat_map(|(c, r)| r.runs.iter().map(move |run| (c, run))).collect();
    let n = runs.len();
    let passed = runs.iter().filter(|(_, r)| r.passed).count();
    let critical: Vec<&CaseReport> = reports.iter().filter(|r| r.critical).collect();
    let critical_passed = critical.iter().filter(|r| r.passed).count();

    let mut rows: Vec<ReasonRow> = HandoffReason::ALL
        .iter()
        .map(|&reason| ReasonRow { reason, required: 0, created: 0, correct: 0, missed: 0, extra: 0 })
        .collect();
    for (c, run) in &runs {
        let Some(checks) = &run.checks else {
            for r in &c.case.handoffs {
                if let Some(row) = rows.iter_mut().find(|x| x.reason == *r) {
                    row.required += 1;
                    row.missed += 1;
                }
            }
            continue;
        };
        for row in rows.iter_mut() {
            let required = c.case.handoffs.contains(&row.reason);
            let allowed = c.case.allow_handoffs.contains(&row.reason);
            let created = checks.created.contains(&row.reason);
            row.required += usize::from(required);
            if created && (!allowed || required) {
                row.created += 1;
            }
            row.correct += usize::from(required && created);
            row.missed += usize::from(required && !created);
            row.extra += usize::from(created && !required && !allowed);
        }
    }
    let tp: usize = rows.iter().map(|r| r.correct).sum();
    let fp: usize = rows.iter().map(|r| r.extra).sum();
    let fneg: usize = rows.iter().map(|r| r.missed).sum();

    let checked: Vec<&CodeChecks> = runs.iter().filter_map(|(_, r)| r.checks.as_ref()).collect();
    let final_ok = checked.iter().filter(|c| c.final_numbers_ok()).count();
    let drafts: Vec<bool> = checked.iter().filter_map(|c| c.first_draft_numbers_ok()).collect();
    let judged_runs: Vec<&Verdict> = runs.iter().filter_map(|(_, r)| r.verdict.as_ref()).collect();
    let unmeasured_judge = runs.iter().filter(|(_, r)| r.judge_error.is_some()).count();

    let latencies: Vec<f64> = runs.iter().map(|(_, r)| r.latency_ms as f64).collect();
    let mean = |v: &[f64]| if v.is_empty() { None } else { Some(v.iter().sum::<f64>() / v.len() as f64) };
    let costs: Option<Vec<f64>> = runs.iter().map(|(_, r)| r.cost_usd).collect();
    let judge_costs: Option<Vec<f64>> =
        if judged { runs.iter().map(|(_, r)| r.judge_cost_usd).collect() } else { None };

    let judge_metric = if !judged {
        Metric::new("judge_correctness", None, "unmeasured: --judge none")
    } else if judged_runs.is_empty() {
        Metric::new("judge_correctness", None, format!("unmeasured: the judge failed on all {unmeasured_judge} runs"))
    } else {
        let ok = judged_runs.iter().filter(|v| v.passed()).count();
        let mut m = Metric::ratio("judge_correctness", ok, judged_runs.len());
        if unmeasured_judge > 0 {
            m.detail.push_str(&format!(" ({unmeasured_judge} unmeasured)"));
        }
        m
    };
    let metrics = vec![
        Metric::ratio("case_pass_rate", passed, n),
        Metric::ratio("critical_pass_rate", critical_passed, critical.len()),
        Metric::ratio("handoff_precision", tp, tp + fp),
        Metric::ratio("handoff_recall", tp, tp + fneg),
        Metric::ratio("number_check_final", final_ok, checked.len()),
        Metric::ratio("number_check_first_draft", drafts.iter().filter(|d| **d).count(), drafts.len()),
        judge_metric,
        Metric::ratio("retrieval_recall_at_5", golden.hits, golden.answerable),
        if golden.unanswerable == 0 {
            Metric::not_applicable("unanswerable_false_positives")
        } else {
            Metric::new(
                "unanswerable_false_positives",
                Some(golden.false_positives.len() as f64),
                format!("{}/{}", golden.false_positives.len(), golden.unanswerable),
            )
        },
        match &costs {
            Some(c) => Metric::new("cost_mean_usd", mean(c), format!("{} runs", c.len())),
            None => Metric::new("cost_mean_usd", None, "unmeasured: the model has no entry in the price table"),
        },
        match (&judge_costs, judged) {
            (_, false) => Metric::new("judge_cost_mean_usd", None, "unmeasured: --judge none"),
            (Some(c), true) => Metric::new("judge_cost_mean_usd", mean(c), format!("{} runs", c.len())),
            (None, true) => Metric::new("judge_cost_mean_usd", None, "unmeasured: judge price unknown or judge failed"),
        },
        Metric::new("latency_mean_ms", mean(&latencies), format!("{n} runs")),
        Metric::new("latency_p50_ms", percentile(&latencies, 50.0), format!("{n} runs")),
        Metric::new("latency_p95_ms", percentile(&latencies, 95.0), format!("{n} runs")),
    ];
    (metrics, rows)
}

fn git_commit() -> Option<String> {
    let out = std::process::Command::new("git").args(["rev-parse", "--short", "HEAD"]).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned()).filter(|s| !s.is_empty())
}
