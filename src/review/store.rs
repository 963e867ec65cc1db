//! The review database: SQLite (rusqlite, bundled) in WAL mode with numbered
//! migrations, marked with its own application id (`IQRV`, see
//! [`crate::sqlite_owner`]) so another application's file is refused before
//! anything is written.
//!
//! One row per reviewer, rubric item and verdict, keyed by the SHA-256 of the
//! reply text: a verdict belongs to the exact reply it was given on, and a
//! changed reply (another run, an edited label) never picks up an old one.
//! The item's text is stored beside its number and must match too, so an
//! edited rubric item is reviewed afresh. The reply itself and its evidence
//! (tool calls with results) are kept once per hash, so export to the
//! `labels/` YAML format needs no report set.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::Context as _;
use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};
use serde::{Deserialize, Serialize};

use crate::eval::labels::EvidenceCall;

/// Default database path, relative to the working directory.
pub const DEFAULT_DB: &str = ".inquiry/reviews.sqlite";

/// How long a write waits for another process's lock before it fails.
pub const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// Longest note kept with a review (characters).
pub const MAX_NOTE_CHARS: usize = 2_000;

const MIGRATIONS: &[&str] = &[
    // 1: replies (text and evidence, once per hash) and the reviewers' verdicts.
    "CREATE TABLE replies (
        case_id TEXT NOT NULL,
        reply_hash TEXT NOT NULL,
        reply TEXT NOT NULL,
        evidence TEXT NOT NULL,
        PRIMARY KEY (case_id, reply_hash)
    );
    CREATE TABLE reviews (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        reviewer TEXT NOT NULL,
        case_id TEXT NOT NULL,
        reply_hash TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('must', 'must_not')),
        item INTEGER NOT NULL CHECK (item >= 1),
        item_text TEXT NOT NULL,
        verdict INTEGER NOT NULL CHECK (verdict IN (0, 1)),
        note TEXT,
        drawn TEXT NOT NULL,
        reviewed_at TEXT NOT NULL,
        UNIQUE (reviewer, case_id, reply_hash, kind, item),
        FOREIGN KEY (case_id, reply_hash) REFERENCES replies (case_id, reply_hash)
    );
    CREATE INDEX reviews_by_reply ON reviews (case_id, reply_hash);",
];

const OWN_TABLES: &[&str] = &["schema_version", "replies", "reviews", "sqlite_sequence"];

/// Why an item was put in the review queue; stored with each verdict, so the
/// judge-corrected pass rate uses only the uniformly sampled replies.
pub const DRAWN_SAMPLE: &str = "sample";

/// The SHA-256 (hex) of a reply's text: the key every verdict is stored under.
pub fn reply_hash(reply: &str) -> String {
    use sha2::Digest as _;
    sha2::Sha256::digest(reply.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

/// `must` (the fact is conveyed) or `must_not` (the statement is made).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ItemKind {
    /// A `must` item; the verdict is "conveyed".
    Must,
    /// A `must_not` item; the verdict is "stated".
    MustNot,
}

impl ItemKind {
    /// `must` / `must_not`.
    pub fn as_str(self) -> &'static str {
        match self {
            ItemKind::Must => "must",
            ItemKind::MustNot => "must_not",
        }
    }
    fn parse(s: &str) -> anyhow::Result<Self> {
        match s {
            "must" => Ok(ItemKind::Must),
            "must_not" => Ok(ItemKind::MustNot),
            other => anyhow::bail!("unknown item kind `{other}`"),
        }
    }
}

/// The reply a verdict is about: stored once per hash.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredReply {
    /// Case id.
    pub case_id: String,
    /// The reply text (its hash is the key).
    pub reply: String,
    /// The tool calls the reply was written from, with their results.
    pub evidence: Vec<EvidenceCall>,
}

