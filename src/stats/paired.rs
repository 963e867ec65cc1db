//! The paired difference of two runs of one suite, and the decisions made
//! from it.
//!
//! The unit is the case: each case contributes dᵢ = candᵢ − baseᵢ, the
//! difference of its pass rates (repeats averaged within the case first).
//!
//! **Interval** (one method for the printed interval and every decision): a
//! studentised interval with Agresti–Min pseudo-pairs. Half a case with
//! d = +1, half a case with d = −1 and one case with d = 0 are added (with
//! one run per case this is exactly Agresti & Min 2005, "Simple improved
//! confidence intervals for comparing matched proportions", adding ½ to each
//! cell of the 2×2 table); the centre is the augmented mean
//! `m' = Σdᵢ / (n + 2)`, its variance the cluster-robust sandwich
//! `V = G/(G−1) · [Σ_g (Σ_{i∈g} (dᵢ − m'))² + Σ_pseudo w·(d − m')²] / (n + 2)²`
//! (G clusters; each pseudo-case its own), and the interval
//! `m' ± t(0.975; G − 1)·√V`, clipped to [−1, 1]. The pseudo-pairs keep a
//! suite where no case changed from reading as certainty (49 unchanged cases
//! give ±4.0 points, not [0, 0]) and the t quantile with G − 1 degrees of
//! freedom keeps few cases or few clusters honest; at thousands of cases the
//! interval is the usual mean ± 1.96·SE. The simulation in
//! `benches/gate_sim.rs` measures its error rates.
//!
//! **Non-inferiority** with margin D (`--max-drop D`): *met* when the
//! interval's lower end is above −D, *missed* when its upper end is below
//! −D, *inconclusive* otherwise.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::dist::t_quantile;
use super::Interval;

/// The paired difference of two runs' per-case scores (cand − base).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PairedDifference {
    /// Cases measured in both runs.
    pub cases: usize,
    /// Clusters among them.
    pub clusters: usize,
    /// Cases whose score changed.
    pub changed: usize,
    /// Mean baseline score.
    pub base_mean: f64,
    /// Mean candidate score.
    pub cand_mean: f64,
    /// Mean difference, cand − base (fraction: −0.02 is two points worse).
    pub mean: f64,
    /// Standard error of the difference (cluster-robust, with the pseudo-pairs).
    pub se: f64,
    /// Degrees of freedom of the t quantile: clusters − 1 (at least 1).
    pub df: f64,
    /// The 95% interval of the difference (see the module documentation).
    pub interval: Interval,
    /// Pearson correlation of the two runs' per-case scores (`None` when
    /// either run's scores do not vary).
    pub correlation: Option<f64>,
    /// Clustered over independent variance of the differences (at least 1).
    pub design_effect: f64,
}

