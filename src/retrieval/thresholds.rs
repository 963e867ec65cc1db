//! Retrieval thresholds, keyed by model id, in a JSON file
//! (`retrieval.thresholds.json` by default) written by `inquiry calibrate --write`.
//!
//! ```json
//! {
//!   "hashing-512-v1": { "vectorZ": 3.1, "keywordCoverage": 0.62 },
//!   "bge-reranker-v2-m3": { "rerank": 0.008 }
//! }
//! ```
//! An embedder entry holds the two thresholds used without a reranker; a
//! reranker entry holds the reranker score threshold.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Default file name, at the repository root.
pub const DEFAULT_THRESHOLDS_FILE: &str = "retrieval.thresholds.json";

/// Thresholds of one model id.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ModelThresholds {
    /// Keep a chunk whose cosine z-score among the scoped chunks is at least this.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vector_z: Option<f64>,
    /// Keep a chunk whose keyword coverage (0..1) is at least this.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keyword_coverage: Option<f64>,
    /// Keep a chunk whose reranker score (0..1) is at least this.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rerank: Option<f64>,
}

/// The whole thresholds file: model id → thresholds.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ThresholdsFile {
    /// Where it was read from (for messages).
    pub path: PathBuf,
    /// Entries by model id.
    pub entries: BTreeMap<String, ModelThresholds>,
}

/// Why thresholds could not be read or used.
#[derive(Debug, thiserror::Error)]
pub enum ThresholdsError {
    /// Unreadable file.
    #[error("{path}: cannot read")]
    Io {
        /// File.
        path: PathBuf,
        /// Cause.
        source: std::io::Error,
    },
    /// Invalid JSON or an invalid entry.
    #[error("{path}: {message}")]
    Invalid {
        /// File.
        path: PathBuf,
        /// What was wrong, with the model id / field / line.
        message: String,
    },
    /// No entry (or no needed value) for the active model.
    #[error(
        "{path}: no {what} threshold for model `{model}`; run `inquiry calibrate --write` to measure and store one"
    )]
    Missing {
        /// File.
        path: PathBuf,
        /// Model id looked up.
        model: String,
        /// Which value was missing.
        what: &'static str,
    },
}

impl ThresholdsFile {
    /// Reads and validates a thresholds file.
    ///
    /// # Errors
    /// Unreadable file, invalid JSON (line and column), unknown field, a
    /// non-finite value or a value outside its range (coverage and rerank 0..1).
    pub fn load(path: &Path) -> Result<Self, ThresholdsError> {
        let text = std::fs::read_to_string(path).map_err(|source| ThresholdsError::Io { path: path.into(), source })?;
        Self::parse(path, &text)
    }

    /// Parses thresholds from text (see [`ThresholdsFile::load`]).
    ///
    /// # Errors
    /// As [`ThresholdsFile::load`].
    pub fn parse(path: &Path, text: &str) -> Result<Self, ThresholdsError> {
        let invalid = |message: String| ThresholdsError::Invalid { path: path.into(), message };
        let entries: BTreeMap<String, ModelThresholds> = crate::json_file::from_str(text).map_err(invalid)?;
        for (model, t) in &entries {
            for (name, value, max) in [
                ("vectorZ", t.vector_z, f64::INFINITY),
                ("keywordCoverage", t.keyword_coverage, 1.0),
                ("rerank", t.rerank, 1.0),
            ] {
                if let Some(v) = value {
                    let min = if name == "vectorZ" { f64::NEG_INFINITY } else { 0.0 };
                    if !v.is_finite() || v < min || v > max {
                        return Err(invalid(format!(
                            "model `{model}`, field `{name}`: found {v}; expected a finite number{}",
                            if max == 1.0 { " in 0..1" } else { "" }
                        )));
                    }
                }
            }
        }
        Ok(Self { path: path.into(), entries })
    }

    /// The fused-mode thresholds (vector z, keyword coverage) of an embedder.
    ///
    /// # Errors
    /// [`ThresholdsError::Missing`] naming the model and telling the user to calibrate.
    pub fn fused(&self, embedder: &str) -> Result<(f64, f64), ThresholdsError> {
        let t = self.entries.get(embedder);
        let z = t.and_then(|t| t.vector_z).ok_or_else(|| self.missing(embedder, "vectorZ"))?;
        let c = t.and_then(|t| t.keyword_coverage).ok_or_else(|| self.missing(embedder, "keywordCoverage"))?;
        Ok((z, c))
    }

    /// The reranker score threshold of a reranker model.
    ///
    /// # Errors
    /// [`ThresholdsError::Missing`] naming the model and telling the user to calibrate.
    pub fn rerank(&self, reranker: &str) -> Result<f64, ThresholdsError> {
        self.entries.get(reranker).and_then(|t| t.rerank).ok_or_else(|| self.missing(reranker, "rerank"))
    }

    fn missing(&self, model: &str, what: &'static str) -> ThresholdsError {
        ThresholdsError::Missing { path: self.path.clone(), model: model.into(), what }
    }

    /// Pretty JSON text of the file, entries sorted by model id, trailing newline.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(&self.entries).unwrap_or_default() + "\n"
    }
}
