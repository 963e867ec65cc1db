//! `inquiry eval` (SPEC §7): run the case suite against the agent and the
//! golden set against retrieval, check and judge every run, compute metrics,
//! apply `thresholds.json`, and produce an [`EvalReport`] that reporters render.

pub mod case;
pub mod case_draft;
pub mod checks;
pub mod golden;
pub mod html;
pub mod judge;
pub mod judge_check;
pub mod junit;
pub mod labels;
pub mod metrics;
pub mod prices;
pub mod report;
pub mod report_set;
pub mod reviewer_agreement;
mod runner;
pub mod schema;
mod selection;

pub(crate) use runner::{finish_report, grade_run};
pub use runner::{load_suite, run_eval, select_cases, Known, EMPTY_SHARD};
pub use selection::{selection_words, Selection, Shard};

/// An interrupt that never comes.
pub fn never_interrupted() -> Interrupt {
    Box::pin(std::future::pending())
}

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::agent::model::ModelClient;
use crate::agent::{Limits, RunResult};
use crate::handoff::HandoffReason;
use crate::retrieval::RetrievalConfig;
use case::LoadedCase;
use checks::CodeChecks;
use golden::GoldenReport;
use judge::Verdict;
use metrics::{GatedMetric, Thresholds};
use prices::PriceTable;

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

/// Resolves when an eval should stop early (Ctrl-C, SIGTERM), with the
/// reason shown in the report, e.g. `interrupted by SIGINT`. Use
/// `Box::pin(std::future::pending())` for a run that is never interrupted.
pub type Interrupt = std::pin::Pin<Box<dyn std::future::Future<Output = String> + Send>>;

/// Why a report covers only part of its runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Incomplete {
    /// What stopped the run, e.g. `interrupted by SIGINT`.
    pub reason: String,
    /// Runs that finished and are in the report.
    pub runs_finished: usize,
    /// Runs the selection and `--repeat` asked for.
    pub runs_planned: usize,
    /// Cases with at least one unfinished run (a case with none finished is not in `cases`).
    pub unfinished_cases: Vec<String>,
}

/// The suite's pass@k and pass^k for one k: the mean over cases of each
/// case's unbiased estimate (pass@k = 1 − C(n−c, k)/C(n, k), pass^k =
/// C(c, k)/C(n, k) over its n measured runs with c passes), with the
/// standard error over cases (the case is the unit, not the run).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SuitePassAtK {
    /// k.
    pub k: usize,
    /// Cases with at least k measured runs.
    pub cases: usize,
    /// Mean pass@k.
    pub pass_at_k: f64,
    /// Its standard error over cases (`None` with fewer than 2 cases).
    pub pass_at_k_se: Option<f64>,
    /// Mean pass^k.
    pub pass_hat_k: f64,
    /// Its standard error over cases.
    pub pass_hat_k_se: Option<f64>,
}

impl SuitePassAtK {
    /// The rows for k = 1…`repeat` (empty for one run per case).
    pub fn of(cases: &[CaseReport], repeat: usize) -> Vec<Self> {
        if repeat < 2 {
            return vec![];
        }
        let mean_se = |v: &[f64]| {
            let m = v.iter().sum::<f64>() / v.len().max(1) as f64;
            let se = (v.len() >= 2).then(|| {
                let var = v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (v.len() - 1) as f64;
                (var / v.len() as f64).sqrt()
            });
            (m, se)
        };
        (1..=repeat)
            .filter_map(|k| {
                let (mut at, mut hat) = (vec![], vec![]);
                for c in cases {
                    let passed = c.runs.iter().filter(|r| r.status == RunStatus::Pass).count();
                    if let (Some(a), Some(b)) = (
                        crate::stats::pass_at_k(c.measured_runs, passed, k),
                        crate::stats::pass_hat_k(c.measured_runs, passed, k),
                    ) {
                        at.push(a);
                        hat.push(b);
                    }
                }
                if at.is_empty() {
                    return None;
                }
                let ((a, a_se), (b, b_se)) = (mean_se(&at), mean_se(&hat));
                Some(Self { k, cases: at.len(), pass_at_k: a, pass_at_k_se: a_se, pass_hat_k: b, pass_hat_k_se: b_se })
            })
            .collect()
    }
}

