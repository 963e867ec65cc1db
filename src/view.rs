//! `inquiry view`: a read-only local viewer for report sets.
//!
//! Lists every report set (a directory with the `.inquiry-report` marker and
//! a `report.html`) under the given roots, newest first, and serves each
//! set's `report.html` unchanged at `/r/<path>/`. It binds to loopback only,
//! answers only GET and HEAD (with `--review`, also the review page's one
//! write, which needs the token printed at start; see [`crate::review::server`]),
//! and refuses a request whose `Origin` (or
//! `Host`) is not this server on loopback with 403, as `serve-mcp --http`
//! does, so a web page the user visits cannot read the reports.
//!
//! Paths are never built from the request: a request path is looked up among
//! the sets found by the scan, so nothing outside them can be served.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde::Serialize;

/// Default listen address of `inquiry view`.
pub const DEFAULT_BIND: &str = "127.0.0.1:8766";

/// How deep under a root the scan looks for report sets (directories).
const MAX_DEPTH: usize = 4;

const INDEX: &str = include_str!("../templates/view_index.html");

/// One report set found by the scan.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SetEntry {
    /// URL path segment: the set directory relative to the working directory
    /// (`runs/20261201T101500Z-eval`), `/`-separated.
    pub rel: String,
    /// The set's URL (`/r/<rel>/`, each segment percent-encoded, so names
    /// with `#`, `?` or `%` work).
    pub href: String,
    /// Report name.
    pub name: String,
    /// Run date (RFC 3339) from report.json; empty when unreadable.
    pub date: String,
    /// PASS, FAIL or INCOMPLETE; empty when unreadable.
    pub verdict: String,
    /// Model id.
    pub model: String,
    /// Number of cases.
    pub cases: usize,
    /// `report.html` on disk.
    #[serde(skip)]
    pub html: PathBuf,
}

/// What a scan found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Scan {
    /// Report sets with a `report.html`, newest first (by report date, then path).
    pub sets: Vec<SetEntry>,
    /// Report set directories without a `report.html` (written by an older
    /// version, or a `judge-check` set), not listed.
    pub without_html: Vec<String>,
}

/// Finds every report set under `roots` (missing roots are skipped).
pub fn scan(roots: &[PathBuf]) -> Scan {
    let mut found = Scan::default();
    for root in roots {
        walk(root, 0, &mut found);
    }
    // The same directory reached through two roots is listed once; two
    // different directories whose relative paths read alike (`runs` and
    // `../x/runs`) both stay, the later one with a `~2` suffix.
    let mut seen: std::collections::HashMap<String, PathBuf> = std::collections::HashMap::new();
    let mut unique = Vec::with_capacity(found.sets.len());
    for mut set in std::mem::take(&mut found.sets) {
        let real = std::fs::canonicalize(&set.html).unwrap_or_else(|_| set.html.clone());
        if seen.values().any(|p| *p == real) {
            continue;
        }
        let base = set.rel.clone();
        let mut n = 1;
        while seen.contains_key(&set.rel) {
            n += 1;
            set.rel = format!("{base}~{n}");
        }
        set.href = format!("/r/{}/", percent_encode_path(&set.rel));
        seen.insert(set.rel.clone(), real);
        unique.push(set);
    }
    found.sets = unique;
    found.sets.sort_by(|a, b| b.date.cmp(&a.date).then(a.rel.cmp(&b.rel)));
    found
}

/// Percent-encodes a `/`-separated path for a URL (RFC 3986: unreserved
/// characters and `/` stay, everything else is `%XX` of its UTF-8 bytes).
pub fn percent_encode_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn walk(dir: &Path, depth: usize, out: &mut Scan) {
    // Symlinks are not followed (runs/latest points at a set listed anyway).
    let Ok(meta) = std::fs::symlink_metadata(dir) else { return };
    if !meta.is_dir() {
        return;
    }
    if dir.join(crate::eval::report_set::MARKER).is_file() {
        // A report.html that is a link (or a FIFO, a device) is not served:
        // it could point outside the roots, or block the reader.
        if std::fs::symlink_metadata(dir.join("report.html")).is_ok_and(|m| m.is_file()) {
            out.sets.push(entry(dir));
        } else {
            out.without_html.push(dir.display().to_string());
        }
        return;
    }
    if depth >= MAX_DEPTH {
        return;
    }
    let Ok(read) = std::fs::read_dir(dir) else { return };
    let mut children: Vec<PathBuf> = read.filter_map(Result::ok).map(|e| e.path()).collect();
    children.sort();
    for child in children {
        // Staging directories (`.name.staging-…`) are sets being written.
        if child.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with('.')) {
            continue;
        }
        walk(&child, depth + 1, out);
    }
}

