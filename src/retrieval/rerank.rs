//! Rerankers: score (question, passage) pairs with a cross-encoder.
//!
//! Scores are relevance probabilities in 0..1: the sigmoid of the
//! cross-encoder's logit, applied exactly once.

/// Error from a reranker (model loading or inference).
#[derive(Debug, thiserror::Error)]
#[error("reranker {model}: {message}")]
pub struct RerankError {
    /// Model id.
    pub model: String,
    /// What failed.
    pub message: String,
}

/// Scores how well each passage answers a question.
pub trait Reranker: Send + Sync {
    /// Stable model id; keys the thresholds file.
    fn model_id(&self) -> &str;
    /// One score in 0..1 per passage, in passage order. Passages are chunk index
    /// texts (with their context header).
    ///
    /// # Errors
    /// Inference failure.
    fn score(&self, question: &str, passages: &[&str]) -> Result<Vec<f32>, RerankError>;
}

/// Logistic function; maps a cross-encoder logit to 0..1.
pub fn sigmoid(logit: f32) -> f32 {
    1.0 / (1.0 + (-logit).exp())
}