/// One reviewer's verdict on one rubric item of one reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Review {
    /// Reviewer name (a safe id: lower-case letters, digits, hyphens).
    pub reviewer: String,
    /// Case id.
    pub case_id: String,
    /// [`reply_hash`] of the reply.
    pub reply_hash: String,
    /// `must` or `must_not`.
    pub kind: ItemKind,
    /// 1-based item number within its kind.
    pub item: usize,
    /// The item's text when it was reviewed.
    pub item_text: String,
    /// `must`: conveyed; `must_not`: stated.
    pub verdict: bool,
    /// The reviewer's note.
    pub note: Option<String>,
    /// Why the reply was in the queue (`disagreement`, `undecided`, `sample`,
    /// `ticket`, `import`; several joined by commas).
    pub drawn: String,
    /// RFC 3339 UTC.
    pub reviewed_at: String,
}

impl Review {
    /// Whether the item passes by this verdict (conveyed / not stated).
    pub fn item_passes(&self) -> bool {
        match self.kind {
            ItemKind::Must => self.verdict,
            ItemKind::MustNot => !self.verdict,
        }
    }
    /// Whether the reply was drawn in the uniform random sample.
    pub fn sampled(&self) -> bool {
        self.drawn.split(',').any(|d| d == DRAWN_SAMPLE)
    }
}

/// The SQLite review store (one connection behind a mutex: reviews are small
/// and come one keystroke at a time; servers call it from `spawn_blocking`).
pub struct ReviewStore {
    conn: Mutex<Connection>,
    path: PathBuf,
}

impl std::fmt::Debug for ReviewStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReviewStore").field("path", &self.path).finish()
    }
}

fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

