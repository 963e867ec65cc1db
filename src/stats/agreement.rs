//! Agreement among several raters on binary labels, and a percentile
//! bootstrap interval for any statistic of resampled units.
//!
//! - [`fleiss_kappa`]: Fleiss' κ (Fleiss 1971) for a fixed number of raters
//!   per item; with two raters it is Scott's π, close to (not equal to)
//!   Cohen's κ ([`super::cohen_kappa`]), which each report uses for two.
//! - [`bootstrap_interval`]: 95% percentile interval of a statistic over
//!   units drawn with replacement (the unit is a reply, so items of one
//!   reply stay together); seeded with [`super::SEED`], so reproducible.
//!
//! Test vectors are recomputed independently by `scripts/review_vectors.py`.

use super::{Interval, SplitMix64, SEED};

/// Fleiss' κ of `m` raters on binary items: `ratings[i]` holds every rater's
/// label of item *i* (each inner slice the same length `m` ≥ 2).
/// `κ = (P̄ − P̄e)/(1 − P̄e)` with `P̄` the mean pairwise agreement per item and
/// `P̄e = p² + (1 − p)²` from the pooled share `p` of `true` labels.
/// `None` when there are no items, fewer than two raters, items with
/// different numbers of raters, or chance agreement of 1 (every label equal).
///
/// Test vector (`scripts/review_vectors.py`): 10 items × 3 raters → 0.4444.
pub fn fleiss_kappa(ratings: &[Vec<bool>]) -> Option<f64> {
    let m = ratings.first()?.len();
    if m < 2 || ratings.iter().any(|r| r.len() != m) {
        return None;
    }
    let n = ratings.len() as f64;
    let mf = m as f64;
    let mut agree = 0.0;
    let mut yes_total = 0usize;
    for item in ratings {
        let yes = item.iter().filter(|r| **r).count();
        yes_total += yes;
        let (y, no) = (yes as f64, (m - yes) as f64);
        agree += (y * (y - 1.0) + no * (no - 1.0)) / (mf * (mf - 1.0));
    }
    let p_bar = agree / n;
    let p = yes_total as f64 / (n * mf);
    let pe = p * p + (1.0 - p) * (1.0 - p);
    ((1.0 - pe).abs() > 1e-12).then(|| (p_bar - pe) / (1.0 - pe))
}

/// Number of bootstrap resamples of [`bootstrap_interval`].
pub const BOOTSTRAP_RESAMPLES: usize = 2_000;

/// 95% percentile bootstrap interval of `stat` over `units`: 2,000 resamples
/// of the units with replacement (seeded with [`SEED`]); resamples where the
/// statistic is undefined (`None`, e.g. κ when every label is equal) are
/// left out. `None` when `units` is empty, `stat` is undefined on the data
/// themselves, or fewer than half of the resamples give a value.
pub fn bootstrap_interval<T>(units: &[T], stat: impl Fn(&[&T]) -> Option<f64>) -> Option<Interval> {
    if units.is_empty() {
        return None;
    }
    let all: Vec<&T> = units.iter().collect();
    stat(&all)?;
    let mut rng = SplitMix64::new(SEED);
    let n = units.len();
    let mut values: Vec<f64> = Vec::with_capacity(BOOTSTRAP_RESAMPLES);
    let mut draw: Vec<&T> = Vec::with_capacity(n);
    for _ in 0..BOOTSTRAP_RESAMPLES {
        draw.clear();
        draw.extend((0..n).map(|_| &units[rng.below(n)]));
        if let Some(v) = stat(&draw).filter(|v| v.is_finite()) {
            values.push(v);
        }
    }
    if values.len() * 2 < BOOTSTRAP_RESAMPLES {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let at = |q: f64| values[((q * (values.len() - 1) as f64).round() as usize).min(values.len() - 1)];
    Some(Interval { lo: at(0.025), hi: at(0.975) })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The ratings of `scripts/review_vectors.py` (`FLEISS_TABLE`): rows are
    /// items, columns raters.
    pub(crate) fn fleiss_table() -> Vec<Vec<bool>> {
        [[1, 1, 1], [1, 1, 0], [0, 0, 0], [1, 1, 1], [0, 1, 0], [1, 1, 1], [0, 0, 0], [1, 0, 1], [1, 1, 1], [0, 0, 1]]
            .iter()
            .map(|r| r.iter().map(|v| *v == 1).collect())
            .collect()
    }

    #[test]
    fn fleiss_vectors() {
        // Independently: scripts/review_vectors.py, section "fleiss".
        let k = fleiss_kappa(&fleiss_table()).unwrap();
        assert!((k - 0.4444444444444443).abs() < 1e-9, "{k}");
        // Two raters: Scott's π; on a 2x2 table with equal margins it equals Cohen's κ.
        let two: Vec<Vec<bool>> = vec![vec![true, true], vec![false, false], vec![true, false], vec![false, true]];
        let pi = fleiss_kappa(&two).unwrap();
        assert!(pi.abs() < 1e-12, "{pi}");
        // Cohen's κ of the first two raters (the same script).
        let pairs: Vec<(bool, bool)> = fleiss_table().iter().map(|r| (r[0], r[1])).collect();
        assert!((crate::stats::cohen_kappa(&pairs).unwrap() - 0.5833333333333334).abs() < 1e-9);
        assert_eq!(fleiss_kappa(&vec![vec![true, true, true]; 4]), None, "chance agreement is 1");
        assert_eq!(fleiss_kappa(&[vec![true, false], vec![true]]), None, "unequal raters");
        assert_eq!(fleiss_kappa(&[]), None);
        assert_eq!(fleiss_kappa(&[vec![true]]), None, "one rater");
    }

    #[test]
    fn bootstrap_brackets_the_statistic_and_is_seeded() {
        let table = fleiss_table();
        let f = |rows: &[&Vec<bool>]| fleiss_kappa(&rows.iter().map(|r| (*r).clone()).collect::<Vec<_>>());
        let i = bootstrap_interval(&table, f).unwrap();
        assert!(i.lo < 0.4444444444444443 && 0.4444444444444443 < i.hi && i.lo >= -1.0 && i.hi <= 1.0, "{i:?}");
        assert_eq!(bootstrap_interval(&table, f), Some(i), "seeded: the same interval every time");
        let mean = |rows: &[&f64]| Some(rows.iter().copied().sum::<f64>() / rows.len() as f64);
        assert_eq!(bootstrap_interval(&[0.5; 5], mean), Some(Interval { lo: 0.5, hi: 0.5 }));
        assert_eq!(bootstrap_interval::<f64>(&[], mean), None);
        assert_eq!(bootstrap_interval(&vec![vec![true, true]; 3], f), None, "undefined on the data");
    }
}
