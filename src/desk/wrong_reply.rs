//! The desk's "review" column: the person who handles a ticket can mark the
//! reply the customer got as wrong, with a note. The desk keeps the run that
//! created each ticket (inquiry, history and the agent's whole result), so a
//! marked ticket can be reviewed (`inquiry view --review --desk DB` puts it
//! in the queue) and become a case (`inquiry tickets trace ID` writes a case
//! trace for `inquiry cases add --from-trace`).

use anyhow::Context as _;
use rusqlite::{params, OptionalExtension};
use serde::Serialize;

use super::store::TicketStore;
use crate::agent::{HistoryTurn, RunResult};

/// Migration 2 of the desk database: the run behind each ticket, and the marks.
pub(super) const MIGRATION: &str = "CREATE TABLE ticket_runs (
        ticket_id TEXT PRIMARY KEY REFERENCES tickets (ticket_id),
        inquiry TEXT NOT NULL,
        history TEXT NOT NULL,
        result TEXT NOT NULL
    );
    CREATE TABLE wrong_replies (
        ticket_id TEXT PRIMARY KEY REFERENCES tickets (ticket_id),
        note TEXT,
        marked_at TEXT NOT NULL,
        source TEXT NOT NULL
    );";

/// A ticket whose reply was marked wrong.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WrongReply {
    /// Ticket id.
    pub ticket_id: String,
    /// Why the reply was wrong.
    pub note: Option<String>,
    /// RFC 3339 UTC.
    pub marked_at: String,
    /// The customer's message of the run that created the ticket (`None`:
    /// the ticket came from elsewhere, e.g. `serve-mcp --tickets`).
    pub inquiry: Option<String>,
    /// Earlier exchanges of that run.
    #[serde(skip)]
    pub history: Vec<HistoryTurn>,
    /// The run's result.
    #[serde(skip)]
    pub result: Option<RunResult>,
}

/// Stores the run that created `tickets` (the desk calls this when a run ends).
///
/// # Errors
/// A write error.
pub fn record_run(
    store: &TicketStore,
    tickets: &[String],
    inquiry: &str,
    history: &[HistoryTurn],
    result: &RunResult,
) -> anyhow::Result<()> {
    let conn = store.write_conn()?;
    let history = serde_json::to_string(history)?;
    let result = serde_json::to_string(result)?;
    for t in tickets {
        conn.execute(
            "INSERT INTO ticket_runs (ticket_id, inquiry, history, result) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (ticket_id) DO NOTHING",
            params![t, inquiry, history, result],
        )
        .with_context(|| format!("{}: cannot store the run of {t}", store.path().display()))?;
    }
    Ok(())
}

/// Marks a ticket's reply as wrong (again: the note is replaced). `None` for an unknown ticket.
///
/// # Errors
/// A note over [`super::store::MAX_NOTE_CHARS`] or a write error.
pub fn mark_wrong(
    store: &TicketStore,
    ticket_id: &str,
    note: Option<&str>,
    source: &str,
) -> anyhow::Result<Option<WrongReply>> {
    let note = note.map(str::trim).filter(|n| !n.is_empty());
    if let Some(n) = note {
        let count = n.chars().count();
        if count > super::store::MAX_NOTE_CHARS {
            anyhow::bail!("note has {count} characters; at most {} are allowed", super::store::MAX_NOTE_CHARS);
        }
    }
    {
        let conn = store.write_conn()?;
        let known: Option<i64> =
            conn.query_row("SELECT 1 FROM tickets WHERE ticket_id = ?1", [ticket_id], |r| r.get(0)).optional()?;
        if known.is_none() {
            return Ok(None);
        }
        let at = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        conn.execute(
            "INSERT INTO wrong_replies (ticket_id, note, marked_at, source) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (ticket_id) DO UPDATE SET note = excluded.note, marked_at = excluded.marked_at, source = excluded.source",
            params![ticket_id, note, at, source],
        )?;
    }
    Ok(wrong_replies(store)?.into_iter().find(|w| w.ticket_id == ticket_id))
}

/// Every ticket marked "reply was wrong", oldest mark first, with its run when stored.
///
/// # Errors
/// A read error, or a stored run this build cannot read.
pub fn wrong_replies(store: &TicketStore) -> anyhow::Result<Vec<WrongReply>> {
    let conn = store.read_conn();
    // A database of schema 1 opened read-only has no marks yet.
    let has: i64 = conn.query_row(
        "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'wrong_replies'",
        [],
        |r| r.get(0),
    )?;
    if has == 0 {
        return Ok(vec![]);
    }
    let mut stmt = conn.prepare(
        "SELECT w.ticket_id, w.note, w.marked_at, r.inquiry, r.history, r.result
         FROM wrong_replies w LEFT JOIN ticket_runs r ON r.ticket_id = w.ticket_id ORDER BY w.marked_at, w.ticket_id",
    )?;
    let rows = stmt.query_map([], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, Option<String>>(1)?,
            r.get::<_, String>(2)?,
            r.get::<_, Option<String>>(3)?,
            r.get::<_, Option<String>>(4)?,
            r.get::<_, Option<String>>(5)?,
        ))
    })?;
    let mut out = vec![];
    for row in rows {
        let (ticket_id, note, marked_at, inquiry, history, result) = row?;
        let history: Vec<HistoryTurn> = match history {
            Some(h) => serde_json::from_str(&h).with_context(|| format!("the stored history of {ticket_id}"))?,
            None => vec![],
        };
        let result: Option<RunResult> = match result {
            Some(r) => Some(serde_json::from_str(&r).with_context(|| format!("the stored run of {ticket_id}"))?),
            None => None,
        };
        out.push(WrongReply { ticket_id, note, marked_at, inquiry, history, result });
    }
    Ok(out)
}

/// A case trace (the shape of a report set's `cases/<id>.json`) of a marked
/// ticket's run, for `inquiry cases add --from-trace`: id `ticket-<number>`,
/// no rubric items (the draft gets placeholders), one failed run whose
/// failure line is the note. `None` when the ticket's run is not stored.
///
/// # Errors
/// The trace does not build (not expected).
pub fn trace(w: &WrongReply) -> anyhow::Result<Option<crate::eval::CaseReport>> {
    let (Some(inquiry), Some(result)) = (&w.inquiry, &w.result) else { return Ok(None) };
    let lang = crate::eval::judge::reply_language(inquiry).unwrap_or(crate::golden::Lang::En);
    let id = format!("ticket-{}", w.ticket_id.to_lowercase().trim_start_matches("tkt-"));
    let value = serde_json::json!({
        "id": id,
        "file": "desk",
        "lang": lang,
        "tags": ["desk"],
        "critical": false,
        "subset": false,
        "inquiry": inquiry,
        "history": w.history,
        "items": {"must": [], "must_not": []},
        "runs": [{
            "attempt": 1,
            "result": result,
            "error": null,
            "checks": null,
            "verdict": null,
            "judge_error": null,
            "latency_ms": 0,
            "cost_usd": null,
            "judge_cost_usd": null,
            "passed": false,
            "status": "fail",
            "unmeasured": null,
            "failures": [format!("desk: reply was wrong ({}): {}", w.ticket_id, w.note.as_deref().unwrap_or("no note"))],
        }],
        "pass_rate": 0.0,
        "measured_runs": 1,
        "flaky": false,
        "passed": false,
        "status": "fail",
    });
    Ok(Some(
        serde_path_to_error::deserialize(value)
            .map_err(|e| anyhow::anyhow!("ticket trace: field `{}`: {}", e.path(), e.inner()))?,
    ))
}
