//! Content-addressed cache of passage embeddings (#32): one row per
//! (embedder, passage text), so an edited listing re-embeds only its own
//! passages, and every command (eval, ask, serve, calibrate) shares the rows.
//!
//! File `<dir>/passages.sqlite` (SQLite through rusqlite, application id
//! `IQPE`): WAL mode and a busy timeout make concurrent processes safe; a
//! write is one immediate transaction. The key is the embedder's
//! [fingerprint](super::embed::Embedder::fingerprint) (model id and weights)
//! and the SHA-256 of the passage text; a row whose vector has the wrong
//! length or a non-finite entry is a miss, never a result. The file is
//! bounded: after a write that takes it past [`MAX_BYTES`] of vectors, the
//! rows used longest ago are deleted until it is under 90% of that.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rusqlite::{params, Connection, OptionalExtension};
use sha2::{Digest, Sha256};

use crate::sqlite_owner::{owner, stamp, Owner};

/// Application id of the passage-embedding cache (`IQPE`).
pub const PASSAGE_CACHE_APPLICATION_ID: i32 = 0x4951_5045;
/// File name inside the cache directory.
pub const FILE_NAME: &str = "passages.sqlite";
/// Upper bound on the stored vectors, in bytes (1 GiB: about 700,000 e5
/// passages of 384 × f32); pruning keeps the file under it.
pub const MAX_BYTES: i64 = 1 << 30;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS passages (
    model TEXT NOT NULL,
    text_sha256 BLOB NOT NULL,
    dims INTEGER NOT NULL,
    vector BLOB NOT NULL,
    used_at INTEGER NOT NULL,
    PRIMARY KEY (model, text_sha256)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS passages_used_at ON passages (used_at);";

/// The SHA-256 of a passage's text: its key in the cache.
pub fn text_key(text: &str) -> [u8; 32] {
    Sha256::digest(text.as_bytes()).into()
}

/// An open passage-embedding cache.
pub struct PassageCache {
    conn: Connection,
    path: PathBuf,
    max_bytes: i64,
}

impl std::fmt::Debug for PassageCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PassageCache").field("path", &self.path).finish_non_exhaustive()
    }
}

fn now() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or_default()
}

impl PassageCache {
    /// Opens (or creates) `<dir>/passages.sqlite`.
    ///
    /// # Errors
    /// The directory or file cannot be created or opened, or the file belongs
    /// to another application (it is left untouched).
    pub fn open(dir: &Path) -> anyhow::Result<Self> {
        Self::open_with_limit(dir, MAX_BYTES)
    }

    /// As [`Self::open`] with another size bound (bytes of vectors).
    ///
    /// # Errors
    /// As [`Self::open`].
    pub fn open_with_limit(dir: &Path, max_bytes: i64) -> anyhow::Result<Self> {
        use anyhow::Context as _;
        std::fs::create_dir_all(dir)
            .with_context(|| format!("{}: cannot create the cache directory", dir.display()))?;
        let path = dir.join(FILE_NAME);
        let conn = Connection::open(&path).with_context(|| format!("{}: cannot open", path.display()))?;
        conn.busy_timeout(Duration::from_secs(30))?;
        match owner(&conn, PASSAGE_CACHE_APPLICATION_ID, "passages", &["passages"])
            .with_context(|| format!("{}: not a readable passage cache", path.display()))?
        {
            Owner::Foreign(why) => {
                anyhow::bail!(
                    "{}: not an inquiry passage-embedding cache ({why}); nothing was written to it",
                    path.display()
                )
            }
            Owner::Ours | Owner::Empty | Owner::Legacy => {}
        }
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.execute_batch(SCHEMA)?;
        stamp(&conn, PASSAGE_CACHE_APPLICATION_ID)?;
        Ok(Self { conn, path, max_bytes })
    }

    /// The cache file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Looks each key up for `model`; `None` for a miss (absent, or a stored
    /// vector that is not `dims` finite numbers). Hits are marked as used now.
    ///
    /// # Errors
    /// An SQLite error.
    pub fn get_many(&self, model: &str, dims: usize, keys: &[[u8; 32]]) -> rusqlite::Result<Vec<Option<Vec<f32>>>> {
        let mut out = Vec::with_capacity(keys.len());
        let mut stmt =
            self.conn.prepare_cached("SELECT dims, vector FROM passages WHERE model = ?1 AND text_sha256 = ?2")?;
        let mut hits: Vec<&[u8; 32]> = Vec::new();
        for key in keys {
            let row: Option<(i64, Vec<u8>)> =
                stmt.query_row(params![model, &key[..]], |r| Ok((r.get(0)?, r.get(1)?))).optional()?;
            let vector = row.and_then(|(d, bytes)| decode(d, &bytes, dims));
            if vector.is_some() {
                hits.push(key);
            }
            out.push(vector);
        }
        drop(stmt);
        if !hits.is_empty() {
            let tx = self.conn.unchecked_transaction()?;
            {
                let mut touch =
                    tx.prepare_cached("UPDATE passages SET used_at = ?3 WHERE model = ?1 AND text_sha256 = ?2")?;
                let t = now();
                for key in hits {
                    touch.execute(params![model, &key[..], t])?;
                }
            }
            tx.commit()?;
        }
        Ok(out)
    }

    /// Stores vectors for `model` in one transaction, then prunes when the
    /// file holds more than its bound.
    ///
    /// # Errors
    /// An SQLite error (the transaction is rolled back).
    pub fn put_many(&self, model: &str, items: &[([u8; 32], &[f32])]) -> rusqlite::Result<()> {
        if items.is_empty() {
            return Ok(());
        }
        let tx = self.conn.unchecked_transaction()?;
        {
            let mut put = tx.prepare_cached(
                "INSERT OR REPLACE INTO passages (model, text_sha256, dims, vector, used_at) VALUES (?1, ?2, ?3, ?4, ?5)",
            )?;
            let t = now();
            for (key, vector) in items {
                let bytes: Vec<u8> = vector.iter().flat_map(|x| x.to_le_bytes()).collect();
                put.execute(params![model, &key[..], vector.len() as i64, bytes, t])?;
            }
        }
        tx.commit()?;
        self.prune()?;
        Ok(())
    }

