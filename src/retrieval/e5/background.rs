//! e5 loaded on a thread of its own while the catalogue's persisted index
//! opens (#32): loading takes about a second, opening or updating the index
//! about as long, and neither needs the other until a passage or a question
//! is embedded. The model's id, dimensions and fingerprint (what the index is
//! keyed by) are read from its small files at once.

use std::path::Path;
use std::sync::{Mutex, OnceLock};
use std::thread::JoinHandle;

use super::{check_model_dir, err, fingerprint, E5Embedder, E5Engine, E5_MODEL_ID, MODEL_FILES};
use crate::retrieval::embed::{EmbedError, Embedder};

/// An [`E5Embedder`] being loaded; embedding waits for it.
pub struct BackgroundE5 {
    dims: usize,
    fingerprint: String,
    pending: Mutex<Option<JoinHandle<Result<E5Embedder, EmbedError>>>>,
    loaded: OnceLock<Result<E5Embedder, String>>,
}

impl BackgroundE5 {
    /// Checks the model directory and its config, then starts loading the
    /// weights and tokenizer (engine from `INQUIRY_E5_ENGINE`, as
    /// [`E5Embedder::load`]).
    ///
    /// # Errors
    /// A missing directory or file, an unreadable config, an unknown engine.
    pub fn start(dir: &Path) -> Result<Self, EmbedError> {
        let engine = E5Engine::from_env()?;
        check_model_dir(dir, &MODEL_FILES, "run scripts/fetch-models to download and convert multilingual-e5-small")
            .map_err(err)?;
        let config_path = dir.join("config.json");
        let config: candle_transformers::models::bert::Config = std::fs::read_to_string(&config_path)
            .map_err(|e| e.to_string())
            .and_then(|s| serde_json::from_str(&s).map_err(|e| e.to_string()))
            .map_err(|e| err(format!("{}: {e}", config_path.display())))?;
        let fingerprint = format!("{}:{}", fingerprint(dir).map_err(err)?, engine.tag());
        let owned = dir.to_path_buf();
        let handle = std::thread::Builder::new()
            .name("e5-load".into())
            .spawn(move || E5Embedder::load_with(&owned, engine))
            .map_err(|e| err(format!("cannot start the loading thread: {e}")))?;
        Ok(Self { dims: config.hidden_size, fingerprint, pending: Mutex::new(Some(handle)), loaded: OnceLock::new() })
    }

    /// Waits for the model (once; later calls return at once).
    ///
    /// # Errors
    /// Whatever loading failed with (unreadable weights or tokenizer).
    pub fn wait(&self) -> Result<&E5Embedder, EmbedError> {
        let loaded = self.loaded.get_or_init(|| {
            let handle = self.pending.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take();
            match handle.map(JoinHandle::join) {
                Some(Ok(Ok(model))) => {
                    // The loaded model must be the one the index was keyed by.
                    if model.fingerprint() == self.fingerprint {
                        Ok(model)
                    } else {
                        Err("the model files changed while loading".into())
                    }
                }
                Some(Ok(Err(e))) => Err(e.message),
                Some(Err(_)) => Err("the model-loading thread panicked".into()),
                None => Err("the model was already being loaded".into()),
            }
        });
        loaded.as_ref().map_err(|m| err(m.clone()))
    }
}

impl Embedder for BackgroundE5 {
    fn model_id(&self) -> &str {
        E5_MODEL_ID
    }
    fn dims(&self) -> usize {
        self.dims
    }
    fn fingerprint(&self) -> String {
        self.fingerprint.clone()
    }
    fn embed_queries(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.wait()?.embed_queries(texts)
    }
    fn embed_passages(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.wait()?.embed_passages(texts)
    }
}
