//! The retrieval golden set (`golden/*.yaml`): questions `search_knowledge` must
//! answer with one of the expected chunks in its top five, and questions it
//! must answer with `found: false`.
//!
//! ```yaml
//! answerable:
//!   - id: heating-hh-1001
//!     lang: en
//!     question: "Is heating included in the utilities for HH-1001?"
//!     listing: HH-1001            # optional scope
//!     expected: ["HH-1001#s5"]    # any one of these answers it
//!     needs_real_embeddings: false
//! unanswerable:
//!   - id: gym-nearby
//!     lang: en
//!     question: "Is there a gym nearby?"
//! ```

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::catalogue::Catalogue;

/// Language of a question or case.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    /// English (the default).
    #[default]
    En,
    /// German.
    De,
}

impl Lang {
    /// `en` or `de`.
    pub fn as_str(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::De => "de",
        }
    }
}

/// How a golden query is written: as a customer asks it, or as the terse
/// keyword search a model sends to `search_knowledge` ("Kaution Höhe").
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Style {
    /// A full question (the default).
    #[default]
    Question,
    /// A keyword query.
    Keywords,
}

impl Style {
    /// `question` or `keywords`.
    pub fn as_str(self) -> &'static str {
        match self {
            Style::Question => "question",
            Style::Keywords => "keywords",
        }
    }
}

/// A question with at least one chunk that answers it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Answerable {
    /// Unique id.
    pub id: String,
    /// Question language.
    pub lang: Lang,
    /// How it is written (default `question`).
    #[serde(default)]
    pub style: Style,
    /// The question as a customer writes it.
    pub question: String,
    /// Optional listing scope.
    #[serde(default)]
    pub listing: Option<String>,
    /// Chunk ids any one of which answers it.
    pub expected: Vec<String>,
    /// True for paraphrases and cross-lingual questions that keyword and hashing
    /// search cannot be expected to find.
    #[serde(default)]
    pub needs_real_embeddings: bool,
}

/// A question the catalogue cannot answer: retrieval must return `found: false`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Unanswerable {
    /// Unique id.
    pub id: String,
    /// Question language.
    pub lang: Lang,
    /// How it is written (default `question`).
    #[serde(default)]
    pub style: Style,
    /// The question.
    pub question: String,
    /// Optional listing scope.
    #[serde(default)]
    pub listing: Option<String>,
}

/// A loaded, validated golden set.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GoldenSet {
    /// Answerable questions.
    #[serde(default)]
    pub answerable: Vec<Answerable>,
    /// Unanswerable questions.
    #[serde(default)]
    pub unanswerable: Vec<Unanswerable>,
}

/// Why a golden set could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum GoldenError {
    /// Unreadable file.
    #[error("{path}: cannot read")]
    Io {
        /// File.
        path: PathBuf,
        /// Cause.
        source: std::io::Error,
    },
    /// YAML syntax or schema error, with line and column where known.
    #[error("{path}: {message}")]
    Invalid {
        /// File.
        path: PathBuf,
        /// What was wrong and where.
        message: String,
    },
}

impl GoldenSet {
    /// Loads a golden set and checks it against a catalogue: unique ids, known
    /// listing scopes, expected chunk ids that exist and lie in the scope,
    /// non-empty questions and expectations.
    ///
    /// # Errors
    /// [`GoldenError`] naming the file and the question id, field or line.
    pub fn load(path: &Path, catalogue: &Catalogue) -> Result<Self, GoldenError> {
        let text = std::fs::read_to_string(path).map_err(|source| GoldenError::Io { path: path.into(), source })?;
        let set: GoldenSet = yaml_serde::from_str(&text).map_err(|e| GoldenError::Invalid {
            path: path.into(),
            message: match e.location() {
                // The library's message may already end in "at line L column C".
                Some(loc) if !e.to_string().contains(" at line ") => {
                    format!("line {}, column {}: {e}", loc.line(), loc.column())
                }
                _ => e.to_string(),
            },
        })?;
        if set.answerable.is_empty() && set.unanswerable.is_empty() {
            return Err(GoldenError::Invalid {
                path: path.into(),
                message: "no questions: expected an `answerable:` and an `unanswerable:` list".into(),
            });
        }
        set.validate(path, catalogue)?;
        Ok(set)
    }

