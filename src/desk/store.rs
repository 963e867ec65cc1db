//! The desk's ticket database: SQLite (rusqlite, bundled) in WAL mode with
//! numbered schema migrations recorded in a `schema_version` table.
//!
//! Every ticket keeps its status history as rows of `ticket_events`; the
//! event sequence number doubles as the change feed `inquiry serve` streams
//! (so changes written by another process, e.g. `serve-mcp --tickets` or
//! `inquiry tickets close`, reach the desk too). A ticket is written in one
//! transaction with its first event, so a killed process leaves either the
//! whole ticket or none of it.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use anyhow::Context as _;
use chrono::{SecondsFormat, Utc};
use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};

use crate::handoff::{HandoffReason, NewTicket, Ticket, TicketSink};

pub use super::ticket::{StoredTicket, TicketDetail, TicketEvent, TicketStatus, TicketUpdate, MAX_NOTE_CHARS};

/// Default database path, relative to the working directory.
pub const DEFAULT_DB: &str = ".inquiry/desk.sqlite";

/// The migrations in order; migration *i* (1-based) brings the schema to version *i*.
/// Never edit a released one: add a new one.
const MIGRATIONS: &[&str] = &[
    // 1: tickets and their status history.
    "CREATE TABLE tickets (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        ticket_id TEXT NOT NULL UNIQUE,
        created_at TEXT NOT NULL,
        reason TEXT NOT NULL,
        listing_id TEXT,
        summary TEXT NOT NULL,
        contact_email TEXT,
        status TEXT NOT NULL CHECK (status IN ('open', 'in_progress', 'done')),
        note TEXT,
        updated_at TEXT NOT NULL,
        source TEXT NOT NULL
    );
    CREATE INDEX tickets_by_status ON tickets (status, seq);
    CREATE TABLE ticket_events (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        ticket_id TEXT NOT NULL REFERENCES tickets (ticket_id),
        at TEXT NOT NULL,
        status TEXT NOT NULL,
        note TEXT,
        source TEXT NOT NULL
    );
    CREATE INDEX ticket_events_by_ticket ON ticket_events (ticket_id, seq);",
    // 2: the run behind each ticket, and "reply was wrong" marks (see `wrong_reply`).
    super::wrong_reply::MIGRATION,
];

/// How long a ticket write waits for another process's lock before it fails
/// (and the desk answers 503 or reports the lost hand-off): long enough for
/// ordinary contention, short enough that nobody waits on a stuck writer.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// Tables this build's schema creates (SQLite adds `sqlite_sequence` for AUTOINCREMENT).
/// (Migration 2 adds `wrong_reply`'s two tables.)
const OWN_TABLES: &[&str] =
    &["schema_version", "tickets", "ticket_events", "sqlite_sequence", "ticket_runs", "wrong_replies"];

/// The SQLite ticket store. One connection behind a mutex: ticket writes are
/// small and rare next to a model call. Callers on an async runtime use it
/// from `spawn_blocking`, since a write may wait up to [`BUSY_TIMEOUT`].
pub struct TicketStore {
    conn: Mutex<Connection>,
    path: PathBuf,
    changes: tokio::sync::watch::Sender<i64>,
    /// A second connection for reads (`None` for a read-only store).
    reader: Option<Mutex<Connection>>,
    /// The latest write's failure, cleared by the next successful write.
    write_failure: Mutex<Option<String>>,
    read_only: bool,
}

impl std::fmt::Debug for TicketStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TicketStore").field("path", &self.path).field("read_only", &self.read_only).finish()
    }
}