impl ReviewStore {
    /// Opens (creating, with its directory) the database at `path` and brings
    /// its schema up to date.
    ///
    /// # Errors
    /// The file cannot be created or opened, belongs to another application
    /// (refused before any write), fails its integrity check, or was written
    /// by a newer `inquiry`.
    pub fn open(path: &Path) -> anyhow::Result<Self> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).with_context(|| {
                format!("--reviews {}: cannot create the directory {}", path.display(), dir.display())
            })?;
        }
        if path.is_dir() {
            anyhow::bail!(
                "--reviews {}: is a directory; expected a database file such as {DEFAULT_DB}",
                path.display()
            );
        }
        let mut conn = Connection::open(path)
            .with_context(|| format!("--reviews {}: cannot open the review database", path.display()))?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        use crate::sqlite_owner::{owner, Owner, REVIEW_APPLICATION_ID};
        match owner(&conn, REVIEW_APPLICATION_ID, "reviews", OWN_TABLES)
            .with_context(|| format!("--reviews {}: not a usable review database", path.display()))?
        {
            Owner::Foreign(why) => anyhow::bail!(
                "--reviews {}: not an inquiry review database ({why}); nothing was written to it",
                path.display()
            ),
            Owner::Ours | Owner::Empty | Owner::Legacy => {}
        }
        let setup = |conn: &mut Connection| -> anyhow::Result<()> {
            conn.pragma_update(None, "journal_mode", "WAL")?;
            conn.pragma_update(None, "foreign_keys", true)?;
            let ok: String = conn.query_row("PRAGMA quick_check(1)", [], |r| r.get(0))?;
            if ok != "ok" {
                anyhow::bail!("integrity check failed: {ok}");
            }
            crate::sqlite_owner::migrate(conn, MIGRATIONS)?;
            crate::sqlite_owner::stamp(conn, REVIEW_APPLICATION_ID)?;
            Ok(())
        };
        setup(&mut conn).with_context(|| format!("--reviews {}: not a usable review database", path.display()))?;
        Ok(Self { conn: Mutex::new(conn), path: path.to_owned() })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn conn(&self) -> std::sync::MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Stores a reply (idempotent: the hash is the key) and returns its hash.
    ///
    /// # Errors
    /// A write error.
    pub fn put_reply(&self, reply: &StoredReply) -> anyhow::Result<String> {
        let hash = reply_hash(&reply.reply);
        self.conn().execute(
            "INSERT INTO replies (reply_hash, case_id, reply, evidence) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (case_id, reply_hash) DO NOTHING",
            params![hash, reply.case_id, reply.reply, serde_json::to_string(&reply.evidence)?],
        )?;
        Ok(hash)
    }

    /// A stored reply of `case_id` by hash.
    ///
    /// # Errors
    /// A read error or unreadable evidence.
    pub fn reply(&self, case_id: &str, hash: &str) -> anyhow::Result<Option<StoredReply>> {
        let row = self
            .conn()
            .query_row(
                "SELECT case_id, reply, evidence FROM replies WHERE case_id = ?1 AND reply_hash = ?2",
                [case_id, hash],
                |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?)),
            )
            .optional()?;
        row.map(|(case_id, reply, evidence)| {
            Ok(StoredReply { case_id, reply, evidence: serde_json::from_str(&evidence).context("stored evidence")? })
        })
        .transpose()
    }

    /// Records one reviewer's verdicts on items of a stored reply, in one
    /// transaction; a verdict the reviewer gave before on the same item of
    /// the same reply is replaced (people change their minds).
    ///
    /// # Errors
    /// A reviewer name that is not a safe id, a note over
    /// [`MAX_NOTE_CHARS`], a reply that is not stored, or a write error.
    pub fn record(&self, reviews: &[Review]) -> anyhow::Result<()> {
        for r in reviews {
            check_reviewer(&r.reviewer)?;
            if let Some(n) = &r.note {
                let count = n.chars().count();
                if count > MAX_NOTE_CHARS {
                    anyhow::bail!("note has {count} characters; at most {MAX_NOTE_CHARS} are allowed");
                }
            }
        }
        let mut conn = self.conn();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        for r in reviews {
            let known: Option<i64> = tx
                .query_row(
                    "SELECT 1 FROM replies WHERE case_id = ?1 AND reply_hash = ?2",
                    [&r.case_id, &r.reply_hash],
                    |row| row.get(0),
                )
                .optional()?;
            if known.is_none() {
                anyhow::bail!(
                    "no stored reply {} of case `{}`; the queue must store it first",
                    r.reply_hash,
                    r.case_id
                );
            }
            tx.execute(
                "INSERT INTO reviews (reviewer, case_id, reply_hash, kind, item, item_text, verdict, note, drawn, reviewed_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
                 ON CONFLICT (reviewer, case_id, reply_hash, kind, item) DO UPDATE SET
                   item_text = excluded.item_text, verdict = excluded.verdict, note = excluded.note,
                   drawn = excluded.drawn, reviewed_at = excluded.reviewed_at",
                params![
                    r.reviewer,
                    r.case_id,
                    r.reply_hash,
                    r.kind.as_str(),
                    r.item as i64,
                    r.item_text,
                    r.verdict,
                    r.note,
                    r.drawn,
                    if r.reviewed_at.is_empty() { now() } else { r.reviewed_at.clone() },
                ],
            )?;
        }
        tx.commit().with_context(|| format!("{}: cannot store the reviews", self.path.display()))?;
        Ok(())
    }

    /// The verdicts given on exactly this reply (by hash) of `case_id`, every
    /// reviewer, in item order. A reply with another hash has none.
    ///
    /// # Errors
    /// A read error.
    pub fn for_reply(&self, case_id: &str, hash: &str) -> anyhow::Result<Vec<Review>> {
        self.select("WHERE case_id = ?1 AND reply_hash = ?2", params![case_id, hash])
    }

    /// Every stored verdict, by case, reply, reviewer and item.
    ///
    /// # Errors
    /// A read error.
    pub fn all(&self) -> anyhow::Result<Vec<Review>> {
        self.select("", params![])
    }

    fn select(&self, filter: &str, p: impl rusqlite::Params) -> anyhow::Result<Vec<Review>> {
        let conn = self.conn();
        let mut stmt = conn.prepare(&format!(
            "SELECT reviewer, case_id, reply_hash, kind, item, item_text, verdict, note, drawn, reviewed_at
             FROM reviews {filter} ORDER BY case_id, reply_hash, reviewer, kind, item"
        ))?;
        let rows = stmt.query_map(p, |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, i64>(4)?,
                r.get::<_, String>(5)?,
                r.get::<_, bool>(6)?,
                r.get::<_, Option<String>>(7)?,
                r.get::<_, String>(8)?,
                r.get::<_, String>(9)?,
            ))
        })?;
        let mut out = vec![];
        for row in rows {
            let (reviewer, case_id, reply_hash, kind, item, item_text, verdict, note, drawn, reviewed_at) = row?;
            out.push(Review {
                reviewer,
                case_id,
                reply_hash,
                kind: ItemKind::parse(&kind)?,
                item: item.max(1) as usize,
                item_text,
                verdict,
                note,
                drawn,
                reviewed_at,
            });
        }
        Ok(out)
    }
}

