//! Serving HTTP connections with limits, shared by every server `inquiry`
//! runs (`serve`, `view`, `serve-mcp --http`): hyper's HTTP/1 server with a
//! header read timeout (an idle, stalled or half-sent request is closed), a
//! body limit checked against `Content-Length` before anything is read, a
//! body read timeout, and a graceful shutdown with a deadline (open
//! connections finish their current request; whatever is still open after
//! the deadline is dropped, so SIGTERM always ends the process).

use std::future::Future;
use std::time::Duration;

use axum::http::{header, StatusCode};
use axum::response::{IntoResponse as _, Response};

/// Longest wait for a complete request header, idle keep-alive time included.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// Longest wait for a request body once its header has arrived.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(10);
/// How long open connections get to finish after a shutdown signal.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// Limits of one server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// See [`HEADER_TIMEOUT`].
    pub header_timeout: Duration,
    /// See [`SHUTDOWN_GRACE`].
    pub shutdown_grace: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Self { header_timeout: HEADER_TIMEOUT, shutdown_grace: SHUTDOWN_GRACE }
    }
}

/// Accepts connections and serves each with hyper's HTTP/1 server. After
/// `shutdown`, no new connection is accepted, open ones are shut down
/// gracefully, and those still open after [`Limits::shutdown_grace`] are dropped.
///
/// # Errors
/// None today; the signature leaves room for a fatal accept error.
pub async fn serve_connections(
    listener: tokio::net::TcpListener,
    router: axum::Router,
    limits: Limits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let mut connections = tokio::task::JoinSet::new();
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(pair) => pair,
                Err(e) => {
                    // Out of file descriptors and the like: wait, do not spin or stop serving.
                    tracing::warn!("accepting a connection failed: {e}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        // Handlers that rate-limit per client read the peer address from here.
        let service = hyper_util::service::TowerToHyperService::new(
            router.clone().layer(axum::Extension(axum::extract::ConnectInfo(peer))),
        );
        let mut stop = stop_rx.clone();
        let header_timeout = limits.header_timeout;
        connections.spawn(async move {
            let connection = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(header_timeout)
                .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                .with_upgrades();
            tokio::pin!(connection);
            let stopping = tokio::select! {
                result = connection.as_mut() => {
                    if let Err(e) = result {
                        tracing::debug!("HTTP connection ended: {e}");
                    }
                    false
                }
                () = async move { let _ = stop.wait_for(|s| *s).await; } => true,
            };
            if stopping {
                connection.as_mut().graceful_shutdown();
                let _ = connection.await;
            }
        });
        while connections.try_join_next().is_some() {}
    }
    drop(listener);
    let _ = stop_tx.send(true);
    let drained =
        tokio::time::timeout(limits.shutdown_grace, async { while connections.join_next().await.is_some() {} }).await;
    if drained.is_err() {
        tracing::warn!("{} connection(s) still open after the shutdown grace period; dropped", connections.len());
        connections.abort_all();
    }
    Ok(())
}

/// Middleware: a body announced larger than `max_bytes` gets 413 at once
/// (before it is sent), and a body that does not arrive within
/// [`BODY_TIMEOUT`] gets 408; otherwise the request goes on with its body read.
///
/// # Errors
/// The 413 / 408 / 400 response to send instead.
pub async fn read_body_within_limits(
    request: axum::extract::Request,
    max_bytes: usize,
) -> Result<axum::extract::Request, Response> {
    let too_large =
        || (StatusCode::PAYLOAD_TOO_LARGE, json_error(&format!("request body over {max_bytes} bytes"))).into_response();
    let announced = request.headers().get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok());
    if let Some(length) = announced {
        match length.trim().parse::<u64>() {
            Ok(n) if n > max_bytes as u64 => return Err(too_large()),
            Ok(_) => {}
            Err(_) => {
                return Err((StatusCode::BAD_REQUEST, json_error("Content-Length is not a number")).into_response())
            }
        }
    }
    let (parts, body) = request.into_parts();
    let bytes = match tokio::time::timeout(BODY_TIMEOUT, axum::body::to_bytes(body, max_bytes)).await {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(_)) => return Err(too_large()),
        Err(_) => {
            return Err((
                StatusCode::REQUEST_TIMEOUT,
                json_error(&format!("the request body did not arrive within {} s", BODY_TIMEOUT.as_secs())),
            )
                .into_response())
        }
    };
    Ok(axum::extract::Request::from_parts(parts, axum::body::Body::from(bytes)))
}

/// [`read_body_within_limits`]'s refusal with `Connection: close`: the body
/// was not read to its end, so the connection cannot carry another request
/// (RFC 9112 §9.6). Without the header a pooling client reuses it and its
/// next request fails with an incomplete message.
pub fn closing(mut refused: Response) -> Response {
    refused.headers_mut().insert(header::CONNECTION, axum::http::HeaderValue::from_static("close"));
    refused
}

fn json_error(message: &str) -> ([(header::HeaderName, &'static str); 1], String) {
    ([(header::CONTENT_TYPE, "application/json")], serde_json::json!({ "error": message }).to_string())
}
