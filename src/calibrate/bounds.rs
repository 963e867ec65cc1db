//! Exact binomial bounds and the distribution-free threshold rule behind
//! `calibrate`'s guarantee. Pure functions; test vectors from SciPy
//! (`scripts/calibrate_vectors.py`).
//!
//! - **Clopper–Pearson** (Clopper & Pearson 1934, *Biometrika* 26:404): the
//!   exact interval for a binomial proportion. With `k` of `n`, the two-sided
//!   `1 − a` interval is `[B(a/2; k, n−k+1), B(1−a/2; k+1, n−k)]`, where
//!   `B(q; x, y)` is the Beta quantile; the lower end is 0 when `k = 0`, the
//!   upper 1 when `k = n`. Computed here by bisection on the binomial tail,
//!   which is the same equation: the upper end `p` solves `P(X ≤ k; n, p) = a/2`.
//! - **The PAC / training-conditional conformal threshold** (Vovk 2012,
//!   "Conditional validity of inductive conformal predictors", Prop. 2a; in the
//!   form of Bates, Angelopoulos, Lei, Malik & Jordan 2021, "Distribution-free,
//!   risk-controlling prediction sets", with the exact binomial bound): score
//!   `n` unanswerable questions, sort their scores from the top, and set the
//!   threshold just above the `(k+1)`-th highest. The rate `F` at which a new
//!   unanswerable question (exchangeable with the golden ones) clears that
//!   threshold is distributed as `Beta(k+1, n−k)` (for continuous scores;
//!   ties only make it smaller), so `P(F > α) = P(Binomial(n, α) ≤ k)`.
//!   Choosing the largest `k` with `P(Binomial(n, α) ≤ k) ≤ δ` gives
//!   "false-positive rate at most `α`, with probability at least `1 − δ` over
//!   the golden set". It is the same as asking the one-sided Clopper–Pearson
//!   upper bound on `k/n` at confidence `1 − δ` to be at most `α`.

/// `ln P(X = i)` for `X ~ Binomial(n, p)`, `0 < p < 1`, for every `i ≤ k`.
fn log_pmf_upto(k: u64, n: u64, p: f64) -> Vec<f64> {
    let mut out = Vec::with_capacity(k as usize + 1);
    let (lp, lq) = (p.ln(), (-p).ln_1p());
    let mut t = n as f64 * lq;
    out.push(t);
    for i in 0..k.min(n) {
        t += ((n - i) as f64).ln() - ((i + 1) as f64).ln() + lp - lq;
        out.push(t);
    }
    out
}

/// `P(X ≤ k)` for `X ~ Binomial(n, p)`: the binomial lower tail, exact up to
/// floating point (summed in log space, so large `n` does not underflow).
pub fn binomial_cdf(k: u64, n: u64, p: f64) -> f64 {
    if k >= n || p <= 0.0 {
        return 1.0;
    }
    if p >= 1.0 {
        return 0.0;
    }
    let logs = log_pmf_upto(k, n, p);
    let m = logs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !m.is_finite() {
        return 0.0;
    }
    (m + logs.iter().map(|l| (l - m).exp()).sum::<f64>().ln()).exp().min(1.0)
}

