//! The gates of a comparison and the verdict they make together.
//!
//! - `max_drop` D: the non-inferiority test of [`crate::stats::paired`] on
//!   the paired difference of case pass rates: met, missed or inconclusive,
//!   decided by the same interval that is printed.
//! - `critical_all_runs`: every critical case passes every one of its runs.
//! - `significant_regression` at α: the exact McNemar test (one run per case)
//!   or the sign-flip test (repeats); inconclusive when no outcome of the
//!   discordant pairs could reach α ("cannot reach α with b + c discordant pairs").
//! - `thresholds`: the thresholds file applied to the candidate's metrics.
//!
//! An INCOMPLETE baseline or candidate makes the verdict INCOMPLETE (exit 2)
//! whatever the gates say: a gate on part of a suite decides nothing.

use serde::Serialize;

use super::compare::PairedTest;
use crate::eval::metrics::{gate, GateStatus, Thresholds};
use crate::eval::{CaseReport, EvalReport, RunStatus};
use crate::stats::paired::{min_attainable_p, non_inferiority, Decision, PairedDifference};

/// The gates to apply (each optional).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Gates {
    /// Non-inferiority margin: the candidate's case pass rate may fall at most
    /// this far below the baseline's, on the shared cases (a fraction: 0.02 = two points).
    pub max_drop: Option<f64>,
    /// Every critical case passes every one of its runs in the candidate.
    pub critical_all_runs: bool,
    /// Fail when the paired test finds a regression at this significance level.
    pub significant_regression_alpha: Option<f64>,
    /// Thresholds applied to the candidate's metrics.
    pub thresholds: Option<Thresholds>,
    /// An inconclusive gate fails the comparison (exit 1) instead of passing
    /// with a warning (exit 0).
    pub inconclusive_fails: bool,
}

/// Result of one gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GateOutcome {
    /// Held.
    Met,
    /// Missed: exit 1.
    Missed,
    /// This suite cannot decide (the interval straddles the margin, or the
    /// test cannot reach α): exit 0 with a warning, or 1 with `--inconclusive fail`.
    Inconclusive,
    /// Could not be decided (unmeasured runs): exit 2, never a pass.
    Unmeasured,
}

impl GateOutcome {
    /// The word used everywhere: `met`, `MISSED`, `INCONCLUSIVE`, `UNMEASURED`.
    pub fn word(self) -> &'static str {
        match self {
            Self::Met => "met",
            Self::Missed => "MISSED",
            Self::Inconclusive => "INCONCLUSIVE",
            Self::Unmeasured => "UNMEASURED",
        }
    }
}

/// One gate with its result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GateResult {
    /// `max_drop`, `critical_all_runs`, `significant_regression` or `thresholds`.
    pub gate: String,
    /// The result.
    pub outcome: GateOutcome,
    /// What was measured, in words.
    pub detail: String,
}

fn result(gate: &str, outcome: GateOutcome, detail: String) -> GateResult {
    GateResult { gate: gate.into(), outcome, detail }
}

fn pts(x: f64) -> String {
    format!("{:+.1}", x * 100.0)
}

/// The max_drop gate: non-inferiority with margin `margin` on `paired`.
pub fn max_drop(paired: Option<&PairedDifference>, margin: f64) -> GateResult {
    let Some(d) = paired else {
        return result("max_drop", GateOutcome::Unmeasured, "no shared case is measured in both reports".into());
    };
    let i = d.interval;
    let m = margin * 100.0;
    let (outcome, why) = match non_inferiority(i, margin) {
        Decision::Met => (GateOutcome::Met, format!("the interval lies above −{m:.1}")),
        Decision::Missed => {
            (GateOutcome::Missed, format!("the interval lies below −{m:.1}: worse by more than {m:.1} points"))
        }
        Decision::Inconclusive => (
            GateOutcome::Inconclusive,
            format!("the interval straddles −{m:.1}: this suite cannot tell a drop of {m:.1} points from none"),
        ),
    };
    result(
        "max_drop",
        outcome,
        format!(
            "non-inferiority, margin {m:.1} points: case pass rate on {} shared cases {:.1}% → {:.1}%, difference {} points, 95% interval [{}, {}] ({} clusters); {why}",
            d.cases,
            d.base_mean * 100.0,
            d.cand_mean * 100.0,
            pts(d.mean),
            pts(i.lo),
            pts(i.hi),
            d.clusters
        ),
    )
}

