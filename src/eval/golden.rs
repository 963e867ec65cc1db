//! Retrieval figures from the golden set: recall@5 on answerable questions and
//! unanswerable questions that returned passages (SPEC §7).

use serde::{Deserialize, Serialize};

use crate::golden::GoldenSet;
use crate::retrieval::{RetrievalError, Retriever};

/// An answerable question whose expected chunks were not in the top 5.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct GoldenMiss {
    /// Question id.
    pub id: String,
    /// The question.
    pub question: String,
    /// Acceptable chunk ids.
    pub expected: Vec<String>,
    /// What came back instead (empty with `found: false`).
    pub returned: Vec<String>,
    /// Marked as needing real embeddings.
    pub needs_real_embeddings: bool,
}

/// An unanswerable question that returned passages.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct GoldenFalsePositive {
    /// Question id.
    pub id: String,
    /// The question.
    pub question: String,
    /// Returned chunk ids.
    pub returned: Vec<String>,
}

/// Retrieval results on the golden set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct GoldenReport {
    /// Answerable questions.
    pub answerable: usize,
    /// Of which with an expected chunk in the top 5.
    pub hits: usize,
    /// Answerable questions not marked as needing real embeddings.
    pub keyword_answerable: usize,
    /// Of which hits.
    pub keyword_hits: usize,
    /// Misses.
    pub misses: Vec<GoldenMiss>,
    /// Unanswerable questions.
    pub unanswerable: usize,
    /// Unanswerable questions that returned passages.
    pub false_positives: Vec<GoldenFalsePositive>,
}

impl GoldenReport {
    /// The report of a run that did not evaluate the golden set (a shard
    /// other than the first): no questions, so its metrics are n/a.
    pub fn not_run() -> Self {
        Self {
            answerable: 0,
            hits: 0,
            keyword_answerable: 0,
            keyword_hits: 0,
            misses: vec![],
            unanswerable: 0,
            false_positives: vec![],
        }
    }
}

/// Runs every golden question through `search_knowledge`'s pipeline with k = 5.
///
/// # Errors
/// A retrieval failure.
pub fn evaluate(golden: &GoldenSet, retriever: &Retriever) -> Result<GoldenReport, RetrievalError> {
    let mut report = GoldenReport {
        answerable: golden.answerable.len(),
        hits: 0,
        keyword_answerable: 0,
        keyword_hits: 0,
        misses: vec![],
        unanswerable: golden.unanswerable.len(),
        false_positives: vec![],
    };
    for q in &golden.answerable {
        let out = retriever.retrieve(&q.question, q.listing.as_deref(), 5)?;
        let returned: Vec<String> = out.results.iter().map(|h| h.chunk_id.clone()).collect();
        let hit = returned.iter().any(|id| q.expected.contains(id));
        report.hits += usize::from(hit);
        if !q.needs_real_embeddings {
            report.keyword_answerable += 1;
            report.keyword_hits += usize::from(hit);
        }
        if !hit {
            report.misses.push(GoldenMiss {
                id: q.id.clone(),
                question: q.question.clone(),
                expected: q.expected.clone(),
                returned,
                needs_real_embeddings: q.needs_real_embeddings,
            });
        }
    }
    for q in &golden.unanswerable {
        let out = retriever.retrieve(&q.question, q.listing.as_deref(), 5)?;
        if out.found {
            report.false_positives.push(GoldenFalsePositive {
                id: q.id.clone(),
                question: q.question.clone(),
                returned: out.results.iter().map(|h| h.chunk_id.clone()).collect(),
            });
        }
    }
    Ok(report)
}