/// How many model calls a report made and how many of them were answered
/// from the response cache (replayed) instead of by the provider.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ModelCallCount {
    /// Agent model calls.
    pub agent: u64,
    /// Agent calls answered from the cache.
    pub agent_from_cache: u64,
    /// LLM-judge calls (0 for the rule judge).
    pub judge: u64,
    /// Judge calls answered from the cache.
    pub judge_from_cache: u64,
}

impl ModelCallCount {
    /// Counts the calls recorded in `cases`' runs.
    pub fn of(cases: &[CaseReport]) -> Self {
        let mut n = Self::default();
        for run in cases.iter().flat_map(|c| &c.runs) {
            if let Some(r) = &run.result {
                n.agent += r.exchanges.len() as u64;
                n.agent_from_cache += r.exchanges.iter().filter(|x| x.from_cache).count() as u64;
            }
            if let Some(v) = run.verdict.as_ref().filter(|v| v.judge.starts_with("llm:")) {
                n.judge += 1;
                n.judge_from_cache += u64::from(v.cache.as_ref().is_some_and(|c| c.hit));
            }
        }
        n
    }

    /// All calls.
    pub fn total(&self) -> u64 {
        self.agent + self.judge
    }

    /// Calls answered from the cache.
    pub fn from_cache(&self) -> u64 {
        self.agent_from_cache + self.judge_from_cache
    }
}

/// Progress callbacks (the CLI draws a bar or prints lines on stderr).
pub trait Progress: Send + Sync {
    /// The run starts with `total` case runs.
    fn start(&self, total: usize);
    /// One case run finished.
    fn done(&self, case_id: &str, status: RunStatus, latency_ms: u64);
    /// All runs finished.
    fn finish(&self);
}

/// Where a case's full report goes as soon as its last run finishes, so a
/// large suite does not hold every trace in memory (the CLI writes it into
/// the staged report set).
pub trait TraceSink: Send + Sync {
    /// Stores one finished case. `Ok(true)`: stored, the runner may keep only
    /// what the metrics and the Markdown need; `Ok(false)`: keep it all.
    ///
    /// # Errors
    /// The trace could not be stored (the eval stops with this error).
    fn store(&self, case: &CaseReport) -> anyhow::Result<bool>;
}

/// Keeps every trace in memory (tests, library callers).
pub struct InMemory;

impl TraceSink for InMemory {
    fn store(&self, _: &CaseReport) -> anyhow::Result<bool> {
        Ok(false)
    }
}

impl CaseReport {
    /// The case's cluster, or the case itself when the report has none.
    pub fn cluster_key(&self) -> &str {
        if self.cluster.is_empty() {
            &self.id
        } else {
            &self.cluster
        }
    }

    /// This report with each run's agent result cut down to what the metrics
    /// and the reports read (reply, citations, tickets, usage, outcome, error,
    /// model calls); tool results, evidence and drafts are dropped. Used once
    /// the full report is stored in its trace file.
    pub fn slim(mut self) -> Self {
        for run in &mut self.runs {
            if let Some(r) = &mut run.result {
                r.trace = vec![];
                r.evidence = Default::default();
                r.guard_events = vec![];
                r.first_draft = None;
            }
        }
        self
    }
}

/// Progress that reports nothing.
pub struct Silent;

impl Progress for Silent {
    fn start(&self, _: usize) {}
    fn done(&self, _: &str, _: RunStatus, _: u64) {}
    fn finish(&self) {}
}

/// How one run of a case counts.
///
/// "The agent gave up" (a forced hand-off after a limit or the guards) is a
/// real outcome and is graded: pass or fail. "We could not run or grade it"
/// (the model provider failed, the tool server was unreachable, the judge
/// failed or cannot grade an item) is `unmeasured`: counted apart, shown
/// apart, and left out of every pass rate and hand-off metric.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// Every code check and the judge passed.
    Pass,
    /// A code check or the judge failed.
    #[default]
    Fail,
    /// The agent or the judge could not run; see `unmeasured`.
    Unmeasured,
}