/// The `p` in `[0, 1]` where a monotone `f(p)` crosses `target`
/// (`decreasing`: `f` falls with `p`); bisection to 1e-12.
fn solve(f: impl Fn(f64) -> f64, target: f64, decreasing: bool) -> f64 {
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..200 {
        let mid = (lo + hi) / 2.0;
        let above = f(mid) > target;
        if above == decreasing {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo < 1e-12 {
            break;
        }
    }
    (lo + hi) / 2.0
}

/// One-sided Clopper–Pearson upper bound on a proportion: the largest `p`
/// with `P(X ≤ k; n, p) ≥ 1 − confidence`. With `k = 0` it is
/// `1 − (1 − confidence)^(1/n)`. Returns 1 when `k ≥ n` or `n = 0`.
pub fn upper_bound(k: u64, n: u64, confidence: f64) -> f64 {
    if n == 0 || k >= n {
        return 1.0;
    }
    let a = 1.0 - confidence;
    if k == 0 {
        return 1.0 - a.powf(1.0 / n as f64);
    }
    solve(|p| binomial_cdf(k, n, p), a, true)
}

/// One-sided Clopper–Pearson lower bound: the smallest `p` with
/// `P(X ≥ k; n, p) ≥ 1 − confidence`. Returns 0 when `k = 0` or `n = 0`.
pub fn lower_bound(k: u64, n: u64, confidence: f64) -> f64 {
    if n == 0 || k == 0 {
        return 0.0;
    }
    let a = 1.0 - confidence;
    if k >= n {
        return a.powf(1.0 / n as f64);
    }
    // P(X >= k) = 1 - P(X <= k-1), rising with p.
    solve(|p| 1.0 - binomial_cdf(k - 1, n, p), a, false)
}

/// An exact two-sided interval for `k` of `n`.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Interval {
    /// Successes counted.
    pub k: u64,
    /// Trials.
    pub n: u64,
    /// `k / n` (0 when `n = 0`).
    pub rate: f64,
    /// Lower end.
    pub lower: f64,
    /// Upper end.
    pub upper: f64,
}

/// The two-sided Clopper–Pearson interval at `confidence` (e.g. 0.95: each
/// tail `(1 − confidence)/2`). With 0 of 12 at 95% it is `[0, 0.2646]`.
pub fn clopper_pearson(k: u64, n: u64, confidence: f64) -> Interval {
    let tail = 1.0 - (1.0 - confidence) / 2.0;
    Interval {
        k,
        n,
        rate: if n == 0 { 0.0 } else { k as f64 / n as f64 },
        lower: lower_bound(k, n, tail),
        upper: upper_bound(k, n, tail),
    }
}

/// The PAC conformal rule: the largest number `k` of the `n` calibration
/// (unanswerable) questions the threshold may let through so that the
/// false-positive rate is at most `alpha` with probability at least
/// `1 − delta`, i.e. the largest `k` with `P(Binomial(n, alpha) ≤ k) ≤ delta`.
/// `None` when even `k = 0` does not qualify (`(1 − alpha)^n > delta`): the
/// set is too small for this guarantee at any threshold.
pub fn conformal_allowance(n: u64, alpha: f64, delta: f64) -> Option<u64> {
    if n == 0 || !(0.0..1.0).contains(&alpha) || !(0.0..1.0).contains(&delta) {
        return None;
    }
    let mut best = None;
    for k in 0..n {
        if binomial_cdf(k, n, alpha) <= delta {
            best = Some(k);
        } else {
            break;
        }
    }
    best
}

