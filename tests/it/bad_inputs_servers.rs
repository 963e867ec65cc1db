//! #26: the bad-input table for the servers, over raw HTTP/1.1 on loopback:
//! the desk (`inquiry serve`), the viewer (`inquiry view`) and MCP over HTTP
//! (`serve-mcp --http`). Every request asserts the status and what the body
//! names (the JSON `field`, or the message); afterwards the ticket queue and
//! the viewer's report sets are exactly as before. Every read and every wait
//! is bounded; servers are killed on drop.

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::bad_inputs_surfaces::{copy_dir, desk_db, mkfifo, snapshot, touched};
use crate::desk::Desk;
use crate::support::root;

/// One request: raw parts, the expected status and body fragments.
struct Req {
    name: &'static str,
    method: &'static str,
    path: String,
    /// Header overrides; an empty value removes a default header.
    headers: Vec<(&'static str, String)>,
    body: Vec<u8>,
    /// Expected status; 0: the server closes the connection (or answers 408) within 15 s.
    status: u16,
    expect: Vec<&'static str>,
    reject: Vec<&'static str>,
}

fn req(name: &'static str, method: &'static str, path: &str, body: &str, status: u16, expect: &[&'static str]) -> Req {
    Req {
        name,
        method,
        path: path.to_owned(),
        headers: vec![],
        body: body.as_bytes().to_vec(),
        status,
        expect: expect.to_vec(),
        reject: vec![],
    }
}

impl Req {
    fn h(mut self, name: &'static str, value: &str) -> Self {
        self.headers.push((name, value.to_owned()));
        self
    }
    fn raw(mut self, body: Vec<u8>) -> Self {
        self.body = body;
        self
    }
    fn reject(mut self, text: &'static str) -> Self {
        self.reject.push(text);
        self
    }
}

/// Sends the request (`{port}` in headers and path replaced) and reads the
/// answer: `(status, body)`, status 0 when the server closed without one.
fn send(port: u16, r: &Req) -> Result<(u16, String), String> {
    let fill = |s: &str| s.replace("{port}", &port.to_string());
    let mut headers: Vec<(String, String)> = vec![("Host".into(), format!("127.0.0.1:{port}"))];
    if matches!(r.method, "POST" | "PATCH" | "PUT") {
        headers.push(("Content-Type".into(), "application/json".into()));
    }
    headers.push(("Content-Length".into(), r.body.len().to_string()));
    headers.push(("Connection".into(), "close".into()));
    for (k, v) in &r.headers {
        headers.retain(|(name, _)| !name.eq_ignore_ascii_case(k));
        if !v.is_empty() {
            headers.push((k.to_string(), fill(v)));
        }
    }
    let mut raw = format!("{} {} HTTP/1.1\r\n", r.method, fill(&r.path)).into_bytes();
    for (k, v) in &headers {
        raw.extend(format!("{k}: {v}\r\n").bytes());
    }
    if r.status != 0 {
        raw.extend(b"\r\n");
        raw.extend(&r.body);
    }
    let mut s = TcpStream::connect(("127.0.0.1", port)).map_err(|e| format!("connect: {e}"))?;
    s.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
    s.set_write_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(&raw).map_err(|e| format!("write: {e}"))?;
    let deadline = Instant::now() + Duration::from_secs(15);
    let mut got = vec![];
    let mut buf = [0u8; 65536];
    while Instant::now() < deadline {
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => got.extend(&buf[..n]),
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {
                if complete(&got) {
                    break;
                }
            }
            Err(e) if got.is_empty() && e.kind() == std::io::ErrorKind::ConnectionReset => break,
            Err(e) => return Err(format!("read: {e}")),
        }
    }
    if got.is_empty() {
        return if Instant::now() < deadline { Ok((0, String::new())) } else { Err("no answer within 15 s".into()) };
    }
    let text = String::from_utf8_lossy(&got).into_owned();
    let status = text.split(' ').nth(1).and_then(|c| c.parse().ok()).ok_or(format!("not HTTP: {text:.200}"))?;
    let body = text.split_once("\r\n\r\n").map(|(_, b)| b.to_owned()).unwrap_or_default();
    Ok((status, body))
}

/// Whether a response with a `Content-Length` has all of its body.
fn complete(got: &[u8]) -> bool {
    let text = String::from_utf8_lossy(got);
    let Some((head, body)) = text.split_once("\r\n\r\n") else { return false };
    head.lines()
        .find_map(|l| l.to_ascii_lowercase().strip_prefix("content-length:").map(|v| v.trim().parse::<usize>()))
        .is_some_and(|n| n.is_ok_and(|n| body.len() >= n))
}

/// Sends every request; the problems found.
fn run_all(port: u16, reqs: &[Req]) -> Vec<String> {
    let mut problems = vec![];
    for r in reqs {
        let started = Instant::now();
        match send(port, r) {
            Err(e) => problems.push(format!("{}: {e}", r.name)),
            Ok((status, body)) => {
                let mut wrong = vec![];
                let closed = r.status == 0 && (status == 0 || status == 408);
                if status != r.status && !closed {
                    wrong.push(format!("status {status}, expected {}", r.status));
                }
                let missing: Vec<&&str> = r.expect.iter().filter(|e| !body.contains(**e)).collect();
                if !missing.is_empty() {
                    wrong.push(format!("body lacks {missing:?}"));
                }
                wrong.extend(r.reject.iter().filter(|x| body.contains(**x)).map(|x| format!("body contains {x:?}")));
                if !wrong.is_empty() {
                    let path: String = r.path.chars().take(120).collect();
                    problems.push(format!(
                        "{}: {} ({} {path}, {} ms): {}",
                        r.name,
                        wrong.join("; "),
                        r.method,
                        started.elapsed().as_millis(),
                        body.chars().take(400).collect::<String>().escape_debug()
                    ));
                }
            }
        }
    }
    problems
}

fn field(name: &'static str) -> &'static str {
    Box::leak(format!("\"field\":\"{name}\"").into_boxed_str())
}

fn desk_requests() -> Vec<Req> {
    let post =
        |name, body: &str, status, expect: &[&'static str]| req(name, "POST", "/api/inquiries", body, status, expect);
    let patch = |name, body: &str, status, expect: &[&'static str]| {
        req(name, "PATCH", "/api/handoffs/TKT-0001", body, status, expect)
    };
    let get = |name, path: &str, status, expect: &[&'static str]| req(name, "GET", path, "", status, expect);
    let six =
        format!("{{\"inquiry\": \"hi\", \"history\": [{}]}}", vec![r#"{"inquiry": "a", "reply": "b"}"#; 6].join(","));
    let deep = format!("{}{}", "[".repeat(5000), "]".repeat(5000));
    vec![
        // POST /api/inquiries: bodies
        post("inquiry: duplicate key", r#"{"inquiry": "Is HH-1001 free?", "inquiry": "x"}"#, 400, &["inquiry"]),
        post("inquiry: open brace", "{", 400, &["JSON"]),
        post("inquiry: empty body", "", 400, &["JSON"]),
        post("inquiry: array", "[]", 400, &["JSON object"]),
        post("inquiry: string", r#""Is HH-1001 free?""#, 400, &["JSON object"]),
        post("inquiry: null", "null", 400, &["JSON object"]),
        post("inquiry: trailing content", r#"{"inquiry": "hi"} {"inquiry": "again"}"#, 400, &["JSON"]),
        post("inquiry: deep nesting", &deep, 400, &["JSON"]),
        post("inquiry: number out of range", r#"{"inquiry": 1e999}"#, 400, &[]),
        post("inquiry: whitespace", r#"{"inquiry": "  \n\t "}"#, 400, &[field("inquiry")]),
        post("inquiry: number", r#"{"inquiry": 5}"#, 400, &[field("inquiry")]),
        post("inquiry: missing", r#"{"history": []}"#, 400, &[field("inquiry")]),
        post("inquiry: unknown field", r#"{"inquiry": "hi", "lang": "en"}"#, 400, &[field("lang")]),
        post("inquiry: history not a list", r#"{"inquiry": "hi", "history": "x"}"#, 400, &[field("history")]),
        post("inquiry: six history turns", &six, 400, &[field("history")]),
        post("inquiry: history turn a number", r#"{"inquiry": "hi", "history": [5]}"#, 400, &[field("history[0]")]),
        post(
            "inquiry: history turn with an extra key",
            r#"{"inquiry": "hi", "history": [{"inquiry": "a", "reply": "b", "mood": 1}]}"#,
            400,
            &[field("history[0].mood")],
        ),
        post(
            "inquiry: history reply null",
            r#"{"inquiry": "hi", "history": [{"inquiry": "a", "reply": null}]}"#,
            400,
            &[field("history[0].reply")],
        ),
        post(
            "inquiry: 4,001 characters",
            &format!(r#"{{"inquiry": "{}"}}"#, "ä".repeat(4001)),
            413,
            &[field("inquiry")],
        ),
        post("inquiry: body over 64 KiB", &format!(r#"{{"inquiry": "{}"}}"#, "x".repeat(70_000)), 413, &[]),
        post("inquiry: invalid UTF-8", "", 400, &[field("body")]).raw(b"{\"inquiry\": \"\xff\xfe\"}".to_vec()),
        post("inquiry: text/plain", r#"{"inquiry": "hi"}"#, 415, &["Content-Type"]).h("Content-Type", "text/plain"),
        post("inquiry: no content type", r#"{"inquiry": "hi"}"#, 415, &["Content-Type"]).h("Content-Type", ""),
        post("inquiry: form", "inquiry=hi", 415, &[]).h("Content-Type", "application/x-www-form-urlencoded"),
        post("inquiry: json-patch media type", r#"{"inquiry": "hi"}"#, 415, &[])
            .h("Content-Type", "application/json-patch+json"),
        post("inquiry: media type in capitals is JSON", "{}", 400, &[field("inquiry")])
            .h("Content-Type", "APPLICATION/JSON; charset=utf-8"),
        post("inquiry: foreign Origin", r#"{"inquiry": "hi"}"#, 403, &["Origin"]).h("Origin", "http://evil.example"),
        post("inquiry: Origin null", r#"{"inquiry": "hi"}"#, 403, &["Origin"]).h("Origin", "null"),
        post("inquiry: Origin on another port", r#"{"inquiry": "hi"}"#, 403, &["Origin"])
            .h("Origin", "http://127.0.0.1:1"),
        post("inquiry: Content-Length of 10^12 is refused at once", "", 413, &[]).h("Content-Length", "1000000000000"),
        req("inquiry: half-sent header is closed", "POST", "/api/inquiries", "", 0, &[]),
        // PATCH /api/handoffs/:id
        patch("patch: status in capitals", r#"{"status": "DONE"}"#, 400, &[field("status")]),
        patch("patch: duplicate status", r#"{"status": "done", "status": "open"}"#, 400, &["status"]),
        patch("patch: status null", r#"{"status": null}"#, 400, &[field("status")]),
        patch("patch: note null", r#"{"note": null}"#, 400, &[field("note")]),
        patch("patch: note too long", &format!(r#"{{"note": "{}"}}"#, "n".repeat(2001)), 400, &[field("note")]),
        patch("patch: empty object", "{}", 400, &[field("status")]),
        patch("patch: array", "[]", 400, &["JSON object"]),
        patch("patch: unknown field", r#"{"status": "done", "assignee": "bo"}"#, 400, &[field("assignee")]),
        patch("patch: form body", "status=done", 415, &[]).h("Content-Type", "application/x-www-form-urlencoded"),
        patch("patch: foreign Origin", r#"{"status": "done"}"#, 403, &["Origin"]).h("Origin", "http://evil.example"),
        req("patch: unknown ticket", "PATCH", "/api/handoffs/TKT-9999", r#"{"status": "done"}"#, 404, &[field("id")]),
        req("patch: NUL id", "PATCH", "/api/handoffs/%00", r#"{"status": "done"}"#, 404, &[field("id")]),
        req(
            "patch: escape in the id",
            "PATCH",
            "/api/handoffs/TKT-%1B%5B2J",
            r#"{"status": "done"}"#,
            404,
            &[field("id")],
        )
        .reject("\u{1b}"),
        req(
            "patch: SQL in the id",
            "PATCH",
            "/api/handoffs/TKT-0001'%20OR%20'1'='1",
            r#"{"status": "done"}"#,
            404,
            &[field("id")],
        ),
        req("delete: not allowed", "DELETE", "/api/handoffs/TKT-0001", "", 405, &[]),
        req("put: not allowed", "PUT", "/api/handoffs/TKT-0001", r#"{"status": "done"}"#, 405, &[]),
        // GET: queries, ids, hosts
        get("list: unknown status", "/api/handoffs?status=closed", 400, &[field("status")]),
        get("list: status twice", "/api/handoffs?status=open&status=done", 400, &[field("status")]),
        get("list: unknown parameter", "/api/handoffs?colour=red", 400, &[field("colour")]),
        get("list: empty status", "/api/handoffs?status=", 400, &[field("status")]),
        get("list: bad escape", "/api/handoffs?status=%ZZ", 400, &[field("status")]),
        get("list: percent-encoded value is decoded", "/api/handoffs?status=in%5Fprogress", 200, &["\"count\":0"]),
        get("list: percent-encoded key is decoded", "/api/handoffs?st%61tus=done", 200, &["\"count\":0"]),
        get("stream: since not a number", "/api/handoffs/stream?since=abc", 400, &[field("since")]),
        get("stream: since past i64", "/api/handoffs/stream?since=99999999999999999999", 400, &[field("since")]),
        get("stream: unknown parameter", "/api/handoffs/stream?status=open", 400, &[field("status")]),
        get("show: unknown ticket", "/api/handoffs/TKT-9999", 404, &[field("id")]),
        get("show: path in the id", "/api/handoffs/..%2F..%2Fetc%2Fpasswd", 404, &[field("id")]),
        get("source: unknown sentence", "/api/sources/HH-1001%23s999", 404, &[field("chunkId")]),
        get("source: markup", "/api/sources/%3Cscript%3Ealert(1)%3C%2Fscript%3E", 404, &[field("chunkId")]),
        get("no such endpoint", "/api/tickets", 404, &[]),
        get("foreign Host", "/healthz", 403, &["Host"]).h("Host", "evil.example"),
        get("Host with a suffix", "/api/handoffs", 403, &["Host"]).h("Host", "127.0.0.1:{port}.evil.example"),
        get("Host on another port", "/api/handoffs", 403, &["Host"]).h("Host", "127.0.0.1:1"),
        get("no Host", "/api/handoffs", 403, &["Host"]).h("Host", ""),
        get("localhost is this server", "/api/handoffs?status=done", 200, &["\"count\":0"])
            .h("Host", "localhost:{port}"),
    ]
}

fn token_requests() -> Vec<Req> {
    let get = |name, auth: &str, status| req(name, "GET", "/api/handoffs", "", status, &[]).h("Authorization", auth);
    vec![
        get("token: none", "", 401),
        get("token: lower-case bearer", "bearer s3cret-token", 200),
        get("token: upper-case BEARER", "BEARER s3cret-token", 200),
        get("token: blank", "Bearer ", 401),
        get("token: only spaces", "Bearer    ", 401),
        get("token: prefix of the token", "Bearer s3cret", 401),
        get("token: token and more", "Bearer s3cret-token-x", 401),
        get("token: Basic scheme", "Basic czNjcmV0LXRva2Vu", 401),
        get("token: no scheme", "s3cret-token", 401),
        req("token: query parameter is no token", "GET", "/api/handoffs?token=s3cret-token", "", 401, &[]),
        req("token: health needs none", "GET", "/healthz", "", 200, &["\"status\":\"ok\""]),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_to_the_desk_get_the_right_status_and_change_no_ticket() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("desk.sqlite");
    desk_db(&db, "");
    let desk = Desk::start(&db, &[]).await;
    let port: u16 = desk.base.rsplit(':').next().unwrap().parse().unwrap();
    let listed = |port| send(port, &req("list", "GET", "/api/handoffs", "", 200, &[]));
    let before = listed(port).unwrap();
    let reqs = desk_requests();
    let mut problems = tokio::task::block_in_place(|| run_all(port, &reqs));
    let after = listed(port).unwrap();
    if before != after {
        problems.push(format!("the queue changed:\n{before:?}\n{after:?}"));
    }
    drop(desk);

    let tdir = tempfile::tempdir().unwrap();
    let tdb = tdir.path().join("desk.sqlite");
    let desk = Desk::start(&tdb, &["--token", "s3cret-token"]).await;
    let tport: u16 = desk.base.rsplit(':').next().unwrap().parse().unwrap();
    let treqs = token_requests();
    problems.extend(tokio::task::block_in_place(|| run_all(tport, &treqs)));
    drop(desk);

    let n = reqs.len() + treqs.len();
    eprintln!("{n} desk requests: {} misbehaved", problems.len());
    assert!(problems.is_empty(), "{} of {n} desk requests misbehaved:\n\n{}", problems.len(), problems.join("\n\n"));
}

/// A server child killed (SIGKILL) on drop.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Starts `inquiry ARGS --bind 127.0.0.1:PORT` in `cwd` and waits (20 s at
/// most) until `probe` answers; the error carries the server's stderr.
fn start(args: &[&str], cwd: &Path, probe: &str, log: &Path) -> Result<(Server, u16), String> {
    let port = free_port();
    let child = Command::new(env!("CARGO_BIN_EXE_inquiry"))
        .args(args)
        .args(["--bind", &format!("127.0.0.1:{port}")])
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(log).unwrap())
        .spawn()
        .unwrap();
    let mut server = Server(child);
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(20) {
        if send(port, &req("probe", "GET", probe, "", 200, &[])).is_ok_and(|(s, _)| s != 0) {
            return Ok((server, port));
        }
        if let Ok(Some(status)) = server.0.try_wait() {
            return Err(format!("exited {status}: {}", std::fs::read_to_string(log).unwrap_or_default()));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Err(format!("no answer within 20 s: {}", std::fs::read_to_string(log).unwrap_or_default()))
}

#[test]
fn the_viewer_serves_only_its_pages_and_odd_report_sets_neither_block_nor_leak() {
    let tmp = tempfile::tempdir().unwrap();
    let logs = tempfile::tempdir().unwrap();
    let v = tmp.path();
    let set = |rel: &str| copy_dir(&root().join("reports/eval"), &v.join(rel));
    std::fs::write(v.join("secret.txt"), "TOP-SECRET-42").unwrap();
    for rel in [
        "cwd/reports/ok",
        "reports/ok",
        "cwd/reports/a#b?c%d",
        "cwd/reports/jsonfifo",
        "cwd/reports/huge",
        "cwd/reports/trunc",
    ] {
        set(rel);
    }
    let reports = v.join("cwd/reports");
    std::fs::remove_file(reports.join("jsonfifo/report.json")).unwrap();
    let fifo_ok = mkfifo(&reports.join("jsonfifo/report.json")).is_ok();
    std::fs::File::create(reports.join("huge/report.json")).unwrap().set_len(65 << 20).unwrap();
    std::fs::write(reports.join("trunc/report.json"), "{\"schema\": \"inquiry.eval.report/v1\", \"name\": \"tr")
        .unwrap();
    for (rel, html) in [("evil", "link"), ("fifo", "fifo"), ("nomarker", "file")] {
        let d = reports.join(rel);
        std::fs::create_dir_all(&d).unwrap();
        if rel != "nomarker" {
            std::fs::write(d.join(".inquiry-report"), "{}").unwrap();
        }
        match html {
            "link" => std::os::unix::fs::symlink("../../../secret.txt", d.join("report.html")).unwrap(),
            "fifo" => {
                let _ = mkfifo(&d.join("report.html"));
            }
            _ => std::fs::write(d.join("report.html"), "<html>TOP-SECRET-42</html>").unwrap(),
        }
    }
    if !fifo_ok {
        eprintln!("skipped: the FIFO report sets: mkfifo is not available");
    }
    let before = snapshot(v);
    let (server, port) =
        match start(&["view", "reports", "../reports"], &v.join("cwd"), "/", &logs.path().join("view.log")) {
            Ok(s) => s,
            Err(e) => panic!("inquiry view over odd report sets did not start: {e}"),
        };
    let get = |name, path: &str, status, expect: &[&'static str]| req(name, "GET", path, "", status, expect);
    let secret = "TOP-SECRET";
    let long = format!("/r/{}", "a".repeat(10_000));
    let reqs = vec![
        get("view: index with FIFO, huge and truncated report.json", "/", 200, &["6 report set(s)"]),
        get("view: a plain set", "/r/reports/ok/", 200, &["<html"]),
        get("view: its report.html", "/r/reports/ok/report.html", 200, &["<html"]),
        get("view: the same URL from a second root", "/r/reports/ok~2/", 200, &["<html"]),
        get("view: a set named with # ? %", "/r/reports/a%23b%3Fc%25d/", 200, &["<html"]),
        get("view: a set whose report.json is a FIFO", "/r/reports/jsonfifo/", 200, &["<html"]),
        get("view: report.html links outside the roots", "/r/reports/evil/", 404, &[]).reject(secret),
        get("view: the link itself", "/r/reports/evil/report.html", 404, &[]).reject(secret),
        get("view: report.html is a FIFO", "/r/reports/fifo/", 404, &[]),
        get("view: a directory without the marker", "/r/reports/nomarker/", 404, &[]).reject(secret),
        get("view: dot-dot", "/r/../secret.txt", 404, &[]).reject(secret),
        get("view: encoded dot-dot", "/r/%2e%2e/%2e%2e/secret.txt", 404, &[]).reject(secret),
        get("view: dot-dot inside a set", "/r/reports/ok/../../../secret.txt", 404, &[]).reject(secret),
        get("view: report.json is not served", "/r/reports/ok/report.json", 404, &[]),
        get("view: traces are not served", "/r/reports/ok/cases/heating-hh-1001.json", 404, &[]),
        get("view: NUL in the path", "/r/reports/ok%00/", 404, &[]),
        get("view: empty set path", "/r/", 404, &[]),
        get("view: 10,000-character path", &long, 404, &[]),
        get("view: markup in the query is not echoed", "/?q=%3Cscript%3Ealert(1)%3C/script%3E", 200, &[])
            .reject("<script>alert"),
        req("view: POST", "POST", "/", "{}", 405, &[]),
        req("view: DELETE a set", "DELETE", "/r/reports/ok/", "", 405, &[]),
        get("view: foreign Origin", "/", 403, &["Origin"]).h("Origin", "http://evil.example"),
        get("view: foreign Host", "/", 403, &["Host"]).h("Host", "evil.example:{port}"),
        get("view: Host on another port", "/", 403, &["Host"]).h("Host", "127.0.0.1:1"),
        req("view: half-sent header is closed", "GET", "/", "", 0, &[]),
    ];
    let mut problems = run_all(port, &reqs);
    drop(server);
    problems.extend(touched(&before, &snapshot(v), &[]));
    eprintln!("{} view requests: {} misbehaved", reqs.len(), problems.len());
    assert!(problems.is_empty(), "{} view requests misbehaved:\n\n{}", problems.len(), problems.join("\n\n"));
}

#[test]
fn malformed_mcp_http_requests_get_400_or_415() {
    let logs = tempfile::tempdir().unwrap();
    let (server, port) = start(&["serve-mcp", "--no-cache", "--http"], &root(), "/mcp", &logs.path().join("mcp.log"))
        .unwrap_or_else(|e| panic!("serve-mcp --http did not start: {e}"));
    let accept = "application/json, text/event-stream";
    let post = |name, body: &str, status| req(name, "POST", "/mcp", body, status, &[]).h("Accept", accept);
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bad","version":"0"}}}"#;
    let reqs = vec![
        post("mcp: malformed JSON", "{\"jsonrpc\": ", 400),
        post("mcp: empty body", "", 400),
        post("mcp: a batch", &format!("[{init}]"), 400),
        post("mcp: not JSON at all", "hello", 400),
        post("mcp: text/plain", init, 415).h("Content-Type", "text/plain"),
        post("mcp: foreign Origin", init, 403).h("Origin", "http://evil.example"),
    ];
    let problems = run_all(port, &reqs);
    drop(server);
    assert!(problems.is_empty(), "{} MCP requests misbehaved:\n\n{}", problems.len(), problems.join("\n\n"));
}
