//! Cluster-robust standard errors of a ratio or a mean, the design effect,
//! and the interval every suite-level rate carries.
//!
//! Units (runs or cases) in one cluster (cases sharing a listing, a policy
//! page or a conversation; the runs of one case) are not independent. For a
//! ratio R = Σnumᵢ / Σdenᵢ over units i in clusters g, with residuals
//! eᵢ = numᵢ − R·denᵢ and D = Σdenᵢ (a mean is the ratio with every den = 1):
//!
//! - clustered variance (CR1, the sandwich estimator with the small-sample
//!   factor G/(G−1), as in Stata's `vce(cluster)`; Miller 2024, "Adding
//!   Error Bars to Evals", eq. 4): `V_cl = G/(G−1) · Σ_g (Σ_{i∈g} eᵢ)² / D²`;
//! - the same with every unit its own cluster: `V_iid = n/(n−1) · Σ eᵢ² / D²`;
//! - the same with the runs of one case summed first (`V_case`);
//! - design effect `deff = max(1, V_case / V_iid) · max(1, V_cl / V_case)`:
//!   the repeats' times the clusters' (each floored at 1: a design effect
//!   below one from a handful of clusters is noise, not information);
//! - effective sample size `n_eff = D / deff` (Kish), or the number of cases
//!   when nothing varies (every unit passed: then the cases, not the runs,
//!   are what was observed);
//! - the 95% interval is the Wilson score interval at `n_eff`. With one run
//!   per case and no shared clusters it is exactly the plain Wilson interval
//!   of the count, and it never reaches 100% while a unit failed.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{wilson_rate_n, Interval, Z95};

/// A ratio with its cluster-robust standard error and interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ClusteredRatio {
    /// Σnum / Σden.
    pub value: f64,
    /// Units with a non-zero denominator.
    pub units: usize,
    /// Clusters among them.
    pub clusters: usize,
    /// Cluster-robust standard error (CR1).
    pub se: f64,
    /// The standard error if every unit were independent.
    pub se_iid: f64,
    /// `(se / se_iid)²`, at least 1.
    pub design_effect: f64,
    /// `Σden / design_effect` (or the number of clusters when nothing varies).
    pub effective_n: f64,
    /// Wilson 95% interval at `effective_n`.
    pub interval: Interval,
}

/// The clustered ratio of `units` = `(num, den, case, cluster)`: runs of
/// one case share `case`, cases of one cluster share `cluster`. Units with
/// `den` = 0 are left out. `None` when nothing is left or a value is not finite.
///
/// Two design effects multiply: the repeats' (the variance with cases as the
/// independent units over the variance with runs as the units) and the
/// clusters' (clustered over case-level variance), each floored at 1; a
/// ratio of runs is thus never more certain than one of its cases.
///
/// Test vectors (`scripts/stats_vectors.py`, "clustered"): values
/// 1,1,1,0,0,0,1,0 (each its own case) in clusters a,a,a,b,b,b,c,c → mean
/// 0.5, se_iid 0.188982, se 0.324760, deff 2.953125, n_eff 2.708995, interval
/// [0.117103, 0.882897]; 49 cases × 3 identical runs, one case failing all
/// three → deff 3.041667, n_eff 48.328767.
pub fn clustered_ratio<'a>(units: impl IntoIterator<Item = (f64, f64, &'a str, &'a str)>) -> Option<ClusteredRatio> {
    let units: Vec<(f64, f64, &str, &str)> = units.into_iter().filter(|u| u.1 != 0.0).collect();
    if units.is_empty() || units.iter().any(|(n, d, _, _)| !n.is_finite() || !d.is_finite()) {
        return None;
    }
    let num: f64 = units.iter().map(|u| u.0).sum();
    let den: f64 = units.iter().map(|u| u.1).sum();
    if den <= 0.0 {
        return None;
    }
    let r = num / den;
    let mut by_case: BTreeMap<&str, f64> = BTreeMap::new();
    let mut by_cluster: BTreeMap<&str, f64> = BTreeMap::new();
    let mut sq = 0.0;
    for (n, d, case, cluster) in &units {
        let e = n - r * d;
        sq += e * e;
        *by_case.entry(*case).or_default() += e;
        *by_cluster.entry(*cluster).or_default() += e;
    }
    // CR1 variance of the ratio with the given sums of residuals per unit.
    let sandwich = |sums: &mut dyn Iterator<Item = f64>, count: usize| -> f64 {
        let k = count as f64;
        if k > 1.0 {
            k / (k - 1.0) * sums.map(|s| s * s).sum::<f64>() / (den * den)
        } else {
            0.0
        }
    };
    let v_run = if units.len() > 1 { units.len() as f64 / (units.len() as f64 - 1.0) * sq / (den * den) } else { 0.0 };
    let v_case = sandwich(&mut by_case.values().copied(), by_case.len());
    let v_cl = sandwich(&mut by_cluster.values().copied(), by_cluster.len());
    let cases = by_case.len() as f64;
    let (deff, n_eff) = if v_run > 1e-15 {
        let repeats = (v_case / v_run).max(1.0);
        let clusters = if v_case > 1e-15 { (v_cl / v_case).max(1.0) } else { 1.0 };
        (repeats * clusters, den / (repeats * clusters))
    } else {
        // Nothing varies: the cases, not the runs, are what was observed.
        ((den / cases).max(1.0), den.min(cases))
    };
    Some(ClusteredRatio {
        value: r,
        units: units.len(),
        clusters: by_cluster.len(),
        se: (deff * v_run).sqrt(),
        se_iid: v_run.sqrt(),
        design_effect: deff,
        effective_n: n_eff,
        interval: wilson_rate_n(r, n_eff, Z95).unwrap_or(Interval { lo: 0.0, hi: 1.0 }),
    })
}

