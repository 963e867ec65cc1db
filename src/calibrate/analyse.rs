//! One signal analysed alone: every golden question scored once
//! ([`score_golden`]), each question's best score and rank by the signal,
//! the threshold sweep, the separating midpoint or the recall-1 fallback,
//! and the leave-one-out count ([`analyse_signal`]).

use super::{QuestionScore, Signal, SignalReport, SweepRow};
use crate::golden::{GoldenSet, Style};
use crate::retrieval::{Candidate, RetrievalError, Retriever};

/// One golden question's scored candidates.
#[derive(Debug, Clone)]
pub struct Scored {
    /// Question id.
    pub id: String,
    /// The question.
    pub question: String,
    /// Answerable (with expected chunks) or not.
    pub answerable: bool,
    /// Question or keyword query.
    pub style: Style,
    /// Chunk ids that answer it.
    pub expected: Vec<String>,
    /// Merged candidates with every signal.
    pub candidates: Vec<(String, Candidate)>,
}

/// Scores every golden question once.
///
/// # Errors
/// A retrieval failure.
pub fn score_golden(
    golden: &GoldenSet,
    retriever: &Retriever,
    include_paraphrases: bool,
) -> Result<(Vec<Scored>, Vec<String>), RetrievalError> {
    let mut out = vec![];
    let mut excluded = vec![];
    for a in &golden.answerable {
        if a.needs_real_embeddings && !include_paraphrases {
            excluded.push(a.id.clone());
            continue;
        }
        let candidates = retriever.candidates(&a.question, a.listing.as_deref())?;
        out.push(Scored {
            id: a.id.clone(),
            question: a.question.clone(),
            answerable: true,
            style: a.style,
            expected: a.expected.clone(),
            candidates: candidates.into_iter().map(|c| (retriever.chunks()[c.chunk].id.clone(), c)).collect(),
        });
    }
    for u in &golden.unanswerable {
        let candidates = retriever.candidates(&u.question, u.listing.as_deref())?;
        out.push(Scored {
            id: u.id.clone(),
            question: u.question.clone(),
            answerable: false,
            style: u.style,
            expected: vec![],
            candidates: candidates.into_iter().map(|c| (retriever.chunks()[c.chunk].id.clone(), c)).collect(),
        });
    }
    Ok((out, excluded))
}

/// Best score (and rank by the signal) of an expected chunk, or the highest
/// score of any candidate for an unanswerable question.
pub(super) fn question_score(q: &Scored, signal: Signal) -> QuestionScore {
    let mut ranked: Vec<(&String, f64)> =
        q.candidates.iter().filter_map(|(id, c)| signal.of(c).map(|s| (id, s))).collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
    let pick = if q.answerable {
        ranked.iter().enumerate().find(|(_, (id, _))| q.expected.contains(id))
    } else {
        ranked.iter().enumerate().next()
    };
    QuestionScore {
        id: q.id.clone(),
        question: q.question.clone(),
        score: pick.map(|(_, (_, s))| *s),
        rank: if q.answerable { pick.map(|(i, _)| i + 1) } else { None },
        chunk: pick.map(|(_, (id, _))| (*id).clone()),
        ok_at_proposal: None,
    }
}

/// Whether, keeping candidates with `signal >= t` ordered by the signal, an
/// expected chunk lands in the top 5 (answerable) / anything is kept.
pub(super) fn outcome(q: &Scored, keep: &dyn Fn(&Candidate) -> bool, order: Signal) -> (bool, bool) {
    let mut kept: Vec<(&String, f64)> =
        q.candidates.iter().filter(|(_, c)| keep(c)).map(|(id, c)| (id, order.of(c).unwrap_or(0.0))).collect();
    kept.sort_by(|a, b| b.1.total_cmp(&a.1));
    let hit = q.answerable && kept.iter().take(5).any(|(id, _)| q.expected.contains(id));
    (hit, !kept.is_empty())
}

fn sweep_row(questions: &[&Scored], keep: &dyn Fn(&Candidate) -> bool, order: Signal, threshold: f64) -> SweepRow {
    let answerable = questions.iter().filter(|q| q.answerable).count();
    let (mut hits, mut returned, mut fps) = (0, 0, 0);
    for q in questions {
        let (hit, any) = outcome(q, keep, order);
        hits += usize::from(hit);
        returned += usize::from(any);
        fps += usize::from(any && !q.answerable);
    }
    let recall = if answerable > 0 { hits as f64 / answerable as f64 } else { 0.0 };
    let precision = if returned > 0 { hits as f64 / returned as f64 } else { 0.0 };
    let f1 = if precision + recall > 0.0 { 2.0 * precision * recall / (precision + recall) } else { 0.0 };
    SweepRow { threshold, recall_at_5: recall, false_positives: fps, precision, f1 }
}