    /// Deletes the rows used longest ago until the vectors take at most 90% of
    /// the bound; returns how many rows went.
    ///
    /// # Errors
    /// An SQLite error.
    pub fn prune(&self) -> rusqlite::Result<usize> {
        let total: i64 =
            self.conn.query_row("SELECT COALESCE(SUM(length(vector)), 0) FROM passages", [], |r| r.get(0))?;
        if total <= self.max_bytes {
            return Ok(0);
        }
        let target = self.max_bytes / 10 * 9;
        let tx = self.conn.unchecked_transaction()?;
        let mut removed = 0;
        {
            let mut oldest = tx.prepare(
                "SELECT model, text_sha256, length(vector) FROM passages ORDER BY used_at ASC, text_sha256 ASC",
            )?;
            let mut rows = oldest.query([])?;
            let mut doomed: Vec<(String, Vec<u8>)> = Vec::new();
            let mut left = total;
            while left > target {
                let Some(row) = rows.next()? else { break };
                left -= row.get::<_, i64>(2)?;
                doomed.push((row.get(0)?, row.get(1)?));
            }
            drop(rows);
            let mut delete = tx.prepare("DELETE FROM passages WHERE model = ?1 AND text_sha256 = ?2")?;
            for (model, key) in &doomed {
                removed += delete.execute(params![model, key])?;
            }
        }
        tx.commit()?;
        tracing::debug!(path = %self.path.display(), removed, "passage cache pruned");
        Ok(removed)
    }

    /// Number of stored vectors and their total size in bytes.
    ///
    /// # Errors
    /// An SQLite error.
    pub fn stats(&self) -> rusqlite::Result<(i64, i64)> {
        self.conn.query_row("SELECT count(*), COALESCE(SUM(length(vector)), 0) FROM passages", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
    }
}

fn decode(stored_dims: i64, bytes: &[u8], dims: usize) -> Option<Vec<f32>> {
    if stored_dims != dims as i64 || bytes.len() != dims * 4 {
        return None;
    }
    let v: Vec<f32> = bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
    v.iter().all(|x| x.is_finite()).then_some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_keyed_by_model_and_text_and_bad_rows_are_misses() {
        let dir = tempfile::tempdir().unwrap();
        let cache = PassageCache::open(dir.path()).unwrap();
        let (a, b) = (text_key("The deposit is three months' rent."), text_key("Heating is included."));
        cache.put_many("m1", &[(a, &[0.6, 0.8][..])]).unwrap();
        assert_eq!(cache.get_many("m1", 2, &[a, b]).unwrap(), vec![Some(vec![0.6, 0.8]), None]);
        assert_eq!(cache.get_many("m2", 2, &[a]).unwrap(), vec![None], "another model's row is not a hit");
        assert_eq!(cache.get_many("m1", 3, &[a]).unwrap(), vec![None], "a vector of the wrong length is a miss");
        cache.put_many("m1", &[(b, &[f32::NAN, 1.0][..])]).unwrap();
        assert_eq!(cache.get_many("m1", 2, &[b]).unwrap(), vec![None], "a non-finite vector is a miss");
        // Reopening (another process) reads the same rows.
        drop(cache);
        let again = PassageCache::open(dir.path()).unwrap();
        assert_eq!(again.get_many("m1", 2, &[a]).unwrap(), vec![Some(vec![0.6, 0.8])]);
    }

    #[test]
    fn pruning_keeps_the_file_under_its_bound_and_drops_the_oldest_rows() {
        let dir = tempfile::tempdir().unwrap();
        // 10 rows of 4 × f32 = 160 bytes, written without a bound; then
        // opened with a bound of 100 bytes → pruned to ≤ 90.
        let cache = PassageCache::open_with_limit(dir.path(), i64::MAX).unwrap();
        let keys: Vec<[u8; 32]> = (0..10).map(|i| text_key(&format!("passage {i}"))).collect();
        for (i, k) in keys.iter().enumerate() {
            cache.put_many("m", &[(*k, &[i as f32, 0.0, 0.0, 0.0][..])]).unwrap();
            // Distinct use times: rows written later were used later.
            cache
                .conn
                .execute("UPDATE passages SET used_at = ?1 WHERE text_sha256 = ?2", params![i as i64, &k[..]])
                .unwrap();
        }
        drop(cache);
        let cache = PassageCache::open_with_limit(dir.path(), 100).unwrap();
        assert_eq!(cache.prune().unwrap(), 5);
        let (rows, bytes) = cache.stats().unwrap();
        assert!(bytes <= 90, "{bytes} bytes left");
        assert_eq!(rows, 5);
        let got = cache.get_many("m", 4, &keys).unwrap();
        assert!(got[..5].iter().all(Option::is_none), "the oldest rows went");
        assert!(got[5..].iter().all(Option::is_some), "the newest rows stay");
    }

    #[test]
    fn another_applications_database_is_refused_and_left_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        let other = Connection::open(&path).unwrap();
        other.execute_batch("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('keep me');").unwrap();
        drop(other);
        let before = std::fs::read(&path).unwrap();
        let e = PassageCache::open(dir.path()).unwrap_err().to_string();
        assert!(e.contains("not an inquiry passage-embedding cache") && e.contains("notes"), "{e}");
        assert_eq!(std::fs::read(&path).unwrap(), before);
    }
}