/// One run of one case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
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
    /// Every check and the judge passed (`status == pass`).
    pub passed: bool,
    /// Pass, fail or unmeasured.
    #[serde(default)]
    pub status: RunStatus,
    /// Why the run is unmeasured, if it is (a provider, transport or judge error).
    #[serde(default)]
    pub unmeasured: Option<String>,
    /// One line per failure.
    pub failures: Vec<String>,
}

impl CaseRun {
    /// Whether the agent ran, so the code checks (hand-offs, numbers) count
    /// even when the judge did not grade.
    pub fn agent_measured(&self) -> bool {
        self.checks.is_some()
    }
}

/// All runs of one case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
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
    /// The case's cluster (cases sharing a listing, a policy page or a
    /// conversation); empty in reports written before clusters existed, which
    /// then count each case as its own cluster.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub cluster: String,
    /// In the subset.
    pub subset: bool,
    /// The inquiry.
    pub inquiry: String,
    /// Earlier exchanges given as context, oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub history: Vec<crate::agent::HistoryTurn>,
    /// The texts of the case's `must` and `must_not` items when it ran
    /// (`inquiry rescore` regrades only when they still line up).
    #[serde(default)]
    pub items: CaseItems,
    /// Every run.
    pub runs: Vec<CaseRun>,
    /// Passing runs / measured runs (0 when no run was measured).
    pub pass_rate: f64,
    /// Runs that were measured (passed or failed).
    #[serde(default)]
    pub measured_runs: usize,
    /// Passed in some measured runs and failed in others.
    pub flaky: bool,
    /// Passed every run (no run failed or was unmeasured).
    pub passed: bool,
    /// `pass`, `fail`, `flaky` (some measured runs pass, some fail) or
    /// `unmeasured` (no run failed and at least one could not be measured).
    #[serde(default)]
    pub status: CaseStatus,
}

/// The item texts of a case, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CaseItems {
    /// `must` item texts.
    pub must: Vec<String>,
    /// `must_not` item texts.
    pub must_not: Vec<String>,
}

impl CaseItems {
    /// The item texts of a loaded case.
    pub fn of(c: &LoadedCase) -> Self {
        Self {
            must: c.case.must.iter().map(|e| e.text.clone()).collect(),
            must_not: c.case.must_not.iter().map(|e| e.text.clone()).collect(),
        }
    }
}

/// The status of a case over its runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CaseStatus {
    /// Every run passed.
    Pass,
    /// Every measured run failed.
    #[default]
    Fail,
    /// Measured runs both passed and failed.
    Flaky,
    /// No run failed, and at least one is unmeasured.
    Unmeasured,
}

impl CaseStatus {
    /// The word shown in reports: `pass`, `FAIL`, `FLAKY`, `UNMEASURED`.
    pub fn word(self) -> &'static str {
        match self {
            Self::Pass => "pass",
            Self::Fail => "FAIL",
            Self::Flaky => "FLAKY",
            Self::Unmeasured => "UNMEASURED",
        }
    }
}

impl CaseReport {
    /// Builds a case's report from its runs (sorted by attempt).
    pub fn from_runs(c: &LoadedCase, mut runs: Vec<CaseRun>) -> Self {
        runs.sort_by_key(|r| r.attempt);
        let passes = runs.iter().filter(|r| r.status == RunStatus::Pass).count();
        let fails = runs.iter().filter(|r| r.status == RunStatus::Fail).count();
        let measured = passes + fails;
        let status = match (passes, fails) {
            (_, 0) if passes == runs.len() => CaseStatus::Pass,
            (_, 0) => CaseStatus::Unmeasured,
            (0, _) => CaseStatus::Fail,
            _ => CaseStatus::Flaky,
        };
        CaseReport {
            id: c.case.id.clone(),
            file: c.file.display().to_string(),
            lang: c.case.lang,
            tags: c.case.tags.clone(),
            critical: c.case.critical,
            cluster: c.case.cluster.clone().unwrap_or_default(),
            subset: c.case.subset,
            inquiry: c.case.inquiry.clone(),
            history: c.case.history.clone(),
            items: CaseItems::of(c),
            pass_rate: if measured == 0 { 0.0 } else { passes as f64 / measured as f64 },
            measured_runs: measured,
            flaky: status == CaseStatus::Flaky,
            passed: status == CaseStatus::Pass,
            status,
            runs,
        }
    }
}