/// Smallest number of unanswerable questions for which the conformal rule
/// can give "rate ≤ `alpha` with probability ≥ `1 − delta`" while letting
/// `k` of them through: the smallest `n` with `P(Binomial(n, alpha) ≤ k) ≤ delta`.
/// With `k = 0` this is `⌈ln δ / ln(1 − α)⌉` (59 for α = δ = 0.05).
/// `None` for parameters outside (0, 1) or beyond 10 million questions.
pub fn questions_needed(alpha: f64, delta: f64, k: u64) -> Option<u64> {
    if !(alpha > 0.0 && alpha < 1.0 && delta > 0.0 && delta < 1.0) {
        return None;
    }
    if k == 0 {
        let n = (delta.ln() / (-alpha).ln_1p()).ceil();
        // Guard the float edge: step to the first n that truly qualifies.
        let mut n = (n.max(1.0) as u64).saturating_sub(1).max(1);
        while binomial_cdf(0, n, alpha) > delta {
            n += 1;
        }
        return Some(n);
    }
    // P(Bin(n, α) ≤ k) falls as n grows: bisect on n.
    let (mut lo, mut hi) = (k + 1, k + 2);
    while binomial_cdf(k, hi, alpha) > delta {
        lo = hi;
        hi *= 2;
        if hi > 10_000_000 {
            return None;
        }
    }
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if binomial_cdf(k, mid, alpha) <= delta {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Some(lo)
}

/// Smallest `n` for which the two-sided Clopper–Pearson interval at
/// `confidence` around a rate of `rate` has a half-width of at most
/// `half_width` (e.g. answerable questions needed to know recall to ±5
/// points). Searched up to 100,000.
pub fn questions_for_precision(rate: f64, half_width: f64, confidence: f64) -> Option<u64> {
    let ok = |n: u64| {
        let k = (rate * n as f64).round() as u64;
        let i = clopper_pearson(k.min(n), n, confidence);
        (i.upper - i.lower) / 2.0 <= half_width
    };
    let mut hi = 1u64;
    while !ok(hi) {
        hi *= 2;
        if hi > 100_000 {
            return None;
        }
    }
    // Not strictly monotone at small n (rounding of k): scan the last stretch.
    (hi / 2..=hi).find(|&n| n > 0 && ok(n))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-6
    }

    /// Vectors from `scripts/calibrate_vectors.py` (scipy.stats.beta.ppf,
    /// scipy.stats.binom.cdf).
    #[test]
    fn clopper_pearson_matches_scipy() {
        let cases: [(u64, u64, f64, f64); 6] = [
            (0, 12, 0.0, 0.26464847),
            (0, 59, 0.0, 0.06060890),
            (3, 10, 0.06673951, 0.65245285),
            (42, 42, 0.91591615, 1.0),
            (46, 52, 0.76559168, 0.95645880),
            (1, 12, 0.00210759, 0.38479617),
        ];
        for (k, n, lo, hi) in cases {
            let i = clopper_pearson(k, n, 0.95);
            assert!(close(i.lower, lo) && close(i.upper, hi), "{k}/{n}: {i:?} vs [{lo}, {hi}]");
        }
        assert!(close(upper_bound(0, 12, 0.95), 0.22092219));
        assert!(close(upper_bound(2, 40, 0.95), 0.14915196));
    }

    #[test]
    fn binomial_tail_matches_scipy() {
        assert!(close(binomial_cdf(0, 12, 0.05), 0.540360088));
        assert!(close(binomial_cdf(3, 100, 0.05), 0.257838659));
        let tiny = binomial_cdf(7, 2000, 0.01);
        assert!((tiny / 7.45046658e-04 - 1.0).abs() < 1e-6, "{tiny}");
    }

    #[test]
    fn conformal_rule_matches_scipy() {
        assert_eq!(conformal_allowance(12, 0.05, 0.05), None);
        assert_eq!(conformal_allowance(58, 0.05, 0.05), None);
        assert_eq!(conformal_allowance(59, 0.05, 0.05), Some(0));
        assert_eq!(conformal_allowance(200, 0.05, 0.05), Some(4));
        assert_eq!(conformal_allowance(12, 0.25, 0.05), Some(0));
        assert_eq!(questions_needed(0.05, 0.05, 0), Some(59));
        assert_eq!(questions_needed(0.05, 0.05, 1), Some(93));
        assert_eq!(questions_needed(0.01, 0.05, 0), Some(299));
        assert_eq!(questions_needed(0.05, 0.10, 0), Some(45));
    }

    #[test]
    fn edges_do_not_panic() {
        assert_eq!(clopper_pearson(0, 0, 0.95).upper, 1.0);
        assert_eq!(upper_bound(5, 5, 0.95), 1.0);
        assert_eq!(lower_bound(0, 5, 0.95), 0.0);
        assert_eq!(conformal_allowance(0, 0.05, 0.05), None);
        assert_eq!(questions_needed(0.0, 0.05, 0), None);
        assert!(questions_for_precision(0.9, 0.05, 0.95).is_some());
    }
}
