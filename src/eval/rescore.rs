//! `inquiry rescore`: re-grade a stored report set with the current cases,
//! rubrics and thresholds, from each run's stored reply, tool results,
//! tickets and evidence. No agent runs and no tool is called: nothing here
//! takes a model or a toolbox. Only the judge runs (an LLM judge through the
//! response cache, so a judge change can be tried once and replayed).
//!
//! A case whose `must` / `must_not` item texts changed since the run is not
//! regraded: its runs become unmeasured ("items changed"), because grades of
//! items the reply was never checked against would be silent guesses.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use std::sync::Arc;

use anyhow::Context as _;

use super::case::LoadedCase;
use super::judge::Judge;
use super::metrics::Thresholds;
use super::prices::PriceTable;
use super::runner::{finish_report, grade_run};
use super::{CaseItems, CaseReport, CaseRun, CaseStatus, EvalReport, RunStatus};
use crate::agent::{ForcedCause, Outcome};

/// A stored report set, with every case's full runs from its trace file.
#[derive(Debug, Clone)]
pub struct StoredReport {
    /// The report, with `cases[i].runs[j].result` filled in from the traces.
    pub report: EvalReport,
    /// The set directory it was read from.
    pub dir: PathBuf,
}

/// Reads a report set: its directory or its `report.json`. Each case's runs
/// come from `cases/<id>.json` in the same set.
///
/// # Errors
/// A missing or unreadable file, a report of another schema, a case id that
/// is not a safe file name, or a trace that does not belong to the report.
pub fn load_stored(path: &Path) -> anyhow::Result<StoredReport> {
    let super::compare::LoadedReport { mut report, dir } = super::compare::load_report(path)?;
    for case in &mut report.cases {
        *case = read_trace(&dir, &case.id)?;
    }
    Ok(StoredReport { report, dir })
}

/// Reads the trace `cases/<id>.json` of a stored report set.
///
/// # Errors
/// A case id that is not a safe file name, a missing or unreadable trace, or
/// a trace that holds another case.
pub fn read_trace(dir: &Path, id: &str) -> anyhow::Result<CaseReport> {
    if !crate::text_file::is_safe_id(id) {
        anyhow::bail!("{}: case id `{}` is not a safe file name", dir.join("report.json").display(), id.escape_debug());
    }
    let trace = dir.join(super::report::trace_path(id));
    let text = crate::text_file::read(&trace)
        .map_err(|e| anyhow::anyhow!("{}: {e} (the trace of case {id})", trace.display()))?;
    let full: CaseReport =
        serde_json::from_str(&text).with_context(|| format!("{}: not a readable case trace", trace.display()))?;
    if full.id != id {
        anyhow::bail!("{}: holds case `{}`, expected `{id}`", trace.display(), full.id);
    }
    Ok(full)
}

/// One case whose status changed.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Change {
    /// Case id.
    pub case: String,
    /// Status in the stored report.
    pub before: CaseStatus,
    /// Status now.
    pub after: CaseStatus,
    /// First failure (or unmeasured) line before, if any.
    pub before_line: Option<String>,
    /// First failure (or unmeasured) line now, if any.
    pub after_line: Option<String>,
}

/// The result of a rescore.
#[derive(Debug, Clone)]
pub struct Rescored {
    /// The new report (name, date and judge updated; golden results and
    /// retrieval identity kept from the stored run).
    pub report: EvalReport,
    /// Cases whose status changed, in report order.
    pub changes: Vec<Change>,
    /// Cases not regraded because their item texts changed (now unmeasured).
    pub items_changed: Vec<String>,
    /// Stored cases that the current suite no longer has (left out).
    pub removed: Vec<String>,
}

/// The first failure or unmeasured line of a case.
pub fn first_line(c: &CaseReport) -> Option<String> {
    c.runs.iter().find_map(|x| {
        x.failures
            .first()
            .map(|f| format!("run {}: {f}", x.attempt))
            .or_else(|| x.unmeasured.as_ref().map(|u| format!("run {}: unmeasured: {u}", x.attempt)))
    })
}

/// Item texts a stored case was graded against: its `items`, or (reports
/// written before `items` existed) the texts in its first verdict.
fn stored_items(c: &CaseReport) -> Option<CaseItems> {
    if !(c.items.must.is_empty() && c.items.must_not.is_empty()) {
        return Some(c.items.clone());
    }
    let v = c.runs.iter().find_map(|r| r.verdict.as_ref())?;
    Some(CaseItems {
        must: v.must.iter().map(|g| g.text.clone()).collect(),
        must_not: v.must_not.iter().map(|g| g.text.clone()).collect(),
    })
}

/// Whether a stored run is an agent run that can be graded again (the agent
/// ran, and its provider did not fail).
fn regradable(run: &CaseRun) -> bool {
    run.checks.is_some()
        && run.result.as_ref().is_some_and(|r| r.outcome != Outcome::ForcedHandoff { cause: ForcedCause::ModelError })
}

/// Re-grades `stored` with the `current` cases, `judge`, `thresholds` and
/// `prices`, naming the new report `name`.
pub async fn rescore(
    stored: &EvalReport,
    current: &[LoadedCase],
    judge: Option<Arc<dyn Judge>>,
    thresholds: &Thresholds,
    prices: &PriceTable,
    name: &str,
) -> Rescored {
    let by_id: HashMap<&str, &LoadedCase> = current.iter().map(|c| (c.case.id.as_str(), c)).collect();
    let mut cases = vec![];
    let mut reports = vec![];
    let mut items_changed = vec![];
    let mut removed = vec![];
    let mut changes = vec![];
    for old in &stored.cases {
        let Some(&case) = by_id.get(old.id.as_str()) else {
            removed.push(old.id.clone());
            continue;
        };
        let lined_up = stored_items(old).is_none_or(|items| items == CaseItems::of(case));
        let mut runs = Vec::with_capacity(old.runs.len());
        for run in &old.runs {
            if !regradable(run) {
                runs.push(run.clone());
                continue;
            }
            if !lined_up {
                let why = "items changed since the run (must/must_not texts differ); not regraded".to_owned();
                runs.push(CaseRun {
                    status: RunStatus::Unmeasured,
                    passed: false,
                    unmeasured: Some(why),
                    failures: vec![],
                    verdict: None,
                    judge_error: None,
                    ..run.clone()
                });
                continue;
            }
            let Some(result) = run.result.clone() else { continue };
            let model = result.model.clone();
            runs.push(grade_run(case, run.attempt, result, &model, judge.as_deref(), prices, run.latency_ms).await);
        }
        if !lined_up {
            items_changed.push(old.id.clone());
        }
        let new = CaseReport::from_runs(case, runs);
        if new.status != old.status {
            changes.push(Change {
                case: old.id.clone(),
                before: old.status,
                after: new.status,
                before_line: first_line(old),
                after_line: first_line(&new),
            });
        }
        cases.push(case.clone());
        reports.push(new);
    }
    let mut base = stored.clone();
    base.name = name.to_owned();
    base.date = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    base.judge = judge.as_ref().map(|j| j.id()).unwrap_or_else(|| "none".into());
    base.cases = reports;
    let report = finish_report(base, &cases, thresholds, judge.is_some());
    Rescored { report, changes, items_changed, removed }
}
