//! The eval runner: loads and selects cases, runs the golden set and every
//! case `repeat` times with `concurrency` at once, checks and judges each run,
//! and assembles the [`EvalReport`].

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use super::case::{load_cases, KnownListings, LoadedCase};
use super::checks::CodeChecks;
use super::golden;
use super::judge::Judge;
use super::metrics::{compute_metrics, gate};
use super::prices::PriceTable;
use super::{
    Breakdown, CaseReport, CaseRun, EvalReport, EvalSetup, Incomplete, Interrupt, ModelCallCount, ModelFactory,
    Progress, RetrievalInfo, RunStatus, TraceSink, REPORT_SCHEMA,
};
use crate::agent::model::ModelClient;
use crate::agent::{AgentRunner, ForcedCause, Limits, Outcome};
use crate::golden::GoldenSet;
use crate::knowledge::Knowledge;
use crate::retrieval::KeepRule;

/// Main catalogue ids plus overlay ids, for case validation.
pub struct Known {
    main: Vec<String>,
    overlays: HashMap<String, Vec<String>>,
}

impl Known {
    /// The ids of the main catalogue and of every overlay under `fixtures`.
    ///
    /// # Errors
    /// An overlay's `listings.json` that does not load (its own error, naming
    /// the file), or an overlay id that the main catalogue already has.
    pub fn new(main: Vec<String>, fixtures: &Path) -> anyhow::Result<Self> {
        let overlays = overlay_ids(fixtures)?;
        for (name, ids) in &overlays {
            if let Some(dup) = ids.iter().find(|id| main.contains(id)) {
                anyhow::bail!(
                    "{}: overlay `{name}` defines listing `{dup}`, which the main catalogue already has; overlay ids must be new",
                    fixtures.join(name).join("listings.json").display()
                );
            }
        }
        Ok(Self { main, overlays })
    }
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

fn overlay_ids(fixtures: &Path) -> anyhow::Result<HashMap<String, Vec<String>>> {
    let mut out = HashMap::new();
    // No fixtures directory: no overlays (a case naming one is rejected at load).
    let Ok(entries) = std::fs::read_dir(fixtures) else { return Ok(out) };
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        let file = path.join("listings.json");
        if path.is_dir() && file.exists() {
            let ids = crate::catalogue::load_listings(&file)?.into_iter().map(|l| l.id).collect();
            out.insert(entry.file_name().to_string_lossy().into_owned(), ids);
        }
    }
    Ok(out)
}

/// Loads every case of `cases_dir`, checking listing ids against the catalogue
/// in `data` (its listings.json only: no index is built) and the overlays
/// under `fixtures`. Used where stored runs meet the current suite (rescore, merge).
///
/// # Errors
/// An unreadable catalogue or overlay, or a case file error.
pub fn load_suite(cases_dir: &Path, data: &Path, fixtures: &Path) -> anyhow::Result<Vec<LoadedCase>> {
    let main_ids = crate::catalogue::load_listings(&data.join("listings.json"))?.into_iter().map(|l| l.id).collect();
    let known = Known::new(main_ids, fixtures)?;
    let mut cases = load_cases(cases_dir, &known)?;
    super::case::resolve_clusters(&mut cases, data);
    Ok(cases)
}