    /// Loads several golden files as one set (e.g. `golden.yaml` and
    /// `keywords.yaml`); an id used in two files is an error naming both.
    ///
    /// # Errors
    /// As [`GoldenSet::load`], for the file at fault.
    pub fn load_all(paths: &[PathBuf], catalogue: &Catalogue) -> Result<Self, GoldenError> {
        let mut all = GoldenSet::default();
        let mut owner: HashMap<String, PathBuf> = HashMap::new();
        for path in paths {
            let set = Self::load(path, catalogue)?;
            let ids = set.answerable.iter().map(|a| &a.id).chain(set.unanswerable.iter().map(|u| &u.id));
            for id in ids {
                if let Some(first) = owner.insert(id.clone(), path.clone()) {
                    return Err(GoldenError::Invalid {
                        path: path.clone(),
                        message: format!("question `{id}`: id also used in {}; expected unique ids", first.display()),
                    });
                }
            }
            all.answerable.extend(set.answerable);
            all.unanswerable.extend(set.unanswerable);
        }
        Ok(all)
    }

    fn validate(&self, path: &Path, catalogue: &Catalogue) -> Result<(), GoldenError> {
        let invalid = |id: &str, message: String| GoldenError::Invalid {
            path: path.into(),
            message: format!("question `{id}`: {message}"),
        };
        let mut seen: HashMap<&str, ()> = HashMap::new();
        let chunk_owner: HashMap<&str, Option<&str>> =
            catalogue.chunks.iter().map(|c| (c.id.as_str(), c.listing_id.as_deref())).collect();
        let all = self
            .answerable
            .iter()
            .map(|a| (&a.id, &a.question, &a.listing))
            .chain(self.unanswerable.iter().map(|u| (&u.id, &u.question, &u.listing)));
        for (id, question, listing) in all {
            if id.trim().is_empty() {
                return Err(GoldenError::Invalid { path: path.into(), message: "a question has an empty `id`".into() });
            }
            if seen.insert(id.as_str(), ()).is_some() {
                return Err(invalid(id, "duplicate id; expected unique ids".into()));
            }
            let len = question.trim().chars().count();
            if !(3..=300).contains(&len) {
                return Err(invalid(id, format!("field `question` has {len} characters; expected 3 to 300")));
            }
            if let Some(l) = listing {
                if catalogue.listing(l).is_none() {
                    return Err(invalid(id, format!("field `listing`: unknown listing id \"{l}\"")));
                }
            }
        }
        for a in &self.answerable {
            if a.expected.is_empty() {
                return Err(invalid(&a.id, "field `expected` is empty; expected at least one chunk id".into()));
            }
            for (i, chunk) in a.expected.iter().enumerate() {
                if a.expected[..i].contains(chunk) {
                    return Err(invalid(&a.id, format!("field `expected`: chunk id \"{chunk}\" is listed twice")));
                }
                match chunk_owner.get(chunk.as_str()) {
                    None => return Err(invalid(&a.id, format!("field `expected`: unknown chunk id \"{chunk}\""))),
                    Some(Some(owner)) if a.listing.as_deref().is_some_and(|l| l != *owner) => {
                        return Err(invalid(
                            &a.id,
                            format!(
                                "field `expected`: chunk \"{chunk}\" belongs to {owner}, outside the scope {}",
                                a.listing.as_deref().unwrap_or_default()
                            ),
                        ))
                    }
                    _ => {}
                }
            }
        }
        Ok(())
    }
}