/// Per-reason hand-off counts over all runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
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
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Breakdown {
    /// Measured runs in the group.
    pub runs: usize,
    /// Passing runs.
    pub passed: usize,
    /// Unmeasured runs (not in `runs`).
    #[serde(default)]
    pub unmeasured: usize,
}

/// Identity of the retrieval configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RetrievalInfo {
    /// Embedder model id.
    pub embedder: String,
    /// Reranker model id, if any.
    pub reranker: Option<String>,
    /// The keep rule in force, as text.
    pub keep_rule: String,
}

/// The whole eval result: what reports render (they recompute nothing).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
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
    /// `PASS` when every bounded metric is met, `FAIL` when one is missed,
    /// `INCOMPLETE` when the run was interrupted (never a pass).
    pub verdict: String,
    /// Set when the run was interrupted: the report covers the finished runs only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub incomplete: Option<Incomplete>,
    /// Model calls made, and how many were replayed from the response cache.
    #[serde(default)]
    pub model_calls: ModelCallCount,
    /// With `--repeat N`: the suite's pass@k and pass^k for k = 1…N.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pass_at_k: Vec<SuitePassAtK>,
    /// With `--repeat N`: the within-case (run-to-run) and between-case
    /// variance of the case pass rates (`stats::power`); `identical` when
    /// every case gave one verdict on all its runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variance: Option<crate::stats::power::VarianceComponents>,
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
    /// What the judge's verdicts are worth: its agreement with the hand
    /// labels as last measured by `inquiry judge-check` (committed in
    /// `reports/judge-check/`), and a warning when the rule judge grades a
    /// model it was not built for ([`judge_check::judge_notes`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub judge_notes: Vec<String>,
}

impl EvalReport {
    /// Whether every bounded metric was met (exit 0) or not (exit 1).
    pub fn passed(&self) -> bool {
        self.verdict == "PASS"
    }

    /// Every run of every case, with its case.
    pub fn runs(&self) -> impl Iterator<Item = (&CaseReport, &CaseRun)> {
        self.cases.iter().flat_map(|c| c.runs.iter().map(move |r| (c, r)))
    }

    /// Why the eval says nothing about the agent, if so: every run's agent
    /// call failed (the provider or the tool server could not be reached), or
    /// a judge was set and graded no run. Such a run exits 2, not 1.
    pub fn infrastructure_failure(&self) -> Option<String> {
        let runs: Vec<&CaseRun> = self.runs().map(|(_, r)| r).collect();
        if runs.is_empty() {
            return None;
        }
        if runs.iter().all(|r| !r.agent_measured()) {
            let first = runs.iter().find_map(|r| r.unmeasured.clone()).unwrap_or_default();
            return Some(format!("every agent call failed ({} runs); first: {first}", runs.len()));
        }
        let judged: Vec<&&CaseRun> = runs.iter().filter(|r| r.agent_measured()).collect();
        if self.judge != "none" && judged.iter().all(|r| r.verdict.is_none()) {
            let first = judged.iter().find_map(|r| r.judge_error.clone()).unwrap_or_default();
            return Some(format!("the judge `{}` graded no run ({} runs); first: {first}", self.judge, judged.len()));
        }
        None
    }
}

/// The report schema id.
pub const REPORT_SCHEMA: &str = "inquiry.eval.report/v1";
