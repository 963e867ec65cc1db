//! Statistics for eval figures: pure functions with test vectors.
//!
//! - [`wilson`]: the Wilson score interval of a proportion (95% by default),
//!   shown beside every ratio metric.
//! - [`mcnemar_exact`]: the exact two-sided McNemar test on paired pass/fail
//!   outcomes (b = pass→fail, c = fail→pass).
//! - [`sign_flip_test`]: a paired sign-flip randomization test on per-case
//!   differences (exact up to 20 non-zero differences, else seeded draws).
//! - [`bootstrap_mean_interval`]: a percentile bootstrap interval of a mean,
//!   resampling cases (the case, not the run, is the unit); applied to
//!   per-question differences it is the paired bootstrap.
//! - [`quantile`]: the linear-interpolation quantile of sorted values.
//! - [`pass_at_k`], [`pass_hat_k`]: the unbiased estimators of pass@k and
//!   pass^k from n runs with c passes (Chen et al. 2021; τ-bench).
//! - [`cohen_kappa`]: agreement of two raters on binary labels beyond chance.
//! - [`dist`]: normal and Student t CDFs and quantiles.
//! - [`cluster`]: cluster-robust standard errors, the design effect and the
//!   interval of every suite-level rate.
//! - [`paired`]: the paired difference of two runs' case pass rates, its
//!   interval, the non-inferiority decision, Benjamini–Hochberg.
//! - [`agreement`]: Fleiss' κ for more than two raters, the bootstrap interval
//!   of any statistic over resampled units.
//! - [`ppi`]: the prediction-powered (judge-corrected) mean of a rate.
//! - [`power`]: within/between-case variance, the minimum detectable
//!   effect, and the cases or repeats needed for a target drop.

use serde::{Deserialize, Serialize};

pub mod agreement;
pub mod cluster;
pub mod dist;
pub mod paired;
pub mod power;
pub mod ppi;

/// z for a two-sided 95% interval.
pub const Z95: f64 = 1.959_963_984_540_054;

/// A closed interval `[lo, hi]`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Interval {
    /// Lower end.
    pub lo: f64,
    /// Upper end.
    pub hi: f64,
}

/// Wilson score interval for `successes` out of `n` at normal quantile `z`
/// (use [`Z95`]). `None` when `n` is 0.
///
/// Test vectors: 5/5 → [0.566, 1.000]; 48/49 → [0.893, 0.996].
pub fn wilson(successes: usize, n: usize, z: f64) -> Option<Interval> {
    if n == 0 {
        return None;
    }
    wilson_rate(successes.min(n) as f64 / n as f64, n, z)
}

/// Wilson score interval for an observed rate `p` (0..1, may be a mean of
/// rates) over `n` independent units; `None` when `n` is 0 or `p` is not finite.
///
/// Test vector: p = 1.0, n = 1 → [0.207, 1.000].
pub fn wilson_rate(p: f64, n: usize, z: f64) -> Option<Interval> {
    wilson_rate_n(p, n as f64, z)
}

/// Wilson score interval for a rate `p` at an effective sample size `n`
/// (not necessarily whole: a count divided by a design effect); `None` when
/// `n` is not positive or `p` is not finite.
pub fn wilson_rate_n(p: f64, n: f64, z: f64) -> Option<Interval> {
    if n.is_nan() || n <= 0.0 || !p.is_finite() {
        return None;
    }
    let p = p.clamp(0.0, 1.0);
    let n_f = n;
    let z2 = z * z;
    let denom = 1.0 + z2 / n_f;
    let centre = (p + z2 / (2.0 * n_f)) / denom;
    let half = z * ((p * (1.0 - p) / n_f) + z2 / (4.0 * n_f * n_f)).sqrt() / denom;
    Some(Interval { lo: (centre - half).max(0.0), hi: (centre + half).min(1.0) })
}

