//! Tests of the ticket store: reopening, history, bad updates and databases.
use super::*;

fn new_ticket(summary: &str) -> NewTicket {
    NewTicket {
        reason: HandoffReason::ViewingRequest,
        listing_id: Some("HH-1001".into()),
        summary: summary.into(),
        contact_email: None,
        now: Utc::now(),
    }
}

#[test]
fn tickets_survive_reopening_with_their_history() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sub/desk.sqlite");
    {
        let store = TicketStore::open(&path).unwrap();
        assert_eq!(store.schema_version().unwrap(), 2);
        let a = store.create(&new_ticket("Arrange a viewing on Saturday"), "desk").unwrap();
        let b = store.create(&new_ticket("Second viewing request"), "mcp").unwrap();
        assert_eq!((a.ticket_id.as_str(), b.ticket_id.as_str()), ("TKT-0001", "TKT-0002"));
        let update = TicketUpdate { status: Some(TicketStatus::InProgress), note: Some("called back".into()) };
        let changed = store.update("TKT-0001", &update, "cli").unwrap().unwrap();
        assert_eq!(changed.status, TicketStatus::InProgress);
        assert!(store.update("TKT-9999", &update, "cli").unwrap().is_none());
    }
    let store = TicketStore::open(&path).unwrap();
    let all = store.list(None).unwrap();
    assert_eq!(all.len(), 2);
    assert_eq!(store.list(Some(TicketStatus::Open)).unwrap()[0].ticket.ticket_id, "TKT-0002");
    let detail = store.get("TKT-0001").unwrap().unwrap();
    let steps: Vec<_> = detail.history.iter().map(|e| (e.status, e.source.as_str())).collect();
    assert_eq!(steps, [(TicketStatus::Open, "desk"), (TicketStatus::InProgress, "cli")]);
    assert_eq!(detail.ticket.note.as_deref(), Some("called back"));
    // A third ticket continues the numbering after the restart.
    assert_eq!(store.create(&new_ticket("Third request here"), "desk").unwrap().ticket_id, "TKT-0003");
    let (changed, last) = store.changed_since(2).unwrap();
    let ids: Vec<_> = changed.iter().map(|t| t.ticket.ticket_id.as_str()).collect();
    assert_eq!(ids, ["TKT-0001", "TKT-0003"]);
    assert_eq!(last, store.last_event().unwrap());
}

#[test]
fn bad_updates_and_databases_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("desk.sqlite");
    let store = TicketStore::open(&path).unwrap();
    store.create(&new_ticket("Arrange a viewing on Saturday"), "desk").unwrap();
    let empty = store.update("TKT-0001", &TicketUpdate::default(), "cli").unwrap_err();
    assert!(empty.to_string().contains("nothing to change"), "{empty}");
    let long = TicketUpdate { status: None, note: Some("x".repeat(MAX_NOTE_CHARS + 1)) };
    assert!(store.update("TKT-0001", &long, "cli").unwrap_err().to_string().contains("2001 characters"));
    drop(store);

    let junk = dir.path().join("junk.sqlite");
    std::fs::write(&junk, "not a database at all, just some text that is long enough").unwrap();
    let e = format!("{:#}", TicketStore::open(&junk).unwrap_err());
    assert!(e.contains("junk.sqlite") && e.contains("not a usable ticket database"), "{e}");
    assert!(junk.exists(), "a damaged database is left where it is");

    let conn = Connection::open(&path).unwrap();
    conn.execute("INSERT INTO schema_version VALUES (99, 'later')", []).unwrap();
    drop(conn);
    let e = format!("{:#}", TicketStore::open(&path).unwrap_err());
    assert!(e.contains("schema version 99") && e.contains("newer inquiry"), "{e}");
}
