//! Request checking for the desk's API: JSON bodies parsed by hand so each
//! error names its field, query strings, tokens, and the source lookup.
//! Pure functions over bytes and headers; `server` turns them into answers.

use std::collections::HashMap;

use axum::http::{header, HeaderMap, StatusCode};
use serde_json::{json, Map, Value};

use super::store::{TicketStatus, TicketUpdate, MAX_NOTE_CHARS};
use crate::agent::{HistoryTurn, MAX_HISTORY};
use crate::catalogue::Catalogue;
use crate::chunk::ChunkSource;
use crate::retrieval::Retriever;

/// Longest inquiry the desk accepts (characters); a longer one gets 413.
pub const MAX_INQUIRY_CHARS: usize = 4_000;

/// An error answer: status, message and the request field it is about.
/// Sent as `{"error": "...", "field": "..."}`.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    /// HTTP status.
    pub status: StatusCode,
    /// What is wrong and what was expected.
    pub message: String,
    /// The body field, query parameter or path segment at fault, if one is.
    pub field: Option<String>,
}

impl ApiError {
    /// An error not tied to one field.
    pub fn new(status: StatusCode, message: impl Into<String>) -> Self {
        Self { status, message: message.into(), field: None }
    }

    /// An error about `field`.
    pub fn field(status: StatusCode, field: impl Into<String>, message: impl Into<String>) -> Self {
        let field = field.into();
        Self { status, message: format!("`{field}`: {}", message.into()), field: Some(field) }
    }
}

fn bad(field: impl Into<String>, message: impl Into<String>) -> ApiError {
    ApiError::field(StatusCode::BAD_REQUEST, field, message)
}

/// `Content-Type` must be `application/json` (parameters allowed).
///
/// # Errors
/// 415 naming what was sent.
pub fn require_json(headers: &HeaderMap) -> Result<(), ApiError> {
    let ct = headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
    let media = ct.split(';').next().unwrap_or("").trim();
    if media.eq_ignore_ascii_case("application/json") {
        Ok(())
    } else {
        let sent = if ct.is_empty() { "none".to_owned() } else { format!("{ct:?}") };
        Err(ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            format!("expected Content-Type: application/json, got {sent}"),
        ))
    }
}

fn object(body: &[u8]) -> Result<Map<String, Value>, ApiError> {
    let value: Value = crate::json_file::from_str(std::str::from_utf8(body).map_err(|_| bad("body", "not UTF-8"))?)
        .map_err(|e| ApiError::new(StatusCode::BAD_REQUEST, format!("the body is not valid JSON: {e}")))?;
    match value {
        Value::Object(map) => Ok(map),
        other => Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            format!("expected a JSON object, got {}", crate::json_file::kind(&other)),
        )),
    }
}

fn only_keys(map: &Map<String, Value>, allowed: &[&str], at: &str) -> Result<(), ApiError> {
    match map.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(k) => Err(bad(
            format!("{at}{}", crate::text_file::escape_for_terminal(k, 60)),
            format!("unknown field; expected {}", allowed.join(", ")),
        )),
        None => Ok(()),
    }
}

fn string(map: &Map<String, Value>, key: &str, at: &str) -> Result<Option<String>, ApiError> {
    match map.get(key) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => {
            Err(bad(format!("{at}{key}"), format!("expected a string, got {}", crate::json_file::kind(other))))
        }
    }
}

/// A parsed `POST /api/inquiries` body.
#[derive(Debug, Clone, PartialEq)]
pub struct InquiryRequest {
    /// The customer's message (1–[`MAX_INQUIRY_CHARS`] characters).
    pub inquiry: String,
    /// Earlier exchanges, oldest first (at most [`MAX_HISTORY`]).
    pub history: Vec<HistoryTurn>,
}

/// Parses `{"inquiry": "...", "history": [{"inquiry", "reply"}, ...]}`.
///
/// # Errors
/// 400 naming the field (missing, wrong type, unknown, empty, too much
/// history); 413 for an inquiry over [`MAX_INQUIRY_CHARS`] characters.
pub fn parse_inquiry(body: &[u8]) -> Result<InquiryRequest, ApiError> {
    let map = object(body)?;
    only_keys(&map, &["inquiry", "history"], "")?;
    let inquiry =
        string(&map, "inquiry", "")?.ok_or_else(|| bad("inquiry", "missing; expected the customer's message"))?;
    if inquiry.trim().is_empty() {
        return Err(bad("inquiry", "is empty; expected the customer's message"));
    }
    let n = inquiry.chars().count();
    if n > MAX_INQUIRY_CHARS {
        return Err(ApiError::field(
            StatusCode::PAYLOAD_TOO_LARGE,
            "inquiry",
            format!("has {n} characters; at most {MAX_INQUIRY_CHARS} are accepted (send a shorter message)"),
        ));
    }
    let mut history = vec![];
    match map.get("history") {
        None | Some(Value::Null) => {}
        Some(Value::Array(turns)) => {
            if turns.len() > MAX_HISTORY {
                return Err(bad("history", format!("has {} turns; at most {MAX_HISTORY} are allowed", turns.len())));
            }
            for (i, turn) in turns.iter().enumerate() {
                let at = format!("history[{i}].");
                let Value::Object(turn) = turn else {
                    return Err(bad(
                        format!("history[{i}]"),
                        format!("expected an object, got {}", crate::json_file::kind(turn)),
                    ));
                };
                only_keys(turn, &["inquiry", "reply"], &at)?;
                let get = |key: &str| -> Result<String, ApiError> {
                    string(turn, key, &at)?.ok_or_else(|| bad(format!("{at}{key}"), "missing; expected a string"))
                };
                history.push(HistoryTurn { inquiry: get("inquiry")?, reply: get("reply")? });
            }
        }
        Some(other) => {
            return Err(bad("history", format!("expected an array of turns, got {}", crate::json_file::kind(other))))
        }
    }
    Ok(InquiryRequest { inquiry, history })
}

