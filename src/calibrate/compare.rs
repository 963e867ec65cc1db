//! Two retrieval configurations on the same golden set: the retrieval
//! counterpart of `inquiry compare` (`inquiry compare-retrieval`).
//!
//! Each configuration (embedder, reranker, thresholds file) answers every
//! golden question through the live pipeline ([`Retriever::retrieve`], the
//! keep rule of its thresholds entry, top 5), exactly what `search_knowledge`
//! returns. Per answerable question: recall@1 and recall@5 (an expected chunk
//! first / among the five), the reciprocal rank of the first expected chunk
//! among the five (0 when none) and nDCG@5 (binary relevance, see
//! [`super::rank::ndcg_at_5`]); per unanswerable question: whether anything
//! is returned (a false positive). Every metric is compared per question,
//! `cand − base`, with the paired percentile bootstrap 95% interval of the
//! mean difference ([`crate::stats::bootstrap_mean_interval`] over the
//! per-question differences: 10,000 seeded resamples) and the exact paired
//! sign-flip p-value ([`crate::stats::sign_flip_test`]). The questions whose
//! outcome changed are listed.
//!
//! Every answerable question is measured with both configurations, including
//! those marked `needs_real_embeddings` (the comparison is paired, so both
//! sides see the same questions).

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use super::rank::ndcg_at_5;
use crate::golden::{GoldenSet, Style};
use crate::retrieval::{RetrievalError, Retriever};
use crate::stats::{bootstrap_mean_interval, sign_flip_test, Interval};

/// Passages per question: what `search_knowledge` returns by default and the
/// depth of recall@5 and nDCG@5.
pub const DEPTH: usize = 5;

/// One question answered by one configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QuestionOutcome {
    /// Question id.
    pub id: String,
    /// The question.
    pub question: String,
    /// Question or keyword query.
    pub style: Style,
    /// Answerable (with expected chunks) or not.
    pub answerable: bool,
    /// Chunk ids returned, best first (at most [`DEPTH`]).
    pub returned: Vec<String>,
    /// 1-based rank of the first expected chunk among them (answerable only).
    pub rank: Option<usize>,
    /// nDCG@5 (answerable only; 0 for unanswerable questions).
    pub ndcg_at_5: f64,
}

impl QuestionOutcome {
    /// The value of `metric` for this question (`None`: the metric does not
    /// apply, e.g. recall on an unanswerable question).
    pub fn value(&self, metric: Metric) -> Option<f64> {
        let hit = |k: usize| f64::from(u8::from(self.rank.is_some_and(|r| r <= k)));
        match (metric, self.answerable) {
            (Metric::RecallAt1, true) => Some(hit(1)),
            (Metric::RecallAt5, true) => Some(hit(DEPTH)),
            (Metric::Mrr, true) => Some(self.rank.map_or(0.0, |r| 1.0 / r as f64)),
            (Metric::NdcgAt5, true) => Some(self.ndcg_at_5),
            (Metric::FalsePositive, false) => Some(f64::from(u8::from(!self.returned.is_empty()))),
            _ => None,
        }
    }
}

/// Answers every golden question with `retriever` (its own keep rule, top [`DEPTH`]).
///
/// # Errors
/// A retrieval failure.
pub fn measure(golden: &GoldenSet, retriever: &Retriever) -> Result<Vec<QuestionOutcome>, RetrievalError> {
    let mut out = vec![];
    let questions = golden
        .answerable
        .iter()
        .map(|a| (&a.id, &a.question, a.style, a.listing.as_deref(), Some(&a.expected)))
        .chain(golden.unanswerable.iter().map(|u| (&u.id, &u.question, u.style, u.listing.as_deref(), None)));
    for (id, question, style, listing, expected) in questions {
        let found = retriever.retrieve(question, listing, DEPTH)?;
        let returned: Vec<String> = found.results.into_iter().map(|h| h.chunk_id).collect();
        let (rank, ndcg) = match expected {
            Some(e) => {
                let flags: Vec<bool> = returned.iter().map(|c| e.contains(c)).collect();
                (flags.iter().position(|f| *f).map(|i| i + 1), ndcg_at_5(&flags, e.len()))
            }
            None => (None, 0.0),
        };
        out.push(QuestionOutcome {
            id: id.clone(),
            question: question.clone(),
            style,
            answerable: expected.is_some(),
            returned,
            rank,
            ndcg_at_5: ndcg,
        });
    }
    Ok(out)
}