/// The critical_all_runs gate on the candidate.
pub fn critical_all_runs(cand: &EvalReport) -> GateResult {
    let critical: Vec<&CaseReport> = cand.cases.iter().filter(|x| x.critical).collect();
    let failing: Vec<String> = critical
        .iter()
        .filter(|x| x.runs.iter().any(|r| r.status == RunStatus::Fail))
        .map(|x| {
            let fails = x.runs.iter().filter(|r| r.status == RunStatus::Fail).count();
            format!("{} ({fails}/{} runs failed)", x.id, x.runs.len())
        })
        .collect();
    let unmeasured: Vec<&str> = critical
        .iter()
        .filter(|x| x.runs.iter().any(|r| r.status == RunStatus::Unmeasured))
        .map(|x| x.id.as_str())
        .collect();
    let (outcome, detail) = if !failing.is_empty() {
        (GateOutcome::Missed, format!("critical cases with a failing run: {}", failing.join(", ")))
    } else if !unmeasured.is_empty() {
        (GateOutcome::Unmeasured, format!("critical cases with unmeasured runs: {}", unmeasured.join(", ")))
    } else {
        (GateOutcome::Met, format!("all {} critical cases passed every run", critical.len()))
    };
    result("critical_all_runs", outcome, detail)
}

/// The significant_regression gate at `alpha` on the paired test.
pub fn significant_regression(test: &PairedTest, alpha: f64) -> GateResult {
    let (p, worse, m, what) = match test {
        PairedTest::Mcnemar { b, c, p } => (*p, b > c, b + c, format!("b + c = {} discordant pairs", b + c)),
        PairedTest::SignFlip { nonzero, mean_difference, p, .. } => {
            (*p, *mean_difference < 0.0, *nonzero, format!("{nonzero} changed cases"))
        }
        PairedTest::None { why } => {
            return result(
                "significant_regression",
                GateOutcome::Unmeasured,
                format!("no paired test could run: {why}"),
            )
        }
    };
    let floor = min_attainable_p(m);
    let (outcome, detail) = if worse && p < alpha {
        (GateOutcome::Missed, format!("p = {p:.4} < α = {alpha}: the candidate is significantly worse"))
    } else if floor >= alpha {
        (
            GateOutcome::Inconclusive,
            format!("cannot reach α = {alpha} with {what}: the smallest possible two-sided p is {floor:.4}"),
        )
    } else {
        (
            GateOutcome::Met,
            format!(
                "p = {p:.4} ({}; α {alpha})",
                if worse { "candidate worse, not significantly" } else { "candidate not worse" }
            ),
        )
    };
    result("significant_regression", outcome, detail)
}

/// The thresholds gate: `thresholds` applied to the candidate's metrics.
pub fn thresholds(cand: &EvalReport, thresholds: &Thresholds) -> GateResult {
    let metrics: Vec<_> = cand.metrics.iter().map(|m| m.metric.clone()).collect();
    let (gated, _) = gate(&metrics, thresholds);
    let describe = |status: GateStatus| -> Vec<String> {
        gated
            .iter()
            .filter(|g| g.status == status)
            .map(|g| {
                let b = g.bounds.unwrap_or_default();
                let bound = match (b.min, b.max) {
                    (Some(lo), Some(hi)) => format!("{lo}..{hi}"),
                    (Some(lo), None) => format!("min {lo}"),
                    (None, Some(hi)) => format!("max {hi}"),
                    (None, None) => String::new(),
                };
                format!("{} {} ({bound})", g.metric.name, g.metric.display())
            })
            .collect()
    };
    let (missed, unmeasured) = (describe(GateStatus::Missed), describe(GateStatus::Unmeasured));
    let bounded = gated.iter().filter(|g| g.bounds.is_some()).count();
    if !missed.is_empty() {
        result("thresholds", GateOutcome::Missed, format!("the candidate misses: {}", missed.join(", ")))
    } else if !unmeasured.is_empty() {
        result("thresholds", GateOutcome::Unmeasured, format!("bounded but unmeasured: {}", unmeasured.join(", ")))
    } else {
        result(
            "thresholds",
            GateOutcome::Met,
            format!("all {bounded} bounded metrics of the candidate are within bounds"),
        )
    }
}

