//! A threshold with a guarantee: "the rate at which an unanswerable question
//! gets a passage is at most α, with probability at least 1 − δ over the
//! golden set", by the PAC conformal rule of [`super::bounds`].
//!
//! The rule needs one score per question and a family of keep rules nested
//! by one number λ (a larger λ keeps less), fixed before the unanswerable
//! questions are looked at:
//!
//! - with a reranker, λ is the reranker threshold and a question's score is
//!   its highest reranker score;
//! - without one (the fused rule, keyword coverage OR vector z), λ scales both
//!   thresholds together from reference values taken from the *answerable*
//!   questions only (the median best-expected-chunk score on each signal):
//!   keep a chunk when `coverage ≥ λ·c_ref` or `z ≥ λ·z_ref`, i.e. when
//!   `max(coverage/c_ref, z/z_ref) ≥ λ`. A question's score is the largest
//!   such value among its candidates.
//!
//! Because the family does not depend on the unanswerable questions, the
//! conformal argument holds for it. A single threshold that lets none of the
//! `n` unanswerable questions through (however it was chosen) carries
//! "rate ≤ 1 − δ^(1/n)"; one that lets `k > 0` through carries the one-sided
//! Clopper–Pearson bound for `k/n` only if it was fixed in advance. The
//! default fused proposal sets its two thresholds separately and is bounded
//! route by route ([`carried`]).

use serde::{Deserialize, Serialize};

use super::bounds::{self, Interval};
use super::fused::round4;
use super::{outcome, Scored, Signal};
use crate::retrieval::thresholds::ModelThresholds;
use crate::retrieval::Candidate;

/// The one-number family of keep rules the guarantee is stated for.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Family {
    /// Keep a chunk when its reranker score is at least λ.
    Rerank,
    /// Keep a chunk when `coverage ≥ λ·keyword_coverage_ref` or `z ≥ λ·vector_z_ref`.
    Fused {
        /// Median best-expected keyword coverage of the answerable questions.
        keyword_coverage_ref: f64,
        /// Median best-expected vector z-score of the answerable questions.
        vector_z_ref: f64,
    },
}

impl Family {
    /// The family for a configuration: reranker, else fused with references
    /// from the answerable questions. `None` when a reference is not positive
    /// (the scaled rule would not be nested).
    pub(super) fn of(qs: &[&Scored], reranker: bool) -> Option<Family> {
        if reranker {
            return Some(Family::Rerank);
        }
        let median = |signal: Signal| {
            let mut v: Vec<f64> =
                qs.iter().filter(|q| q.answerable).filter_map(|q| super::question_score(q, signal).score).collect();
            v.sort_by(f64::total_cmp);
            (!v.is_empty()).then(|| {
                if v.len() % 2 == 1 {
                    v[v.len() / 2]
                } else {
                    (v[v.len() / 2 - 1] + v[v.len() / 2]) / 2.0
                }
            })
        };
        let (c, z) = (median(Signal::KeywordCoverage)?, median(Signal::VectorZ)?);
        (c > 0.0 && z > 0.0).then_some(Family::Fused { keyword_coverage_ref: c, vector_z_ref: z })
    }

    fn chunk_score(self, c: &Candidate) -> f64 {
        match self {
            Family::Rerank => c.rerank.unwrap_or(f64::NEG_INFINITY),
            Family::Fused { keyword_coverage_ref, vector_z_ref } => {
                (c.coverage / keyword_coverage_ref).max(c.cosine_z / vector_z_ref)
            }
        }
    }

    /// A question's score: the largest chunk score among its candidates.
    fn question_score(self, q: &Scored) -> f64 {
        q.candidates.iter().map(|(_, c)| self.chunk_score(c)).fold(f64::NEG_INFINITY, f64::max)
    }

    /// The thresholds of member λ, each rounded up to 4 decimals (so the
    /// written rule is never looser than the member).
    fn thresholds(self, lambda: f64) -> ModelThresholds {
        let up = |x: f64| {
            let r = (x * 10_000.0).ceil() / 10_000.0;
            if r < x {
                r + 0.0001
            } else {
                round4(r)
            }
        };
        match self {
            Family::Rerank => ModelThresholds { rerank: Some(up(lambda)), ..Default::default() },
            Family::Fused { keyword_coverage_ref, vector_z_ref } => ModelThresholds {
                keyword_coverage: Some(up(lambda * keyword_coverage_ref)),
                vector_z: Some(up(lambda * vector_z_ref)),
                rerank: None,
            },
        }
    }
}

/// What a threshold guarantees about unanswerable questions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Carried {
    /// Confidence `1 − δ` of the statement.
    pub confidence: f64,
    /// The rate bound α: at most this share of unanswerable questions get a
    /// passage, with probability `confidence`.
    pub max_false_positive_rate: f64,
    /// Unanswerable questions the rule lets through, summed over its routes (`k`).
    pub admitted: u64,
    /// Unanswerable questions (`n`).
    pub unanswerable: u64,
    /// True when the statement holds however the threshold was chosen
    /// (every route lets none through); false when it assumes the
    /// thresholds were fixed before looking at the unanswerable questions.
    pub exact: bool,
    /// How the bound is formed: `one threshold` (one-sided Clopper–Pearson
    /// upper bound for `k` of `n`), or `two routes` (the fused rule's
    /// coverage and vector thresholds were set separately, so each route gets
    /// the bound at confidence `1 − δ/2` and the rates add: Bonferroni).
    pub method: String,
    /// Unanswerable questions a rule of this form needs, none getting a
    /// passage, for "at most 5% at 95% confidence" (59 for one threshold,
    /// 146 for two routes).
    pub needed_for_5_95: Option<u64>,
}