/// The paired difference of `(base, cand, cluster)` per case. `None` when
/// there is no case or a score is not finite.
///
/// Test vectors (`scripts/stats_vectors.py`, "paired"): 49 cases, 4 pass →
/// fail, independent: interval [−0.164661, +0.007798]; no change: ±0.039833.
pub fn paired_difference<'a>(pairs: impl IntoIterator<Item = (f64, f64, &'a str)>) -> Option<PairedDifference> {
    let pairs: Vec<(f64, f64, &str)> = pairs.into_iter().collect();
    if pairs.is_empty() || pairs.iter().any(|(b, c, _)| !b.is_finite() || !c.is_finite()) {
        return None;
    }
    let n = pairs.len() as f64;
    let d: Vec<f64> = pairs.iter().map(|(b, c, _)| c - b).collect();
    let sum: f64 = d.iter().sum();
    let mean = sum / n;
    let base_mean = pairs.iter().map(|p| p.0).sum::<f64>() / n;
    let cand_mean = pairs.iter().map(|p| p.1).sum::<f64>() / n;
    // Augmented centre and cluster sums.
    let m = sum / (n + 2.0);
    let mut by: BTreeMap<&str, (f64, f64)> = BTreeMap::new();
    for ((_, _, c), di) in pairs.iter().zip(&d) {
        let e = by.entry(*c).or_default();
        e.0 += di - m;
        e.1 += di - mean;
    }
    let g = by.len() as f64;
    let factor = if g > 1.0 { g / (g - 1.0) } else { 1.0 };
    let pseudo = 0.5 * (1.0 - m).powi(2) + 0.5 * (-1.0 - m).powi(2) + m * m;
    let v = factor * (by.values().map(|(s, _)| s * s).sum::<f64>() + pseudo) / ((n + 2.0) * (n + 2.0));
    let se = v.sqrt();
    let df = (g - 1.0).max(1.0);
    let t = t_quantile(0.975, df);
    let interval = Interval { lo: (m - t * se).max(-1.0), hi: (m + t * se).min(1.0) };
    // Design effect on the raw differences.
    let v_iid = if n > 1.0 { d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0) / n } else { 0.0 };
    let v_cl = factor * by.values().map(|(_, s)| s * s).sum::<f64>() / (n * n);
    let design_effect = if v_iid > 1e-15 { (v_cl / v_iid).max(1.0) } else { 1.0 };
    Some(PairedDifference {
        cases: pairs.len(),
        clusters: by.len(),
        changed: d.iter().filter(|x| x.abs() > 1e-12).count(),
        base_mean,
        cand_mean,
        mean,
        se,
        df,
        interval,
        correlation: pearson(pairs.iter().map(|p| (p.0, p.1))),
        design_effect,
    })
}

/// Pearson's r of paired values; `None` with fewer than two pairs or when
/// either side does not vary.
pub fn pearson(pairs: impl IntoIterator<Item = (f64, f64)>) -> Option<f64> {
    let v: Vec<(f64, f64)> = pairs.into_iter().collect();
    let n = v.len() as f64;
    if v.len() < 2 {
        return None;
    }
    let (mx, my) = (v.iter().map(|p| p.0).sum::<f64>() / n, v.iter().map(|p| p.1).sum::<f64>() / n);
    let sxy: f64 = v.iter().map(|(x, y)| (x - mx) * (y - my)).sum();
    let sxx: f64 = v.iter().map(|(x, _)| (x - mx).powi(2)).sum();
    let syy: f64 = v.iter().map(|(_, y)| (y - my).powi(2)).sum();
    (sxx > 1e-15 && syy > 1e-15).then(|| (sxy / (sxx * syy).sqrt()).clamp(-1.0, 1.0))
}

/// The outcome of a non-inferiority test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// The whole interval lies above −D: the candidate is not worse by D or more.
    Met,
    /// The whole interval lies below −D: it is worse by more than D.
    Missed,
    /// The interval straddles −D: this suite cannot tell.
    Inconclusive,
}

/// Non-inferiority with margin `margin` (a fraction, ≥ 0) on an interval of
/// cand − base. A tolerance of 1e-9 absorbs float noise at the boundary.
pub fn non_inferiority(interval: Interval, margin: f64) -> Decision {
    if interval.lo > -margin - 1e-9 {
        Decision::Met
    } else if interval.hi < -margin - 1e-9 {
        Decision::Missed
    } else {
        Decision::Inconclusive
    }
}

/// The smallest two-sided p-value an exact sign test (McNemar, or the
/// sign-flip test) can give with `m` discordant pairs or changed cases:
/// `min(1, 2·2⁻ᵐ)`. With m = 4 it is 0.125, so α = 0.05 cannot be reached.
pub fn min_attainable_p(m: usize) -> f64 {
    if m == 0 {
        1.0
    } else {
        (2.0 * 0.5f64.powi(m.min(1_000) as i32)).min(1.0)
    }
}