/// Analyses one signal alone over a set of questions.
pub fn analyse_signal(questions: &[&Scored], signal: Signal) -> SignalReport {
    let scores: Vec<(bool, QuestionScore)> =
        questions.iter().map(|q| (q.answerable, question_score(q, signal))).collect();
    let answerable: Vec<QuestionScore> = scores.iter().filter(|(a, _)| *a).map(|(_, s)| s.clone()).collect();
    let unanswerable: Vec<QuestionScore> = scores.iter().filter(|(a, _)| !*a).map(|(_, s)| s.clone()).collect();
    let lowest = answerable
        .iter()
        .min_by(|a, b| a.score.unwrap_or(f64::NEG_INFINITY).total_cmp(&b.score.unwrap_or(f64::NEG_INFINITY)))
        .cloned();
    let highest = unanswerable
        .iter()
        .filter(|u| u.score.is_some())
        .max_by(|a, b| a.score.unwrap_or(0.0).total_cmp(&b.score.unwrap_or(0.0)))
        .cloned();
    let (lowest, highest) = (lowest.as_ref(), highest.as_ref());
    let margin = match (lowest.and_then(|l| l.score), highest.and_then(|h| h.score)) {
        (Some(lo), Some(hi)) => Some(lo - hi),
        (Some(_), None) if unanswerable.is_empty() => None,
        _ => None,
    };
    // Candidate thresholds: every observed score and the midpoints between neighbours.
    let mut values: Vec<f64> = scores.iter().filter_map(|(_, s)| s.score).collect();
    values.sort_by(f64::total_cmp);
    values.dedup_by(|a, b| (*a - *b).abs() < 1e-12);
    let mut thresholds: Vec<f64> = values.clone();
    thresholds.extend(values.windows(2).map(|w| (w[0] + w[1]) / 2.0));
    thresholds.sort_by(f64::total_cmp);
    let sweep: Vec<SweepRow> = thresholds
        .iter()
        .map(|&t| {
            let keep = move |c: &Candidate| signal.of(c).is_some_and(|s| s >= t);
            sweep_row(questions, &keep, signal, t)
        })
        .collect();
    let separating = match (margin, lowest.and_then(|l| l.score), highest.and_then(|h| h.score)) {
        (Some(m), Some(lo), Some(hi)) if m > 0.0 => {
            let mid = (lo + hi) / 2.0;
            // Separation also needs the expected chunk in the top 5 at the midpoint.
            let keep = move |c: &Candidate| signal.of(c).is_some_and(|s| s >= mid);
            let row = sweep_row(questions, &keep, signal, mid);
            (row.recall_at_5 >= 1.0 - 1e-12 && row.false_positives == 0).then_some(mid)
        }
        _ => None,
    };
    let keep_recall = if separating.is_some() {
        None
    } else {
        sweep
            .iter()
            .filter(|r| r.recall_at_5 >= 1.0 - 1e-12)
            .min_by(|a, b| a.false_positives.cmp(&b.false_positives).then(b.threshold.total_cmp(&a.threshold)))
            .cloned()
    };
    let best_f1 = if separating.is_some() {
        None
    } else {
        sweep.iter().max_by(|a, b| a.f1.total_cmp(&b.f1).then(b.threshold.total_cmp(&a.threshold))).cloned()
    };
    let mut report = SignalReport {
        signal,
        answerable,
        unanswerable,
        margin,
        lowest_answerable: lowest.map(|l| l.id.clone()),
        highest_unanswerable: highest.map(|h| h.id.clone()),
        sweep,
        separating,
        keep_recall,
        best_f1,
        loo_changed: 0,
        loo_total: questions.len(),
        applied: None,
        clears_interval: None,
        false_positive_interval: None,
        rank: None,
        stability: None,
    };
    if let Some(t) = report.proposal() {
        report.apply(t);
        // Leave-one-out: re-propose without each question; count changed verdicts.
        let verdict = |q: &QuestionScore, answerable: bool, t: f64| {
            if answerable {
                q.score.is_some_and(|v| v >= t)
            } else {
                q.score.is_none_or(|v| v < t)
            }
        };
        let mut changed = 0;
        for (i, q) in questions.iter().enumerate() {
            if questions.len() < 3 {
                break;
            }
            let rest: Vec<&Scored> = questions.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, q)| *q).collect();
            let sub = analyse_signal_no_loo(&rest, signal);
            if let Some(t2) = sub {
                let qs = question_score(q, signal);
                if verdict(&qs, q.answerable, t) != verdict(&qs, q.answerable, t2) {
                    changed += 1;
                }
            }
        }
        report.loo_changed = changed;
    }
    report
}

fn analyse_signal_no_loo(questions: &[&Scored], signal: Signal) -> Option<f64> {
    let scores: Vec<(bool, Option<f64>)> =
        questions.iter().map(|q| (q.answerable, question_score(q, signal).score)).collect();
    let lo =
        scores.iter().filter(|(a, _)| *a).map(|(_, s)| s.unwrap_or(f64::NEG_INFINITY)).fold(f64::INFINITY, f64::min);
    let hi = scores.iter().filter(|(a, _)| !*a).filter_map(|(_, s)| *s).fold(f64::NEG_INFINITY, f64::max);
    if lo.is_finite() && hi.is_finite() && lo > hi {
        Some((lo + hi) / 2.0)
    } else if lo.is_finite() && hi.is_finite() {
        Some(lo)
    } else {
        None
    }
}
