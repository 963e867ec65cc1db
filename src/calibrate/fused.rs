//! The fused keep rule's proposal (keyword coverage OR vector z): candidate
//! thresholds, the joint search over (coverage, z) pairs, and rounding.

use super::{analyse_signal, outcome, question_score, JointSearch, Scored, Signal};
use crate::retrieval::thresholds::ModelThresholds;
use crate::retrieval::Candidate;

/// Candidate thresholds for a signal: every per-question score and the
/// midpoints between neighbours, ascending.
pub(super) fn candidate_thresholds(qs: &[&Scored], signal: Signal) -> Vec<f64> {
    let mut values: Vec<f64> = qs.iter().filter_map(|q| question_score(q, signal).score).collect();
    values.sort_by(f64::total_cmp);
    values.dedup_by(|a, b| (*a - *b).abs() < 1e-12);
    let mut out = values.clone();
    out.extend(values.windows(2).map(|w| (w[0] + w[1]) / 2.0));
    out.sort_by(f64::total_cmp);
    out
}

/// Joint search over (keyword coverage, vector z) pairs: most answerable
/// questions in the top 5 with 0 false positives; ties go to the highest
/// thresholds (the most conservative pair). `None` when no pair keeps every
/// unanswerable question out.
pub(super) fn joint_search(qs: &[&Scored]) -> Option<JointSearch> {
    let coverage = candidate_thresholds(qs, Signal::KeywordCoverage);
    let z = candidate_thresholds(qs, Signal::VectorZ);
    let mut best: Option<JointSearch> = None;
    for &ct in &coverage {
        for &zt in &z {
            let keep = |c: &Candidate| c.coverage >= ct || c.cosine_z >= zt;
            let mut hits = 0;
            let mut clean = true;
            for q in qs {
                let (hit, any) = outcome(q, &keep, Signal::KeywordCoverage);
                if any && !q.answerable {
                    clean = false;
                    break;
                }
                hits += usize::from(hit);
            }
            if clean && best.as_ref().is_none_or(|b| hits >= b.recall_hits) {
                best = Some(JointSearch {
                    pairs: 0,
                    keyword_coverage: ct,
                    vector_z: zt,
                    recall_hits: hits,
                    replaced_proposal: false,
                });
            }
        }
    }
    best.map(|b| JointSearch { pairs: coverage.len() * z.len(), ..b })
}

/// Fused-mode proposal: keyword coverage from its own separation (midpoint,
/// else the zero-false-positive midpoint); vector z as the midpoint between the highest
/// unanswerable z and the lowest best z above it among the answerable questions
/// coverage does not keep (or, when the vector route would win none of them,
/// 0.5 above every golden z-score), so the OR of both rules adds no false positive.
pub(super) fn fused_proposal(qs: &[&Scored]) -> ModelThresholds {
    // Coverage: the separating midpoint; without separation, the midpoint
    // between the highest unanswerable coverage and the lowest answerable
    // coverage above it (no false positive, as much recall as coverage can
    // give), so a written entry is always complete and never admits a known
    // unanswerable question.
    let cov = analyse_signal(qs, Signal::KeywordCoverage);
    let ct = cov.separating.or_else(|| {
        let max_u = qs
            .iter()
            .filter(|q| !q.answerable)
            .filter_map(|q| question_score(q, Signal::KeywordCoverage).score)
            .fold(0.0, f64::max);
        let lo = qs
            .iter()
            .filter(|q| q.answerable)
            .filter_map(|q| question_score(q, Signal::KeywordCoverage).score)
            .filter(|s| *s > max_u)
            .reduce(f64::min);
        Some(lo.map_or((max_u + 1.0) / 2.0, |lo| (lo + max_u) / 2.0))
    });
    let max_u_z = qs
        .iter()
        .filter(|q| !q.answerable)
        .filter_map(|q| question_score(q, Signal::VectorZ).score)
        .fold(f64::NEG_INFINITY, f64::max);
    let uncovered: Vec<f64> = qs
        .iter()
        .filter(|q| q.answerable)
        .filter(|q| ct.is_none_or(|t| question_score(q, Signal::KeywordCoverage).score.is_none_or(|s| s < t)))
        .filter_map(|q| question_score(q, Signal::VectorZ).score)
        .collect();
    let zt = if !max_u_z.is_finite() {
        None
    } else if let Some(lo) = uncovered.iter().copied().filter(|z| *z > max_u_z).reduce(f64::min) {
        Some((lo + max_u_z) / 2.0)
    } else {
        // The vector route would win no question that coverage misses, so it
        // only carries risk: set it above every golden z-score (answerable or
        // not). It then keeps only passages that stand out more than anything
        // measured. (A midpoint just above the highest unanswerable z-score let
        // "help with my tax return?" through to the deposit-return policy with
        // the hashing embedder.)
        let top = qs.iter().filter_map(|q| question_score(q, Signal::VectorZ).score).fold(max_u_z, f64::max);
        Some(top + 0.5)
    };
    ModelThresholds { vector_z: zt.map(round4), keyword_coverage: ct.map(round4), rerank: None }
}

pub(super) fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}