fn now() -> String {
    Utc::now().to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// A `file:` URI for SQLite (`?`, `#` and `%` in the path are escaped).
fn sqlite_uri(path: &Path, query: &str) -> String {
    let mut uri = String::from("file:");
    for c in path.to_string_lossy().chars() {
        match c {
            '%' => uri.push_str("%25"),
            '?' => uri.push_str("%3f"),
            '#' => uri.push_str("%23"),
            c => uri.push(c),
        }
    }
    format!("{uri}?{query}")
}

impl TicketStore {
    /// Opens (creating if needed, with its directory) the database at `path`
    /// for reading and writing and brings its schema up to date.
    ///
    /// # Errors
    /// The directory or file cannot be created or opened; the file belongs to
    /// another application (refused before anything is written to it); it
    /// cannot be written (a read-only file, directory or file system, or a
    /// lock held past [`BUSY_TIMEOUT`]: a desk that cannot store hand-offs
    /// must not start); it is not an SQLite database or fails its integrity
    /// check; or it was written by a newer `inquiry`. A damaged database is
    /// never moved aside or rebuilt: it holds people's work.
    pub fn open(path: &Path) -> anyhow::Result<Self> {
        use rusqlite::OpenFlags;
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("--db {}: cannot create the directory {}", path.display(), dir.display()))?;
        }
        if path.is_dir() {
            anyhow::bail!("--db {}: is a directory; expected a database file such as {DEFAULT_DB}", path.display());
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let mut conn = Connection::open_with_flags(path, flags)
            .with_context(|| format!("--db {}: cannot open the ticket database", path.display()))?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        let unwritable = || {
            format!(
                "--db {}: the ticket database cannot be written (a read-only file, directory or file system, a full disk, \
                 or a lock held by another process); the desk does not start, because hand-offs could not be stored",
                path.display()
            )
        };
        if conn.is_readonly(rusqlite::MAIN_DB).unwrap_or(true) {
            anyhow::bail!(unwritable());
        }
        Self::refuse_foreign(&conn, path).map_err(|e| {
            if format!("{e:#}").contains("readonly") {
                anyhow::anyhow!(unwritable())
            } else {
                e
            }
        })?;
        let setup = |conn: &mut Connection| -> anyhow::Result<()> {
            conn.pragma_update(None, "journal_mode", "WAL")?;
            // A ticket is someone's request: a committed one survives a power cut too.
            conn.pragma_update(None, "synchronous", "FULL")?;
            conn.pragma_update(None, "foreign_keys", true)?;
            let ok: String = conn.query_row("PRAGMA quick_check(1)", [], |r| r.get(0))?;
            if ok != "ok" {
                anyhow::bail!("integrity check failed: {ok}");
            }
            crate::sqlite_owner::migrate(conn, MIGRATIONS)?;
            crate::sqlite_owner::stamp(conn, crate::sqlite_owner::DESK_APPLICATION_ID)?;
            Ok(())
        };
        setup(&mut conn).map_err(|e| {
            let text = format!("{e:#}");
            if text.contains("readonly") || text.contains("disk") || text.contains("locked") {
                anyhow::anyhow!("{}: {text}", unwritable())
            } else {
                e.context(format!("--db {}: not a usable ticket database", path.display()))
            }
        })?;
        // A write lock taken and released: a desk that could not write would
        // otherwise start and lose the first hand-off.
        conn.execute_batch("BEGIN IMMEDIATE; ROLLBACK;").map_err(|e| anyhow::anyhow!("{}: {e}", unwritable()))?;
        Self::finish_open(conn, path, false)
    }

    /// Opens an existing database for reading only (`tickets list`, `show`):
    /// nothing is created, migrated or written, and a read-only file is fine.
    ///
    /// # Errors
    /// No file at `path`, another application's file, not a desk database,
    /// or a schema newer than this build.
    pub fn open_read_only(path: &Path) -> anyhow::Result<Self> {
        use rusqlite::OpenFlags;
        if !path.is_file() {
            anyhow::bail!(
                "--db {}: no ticket database here yet (`inquiry serve` creates it with the first start; name another with --db)",
                path.display()
            );
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX | OpenFlags::SQLITE_OPEN_URI;
        let try_open = |uri: String| -> anyhow::Result<Connection> {
            let conn = Connection::open_with_flags(uri, flags)?;
            conn.busy_timeout(BUSY_TIMEOUT)?;
            conn.query_row("PRAGMA application_id", [], |r| r.get::<_, i32>(0))?;
            Ok(conn)
        };
        // A WAL database in a directory we may not write needs `immutable`
        // to be read at all (then nobody may be writing it: a read-only copy).
        let conn = try_open(sqlite_uri(path, "mode=ro"))
            .or_else(|_| try_open(sqlite_uri(path, "immutable=1")))
            .with_context(|| format!("--db {}: not a usable ticket database", path.display()))?;
        Self::refuse_foreign(&conn, path)?;
        let has_schema: bool = conn
            .query_row("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'tickets'", [], |r| {
                r.get::<_, i64>(0)
            })
            .map(|n| n > 0)
            .with_context(|| format!("--db {}: not a usable ticket database", path.display()))?;
        if !has_schema {
            anyhow::bail!("--db {}: not an inquiry desk database (it has no tickets table)", path.display());
        }
        let version: i64 = conn
            .query_row("SELECT COALESCE(MAX(version), 0) FROM schema_version", [], |r| r.get(0))
            .with_context(|| format!("--db {}: not a usable ticket database", path.display()))?;
        if version > MIGRATIONS.len() as i64 {
            anyhow::bail!(
                "--db {}: schema version {version} was written by a newer inquiry; this build knows up to version {}",
                path.display(),
                MIGRATIONS.len()
            );
        }
        Self::finish_open(conn, path, true)
    }

    fn refuse_foreign(conn: &Connection, path: &Path) -> anyhow::Result<()> {
        use crate::sqlite_owner::{owner, Owner, DESK_APPLICATION_ID};
        match owner(conn, DESK_APPLICATION_ID, "schema_version", OWN_TABLES)
            .with_context(|| format!("--db {}: not a usable ticket database", path.display()))?
        {
            Owner::Foreign(why) => anyhow::bail!(
                "--db {}: not an inquiry desk database ({why}); nothing was written to it; name a new file with --db",
                path.display()
            ),
            Owner::Ours | Owner::Empty | Owner::Legacy => Ok(()),
        }
    }

    fn finish_open(conn: Connection, path: &Path, read_only: bool) -> anyhow::Result<Self> {
        let last: i64 = conn
            .query_row("SELECT COALESCE(MAX(seq), 0) FROM ticket_events", [], |r| r.get(0))
            .with_context(|| format!("--db {}: cannot read the ticket history", path.display()))?;
        let reader = if read_only {
            None
        } else {
            use rusqlite::OpenFlags;
            let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
            let reader = Connection::open_with_flags(path, flags)
                .with_context(|| format!("--db {}: cannot open the ticket database for reading", path.display()))?;
            reader.busy_timeout(BUSY_TIMEOUT)?;
            Some(Mutex::new(reader))
        };
        Ok(Self {
            conn: Mutex::new(conn),
            path: path.to_owned(),
            changes: tokio::sync::watch::channel(last).0,
            reader,
            write_failure: Mutex::new(None),
            read_only,
        })
    }

    /// Why the latest ticket write failed, unless a later one succeeded:
    /// `inquiry serve` reports it on `/healthz` (503) until writes work again.
    pub fn write_failure(&self) -> Option<String> {
        self.write_failure.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    fn note_write<T>(&self, result: anyhow::Result<T>) -> anyhow::Result<T> {
        let mut failure = self.write_failure.lock().unwrap_or_else(|p| p.into_inner());
        *failure = result.as_ref().err().map(|e| format!("{e:#}"));
        result
    }

    fn writable(&self) -> anyhow::Result<()> {
        if self.read_only {
            anyhow::bail!("{}: opened read-only", self.path.display());
        }
        Ok(())
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The write connection for the desk's other tables (`wrong_reply`).
    pub(super) fn write_conn(&self) -> anyhow::Result<std::sync::MutexGuard<'_, Connection>> {
        self.writable()?;
        Ok(self.conn())
    }

    /// The read connection for the desk's other tables.
    pub(super) fn read_conn(&self) -> std::sync::MutexGuard<'_, Connection> {
        self.reader()
    }

    fn conn(&self) -> std::sync::MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The connection for reads: its own, so a write waiting for another
    /// process's lock never holds up a list, a count or `/healthz` (WAL
    /// readers do not wait for writers).
    fn reader(&self) -> std::sync::MutexGuard<'_, Connection> {
        match &self.reader {
            Some(reader) => reader.lock().unwrap_or_else(|p| p.into_inner()),
            None => self.conn(),
        }
    }

    /// The schema version the database is at.
    ///
    /// # Errors
    /// A read error.
    pub fn schema_version(&self) -> anyhow::Result<i64> {
        Ok(self.reader().query_row("SELECT MAX(version) FROM schema_version", [], |r| r.get(0))?)
    }

    /// Stores a new ticket (status `open`) with its first history step, in one
    /// transaction, and returns it with its id (`TKT-0001`, … across the database).
    ///
    /// # Errors
    /// The write failed (disk full, database locked past the busy timeout).
    pub fn create(&self, new: &NewTicket, source: &str) -> anyhow::Result<Ticket> {
        let result = self.writable().and_then(|()| {
            self.create_inner(new, source).with_context(|| format!("{}: cannot store the ticket", self.path.display()))
        });
        self.note_write(result)
    }

    fn create_inner(&self, new: &NewTicket, source: &str) -> anyhow::Result<Ticket> {
        let mut conn = self.conn();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let seq: i64 = tx.query_row("SELECT COALESCE(MAX(seq), 0) + 1 FROM tickets", [], |r| r.get(0))?;
        let ticket = Ticket {
            ticket_id: format!("TKT-{seq:04}"),
            created_at: new.now.to_rfc3339_opts(SecondsFormat::Secs, true),
            reason: new.reason,
            listing_id: new.listing_id.clone(),
            summary: new.summary.clone(),
            contact_email: new.contact_email.clone(),
        };
        tx.execute(
            "INSERT INTO tickets (seq, ticket_id, created_at, reason, listing_id, summary, contact_email, status, note, updated_at, source)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'open', NULL, ?3, ?8)",
            params![
                seq,
                ticket.ticket_id,
                ticket.created_at,
                ticket.reason.as_str(),
                ticket.listing_id,
                ticket.summary,
                ticket.contact_email,
                source
            ],
        )?;
        tx.execute(
            "INSERT INTO ticket_events (ticket_id, at, status, note, source) VALUES (?1, ?2, 'open', NULL, ?3)",
            params![ticket.ticket_id, ticket.created_at, source],
        )?;
        let event = tx.last_insert_rowid();
        tx.commit().with_context(|| format!("{}: cannot store the ticket", self.path.display()))?;
        drop(conn);
        self.changes.send_replace(event);
        Ok(ticket)
    }

    /// Tickets in creation order, optionally only those with `status`.
    ///
    /// # Errors
    /// A read error, or a row this build cannot read (naming the ticket).
    pub fn list(&self, status: Option<TicketStatus>) -> anyhow::Result<Vec<StoredTicket>> {
        let conn = self.reader();
        let mut stmt = conn
            .prepare_cached(&format!("SELECT {COLUMNS} FROM tickets WHERE (?1 IS NULL OR status = ?1) ORDER BY seq"))?;
        let rows = stmt.query_map(params![status.map(TicketStatus::as_str)], read_ticket)?;
        let mut out = vec![];
        for row in rows {
            // A row this build cannot read (e.g. a reason added by a newer
            // version) is skipped with a warning; the rest of the queue stays usable.
            match row? {
                Ok(ticket) => out.push(ticket),
                Err(e) => tracing::warn!("{}: {e:#}; skipped", self.path.display()),
            }
        }
        Ok(out)
    }

    /// Number of tickets, by status (`open`, `in_progress`, `done`).
    ///
    /// # Errors
    /// A read error.
    pub fn counts(&self) -> anyhow::Result<[(TicketStatus, u64); 3]> {
        let conn = self.reader();
        let mut out = [(TicketStatus::Open, 0), (TicketStatus::InProgress, 0), (TicketStatus::Done, 0)];
        for (status, n) in &mut out {
            let count: i64 =
                conn.query_row("SELECT COUNT(*) FROM tickets WHERE status = ?1", [status.as_str()], |r| r.get(0))?;
            *n = count.max(0) as u64;
        }
        Ok(out)
    }

    /// One ticket with its history; `None` for an unknown id.
    ///
    /// # Errors
    /// A read error.
    pub fn get(&self, ticket_id: &str) -> anyhow::Result<Option<TicketDetail>> {
        let conn = self.reader();
        let ticket = conn
            .query_row(&format!("SELECT {COLUMNS} FROM tickets WHERE ticket_id = ?1"), [ticket_id], read_ticket)
            .optional()?
            .transpose()?;
        let Some(ticket) = ticket else { return Ok(None) };
        let mut stmt = conn.prepare_cached(
            "SELECT seq, ticket_id, at, status, note, source FROM ticket_events WHERE ticket_id = ?1 ORDER BY seq",
        )?;
        let history = stmt.query_map([ticket_id], read_event)?.collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(Some(TicketDetail { ticket, history: history.into_iter().collect::<anyhow::Result<_>>()? }))
    }

    /// Applies `update` to a ticket and records the step in its history.
    /// Returns the changed ticket, or `None` for an unknown id.
    ///
    /// # Errors
    /// An empty update, a note over [`MAX_NOTE_CHARS`], or a write error.
    pub fn update(&self, ticket_id: &str, update: &TicketUpdate, source: &str) -> anyhow::Result<Option<StoredTicket>> {
        if update.status.is_none() && update.note.is_none() {
            anyhow::bail!("nothing to change; give a status, a note, or both");
        }
        if let Some(note) = &update.note {
            let n = note.chars().count();
            if n > MAX_NOTE_CHARS {
                anyhow::bail!("note has {n} characters; at most {MAX_NOTE_CHARS} are allowed");
            }
        }
        let result = self.writable().and_then(|()| {
            self.update_inner(ticket_id, update, source)
                .with_context(|| format!("{}: cannot store the change", self.path.display()))
        });
        self.note_write(result)
    }

    fn update_inner(
        &self,
        ticket_id: &str,
        update: &TicketUpdate,
        source: &str,
    ) -> anyhow::Result<Option<StoredTicket>> {
        let mut conn = self.conn();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let current: Option<String> =
            tx.query_row("SELECT status FROM tickets WHERE ticket_id = ?1", [ticket_id], |r| r.get(0)).optional()?;
        let Some(current) = current else { return Ok(None) };
        let status = match update.status {
            Some(s) => s.as_str().to_owned(),
            None => current,
        };
        let at = now();
        tx.execute(
            "UPDATE tickets SET status = ?2, note = COALESCE(?3, note), updated_at = ?4 WHERE ticket_id = ?1",
            params![ticket_id, status, update.note, at],
        )?;
        tx.execute(
            "INSERT INTO ticket_events (ticket_id, at, status, note, source) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![ticket_id, at, status, update.note, source],
        )?;
        let event = tx.last_insert_rowid();
        let ticket = tx
            .query_row(&format!("SELECT {COLUMNS} FROM tickets WHERE ticket_id = ?1"), [ticket_id], read_ticket)?
            .with_context(|| format!("ticket {ticket_id}"))?;
        tx.commit().with_context(|| format!("{}: cannot store the change", self.path.display()))?;
        drop(conn);
        self.changes.send_replace(event);
        Ok(Some(ticket))
    }

    /// The latest change-feed sequence number (0 for an empty database).
    ///
    /// # Errors
    /// A read error.
    pub fn last_event(&self) -> anyhow::Result<i64> {
        Ok(self.reader().query_row("SELECT COALESCE(MAX(seq), 0) FROM ticket_events", [], |r| r.get(0))?)
    }

    /// Tickets changed (created or updated) after event `seq`, each once in its
    /// current state, in the order of their latest change; with the newest event seq.
    ///
    /// # Errors
    /// A read error.
    pub fn changed_since(&self, seq: i64) -> anyhow::Result<(Vec<StoredTicket>, i64)> {
        let conn = self.reader();
        let mut stmt = conn.prepare_cached(&format!(
            "SELECT {COLUMNS_T}, MAX(e.seq) AS last FROM ticket_events e JOIN tickets t ON t.ticket_id = e.ticket_id
             WHERE e.seq > ?1 GROUP BY t.ticket_id ORDER BY last"
        ))?;
        let mut last = seq;
        let mut out = vec![];
        let rows = stmt.query_map([seq], |r| Ok((read_ticket(r)?, r.get::<_, i64>(11)?)))?;
        for row in rows {
            let (ticket, event) = row?;
            match ticket {
                Ok(ticket) => out.push(ticket),
                Err(e) => tracing::warn!("{}: {e:#}; skipped", self.path.display()),
            }
            last = last.max(event);
        }
        Ok((out, last))
    }

    /// A receiver that changes whenever this process writes to the store.
    /// Other processes' writes are not signalled: poll [`Self::changed_since`] too.
    pub fn subscribe(&self) -> tokio::sync::watch::Receiver<i64> {
        self.changes.subscribe()
    }
}

