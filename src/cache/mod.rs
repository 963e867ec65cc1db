//! The model-response cache: every provider call's raw answer, keyed by what
//! was sent, in an embedded SQLite database (`.inquiry/cache.sqlite` by
//! default), so a run can be replayed with no network, resumed after an
//! interruption, and re-graded without paying for the agent again.
//!
//! Key: SHA-256 over the provider kind, model id, base URL, the JSON request
//! body and the sample (repeat) index, so `--repeat 5` stores five
//! independent samples. Values that change from run to run without changing
//! what the model is asked ([`VOLATILE_FIELDS`]: a ticket's wall-clock
//! `createdAt` inside a tool result) are masked in the key, so a recorded run
//! replays later and at any `-j`. Only answers that parsed are stored: errors (429,
//! 5xx, timeouts, malformed bodies) never are. Each row carries a SHA-256 of
//! its body; a row that fails it is dropped and treated as a miss, so a
//! damaged file never serves a wrong response. A file that is not a readable
//! database is moved aside (`cache.sqlite.corrupt-<unix time>`) and rebuilt.
//! WAL mode and a busy timeout make concurrent writers (`-j N`, or several
//! processes) safe.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::Context as _;
use rusqlite::{params, Connection, OptionalExtension};
use sha2::{Digest, Sha256};

use crate::agent::model::Usage;

mod key;
pub use key::{key, VOLATILE_FIELDS};

/// Default cache directory (git-ignored).
pub const DEFAULT_CACHE_DIR: &str = ".inquiry";
/// The database file inside the cache directory.
pub const CACHE_FILE: &str = "cache.sqlite";
/// How model calls use the cache (`--cache`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CacheMode {
    /// Read hits, call the provider on a miss and store its answer (default for real providers).
    #[default]
    Use,
    /// Neither read nor write.
    Off,
    /// Read only, no network: a miss is an error (exit 2).
    Replay,
}

impl std::str::FromStr for CacheMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "use" => Ok(Self::Use),
            "off" => Ok(Self::Off),
            "replay" => Ok(Self::Replay),
            other => Err(format!("`{other}`: expected use, off or replay")),
        }
    }
}

impl CacheMode {
    /// The flag value: `use`, `off`, `replay`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Use => "use",
            Self::Off => "off",
            Self::Replay => "replay",
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// One stored answer.
#[derive(Debug, Clone, PartialEq)]
pub struct CachedResponse {
    /// The provider's raw JSON answer.
    pub raw: serde_json::Value,
    /// Tokens of the original call.
    pub usage: Usage,
    /// Latency of the original call (ms).
    pub latency_ms: u64,
    /// When it was written (Unix seconds).
    pub written_at: i64,
}

/// Counts shown by `inquiry cache stats`.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct CacheStats {
    /// The database file.
    pub path: PathBuf,
    /// Stored answers.
    pub entries: u64,
    /// Bytes of stored bodies.
    pub body_bytes: u64,
    /// Oldest and newest write (RFC 3339), when there are entries.
    pub oldest: Option<String>,
    /// Newest write (RFC 3339).
    pub newest: Option<String>,
    /// Entries per `provider:model`.
    pub by_model: Vec<(String, u64)>,
}

/// The response cache: one SQLite connection shared by a process's calls.
/// A writable cache whose file does not exist yet creates it with the first
/// stored answer, so a command that stores nothing (a model that cannot be
/// reached) leaves no file behind.
#[derive(Debug)]
pub struct ResponseCache {
    conn: Mutex<Option<Connection>>,
    path: PathBuf,
    dir: PathBuf,
}

/// Another application's database where the cache file should be: refused,
/// never moved aside or written.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct ForeignFile(String);

/// The columns of `responses`, in order (see [`SCHEMA`]).
const RESPONSE_COLUMNS: [&str; 11] = [
    "key",
    "provider",
    "model",
    "body",
    "body_sha256",
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "latency_ms",
    "written_at",
];

const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    body TEXT NOT NULL,
    body_sha256 TEXT NOT NULL,
    input_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    cache_read_tokens INTEGER NOT NULL,
    cache_write_tokens INTEGER NOT NULL,
    latency_ms INTEGER NOT NULL,
    written_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS responses_written_at ON responses (written_at);";

