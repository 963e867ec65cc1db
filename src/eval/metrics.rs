//! Metrics of an eval run and the thresholds gate (SPEC §7).
//!
//! Every metric has a fixed name used in `thresholds.json`; a metric that could
//! not be measured (no judge, unknown price, no runs) has no value and is
//! reported as "unmeasured", never as 0 or NaN.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::grounding::FindingKind;

use super::case::LoadedCase;
use super::golden::GoldenReport;
use super::judge::Verdict;
use super::{CaseReport, CaseRun, CaseStatus, ReasonRow, RunStatus};
use crate::handoff::HandoffReason;
use crate::stats::cluster::{clustered_mean, clustered_ratio, ClusteredRatio};
use crate::stats::{wilson, Interval, Z95};

/// Names, units and meanings of every metric, in report order.
pub const METRICS: &[(&str, &str, &str)] = &[
    (
        "case_pass_rate",
        "ratio",
        "measured runs passing every code check and the judge (with --repeat: the mean of the case pass rates)",
    ),
    ("critical_pass_rate", "ratio", "critical cases passing every measured run (pass^N with --repeat N)"),
    ("handoff_precision", "ratio", "created hand-off reasons that were required (allowed ones excluded)"),
    ("handoff_recall", "ratio", "required hand-off reasons that were created"),
    ("number_check_final", "ratio", "runs whose final reply has only grounded figures"),
    ("number_check_first_draft", "ratio", "runs whose first draft has only grounded figures"),
    ("grounded_sentence_rate", "ratio", "claim and hand-off sentences of final replies with no grounding finding"),
    ("grounding_unsupported", "count", "sentences whose figure or content no evidence supports"),
    ("grounding_contradicted", "count", "sentences that say the opposite of the evidence (polarity, figure, period)"),
    ("grounding_hedged", "count", "sentences that turn the records into a guess"),
    ("grounding_commitment", "count", "sentences that book, confirm or promise what only a person can"),
    ("judge_correctness", "ratio", "runs the judge passed (among judged runs)"),
    ("retrieval_recall_at_5", "ratio", "answerable golden questions with an expected chunk in the top 5"),
    ("unanswerable_false_positives", "count", "unanswerable golden questions that returned passages"),
    ("cost_mean_usd", "USD", "mean agent cost per inquiry"),
    ("judge_cost_mean_usd", "USD", "mean judge cost per inquiry"),
    ("latency_mean_ms", "ms", "mean wall time per inquiry"),
    ("latency_p50_ms", "ms", "median wall time per inquiry"),
    ("latency_p95_ms", "ms", "95th percentile wall time per inquiry"),
    ("judge_kappa", "kappa", "judge-check: Cohen's κ of the judge against the hand labels, over items"),
    ("judge_false_pass_rate", "ratio", "judge-check: wrong labelled replies the judge passed"),
];

/// A measured (or unmeasured) metric.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Metric {
    /// Name from [`METRICS`].
    pub name: String,
    /// Value, or `None` when unmeasured.
    pub value: Option<f64>,
    /// `ratio`, `count`, `USD` or `ms`.
    pub unit: String,
    /// Numerator/denominator or why it is unmeasured.
    pub detail: String,
    /// False when the selection holds nothing this metric counts (e.g. no
    /// hand-off case among `--case` picks): then a bound on it is not applied.
    #[serde(default = "yes")]
    pub applicable: bool,
    /// 95% interval of a ratio: Wilson at the effective sample size of its
    /// count, with runs of one case and cases of one cluster counted as one
    /// cluster (`stats::cluster`): repeats are never independent observations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<Interval>,
    /// Design effect of the interval: clustered over independent variance
    /// (1 when runs and cases were independent; `None` when not computed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub design_effect: Option<f64>,
}

fn yes() -> bool {
    true
}

impl Metric {
    /// A metric from a value and a detail line.
    pub fn new(name: &str, value: Option<f64>, detail: impl Into<String>) -> Self {
        let unit = METRICS.iter().find(|(n, _, _)| *n == name).map(|(_, u, _)| *u).unwrap_or("");
        Self {
            name: name.into(),
            value: value.filter(|v| v.is_finite()),
            unit: unit.into(),
            detail: detail.into(),
            applicable: true,
            interval: None,
            design_effect: None,
        }
    }