/// A compared metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// An expected chunk returned first (answerable questions).
    RecallAt1,
    /// An expected chunk among the five returned (answerable questions).
    RecallAt5,
    /// Reciprocal rank of the first expected chunk among the five (answerable questions).
    Mrr,
    /// nDCG@5 (answerable questions).
    NdcgAt5,
    /// Anything returned for an unanswerable question (lower is better).
    FalsePositive,
}

impl Metric {
    /// Every metric, in report order.
    pub const ALL: [Metric; 5] =
        [Metric::RecallAt1, Metric::RecallAt5, Metric::Mrr, Metric::NdcgAt5, Metric::FalsePositive];

    /// Name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Metric::RecallAt1 => "recall@1",
            Metric::RecallAt5 => "recall@5",
            Metric::Mrr => "MRR@5",
            Metric::NdcgAt5 => "nDCG@5",
            Metric::FalsePositive => "unanswerable returning passages",
        }
    }
}

/// One metric's paired difference.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricDifference {
    /// The metric.
    pub metric: Metric,
    /// Questions it applies to (answerable, or unanswerable for false positives).
    pub questions: usize,
    /// Mean with the base configuration.
    pub base: f64,
    /// Mean with the candidate.
    pub cand: f64,
    /// Mean per-question difference, cand − base.
    pub difference: f64,
    /// Paired percentile bootstrap 95% interval of that mean (`None`: no question).
    pub interval: Option<Interval>,
    /// The project's paired interval of the same mean
    /// ([`crate::stats::paired::paired_difference`]: Agresti–Min pseudo-pairs,
    /// t with n − 1 degrees of freedom), which does not collapse to a point
    /// when no question changed (`None`: no question).
    pub paired_interval: Option<Interval>,
    /// Two-sided paired sign-flip p-value of "no difference".
    pub p_value: f64,
    /// Questions where the candidate is higher.
    pub higher: usize,
    /// Questions where the candidate is lower.
    pub lower: usize,
}

/// A question whose outcome differs between the two configurations.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChangedQuestion {
    /// Question id.
    pub id: String,
    /// The question.
    pub question: String,
    /// Question or keyword query.
    pub style: Style,
    /// Answerable or not.
    pub answerable: bool,
    /// Base: rank of the first expected chunk (answerable) / passages returned (unanswerable).
    pub base: Option<usize>,
    /// Candidate: the same.
    pub cand: Option<usize>,
    /// Base's first returned chunk.
    pub base_top: Option<String>,
    /// Candidate's first returned chunk.
    pub cand_top: Option<String>,
}

/// The comparison of two configurations on one golden set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RetrievalComparison {
    /// What the base configuration is (models and keep rule).
    pub base: String,
    /// What the candidate is.
    pub cand: String,
    /// Answerable questions.
    pub answerable: usize,
    /// Unanswerable questions.
    pub unanswerable: usize,
    /// Every metric's paired difference, in [`Metric::ALL`] order.
    pub metrics: Vec<MetricDifference>,
    /// Answerable questions whose first expected rank changed, and
    /// unanswerable questions whose "anything returned" changed.
    pub changed: Vec<ChangedQuestion>,
}

/// Errors of [`compare`].
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum CompareError {
    /// The two measurements are not of the same questions.
    #[error("the two configurations answered different questions (base {base}, cand {cand}): measure both on the same golden set")]
    NotPaired {
        /// Question ids of the base, in order.
        base: String,
        /// Question ids of the candidate.
        cand: String,
    },
}

