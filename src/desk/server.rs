//! `inquiry serve`: the desk's HTTP API and page (axum).
//!
//! Security: loopback by default (the `Host` header is checked, against DNS
//! rebinding); `--allow-remote` needs a bearer token, compared in constant
//! time on every `/api` request; a state-changing request (POST, PATCH) with
//! an `Origin` must come from the desk's own origin; bodies are JSON only and
//! at most [`MAX_BODY_BYTES`]; `POST /api/inquiries` is rate-limited per
//! client address (tower_governor).

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path as UrlPath, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode, Uri};
use axum::middleware::Next;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{json, Value};
use tokio::sync::mpsc;
use tokio_stream::wrappers::UnboundedReceiverStream;

use super::api::{self, ApiError};
use super::store::{StoreSink, TicketStatus, TicketStore};
use crate::agent::model::ModelClient;
use crate::agent::{HistoryTurn, Limits, RunEvent};
use crate::catalogue::Catalogue;
use crate::handoff::HandoffQueue;
use crate::retrieval::Retriever;
use crate::tools::Toolbox;

/// Default listen address of `inquiry serve`.
pub const DEFAULT_BIND: &str = "127.0.0.1:8765";

/// Largest request body (bytes); a larger one gets 413.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// How the desk is served.
#[derive(Debug, Clone)]
pub struct DeskOptions {
    /// Listen address.
    pub bind: SocketAddr,
    /// Serve on a non-loopback address (needs `token`).
    pub allow_remote: bool,
    /// Bearer token every `/api` request must carry, if set.
    pub token: Option<String>,
    /// Inquiries one client address may start per minute (also the burst size).
    pub inquiries_per_minute: u32,
    /// Agent limits of each inquiry.
    pub limits: Limits,
}

/// What the desk serves from: the catalogue with its retriever, the model
/// and the ticket store.
pub struct Desk {
    /// The catalogue.
    pub catalogue: Arc<Catalogue>,
    /// Its retrieval index.
    pub retriever: Arc<Retriever>,
    /// The model answering inquiries.
    pub model: Arc<dyn ModelClient>,
    /// Where tickets are kept.
    pub store: Arc<TicketStore>,
}

struct Inner {
    desk: Desk,
    options: DeskOptions,
    port: u16,
    page: String,
    /// Set to `true` at shutdown: the ticket streams end so the server can stop.
    stop: tokio::sync::watch::Sender<bool>,
}

#[derive(Clone)]
struct AppState(Arc<Inner>);

fn json_response(status: StatusCode, value: &Value) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], value.to_string()).into_response()
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut body = json!({ "error": self.message });
        if let Some(field) = &self.field {
            body["field"] = json!(field);
        }
        json_response(self.status, &body)
    }
}

fn internal(e: anyhow::Error) -> ApiError {
    tracing::error!("desk: {e:#}");
    ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, format!("{e:#}"))
}

/// The request body, or a JSON 413 / 400 for one that is too large or unreadable.
fn body_bytes(body: Result<Bytes, BytesRejection>) -> Result<Bytes, ApiError> {
    body.map_err(|e| {
        if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, format!("request body over {MAX_BODY_BYTES} bytes"))
        } else {
            ApiError::new(e.status(), format!("cannot read the request body: {e}"))
        }
    })
}

async fn post_inquiry(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    api::require_json(&headers)?;
    let request = api::parse_inquiry(&body_bytes(body)?)?;
    let inner = state.0.clone();
    let (tx, rx) = mpsc::unbounded_channel::<Result<Event, Infallible>>();
    // The run goes on when the client leaves: its tickets are still someone's requests.
    tokio::spawn(run_inquiry(inner, request.inquiry, request.history, tx));
    Ok(Sse::new(UnboundedReceiverStream::new(rx))
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response())
}

fn event(name: &str, data: &impl serde::Serialize) -> Result<Event, Infallible> {
    Ok(Event::default()
        .event(name)
        .data(serde_json::to_string(data).unwrap_or_else(|e| json!({"error": e.to_string()}).to_string())))
}