    /// This metric with the cluster-robust interval and design effect of
    /// `c` (left as it is when `c` is `None`).
    pub fn clustered(mut self, c: Option<ClusteredRatio>) -> Self {
        if let Some(c) = c {
            self.interval = Some(c.interval);
            self.design_effect = Some(c.design_effect);
        }
        self
    }

    /// A metric with nothing to count in this selection (shown `n/a`; the gate
    /// neither passes nor fails on it).
    pub fn not_applicable(name: &str) -> Self {
        Self { applicable: false, ..Self::new(name, None, "not applicable: nothing in this selection to count") }
    }

    /// A ratio `num/den` with its Wilson 95% interval; not applicable when `den` is 0.
    pub fn ratio(name: &str, num: usize, den: usize) -> Self {
        if den == 0 {
            Self::not_applicable(name)
        } else {
            Self {
                interval: wilson(num, den, Z95),
                ..Self::new(name, Some(num as f64 / den as f64), format!("{num}/{den}"))
            }
        }
    }

    /// A metric that could not be measured, with the reason.
    pub fn unmeasured(name: &str, why: impl Into<String>) -> Self {
        Self::new(name, None, format!("unmeasured: {}", why.into()))
    }

    /// The interval formatted for people (`[89.3%, 99.6%]`), with the
    /// design effect when clusters or repeats widened it (`… deff 3.04`), or empty.
    pub fn interval_display(&self) -> String {
        let deff = match self.design_effect {
            Some(d) if d > 1.005 => format!(" deff {d:.2}"),
            _ => String::new(),
        };
        match (self.interval, self.unit.as_str()) {
            (Some(i), "ratio") => format!("[{:.1}%, {:.1}%]{deff}", i.lo * 100.0, i.hi * 100.0),
            (Some(i), _) => format!("[{:.3}, {:.3}]{deff}", i.lo, i.hi),
            (None, _) => String::new(),
        }
    }

    /// The value formatted for people (`93.9%`, `$0.0143`, `812 ms`).
    pub fn display(&self) -> String {
        match self.value {
            None if !self.applicable => "n/a".into(),
            None => "unmeasured".into(),
            Some(v) => match self.unit.as_str() {
                "ratio" => format!("{:.1}%", v * 100.0),
                "USD" => format!("${v:.4}"),
                "ms" => format!("{v:.0} ms"),
                "kappa" => format!("{v:.3}"),
                _ => format!("{v}"),
            },
        }
    }
}

/// Bounds of one metric.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Bounds {
    /// The value must be at least this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<f64>,
    /// The value must be at most this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<f64>,
}

/// `thresholds.json`: metric name → bounds.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Thresholds {
    /// Bounds by metric name.
    pub bounds: BTreeMap<String, Bounds>,
}

impl Thresholds {
    /// Reads and validates a thresholds file.
    ///
    /// # Errors
    /// Unreadable file, invalid JSON (line, column), an unknown metric name
    /// (listing the known ones), an unknown key, a bound that is not a finite
    /// number, or `min` above `max`.
    pub fn load(path: &Path) -> anyhow::Result<Self> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            let hint = if path.is_relative() && e.kind() == std::io::ErrorKind::NotFound {
                format!(
                    " (relative to {}; run from the repository root or pass -C DIR)",
                    std::env::current_dir().map(|d| d.display().to_string()).unwrap_or_default()
                )
            } else {
                String::new()
            };
            anyhow::anyhow!("{}: cannot read: {e}{hint}", path.display())
        })?;
        Self::parse(path, &text)
    }

    /// Parses thresholds text (see [`Thresholds::load`]).
    ///
    /// # Errors
    /// As [`Thresholds::load`].
    pub fn parse(path: &Path, text: &str) -> anyhow::Result<Self> {
        let bounds: BTreeMap<String, Bounds> =
            crate::json_file::from_str(text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        for (name, b) in &bounds {
            if !METRICS.iter().any(|(n, _, _)| n == name) {
                let known: Vec<&str> = METRICS.iter().map(|(n, _, _)| *n).collect();
                anyhow::bail!("{}: unknown metric `{name}`; expected one of: {}", path.display(), known.join(", "));
            }
            if b.min.is_none() && b.max.is_none() {
                anyhow::bail!("{}: metric `{name}` has neither `min` nor `max`", path.display());
            }
            for v in b.min.iter().chain(&b.max) {
                if !v.is_finite() {
                    anyhow::bail!("{}: metric `{name}`: bound {v} is not a finite number", path.display());
                }
            }
            let unit = METRICS.iter().find(|(n, _, _)| n == name).map(|(_, u, _)| *u).unwrap_or("");
            if unit == "ratio" {
                if let Some(v) = b.min.iter().chain(&b.max).find(|v| !(0.0..=1.0).contains(*v)) {
                    anyhow::bail!(
                        "{}: metric `{name}`: bound {v} is outside 0..1; ratios are fractions (0.75 means 75%)",
                        path.display()
                    );
                }
            }
            if let (Some(lo), Some(hi)) = (b.min, b.max) {
                if lo > hi {
                    anyhow::bail!("{}: metric `{name}`: min {lo} is above max {hi}", path.display());
                }
            }
        }
        Ok(Self { bounds })
    }
}

