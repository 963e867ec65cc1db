//! Embedders: text → L2-normalised vectors for cosine search.
//!
//! Queries and passages are embedded through separate methods because models
//! like e5 need different prefixes (`query: ` / `passage: `). Passages are the
//! plain chunk text, not the header (SPEC §5: headers cost recall in the vector
//! top five).

use super::analyzer::analyze;

/// Error from an embedder (model loading or inference).
#[derive(Debug, thiserror::Error)]
#[error("embedder {model}: {message}")]
pub struct EmbedError {
    /// Model id.
    pub model: String,
    /// What failed.
    pub message: String,
}

/// Turns text into unit-length vectors of a fixed dimension.
pub trait Embedder: Send + Sync {
    /// Stable id of the model and its settings, e.g. `hashing-512-v1`; keys the
    /// thresholds file and the embedding cache.
    fn model_id(&self) -> &str;
    /// Vector dimension.
    fn dims(&self) -> usize;
    /// Embeds questions. Each vector has `dims()` entries and L2 norm 1 (or 0 for empty text).
    ///
    /// # Errors
    /// Inference failure.
    fn embed_queries(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError>;
    /// Embeds passages (chunk texts); same shape as [`Embedder::embed_queries`].
    ///
    /// # Errors
    /// Inference failure.
    fn embed_passages(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError>;
    /// Whether passage vectors are worth caching on disk (false when computing
    /// them is cheaper than reading a file).
    fn cacheable(&self) -> bool {
        true
    }
    /// Identity of the weights behind [`Embedder::model_id`]; part of the
    /// embedding-cache key, so re-converted weights under the same id rebuild
    /// the cache. Defaults to the model id (for embedders without weights).
    fn fingerprint(&self) -> String {
        self.model_id().to_owned()
    }
}

/// Deterministic offline embedder: hashed word and character-trigram features
/// (signed feature hashing, FNV-1a), 512 dimensions by default, L2-normalised.
///
/// It knows no synonyms or translations: it finds passages that share words or
/// word pieces with the question. Paraphrases need a real model.
#[derive(Debug, Clone)]
pub struct HashingEmbedder {
    dims: usize,
    id: String,
}

impl Default for HashingEmbedder {
    fn default() -> Self {
        Self::new(512)
    }
}

/// Weight of a character trigram relative to a whole word (1.0). Trigrams make
/// `Nebenkosten` and `Nebenkostenabrechnung` similar without dominating exact words.
const TRIGRAM_WEIGHT: f32 = 0.35;

impl HashingEmbedder {
    /// A hashing embedder with `dims` dimensions (model id `hashing-<dims>-v1`).
    pub fn new(dims: usize) -> Self {
        Self { dims: dims.max(1), id: format!("hashing-{}-v1", dims.max(1)) }
    }

    fn embed(&self, text: &str) -> Vec<f32> {
        let mut v = vec![0f32; self.dims];
        let mut padded = String::new();
        let mut starts: Vec<usize> = Vec::new();
        for word in analyze(text) {
            self.add(&mut v, word.as_bytes(), 1.0);
            // Character trigrams of `#word#`, hashed as byte slices (no String per trigram).
            padded.clear();
            padded.push('#');
            padded.push_str(&word);
            padded.push('#');
            starts.clear();
            starts.extend(padded.char_indices().map(|(i, _)| i));
            starts.push(padded.len());
            for w in starts.windows(4) {
                self.add(&mut v, &padded.as_bytes()[w[0]..w[3]], TRIGRAM_WEIGHT);
            }
        }
        normalise(&mut v);
        v
    }

    fn add(&self, v: &mut [f32], feature: &[u8], weight: f32) {
        let h = fnv1a(feature);
        let slot = (h % self.dims as u64) as usize;
        let sign = if (h >> 63) == 0 { 1.0 } else { -1.0 };
        v[slot] += sign * weight;
    }
}

impl Embedder for HashingEmbedder {
    fn model_id(&self) -> &str {
        &self.id
    }
    fn dims(&self) -> usize {
        self.dims
    }
    fn embed_queries(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        Ok(texts.iter().map(|t| self.embed(t)).collect())
    }
    fn embed_passages(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        Ok(texts.iter().map(|t| self.embed(t)).collect())
    }
    fn cacheable(&self) -> bool {
        false
    }
}

/// 64-bit FNV-1a: a fixed, portable hash (std's hasher may change between releases).
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Scales a vector to unit L2 norm in place; a zero vector stays zero.
pub fn normalise(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dot(a: &[f32], b: &[f32]) -> f32 {
        a.iter().zip(b).map(|(x, y)| x * y).sum()
    }

    #[test]
    fn deterministic_unit_vectors() {
        let e = HashingEmbedder::default();
        let a = e.embed_queries(&["Is heating included?"]).unwrap().remove(0);
        let b = e.embed_queries(&["Is heating included?"]).unwrap().remove(0);
        assert_eq!(a, b);
        assert_eq!(a.len(), 512);
        assert!((dot(&a, &a) - 1.0).abs() < 1e-5);
        assert_eq!(e.embed_passages(&["?!"]).unwrap()[0].iter().sum::<f32>(), 0.0);
    }

    #[test]
    fn shared_words_are_closer_than_unrelated_text() {
        let e = HashingEmbedder::default();
        let v = e
            .embed_passages(&["Heizung in den Nebenkosten", "Nebenkosten inklusive Heizung", "Balkon nach Süden"])
            .unwrap();
        assert!(dot(&v[0], &v[1]) > dot(&v[0], &v[2]) + 0.3);
    }
}
