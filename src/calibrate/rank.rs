//! Rank metrics of one signal on the answerable questions, with intervals:
//! recall@1 and recall@5 with exact Clopper–Pearson 95% intervals, mean
//! reciprocal rank and nDCG@5 with percentile-bootstrap 95% intervals
//! (questions resampled with replacement: [`crate::stats::bootstrap_mean_interval`]).
//!
//! Ranks are by the signal alone over the question's candidates, before any
//! threshold: they say how well the signal orders passages, not whether it
//! keeps them. nDCG@5 uses binary relevance (an expected chunk is relevant):
//! `DCG = Σ_{i≤5} rel_i / log2(i+1)`, divided by the ideal DCG for
//! `min(|expected|, 5)` relevant chunks (Järvelin & Kekäläinen 2002).

use serde::{Deserialize, Serialize};

use super::bounds::{clopper_pearson, Interval};
use super::{Scored, Signal};

/// A mean with a percentile-bootstrap 95% interval
/// ([`crate::stats::bootstrap_mean_interval`]: 10,000 seeded resamples of the questions).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    /// The mean over the questions.
    pub value: f64,
    /// 2.5th percentile of the bootstrap means.
    pub lower: f64,
    /// 97.5th percentile of the bootstrap means.
    pub upper: f64,
}

/// One signal's rank metrics over the answerable questions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RankMetrics {
    /// An expected chunk ranked first.
    pub recall_at_1: Interval,
    /// An expected chunk in the top 5.
    pub recall_at_5: Interval,
    /// Mean of 1/rank of the best expected chunk (0 when none is a candidate).
    pub mrr: Estimate,
    /// Mean nDCG@5.
    pub ndcg_at_5: Estimate,
}

/// The mean of `values` with its percentile-bootstrap 95% interval (0 with
/// an empty interval at 0 when there are no values).
pub fn bootstrap_mean(values: &[f64]) -> Estimate {
    match crate::stats::bootstrap_mean_interval(values) {
        Some(i) => Estimate { value: values.iter().sum::<f64>() / values.len() as f64, lower: i.lo, upper: i.hi },
        None => Estimate { value: 0.0, lower: 0.0, upper: 0.0 },
    }
}

/// nDCG@5 of a ranking given as "is relevant" flags, with `relevant` relevant items in all.
pub fn ndcg_at_5(flags: &[bool], relevant: usize) -> f64 {
    let gain = |i: usize| 1.0 / ((i + 2) as f64).log2();
    let dcg: f64 = flags.iter().take(5).enumerate().filter(|(_, r)| **r).map(|(i, _)| gain(i)).sum();
    let ideal: f64 = (0..relevant.min(5)).map(gain).sum();
    if ideal > 0.0 {
        dcg / ideal
    } else {
        0.0
    }
}

/// Rank metrics of `signal` over the answerable questions of `qs`.
pub(super) fn rank_metrics(qs: &[&Scored], signal: Signal) -> RankMetrics {
    let (mut r1, mut r5, mut rr, mut nd) = (0u64, 0u64, vec![], vec![]);
    let mut n = 0u64;
    for q in qs.iter().filter(|q| q.answerable) {
        n += 1;
        let mut ranked: Vec<(&String, f64)> =
            q.candidates.iter().filter_map(|(id, c)| signal.of(c).map(|s| (id, s))).collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
        let flags: Vec<bool> = ranked.iter().map(|(id, _)| q.expected.contains(id)).collect();
        let first = flags.iter().position(|f| *f);
        r1 += u64::from(first == Some(0));
        r5 += u64::from(first.is_some_and(|i| i < 5));
        rr.push(first.map_or(0.0, |i| 1.0 / (i + 1) as f64));
        nd.push(ndcg_at_5(&flags, q.expected.len()));
    }
    RankMetrics {
        recall_at_1: clopper_pearson(r1, n, 0.95),
        recall_at_5: clopper_pearson(r5, n, 0.95),
        mrr: bootstrap_mean(&rr),
        ndcg_at_5: bootstrap_mean(&nd),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ndcg_by_hand() {
        assert!((ndcg_at_5(&[true], 1) - 1.0).abs() < 1e-12);
        // Relevant at rank 2 of 1 relevant: 1/log2(3).
        assert!((ndcg_at_5(&[false, true], 1) - 0.630_929_753_571_457_5).abs() < 1e-12);
        // Two relevant, found at ranks 1 and 3: (1 + 0.5) / (1 + 1/log2 3).
        let v = ndcg_at_5(&[true, false, true], 2);
        assert!((v - 1.5 / (1.0 + 0.630_929_753_571_457_5)).abs() < 1e-12, "{v}");
        assert_eq!(ndcg_at_5(&[false, false, false, false, false, true], 1), 0.0);
    }

    #[test]
    fn bootstrap_is_seeded_and_brackets_the_mean() {
        let v: Vec<f64> = (0..40).map(|i| f64::from(i % 3 == 0)).collect();
        let a = bootstrap_mean(&v);
        assert_eq!(a, bootstrap_mean(&v));
        assert!((a.value - 14.0 / 40.0).abs() < 1e-12);
        assert!(a.lower < a.value && a.value < a.upper && a.lower > 0.15 && a.upper < 0.55, "{a:?}");
        let constant = bootstrap_mean(&[1.0; 5]);
        assert_eq!((constant.lower, constant.upper), (1.0, 1.0));
    }
}