/// The clustered mean of `(value, case, cluster)` (a ratio with den = 1).
pub fn clustered_mean<'a>(values: impl IntoIterator<Item = (f64, &'a str, &'a str)>) -> Option<ClusteredRatio> {
    clustered_ratio(values.into_iter().map(|(v, case, cluster)| (v, 1.0, case, cluster)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-6
    }

    #[test]
    fn vectors() {
        // scripts/stats_vectors.py, "clustered".
        let v = [1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0];
        let cases = ["1", "2", "3", "4", "5", "6", "7", "8"];
        let clusters = ["a", "a", "a", "b", "b", "b", "c", "c"];
        let c = clustered_mean(v.into_iter().zip(cases).zip(clusters).map(|((v, k), g)| (v, k, g))).unwrap();
        assert!(close(c.value, 0.5) && close(c.se_iid, 0.188_982), "{c:?}");
        assert!(close(c.se, 0.324_760) && close(c.design_effect, 2.953_125), "{c:?}");
        assert!(close(c.effective_n, 2.708_995), "{c:?}");
        assert!(close(c.interval.lo, 0.117_103) && close(c.interval.hi, 0.882_897), "{c:?}");
        // Clusters that vary less than their units: the design effect is floored at 1.
        let c = clustered_mean(
            [(1.0, "0"), (1.0, "1"), (1.0, "1"), (0.0, "1"), (0.0, "0"), (0.0, "0")]
                .into_iter()
                .zip(["1", "2", "3", "4", "5", "6"])
                .map(|((v, g), k)| (v, k, g)),
        )
        .unwrap();
        assert!(close(c.design_effect, 1.0) && close(c.se, 0.223_607), "{c:?}");
        // Independent units: the plain Wilson interval of 48/49.
        let ids: Vec<String> = (0..49).map(|i| i.to_string()).collect();
        let c = clustered_mean(
            ids.iter().enumerate().map(|(i, id)| (f64::from(u8::from(i > 0)), id.as_str(), id.as_str())),
        )
        .unwrap();
        let w = super::super::wilson(48, 49, Z95).unwrap();
        assert!(close(c.interval.lo, w.lo) && close(c.interval.hi, w.hi), "{c:?}");
        assert!(close(c.design_effect, 1.0));
        // 49 cases × 3 identical runs, one case failing all three: the runs
        // of a case are one cluster, so the interval is the case-level one.
        let runs: Vec<(f64, &str, &str)> = ids
            .iter()
            .enumerate()
            .flat_map(|(i, id)| [(f64::from(u8::from(i > 0)), id.as_str(), id.as_str()); 3])
            .collect();
        let c = clustered_mean(runs).unwrap();
        assert!(close(c.design_effect, 3.041_667) && close(c.effective_n, 48.328_767), "{c:?}");
        assert!(c.interval.hi < 1.0 && (c.interval.lo - w.lo).abs() < 0.002, "{c:?} vs {w:?}");
        // Nothing varies: the clusters are the sample.
        let c = clustered_mean([(1.0, "x", "a"), (1.0, "x", "a"), (1.0, "y", "b")]).unwrap();
        assert!(close(c.effective_n, 2.0) && close(c.interval.hi, 1.0), "{c:?}");
        assert_eq!(clustered_mean(std::iter::empty()), None);
    }
}