/// Loads and selects cases.
///
/// # Errors
/// Case file errors, an unknown `--case` id (listing close matches), a selection
/// that matches nothing.
pub fn select_cases(setup: &EvalSetup, main_ids: Vec<String>) -> anyhow::Result<Vec<LoadedCase>> {
    let known = Known::new(main_ids, &setup.fixtures)?;
    let mut all = load_cases(&setup.cases_dir, &known)?;
    super::case::resolve_clusters(&mut all, &setup.data);
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
            anyhow::bail!(
                "--case {}: no such case in {}{hint}",
                crate::text_file::escape_for_terminal(id, 80),
                setup.cases_dir.display()
            );
        }
    }
    for tag in &setup.selection.tags {
        if !all.iter().any(|c| c.case.tags.contains(tag)) {
            let mut tags: Vec<&str> = all.iter().flat_map(|c| c.case.tags.iter().map(String::as_str)).collect();
            tags.sort_unstable();
            tags.dedup();
            anyhow::bail!(
                "--tag {}: no case has this tag; the tags in {} are: {}",
                crate::text_file::escape_for_terminal(tag, 80),
                setup.cases_dir.display(),
                tags.join(", ")
            );
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
    // An empty shard is a valid shard: a small selection spread over many CI
    // jobs leaves some with nothing to run, and merge still needs their reports.
    let selected: Vec<LoadedCase> =
        selected.into_iter().filter(|c| setup.selection.shard.is_none_or(|s| s.contains(&c.case.id))).collect();
    if selected.is_empty() {
        if let Some(shard) = setup.selection.shard {
            tracing::info!("shard {}/{} holds no case of this selection", shard.index, shard.count);
            eprintln!(
                "note: shard {}/{} holds no case of this selection; its report is empty",
                shard.index, shard.count
            );
        }
    }
    Ok(selected)
}

/// The verdict of a shard that holds no case of its selection (exit 0).
pub const EMPTY_SHARD: &str = "EMPTY";

/// Runs the eval: golden set, then every selected case `repeat` times with
/// `concurrency` at once, each with a fresh tool server and ticket queue.
///
/// # Errors
/// Data, configuration or golden-set errors (exit 2). Agent and judge failures
/// do not error: they are recorded per run.
// The parts are independent seams (runner, models, judge, progress, interrupt,
// trace sink) that tests replace one at a time; a struct would only rename them.
#[allow(clippy::too_many_arguments)]
pub async fn run_eval(
    setup: &EvalSetup,
    runner: Arc<dyn AgentRunner>,
    model_id: &str,
    models: ModelFactory,
    judge: Option<Arc<dyn Judge>>,
    progress: &dyn Progress,
    interrupt: Interrupt,
    sink: &dyn TraceSink,
) -> anyhow::Result<EvalReport> {
    let started = Instant::now();
    let date = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let main = Arc::new(Knowledge::load(&setup.data, None, &setup.retrieval)?);
    let cases = select_cases(setup, main.catalogue.listings.iter().map(|l| l.id.clone()).collect())?;
    let golden_set = GoldenSet::load(&setup.golden, &main.catalogue)?;
    // A shard other than the first leaves the golden set to shard 1, so a
    // merge counts it once; its retrieval metrics are then n/a.
    let golden = match setup.selection.shard {
        Some(shard) if !shard.runs_golden() => golden::GoldenReport::not_run(),
        _ => golden::evaluate(&golden_set, &main.retriever)?,
    };

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
    let mut finished_cases: Vec<Option<CaseReport>> = vec![None; cases.len()];
    // A case whose last run is in goes to the sink at once and is kept slim.
    let mut record = |done: (usize, CaseRun), runs: &mut Vec<Vec<CaseRun>>| -> anyhow::Result<()> {
        let (i, run) = done;
        progress.done(&cases[i].case.id, run.status, run.latency_ms);
        runs[i].push(run);
        if runs[i].len() == repeat {
            let report = CaseReport::from_runs(&cases[i], std::mem::take(&mut runs[i]));
            let stored = sink.store(&report)?;
            finished_cases[i] = Some(if stored { report.slim() } else { report });
        }
        Ok(())
    };
    // The interrupt (Ctrl-C, SIGTERM) is watched on its own task so every
    // wait below can give way to it.
    let (stop_tx, mut stop_rx) = tokio::sync::watch::channel(None::<String>);
    let watcher = tokio::spawn(async move {
        let why = interrupt.await;
        let _ = stop_tx.send(Some(why));
        // Keep the sender alive so receivers see the value, not a closed channel.
        std::future::pending::<()>().await;
    });
    let mut interrupted: Option<String> = None;
    'schedule: for (index, case) in cases.iter().enumerate() {
        for attempt in 1..=repeat {
            let case = case.clone();
            let k = knowledge[&case.case.fixtures].clone();
            // Each repeat is its own sample: the response cache keeps them apart.
            let model: Arc<dyn ModelClient> = Arc::new(crate::agent::model::WithSample::new(
                models(&case, attempt),
                u32::try_from(attempt - 1).unwrap_or(u32::MAX),
            ));
            let judge = judge.clone();
            let limits = setup.limits;
            let prices = setup.prices.clone();
            let runner = runner.clone();
            let permit = tokio::select! {
                permit = semaphore.clone().acquire_owned() => permit?,
                why = stop_rx.wait_for(Option::is_some) => {
                    interrupted = why.ok().and_then(|v| v.clone());
                    break 'schedule;
                }
            };
            tasks.spawn(async move {
                let run = run_case(&case, attempt, &k, runner.as_ref(), model, judge.as_deref(), limits, &prices).await;
                drop(permit);
                (index, run)
            });
            // Record finished runs as we go so progress is live.
            while let Some(done) = tasks.try_join_next() {
                record(done?, &mut runs)?;
            }
        }
    }
    while interrupted.is_none() {
        tokio::select! {
            done = tasks.join_next() => match done {
                Some(done) => record(done?, &mut runs)?,
                None => break,
            },
            why = stop_rx.wait_for(Option::is_some) => interrupted = why.ok().and_then(|v| v.clone()),
        }
    }
    if interrupted.is_some() {
        // Unfinished runs are dropped mid-call: nothing of them is graded or
        // cached, so a re-run sends exactly their requests again.
        tasks.abort_all();
        while let Some(done) = tasks.join_next().await {
            if let Ok(done) = done {
                record(done, &mut runs)?;
            }
        }
    }
    watcher.abort();
    progress.finish();

    let planned = cases.len() * repeat;
    let finished: usize =
        runs.iter().map(Vec::len).sum::<usize>() + finished_cases.iter().flatten().map(|c| c.runs.len()).sum::<usize>();
    let incomplete = interrupted.map(|reason| Incomplete {
        reason,
        runs_finished: finished,
        runs_planned: planned,
        unfinished_cases: cases
            .iter()
            .zip(&finished_cases)
            .filter(|(_, done)| done.is_none())
            .map(|(c, _)| c.case.id.clone())
            .collect(),
    });
    // After an interrupt, a case with some runs finished is reported with
    // those; one with none is left out (listed as unfinished), never shown as passed.
    let mut kept_cases = vec![];
    let mut case_reports = vec![];
    for ((case, done), partial) in cases.into_iter().zip(finished_cases).zip(runs) {
        let report = match done {
            Some(r) => r,
            None if partial.is_empty() => continue,
            None => {
                let r = CaseReport::from_runs(&case, partial);
                if sink.store(&r)? {
                    r.slim()
                } else {
                    r
                }
            }
        };
        kept_cases.push(case);
        case_reports.push(report);
    }
    let cases = kept_cases;
    let keep_rule = match main.retriever.keep_rule() {
        KeepRule::Fused { vector_z, keyword_coverage } => {
            format!("fused: vector z >= {vector_z} or keyword coverage >= {keyword_coverage}")
        }
        KeepRule::Rerank { min_score } => format!("reranker score >= {min_score}"),
    };
    let base = EvalReport {
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
        verdict: String::new(),
        incomplete,
        model_calls: ModelCallCount::default(),
        pass_at_k: vec![],
        variance: None,
        metrics: vec![],
        handoffs_by_reason: vec![],
        by_tag: BTreeMap::new(),
        by_lang: BTreeMap::new(),
        golden,
        cases: case_reports,
        wall_ms: 0,
        judge_notes: vec![],
    };
    let mut report = finish_report(base, &cases, &setup.thresholds, judge.is_some());
    report.wall_ms = started.elapsed().as_millis() as u64;
    // The guard, the code check and the rule judge share one grounding per
    // reply; the benchmark reads these counts (RUST_LOG=inquiry=debug).
    let (computed, reused) = crate::grounding::memo::counts();
    tracing::debug!(computed, reused, "grounding checks");
    Ok(report)
}