/// How one metric fared against its bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum GateStatus {
    /// Within bounds.
    Met,
    /// Outside bounds.
    Missed,
    /// Bounded but not measured: counts as missed, so a gate never passes on missing data.
    Unmeasured,
    /// Bounded, but the selection holds nothing the metric counts: not applied.
    NotApplicable,
    /// No bounds set.
    Ungated,
}

/// A metric with its bounds and status.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct GatedMetric {
    /// The metric.
    #[serde(flatten)]
    pub metric: Metric,
    /// Its bounds, if any.
    pub bounds: Option<Bounds>,
    /// The status.
    pub status: GateStatus,
}

/// Applies thresholds to metrics. Returns the gated metrics and whether all
/// bounded metrics were met.
pub fn gate(metrics: &[Metric], thresholds: &Thresholds) -> (Vec<GatedMetric>, bool) {
    let gated: Vec<GatedMetric> = metrics
        .iter()
        .map(|m| {
            let bounds = thresholds.bounds.get(&m.name).copied();
            let status = match (bounds, m.value) {
                (None, _) => GateStatus::Ungated,
                (Some(_), None) if !m.applicable => GateStatus::NotApplicable,
                (Some(_), None) => GateStatus::Unmeasured,
                (Some(b), Some(v)) => {
                    if b.min.is_some_and(|lo| v < lo - 1e-12) || b.max.is_some_and(|hi| v > hi + 1e-12) {
                        GateStatus::Missed
                    } else {
                        GateStatus::Met
                    }
                }
            };
            GatedMetric { metric: m.clone(), bounds, status }
        })
        .collect();
    let ok =
        gated.iter().all(|g| matches!(g.status, GateStatus::Met | GateStatus::Ungated | GateStatus::NotApplicable));
    (gated, ok)
}

/// Percentile by nearest rank (p in 0..=100) of unsorted values; `None` when empty.
pub fn percentile(values: &[f64], p: f64) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * v.len() as f64).ceil().max(1.0) as usize;
    v.get(rank.min(v.len()) - 1).copied()
}