async fn run_inquiry(
    inner: Arc<Inner>,
    inquiry: String,
    history: Vec<HistoryTurn>,
    tx: mpsc::UnboundedSender<Result<Event, Infallible>>,
) {
    let desk = &inner.desk;
    let sink = Arc::new(NotifyingSink {
        inner: StoreSink { store: desk.store.clone(), source: "desk" },
        events: std::sync::Mutex::new(tx.clone()),
    });
    let toolbox = Toolbox::new(desk.catalogue.clone(), desk.retriever.clone(), Arc::new(HandoffQueue::with_sink(sink)));
    let mut connected =
        match crate::app::ConnectedAgent::connect(desk.model.clone(), toolbox, inner.options.limits).await {
            Ok(c) => c,
            Err(e) => {
                let _ = tx.send(event("error", &json!({"error": format!("{e:#}")})));
                return;
            }
        };
    let (events, mut received) = mpsc::unbounded_channel::<RunEvent>();
    connected.agent.set_events(events);
    let forward_to = tx.clone();
    let forward = tokio::spawn(async move {
        while let Some(ev) = received.recv().await {
            let _ = forward_to.send(event(ev.name(), &ev));
        }
    });
    let result = connected.agent.run(&inquiry, &history).await;
    connected.close().await;
    let _ = forward.await;
    match result {
        Ok(result) => {
            remember_run(&inner, &inquiry, &history, &result).await;
            let _ = tx.send(event("result", &result));
        }
        Err(e) => {
            let _ = tx.send(event("error", &json!({"error": e.to_string()})));
        }
    }
}

/// Keeps the run behind the tickets it created, so a ticket's reply can be
/// reviewed and become a case (`wrong_reply`); a failure is logged, the reply still goes out.
async fn remember_run(inner: &Arc<Inner>, inquiry: &str, history: &[HistoryTurn], result: &crate::agent::RunResult) {
    let tickets: Vec<String> = result.handoffs.iter().map(|t| t.ticket_id.clone()).collect();
    if tickets.is_empty() {
        return;
    }
    let (inquiry, history, result) = (inquiry.to_owned(), history.to_vec(), result.clone());
    let stored = with_store(&inner.desk.store, move |store| {
        super::wrong_reply::record_run(store, &tickets, &inquiry, &history, &result)
    })
    .await;
    if let Err(e) = stored {
        tracing::warn!("desk: the run behind a ticket was not kept: {}", e.message);
    }
}

/// `POST /api/handoffs/{id}/wrong` with `{"note": "…"}`: the ticket's reply was wrong.
async fn mark_wrong(
    State(state): State<AppState>,
    UrlPath(id): UrlPath<String>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Body {
        #[serde(default)]
        note: Option<String>,
    }
    api::require_json(&headers)?;
    let bytes = body_bytes(body)?;
    let parsed: Body = serde_json::from_slice(&bytes)
        .map_err(|e| ApiError::field(StatusCode::BAD_REQUEST, "note", format!("expected {{\"note\": \"…\"}}: {e}")))?;
    if parsed.note.as_ref().is_some_and(|n| n.chars().count() > super::store::MAX_NOTE_CHARS) {
        return Err(ApiError::field(
            StatusCode::BAD_REQUEST,
            "note",
            format!("at most {} characters", super::store::MAX_NOTE_CHARS),
        ));
    }
    let key = id.clone();
    match with_store(&state.0.desk.store, move |store| {
        super::wrong_reply::mark_wrong(store, &key, parsed.note.as_deref(), "desk")
    })
    .await?
    {
        Some(mark) => Ok(json_response(StatusCode::OK, &json!(mark))),
        None => Err(unknown_ticket(&id)),
    }
}

/// `GET /api/wrong-replies`: every ticket marked "reply was wrong".
async fn list_wrong(State(state): State<AppState>) -> Result<Response, ApiError> {
    let marks = with_store(&state.0.desk.store, super::wrong_reply::wrong_replies).await?;
    Ok(json_response(StatusCode::OK, &json!({ "wrongReplies": marks })))
}

/// The desk's ticket sink: stores through [`StoreSink`] and, when a write
/// fails, tells the client at once with a non-fatal `error` event (the run
/// goes on and its reply says the request was not recorded).
struct NotifyingSink {
    inner: StoreSink,
    events: std::sync::Mutex<mpsc::UnboundedSender<Result<Event, Infallible>>>,
}

impl crate::handoff::TicketSink for NotifyingSink {
    fn record(&self, ticket: &crate::handoff::NewTicket) -> Result<crate::handoff::Ticket, String> {
        self.inner.record(ticket).inspect_err(|e| {
            tracing::error!("desk: a hand-off could not be stored: {e}");
            let tx = self.events.lock().unwrap_or_else(|p| p.into_inner());
            let _ = tx.send(event(
                "error",
                &json!({"error": format!("a hand-off could not be stored: {e}"), "kind": "ticket_not_stored", "fatal": false}),
            ));
        })
    }
}