/// Fills in what is computed from a report's cases and golden results:
/// metrics (gated by `thresholds`), hand-offs by reason, breakdowns by tag
/// and language, model-call counts and the verdict (`INCOMPLETE` when
/// `base.incomplete` is set). `cases` are the loaded cases in the order of
/// `base.cases`. Used by the eval and by rescore, so both count alike.
pub(crate) fn finish_report(
    mut base: EvalReport,
    cases: &[LoadedCase],
    thresholds: &super::metrics::Thresholds,
    judged: bool,
) -> EvalReport {
    let (metrics_list, reasons) = compute_metrics(cases, &base.cases, &base.golden, judged);
    let (gated, ok) = gate(&metrics_list, thresholds);
    let mut by_tag: BTreeMap<String, Breakdown> = BTreeMap::new();
    let mut by_lang: BTreeMap<String, Breakdown> = BTreeMap::new();
    for r in &base.cases {
        let passed = r.runs.iter().filter(|x| x.status == RunStatus::Pass).count();
        let unmeasured = r.runs.len() - r.measured_runs;
        for t in &r.tags {
            add(by_tag.entry(t.clone()).or_default(), r.measured_runs, passed, unmeasured);
        }
        add(by_lang.entry(r.lang.as_str().to_owned()).or_default(), r.measured_runs, passed, unmeasured);
    }
    base.verdict = if base.incomplete.is_some() {
        "INCOMPLETE".into()
    } else if base.cases.is_empty() && base.selection.shard.is_some() {
        // A shard that holds no case of a small selection: valid, nothing to
        // gate here (merge applies the thresholds to the whole run).
        EMPTY_SHARD.into()
    } else if ok {
        "PASS".into()
    } else {
        "FAIL".into()
    };
    base.model_calls = ModelCallCount::of(&base.cases);
    base.pass_at_k = super::SuitePassAtK::of(&base.cases, base.repeat);
    base.variance = (base.repeat > 1)
        .then(|| {
            let counts: Vec<(usize, usize)> = base
                .cases
                .iter()
                .map(|c| (c.runs.iter().filter(|x| x.status == RunStatus::Pass).count(), c.measured_runs))
                .collect();
            crate::stats::power::variance_components(&counts)
        })
        .flatten();
    base.metrics = gated;
    base.handoffs_by_reason = reasons;
    base.by_tag = by_tag;
    base.by_lang = by_lang;
    base
}