/// Binomial coefficient C(n, k) as f64 (exact for the sizes used here).
pub fn choose(n: u64, k: u64) -> f64 {
    if k > n {
        return 0.0;
    }
    let k = k.min(n - k);
    (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
}

/// P(X ≤ x) for X ~ Binomial(n, ½).
fn binomial_half_cdf(x: u64, n: u64) -> f64 {
    // Sum in log space would be safer for huge n; eval suites stay in the
    // thousands, where f64 terms of C(n, i)·2^-n underflow only in the tails.
    let ln2 = std::f64::consts::LN_2;
    (0..=x.min(n)).map(|i| (ln_choose(n, i) - n as f64 * ln2).exp()).sum::<f64>().min(1.0)
}

fn ln_choose(n: u64, k: u64) -> f64 {
    let k = k.min(n - k);
    (0..k).map(|i| ((n - i) as f64).ln() - ((i + 1) as f64).ln()).sum()
}

/// Exact two-sided McNemar test: `p = min(1, 2·P(X ≤ min(b, c)))` with
/// `X ~ Binomial(b + c, ½)`; 1 when there are no discordant pairs.
///
/// Test vectors: b=5, c=0 → 0.0625; b=10, c=2 → 0.0386.
pub fn mcnemar_exact(b: usize, c: usize) -> f64 {
    let n = (b + c) as u64;
    if n == 0 {
        return 1.0;
    }
    (2.0 * binomial_half_cdf(b.min(c) as u64, n)).min(1.0)
}

/// Unbiased pass@k from `n` runs with `c` passes: `1 − C(n−c, k)/C(n, k)`.
/// `None` when `k` is 0 or above `n`.
///
/// Test vector: n=5, c=1, k=2 → 0.4.
pub fn pass_at_k(n: usize, c: usize, k: usize) -> Option<f64> {
    (k >= 1 && k <= n && c <= n).then(|| 1.0 - choose((n - c) as u64, k as u64) / choose(n as u64, k as u64))
}

/// Unbiased pass^k (all k of k runs pass) from `n` runs with `c` passes:
/// `C(c, k)/C(n, k)`. `None` when `k` is 0 or above `n`.
///
/// Test vector: n=5, c=3, k=2 → 0.3.
pub fn pass_hat_k(n: usize, c: usize, k: usize) -> Option<f64> {
    (k >= 1 && k <= n && c <= n).then(|| choose(c as u64, k as u64) / choose(n as u64, k as u64))
}

/// SplitMix64: a small, fixed, seedable generator so randomization tests and
/// bootstrap intervals are reproducible run to run.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// A uniform index below `n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// Seed of every randomized figure (fixed: a report is reproducible).
pub const SEED: u64 = 0x1A2B_3C4D_2026_1201;

/// How a sign-flip p-value was computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SignFlipMethod {
    /// Every one of the 2^m sign assignments of the m non-zero differences.
    Exact,
    /// 10,000 seeded random assignments (more than 20 non-zero differences).
    Sampled,
}