/// The rule's answer to `--max-false-positive-rate α --confidence 1−δ`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Guaranteed {
    /// α asked for.
    pub alpha: f64,
    /// 1 − δ asked for.
    pub confidence: f64,
    /// The family the threshold is chosen in.
    pub family: Family,
    /// Unanswerable questions the threshold may let through (`None`: the set
    /// is too small for this guarantee at any threshold).
    pub allowance: Option<u64>,
    /// The thresholds entry (absent when no threshold gives the guarantee).
    pub thresholds: Option<ModelThresholds>,
    /// At those thresholds: answerable questions with an expected chunk in the top 5, 95% exact interval.
    pub recall_at_5: Option<Interval>,
    /// At those thresholds: unanswerable questions returning passages, 95% exact interval.
    pub false_positives: Option<Interval>,
    /// Unanswerable questions in the golden set (`n`).
    pub unanswerable: u64,
    /// Unanswerable questions needed for this guarantee when none may get a passage.
    pub unanswerable_needed: Option<u64>,
    /// Answerable questions needed to know the recall left to ±5 points (95%).
    pub answerable_needed: Option<u64>,
}

fn counts(qs: &[&Scored], rule: &ModelThresholds, family: Family) -> (u64, u64, u64, u64) {
    let keep = |c: &Candidate| match family {
        Family::Rerank => rule.rerank.is_some_and(|t| c.rerank.is_some_and(|s| s >= t)),
        Family::Fused { .. } => {
            rule.keyword_coverage.is_some_and(|t| c.coverage >= t) || rule.vector_z.is_some_and(|t| c.cosine_z >= t)
        }
    };
    let order = if family == Family::Rerank { Signal::Rerank } else { Signal::KeywordCoverage };
    let (mut hits, mut ans, mut fps, mut un) = (0, 0, 0, 0);
    for q in qs {
        let (hit, any) = outcome(q, &keep, order);
        if q.answerable {
            ans += 1;
            hits += u64::from(hit);
        } else {
            un += 1;
            fps += u64::from(any);
        }
    }
    (hits, ans, fps, un)
}

/// The guarantee the rule `p` carries at `confidence`. With a reranker it is
/// one threshold on the question's highest reranker score. The fused rule's
/// two thresholds are set separately (from all golden scores), so no
/// one-number family fixed in advance contains them; each route (highest
/// keyword coverage, highest vector z of a question) is bounded on its own at
/// `1 − δ/2` and the two rates are added (Bonferroni), which is valid however
/// the thresholds were chosen as long as neither route lets a question through.
pub(super) fn carried(qs: &[&Scored], reranker: bool, p: &ModelThresholds, confidence: f64) -> Option<Carried> {
    let un: Vec<&&Scored> = qs.iter().filter(|q| !q.answerable).collect();
    let n = un.len() as u64;
    let admitted = |score: &dyn Fn(&Candidate) -> f64, t: f64| {
        un.iter().filter(|q| q.candidates.iter().any(|(_, c)| score(c) >= t)).count() as u64
    };
    if reranker {
        let t = p.rerank?;
        let k = admitted(&|c: &Candidate| c.rerank.unwrap_or(f64::NEG_INFINITY), t);
        return Some(Carried {
            confidence,
            max_false_positive_rate: bounds::upper_bound(k, n, confidence),
            admitted: k,
            unanswerable: n,
            exact: k == 0,
            method: "one threshold".into(),
            needed_for_5_95: bounds::questions_needed(0.05, 0.05, 0),
        });
    }
    let (cv, z) = (p.keyword_coverage?, p.vector_z?);
    let k_cov = admitted(&|c: &Candidate| c.coverage, cv);
    let k_z = admitted(&|c: &Candidate| c.cosine_z, z);
    let half = 1.0 - (1.0 - confidence) / 2.0;
    Some(Carried {
        confidence,
        max_false_positive_rate: (bounds::upper_bound(k_cov, n, half) + bounds::upper_bound(k_z, n, half)).min(1.0),
        admitted: k_cov + k_z,
        unanswerable: n,
        exact: k_cov == 0 && k_z == 0,
        method: "two routes".into(),
        needed_for_5_95: bounds::questions_needed(0.025, 0.025, 0),
    })
}

/// Chooses the threshold by the conformal rule for `alpha` at `confidence`.
pub(super) fn choose(qs: &[&Scored], family: Family, alpha: f64, confidence: f64) -> Guaranteed {
    let mut u: Vec<f64> = qs.iter().filter(|q| !q.answerable).map(|q| family.question_score(q)).collect();
    u.sort_by(|a, b| b.total_cmp(a));
    let n = u.len() as u64;
    let delta = 1.0 - confidence;
    let allowance = bounds::conformal_allowance(n, alpha, delta);
    // Just above the (k+1)-th highest unanswerable score: at most k of them clear it.
    let thresholds = allowance.map(|k| {
        let s = u[k as usize];
        let lambda = if s.is_finite() { s.next_up() } else { f64::MIN_POSITIVE };
        family.thresholds(lambda)
    });
    let measured = thresholds.as_ref().map(|t| counts(qs, t, family));
    let answerable = qs.iter().filter(|q| q.answerable).count() as u64;
    let recall = measured.map(|(h, a, _, _)| bounds::clopper_pearson(h, a, 0.95));
    Guaranteed {
        alpha,
        confidence,
        family,
        allowance,
        thresholds,
        recall_at_5: recall,
        false_positives: measured.map(|(_, _, f, un)| bounds::clopper_pearson(f, un, 0.95)),
        unanswerable: n,
        unanswerable_needed: bounds::questions_needed(alpha, delta, 0),
        answerable_needed: bounds::questions_for_precision(
            recall.map_or(if answerable > 0 { 0.9 } else { 0.5 }, |r| r.rate),
            0.05,
            0.95,
        ),
    }
}