fn add(b: &mut Breakdown, runs: usize, passed: usize, unmeasured: usize) {
    b.runs += runs;
    b.passed += passed;
    b.unmeasured += unmeasured;
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
            // The tool server could not be reached: nothing about the agent is known.
            let error = format!("{e:#}");
            return unmeasured_run(attempt, None, format!("the agent could not run: {error}"), latency_ms);
        }
    };
    if let Outcome::ForcedHandoff { cause: ForcedCause::ModelError } = result.outcome {
        // The provider failed after its retries: the fallback reply and ticket
        // are the harness's, not the agent's, so they are not graded.
        let error = result.error.clone().unwrap_or_else(|| "unknown provider error".into());
        let cost_usd = prices.cost(&model_id, &result.usage);
        let mut run = unmeasured_run(attempt, Some(result), format!("model provider failed: {error}"), latency_ms);
        run.cost_usd = cost_usd;
        return run;
    }
    grade_run(case, attempt, result, &model_id, judge, prices, latency_ms).await
}

/// Grades one finished agent run: the code checks, then the judge. The same
/// function grades a fresh run and a stored one (`inquiry rescore`).
pub(crate) async fn grade_run(
    case: &LoadedCase,
    attempt: usize,
    result: crate::agent::RunResult,
    model_id: &str,
    judge: Option<&dyn Judge>,
    prices: &PriceTable,
    latency_ms: u64,
) -> CaseRun {
    let checks = CodeChecks::run(&case.case, &result);
    let mut failures = checks.failure_lines();
    if let Some(e) = &result.error {
        failures.push(format!("agent error: {e}"));
    }
    let code_failed = !failures.is_empty();
    let (verdict, judge_error) = match judge {
        None => (None, None),
        Some(j) => match j.judge(case, &result).await {
            Ok(v) => {
                failures.extend(v.failure_lines());
                (Some(v), None)
            }
            Err(e) => (None, Some(e.to_string())),
        },
    };
    let status = if !failures.is_empty() {
        RunStatus::Fail
    } else if judge_error.is_some() {
        RunStatus::Unmeasured
    } else {
        RunStatus::Pass
    };
    let unmeasured = judge_error.as_ref().map(|e| format!("judge: {e}"));
    if code_failed {
        if let Some(e) = &unmeasured {
            failures.push(format!("{e} (the code checks failed regardless)"));
        }
    }
    let cost_usd = prices.cost(model_id, &result.usage);
    let judge_cost_usd = verdict.as_ref().and_then(|v| prices.cost(v.judge.trim_start_matches("llm:"), &v.usage));
    CaseRun {
        attempt,
        passed: status == RunStatus::Pass,
        status,
        unmeasured: if status == RunStatus::Unmeasured { unmeasured } else { None },
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

pub(crate) fn unmeasured_run(
    attempt: usize,
    result: Option<crate::agent::RunResult>,
    why: String,
    latency_ms: u64,
) -> CaseRun {
    CaseRun {
        attempt,
        result,
        error: Some(why.clone()),
        checks: None,
        verdict: None,
        judge_error: None,
        latency_ms,
        cost_usd: None,
        judge_cost_usd: None,
        passed: false,
        status: RunStatus::Unmeasured,
        unmeasured: Some(why),
        failures: vec![],
    }
}

fn git_commit() -> Option<String> {
    let out = std::process::Command::new("git").args(["rev-parse", "--short", "HEAD"]).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned()).filter(|s| !s.is_empty())
}
