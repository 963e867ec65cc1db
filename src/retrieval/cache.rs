//! On-disk cache of passage embeddings, keyed by model id and a hash of the
//! corpus and the model's weights fingerprint: any change to a chunk id or
//! text, or to the model files, gives a new key, so a stale file is never
//! read. A corrupt file is ignored and rebuilt.
//!
//! File `<dir>/<model-id>-<hash>.emb`: magic `INQEMB1\n`, dims (u32 LE),
//! count (u32 LE), then `count × dims` f32 LE.

use std::io::Write;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::chunk::Chunk;

const MAGIC: &[u8; 8] = b"INQEMB1\n";

/// Hex SHA-256 (first 16 hex digits) of the model fingerprint
/// ([`super::embed::Embedder::fingerprint`]) and every chunk id and text.
pub fn corpus_hash(fingerprint: &str, chunks: &[Chunk]) -> String {
    let mut h = Sha256::new();
    h.update(fingerprint.as_bytes());
    for c in chunks {
        h.update([0u8]);
        h.update(c.id.as_bytes());
        h.update([0u8]);
        h.update(c.text.as_bytes());
    }
    h.finalize().iter().take(8).map(|b| format!("{b:02x}")).collect()
}

/// Cache file path for a model and corpus hash (model ids are sanitised for file names).
pub fn cache_path(dir: &Path, model_id: &str, hash: &str) -> PathBuf {
    let safe: String =
        model_id.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '.' { c } else { '_' }).collect();
    dir.join(format!("{safe}-{hash}.emb"))
}

/// Reads cached vectors; `None` when the file is absent, truncated, or its
/// shape differs from `dims × count`.
pub fn load(path: &Path, dims: usize, count: usize) -> Option<Vec<f32>> {
    let bytes = std::fs::read(path).ok()?;
    let rest = bytes.strip_prefix(MAGIC)?;
    let (head, body) = rest.split_at_checked(8)?;
    let d = u32::from_le_bytes(head[..4].try_into().ok()?) as usize;
    let n = u32::from_le_bytes(head[4..].try_into().ok()?) as usize;
    if d != dims || n != count || body.len() != d * n * 4 {
        return None;
    }
    let data: Vec<f32> = body.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
    data.iter().all(|x| x.is_finite()).then_some(data)
}

/// Writes vectors atomically (temp file in the same directory, then rename).
///
/// # Errors
/// I/O errors creating the directory or writing the file.
pub fn store(path: &Path, dims: usize, data: &[f32]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    let count = data.len() / dims.max(1);
    tmp.write_all(MAGIC)?;
    tmp.write_all(&(dims as u32).to_le_bytes())?;
    tmp.write_all(&(count as u32).to_le_bytes())?;
    for x in data {
        tmp.write_all(&x.to_le_bytes())?;
    }
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}
