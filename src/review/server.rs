//! The review page and its API, merged into `inquiry view`'s router when it
//! runs with `--review` (so the viewer's loopback, Host and Origin checks
//! apply to it too):
//!
//! - `GET /review`: the page (`templates/review.html` with its one script,
//!   allowed by hash in the Content-Security-Policy);
//! - `GET /review/api/queue?reviewer=NAME`: the queue with that reviewer's
//!   verdicts so far (only those given on the same reply hash and item text);
//! - `POST /review/api/verdicts`: stores verdicts; needs
//!   `Authorization: Bearer <token>`, the token `inquiry view` prints at
//!   start (the page takes it once from its URL fragment `#token=…`).

use std::sync::{Arc, LazyLock};

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};

use super::queue::{Entry, Queue};
use super::store::{ItemKind, Review, ReviewStore, MAX_NOTE_CHARS};
use crate::desk::api::{bearer_matches, require_json, ApiError};

const LAYOUT: &str = include_str!("../../templates/review.html");
const JS: &str = include_str!("../../templates/review.js");

/// The page's Content-Security-Policy: its own inline script by hash,
/// requests to its own origin only.
pub static CSP: LazyLock<String> = LazyLock::new(|| {
    format!(
        "default-src 'none'; style-src 'unsafe-inline'; script-src '{}'; connect-src 'self'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'",
        crate::eval::html::script_hash(JS)
    )
});

/// What the review routes serve from.
pub struct ReviewState {
    /// The queue, built once at start from the report sets.
    pub queue: Queue,
    /// The review database.
    pub store: Arc<ReviewStore>,
    /// The bearer token writes need.
    pub token: String,
}

/// A fresh random token (32 bytes from the OS, URL-safe base64).
///
/// # Errors
/// The OS random source failed.
pub fn new_token() -> anyhow::Result<String> {
    use base64::Engine as _;
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| anyhow::anyhow!("no random token: {e}"))?;
    Ok(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes))
}

/// Renders the page (the same for every request; data comes from the API).
///
/// # Errors
/// The template does not parse (a defect of `templates/`).
pub fn render() -> anyhow::Result<String> {
    let mut env = minijinja::Environment::new();
    env.set_auto_escape_callback(|_| minijinja::AutoEscape::Html);
    env.add_template("review.html", LAYOUT)?;
    Ok(env.get_template("review.html")?.render(minijinja::context! {
        js => minijinja::Value::from_safe_string(JS.to_owned()),
        max_note => MAX_NOTE_CHARS,
    })?)
}

async fn page() -> Response {
    match render() {
        Ok(html) => ([(header::CONTENT_SECURITY_POLICY, CSP.as_str())], axum::response::Html(html)).into_response(),
        Err(e) => (StatusCode::INTERNAL_SERVER_ERROR, format!("cannot render the review page: {e}")).into_response(),
    }
}

fn json(body: &impl Serialize) -> Response {
    match serde_json::to_vec(body) {
        Ok(bytes) => {
            ([(header::CONTENT_TYPE, "application/json"), (header::CACHE_CONTROL, "no-store")], bytes).into_response()
        }
        Err(e) => (StatusCode::INTERNAL_SERVER_ERROR, e.to_string()).into_response(),
    }
}

/// A reviewer's verdicts on one entry.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Mine {
    /// Per `must` item: conveyed, not conveyed, or not yet reviewed.
    pub must: Vec<Option<bool>>,
    /// Per `must_not` item: stated, not stated, or not yet reviewed.
    pub must_not: Vec<Option<bool>>,
    /// The reviewer's note.
    #[serde(default)]
    pub note: Option<String>,
}

#[derive(Serialize)]
struct EntryView<'a> {
    #[serde(flatten)]
    entry: &'a Entry,
    mine: Mine,
    reviewers: Vec<String>,
}

/// The verdicts stored for `entry`, by reviewer: only on its reply hash and
/// on items whose text is still the same.
fn verdicts_of(rows: &[Review], entry: &Entry, reviewer: &str) -> Mine {
    let find = |kind: ItemKind, i: usize, text: &str| {
        rows.iter()
            .find(|r| r.reviewer == reviewer && r.kind == kind && r.item == i + 1 && r.item_text == text)
            .map(|r| r.verdict)
    };
    Mine {
        must: entry.must.iter().enumerate().map(|(i, t)| find(ItemKind::Must, i, t)).collect(),
        must_not: entry.must_not.iter().enumerate().map(|(i, t)| find(ItemKind::MustNot, i, t)).collect(),
        note: rows.iter().find(|r| r.reviewer == reviewer && r.note.is_some()).and_then(|r| r.note.clone()),
    }
}