/// How long an API request waits for the ticket database before it answers
/// 503 (the store itself gives up after `store::BUSY_TIMEOUT`).
const DB_WAIT: Duration = Duration::from_secs(6);

/// Runs a ticket-store call off the async workers (SQLite may wait for
/// another process's lock) and bounds the wait: past [`DB_WAIT`] the answer
/// is a JSON 503 naming the database, and the desk stays responsive.
async fn with_store<T: Send + 'static>(
    store: &Arc<TicketStore>,
    f: impl FnOnce(&TicketStore) -> anyhow::Result<T> + Send + 'static,
) -> Result<T, ApiError> {
    let store = store.clone();
    let path = store.path().display().to_string();
    match tokio::time::timeout(DB_WAIT, tokio::task::spawn_blocking(move || f(&store))).await {
        Ok(Ok(Ok(value))) => Ok(value),
        Ok(Ok(Err(e))) => {
            let text = format!("{e:#}");
            if text.contains("locked") || text.contains("busy") {
                Err(busy(&path))
            } else {
                Err(internal(e))
            }
        }
        Ok(Err(e)) => Err(internal(anyhow::anyhow!("ticket database task failed: {e}"))),
        Err(_) => Err(busy(&path)),
    }
}

fn busy(path: &str) -> ApiError {
    ApiError::new(
        StatusCode::SERVICE_UNAVAILABLE,
        format!("the ticket database {path} is busy (another process holds its lock); try again in a few seconds"),
    )
}

async fn list_handoffs(State(state): State<AppState>, uri: Uri) -> Result<Response, ApiError> {
    let query = api::parse_query(uri.query(), &["status"])?;
    let status = match query.get("status") {
        Some(s) => Some(s.parse::<TicketStatus>().map_err(|e| ApiError::field(StatusCode::BAD_REQUEST, "status", e))?),
        None => None,
    };
    let (tickets, last) = with_store(&state.0.desk.store, move |store| {
        let last = store.last_event()?;
        anyhow::Ok((store.list(status)?, last))
    })
    .await?;
    Ok(json_response(StatusCode::OK, &json!({ "tickets": tickets, "count": tickets.len(), "lastEvent": last })))
}

async fn show_handoff(State(state): State<AppState>, UrlPath(id): UrlPath<String>) -> Result<Response, ApiError> {
    let key = id.clone();
    match with_store(&state.0.desk.store, move |store| store.get(&key)).await? {
        Some(detail) => Ok(json_response(StatusCode::OK, &json!(detail))),
        None => Err(unknown_ticket(&id)),
    }
}

fn unknown_ticket(id: &str) -> ApiError {
    ApiError::field(StatusCode::NOT_FOUND, "id", format!("no ticket {}", crate::text_file::escape_for_terminal(id, 80)))
}

async fn patch_handoff(
    State(state): State<AppState>,
    UrlPath(id): UrlPath<String>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    api::require_json(&headers)?;
    let update = api::parse_update(&body_bytes(body)?)?;
    let key = id.clone();
    match with_store(&state.0.desk.store, move |store| store.update(&key, &update, "desk")).await? {
        Some(ticket) => Ok(json_response(StatusCode::OK, &json!(ticket))),
        None => Err(unknown_ticket(&id)),
    }
}

async fn handoff_stream(State(state): State<AppState>, uri: Uri) -> Result<Response, ApiError> {
    let query = api::parse_query(uri.query(), &["since"])?;
    let store = state.0.desk.store.clone();
    let mut since = match query.get("since") {
        Some(s) => s.parse::<i64>().map_err(|_| {
            ApiError::field(StatusCode::BAD_REQUEST, "since", "expected the lastEvent number of a listing")
        })?,
        None => with_store(&store, |store| store.last_event()).await?,
    };
    let (tx, rx) = mpsc::unbounded_channel::<Result<Event, Infallible>>();
    let mut changes = store.subscribe();
    let mut stop = state.0.stop.subscribe();
    tokio::spawn(async move {
        loop {
            let (changed, last) = match with_store(&store, move |store| store.changed_since(since)).await {
                Ok(found) => found,
                // A lock held by another process: poll again, the stream stays open.
                Err(e) if e.status == StatusCode::SERVICE_UNAVAILABLE => (vec![], since),
                Err(e) => {
                    let _ = tx.send(event("error", &json!({"error": e.message})));
                    return;
                }
            };
            for ticket in &changed {
                if tx.send(event("ticket", ticket)).is_err() {
                    return;
                }
            }
            since = last;
            // Woken by this process's writes; polled for other processes' (serve-mcp --tickets, inquiry tickets).
            tokio::select! {
                _ = changes.changed() => {}
                _ = tokio::time::sleep(Duration::from_secs(1)) => {}
                _ = tx.closed() => return,
                _ = stop.wait_for(|stopping| *stopping) => return,
            }
        }
    });
    Ok(Sse::new(UnboundedReceiverStream::new(rx))
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response())
}