/// Paired sign-flip randomization test of "mean difference = 0", two-sided.
/// Zero differences carry no sign and are left out of the enumeration. With
/// at most 20 non-zero differences every assignment is enumerated; otherwise
/// 10,000 draws seeded with [`SEED`] give `(hits + 1) / (draws + 1)`.
/// Returns `(p, method)`; p is 1 when every difference is 0.
pub fn sign_flip_test(diffs: &[f64]) -> (f64, SignFlipMethod) {
    let nz: Vec<f64> = diffs.iter().copied().filter(|d| d.abs() > 1e-12).collect();
    if nz.is_empty() {
        return (1.0, SignFlipMethod::Exact);
    }
    let observed = nz.iter().sum::<f64>().abs();
    let tol = 1e-9 * (1.0 + observed);
    if nz.len() <= 20 {
        let total = 1u64 << nz.len();
        let hits = (0..total)
            .filter(|mask| {
                let s: f64 = nz.iter().enumerate().map(|(i, d)| if mask >> i & 1 == 1 { -d } else { *d }).sum();
                s.abs() >= observed - tol
            })
            .count();
        (hits as f64 / total as f64, SignFlipMethod::Exact)
    } else {
        let draws = 10_000;
        let mut rng = SplitMix64::new(SEED);
        let hits = (0..draws)
            .filter(|_| {
                let s: f64 = nz.iter().map(|d| if rng.next_u64() & 1 == 1 { -d } else { *d }).sum();
                s.abs() >= observed - tol
            })
            .count();
        ((hits + 1) as f64 / (draws + 1) as f64, SignFlipMethod::Sampled)
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

/// 95% percentile bootstrap interval of the mean of `values` (10,000
/// resamples of the values, seeded with [`SEED`]). `None` when empty.
pub fn bootstrap_mean_interval(values: &[f64]) -> Option<Interval> {
    if values.is_empty() {
        return None;
    }
    let mut rng = SplitMix64::new(SEED);
    let n = values.len();
    let mut means: Vec<f64> =
        (0..10_000).map(|_| (0..n).map(|_| values[rng.below(n)]).sum::<f64>() / n as f64).collect();
    means.sort_by(f64::total_cmp);
    Some(Interval { lo: means[249], hi: means[9_749] })
}

/// Cohen's κ of two raters on the same binary items: `(po − pe)/(1 − pe)`,
/// with `pe` from each rater's own base rate. `None` when there are no items
/// or when chance agreement is 1 (both raters gave one label to everything).
pub fn cohen_kappa(pairs: &[(bool, bool)]) -> Option<f64> {
    if pairs.is_empty() {
        return None;
    }
    let n = pairs.len() as f64;
    let po = pairs.iter().filter(|(a, b)| a == b).count() as f64 / n;
    let pa = pairs.iter().filter(|(a, _)| *a).count() as f64 / n;
    let pb = pairs.iter().filter(|(_, b)| *b).count() as f64 / n;
    let pe = pa * pb + (1.0 - pa) * (1.0 - pb);
    ((1.0 - pe).abs() > 1e-12).then(|| (po - pe) / (1.0 - pe))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn wilson_vectors() {
        let w = wilson(5, 5, Z95).unwrap();
        assert!(close(w.lo, 0.566, 0.0005) && close(w.hi, 1.0, 1e-12), "{w:?}");
        let w = wilson(48, 49, Z95).unwrap();
        assert!(close(w.lo, 0.893, 0.0005) && close(w.hi, 0.996, 0.0005), "{w:?}");
        let w = wilson(0, 10, Z95).unwrap();
        assert!(close(w.lo, 0.0, 1e-12) && close(w.hi, 0.2775, 0.0005), "{w:?}");
        assert_eq!(wilson(0, 0, Z95), None);
        let w = wilson_rate(1.0, 1, Z95).unwrap();
        assert!(close(w.lo, 0.2065, 0.0005) && close(w.hi, 1.0, 1e-12), "{w:?}");
        assert_eq!(wilson_rate(f64::NAN, 3, Z95), None);
        assert_eq!(wilson_rate(0.5, 0, Z95), None);
    }

    #[test]
    fn mcnemar_vectors() {
        assert!(close(mcnemar_exact(5, 0), 0.0625, 1e-12));
        assert!(close(mcnemar_exact(0, 5), 0.0625, 1e-12));
        assert!(close(mcnemar_exact(10, 2), 0.0386, 0.00005), "{}", mcnemar_exact(10, 2));
        assert_eq!(mcnemar_exact(0, 0), 1.0);
        assert_eq!(mcnemar_exact(3, 3), 1.0);
    }

    #[test]
    fn pass_at_k_vectors() {
        assert!(close(pass_hat_k(5, 3, 2).unwrap(), 0.3, 1e-12));
        assert!(close(pass_at_k(5, 1, 2).unwrap(), 0.4, 1e-12));
        assert_eq!(pass_at_k(5, 5, 3), Some(1.0));
        assert_eq!(pass_hat_k(5, 0, 1), Some(0.0));
        assert_eq!(pass_at_k(3, 1, 4), None);
        // k = 1 is the plain pass rate for both.
        assert!(close(pass_at_k(4, 3, 1).unwrap(), 0.75, 1e-12));
        assert!(close(pass_hat_k(4, 3, 1).unwrap(), 0.75, 1e-12));
    }

    #[test]
    fn sign_flip_exact_and_sampled() {
        // Five cases all worse by one: 2 of 32 assignments are as extreme.
        let (p, m) = sign_flip_test(&[-1.0; 5]);
        assert_eq!(m, SignFlipMethod::Exact);
        assert!(close(p, 2.0 / 32.0, 1e-12));
        assert_eq!(sign_flip_test(&[0.0, 0.0]).0, 1.0);
        let (p, m) = sign_flip_test(&[0.5, -0.5]);
        assert!(close(p, 1.0, 1e-12) && m == SignFlipMethod::Exact);
        let (p, m) = sign_flip_test(&[-1.0; 30]);
        assert_eq!(m, SignFlipMethod::Sampled);
        assert!(p < 0.001, "{p}");
        assert_eq!(sign_flip_test(&[-1.0; 30]).0, p, "seeded: the same p every time");
    }

    #[test]
    fn bootstrap_interval_brackets_the_mean() {
        let v = [0.0, 0.2, -0.2, 0.4, 0.0, -0.4, 0.2, 0.0];
        let i = bootstrap_mean_interval(&v).unwrap();
        assert!(i.lo < 0.0 && i.hi > 0.0, "{i:?}");
        let same = bootstrap_mean_interval(&[0.5; 6]).unwrap();
        assert!(close(same.lo, 0.5, 1e-12) && close(same.hi, 0.5, 1e-12));
    }

    #[test]
    fn quantiles_match_numpy_linear() {
        let v = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(quantile(&v, 0.5), 2.5);
        assert!(close(quantile(&v, 0.025), 1.075, 1e-12));
        assert_eq!(quantile(&v, 1.0), 4.0);
        assert!(quantile(&[], 0.5).is_nan());
    }

    #[test]
    fn kappa() {
        assert_eq!(cohen_kappa(&[(true, true), (false, false)]), Some(1.0));
        // Raw agreement 0.8 at base rates 0.8/0.8 is only κ 0.375.
        let pairs: Vec<(bool, bool)> =
            [(true, true); 7].into_iter().chain([(true, false), (false, true), (false, false)]).collect();
        let k = cohen_kappa(&pairs).unwrap();
        assert!(close(k, (0.8 - 0.68) / 0.32, 1e-9), "{k}");
        assert_eq!(cohen_kappa(&[(true, true); 4]), None, "chance agreement is 1");
        assert_eq!(cohen_kappa(&[]), None);
    }
}
