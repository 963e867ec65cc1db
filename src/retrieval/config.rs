//! Retrieval options as the command line gives them, and loading the
//! models and thresholds they name.

use std::path::PathBuf;
use std::sync::Arc;

use super::embed::Embedder;
use super::rerank::Reranker;
use super::thresholds::{self, ThresholdsFile};
use super::{cross_encoder, e5, embed, KeepRule, RetrievalError, RetrievalSettings, Retriever};
use crate::catalogue::Catalogue;

/// Where the retrieval cache lives by default, relative to the working
/// directory: `passages.sqlite` and `index/`.
pub const RETRIEVAL_CACHE_DIR: &str = ".cache/retrieval";

/// Which embedder to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EmbedderChoice {
    /// Offline hashing embedder (default).
    #[default]
    Hashing,
    /// multilingual-e5-small from `<models>/multilingual-e5-small`.
    E5,
}

impl std::str::FromStr for EmbedderChoice {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "hashing" => Ok(Self::Hashing),
            "e5" => Ok(Self::E5),
            other => Err(format!("unknown embedder \"{other}\"; expected hashing or e5")),
        }
    }
}

/// A loaded embedder and, in reranker mode, a cross-encoder.
pub type Models = (Arc<dyn Embedder>, Option<Arc<dyn Reranker>>);

/// Retrieval options as the command line gives them.
#[derive(Debug, Clone)]
pub struct RetrievalConfig {
    /// Embedder.
    pub embedder: EmbedderChoice,
    /// Directory holding model folders (`multilingual-e5-small/`).
    pub models_dir: PathBuf,
    /// Cross-encoder directory, or `None` for fused mode.
    pub reranker: Option<PathBuf>,
    /// Thresholds file.
    pub thresholds: PathBuf,
    /// Retrieval cache directory (passage embeddings and the persisted
    /// index, see [`RetrievalSettings::cache_dir`]), or `None`.
    pub cache_dir: Option<PathBuf>,
}

impl Default for RetrievalConfig {
    fn default() -> Self {
        Self {
            embedder: EmbedderChoice::Hashing,
            models_dir: PathBuf::from("models"),
            reranker: None,
            thresholds: PathBuf::from(thresholds::DEFAULT_THRESHOLDS_FILE),
            cache_dir: Some(PathBuf::from(RETRIEVAL_CACHE_DIR)),
        }
    }
}

impl RetrievalConfig {
    /// Loads the configured models.
    ///
    /// # Errors
    /// A model that cannot be loaded.
    pub fn models(&self) -> Result<Models, RetrievalError> {
        let embedder: Arc<dyn Embedder> = match self.embedder {
            EmbedderChoice::Hashing => Arc::new(embed::HashingEmbedder::default()),
            EmbedderChoice::E5 => Arc::new(e5::E5Embedder::load(&self.models_dir.join(e5::E5_MODEL_ID))?),
        };
        let reranker: Option<Arc<dyn Reranker>> = match &self.reranker {
            None => None,
            Some(path) => Some(Arc::new(cross_encoder::CrossEncoder::load(path)?)),
        };
        Ok((embedder, reranker))
    }

    /// Loads models and thresholds and indexes the catalogue.
    ///
    /// # Errors
    /// Model loading, a missing or invalid thresholds file or entry, indexing.
    pub fn build(&self, catalogue: &Catalogue) -> Result<Retriever, RetrievalError> {
        // e5 loads on its own thread while the index opens (each about a
        // second); its errors still surface here, before any question.
        let background = match self.embedder {
            EmbedderChoice::E5 => {
                Some(Arc::new(e5::background::BackgroundE5::start(&self.models_dir.join(e5::E5_MODEL_ID))?))
            }
            EmbedderChoice::Hashing => None,
        };
        let (embedder, reranker) = match &background {
            Some(model) => (model.clone() as Arc<dyn Embedder>, self.reranker()?),
            None => self.models()?,
        };
        let file = ThresholdsFile::load(&self.thresholds)?;
        let keep = KeepRule::from_file(&file, embedder.model_id(), reranker.as_deref().map(|r| r.model_id()))?;
        let retriever = Retriever::build(
            catalogue,
            RetrievalSettings { embedder, reranker, keep, cache_dir: self.cache_dir.clone() },
        )?;
        if let Some(model) = background {
            model.wait()?;
        }
        Ok(retriever)
    }

    fn reranker(&self) -> Result<Option<Arc<dyn Reranker>>, RetrievalError> {
        Ok(match &self.reranker {
            None => None,
            Some(path) => Some(Arc::new(cross_encoder::CrossEncoder::load(path)?)),
        })
    }
}
