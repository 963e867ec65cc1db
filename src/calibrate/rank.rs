//! Rank metrics of one signal on the answerable questions, with intervals:
//! recall@1 and recall@5 with exact Clopper–Pearson 95% intervals, mean
//! reciprocal rank and nDCG@5 with percentile-bootstrap 95% intervals
//! (questions resampled with replacement, 2,000 seeded draws).
//!
//! Ranks are by the signal alone over the question's candidates, before any
//! threshold: they say how well the signal orders passages, not whether it
//! keeps them. nDCG@5 uses binary relevance (an expected chunk is relevant):
//! `DCG = Σ_{i≤5} rel_i / log2(i+1)`, divided by the ideal DCG for
//! `min(|expected|, 5)` relevant chunks (Järvelin & Kekäläinen 2002).

use serde::{Deserialize, Serialize};

use super::bounds::{clopper_pearson, Interval};
use super::{Scored, Signal};

/// Draws of the bootstrap intervals.
pub const BOOTSTRAP_DRAWS: usize = 2_000;

/// A mean with a percentile-bootstrap 95% interval.
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

/// SplitMix64 (Steele, Lea & Flood 2014): a small seeded generator, so
/// every report of the same scores shows the same intervals.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }
    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// A uniform index below `n` (`n > 0`; multiply-shift, bias below 2^-32 for small `n`).
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }
}

/// The `q`-quantile (0..1) of sorted values, linear between neighbours
/// (NumPy's default); NaN for an empty slice.
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let pos = q.clamp(0.0, 1.0) * (sorted.len() - 1) as f64;
    let (i, f) = (pos.floor() as usize, pos - pos.floor());
    if i + 1 < sorted.len() {
        sorted[i] + f * (sorted[i + 1] - sorted[i])
    } else {
        sorted[i]
    }
}

/// The mean of `values` with a percentile-bootstrap 95% interval.
pub fn bootstrap_mean(values: &[f64], seed: u64) -> Estimate {
    if values.is_empty() {
        return Estimate { value: 0.0, lower: 0.0, upper: 0.0 };
    }
    let n = values.len();
    let mean = values.iter().sum::<f64>() / n as f64;
    let mut rng = SplitMix64::new(seed);
    let mut means: Vec<f64> =
        (0..BOOTSTRAP_DRAWS).map(|_| (0..n).map(|_| values[rng.below(n)]).sum::<f64>() / n as f64).collect();
    means.sort_by(f64::total_cmp);
    Estimate { value: mean, lower: quantile(&means, 0.025), upper: quantile(&means, 0.975) }
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
    let seed = 0x5EED_0000 + signal as u64;
    RankMetrics {
        recall_at_1: clopper_pearson(r1, n, 0.95),
        recall_at_5: clopper_pearson(r5, n, 0.95),
        mrr: bootstrap_mean(&rr, seed),
        ndcg_at_5: bootstrap_mean(&nd, seed + 17),
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
    fn quantiles_match_numpy_linear() {
        let v = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(quantile(&v, 0.5), 2.5);
        assert!((quantile(&v, 0.025) - 1.075).abs() < 1e-12);
        assert_eq!(quantile(&v, 1.0), 4.0);
    }

    #[test]
    fn bootstrap_is_seeded_and_brackets_the_mean() {
        let v: Vec<f64> = (0..40).map(|i| f64::from(i % 3 == 0)).collect();
        let a = bootstrap_mean(&v, 7);
        assert_eq!(a, bootstrap_mean(&v, 7));
        assert!((a.value - 14.0 / 40.0).abs() < 1e-12);
        assert!(a.lower < a.value && a.value < a.upper && a.lower > 0.15 && a.upper < 0.55, "{a:?}");
        let constant = bootstrap_mean(&[1.0; 5], 1);
        assert_eq!((constant.lower, constant.upper), (1.0, 1.0));
    }
}
