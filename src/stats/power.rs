//! Power before the run: how large a drop a suite of this size, with this
//! many repeats and this much run-to-run noise, can detect, and what it takes
//! to detect a smaller one.
//!
//! **Variance components** (one-way random effects on the 0/1 run outcomes
//! xᵢⱼ of case i, run j): the within-case variance σ²_w is the mean over
//! cases with at least two runs of the unbiased run variance
//! `mᵢ·p̂ᵢ(1−p̂ᵢ)/(mᵢ−1)`; the between-case variance is
//! `σ²_b = max(0, S² − σ²_w·mean(1/mᵢ))`, S² the sample variance of the case
//! pass rates. σ²_w = 0 with repeats means every case gave the same verdict
//! on every run: the model is deterministic here and repeats add nothing.
//!
//! **Detectable drop.** A true drop δ is modelled as a share δ of cases
//! going from pass to fail while the rest stay (the least variable way to
//! lose δ), plus each run's noise: `Var(dᵢ) = δ(1−δ) + 2σ²_w/K`, so
//! `SE(δ) = √(deff · Var(dᵢ) / n)` with the design effect of the case
//! clusters. The minimum detectable effect (MDE) at power 1−β and two-sided
//! α is the smallest δ with `δ ≥ (t(1−α/2; n−1) + t(1−β; n−1)) · SE(δ)`
//! (the normal-approximation power formula with t quantiles; Miller 2024,
//! §5). Cases needed for a target δ solve the same inequality for n; repeats
//! needed solve it for K, and none suffice when δ(1−δ) alone is too large.

use serde::{Deserialize, Serialize};

use super::dist::t_quantile;

/// Run-to-run and case-to-case variance of a report's case pass rates.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct VarianceComponents {
    /// Cases with a measured run.
    pub cases: usize,
    /// Mean measured runs per case.
    pub repeats: f64,
    /// Within-case variance of one run's 0/1 outcome (`None` with one run per case).
    pub within: Option<f64>,
    /// Between-case variance of the true case pass rates.
    pub between: f64,
    /// Every case gave the same verdict on every one of its runs (with repeats).
    pub identical: bool,
}

/// Variance components from `(passes, measured runs)` per case; cases
/// without a measured run are left out. `None` when none is left.
///
/// Test vector (`scripts/stats_vectors.py`, "components"): (3,3), (0,3),
/// (2,3), (1,3) → within 1/6, between 0.129630; MDE at n = 49, K = 1,
/// deterministic: 0.143035.
pub fn variance_components(cases: &[(usize, usize)]) -> Option<VarianceComponents> {
    let measured: Vec<(f64, f64)> =
        cases.iter().filter(|(_, m)| *m > 0).map(|(p, m)| ((*p).min(*m) as f64, *m as f64)).collect();
    if measured.is_empty() {
        return None;
    }
    let n = measured.len() as f64;
    let rates: Vec<f64> = measured.iter().map(|(p, m)| p / m).collect();
    let mean = rates.iter().sum::<f64>() / n;
    let s2 = if n > 1.0 { rates.iter().map(|r| (r - mean).powi(2)).sum::<f64>() / (n - 1.0) } else { 0.0 };
    let within_each: Vec<f64> =
        measured.iter().filter(|(_, m)| *m >= 2.0).map(|(p, m)| p * (m - p) / (m * (m - 1.0))).collect();
    let within = (!within_each.is_empty()).then(|| within_each.iter().sum::<f64>() / within_each.len() as f64);
    let inv_m = measured.iter().map(|(_, m)| 1.0 / m).sum::<f64>() / n;
    Some(VarianceComponents {
        cases: measured.len(),
        repeats: measured.iter().map(|(_, m)| m).sum::<f64>() / n,
        within,
        between: (s2 - within.unwrap_or(0.0) * inv_m).max(0.0),
        identical: within == Some(0.0),
    })
}

/// What a power calculation is about.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Design {
    /// Cases.
    pub cases: usize,
    /// Runs per case.
    pub repeats: usize,
    /// Within-case variance of one run (0 for a deterministic model).
    pub within: f64,
    /// Design effect of the case clusters (1: independent cases).
    pub design_effect: f64,
    /// Two-sided significance level (0.05).
    pub alpha: f64,
    /// Power (0.8).
    pub power: f64,
}