/// Computes every eval metric and the per-reason hand-off table from the
/// case reports. Unmeasured runs are left out of every rate; the detail line
/// says how many.
pub fn compute_metrics(
    cases: &[LoadedCase],
    reports: &[CaseReport],
    golden: &GoldenReport,
    judged: bool,
) -> (Vec<Metric>, Vec<ReasonRow>) {
    let runs: Vec<(&LoadedCase, &CaseRun)> =
        cases.iter().zip(reports).flat_map(|(c, r)| r.runs.iter().map(move |run| (c, run))).collect();
    let n = runs.len();
    let measured: Vec<&(&LoadedCase, &CaseRun)> =
        runs.iter().filter(|(_, r)| r.status != RunStatus::Unmeasured).collect();
    let unmeasured = n - measured.len();
    let passed = measured.iter().filter(|(_, r)| r.status == RunStatus::Pass).count();
    let repeat = reports.iter().map(|r| r.runs.len()).max().unwrap_or(1);
    let note = |m: &mut Metric, k: usize| {
        if k > 0 {
            m.detail.push_str(&format!(" ({k} unmeasured)"));
        }
    };
    let case_pass = if n > 0 && measured.is_empty() {
        Metric::unmeasured("case_pass_rate", format!("all {n} runs are unmeasured"))
    } else if repeat <= 1 {
        let mut m = Metric::ratio("case_pass_rate", passed, measured.len()).clustered(clustered_mean(
            measured
                .iter()
                .map(|(c, r)| (f64::from(u8::from(r.status == RunStatus::Pass)), c.case.id.as_str(), cluster_of(c))),
        ));
        note(&mut m, unmeasured);
        m
    } else {
        case_mean_metric(reports, unmeasured)
    };
    let critical: Vec<&CaseReport> =
        reports.iter().filter(|r| r.critical && r.status != CaseStatus::Unmeasured).collect();
    let critical_unmeasured = reports.iter().filter(|r| r.critical && r.status == CaseStatus::Unmeasured).count();
    let mut critical_metric =
        Metric::ratio("critical_pass_rate", critical.iter().filter(|r| r.passed).count(), critical.len()).clustered(
            clustered_mean(critical.iter().map(|r| (f64::from(u8::from(r.passed)), r.id.as_str(), r.cluster_key()))),
        );
    note(&mut critical_metric, critical_unmeasured);
    if critical.is_empty() && critical_unmeasured > 0 {
        critical_metric = Metric::unmeasured(
            "critical_pass_rate",
            format!("all {critical_unmeasured} critical cases are unmeasured"),
        );
    }

    // Hand-offs and number checks count every run whose agent ran, graded or not.
    let agent_runs: Vec<&(&LoadedCase, &CaseRun)> = runs.iter().filter(|(_, r)| r.agent_measured()).collect();
    let agent_unmeasured = n - agent_runs.len();
    let mut rows: Vec<ReasonRow> = HandoffReason::ALL
        .iter()
        .map(|&reason| ReasonRow { reason, required: 0, created: 0, correct: 0, missed: 0, extra: 0 })
        .collect();
    // Per run (tp, fp, missed), for the clustered intervals.
    let mut per_run: Vec<(f64, f64, f64, &str, &str)> = vec![];
    for (c, run) in &agent_runs {
        let Some(checks) = &run.checks else { continue };
        let (mut tp, mut fp, mut missed) = (0.0, 0.0, 0.0);
        for reason in HandoffReason::ALL {
            let required = c.case.handoffs.contains(&reason);
            let allowed = c.case.allow_handoffs.contains(&reason);
            let created = checks.created.contains(&reason);
            tp += f64::from(u8::from(required && created));
            missed += f64::from(u8::from(required && !created));
            fp += f64::from(u8::from(created && !required && !allowed));
        }
        per_run.push((tp, fp, missed, c.case.id.as_str(), cluster_of(c)));
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

    let checked: Vec<(&super::checks::CodeChecks, &str, &str)> = agent_runs
        .iter()
        .filter_map(|(c, r)| r.checks.as_ref().map(|x| (x, c.case.id.as_str(), cluster_of(c))))
        .collect();
    let final_ok = checked.iter().filter(|(c, _, _)| c.final_numbers_ok()).count();
    let drafts: Vec<(bool, &str, &str)> =
        checked.iter().filter_map(|(c, id, k)| c.first_draft_numbers_ok().map(|ok| (ok, *id, *k))).collect();
    let judged_runs: Vec<(&Verdict, &str, &str)> =
        runs.iter().filter_map(|(c, r)| r.verdict.as_ref().map(|v| (v, c.case.id.as_str(), cluster_of(c)))).collect();
    let unmeasured_judge = agent_runs.iter().filter(|(_, r)| r.judge_error.is_some()).count();

    let latencies: Vec<f64> = agent_runs.iter().map(|(_, r)| r.latency_ms as f64).collect();
    let mean = |v: &[f64]| if v.is_empty() { None } else { Some(v.iter().sum::<f64>() / v.len() as f64) };
    let costs: Option<Vec<f64>> = agent_runs.iter().map(|(_, r)| r.cost_usd).collect();
    let judge_costs: Option<Vec<f64>> =
        if judged { agent_runs.iter().map(|(_, r)| r.judge_cost_usd).collect() } else { None };

    let judge_metric = if !judged {
        Metric::unmeasured("judge_correctness", "--judge none")
    } else if judged_runs.is_empty() {
        let why = if unmeasured_judge > 0 {
            format!("the judge could not grade any of the {unmeasured_judge} runs")
        } else {
            "no run reached the judge".to_owned()
        };
        Metric::unmeasured("judge_correctness", why)
    } else {
        let ok = judged_runs.iter().filter(|(v, _, _)| v.passed()).count();
        let mut m = Metric::ratio("judge_correctness", ok, judged_runs.len())
            .clustered(clustered_mean(judged_runs.iter().map(|(v, id, k)| (f64::from(u8::from(v.passed())), *id, *k))));
        note(&mut m, unmeasured_judge);
        m
    };
    let with_note = |mut m: Metric| {
        note(&mut m, agent_unmeasured);
        m
    };
    // Sentences of one run (and runs of one cluster) are not independent: the
    // rate's interval is clustered like every other rate's.
    let groundings: Vec<(&crate::grounding::Grounding, &str, &str)> = agent_runs
        .iter()
        .filter_map(|(c, r)| Some((r.checks.as_ref()?.grounding.as_ref()?, c.case.id.as_str(), cluster_of(c))))
        .collect();
    let grounding_checked: usize = groundings.iter().map(|(g, _, _)| g.checked()).sum();
    let grounded: usize = groundings.iter().map(|(g, _, _)| g.grounded()).sum();
    let grounding_count = |kind: FindingKind| {
        let name = format!("grounding_{}", kind.as_str());
        if groundings.is_empty() {
            Metric::not_applicable(&name)
        } else {
            let k: usize = groundings.iter().map(|(g, _, _)| g.count(kind)).sum();
            Metric::new(&name, Some(k as f64), format!("{k} in {} runs", groundings.len()))
        }
    };
    let metrics = vec![
        case_pass,
        critical_metric,
        with_note(
            Metric::ratio("handoff_precision", tp, tp + fp)
                .clustered(clustered_ratio(per_run.iter().map(|(t, f, _, id, k)| (*t, t + f, *id, *k)))),
        ),
        with_note(
            Metric::ratio("handoff_recall", tp, tp + fneg)
                .clustered(clustered_ratio(per_run.iter().map(|(t, _, m, id, k)| (*t, t + m, *id, *k)))),
        ),
        with_note(Metric::ratio("number_check_final", final_ok, checked.len()).clustered(clustered_mean(
            checked.iter().map(|(c, id, k)| (f64::from(u8::from(c.final_numbers_ok())), *id, *k)),
        ))),
        with_note(
            Metric::ratio("number_check_first_draft", drafts.iter().filter(|(d, _, _)| *d).count(), drafts.len())
                .clustered(clustered_mean(drafts.iter().map(|(d, id, k)| (f64::from(u8::from(*d)), *id, *k)))),
        ),
        with_note(Metric::ratio("grounded_sentence_rate", grounded, grounding_checked).clustered(clustered_ratio(
            groundings.iter().map(|(g, id, k)| (g.grounded() as f64, g.checked() as f64, *id, *k)),
        ))),
        grounding_count(FindingKind::Unsupported),
        grounding_count(FindingKind::Contradicted),
        grounding_count(FindingKind::Hedged),
        grounding_count(FindingKind::Commitment),
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
            Some(c) if !c.is_empty() => Metric::new("cost_mean_usd", mean(c), format!("{} runs", c.len())),
            Some(_) => Metric::unmeasured("cost_mean_usd", "no run reached the model"),
            None => Metric::unmeasured("cost_mean_usd", "the model has no entry in the price table"),
        },
        match (&judge_costs, judged) {
            (_, false) => Metric::unmeasured("judge_cost_mean_usd", "--judge none"),
            (Some(c), true) if !c.is_empty() => {
                Metric::new("judge_cost_mean_usd", mean(c), format!("{} runs", c.len()))
            }
            (_, true) => Metric::unmeasured("judge_cost_mean_usd", "judge price unknown or judge failed"),
        },
        Metric::new("latency_mean_ms", mean(&latencies), format!("{} runs", latencies.len())),
        Metric::new("latency_p50_ms", percentile(&latencies, 50.0), format!("{} runs", latencies.len())),
        Metric::new("latency_p95_ms", percentile(&latencies, 95.0), format!("{} runs", latencies.len())),
    ];
    (metrics, rows)
}