async fn source(State(state): State<AppState>, UrlPath(id): UrlPath<String>) -> Result<Response, ApiError> {
    api::source(&state.0.desk.catalogue, &state.0.desk.retriever, &id).map(|v| json_response(StatusCode::OK, &v))
}

/// `ok` (200) while tickets can be stored; 503 with the reason when the
/// latest ticket write failed (until one succeeds again) or the database
/// does not answer within [`DB_WAIT`].
async fn healthz(State(state): State<AppState>) -> Response {
    if let Some(failure) = state.0.desk.store.write_failure() {
        let error = format!("the latest ticket write failed: {failure}");
        return json_response(StatusCode::SERVICE_UNAVAILABLE, &json!({"status": "error", "error": error}));
    }
    let counts = with_store(&state.0.desk.store, |store| store.counts()).await;
    match counts {
        Ok(counts) => {
            let by: serde_json::Map<String, Value> =
                counts.iter().map(|(s, n)| (s.as_str().to_owned(), json!(n))).collect();
            json_response(StatusCode::OK, &json!({"status": "ok", "model": state.0.desk.model.id(), "tickets": by}))
        }
        Err(e) => json_response(StatusCode::SERVICE_UNAVAILABLE, &json!({"status": "error", "error": e.message})),
    }
}

async fn desk_page(State(state): State<AppState>) -> Response {
    ([(header::CONTENT_SECURITY_POLICY, super::page::CSP.as_str())], axum::response::Html(state.0.page.clone()))
        .into_response()
}

/// Host, Origin and token checks, then the security headers on every answer.
async fn guard(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let inner = &state.0;
    let headers = request.headers();
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("");
    if !inner.options.allow_remote && !api::is_loopback_authority(host, inner.port) {
        return ApiError::new(
            StatusCode::FORBIDDEN,
            "forbidden: the Host is not this loopback server (inquiry serve binds to loopback; see --allow-remote)",
        )
        .into_response();
    }
    let changes_state = !matches!(*request.method(), Method::GET | Method::HEAD | Method::OPTIONS);
    if changes_state {
        if let Some(origin) = headers.get(header::ORIGIN) {
            let same = origin
                .to_str()
                .ok()
                .and_then(|o| o.strip_prefix("http://"))
                .is_some_and(|o| o == host && !host.is_empty());
            if !same {
                return ApiError::new(
                    StatusCode::FORBIDDEN,
                    "forbidden: foreign Origin; the desk accepts changes only from its own page",
                )
                .into_response();
            }
        }
    }
    if let Some(token) = &inner.options.token {
        if request.uri().path().starts_with("/api/") && !api::bearer_matches(headers, token) {
            let mut response = ApiError::new(
                StatusCode::UNAUTHORIZED,
                "missing or wrong bearer token (Authorization: Bearer <token>)",
            )
            .into_response();
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer realm=\"inquiry desk\""));
            return response;
        }
    }
    let mut response = next.run(request).await;
    let h = response.headers_mut();
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.entry(header::CACHE_CONTROL).or_insert(HeaderValue::from_static("no-store"));
    response
}

/// A body over [`MAX_BODY_BYTES`] gets 413 as soon as its `Content-Length`
/// says so; a body that stalls gets 408 (see [`crate::serving`]).
async fn limit_body(request: Request, next: Next) -> Response {
    match crate::serving::read_body_within_limits(request, MAX_BODY_BYTES).await {
        Ok(request) => next.run(request).await,
        Err(refused) => crate::serving::closing(refused),
    }
}