/// Benjamini–Hochberg adjusted p-values (step-up, made monotone, capped at
/// 1), in the order given: `p̃₍ᵢ₎ = min_{j ≥ i} min(1, m·p₍ⱼ₎ / j)`.
///
/// Test vector: [0.01, 0.04, 0.03, 0.20] → [0.04, 0.0533, 0.0533, 0.20].
pub fn benjamini_hochberg(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|a, b| p[*a].total_cmp(&p[*b]));
    let mut adjusted = vec![1.0; m];
    let mut running = 1.0f64;
    for (rank, &i) in order.iter().enumerate().rev() {
        running = running.min((p[i] * m as f64 / (rank + 1) as f64).min(1.0));
        adjusted[i] = running;
    }
    adjusted
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    fn suite(n: usize, down: usize, up: usize) -> Vec<(f64, f64, String)> {
        (0..n)
            .map(|i| {
                let (b, c) = if i < down {
                    (1.0, 0.0)
                } else if i < down + up {
                    (0.0, 1.0)
                } else {
                    (1.0, 1.0)
                };
                (b, c, format!("c{i}"))
            })
            .collect()
    }

    fn diff(s: &[(f64, f64, String)]) -> PairedDifference {
        paired_difference(s.iter().map(|(b, c, id)| (*b, *c, id.as_str()))).unwrap()
    }

    #[test]
    fn vectors() {
        // scripts/stats_vectors.py, "paired".
        let d = diff(&suite(49, 4, 0));
        assert!(close(d.mean, -4.0 / 49.0, 1e-12));
        assert!(close(d.interval.lo, -0.164_661, 1e-6) && close(d.interval.hi, 0.007_798, 1e-6), "{d:?}");
        assert_eq!(non_inferiority(d.interval, 0.02), Decision::Inconclusive, "4 flips of 49 are never met");
        let d = diff(&suite(49, 0, 0));
        assert!(close(d.interval.lo, -0.039_833, 1e-6) && close(d.interval.hi, 0.039_833, 1e-6), "{d:?}");
        assert_eq!(non_inferiority(d.interval, 0.02), Decision::Inconclusive, "49 cases cannot show 2 points");
        assert_eq!(non_inferiority(d.interval, 0.05), Decision::Met);
        for (down, up, n, lo, hi) in [
            (1, 0, 49, -0.075_663, 0.036_447),
            (10, 2, 49, -0.293_374, -0.020_351),
            (0, 0, 10, -0.198_710, 0.198_710),
            (30, 10, 500, -0.064_681, -0.015_000),
        ] {
            let d = diff(&suite(n, down, up));
            assert!(close(d.interval.lo, lo, 1e-6) && close(d.interval.hi, hi, 1e-6), "{down} {up} {n}: {d:?}");
        }
        assert_eq!(non_inferiority(diff(&suite(49, 10, 2)).interval, 0.02), Decision::Missed);
    }

    #[test]
    fn decisions() {
        let i = |lo, hi| Interval { lo, hi };
        assert_eq!(non_inferiority(i(-0.01, 0.03), 0.02), Decision::Met);
        assert_eq!(non_inferiority(i(-0.2, -0.05), 0.02), Decision::Missed);
        assert_eq!(non_inferiority(i(-0.16, -0.003), 0.02), Decision::Inconclusive);
        assert_eq!(non_inferiority(i(-0.02, 0.01), 0.02), Decision::Met, "float noise at the boundary");
        assert_eq!(non_inferiority(i(-0.1, -0.01), 0.0), Decision::Missed);
    }

    #[test]
    fn bh_and_attainable_p() {
        let a = benjamini_hochberg(&[0.01, 0.04, 0.03, 0.20]);
        let want = [0.04, 0.04 * 4.0 / 3.0, 0.04 * 4.0 / 3.0, 0.20];
        for (x, y) in a.iter().zip(want) {
            assert!(close(*x, y, 1e-12), "{a:?}");
        }
        assert!(close(min_attainable_p(4), 0.125, 1e-12));
        assert!(min_attainable_p(6) < 0.05);
        assert_eq!(min_attainable_p(0), 1.0);
    }
}
