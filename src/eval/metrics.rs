//! Metrics of an eval run and the thresholds gate (SPEC §7).
//!
//! Every metric has a fixed name used in `thresholds.json`; a metric that could
//! not be measured (no judge, unknown price, no runs) has no value and is
//! reported as "unmeasured", never as 0 or NaN.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

/// Names, units and meanings of every metric, in report order.
pub const METRICS: &[(&str, &str, &str)] = &[
    ("case_pass_rate", "ratio", "cases (runs) passing every code check and the judge"),
    ("critical_pass_rate", "ratio", "critical cases passing every run (pass^N with --repeat N)"),
    ("handoff_precision", "ratio", "created hand-off reasons that were required (allowed ones excluded)"),
    ("handoff_recall", "ratio", "required hand-off reasons that were created"),
    ("number_check_final", "ratio", "runs whose final reply has only grounded figures"),
    ("number_check_first_draft", "ratio", "runs whose first draft has only grounded figures"),
    ("judge_correctness", "ratio", "runs the judge passed (among judged runs)"),
    ("retrieval_recall_at_5", "ratio", "answerable golden questions with an expected chunk in the top 5"),
    ("unanswerable_false_positives", "count", "unanswerable golden questions that returned passages"),
    ("cost_mean_usd", "USD", "mean agent cost per inquiry"),
    ("judge_cost_mean_usd", "USD", "mean judge cost per inquiry"),
    ("latency_mean_ms", "ms", "mean wall time per inquiry"),
    ("latency_p50_ms", "ms", "median wall time per inquiry"),
    ("latency_p95_ms", "ms", "95th percentile wall time per inquiry"),
];

/// A measured (or unmeasured) metric.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
        }
    }

    /// A metric with nothing to count in this selection (shown `n/a`; the gate
    /// neither passes nor fails on it).
    pub fn not_applicable(name: &str) -> Self {
        Self { applicable: false, ..Self::new(name, None, "not applicable: nothing in this selection to count") }
    }

    /// A ratio `num/den`; not applicable when `den` is 0.
    pub fn ratio(name: &str, num: usize, den: usize) -> Self {
        if den == 0 {
            Self::not_applicable(name)
        } else {
            Self::new(name, Some(num as f64 / den as f64), format!("{num}/{den}"))
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
                _ => format!("{v}"),
            },
        }
    }
}

/// Bounds of one metric.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
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
        let text =
            std::fs::read_to_string(path).map_err(|e| anyhow::anyhow!("{}: cannot read: {e}", path.display()))?;
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