const COLUMNS: &str =
    "ticket_id, created_at, reason, listing_id, summary, contact_email, status, note, updated_at, source, seq";
const COLUMNS_T: &str = "t.ticket_id, t.created_at, t.reason, t.listing_id, t.summary, t.contact_email, t.status, t.note, t.updated_at, t.source, t.seq";

/// Reads a `tickets` row (columns in [`COLUMNS`] order). The outer error is
/// SQLite's; the inner one a value this build cannot read.
fn read_ticket(r: &rusqlite::Row<'_>) -> rusqlite::Result<anyhow::Result<StoredTicket>> {
    let id: String = r.get(0)?;
    let reason: String = r.get(2)?;
    let status: String = r.get(6)?;
    let parsed = (|| {
        let reason: HandoffReason = serde_json::from_value(serde_json::Value::String(reason.clone()))
            .map_err(|_| anyhow::anyhow!("ticket {id}: unknown reason {reason:?}"))?;
        let status: TicketStatus = status.parse().map_err(|e| anyhow::anyhow!("ticket {id}: {e}"))?;
        anyhow::Ok((reason, status))
    })();
    Ok(match parsed {
        Err(e) => Err(e),
        Ok((reason, status)) => Ok(StoredTicket {
            ticket: Ticket {
                ticket_id: id,
                created_at: r.get(1)?,
                reason,
                listing_id: r.get(3)?,
                summary: r.get(4)?,
                contact_email: r.get(5)?,
            },
            status,
            note: r.get(7)?,
            updated_at: r.get(8)?,
            source: r.get(9)?,
        }),
    })
}

fn read_event(r: &rusqlite::Row<'_>) -> rusqlite::Result<anyhow::Result<TicketEvent>> {
    let status: String = r.get(3)?;
    let ticket_id: String = r.get(1)?;
    Ok(match status.parse::<TicketStatus>() {
        Err(e) => Err(anyhow::anyhow!("ticket {ticket_id}: {e}")),
        Ok(status) => {
            Ok(TicketEvent { seq: r.get(0)?, ticket_id, at: r.get(2)?, status, note: r.get(4)?, source: r.get(5)? })
        }
    })
}

/// A [`TicketSink`] writing to a store with a fixed `source` label.
pub struct StoreSink {
    /// The store.
    pub store: std::sync::Arc<TicketStore>,
    /// `desk` or `mcp`.
    pub source: &'static str,
}

impl TicketSink for StoreSink {
    fn record(&self, ticket: &NewTicket) -> Result<Ticket, String> {
        self.store.create(ticket, self.source).map_err(|e| format!("{e:#}"))
    }
}

#[cfg(test)]
#[path = "store_tests.rs"]
mod tests;
