//! Streamable HTTP serving at `/mcp`.
//!
//! Binds to loopback by default and refuses other addresses unless asked.
//! DNS-rebinding defences come from rmcp's service: the `Host` header must name
//! an allowed host (loopback by default) and a request carrying an `Origin`
//! header must come from an allowed origin (loopback origins on any port by
//! default), else HTTP 403. Requests without `Origin` (non-browser clients)
//! pass. All sessions share one [`Toolbox`], so tickets from every client land
//! in the same queue.
//!
//! Limits (hyper and rmcp settings): a connection that has not sent a
//! complete request header within [`HttpOptions::header_timeout`] (an idle
//! or stalled connection included) is closed; a session idle for
//! [`HttpOptions::session_idle`] is dropped; at most
//! [`HttpOptions::max_sessions`] live sessions, beyond which a new session is
//! answered HTTP 503. Shutdown is graceful: open connections finish their
//! current request.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use anyhow::Context as _;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::task::JoinHandle;

use super::InquiryServer;
use crate::tools::Toolbox;

/// Default bind address of `serve-mcp --http`.
pub const DEFAULT_BIND: &str = "127.0.0.1:3000";

/// Path of the MCP endpoint.
pub const MCP_PATH: &str = "/mcp";

/// Origins always allowed: loopback pages on any port.
pub const DEFAULT_ALLOWED_ORIGINS: [&str; 3] = ["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"];

/// Hosts always allowed in the `Host` header (any port).
const DEFAULT_ALLOWED_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// How to serve MCP over HTTP.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpOptions {
    /// Address to listen on (default `127.0.0.1:3000`; port 0 picks a free port).
    pub bind: SocketAddr,
    /// Allow a non-loopback bind address (there is no authentication).
    pub allow_non_loopback: bool,
    /// Extra allowed browser origins, added to [`DEFAULT_ALLOWED_ORIGINS`]:
    /// `scheme://host[:port]`, or `scheme://host:*` for any port.
    pub allowed_origins: Vec<String>,
    /// Extra allowed `Host` header values (`host` or `host:port`), added to the
    /// loopback hosts (and to a specific non-loopback bind address).
    pub allowed_hosts: Vec<String>,
    /// Longest wait for a complete request header, idle keep-alive time included (default 10 s).
    pub header_timeout: std::time::Duration,
    /// A session without traffic for this long is dropped (default 120 s).
    pub session_idle: std::time::Duration,
    /// Most live sessions; a new one beyond it gets HTTP 503 (default 256).
    pub max_sessions: usize,
}

/// Default [`HttpOptions::header_timeout`].
pub const DEFAULT_HEADER_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);
/// Default [`HttpOptions::session_idle`].
pub const DEFAULT_SESSION_IDLE: std::time::Duration = std::time::Duration::from_secs(120);
/// Default [`HttpOptions::max_sessions`].
pub const DEFAULT_MAX_SESSIONS: usize = 256;

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            bind: DEFAULT_BIND.parse().expect("valid default bind address"),
            allow_non_loopback: false,
            allowed_origins: vec![],
            allowed_hosts: vec![],
            header_timeout: DEFAULT_HEADER_TIMEOUT,
            session_idle: DEFAULT_SESSION_IDLE,
            max_sessions: DEFAULT_MAX_SESSIONS,
        }
    }
}

impl HttpOptions {
    /// Loopback on the given port (0 = any free port), defaults otherwise.
    pub fn loopback(port: u16) -> Self {
        Self { bind: SocketAddr::from(([127, 0, 0, 1], port)), ..Self::default() }
    }

    /// Allowed origins: the loopback defaults plus [`Self::allowed_origins`].
    pub fn effective_origins(&self) -> Vec<String> {
        let mut origins: Vec<String> = DEFAULT_ALLOWED_ORIGINS.iter().map(|s| (*s).to_owned()).collect();
        for origin in &self.allowed_origins {
            let origin = origin.trim().trim_end_matches('/').to_owned();
            if !origin.is_empty() && !origins.contains(&origin) {
                origins.push(origin);
            }
        }
        origins
    }

    /// Allowed hosts: loopback, the bind address when it is a specific
    /// non-loopback IP, plus [`Self::allowed_hosts`].
    pub fn effective_hosts(&self) -> Vec<String> {
        let mut hosts: Vec<String> = DEFAULT_ALLOWED_HOSTS.iter().map(|s| (*s).to_owned()).collect();
        let ip = self.bind.ip();
        if !ip.is_loopback() && !ip.is_unspecified() {
            hosts.push(ip.to_string());
        }
        for host in &self.allowed_hosts {
            let host = host.trim().to_owned();
            if !host.is_empty() && !hosts.contains(&host) {
                hosts.push(host);
            }
        }
        hosts
    }
}