/// Parses a `PATCH /api/handoffs/:id` body: `{"status"?: "open"|"in_progress"|"done", "note"?: "..."}`.
///
/// # Errors
/// 400 naming the field: unknown, wrong type, unknown status, a note over
/// [`MAX_NOTE_CHARS`] characters, or neither field given.
pub fn parse_update(body: &[u8]) -> Result<TicketUpdate, ApiError> {
    let map = object(body)?;
    only_keys(&map, &["status", "note"], "")?;
    let status = match string(&map, "status", "")? {
        Some(s) => Some(s.parse::<TicketStatus>().map_err(|e| bad("status", e))?),
        None => None,
    };
    let note = string(&map, "note", "")?;
    if let Some(note) = &note {
        let n = note.chars().count();
        if n > MAX_NOTE_CHARS {
            return Err(bad("note", format!("has {n} characters; at most {MAX_NOTE_CHARS} are allowed")));
        }
    }
    if status.is_none() && note.is_none() {
        return Err(bad("status", "missing; give a status (open, in_progress, done), a note, or both"));
    }
    Ok(TicketUpdate { status, note })
}

/// Parses a query string of simple `key=value` pairs, allowing only `allowed` keys.
///
/// # Errors
/// 400 naming an unknown or repeated parameter.
pub fn parse_query(query: Option<&str>, allowed: &[&str]) -> Result<HashMap<String, String>, ApiError> {
    let mut out = HashMap::new();
    for pair in query.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        // Query values are form-encoded (`status=in%5Fprogress`, `+` for a space).
        let (key, value) = (percent_decode(key), percent_decode(value));
        let key = key.as_str();
        if !allowed.contains(&key) {
            return Err(bad(
                crate::text_file::escape_for_terminal(key, 40),
                format!("unknown query parameter; expected {}", allowed.join(", ")),
            ));
        }
        if out.insert(key.to_owned(), value).is_some() {
            return Err(bad(key, "given twice"));
        }
    }
    Ok(out)
}

/// Decodes `%XX` escapes and `+` (a space) of a URL query component; an
/// invalid escape is kept as written, and bytes that are not UTF-8 become U+FFFD.
pub fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                match std::str::from_utf8(&bytes[i + 1..i + 3]).ok().and_then(|h| u8::from_str_radix(h, 16).ok()) {
                    Some(b) => {
                        out.push(b);
                        i += 3;
                        continue;
                    }
                    None => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Whether a `Host` value is this server's loopback address on `port`.
pub fn is_loopback_authority(host: &str, port: u16) -> bool {
    [format!("127.0.0.1:{port}"), format!("localhost:{port}"), format!("[::1]:{port}")].iter().any(|a| a == host)
}

/// Whether `Authorization: Bearer <token>` matches, compared in constant time.
pub fn bearer_matches(headers: &HeaderMap, token: &str) -> bool {
    use subtle::ConstantTimeEq as _;
    let Some(given) = headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()) else { return false };
    // The scheme name is case-insensitive (RFC 9110 §11.1).
    let Some((scheme, given)) = given.trim_start().split_once(' ') else { return false };
    if !scheme.eq_ignore_ascii_case("bearer") {
        return false;
    }
    // Lengths differ in constant time too: compare digests of equal length.
    use sha2::Digest as _;
    let a = sha2::Sha256::digest(given.trim().as_bytes());
    let b = sha2::Sha256::digest(token.as_bytes());
    a.ct_eq(&b).into()
}

