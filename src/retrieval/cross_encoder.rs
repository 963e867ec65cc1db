//! Cross-encoder reranker with candle (SPEC §5): XLM-RoBERTa sequence
//! classification with one label, the architecture of bge-reranker-v2-m3,
//! loaded from a local directory (`config.json`, `tokenizer.json`,
//! `model.safetensors` with `roberta.`-prefixed encoder names and
//! `classifier.dense` / `classifier.out_proj`), run on the CPU in f32.
//!
//! Each (question, passage) pair is tokenised as a pair
//! (`<s> question </s></s> passage </s>`), truncated longest-first to the
//! model's positions; pairs are batched by length and right-padded with
//! `<pad>`. The relevance score is the sigmoid of the logit, applied once.

use std::path::{Path, PathBuf};

use candle_core::{DType, Device};
use candle_nn::VarBuilder;
use candle_transformers::models::xlm_roberta::{Config, XLMRobertaForSequenceClassification};
use tokenizers::{Tokenizer, TruncationDirection, TruncationParams, TruncationStrategy};

use super::batch::candle_message;
use super::e5::{check_model_dir, MODEL_FILES};
use super::rerank::{sigmoid, RerankError, Reranker};

/// Longest pair in tokens, specials included.
pub const MAX_TOKENS: usize = 512;
/// Pairs per forward pass (after sorting by length).
pub const BATCH_SIZE: usize = 16;

/// The head fields of a sequence-classification config that candle's
/// `xlm_roberta::Config` does not read.
#[derive(Debug, serde::Deserialize)]
struct HeadConfig {
    num_labels: Option<usize>,
    id2label: Option<serde_json::Map<String, serde_json::Value>>,
}

/// An XLM-RoBERTa cross-encoder on the CPU.
pub struct CrossEncoder {
    model: XLMRobertaForSequenceClassification,
    tokenizer: Tokenizer,
    device: Device,
    pad_id: u32,
    id: String,
    dir: PathBuf,
}

impl std::fmt::Debug for CrossEncoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CrossEncoder").field("id", &self.id).field("dir", &self.dir).finish_non_exhaustive()
    }
}