impl ResponseCache {
    /// Opens (or creates) `<dir>/cache.sqlite`. With `writable`, the
    /// directory is created and a damaged file is moved aside and rebuilt
    /// (with a warning on stderr); without it (`--cache replay`) nothing is
    /// created and a missing or damaged file is an error.
    ///
    /// # Errors
    /// The directory cannot be created or written (naming it), or the file
    /// cannot be opened as a database.
    pub fn open(dir: &Path, writable: bool) -> anyhow::Result<Self> {
        let path = dir.join(CACHE_FILE);
        if writable {
            // The nearest part of the path that exists must be a directory we can write in.
            let existing = dir.ancestors().find(|d| d.as_os_str().is_empty() || d.exists()).unwrap_or(Path::new("."));
            let existing = if existing.as_os_str().is_empty() { Path::new(".") } else { existing };
            if !existing.is_dir() {
                anyhow::bail!(
                    "--cache-dir {}: cannot create the cache directory ({} is not a directory)",
                    dir.display(),
                    existing.display()
                );
            }
            if rustix::fs::access(existing, rustix::fs::Access::WRITE_OK).is_err() {
                anyhow::bail!(
                    "--cache-dir {}: the cache directory is not writable (use another --cache-dir, or --cache off)",
                    dir.display()
                );
            }
            if dir.is_dir() {
                let probe = tempfile::NamedTempFile::new_in(dir).with_context(|| {
                    format!(
                        "--cache-dir {}: the cache directory is not writable (use another --cache-dir, or --cache off)",
                        dir.display()
                    )
                })?;
                drop(probe);
            } else if dir.exists() {
                anyhow::bail!("--cache-dir {}: is not a directory", dir.display());
            }
            if !path.exists() {
                // Created with the first stored answer.
                return Ok(Self { conn: Mutex::new(None), path, dir: dir.to_owned() });
            }
        } else if !path.is_file() {
            anyhow::bail!(
                "--cache replay: no response cache at {} (run once with --cache use to record one, or name it with --cache-dir)",
                path.display()
            );
        }
        match Self::open_file(&path, writable) {
            Ok(conn) => Ok(Self { conn: Mutex::new(Some(conn)), path, dir: dir.to_owned() }),
            Err(e) if e.downcast_ref::<ForeignFile>().is_some() => Err(e),
            Err(e) if writable && path.exists() => {
                let stamp = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or_default();
                let aside = path.with_file_name(format!("{CACHE_FILE}.corrupt-{stamp}"));
                std::fs::rename(&path, &aside)
                    .with_context(|| format!("{}: unreadable ({e:#}) and could not be moved aside", path.display()))?;
                for suffix in ["-wal", "-shm"] {
                    let side = PathBuf::from(format!("{}{suffix}", path.display()));
                    if side.exists() {
                        let _ = std::fs::rename(&side, format!("{}{suffix}", aside.display()));
                    }
                }
                tracing::warn!(
                    "{}: not a readable cache ({e:#}); moved to {} and rebuilt",
                    path.display(),
                    aside.display()
                );
                eprintln!(
                    "warning: {} was not a readable cache ({e:#}); moved it to {} and started a new one",
                    path.display(),
                    aside.display()
                );
                Ok(Self { conn: Mutex::new(Some(Self::open_file(&path, writable)?)), path, dir: dir.to_owned() })
            }
            Err(e) => Err(e),
        }
    }

    /// Opens (or creates) the cache at `dir` and makes sure its file exists
    /// now, not with the first stored answer (an empty, valid cache).
    ///
    /// # Errors
    /// As [`Self::open`], and a file that cannot be created.
    pub fn create(dir: &Path) -> anyhow::Result<Self> {
        let cache = Self::open(dir, true)?;
        {
            let mut guard = cache.lock();
            if guard.is_none() {
                std::fs::create_dir_all(dir)
                    .with_context(|| format!("--cache-dir {}: cannot create the cache directory", dir.display()))?;
                *guard = Some(Self::open_file(&cache.path, true)?);
            }
        }
        Ok(cache)
    }

    /// Opens an existing cache for reading only (`inquiry cache stats`):
    /// nothing is created or written, and a read-only file is fine.
    ///
    /// # Errors
    /// No cache file, another application's file, or an unreadable database.
    pub fn open_read_only(dir: &Path) -> anyhow::Result<Self> {
        let path = dir.join(CACHE_FILE);
        if !path.is_file() {
            anyhow::bail!("--cache-dir {}: no response cache here ({} does not exist)", dir.display(), path.display());
        }
        let conn = Self::open_file(&path, false)?;
        Ok(Self { conn: Mutex::new(Some(conn)), path, dir: dir.to_owned() })
    }

