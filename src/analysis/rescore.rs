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
use std::sync::Arc;

use super::stored::first_line;
use crate::agent::{ForcedCause, Outcome};
use crate::eval::case::LoadedCase;
use crate::eval::judge::Judge;
use crate::eval::metrics::Thresholds;
use crate::eval::prices::PriceTable;
use crate::eval::{finish_report, grade_run};
use crate::eval::{CaseItems, CaseReport, CaseRun, CaseStatus, EvalReport, RunStatus};

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