impl Design {
    /// A design at α = 0.05 and 80% power.
    pub fn new(cases: usize, repeats: usize, within: f64, design_effect: f64) -> Self {
        Self { cases, repeats: repeats.max(1), within, design_effect: design_effect.max(1.0), alpha: 0.05, power: 0.8 }
    }

    fn multiplier(&self, n: f64) -> f64 {
        let df = (n - 1.0).max(1.0);
        t_quantile(1.0 - self.alpha / 2.0, df) + t_quantile(self.power, df)
    }

    fn variance(&self, delta: f64) -> f64 {
        delta * (1.0 - delta) + 2.0 * self.within / self.repeats as f64
    }

    /// The standard error of the mean paired difference at a true drop `delta`.
    pub fn se(&self, delta: f64) -> f64 {
        (self.design_effect * self.variance(delta) / self.cases.max(1) as f64).sqrt()
    }

    /// The minimum detectable drop (a fraction); `None` when not even a
    /// drop of 100% would be detected (a suite of one or two cases).
    pub fn minimum_detectable_drop(&self) -> Option<f64> {
        let c = self.multiplier(self.cases as f64);
        let f = |d: f64| d - c * self.se(d);
        if f(1.0) < 0.0 {
            return None;
        }
        let (mut lo, mut hi) = (0.0, 1.0);
        for _ in 0..100 {
            let mid = 0.5 * (lo + hi);
            if f(mid) < 0.0 {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        Some(hi)
    }

    /// Cases needed to detect a drop of `delta` at this design's repeats
    /// (capped at ten million); `None` for a `delta` outside (0, 1].
    pub fn cases_needed(&self, delta: f64) -> Option<usize> {
        if !(delta > 0.0 && delta <= 1.0) {
            return None;
        }
        let mut n = 30.0f64;
        for _ in 0..50 {
            let c = self.multiplier(n);
            let next = (self.design_effect * c * c * self.variance(delta) / (delta * delta)).ceil().max(2.0);
            if (next - n).abs() < 0.5 {
                break;
            }
            n = next.min(1e7);
        }
        Some(n as usize)
    }

    /// Runs per case needed to detect `delta` with this many cases; `None`
    /// when no number of repeats suffices (add cases instead) or `delta` is
    /// outside (0, 1].
    pub fn repeats_needed(&self, delta: f64) -> Option<usize> {
        if !(delta > 0.0 && delta <= 1.0) {
            return None;
        }
        let c = self.multiplier(self.cases as f64);
        let room = self.cases as f64 * delta * delta / (self.design_effect * c * c) - delta * (1.0 - delta);
        if room < 0.0 {
            return None;
        }
        if self.within <= 0.0 {
            return Some(1);
        }
        Some(((2.0 * self.within / room).ceil() as usize).max(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn vectors() {
        // scripts/stats_vectors.py, "components" and "mde".
        let v = variance_components(&[(3, 3), (0, 3), (2, 3), (1, 3)]).unwrap();
        assert!(close(v.within.unwrap(), 1.0 / 6.0, 1e-12), "{v:?}");
        assert!(close(v.between, 0.129_630, 1e-6), "{v:?}");
        assert!(!v.identical);
        let v = variance_components(&[(3, 3), (0, 3)]).unwrap();
        assert!(v.identical && v.within == Some(0.0));
        assert_eq!(variance_components(&[(1, 1)]).unwrap().within, None);
        let mde = Design::new(49, 1, 0.0, 1.0).minimum_detectable_drop().unwrap();
        assert!(close(mde, 0.143_035, 1e-6), "{mde}");
        assert_eq!(Design::new(49, 3, 0.0, 1.0).minimum_detectable_drop(), Some(mde), "deterministic: K adds nothing");
        let noisy = Design::new(49, 1, 0.1, 1.0).minimum_detectable_drop().unwrap();
        let noisy3 = Design::new(49, 3, 0.1, 1.0).minimum_detectable_drop().unwrap();
        assert!(close(noisy, 0.255_152, 1e-6) && close(noisy3, 0.192_556, 1e-6), "{noisy} {noisy3}");
        let big = Design::new(500, 1, 0.0, 1.0).minimum_detectable_drop().unwrap();
        assert!(close(big, 0.015_515, 1e-6), "{big}");
        assert_eq!(Design::new(49, 1, 0.0, 1.0).repeats_needed(0.02), None, "2 points needs cases, not repeats");
    }
}