async fn queue(State(state): State<Arc<ReviewState>>, uri: axum::http::Uri) -> Result<Response, ApiError> {
    // The only parameter is a safe id, so it needs no percent-decoding; anything else is refused below.
    let reviewer =
        uri.query().unwrap_or("").split('&').find_map(|kv| kv.strip_prefix("reviewer=")).unwrap_or("").to_owned();
    if !reviewer.is_empty() {
        super::store::check_reviewer(&reviewer)
            .map_err(|e| ApiError::field(StatusCode::BAD_REQUEST, "reviewer", format!("{e:#}")))?;
    }
    let s = state.clone();
    let body = tokio::task::spawn_blocking(move || -> anyhow::Result<serde_json::Value> {
        let rows = s.store.all()?;
        let entries: Vec<EntryView<'_>> = s
            .queue
            .entries
            .iter()
            .map(|e| {
                let here: Vec<Review> =
                    rows.iter().filter(|r| r.case_id == e.case_id && r.reply_hash == e.reply_hash).cloned().collect();
                let mut reviewers: Vec<String> = here.iter().map(|r| r.reviewer.clone()).collect();
                reviewers.dedup();
                EntryView { entry: e, mine: verdicts_of(&here, e, &reviewer), reviewers }
            })
            .collect();
        Ok(serde_json::json!({
            "counts": s.queue.counts,
            // As text: a u64 above 2^53 loses digits as a JavaScript number.
            "seed": format!("{:#x}", s.queue.seed),
            "reviewer": reviewer,
            "entries": entries,
        }))
    })
    .await
    .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?
    .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, format!("{e:#}")))?;
    Ok(json(&body))
}

/// The body of `POST /review/api/verdicts`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VerdictRequest {
    /// Reviewer name.
    pub reviewer: String,
    /// The entry's key (`<case>:<reply hash>`).
    pub key: String,
    /// Per `must` item: conveyed, not conveyed, or `null` (not decided yet).
    pub must: Vec<Option<bool>>,
    /// Per `must_not` item: stated, not stated, or `null`.
    pub must_not: Vec<Option<bool>>,
    /// An optional note.
    #[serde(default)]
    pub note: Option<String>,
}

async fn post_verdicts(
    State(state): State<Arc<ReviewState>>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    if !bearer_matches(&headers, &state.token) {
        return Err(ApiError::new(
            StatusCode::UNAUTHORIZED,
            "missing or wrong bearer token (Authorization: Bearer <token>; inquiry view --review prints it at start)",
        ));
    }
    require_json(&headers)?;
    let body = body.map_err(|e| ApiError::new(e.status(), format!("cannot read the request body: {e}")))?;
    let req: VerdictRequest = serde_path_to_error::deserialize(&mut serde_json::Deserializer::from_slice(&body))
        .map_err(|e| ApiError::field(StatusCode::BAD_REQUEST, e.path().to_string(), e.inner().to_string()))?;
    super::store::check_reviewer(&req.reviewer)
        .map_err(|e| ApiError::field(StatusCode::BAD_REQUEST, "reviewer", format!("{e:#}")))?;
    let Some(entry) = state.queue.entries.iter().find(|e| e.key == req.key) else {
        return Err(ApiError::field(StatusCode::NOT_FOUND, "key", "not an entry of this queue"));
    };
    if req.must.len() != entry.must.len() || req.must_not.len() != entry.must_not.len() {
        return Err(ApiError::field(
            StatusCode::BAD_REQUEST,
            "must",
            format!("expected {} must and {} must_not verdicts", entry.must.len(), entry.must_not.len()),
        ));
    }
    let note = req.note.clone().map(|n| n.trim().to_owned()).filter(|n| !n.is_empty());
    if note.as_ref().is_some_and(|n| n.chars().count() > MAX_NOTE_CHARS) {
        return Err(ApiError::field(StatusCode::BAD_REQUEST, "note", format!("at most {MAX_NOTE_CHARS} characters")));
    }
    let drawn = entry.drawn.join(",");
    let rows: Vec<Review> = req
        .must
        .iter()
        .zip(&entry.must)
        .enumerate()
        .map(|(i, (v, t))| (ItemKind::Must, i, t, *v))
        .chain(req.must_not.iter().zip(&entry.must_not).enumerate().map(|(i, (v, t))| (ItemKind::MustNot, i, t, *v)))
        .filter_map(|(kind, i, text, v)| {
            v.map(|verdict| Review {
                reviewer: req.reviewer.clone(),
                case_id: entry.case_id.clone(),
                reply_hash: entry.reply_hash.clone(),
                kind,
                item: i + 1,
                item_text: text.clone(),
                verdict,
                note: note.clone(),
                drawn: drawn.clone(),
                reviewed_at: String::new(),
            })
        })
        .collect();
    let stored = super::store::StoredReply {
        case_id: entry.case_id.clone(),
        reply: entry.reply.clone(),
        evidence: entry.evidence.clone(),
    };
    let store = state.store.clone();
    let n = rows.len();
    tokio::task::spawn_blocking(move || -> anyhow::Result<()> {
        store.put_reply(&stored)?;
        store.record(&rows)
    })
    .await
    .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?
    .map_err(|e| ApiError::new(StatusCode::SERVICE_UNAVAILABLE, format!("{e:#}")))?;
    Ok(json(&serde_json::json!({ "saved": n })))
}

/// The review routes (`/review`, `/review/api/…`), to be merged into the viewer's router.
pub fn routes(state: Arc<ReviewState>) -> axum::Router {
    axum::Router::new()
        .route("/review", axum::routing::get(page))
        .route("/review/api/queue", axum::routing::get(queue))
        .route("/review/api/verdicts", axum::routing::post(post_verdicts))
        .with_state(state)
}
