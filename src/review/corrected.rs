//! The judge-corrected pass rate of a report: prediction-powered inference
//! ([`crate::stats::ppi`], Angelopoulos et al. 2023) with the judge's run
//! verdicts as predictions and the reviewers' verdicts on the uniformly
//! sampled replies (`drawn` includes `sample`) as ground truth.
//!
//! For a run, the judge's value `f` is its pass (1) or fail (0). The human
//! value `Y` is the same run graded with the reviewers' item verdicts in
//! place of the judge's: every code check and the judge's language and
//! unsupported-claim findings as recorded, and every rubric item passing by
//! the reviewer; with several reviewers, `Y` is their mean. Only reviews on
//! the run's exact reply (hash) and on each item's current text count.
//! Runs the judge could not grade (unmeasured) are in neither set.

use std::collections::BTreeSet;

use serde::Serialize;

use super::store::{ItemKind, Review, ReviewStore};
use crate::eval::{CaseReport, CaseRun, EvalReport, RunStatus};
use crate::stats::ppi::{ppi_mean, PpiEstimate};

/// A report's judge-corrected pass rate.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CorrectedRate {
    /// The judge whose verdicts are corrected.
    pub judge: String,
    /// The estimate, with the judge's own rate and the rectifier.
    pub ppi: PpiEstimate,
    /// Reviewers whose verdicts were used.
    pub reviewers: Vec<String>,
}

/// Whether a failure line is a rubric-item line of the judge (replaced by the reviewers' verdicts).
fn is_item_line(line: &str) -> bool {
    line.starts_with("judge: must ") || line.starts_with("judge: must_not ")
}

/// The human value of one run from `rows` (reviews on its reply), `None`
/// when no reviewer graded every current item of the case in the sample.
fn human_value(case: &CaseReport, run: &CaseRun, rows: &[&Review]) -> Option<(f64, Vec<String>)> {
    let others_ok = run.failures.iter().all(|f| is_item_line(f));
    let reviewers: BTreeSet<&str> = rows.iter().filter(|r| r.sampled()).map(|r| r.reviewer.as_str()).collect();
    let mut values = vec![];
    let mut used = vec![];
    for who in reviewers {
        let pass = |kind: ItemKind, i: usize, text: &str| {
            rows.iter()
                .find(|r| r.reviewer == who && r.kind == kind && r.item == i + 1 && r.item_text == text)
                .map(|r| r.item_passes())
        };
        let items: Option<Vec<bool>> = case
            .items
            .must
            .iter()
            .enumerate()
            .map(|(i, t)| pass(ItemKind::Must, i, t))
            .chain(case.items.must_not.iter().enumerate().map(|(i, t)| pass(ItemKind::MustNot, i, t)))
            .collect();
        if let Some(items) = items {
            values.push(if others_ok && items.iter().all(|p| *p) { 1.0 } else { 0.0 });
            used.push(who.to_owned());
        }
    }
    (!values.is_empty()).then(|| (values.iter().sum::<f64>() / values.len() as f64, used))
}

/// The judge-corrected pass rate of `report` (runs with their results, see
/// [`crate::analysis::stored::load_stored`]) from the reviews in `store`;
/// `None` when fewer than two runs were graded or fewer than two graded runs
/// have sampled reviews.
///
/// # Errors
/// A read error of the database.
pub fn corrected_pass_rate(report: &EvalReport, store: &ReviewStore) -> anyhow::Result<Option<CorrectedRate>> {
    let all = store.all()?;
    let mut judged = vec![];
    let mut reviewed = vec![];
    let mut reviewers: BTreeSet<String> = BTreeSet::new();
    for case in &report.cases {
        for run in &case.runs {
            if run.status == RunStatus::Unmeasured {
                continue;
            }
            let f = if run.passed { 1.0 } else { 0.0 };
            judged.push(f);
            let Some(result) = &run.result else { continue };
            let hash = super::store::reply_hash(&result.reply);
            let rows: Vec<&Review> = all.iter().filter(|r| r.case_id == case.id && r.reply_hash == hash).collect();
            if let Some((y, who)) = human_value(case, run, &rows) {
                reviewed.push((f, y));
                reviewers.extend(who);
            }
        }
    }
    Ok(ppi_mean(&judged, &reviewed, crate::stats::Z95).map(|ppi| CorrectedRate {
        judge: report.judge.clone(),
        ppi,
        reviewers: reviewers.into_iter().collect(),
    }))
}

/// One line for the terminal: the corrected rate with its interval beside the judge's own.
pub fn render_line(name: &str, c: Option<&CorrectedRate>) -> String {
    match c {
        Some(c) => format!(
            "{name}: judge-corrected pass rate {:.1}% [{:.1}%, {:.1}%] (judge `{}` alone {:.1}%; rectifier {:+.1} points from {} reviewed of {} graded runs; reviewers {}; prediction-powered inference, Angelopoulos et al. 2023)",
            c.ppi.estimate * 100.0,
            c.ppi.interval.lo * 100.0,
            c.ppi.interval.hi * 100.0,
            c.judge,
            c.ppi.judge_rate * 100.0,
            -c.ppi.rectifier * 100.0,
            c.ppi.reviewed,
            c.ppi.graded,
            c.reviewers.join(", ")
        ),
        None => format!(
            "{name}: judge-corrected pass rate unmeasured (fewer than two graded runs have reviews from the random sample; review more with `inquiry view --review`)"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn item_lines_are_told_from_other_judge_findings() {
        assert!(is_item_line("judge: must 1 not conveyed: heating"));
        assert!(is_item_line("judge: must_not 2 stated: x"));
        assert!(!is_item_line("judge: reply language is de, expected en"));
        assert!(!is_item_line("handoff missing: viewing_request"));
    }
}
