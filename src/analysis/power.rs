//! `inquiry power`: what a suite of this size, with this many repeats and
//! the run-to-run noise a stored report shows, can decide. The formulas are
//! in [`crate::stats::power`]; this module reads them off a report.

use serde::Serialize;

use crate::eval::EvalReport;
use crate::stats::cluster::clustered_mean;
use crate::stats::power::{variance_components, Design, VarianceComponents};

/// Power figures for one report (or a comparison's shared cases).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Power {
    /// Cases with a measured run.
    pub cases: usize,
    /// Runs per case the figures are for.
    pub repeats: usize,
    /// Variance components observed in the report.
    pub components: VarianceComponents,
    /// Design effect of the case clusters on the case pass rate (≥ 1).
    pub design_effect: f64,
    /// Clusters among the cases.
    pub clusters: usize,
    /// Smallest drop detectable at 80% power, α = 0.05 (fraction); `None`
    /// when not even a drop to zero would be.
    pub minimum_detectable_drop: Option<f64>,
    /// The same with one run per case.
    pub minimum_detectable_drop_k1: Option<f64>,
    /// Target drop asked about (fraction), if any.
    pub target: Option<f64>,
    /// Cases needed to detect the target at these repeats.
    pub cases_needed: Option<usize>,
    /// Runs per case needed to detect the target with these cases (`None`:
    /// repeats cannot reach it; add cases).
    pub repeats_needed: Option<usize>,
    /// Notes for people: deterministic repeats, whether more repeats pay off.
    pub notes: Vec<String>,
}

/// Power figures of `report` at `repeats` runs per case (default: the
/// report's own) for an optional `target` drop. `None` when no case was measured.
pub fn of_report(report: &EvalReport, repeats: Option<usize>, target: Option<f64>) -> Option<Power> {
    let cases: Vec<(usize, usize)> = report
        .cases
        .iter()
        .map(|c| (c.runs.iter().filter(|r| r.status == crate::eval::RunStatus::Pass).count(), c.measured_runs))
        .collect();
    let components = variance_components(&cases)?;
    let clustered = clustered_mean(
        report.cases.iter().filter(|c| c.measured_runs > 0).map(|c| (c.pass_rate, c.id.as_str(), c.cluster_key())),
    )?;
    Some(compute(
        components,
        clustered.design_effect,
        clustered.clusters,
        repeats.unwrap_or(report.repeat.max(1)),
        target,
    ))
}

/// Power figures from variance components (shared by `compare`, which pools
/// the two reports' components).
pub fn compute(
    components: VarianceComponents,
    design_effect: f64,
    clusters: usize,
    repeats: usize,
    target: Option<f64>,
) -> Power {
    let within = components.within.unwrap_or(0.0);
    let design = Design::new(components.cases, repeats, within, design_effect);
    let k1 = Design { repeats: 1, ..design };
    let mut notes = vec![];
    match components.within {
        None => notes.push(
            "one run per case: the run-to-run variance is unknown and taken as 0 (run with --repeat 3 to measure it)"
                .to_owned(),
        ),
        Some(w) if w == 0.0 && components.repeats > 1.0 => notes.push(format!(
            "repeats were identical: every case gave the same verdict on all {:.0} of its runs (a deterministic model); more repeats add nothing, only more cases narrow the interval",
            components.repeats
        )),
        Some(w) => {
            // The same rule as the eval report's variance line: the run-to-run
            // share of the variance of one case's mean score.
            let noise = w / repeats as f64;
            let share = noise / (noise + components.between).max(1e-12);
            let verdict = if share > 0.2 {
                "more repeats would pay off"
            } else {
                "more cases pay off more than more repeats"
            };
            notes.push(format!(
                "run-to-run noise is {:.0}% of the variance of a case's score at K = {repeats}: {verdict}",
                100.0 * share
            ));
        }
    }
    Power {
        cases: components.cases,
        repeats,
        components,
        design_effect: design.design_effect,
        clusters,
        minimum_detectable_drop: design.minimum_detectable_drop(),
        minimum_detectable_drop_k1: k1.minimum_detectable_drop(),
        target,
        cases_needed: target.and_then(|t| design.cases_needed(t)),
        repeats_needed: target.and_then(|t| design.repeats_needed(t)),
        notes,
    }
}

/// Power figures for a comparison: the shared cases, the smaller of the two
/// reports' repeats, the within-case variance pooled over both reports, and
/// the design effect of the baseline's case clusters.
pub fn of_pair(base: &EvalReport, cand: &EvalReport, shared: &[super::breakdown::SharedCase]) -> Option<Power> {
    let counts = |r: &EvalReport| -> Vec<(usize, usize)> {
        r.cases
            .iter()
            .map(|c| (c.runs.iter().filter(|x| x.status == crate::eval::RunStatus::Pass).count(), c.measured_runs))
            .collect()
    };
    let (vb, vc) = (variance_components(&counts(base)), variance_components(&counts(cand)));
    let within: Vec<f64> = [vb, vc].iter().flatten().filter_map(|v| v.within).collect();
    let mut components = vb.or(vc)?;
    components.cases = shared.len();
    if shared.is_empty() {
        return None;
    }
    components.within = (!within.is_empty()).then(|| within.iter().sum::<f64>() / within.len() as f64);
    // The within-case variance comes from the side(s) with repeats.
    components.repeats = [vb, vc].iter().flatten().map(|v| v.repeats).fold(1.0, f64::max);
    components.identical = components.within == Some(0.0);
    let clustered = clustered_mean(shared.iter().map(|s| (s.base, s.case.id.as_str(), s.case.cluster_key())))?;
    Some(compute(components, clustered.design_effect, clustered.clusters, base.repeat.min(cand.repeat).max(1), None))
}

/// One line for compare and eval --baseline output, with a warning when a
/// gate margin is below the minimum detectable drop.
pub fn line(p: &Power, margin: Option<f64>) -> String {
    let mde = match p.minimum_detectable_drop {
        Some(m) => format!("{:.1} points", m * 100.0),
        None => "none (too few cases)".to_owned(),
    };
    let mut s = format!(
        "Power: with {} cases × {} run{} (design effect {:.2}), the smallest drop detectable at 80% power (α = 0.05) is {mde}.",
        p.cases,
        p.repeats,
        if p.repeats == 1 { "" } else { "s" },
        p.design_effect
    );
    if let Some(d) = margin {
        if p.minimum_detectable_drop.is_none_or(|m| d < m) {
            s.push_str(&format!(
                " Warning: the --max-drop margin of {:.1} points is below it, so this suite mostly answers INCONCLUSIVE for drops near the margin.",
                d * 100.0
            ));
        }
    }
    s
}