impl CrossEncoder {
    /// Loads a cross-encoder from a directory; its model id is the directory's
    /// name (e.g. `bge-reranker-v2-m3`).
    ///
    /// # Errors
    /// A missing directory or file (naming it), an unreadable config or
    /// tokenizer, a config with more than one label, or weights that do not fit.
    pub fn load(dir: &Path) -> Result<Self, RerankError> {
        let id = model_id_of(dir);
        let fail = |message: String| RerankError { model: id.clone(), message };
        check_model_dir(
            dir,
            &MODEL_FILES,
            "a cross-encoder directory needs the model's config.json, tokenizer.json and model.safetensors (or use --reranker none)",
        )
        .map_err(fail)?;
        let config_path = dir.join("config.json");
        let text =
            std::fs::read_to_string(&config_path).map_err(|e| fail(format!("{}: {e}", config_path.display())))?;
        let config: Config =
            serde_json::from_str(&text).map_err(|e| fail(format!("{}: {e}", config_path.display())))?;
        let head: HeadConfig =
            serde_json::from_str(&text).map_err(|e| fail(format!("{}: {e}", config_path.display())))?;
        let labels = head.num_labels.or(head.id2label.as_ref().map(|m| m.len())).unwrap_or(1);
        if labels != 1 {
            return Err(fail(format!(
                "{}: the model has {labels} labels; a reranker needs one relevance logit",
                config_path.display()
            )));
        }
        let tokenizer_path = dir.join("tokenizer.json");
        let mut tokenizer =
            Tokenizer::from_file(&tokenizer_path).map_err(|e| fail(format!("{}: {e}", tokenizer_path.display())))?;
        // RoBERTa positions start after the padding index: pad_token_id + 1
        // positions are unusable.
        let usable = config.max_position_embeddings.saturating_sub(config.pad_token_id as usize + 1);
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: MAX_TOKENS.min(usable),
                strategy: TruncationStrategy::LongestFirst,
                stride: 0,
                direction: TruncationDirection::Right,
            }))
            .map_err(|e| fail(format!("{}: {e}", tokenizer_path.display())))?;
        tokenizer.with_padding(None);
        let device = Device::Cpu;
        let weights = dir.join("model.safetensors");
        // SAFETY: the file is mapped read-only and every tensor is copied out
        // of the mapping while loading; the mapping is dropped before `load`
        // returns. Changing the file during those moments is not supported.
        let vb = unsafe { VarBuilder::from_mmaped_safetensors(&[&weights], DType::F32, &device) }.map_err(|e| {
            fail(format!("{}: {} (truncated or not a safetensors file?)", weights.display(), candle_message(&e)))
        })?;
        let model = XLMRobertaForSequenceClassification::new(1, &config, vb).map_err(|e| {
            fail(format!(
                "{}: {} (expected an XLM-RoBERTa sequence-classification model, e.g. bge-reranker-v2-m3)",
                weights.display(),
                candle_message(&e)
            ))
        })?;
        Ok(Self { model, tokenizer, device, pad_id: config.pad_token_id, id, dir: dir.to_path_buf() })
    }

    /// The directory the model was loaded from.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn fail(&self, message: String) -> RerankError {
        RerankError { model: self.id.clone(), message }
    }

    /// Token ids of a (question, passage) pair as the model sees it.
    ///
    /// # Errors
    /// Tokenizer failure.
    pub fn pair_ids(&self, query: &str, passage: &str) -> Result<Vec<u32>, RerankError> {
        let enc = self.tokenizer.encode((query, passage), true).map_err(|e| self.fail(format!("tokenizer: {e}")))?;
        Ok(enc.get_ids().to_vec())
    }

    /// Raw logits (before the sigmoid), one per passage, in passage order.
    ///
    /// # Errors
    /// Tokenizer or inference failure.
    pub fn logits(&self, query: &str, passages: &[&str]) -> Result<Vec<f32>, RerankError> {
        let mut ids = Vec::with_capacity(passages.len());
        for p in passages {
            ids.push(self.pair_ids(query, p)?);
        }
        let mut order: Vec<usize> = (0..ids.len()).collect();
        order.sort_by_key(|&i| ids[i].len());
        let mut out = vec![0f32; ids.len()];
        for batch in order.chunks(BATCH_SIZE) {
            let seqs: Vec<&[u32]> = batch.iter().map(|&i| ids[i].as_slice()).collect();
            let logits = self.forward(&seqs).map_err(|e| self.fail(format!("inference: {}", candle_message(&e))))?;
            for (&i, l) in batch.iter().zip(logits) {
                out[i] = l;
            }
        }
        Ok(out)
    }

    fn forward(&self, seqs: &[&[u32]]) -> candle_core::Result<Vec<f32>> {
        let b = seqs.len();
        let len = seqs.iter().map(|s| s.len()).max().unwrap_or(0);
        if b == 0 || len == 0 {
            return Ok(vec![0.0; b]);
        }
        let (input_ids, attention) = super::batch::padded(seqs, self.pad_id, &self.device)?;
        let token_types = input_ids.zeros_like()?;
        let logits = self.model.forward(&input_ids, &attention, &token_types)?; // (b, 1)
        logits.to_dtype(DType::F32)?.flatten_all()?.to_vec1::<f32>()
    }
}

/// The model id of a reranker directory: its file name, e.g. `bge-reranker-v2-m3`.
pub fn model_id_of(dir: &Path) -> String {
    let name = |p: &Path| p.file_name().map(|n| n.to_string_lossy().into_owned()).filter(|n| !n.is_empty());
    name(dir).or_else(|| dir.canonicalize().ok().and_then(|p| name(&p))).unwrap_or_else(|| dir.display().to_string())
}

impl Reranker for CrossEncoder {
    fn model_id(&self) -> &str {
        &self.id
    }
    fn score(&self, question: &str, passages: &[&str]) -> Result<Vec<f32>, RerankError> {
        Ok(self.logits(question, passages)?.into_iter().map(sigmoid).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_id_is_the_directory_name() {
        assert_eq!(model_id_of(Path::new("models/bge-reranker-v2-m3")), "bge-reranker-v2-m3");
        assert_eq!(model_id_of(Path::new("models/bge-reranker-v2-m3/")), "bge-reranker-v2-m3");
    }

    #[test]
    fn missing_files_are_named() {
        let tmp = tempfile::tempdir().unwrap();
        let e = CrossEncoder::load(tmp.path()).unwrap_err().to_string();
        assert!(e.contains("missing config.json, tokenizer.json, model.safetensors"), "{e}");
    }
}