/// Pairs two measurements of the same golden set question by question.
///
/// # Errors
/// [`CompareError::NotPaired`] when the question ids differ.
pub fn compare(
    base_label: &str,
    base: &[QuestionOutcome],
    cand_label: &str,
    cand: &[QuestionOutcome],
) -> Result<RetrievalComparison, CompareError> {
    if base.len() != cand.len() || base.iter().zip(cand).any(|(b, c)| b.id != c.id) {
        let show = |v: &[QuestionOutcome]| format!("{} questions", v.len());
        return Err(CompareError::NotPaired { base: show(base), cand: show(cand) });
    }
    let metrics = Metric::ALL
        .iter()
        .map(|&metric| {
            let pairs: Vec<(f64, f64)> =
                base.iter().zip(cand).filter_map(|(b, c)| Some((b.value(metric)?, c.value(metric)?))).collect();
            let ids: Vec<&str> =
                base.iter().zip(cand).filter(|(b, _)| b.value(metric).is_some()).map(|(b, _)| b.id.as_str()).collect();
            let n = pairs.len();
            let mean =
                |f: &dyn Fn(&(f64, f64)) -> f64| if n > 0 { pairs.iter().map(f).sum::<f64>() / n as f64 } else { 0.0 };
            let diffs: Vec<f64> = pairs.iter().map(|(b, c)| c - b).collect();
            MetricDifference {
                metric,
                questions: n,
                base: mean(&|p| p.0),
                cand: mean(&|p| p.1),
                difference: mean(&|p| p.1 - p.0),
                interval: bootstrap_mean_interval(&diffs),
                paired_interval: crate::stats::paired::paired_difference(
                    pairs.iter().zip(&ids).map(|((b, c), id)| (*b, *c, *id)),
                )
                .map(|d| d.interval),
                p_value: sign_flip_test(&diffs).0,
                higher: diffs.iter().filter(|d| **d > 1e-12).count(),
                lower: diffs.iter().filter(|d| **d < -1e-12).count(),
            }
        })
        .collect();
    let changed = base
        .iter()
        .zip(cand)
        .filter(|(b, c)| if b.answerable { b.rank != c.rank } else { b.returned.is_empty() != c.returned.is_empty() })
        .map(|(b, c)| {
            let side = |q: &QuestionOutcome| if q.answerable { q.rank } else { Some(q.returned.len()) };
            ChangedQuestion {
                id: b.id.clone(),
                question: b.question.clone(),
                style: b.style,
                answerable: b.answerable,
                base: side(b),
                cand: side(c),
                base_top: b.returned.first().cloned(),
                cand_top: c.returned.first().cloned(),
            }
        })
        .collect();
    Ok(RetrievalComparison {
        base: base_label.to_owned(),
        cand: cand_label.to_owned(),
        answerable: base.iter().filter(|q| q.answerable).count(),
        unanswerable: base.iter().filter(|q| !q.answerable).count(),
        metrics,
        changed,
    })
}

fn signed(v: f64) -> String {
    format!("{}{:.1}", if v >= 0.0 { "+" } else { "−" }, v.abs() * 100.0)
}