/// A case's cluster for the intervals: the loaded case's, else the case id.
fn cluster_of(c: &LoadedCase) -> &str {
    c.case.cluster.as_deref().unwrap_or(&c.case.id)
}

/// With `--repeat`, the suite's pass rate is the mean of the case pass rates,
/// and its interval treats the case (in its cluster) as the unit, since
/// repeats of one case are not independent cases: the Wilson interval at the
/// effective number of cases (`stats::cluster`). One case failing all three
/// of its runs among 49 gives the interval of 48/49, never an upper end of 100%.
fn case_mean_metric(reports: &[CaseReport], unmeasured: usize) -> Metric {
    let measured: Vec<&CaseReport> = reports.iter().filter(|r| r.measured_runs > 0).collect();
    let k = measured.len();
    if k == 0 {
        return Metric::unmeasured("case_pass_rate", "no case has a measured run");
    }
    let mean = measured.iter().map(|r| r.pass_rate).sum::<f64>() / k as f64;
    let runs: usize = reports.iter().map(|r| r.measured_runs).sum();
    let mut m =
        Metric::new("case_pass_rate", Some(mean), format!("mean of {k} case pass rates ({runs} measured runs)"))
            .clustered(clustered_mean(measured.iter().map(|r| (r.pass_rate, r.id.as_str(), r.cluster_key()))));
    if unmeasured > 0 {
        m.detail.push_str(&format!(" ({unmeasured} unmeasured)"));
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gate_statuses() {
        let t = Thresholds::parse(
            "t.json".as_ref(),
            r#"{"case_pass_rate": {"min": 0.8}, "unanswerable_false_positives": {"max": 0}, "judge_correctness": {"min": 0.9}}"#,
        )
        .unwrap();
        let metrics = vec![
            Metric::ratio("case_pass_rate", 9, 10),
            Metric::new("unanswerable_false_positives", Some(1.0), "1/8"),
            Metric::new("judge_correctness", None, "unmeasured: --judge none"),
            Metric::new("latency_mean_ms", Some(5.0), ""),
        ];
        let (g, ok) = gate(&metrics, &t);
        let statuses: Vec<GateStatus> = g.iter().map(|g| g.status).collect();
        assert_eq!(statuses, [GateStatus::Met, GateStatus::Missed, GateStatus::Unmeasured, GateStatus::Ungated]);
        assert!(!ok);
        let (_, ok) = gate(&metrics[..1], &t);
        assert!(ok);
    }

    #[test]
    fn thresholds_reject_unknown_names_and_bad_bounds() {
        let e = Thresholds::parse("t.json".as_ref(), r#"{"pass_rate": {"min": 0.8}}"#).unwrap_err().to_string();
        assert!(e.contains("unknown metric `pass_rate`") && e.contains("case_pass_rate"), "{e}");
        let e =
            Thresholds::parse("t.json".as_ref(), r#"{"case_pass_rate": {"minimum": 0.8}}"#).unwrap_err().to_string();
        assert!(e.contains("unknown field `minimum`"), "{e}");
        let e = Thresholds::parse("t.json".as_ref(), r#"{"case_pass_rate": {"min": 0.9, "max": 0.5}}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("above max"), "{e}");
        let e = Thresholds::parse("t.json".as_ref(), r#"{"case_pass_rate": {"min": 75}}"#).unwrap_err().to_string();
        assert!(e.contains("outside 0..1"), "{e}");
        let t = Thresholds::parse("t.json".as_ref(), r#"{"handoff_precision": {"min": 0.9}}"#).unwrap();
        let (g, ok) = gate(&[Metric::ratio("handoff_precision", 0, 0)], &t);
        assert_eq!(g[0].status, GateStatus::NotApplicable);
        assert!(ok, "a metric with nothing to count in the selection does not fail the gate");
        let e = Thresholds::parse("t.json".as_ref(), r#"{"case_pass_rate": {}}"#).unwrap_err().to_string();
        assert!(e.contains("neither"), "{e}");
    }

    #[test]
    fn percentiles() {
        let v = [5.0, 1.0, 3.0, 2.0, 4.0];
        assert_eq!(percentile(&v, 50.0), Some(3.0));
        assert_eq!(percentile(&v, 95.0), Some(5.0));
        assert_eq!(percentile(&[], 50.0), None);
        assert_eq!(Metric::ratio("case_pass_rate", 0, 0).value, None);
        assert!(!Metric::ratio("handoff_precision", 0, 0).applicable);
    }
}
