//! How much a signal's proposed threshold moves when the golden set is
//! drawn again: a stratified bootstrap (answerable and unanswerable questions
//! each resampled with replacement, 2,000 seeded draws) of the single-signal
//! rule the leave-one-out uses (the midpoint between the lowest answerable
//! and the highest unanswerable score when they separate, else the lowest
//! answerable score). The margin is then given in units of the spread
//! (its standard deviation over the draws).

use serde::{Deserialize, Serialize};

use super::QuestionScore;
use crate::stats::{quantile, SplitMix64};

/// Draws of the bootstrap.
pub const BOOTSTRAP_DRAWS: usize = 2_000;

/// The bootstrap distribution of one signal's proposed threshold.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stability {
    /// Draws that produced a threshold.
    pub draws: usize,
    /// Median threshold over the draws.
    pub median: f64,
    /// 2.5th percentile.
    pub lower: f64,
    /// 97.5th percentile.
    pub upper: f64,
    /// Standard deviation over the draws.
    pub sd: f64,
    /// Draws in which the rule separated (lowest answerable above highest unanswerable), as a share.
    pub separated_share: f64,
    /// The margin divided by `sd` (`None` when the spread is 0 or the signal does not separate).
    pub margin_in_sd: Option<f64>,
}

/// The single-signal rule on per-question scores: (threshold, separated).
pub(super) fn rule(answerable: &[Option<f64>], unanswerable: &[Option<f64>]) -> Option<(f64, bool)> {
    let lo = answerable.iter().map(|s| s.unwrap_or(f64::NEG_INFINITY)).fold(f64::INFINITY, f64::min);
    let hi = unanswerable.iter().filter_map(|s| *s).fold(f64::NEG_INFINITY, f64::max);
    match (lo.is_finite(), hi.is_finite()) {
        (true, true) if lo > hi => Some(((lo + hi) / 2.0, true)),
        (true, true) => Some((lo, false)),
        _ => None,
    }
}

/// The bootstrap of [`rule`] over a signal's per-question scores; `None`
/// when a side is empty or no draw gives a threshold.
pub(super) fn stability(
    answerable: &[QuestionScore],
    unanswerable: &[QuestionScore],
    margin: Option<f64>,
    seed: u64,
) -> Option<Stability> {
    let a: Vec<Option<f64>> = answerable.iter().map(|q| q.score).collect();
    let u: Vec<Option<f64>> = unanswerable.iter().map(|q| q.score).collect();
    if a.is_empty() || u.is_empty() {
        return None;
    }
    let mut rng = SplitMix64::new(seed);
    let (mut ts, mut separated) = (vec![], 0usize);
    for _ in 0..BOOTSTRAP_DRAWS {
        let da: Vec<Option<f64>> = (0..a.len()).map(|_| a[rng.below(a.len())]).collect();
        let du: Vec<Option<f64>> = (0..u.len()).map(|_| u[rng.below(u.len())]).collect();
        if let Some((t, sep)) = rule(&da, &du) {
            ts.push(t);
            separated += usize::from(sep);
        }
    }
    if ts.is_empty() {
        return None;
    }
    ts.sort_by(f64::total_cmp);
    let mean = ts.iter().sum::<f64>() / ts.len() as f64;
    let sd = (ts.iter().map(|t| (t - mean).powi(2)).sum::<f64>() / (ts.len().max(2) - 1) as f64).sqrt();
    Some(Stability {
        draws: ts.len(),
        median: quantile(&ts, 0.5),
        lower: quantile(&ts, 0.025),
        upper: quantile(&ts, 0.975),
        sd,
        separated_share: separated as f64 / BOOTSTRAP_DRAWS as f64,
        margin_in_sd: margin.filter(|m| *m > 0.0 && sd > 1e-12).map(|m| m / sd),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn qs(v: &[f64]) -> Vec<QuestionScore> {
        v.iter()
            .enumerate()
            .map(|(i, s)| QuestionScore {
                id: format!("q{i}"),
                question: String::new(),
                score: Some(*s),
                rank: None,
                chunk: None,
                ok_at_proposal: None,
            })
            .collect()
    }

    #[test]
    fn rule_by_hand() {
        assert_eq!(rule(&[Some(0.5), Some(0.7)], &[Some(0.1), None]), Some((0.3, true)));
        assert_eq!(rule(&[Some(0.2)], &[Some(0.4)]), Some((0.2, false)));
        assert_eq!(rule(&[None], &[Some(0.4)]), None);
    }

    #[test]
    fn a_wide_gap_is_stable_and_a_narrow_one_is_not() {
        let wide = stability(&qs(&[0.9, 0.95, 0.92, 0.97]), &qs(&[0.1, 0.12, 0.05]), Some(0.78), 1).unwrap();
        assert_eq!(wide.separated_share, 1.0);
        assert!(wide.lower >= 0.45 && wide.upper <= 0.55, "{wide:?}");
        let narrow = stability(&qs(&[0.31, 0.6, 0.8]), &qs(&[0.3, 0.05]), Some(0.01), 1).unwrap();
        assert!(narrow.margin_in_sd.unwrap() < 1.0, "{narrow:?}");
        assert_eq!(narrow, stability(&qs(&[0.31, 0.6, 0.8]), &qs(&[0.3, 0.05]), Some(0.01), 1).unwrap());
    }
}