/// The comparison as Markdown (figures in percentage points).
pub fn render_markdown(c: &RetrievalComparison, golden: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# Retrieval comparison\n");
    let _ =
        writeln!(s, "- Golden set: {golden} ({} answerable, {} unanswerable questions)", c.answerable, c.unanswerable);
    let _ = writeln!(s, "- Base: {}", c.base);
    let _ = writeln!(s, "- Candidate: {}", c.cand);
    let _ = writeln!(
        s,
        "- Each question is answered by the live pipeline (keep rule, top {DEPTH}); differences are cand − base per question, with two 95% intervals of their mean (the paired percentile bootstrap, which is a point when no question changed, and the paired interval `inquiry compare` uses, with Agresti–Min pseudo-pairs) and the paired sign-flip p-value.\n"
    );
    let _ = writeln!(s, "| metric | questions | base | candidate | difference (points) | 95% CI (paired bootstrap) | 95% CI (paired, Agresti–Min) | p (sign-flip) | higher / lower |");
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|");
    for m in &c.metrics {
        if m.questions == 0 {
            let _ = writeln!(
                s,
                "| {} | 0 | unmeasured | unmeasured | unmeasured | unmeasured | unmeasured | unmeasured | 0 / 0 |",
                m.metric.name()
            );
            continue;
        }
        let ci = |i: Option<Interval>| {
            i.map_or("unmeasured".to_owned(), |i| format!("{} to {}", signed(i.lo), signed(i.hi)))
        };
        let _ = writeln!(
            s,
            "| {} | {} | {:.1}% | {:.1}% | {} | {} | {} | {:.3} | {} / {} |",
            m.metric.name(),
            m.questions,
            m.base * 100.0,
            m.cand * 100.0,
            signed(m.difference),
            ci(m.interval),
            ci(m.paired_interval),
            m.p_value,
            m.higher,
            m.lower
        );
    }
    let _ = writeln!(s, "\nFor the false-positive row lower is better; for every other row higher is better.\n");
    let _ = writeln!(s, "## Questions that changed ({})\n", c.changed.len());
    if c.changed.is_empty() {
        let _ = writeln!(s, "None: every question has the same outcome with both configurations.");
        return s;
    }
    let _ = writeln!(s, "| id | style | kind | base | candidate | base first | candidate first | question |");
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|");
    for q in &c.changed {
        let show = |v: Option<usize>| match (q.answerable, v) {
            (true, Some(r)) => format!("rank {r}"),
            (true, None) => "not in top 5".to_owned(),
            (false, Some(0)) => "nothing found".to_owned(),
            (false, Some(n)) => format!("{n} returned"),
            (false, None) => "unmeasured".to_owned(),
        };
        let cell = |t: &Option<String>| t.as_deref().map_or("—".to_owned(), |t| format!("`{t}`"));
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            q.id,
            q.style.as_str(),
            if q.answerable { "answerable" } else { "unanswerable" },
            show(q.base),
            show(q.cand),
            cell(&q.base_top),
            cell(&q.cand_top),
            q.question.replace('|', "\\|")
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(id: &str, answerable: bool, returned: &[&str], rank: Option<usize>) -> QuestionOutcome {
        QuestionOutcome {
            id: id.into(),
            question: format!("{id}?"),
            style: Style::Question,
            answerable,
            returned: returned.iter().map(|s| (*s).to_owned()).collect(),
            rank,
            ndcg_at_5: rank.map_or(0.0, |r| 1.0 / ((r + 1) as f64).log2()),
        }
    }

    #[test]
    fn paired_differences_and_changed_questions() {
        let base = vec![
            q("a", true, &["x", "e"], Some(2)),
            q("b", true, &["e"], Some(1)),
            q("c", true, &["x"], None),
            q("u", false, &["x"], None),
            q("v", false, &[], None),
        ];
        let cand = vec![
            q("a", true, &["e"], Some(1)),
            q("b", true, &["e"], Some(1)),
            q("c", true, &["e"], Some(1)),
            q("u", false, &[], None),
            q("v", false, &[], None),
        ];
        let c = compare("base", &base, "cand", &cand).unwrap();
        let r1 = &c.metrics[0];
        assert_eq!((r1.metric, r1.questions, r1.higher, r1.lower), (Metric::RecallAt1, 3, 2, 0));
        assert!((r1.base - 1.0 / 3.0).abs() < 1e-12 && (r1.cand - 1.0).abs() < 1e-12);
        assert!((r1.difference - 2.0 / 3.0).abs() < 1e-12);
        // Two questions gained, exact sign-flip: 2 of 4 assignments as extreme.
        assert!((r1.p_value - 0.5).abs() < 1e-12, "{}", r1.p_value);
        let i = r1.interval.unwrap();
        assert!(i.lo >= 0.0 && i.hi <= 1.0 && i.lo <= 2.0 / 3.0 && i.hi >= 2.0 / 3.0, "{i:?}");
        let mrr = &c.metrics[2];
        assert!((mrr.base - 0.5).abs() < 1e-12 && (mrr.difference - 0.5).abs() < 1e-12);
        let fp = &c.metrics[4];
        assert_eq!((fp.questions, fp.lower, fp.higher), (2, 1, 0));
        assert!((fp.difference + 0.5).abs() < 1e-12);
        let ids: Vec<&str> = c.changed.iter().map(|q| q.id.as_str()).collect();
        assert_eq!(ids, ["a", "c", "u"]);
        assert_eq!((c.changed[1].base, c.changed[1].cand), (None, Some(1)));
        let md = render_markdown(&c, "g.yaml");
        assert!(md.contains("| recall@1 | 3 | 33.3% | 100.0% | +66.7 |"), "{md}");
        let pi = r1.paired_interval.unwrap();
        assert!(pi.lo < i.lo && pi.hi <= 1.0, "the pseudo-pairs widen it: {pi:?} vs {i:?}");
        assert!(md.contains("| u | question | unanswerable | 1 returned | nothing found |"), "{md}");
    }

    #[test]
    fn different_questions_are_refused() {
        let a = vec![q("a", true, &[], None)];
        let b = vec![q("b", true, &[], None)];
        assert!(matches!(compare("x", &a, "y", &b), Err(CompareError::NotPaired { .. })));
    }
}