/// Binds the listener and starts serving in a background task. Returns the
/// bound address (useful with port 0) and the task, which ends after
/// `shutdown` resolves and open sessions have closed.
///
/// # Errors
/// A non-loopback bind without `allow_non_loopback`, an invalid allowed
/// origin, or a bind failure (e.g. the port is in use).
pub async fn bind_http(
    toolbox: Toolbox,
    options: HttpOptions,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<(SocketAddr, JoinHandle<anyhow::Result<()>>)> {
    let bind = options.bind;
    if !bind.ip().is_loopback() {
        if !options.allow_non_loopback {
            anyhow::bail!(
                "refusing to serve MCP on {bind}: not a loopback address and the endpoint has no authentication; \
                 bind 127.0.0.1 (the default) or allow remote access explicitly (--allow-remote)"
            );
        }
        tracing::warn!(
            %bind,
            "serving MCP on a non-loopback address without authentication: anyone who can reach it can read the \
             catalogue and create tickets"
        );
    }
    for origin in &options.allowed_origins {
        check_origin(origin)?;
    }
    let origins = options.effective_origins();
    let hosts = options.effective_hosts();
    if bind.ip().is_unspecified() && options.allowed_hosts.is_empty() {
        tracing::warn!(
            %bind,
            "only loopback Host headers are accepted; add the names clients use to reach this machine as allowed hosts"
        );
    }

    let config = StreamableHttpServerConfig::default().with_allowed_hosts(hosts).with_allowed_origins(origins);
    let cancel = config.cancellation_token.clone();
    let mut sessions = LocalSessionManager::default();
    sessions.session_config.keep_alive = Some(options.session_idle);
    sessions.session_config.init_timeout = Some(options.session_idle.min(std::time::Duration::from_secs(30)));
    let sessions = Arc::new(sessions);
    let service = StreamableHttpService::new(move || Ok(InquiryServer::new(toolbox.clone())), sessions.clone(), config);
    let max_sessions = options.max_sessions.max(1);
    // Last request time per session id, so a full table sheds its idlest
    // sessions (abandoned clients) before it refuses a new one.
    let activity: Arc<tokio::sync::Mutex<std::collections::HashMap<String, std::time::Instant>>> = Arc::default();
    let router = axum::Router::new().nest_service(MCP_PATH, service).layer(axum::middleware::from_fn(
        move |request: axum::extract::Request, next: axum::middleware::Next| {
            let sessions = sessions.clone();
            let activity = activity.clone();
            async move {
                use rmcp::transport::streamable_http_server::session::SessionManager as _;
                let session = request.headers().get("mcp-session-id").and_then(|v| v.to_str().ok()).map(str::to_owned);
                if let Some(id) = &session {
                    activity.lock().await.insert(id.clone(), std::time::Instant::now());
                }
                // A request without a session id opens a session: when the
                // table is full, close the idlest one that has been quiet for
                // at least EVICT_AFTER; refuse only when every session is busy.
                let opens = request.method() == axum::http::Method::POST && session.is_none();
                if opens && sessions.sessions.read().await.len() >= max_sessions {
                    let live: Vec<String> = sessions.sessions.read().await.keys().map(|k| k.to_string()).collect();
                    let mut seen = activity.lock().await;
                    seen.retain(|id, _| live.contains(id));
                    let now = std::time::Instant::now();
                    let idlest = live
                        .iter()
                        .map(|id| (id, seen.get(id).copied().unwrap_or(now - EVICT_AFTER)))
                        .filter(|(_, at)| now.duration_since(*at) >= EVICT_AFTER)
                        .min_by_key(|(_, at)| *at)
                        .map(|(id, _)| id.clone());
                    if let Some(id) = idlest {
                        seen.remove(&id);
                        drop(seen);
                        tracing::info!(session = %id, "MCP session table full; closed the idlest session");
                        let _ = sessions.close_session(&std::sync::Arc::from(id.as_str())).await;
                    }
                }
                if opens && sessions.sessions.read().await.len() >= max_sessions {
                    use axum::response::IntoResponse as _;
                    return (
                        axum::http::StatusCode::SERVICE_UNAVAILABLE,
                        [(axum::http::header::RETRY_AFTER, "30")],
                        format!("too many open MCP sessions (at most {max_sessions}); close one or try again later"),
                    )
                        .into_response();
                }
                if request.method() != axum::http::Method::POST {
                    return next.run(request).await;
                }
                let response = match with_checked_arguments(request).await {
                    Ok(request) => next.run(request).await,
                    Err(refused) => refused,
                };
                if let Some(id) = response.headers().get("mcp-session-id").and_then(|v| v.to_str().ok()) {
                    activity.lock().await.insert(id.to_owned(), std::time::Instant::now());
                }
                response
            }
        },
    ));

    let listener = tokio::net::TcpListener::bind(bind).await.with_context(|| format!("cannot listen on {bind}"))?;
    let local = listener.local_addr().context("bound address")?;
    let header_timeout = options.header_timeout;
    let task = tokio::spawn(async move {
        let limits = crate::serving::Limits { header_timeout, ..crate::serving::Limits::default() };
        crate::serving::serve_connections(listener, router, limits, async move {
            shutdown.await;
            // Ends open sessions and their SSE streams, so graceful shutdown can finish.
            cancel.cancel();
        })
        .await
    });
    Ok((local, task))
}

/// A full session table closes a session only after it has been quiet this long.
const EVICT_AFTER: std::time::Duration = std::time::Duration::from_secs(5);

/// Largest JSON-RPC POST body accepted (bytes); a larger one gets 413.
pub const MAX_BODY_BYTES: usize = 4 * 1024 * 1024;

/// The request with its body read and, when its `tools/call` arguments
/// repeat a key, noted for the tool handler (see `frames`).
///
/// # Errors
/// The response to send instead: 413 for a body over [`MAX_BODY_BYTES`].
async fn with_checked_arguments(
    request: axum::extract::Request,
) -> Result<axum::extract::Request, axum::response::Response> {
    use axum::response::IntoResponse as _;
    let (parts, body) = request.into_parts();
    let bytes = axum::body::to_bytes(body, MAX_BODY_BYTES).await.map_err(|_| {
        crate::serving::closing(
            (axum::http::StatusCode::PAYLOAD_TOO_LARGE, format!("request body over {MAX_BODY_BYTES} bytes"))
                .into_response(),
        )
    })?;
    // What is not one JSON-RPC message is a bad request (400 with a JSON-RPC
    // error), whatever its content type: rmcp would answer 415 or 422.
    let bad_request = |message: &str, code: i64| {
        (
            axum::http::StatusCode::BAD_REQUEST,
            [(axum::http::header::CONTENT_TYPE, "application/json")],
            serde_json::json!({"jsonrpc": "2.0", "id": null, "error": {"code": code, "message": message}}).to_string(),
        )
            .into_response()
    };
    match serde_json::from_slice::<serde_json::Value>(&bytes) {
        _ if bytes.iter().all(u8::is_ascii_whitespace) => {
            return Err(bad_request("empty request body; expected one JSON-RPC message", -32700))
        }
        Err(e) => return Err(bad_request(&format!("parse error: {e}"), -32700)),
        Ok(serde_json::Value::Array(_)) => {
            return Err(bad_request("JSON-RPC batches are not supported; send one message per request", -32600))
        }
        Ok(serde_json::Value::Object(_)) => {}
        Ok(_) => return Err(bad_request("expected a JSON-RPC message object", -32600)),
    }
    let bytes = match std::str::from_utf8(&bytes).ok().and_then(super::frames::mark_duplicate_arguments) {
        Some(marked) => axum::body::Bytes::from(marked),
        None => bytes,
    };
    let mut parts = parts;
    parts.headers.remove(axum::http::header::CONTENT_LENGTH);
    Ok(axum::extract::Request::from_parts(parts, axum::body::Body::from(bytes)))
}

/// Serves MCP over Streamable HTTP at `http://<bind>/mcp` until `shutdown`
/// resolves. Prints the endpoint URL as one line on stderr.
///
/// # Errors
/// See [`bind_http`]; also a server failure while running.
pub async fn serve_http(
    toolbox: Toolbox,
    options: HttpOptions,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let (addr, task) = bind_http(toolbox, options, shutdown).await?;
    // A people-facing line (stderr): where to point the client.
    eprintln!("inquiry: serving MCP (Streamable HTTP) at http://{addr}{MCP_PATH}");
    task.await.context("MCP HTTP server task failed")?
}

/// Checks the shape of an allowed origin (`scheme://host[:port|:*]`, or `null`).
fn check_origin(origin: &str) -> anyhow::Result<()> {
    let trimmed = origin.trim().trim_end_matches('/');
    if trimmed == "null" {
        return Ok(());
    }
    let base = trimmed.strip_suffix(":*").unwrap_or(trimmed);
    let ok = match base.split_once("://") {
        Some((scheme, authority)) => {
            !scheme.is_empty()
                && scheme.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
                && !authority.is_empty()
                && !authority.contains(['/', '?', '#', '@', ' '])
        }
        None => false,
    };
    if ok {
        Ok(())
    } else {
        anyhow::bail!(
            "allowed origin \"{origin}\" is not an origin; expected scheme://host[:port], e.g. https://app.example.org \
             or http://localhost:* for any port"
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_extend_the_loopback_defaults() {
        let options = HttpOptions {
            allowed_origins: vec!["https://app.example.org/".into(), "http://localhost:*".into()],
            ..HttpOptions::default()
        };
        assert_eq!(
            options.effective_origins(),
            vec!["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*", "https://app.example.org"]
        );
    }

    #[test]
    fn origin_shapes_are_checked() {
        assert!(check_origin("https://app.example.org").is_ok());
        assert!(check_origin("http://localhost:*").is_ok());
        assert!(check_origin("http://[::1]:8080").is_ok());
        assert!(check_origin("null").is_ok());
        assert!(check_origin("app.example.org").is_err());
        assert!(check_origin("https://app.example.org/path").is_err());
    }

    #[test]
    fn specific_remote_bind_is_an_allowed_host() {
        let options = HttpOptions { bind: "192.0.2.7:3000".parse().unwrap(), ..HttpOptions::default() };
        assert!(options.effective_hosts().contains(&"192.0.2.7".to_owned()));
        let any = HttpOptions { bind: "0.0.0.0:3000".parse().unwrap(), ..HttpOptions::default() };
        assert_eq!(any.effective_hosts(), vec!["localhost", "127.0.0.1", "::1"]);
    }
}