    fn open_file(path: &Path, writable: bool) -> anyhow::Result<Connection> {
        use rusqlite::OpenFlags;
        let flags = if writable {
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE
        } else {
            // Replay creates nothing, but a WAL database needs write access to
            // be read consistently; it writes only to drop a damaged row. A
            // read-only file is read read-only (damaged rows are then just misses).
            OpenFlags::SQLITE_OPEN_READ_WRITE
        } | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = match Connection::open_with_flags(path, flags) {
            Ok(conn) if writable || !conn.is_readonly(rusqlite::MAIN_DB).unwrap_or(false) => conn,
            _ if !writable => {
                let ro =
                    OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX | OpenFlags::SQLITE_OPEN_URI;
                let uri = |q: &str| {
                    format!(
                        "file:{}?{q}",
                        path.display().to_string().replace('%', "%25").replace('?', "%3f").replace('#', "%23")
                    )
                };
                Connection::open_with_flags(uri("mode=ro"), ro)
                    .and_then(|c| {
                        c.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get::<_, i64>(0)).map(|_| c)
                    })
                    .or_else(|_| Connection::open_with_flags(uri("immutable=1"), ro))
                    .with_context(|| format!("{}: cannot open the response cache", path.display()))?
            }
            Err(e) => return Err(e).with_context(|| format!("{}: cannot open the response cache", path.display())),
            Ok(conn) => conn,
        };
        conn.busy_timeout(Duration::from_secs(30))?;
        {
            use crate::sqlite_owner::{owner, Owner, CACHE_APPLICATION_ID};
            match owner(&conn, CACHE_APPLICATION_ID, "responses", &["responses"]) {
                Ok(Owner::Foreign(why)) => {
                    return Err(ForeignFile(format!(
                        "{}: not an inquiry response cache ({why}); nothing was written to it; use another --cache-dir",
                        path.display()
                    ))
                    .into())
                }
                Ok(Owner::Empty) if !writable => {
                    anyhow::bail!("{}: not an inquiry response cache (it has no responses table)", path.display())
                }
                // A file from before application ids: ours only if its table has our columns.
                Ok(Owner::Legacy) => {
                    let mut stmt = conn.prepare("SELECT name FROM pragma_table_info('responses') ORDER BY cid")?;
                    let columns =
                        stmt.query_map([], |r| r.get::<_, String>(0))?.collect::<rusqlite::Result<Vec<String>>>()?;
                    if columns != RESPONSE_COLUMNS {
                        return Err(ForeignFile(format!(
                            "{}: not an inquiry response cache (its responses table has the columns {}); nothing was written to it; use another --cache-dir",
                            path.display(),
                            columns.join(", ")
                        ))
                        .into());
                    }
                }
                Ok(_) => {}
                Err(e) => return Err(e.context(format!("{}: not a readable response cache", path.display()))),
            }
        }
        let check = || -> rusqlite::Result<()> {
            if writable {
                conn.pragma_update(None, "journal_mode", "WAL")?;
                conn.pragma_update(None, "synchronous", "NORMAL")?;
                conn.execute_batch(SCHEMA)?;
                crate::sqlite_owner::stamp(&conn, crate::sqlite_owner::CACHE_APPLICATION_ID)?;
            }
            let ok: String = conn.query_row("PRAGMA quick_check(1)", [], |r| r.get(0))?;
            if ok != "ok" {
                return Err(rusqlite::Error::SqliteFailure(
                    rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CORRUPT),
                    Some(ok),
                ));
            }
            conn.query_row("SELECT count(*) FROM responses", [], |r| r.get::<_, i64>(0))?;
            Ok(())
        };
        check().with_context(|| format!("{}: not a readable response cache", path.display()))?;
        Ok(conn)
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Connection>> {
        self.conn.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Runs `f` on the open database; `None` when no file exists yet.
    fn with_conn<T>(&self, f: impl FnOnce(&Connection) -> T) -> Option<T> {
        self.lock().as_ref().map(f)
    }

    /// The stored answer for `key`, if one is there and intact. A row whose
    /// body fails its checksum or is not JSON is deleted (when writable) and
    /// reported as a miss; a read error is a miss with a warning.
    pub fn get(&self, key: &str) -> Option<CachedResponse> {
        let guard = self.lock();
        let conn = guard.as_ref()?;
        let row = conn
            .query_row(
                "SELECT body, body_sha256, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, latency_ms, written_at FROM responses WHERE key = ?1",
                params![key],
                |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, String>(1)?,
                        [r.get::<_, i64>(2)?, r.get::<_, i64>(3)?, r.get::<_, i64>(4)?, r.get::<_, i64>(5)?],
                        r.get::<_, i64>(6)?,
                        r.get::<_, i64>(7)?,
                    ))
                },
            )
            .optional();
        let (body, sha, tokens, latency, written_at) = match row {
            Ok(Some(row)) => row,
            Ok(None) => return None,
            Err(e) => {
                tracing::warn!(key, "response cache read failed, treated as a miss: {e}");
                return None;
            }
        };
        let raw = (hex(&Sha256::digest(body.as_bytes())) == sha)
            .then(|| serde_json::from_str::<serde_json::Value>(&body).ok())
            .flatten();
        let Some(raw) = raw else {
            tracing::warn!(key, "response cache row is damaged (checksum or JSON); dropped and treated as a miss");
            let _ = conn.execute("DELETE FROM responses WHERE key = ?1", params![key]);
            return None;
        };
        let n = |v: i64| u64::try_from(v).unwrap_or(0);
        Some(CachedResponse {
            raw,
            usage: Usage {
                input: n(tokens[0]),
                output: n(tokens[1]),
                cache_read: n(tokens[2]),
                cache_write: n(tokens[3]),
            },
            latency_ms: n(latency),
            written_at,
        })
    }

    /// Stores an answer (replacing an entry with the same key).
    ///
    /// # Errors
    /// The database could not be written (full disk, read-only file).
    pub fn put(
        &self,
        key: &str,
        provider: &str,
        model: &str,
        raw: &serde_json::Value,
        usage: Usage,
        latency_ms: u64,
    ) -> anyhow::Result<()> {
        let body = raw.to_string();
        let sha = hex(&Sha256::digest(body.as_bytes()));
        let now = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or_default();
        let i = |v: u64| i64::try_from(v).unwrap_or(i64::MAX);
        let mut guard = self.lock();
        if guard.is_none() {
            std::fs::create_dir_all(&self.dir)
                .with_context(|| format!("--cache-dir {}: cannot create the cache directory", self.dir.display()))?;
            *guard = Some(Self::open_file(&self.path, true)?);
        }
        let Some(conn) = guard.as_ref() else { unreachable!("opened above") };
        conn.execute(
            "INSERT OR REPLACE INTO responses VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
            params![
                key,
                provider,
                model,
                body,
                sha,
                i(usage.input),
                i(usage.output),
                i(usage.cache_read),
                i(usage.cache_write),
                i(latency_ms),
                now
            ],
        )
        .with_context(|| format!("{}: cannot store a response", self.path.display()))?;
        Ok(())
    }

    /// Entry counts, sizes and dates.
    ///
    /// # Errors
    /// A read error.
    pub fn stats(&self) -> anyhow::Result<CacheStats> {
        let guard = self.lock();
        let Some(conn) = guard.as_ref() else {
            return Ok(CacheStats {
                path: self.path.clone(),
                entries: 0,
                body_bytes: 0,
                oldest: None,
                newest: None,
                by_model: vec![],
            });
        };
        let (entries, bytes, oldest, newest): (i64, i64, Option<i64>, Option<i64>) = conn.query_row(
            "SELECT count(*), coalesce(sum(length(body)), 0), min(written_at), max(written_at) FROM responses",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )?;
        let mut stmt = conn.prepare(
            "SELECT provider || ':' || model, count(*) FROM responses GROUP BY provider, model ORDER BY 2 DESC, 1",
        )?;
        let by_model = stmt
            .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))?
            .collect::<rusqlite::Result<Vec<_>>>()?
            .into_iter()
            .map(|(m, n)| (m, n.max(0) as u64))
            .collect();
        let date = |s: Option<i64>| {
            s.and_then(|s| chrono::DateTime::from_timestamp(s, 0))
                .map(|d| d.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
        };
        Ok(CacheStats {
            path: self.path.clone(),
            entries: entries.max(0) as u64,
            body_bytes: bytes.max(0) as u64,
            oldest: date(oldest),
            newest: date(newest),
            by_model,
        })
    }

    /// Deletes every entry; returns how many there were.
    ///
    /// # Errors
    /// A write error.
    pub fn clear(&self) -> anyhow::Result<u64> {
        let n = self.with_conn(|c| c.execute("DELETE FROM responses", [])).transpose()?.unwrap_or(0);
        let _ = self.with_conn(|c| c.execute_batch("VACUUM"));
        Ok(n as u64)
    }

    /// Deletes entries written more than `age` ago; returns how many.
    ///
    /// # Errors
    /// A write error.
    pub fn prune(&self, age: Duration) -> anyhow::Result<u64> {
        let now = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or_default();
        let cutoff = now - i64::try_from(age.as_secs()).unwrap_or(i64::MAX / 2);
        let n = self
            .with_conn(|c| c.execute("DELETE FROM responses WHERE written_at < ?1", params![cutoff]))
            .transpose()?
            .unwrap_or(0);
        Ok(n as u64)
    }
}