/// The desk's router for a server on `port`.
///
/// # Errors
/// The page template does not render (a defect of `templates/`), or the rate limit is 0.
pub fn router(desk: Desk, options: DeskOptions, port: u16) -> anyhow::Result<axum::Router> {
    router_with(desk, options, port, tokio::sync::watch::channel(false).0)
}

fn router_with(
    desk: Desk,
    options: DeskOptions,
    port: u16,
    stop: tokio::sync::watch::Sender<bool>,
) -> anyhow::Result<axum::Router> {
    use tower_governor::governor::GovernorConfigBuilder;
    use tower_governor::key_extractor::PeerIpKeyExtractor;
    use tower_governor::GovernorLayer;

    let per_minute = options.inquiries_per_minute;
    if per_minute == 0 {
        anyhow::bail!("--rate-limit must be at least 1 inquiry per minute");
    }
    let governor = GovernorConfigBuilder::default()
        .key_extractor(PeerIpKeyExtractor)
        .period(Duration::from_millis(60_000 / u64::from(per_minute)).max(Duration::from_millis(1)))
        .burst_size(per_minute)
        .finish()
        .ok_or_else(|| anyhow::anyhow!("--rate-limit {per_minute}: not a usable rate"))?;
    let limiter = governor.limiter().clone();
    // Forget clients that have been quiet, so the limiter's memory stays bounded.
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(Duration::from_secs(60)).await;
            limiter.retain_recent();
        }
    });
    let rate_limit = GovernorLayer::new(governor).error_handler(|e| {
        let wait = match &e {
            tower_governor::GovernorError::TooManyRequests { wait_time, .. } => *wait_time,
            _ => 1,
        };
        let mut response = ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            format!("too many inquiries from this client; try again in {wait} s"),
        )
        .into_response();
        if let Ok(v) = HeaderValue::from_str(&wait.to_string()) {
            response.headers_mut().insert(header::RETRY_AFTER, v);
        }
        response
    });
    let page = super::page::render(&super::examples::examples(&desk.catalogue))?;
    let state = AppState(Arc::new(Inner { desk, options, port, page, stop }));
    Ok(axum::Router::new()
        .route("/", get(desk_page))
        .route("/healthz", get(healthz))
        .route("/api/inquiries", post(post_inquiry).route_layer(rate_limit))
        .route("/api/handoffs", get(list_handoffs))
        .route("/api/handoffs/stream", get(handoff_stream))
        .route("/api/handoffs/{id}", get(show_handoff).patch(patch_handoff))
        .route("/api/handoffs/{id}/wrong", post(mark_wrong))
        .route("/api/wrong-replies", get(list_wrong))
        .route("/api/sources/{id}", get(source))
        .fallback(|uri: Uri| async move {
            ApiError::new(StatusCode::NOT_FOUND, format!("no such endpoint {}; see GET / for the desk", uri.path()))
        })
        .layer(axum::extract::DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(axum::middleware::from_fn(limit_body))
        .layer(axum::middleware::from_fn_with_state(state.clone(), guard))
        .with_state(state))
}

/// Binds the desk and serves until `shutdown`. Returns the bound address and the serving task.
///
/// # Errors
/// A non-loopback address without `allow_remote`, `allow_remote` without a
/// token, or a bind failure (e.g. the port is in use).
pub async fn bind(
    desk: Desk,
    options: DeskOptions,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> anyhow::Result<(SocketAddr, tokio::task::JoinHandle<anyhow::Result<()>>)> {
    let addr = options.bind;
    if !addr.ip().is_loopback() && !options.allow_remote {
        anyhow::bail!(
            "refusing to serve the desk on {addr}: it binds to loopback unless --allow-remote (with --token) is given"
        );
    }
    if options.allow_remote && options.token.as_deref().is_none_or(str::is_empty) {
        anyhow::bail!("--allow-remote needs --token (or INQUIRY_DESK_TOKEN): a desk reachable from other machines must ask for a bearer token");
    }
    let listener =
        tokio::net::TcpListener::bind(addr).await.map_err(|e| anyhow::anyhow!("cannot listen on {addr}: {e}"))?;
    let local = listener.local_addr()?;
    let stop = tokio::sync::watch::channel(false).0;
    let app = router_with(desk, options, local.port(), stop.clone())?;
    let task = tokio::spawn(async move {
        crate::serving::serve_connections(listener, app, crate::serving::Limits::default(), async move {
            shutdown.await;
            // Open ticket streams never end on their own.
            stop.send_replace(true);
        })
        .await
    });
    Ok((local, task))
}