fn entry(dir: &Path) -> SetEntry {
    let rel = dir
        .components()
        .filter(|c| matches!(c, std::path::Component::Normal(_)))
        .filter_map(|c| c.as_os_str().to_str())
        .collect::<Vec<_>>()
        .join("/");
    // Only a regular file, size-capped: a FIFO named report.json would block the scan.
    let report_json = dir.join("report.json");
    let summary: serde_json::Value = std::fs::symlink_metadata(&report_json)
        .ok()
        .filter(std::fs::Metadata::is_file)
        .and_then(|_| crate::text_file::read(&report_json).ok())
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    let s = |k: &str| summary.get(k).and_then(|v| v.as_str()).unwrap_or("").to_owned();
    SetEntry {
        href: format!("/r/{}/", percent_encode_path(&rel)),
        rel,
        name: s("name"),
        date: s("date"),
        verdict: s("verdict"),
        model: s("model"),
        cases: summary.get("cases").and_then(|c| c.as_array()).map_or(0, Vec::len),
        html: dir.join("report.html"),
    }
}

/// The index page listing the sets found.
///
/// # Errors
/// A template error (a defect of `templates/view_index.html`).
pub fn render_index(found: &Scan, roots: &[PathBuf]) -> anyhow::Result<String> {
    let mut env = minijinja::Environment::new();
    env.set_auto_escape_callback(|_| minijinja::AutoEscape::Html);
    env.add_template("view_index.html", INDEX)?;
    let roots: Vec<String> = roots.iter().map(|r| r.display().to_string()).collect();
    Ok(env.get_template("view_index.html")?.render(minijinja::context! {
        sets => minijinja::Value::from(minijinja::value::Serde(&found.sets)),
        without_html => found.without_html.clone(),
        roots => roots,
    })?)
}

#[derive(Clone)]
struct ViewState {
    roots: Vec<PathBuf>,
}

/// Content-Security-Policy of the index page: no script at all.
const INDEX_CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; form-action 'none'; base-uri 'none'";

async fn index(State(state): State<ViewState>) -> Response {
    let found = scan(&state.roots);
    match render_index(&found, &state.roots) {
        Ok(page) => ([(header::CONTENT_SECURITY_POLICY, INDEX_CSP)], axum::response::Html(page)).into_response(),
        Err(e) => (StatusCode::INTERNAL_SERVER_ERROR, format!("cannot render the index: {e}")).into_response(),
    }
}

async fn report(State(state): State<ViewState>, axum::extract::Path(path): axum::extract::Path<String>) -> Response {
    let wanted = path.strip_suffix("report.html").unwrap_or(&path).trim_end_matches('/');
    let Some(set) = scan(&state.roots).sets.into_iter().find(|s| s.rel == wanted) else {
        return (StatusCode::NOT_FOUND, "no such report set; see the list at /").into_response();
    };
    match read_page(set.html.clone()).await {
        // The page carries its own Content-Security-Policy.
        Ok(bytes) => ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], bytes).into_response(),
        Err(e) => (StatusCode::NOT_FOUND, format!("{}: {e}", set.rel)).into_response(),
    }
}

/// Largest report.html served (bytes).
const MAX_PAGE_BYTES: u64 = 256 * 1024 * 1024;

/// Reads a page without following a link at its last component (it may have
/// been swapped for one since the scan) and only from a regular file.
async fn read_page(path: PathBuf) -> std::io::Result<Vec<u8>> {
    tokio::task::spawn_blocking(move || {
        use std::io::Read as _;
        use std::os::unix::fs::OpenOptionsExt as _;
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32 | rustix::fs::OFlags::NONBLOCK.bits() as i32)
            .open(&path)?;
        let meta = file.metadata()?;
        if !meta.is_file() || meta.len() > MAX_PAGE_BYTES {
            return Err(std::io::Error::other("not a regular file of a servable size"));
        }
        let mut bytes = Vec::with_capacity(meta.len() as usize);
        file.take(MAX_PAGE_BYTES).read_to_end(&mut bytes)?;
        Ok(bytes)
    })
    .await
    .map_err(std::io::Error::other)?
}

