//! Which SQLite files are ours. Every database `inquiry` creates carries an
//! application id in its header (`PRAGMA application_id`, SQLite's documented
//! way to mark a file's format); a file with another id, or without one but
//! with tables of its own, belongs to another application and is refused
//! before anything is written to it (no table added, no WAL switch). Our
//! files carry their schema version too, and [`migrate`] brings them up to
//! date the same way for every database.

use anyhow::Context as _;
use rusqlite::Connection;

/// Application id of the desk's ticket database (`IQDT`).
pub const DESK_APPLICATION_ID: i32 = 0x4951_4454;
/// Application id of the model-response cache (`IQRC`).
pub const CACHE_APPLICATION_ID: i32 = 0x4951_5243;
/// Application id of the review database (`IQRV`).
pub const REVIEW_APPLICATION_ID: i32 = 0x4951_5256;

/// What a database file holds, as far as ownership goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Owner {
    /// Carries our application id.
    Ours,
    /// No tables at all (a new or empty file): ours to set up.
    Empty,
    /// No application id, but exactly the tables an older `inquiry` created.
    Legacy,
    /// Another application's file; the text says what was found.
    Foreign(String),
}

/// Reads the file's application id and table names and decides whose it is.
/// `own_tables` are the tables our schema creates (any subset of them, with
/// `key_table` present, counts as [`Owner::Legacy`]).
///
/// # Errors
/// The file cannot be read as an SQLite database.
pub fn owner(conn: &Connection, application_id: i32, key_table: &str, own_tables: &[&str]) -> anyhow::Result<Owner> {
    let id: i32 = conn.query_row("PRAGMA application_id", [], |r| r.get(0)).context("reading the application id")?;
    if id == application_id {
        return Ok(Owner::Ours);
    }
    let mut stmt =
        conn.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")?;
    let tables = stmt.query_map([], |r| r.get::<_, String>(0))?.collect::<rusqlite::Result<Vec<String>>>()?;
    if id != 0 {
        return Ok(Owner::Foreign(format!("its application id is {id:#010x}, not inquiry's {application_id:#010x}")));
    }
    if tables.is_empty() {
        return Ok(Owner::Empty);
    }
    let foreign: Vec<&str> = tables.iter().map(String::as_str).filter(|t| !own_tables.contains(t)).collect();
    if foreign.is_empty() && tables.iter().any(|t| t == key_table) {
        return Ok(Owner::Legacy);
    }
    let shown: Vec<&str> = if foreign.is_empty() { tables.iter().map(String::as_str).collect() } else { foreign };
    Ok(Owner::Foreign(format!("it holds other tables ({})", shown.join(", "))))
}

/// Marks a file as ours (inside the caller's write path only).
///
/// # Errors
/// The header cannot be written.
pub fn stamp(conn: &Connection, application_id: i32) -> rusqlite::Result<()> {
    conn.pragma_update(None, "application_id", application_id)
}

/// Applies the `migrations` (SQL batches, in order; version N is the N-th)
/// that the database lacks, each in its own immediate transaction, and
/// records each in `schema_version` with its time (RFC 3339 UTC).
///
/// # Errors
/// A database written by a newer build (a version this build does not know),
/// a failing migration (named by its number), or an SQLite error.
pub fn migrate(conn: &mut Connection, migrations: &[&str]) -> anyhow::Result<()> {
    conn.execute_batch(
        "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL PRIMARY KEY, applied_at TEXT NOT NULL)",
    )?;
    let current: i64 = conn.query_row("SELECT COALESCE(MAX(version), 0) FROM schema_version", [], |r| r.get(0))?;
    let known = migrations.len() as i64;
    if current > known {
        anyhow::bail!(
            "schema version {current} was written by a newer inquiry; this build knows up to version {known}"
        );
    }
    for (i, sql) in migrations.iter().enumerate().skip(current as usize) {
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        // Another process may have migrated while this one waited for the lock.
        let now_at: i64 = tx.query_row("SELECT COALESCE(MAX(version), 0) FROM schema_version", [], |r| r.get(0))?;
        if now_at > i as i64 {
            continue;
        }
        tx.execute_batch(sql).with_context(|| format!("migration {}", i + 1))?;
        let at = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        tx.execute(
            "INSERT INTO schema_version (version, applied_at) VALUES (?1, ?2)",
            rusqlite::params![i as i64 + 1, at],
        )?;
        tx.commit()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_told_apart_by_id_and_tables() {
        let conn = Connection::open_in_memory().unwrap();
        assert_eq!(owner(&conn, 7, "t", &["t", "u"]).unwrap(), Owner::Empty);
        conn.execute_batch("CREATE TABLE t (x); CREATE TABLE u (y);").unwrap();
        assert_eq!(owner(&conn, 7, "t", &["t", "u"]).unwrap(), Owner::Legacy);
        assert_eq!(
            owner(&conn, 7, "v", &["t", "u", "v"]).unwrap(),
            Owner::Foreign("it holds other tables (t, u)".into())
        );
        conn.execute_batch("CREATE TABLE accounts (z);").unwrap();
        let Owner::Foreign(why) = owner(&conn, 7, "t", &["t", "u"]).unwrap() else { panic!() };
        assert_eq!(why, "it holds other tables (accounts)");
        stamp(&conn, 7).unwrap();
        assert_eq!(owner(&conn, 7, "t", &["t"]).unwrap(), Owner::Ours);
        let Owner::Foreign(why) = owner(&conn, 8, "t", &["t"]).unwrap() else { panic!() };
        assert!(why.contains("0x00000007"), "{why}");
    }
}