/// Why a report is INCOMPLETE, with its missing case count; empty when both are complete.
pub fn incomplete(base: &EvalReport, cand: &EvalReport) -> Vec<String> {
    [("baseline", base), ("candidate", cand)]
        .into_iter()
        .filter_map(|(side, r)| {
            r.incomplete.as_ref().map(|i| {
                format!(
                    "the {side} is INCOMPLETE ({}): {} case{} missing or unfinished, {} of {} runs finished",
                    i.reason,
                    i.unfinished_cases.len().max(usize::from(i.runs_finished < i.runs_planned)),
                    if i.unfinished_cases.len() == 1 { "" } else { "s" },
                    i.runs_finished,
                    i.runs_planned
                )
            })
        })
        .collect()
}

/// The verdict: `INCOMPLETE` (a report is incomplete), `FAIL` (a gate
/// missed), `UNMEASURED` (a gate could not be decided), `INCONCLUSIVE` (a
/// gate cannot be decided by this suite), else `PASS`.
pub fn verdict(gates: &[GateResult], incomplete: bool) -> &'static str {
    let any = |o: GateOutcome| gates.iter().any(|g| g.outcome == o);
    if incomplete {
        "INCOMPLETE"
    } else if any(GateOutcome::Missed) {
        "FAIL"
    } else if any(GateOutcome::Unmeasured) {
        "UNMEASURED"
    } else if any(GateOutcome::Inconclusive) {
        "INCONCLUSIVE"
    } else {
        "PASS"
    }
}

/// Exit code of a verdict: 0 PASS, 1 FAIL, 0 or 1 INCONCLUSIVE (by policy), 2 otherwise.
pub fn exit_code(verdict: &str, inconclusive_fails: bool) -> u8 {
    match verdict {
        "PASS" => 0,
        "FAIL" => 1,
        "INCONCLUSIVE" => u8::from(inconclusive_fails),
        _ => 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(outcome: GateOutcome) -> GateResult {
        result("x", outcome, String::new())
    }

    #[test]
    fn verdicts_and_exit_codes() {
        use GateOutcome::*;
        assert_eq!(verdict(&[g(Met), g(Inconclusive)], false), "INCONCLUSIVE");
        assert_eq!(verdict(&[g(Inconclusive), g(Missed)], false), "FAIL");
        assert_eq!(verdict(&[g(Unmeasured), g(Inconclusive)], false), "UNMEASURED");
        assert_eq!(verdict(&[g(Missed)], true), "INCOMPLETE", "no gate is decided on part of a suite");
        assert_eq!(verdict(&[], false), "PASS");
        assert_eq!(exit_code("INCONCLUSIVE", false), 0);
        assert_eq!(exit_code("INCONCLUSIVE", true), 1);
        assert_eq!(exit_code("INCOMPLETE", false), 2);
        assert_eq!(exit_code("FAIL", false), 1);
    }

    #[test]
    fn significance_that_cannot_be_reached_is_not_met() {
        let t = PairedTest::Mcnemar { b: 4, c: 0, p: 0.125 };
        let r = significant_regression(&t, 0.05);
        assert_eq!(r.outcome, GateOutcome::Inconclusive);
        assert!(r.detail.contains("cannot reach α = 0.05 with b + c = 4 discordant pairs"), "{}", r.detail);
        let t = PairedTest::Mcnemar { b: 7, c: 0, p: crate::stats::mcnemar_exact(7, 0) };
        assert_eq!(significant_regression(&t, 0.05).outcome, GateOutcome::Missed);
        let t = PairedTest::Mcnemar { b: 3, c: 4, p: 1.0 };
        assert_eq!(significant_regression(&t, 0.05).outcome, GateOutcome::Met);
    }
}
