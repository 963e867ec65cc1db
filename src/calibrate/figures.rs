//! The proposal's figures beyond the sweep: exact intervals at the applied
//! thresholds, rank metrics and bootstrap stability per signal, recall and
//! false positives per question style, and what to try when nothing separates.

use serde::{Deserialize, Serialize};

use super::{bounds, outcome, rank, stability, QuestionScore, Scored, Signal, SignalReport};
use crate::golden::Style;
use crate::retrieval::thresholds::ModelThresholds;
use crate::retrieval::Candidate;

/// Recall and false positives at the proposal for one question style.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StyleFigures {
    /// The style.
    pub style: Style,
    /// Answerable questions of this style with an expected chunk in the top 5 (exact 95% interval).
    pub recall_at_5: bounds::Interval,
    /// Unanswerable questions of this style returning passages (exact 95% interval).
    pub false_positives: bounds::Interval,
    /// Answerable questions of this style missed at the proposal, by id.
    pub misses: Vec<String>,
    /// Unanswerable questions of this style returning passages, by id.
    pub false_positive_ids: Vec<String>,
}

/// Whether the thresholds entry `p` keeps candidate `c`.
pub(super) fn keeps(p: &ModelThresholds, reranker: bool, c: &Candidate) -> bool {
    match (p.rerank, p.vector_z, p.keyword_coverage) {
        (Some(t), _, _) if reranker => c.rerank.is_some_and(|s| s >= t),
        (_, Some(z), Some(cv)) => c.cosine_z >= z || c.coverage >= cv,
        _ => false,
    }
}

/// The proposal's recall and false positives per question style present.
pub(super) fn per_style(qs: &[&Scored], p: &ModelThresholds, reranker: bool, order: Signal) -> Vec<StyleFigures> {
    let mut styles: Vec<Style> = qs.iter().map(|q| q.style).collect();
    styles.sort();
    styles.dedup();
    styles
        .into_iter()
        .map(|style| {
            let (mut misses, mut fp_ids, mut ans, mut un) = (vec![], vec![], 0u64, 0u64);
            for q in qs.iter().filter(|q| q.style == style) {
                let (hit, any) = outcome(q, &|c: &Candidate| keeps(p, reranker, c), order);
                if q.answerable {
                    ans += 1;
                    if !hit {
                        misses.push(q.id.clone());
                    }
                } else {
                    un += 1;
                    if any {
                        fp_ids.push(q.id.clone());
                    }
                }
            }
            StyleFigures {
                style,
                recall_at_5: bounds::clopper_pearson(ans - misses.len() as u64, ans, 0.95),
                false_positives: bounds::clopper_pearson(fp_ids.len() as u64, un, 0.95),
                misses,
                false_positive_ids: fp_ids,
            }
        })
        .collect()
}

/// Intervals at the applied threshold, rank metrics and bootstrap stability.
pub(super) fn annotate(r: &mut SignalReport, qs: &[&Scored]) {
    if r.applied.is_some() {
        let ok = |v: &[QuestionScore], want: bool| v.iter().filter(|q| q.ok_at_proposal == Some(want)).count() as u64;
        r.clears_interval = Some(bounds::clopper_pearson(ok(&r.answerable, true), r.answerable.len() as u64, 0.95));
        r.false_positive_interval =
            Some(bounds::clopper_pearson(ok(&r.unanswerable, false), r.unanswerable.len() as u64, 0.95));
    }
    r.rank = Some(rank::rank_metrics(qs, r.signal));
    r.stability = stability::stability(&r.answerable, &r.unanswerable, r.margin, 0xCA1B + r.signal as u64);
}

/// What to try when the proposed rule does not separate, most promising first.
pub(super) fn next_steps(
    reports: &[SignalReport],
    reranker: bool,
    answerable: usize,
    unanswerable: usize,
) -> Vec<String> {
    let mut out = vec![];
    let best = reports
        .iter()
        .filter(|r| r.signal != Signal::Cosine)
        .filter_map(|r| r.rank.as_ref().map(|m| (r.signal, m.recall_at_5.k)))
        .max_by_key(|(_, k)| *k);
    for r in reports.iter().filter(|r| r.margin.is_some_and(|m| m > 0.0) && r.signal != Signal::Cosine) {
        out.push(format!(
            "{} separates on its own (margin {:.4}): use it as the relevance signal",
            r.signal.name(),
            r.margin.unwrap_or_default()
        ));
    }
    if !reranker {
        out.push(
            "add a cross-encoder reranker (--reranker DIR): it scores each question-passage pair, which keyword coverage and the vector z-score cannot".into(),
        );
        out.push("keep the fused rule (coverage OR vector z): the proposal is the best zero-false-positive pair the joint search finds; the answerable questions it misses are listed below as NO".into());
    }
    if let Some((signal, k)) = best {
        out.push(format!(
            "read the misses of the best-ranking signal ({}: {k}/{answerable} answerable in the top 5 before any threshold): extend the glossary or the golden question when the passage is right but worded differently",
            signal.name()
        ));
    }
    out.push(format!(
        "add golden questions: with {unanswerable} unanswerable questions no single threshold can show a false-positive rate below {:.1}% at 95% confidence; 59 unanswerable questions with none getting a passage show at most 5% (`--max-false-positive-rate 0.05`)",
        bounds::upper_bound(0, unanswerable as u64, 0.95) * 100.0
    ));
    out
}