/// Checks a reviewer name: a safe id (it becomes part of label ids).
///
/// # Errors
/// The name breaks [`crate::text_file::SAFE_ID_RULE`].
pub fn check_reviewer(name: &str) -> anyhow::Result<()> {
    if !crate::text_file::is_safe_id(name) || name.len() > 40 {
        anyhow::bail!(
            "reviewer `{}`: expected lower-case letters, digits and hyphens, starting with a letter or digit, at most 40 characters",
            crate::text_file::escape_for_terminal(name, 60)
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn review(store: &ReviewStore, reviewer: &str, reply: &str, verdict: bool) -> Review {
        let hash = store
            .put_reply(&StoredReply { case_id: "heating-hh-1001".into(), reply: reply.into(), evidence: vec![] })
            .unwrap();
        Review {
            reviewer: reviewer.into(),
            case_id: "heating-hh-1001".into(),
            reply_hash: hash,
            kind: ItemKind::Must,
            item: 1,
            item_text: "Heating is included".into(),
            verdict,
            note: None,
            drawn: "sample".into(),
            reviewed_at: String::new(),
        }
    }

    #[test]
    fn a_changed_reply_never_reuses_an_old_verdict() {
        let dir = tempfile::tempdir().unwrap();
        let store = ReviewStore::open(&dir.path().join("r.sqlite")).unwrap();
        let old = review(&store, "ana", "Heating is included [HH-1001].", true);
        store.record(std::slice::from_ref(&old)).unwrap();
        let changed = "Heating is not included [HH-1001].";
        let hash = reply_hash(changed);
        assert_ne!(hash, old.reply_hash);
        assert!(store.for_reply("heating-hh-1001", &hash).unwrap().is_empty(), "no verdict for the changed reply");
        assert_eq!(
            store.for_reply("heating-hh-1001", &old.reply_hash).unwrap(),
            vec![Review { reviewed_at: store.all().unwrap()[0].reviewed_at.clone(), ..old.clone() }]
        );
        // A verdict on the changed reply is its own row; the old one is untouched.
        let new = review(&store, "ana", changed, false);
        store.record(&[new]).unwrap();
        assert_eq!(store.for_reply("heating-hh-1001", &hash).unwrap()[0].verdict, false);
        assert_eq!(store.for_reply("heating-hh-1001", &old.reply_hash).unwrap()[0].verdict, true);
        // A reviewer changing their mind replaces their own row only.
        let mut again = old.clone();
        again.verdict = false;
        store.record(&[again, review(&store, "ben", "Heating is included [HH-1001].", true)]).unwrap();
        let rows = store.for_reply("heating-hh-1001", &old.reply_hash).unwrap();
        assert_eq!(
            rows.iter().map(|r| (r.reviewer.as_str(), r.verdict)).collect::<Vec<_>>(),
            [("ana", false), ("ben", true)]
        );
        // A verdict on a reply that was never stored is refused.
        let mut stray = old;
        stray.reply_hash = reply_hash("something else");
        assert!(format!("{:#}", store.record(&[stray]).unwrap_err()).contains("no stored reply"));
    }

    #[test]
    fn reviewer_names_and_foreign_files_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let store = ReviewStore::open(&dir.path().join("r.sqlite")).unwrap();
        let bad = review(&store, "Ana Smith", "x", true);
        assert!(format!("{:#}", store.record(&[bad]).unwrap_err()).contains("reviewer `Ana Smith`"));
        drop(store);
        let desk = dir.path().join("desk.sqlite");
        drop(crate::desk::TicketStore::open(&desk).unwrap());
        let err = format!("{:#}", ReviewStore::open(&desk).unwrap_err());
        assert!(err.contains("not an inquiry review database"), "{err}");
        // Reopened, the schema and rows are there.
        let store = ReviewStore::open(&dir.path().join("r.sqlite")).unwrap();
        assert!(store.all().unwrap().is_empty());
    }
}