/// `GET /api/sources/:id`: a chunk's text with its listing or policy context,
/// or (for a bare listing id such as `HH-1001`, which replies also cite) the listing's record;
/// `document` is the whole description, policy page or record around it (see [`super::sources`]).
///
/// # Errors
/// 404 with the id for an unknown chunk or listing.
pub fn source(catalogue: &Catalogue, retriever: &Retriever, id: &str) -> Result<Value, ApiError> {
    let listing_context = |listing_id: &str| {
        catalogue.listing(listing_id).map(|l| {
            json!({
                "id": l.id, "title": l.title, "city": l.city, "district": l.district,
                "offerType": l.offer_type, "price": l.price, "priceUnit": l.price_unit,
            })
        })
    };
    if let Some(chunk) = retriever.chunks().iter().find(|c| c.id == id) {
        let document = super::sources::chunk_document(catalogue, retriever.chunks(), chunk);
        let mut answer = match chunk.source {
            ChunkSource::Listing => json!({
                "chunkId": chunk.id,
                "kind": "listing",
                "text": chunk.text,
                "listing": chunk.listing_id.as_deref().and_then(listing_context),
            }),
            ChunkSource::Policy => {
                let (page, section) = chunk.id.trim_start_matches("policy:").split_once('#').unwrap_or((&chunk.id, ""));
                let policy = catalogue.policy(page);
                json!({
                    "chunkId": chunk.id,
                    "kind": "policy",
                    "text": chunk.text,
                    "policy": policy.map(|p| json!({
                        "slug": p.slug,
                        "title": p.title,
                        "section": p.sections.iter().find(|s| s.slug == section).map(|s| s.heading.clone()),
                    })),
                })
            }
        };
        answer["document"] = document;
        return Ok(answer);
    }
    let upper = id.trim().to_uppercase();
    if let Some(listing) = listing_context(&upper) {
        let record = catalogue.listing(&upper).map(|l| l.description.clone());
        let document = super::sources::listing_record(catalogue, retriever.chunks(), &upper);
        return Ok(json!({
            "chunkId": listing["id"], "kind": "listing_record", "text": record, "listing": listing, "document": document,
        }));
    }
    Err(ApiError::field(
        StatusCode::NOT_FOUND,
        "chunkId",
        format!(
            "no chunk or listing {:?}; chunk ids look like HH-1001#s5 or policy:deposit#amount (write # as %23 in a URL)",
            crate::text_file::escape_for_terminal(id, 80)
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inquiry_bodies_name_their_faulty_field() {
        let ok =
            parse_inquiry(br#"{"inquiry": "Is HH-1001 still free?", "history": [{"inquiry": "a", "reply": "b"}]}"#);
        assert_eq!(ok.unwrap().history.len(), 1);
        let field = |b: &[u8]| parse_inquiry(b).unwrap_err().field;
        assert_eq!(field(br#"{"history": []}"#).as_deref(), Some("inquiry"));
        assert_eq!(field(br#"{"inquiry": 5}"#).as_deref(), Some("inquiry"));
        assert_eq!(field(br#"{"inquiry": "x", "extra": 1}"#).as_deref(), Some("extra"));
        assert_eq!(field(br#"{"inquiry": "x", "history": [{"inquiry": "a"}]}"#).as_deref(), Some("history[0].reply"));
        let long = format!(r#"{{"inquiry": "{}"}}"#, "ä".repeat(MAX_INQUIRY_CHARS + 1));
        let e = parse_inquiry(long.as_bytes()).unwrap_err();
        assert_eq!(e.status, StatusCode::PAYLOAD_TOO_LARGE);
        assert!(e.message.contains("4001 characters"), "{}", e.message);
        assert!(parse_inquiry(format!(r#"{{"inquiry": "{}"}}"#, "ä".repeat(MAX_INQUIRY_CHARS)).as_bytes()).is_ok());
        assert!(parse_inquiry(br#"{"inquiry": "a", "inquiry": "b"}"#).unwrap_err().message.contains("inquiry"));
    }

    #[test]
    fn updates_and_queries() {
        assert_eq!(parse_update(br#"{"status": "done"}"#).unwrap().status, Some(TicketStatus::Done));
        let e = parse_update(br#"{"status": "closed"}"#).unwrap_err();
        assert_eq!((e.status, e.field.as_deref()), (StatusCode::BAD_REQUEST, Some("status")));
        assert_eq!(parse_update(br#"{"note": 3}"#).unwrap_err().field.as_deref(), Some("note"));
        assert_eq!(parse_update(br#"{}"#).unwrap_err().field.as_deref(), Some("status"));
        assert_eq!(parse_query(Some("status=open"), &["status"]).unwrap()["status"], "open");
        assert_eq!(parse_query(Some("x=1"), &["status"]).unwrap_err().field.as_deref(), Some("x"));
    }

    #[test]
    fn bearer_tokens() {
        let mut h = HeaderMap::new();
        assert!(!bearer_matches(&h, "s3cret"));
        h.insert(header::AUTHORIZATION, "Bearer s3cret".parse().unwrap());
        assert!(bearer_matches(&h, "s3cret"));
        assert!(!bearer_matches(&h, "s3cre"));
        h.insert(header::AUTHORIZATION, "Basic s3cret".parse().unwrap());
        assert!(!bearer_matches(&h, "s3cret"));
    }
}