/// Parses an age such as `14d`, `12h`, `30m` or `90s` (a whole number and one unit).
///
/// # Errors
/// Anything else, with the expected form.
pub fn parse_age(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: u64 =
        num.parse().map_err(|_| format!("`{text}`: expected a whole number and a unit, e.g. 14d, 12h, 30m"))?;
    let secs = match unit {
        "d" => n.checked_mul(86_400),
        "h" => n.checked_mul(3_600),
        "m" => n.checked_mul(60),
        "s" => Some(n),
        _ => None,
    }
    .ok_or_else(|| format!("`{text}`: expected a whole number and a unit d, h, m or s, e.g. 14d"))?;
    Ok(Duration::from_secs(secs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_prune_and_damaged_rows() {
        let dir = tempfile::tempdir().unwrap();
        let cache = ResponseCache::open(dir.path(), true).unwrap();
        let raw = serde_json::json!({"content": [{"type": "text", "text": "hi"}]});
        let usage = Usage { input: 3, output: 4, cache_read: 0, cache_write: 1 };
        cache.put("k1", "anthropic", "m", &raw, usage, 120).unwrap();
        let hit = cache.get("k1").unwrap();
        assert_eq!((hit.raw, hit.usage, hit.latency_ms), (raw.clone(), usage, 120));
        assert!(cache.get("k2").is_none());
        assert_eq!(cache.stats().unwrap().entries, 1);
        assert_eq!(cache.stats().unwrap().by_model, vec![("anthropic:m".to_owned(), 1)]);
        // A body altered behind the cache's back is never served.
        cache
            .with_conn(|c| c.execute("UPDATE responses SET body = '{\"content\": []}' WHERE key = 'k1'", []))
            .unwrap()
            .unwrap();
        assert!(cache.get("k1").is_none());
        assert_eq!(cache.stats().unwrap().entries, 0, "the damaged row is dropped");
        cache.put("k3", "openai", "m", &raw, usage, 1).unwrap();
        assert_eq!(cache.prune(Duration::from_secs(3600)).unwrap(), 0);
        cache.with_conn(|c| c.execute("UPDATE responses SET written_at = 0", [])).unwrap().unwrap();
        assert_eq!(cache.prune(Duration::from_secs(3600)).unwrap(), 1);
    }

    #[test]
    fn a_file_that_is_not_a_database_is_moved_aside() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(CACHE_FILE), b"not a database at all, just text").unwrap();
        assert!(ResponseCache::open(dir.path(), false).is_err(), "replay does not rebuild");
        let cache = ResponseCache::open(dir.path(), true).unwrap();
        assert_eq!(cache.stats().unwrap().entries, 0);
        let aside: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().starts_with("cache.sqlite.corrupt-"))
            .collect();
        assert_eq!(aside.len(), 1);
    }

    #[test]
    fn ages_parse() {
        assert_eq!(parse_age("14d").unwrap(), Duration::from_secs(14 * 86_400));
        assert_eq!(parse_age("30m").unwrap(), Duration::from_secs(1800));
        assert!(parse_age("14").is_err());
        assert!(parse_age("two weeks").is_err());
        assert!(parse_age("99999999999999999999d").is_err());
    }
}
