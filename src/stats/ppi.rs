//! Prediction-powered inference of a mean (Angelopoulos, Bates, Fannjiang,
//! Jordan & Zrnic, "Prediction-powered inference", *Science* 382:669–674,
//! 2023, §"Mean estimation"): a judge grades every run (`f`), people grade a
//! random sample of them (`Y`); the judge's mean over all runs is corrected
//! by the mean error the sample shows (the *rectifier*), and the interval
//! adds both variances:
//!
//! ```text
//! θ̂ = mean_N(f) − mean_n(f − Y)
//! se = sqrt( var_N(f)/N + var_n(f − Y)/n )      (sample variances, ddof 1)
//! interval = θ̂ ± z·se, clipped to [0, 1]
//! ```
//!
//! Valid when the reviewed runs are a *uniform random sample* of the runs
//! the judge graded; runs picked because judges disagree are not, and are
//! left out by the caller. Test vectors: `scripts/review_vectors.py`.

use serde::{Deserialize, Serialize};

use super::Interval;

/// A prediction-powered estimate of a rate.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PpiEstimate {
    /// The corrected rate θ̂ (may leave [0, 1] by sampling error; shown as is).
    pub estimate: f64,
    /// Its standard error.
    pub se: f64,
    /// θ̂ ± z·se, clipped to [0, 1].
    pub interval: Interval,
    /// The judge's own rate over all `N` runs.
    pub judge_rate: f64,
    /// Mean of `f − Y` over the reviewed sample (how much the judge overstates).
    pub rectifier: f64,
    /// Runs the judge graded (`N`).
    pub graded: usize,
    /// Runs in the reviewed random sample (`n`).
    pub reviewed: usize,
}

fn mean_var(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let var = if v.len() > 1 { v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0) } else { 0.0 };
    (mean, var)
}

/// The prediction-powered mean: `judged` holds the judge's grade (0..1) of
/// every run graded, `reviewed` the (judge grade, human grade) pairs of the
/// random sample of those runs people reviewed; `z` the normal quantile
/// (use [`super::Z95`]). `None` when fewer than 2 runs are graded or
/// reviewed, or a value is not finite.
///
/// Test vector: 100 judged (80 pass), 20 reviewed → θ̂ 0.7, se 0.10778.
pub fn ppi_mean(judged: &[f64], reviewed: &[(f64, f64)], z: f64) -> Option<PpiEstimate> {
    if judged.len() < 2 || reviewed.len() < 2 {
        return None;
    }
    if judged.iter().chain(reviewed.iter().flat_map(|(a, b)| [a, b])).any(|v| !v.is_finite()) {
        return None;
    }
    let (judge_rate, var_f) = mean_var(judged);
    let diffs: Vec<f64> = reviewed.iter().map(|(f, y)| f - y).collect();
    let (rectifier, var_d) = mean_var(&diffs);
    let estimate = judge_rate - rectifier;
    let se = (var_f / judged.len() as f64 + var_d / reviewed.len() as f64).sqrt();
    Some(PpiEstimate {
        estimate,
        se,
        interval: Interval { lo: (estimate - z * se).clamp(0.0, 1.0), hi: (estimate + z * se).clamp(0.0, 1.0) },
        judge_rate,
        rectifier,
        graded: judged.len(),
        reviewed: reviewed.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::Z95;

    /// The data of `scripts/review_vectors.py` (section "ppi").
    fn data() -> (Vec<f64>, Vec<(f64, f64)>) {
        let judged: Vec<f64> = std::iter::repeat_n(1.0, 80).chain(std::iter::repeat_n(0.0, 20)).collect();
        let reviewed: Vec<(f64, f64)> = std::iter::repeat_n((1.0, 1.0), 13)
            .chain(std::iter::repeat_n((1.0, 0.0), 3))
            .chain(std::iter::repeat_n((0.0, 0.0), 3))
            .chain(std::iter::repeat_n((0.0, 1.0), 1))
            .collect();
        (judged, reviewed)
    }

    #[test]
    fn ppi_vectors() {
        let (judged, reviewed) = data();
        let e = ppi_mean(&judged, &reviewed, Z95).unwrap();
        // Independently: scripts/review_vectors.py, section "ppi".
        assert!((e.estimate - PPI_ESTIMATE).abs() < 1e-9, "{e:?}");
        assert!((e.se - PPI_SE).abs() < 1e-9, "{e:?}");
        assert!((e.interval.lo - PPI_LO).abs() < 1e-9 && (e.interval.hi - PPI_HI).abs() < 1e-9, "{e:?}");
        assert!((e.judge_rate - 0.8).abs() < 1e-12 && (e.rectifier - 0.1).abs() < 1e-12);
        assert_eq!((e.graded, e.reviewed), (100, 20));
        // A judge that agrees with every reviewer is not corrected, and its interval is the judge's own.
        let agree: Vec<(f64, f64)> = judged[..20].iter().map(|f| (*f, *f)).collect();
        let e = ppi_mean(&judged, &agree, Z95).unwrap();
        assert!((e.estimate - 0.8).abs() < 1e-12 && (e.se - (0.16f64 * 100.0 / 99.0 / 100.0).sqrt()).abs() < 1e-12);
        assert_eq!(ppi_mean(&judged, &reviewed[..1], Z95), None);
        assert_eq!(ppi_mean(&[1.0], &reviewed, Z95), None);
        assert_eq!(ppi_mean(&[1.0, f64::NAN], &reviewed, Z95), None);
    }

    const PPI_ESTIMATE: f64 = 0.7000000000000001;
    const PPI_SE: f64 = 0.10777829844714387;
    const PPI_LO: f64 = 0.4887584167285889;
    const PPI_HI: f64 = 0.9112415832714112;
}