/// Whether a request comes from this server's own pages (or from no page at
/// all): its `Host` is loopback on `port`, and an `Origin`, when sent, is
/// `http://<loopback>:<port>`.
pub fn same_origin(headers: &HeaderMap, port: u16) -> bool {
    let loopback = |authority: &str| {
        let allowed = [format!("127.0.0.1:{port}"), format!("localhost:{port}"), format!("[::1]:{port}")];
        allowed.iter().any(|a| a == authority)
    };
    let host_ok = headers.get(header::HOST).and_then(|h| h.to_str().ok()).is_some_and(loopback);
    let origin_ok = match headers.get(header::ORIGIN) {
        None => true,
        Some(o) => o.to_str().ok().and_then(|o| o.strip_prefix("http://")).is_some_and(loopback),
    };
    host_ok && origin_ok
}

/// The viewer's router for a server on `port`; `extra` routes (the review
/// page of `--review`) are merged in behind the same Host/Origin checks.
pub fn router(roots: Vec<PathBuf>, port: u16, extra: Option<axum::Router>) -> axum::Router {
    axum::Router::new()
        .route("/", axum::routing::get(index))
        .route("/r/{*path}", axum::routing::get(report))
        .with_state(ViewState { roots })
        .merge(extra.unwrap_or_default())
        .fallback(|| async { (StatusCode::NOT_FOUND, "not found; the report sets are listed at /") })
        .layer(axum::middleware::from_fn(move |request: Request, next: Next| async move {
            if !same_origin(request.headers(), port) {
                return (
                    StatusCode::FORBIDDEN,
                    "forbidden: foreign Origin or Host (inquiry view serves loopback only)",
                )
                    .into_response();
            }
            let mut response = next.run(request).await;
            let h = response.headers_mut();
            h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
            h.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
            h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
            response
        }))
}

/// Binds the viewer on a loopback address and serves until `shutdown`
/// (with `extra` routes merged in, see [`router`]).
/// Returns the bound address and the serving task.
///
/// # Errors
/// A non-loopback address (refused: the viewer has no authentication) or a
/// bind failure (e.g. the port is in use).
pub async fn bind(
    roots: Vec<PathBuf>,
    extra: Option<axum::Router>,
    bind: SocketAddr,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> anyhow::Result<(SocketAddr, tokio::task::JoinHandle<anyhow::Result<()>>)> {
    if !bind.ip().is_loopback() {
        anyhow::bail!("refusing to serve reports on {bind}: inquiry view binds to loopback only (e.g. 127.0.0.1:8766)");
    }
    let listener =
        tokio::net::TcpListener::bind(bind).await.map_err(|e| anyhow::anyhow!("cannot listen on {bind}: {e}"))?;
    let local = listener.local_addr()?;
    let app = router(roots, local.port(), extra);
    let task =
        tokio::spawn(crate::serving::serve_connections(listener, app, crate::serving::Limits::default(), shutdown));
    Ok((local, task))
}

/// Parses a listen address, taking `localhost:PORT` as `127.0.0.1:PORT`.
///
/// # Errors
/// Not `HOST:PORT` with an IP address or `localhost`.
pub fn parse_bind(s: &str) -> Result<SocketAddr, String> {
    let s = s.trim();
    let s = match s.strip_prefix("localhost:") {
        Some(port) => format!("127.0.0.1:{port}"),
        None => s.to_owned(),
    };
    s.parse().map_err(|_| format!("expected IP:PORT such as 127.0.0.1:8766 (or localhost:PORT), got {s:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bind_addresses() {
        assert_eq!(parse_bind("localhost:9000").unwrap(), "127.0.0.1:9000".parse::<SocketAddr>().unwrap());
        assert_eq!(parse_bind("[::1]:9000").unwrap().port(), 9000);
        assert!(parse_bind("localhost").unwrap_err().contains("IP:PORT"));
    }

    #[test]
    fn origins_and_hosts() {
        let h = |pairs: &[(&'static str, &'static str)]| {
            let mut m = HeaderMap::new();
            for (k, v) in pairs {
                m.insert(*k, HeaderValue::from_static(v));
            }
            m
        };
        assert!(same_origin(&h(&[("host", "127.0.0.1:8766")]), 8766));
        assert!(same_origin(&h(&[("host", "localhost:8766"), ("origin", "http://localhost:8766")]), 8766));
        assert!(!same_origin(&h(&[("host", "127.0.0.1:8766"), ("origin", "http://evil.example")]), 8766));
        assert!(!same_origin(&h(&[("host", "127.0.0.1:8766"), ("origin", "http://127.0.0.1:9999")]), 8766));
        assert!(!same_origin(&h(&[("host", "evil.example:8766")]), 8766), "DNS rebinding");
        assert!(!same_origin(&h(&[]), 8766));
    }
}
