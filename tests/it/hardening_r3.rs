//! Issue 26: regression tests for the hardening findings on the desk, the
//! ticket commands, the viewer, the response cache and the run-to-run
//! commands, one or more per item, named after it. Each drives the real binary.

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::desk::read_events;
use crate::support::root;

pub(crate) fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_inquiry"));
    c.current_dir(root())
        .env_remove("INQUIRY_HOME")
        .env_remove("GITHUB_STEP_SUMMARY")
        .env_remove("INQUIRY_DESK_TOKEN")
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .env("NO_COLOR", "1");
    c
}

pub(crate) fn run(args: &[&str]) -> (Option<i32>, String, String) {
    let out = bin().args(args).output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

pub(crate) fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// SHA-256 of every file under `dir` (path → digest), to show nothing changed.
pub(crate) fn snapshot(dir: &Path) -> Vec<(PathBuf, String)> {
    use sha2::Digest as _;
    let mut out = vec![];
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().filter_map(Result::ok) {
            let p = e.path();
            let meta = std::fs::symlink_metadata(&p).unwrap();
            if meta.is_dir() {
                stack.push(p);
            } else if meta.is_file() {
                let digest = sha2::Sha256::digest(std::fs::read(&p).unwrap());
                out.push((p, format!("{digest:x}")));
            }
        }
    }
    out.sort();
    out
}

/// A server process (`serve` or `view`) killed on drop.
pub(crate) struct Server {
    child: Child,
    port: u16,
    log: PathBuf,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    pub(crate) fn start(args: &[&str], log: PathBuf) -> Self {
        let port = free_port();
        let child = bin()
            .args(args)
            .args(["--bind", &format!("127.0.0.1:{port}")])
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        let mut server = Server { child, port, log };
        let deadline = Instant::now() + Duration::from_secs(60);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Some(status) = server.child.try_wait().unwrap() {
                panic!("server exited {status}: {}", std::fs::read_to_string(&server.log).unwrap_or_default());
            }
            assert!(Instant::now() < deadline, "server did not listen");
            std::thread::sleep(Duration::from_millis(50));
        }
        server
    }

    pub(crate) fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    pub(crate) fn raw(&self) -> TcpStream {
        let s = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        s
    }

    /// Sends SIGTERM and waits at most `limit` for the exit.
    pub(crate) fn terminate_within(&mut self, limit: Duration) -> bool {
        let pid = self.child.id().to_string();
        assert!(Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline {
            if self.child.try_wait().unwrap().is_some() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        false
    }
}

/// The status line of a raw HTTP answer, or "" when the server closed the connection.
pub(crate) fn read_status(stream: &mut TcpStream) -> String {
    let mut buf = vec![0u8; 4096];
    let n = stream.read(&mut buf).unwrap_or(0);
    String::from_utf8_lossy(&buf[..n]).lines().next().unwrap_or("").to_owned()
}

/// Holds `BEGIN IMMEDIATE` on a database from another connection for `hold`.
pub(crate) fn hold_write_lock(db: &Path, hold: Duration) -> std::thread::JoinHandle<()> {
    let db = db.to_owned();
    let (ready_tx, ready_rx) = std::sync::mpsc::channel();
    let handle = std::thread::spawn(move || {
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute_batch("BEGIN IMMEDIATE").unwrap();
        ready_tx.send(()).unwrap();
        std::thread::sleep(hold);
        conn.execute_batch("ROLLBACK").unwrap();
    });
    ready_rx.recv().unwrap();
    handle
}

pub(crate) const VIEWING: &str = "Can I view HH-1001 on Saturday at 11:00? Please arrange a viewing.";

pub(crate) async fn post_inquiry(http: &reqwest::Client, server: &Server, inquiry: &str) -> Vec<crate::desk::Sse> {
    let r = http.post(server.url("/api/inquiries")).json(&json!({"inquiry": inquiry})).send().await.unwrap();
    assert_eq!(r.status(), 200);
    read_events(r, |_| false).await
}

pub(crate) fn result_of(events: &[crate::desk::Sse]) -> Value {
    events
        .iter()
        .find(|e| e.name == "result")
        .map(|e| e.data.clone())
        .unwrap_or_else(|| panic!("no result: {events:?}"))
}

// ---- item 1

/// `Some(prefix)` that runs a command as an unprivileged user when this
/// process is root (root writes read-only files, so the test needs another user).
pub(crate) fn unprivileged() -> Option<Vec<&'static str>> {
    let uid = Command::new("id").arg("-u").output().map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned());
    if uid.as_deref().is_ok_and(|u| u != "0") {
        return Some(vec![]);
    }
    let prefix = vec!["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"];
    let ok = Command::new(prefix[0])
        .args(&prefix[1..])
        .arg(env!("CARGO_BIN_EXE_inquiry"))
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    ok.then_some(prefix)
}

#[test]
fn item_1_the_desk_refuses_to_start_on_a_database_it_cannot_write() {
    let Some(prefix) = unprivileged() else {
        eprintln!("skipped: cannot run the binary as an unprivileged user here (setpriv)");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let dbdir = dir.path().join("desk");
    std::fs::create_dir(&dbdir).unwrap();
    let db = dbdir.join("desk.sqlite");
    drop(inquiry::desk::TicketStore::open(&db).unwrap());
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o444)).unwrap();
    std::fs::set_permissions(&dbdir, std::fs::Permissions::from_mode(0o555)).unwrap();
    let before = snapshot(&dbdir);
    let mut cmd = Command::new(prefix.first().copied().unwrap_or(env!("CARGO_BIN_EXE_inquiry")));
    if !prefix.is_empty() {
        cmd.args(&prefix[1..]).arg(env!("CARGO_BIN_EXE_inquiry"));
    }
    let out = cmd
        .args(["serve", "--no-cache", "--db", db.to_str().unwrap(), "--bind", &format!("127.0.0.1:{}", free_port())])
        .current_dir(root())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("desk.sqlite") && err.contains("cannot be written"), "{err}");
    assert_eq!(snapshot(&dbdir), before);
    std::fs::set_permissions(&dbdir, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn item_1_a_hand_off_that_cannot_be_stored_is_reported_and_never_promised() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("desk.sqlite");
    let server = Server::start(&["serve", "--no-cache", "--db", db.to_str().unwrap()], dir.path().join("serve.log"));
    let http = reqwest::Client::builder().timeout(Duration::from_secs(60)).build().unwrap();
    assert_eq!(http.get(server.url("/healthz")).send().await.unwrap().status(), 200);

    // Another process holds the write lock past the store's busy timeout: every ticket write fails.
    let lock = hold_write_lock(&db, Duration::from_secs(16));
    let events = post_inquiry(&http, &server, VIEWING).await;
    let errors: Vec<&Value> = events.iter().filter(|e| e.name == "error").map(|e| &e.data).collect();
    assert!(
        errors.iter().any(|e| e["kind"] == "ticket_not_stored" && e["fatal"] == false),
        "an error event names the lost hand-off: {events:?}"
    );
    let result = result_of(&events);
    let reply = result["reply"].as_str().unwrap();
    assert_eq!(reply, inquiry::agent::HANDOFF_NOT_STORED_REPLY, "{result:#}");
    assert!(!reply.to_lowercase().contains("will get back to you"), "{reply}");
    assert_eq!(result["outcome"], json!({"kind": "forced_handoff", "cause": "handoff_not_stored"}));
    assert_eq!(result["handoffs"], json!([]), "no ticket claimed");
    let health = http.get(server.url("/healthz")).send().await.unwrap();
    assert_eq!(health.status(), 503);
    let body: Value = health.json().await.unwrap();
    assert!(body["error"].as_str().unwrap().contains("ticket write failed"), "{body}");
    lock.join().unwrap();

    // Writes work again: the next hand-off is stored and the desk is healthy.
    let events = post_inquiry(&http, &server, VIEWING).await;
    let result = result_of(&events);
    assert_eq!(result["handoffs"][0]["reason"], "viewing_request", "{result:#}");
    assert_eq!(http.get(server.url("/healthz")).send().await.unwrap().status(), 200);
    let store = inquiry::desk::TicketStore::open_read_only(&db).unwrap();
    assert_eq!(store.list(None).unwrap().len(), 1);
}

// ---- item 2

/// An Anthropic agent that hands every inquiry to a person, then says so.
pub(crate) fn handing_off_agent(request: &wiremock::Request) -> wiremock::ResponseTemplate {
    let body: Value = serde_json::from_slice(&request.body).unwrap_or_default();
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let has_result = messages
        .iter()
        .any(|m| m["content"].as_array().is_some_and(|blocks| blocks.iter().any(|b| b["type"] == "tool_result")));
    let usage = json!({"input_tokens": 500, "output_tokens": 30});
    let reply = if has_result {
        json!({"id": "m2", "type": "message", "role": "assistant", "model": "claude-test",
               "content": [{"type": "text", "text": "Thank you. I have passed your request to a colleague, who will get back to you."}],
               "stop_reason": "end_turn", "usage": usage})
    } else {
        json!({"id": "m1", "type": "message", "role": "assistant", "model": "claude-test",
               "content": [{"type": "tool_use", "id": "t1", "name": "hand_off_to_human",
                            "input": {"reason": "viewing_request", "listingId": null, "summary": "Customer asks for a viewing; please call back.", "contactEmail": null}}],
               "stop_reason": "tool_use", "usage": usage})
    };
    wiremock::ResponseTemplate::new(200).set_body_json(reply)
}

#[test]
fn item_2_a_recorded_run_with_hand_offs_replays_later_at_any_concurrency() {
    use wiremock::matchers::{method, path};
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = rt.block_on(wiremock::MockServer::start());
    rt.block_on(
        wiremock::Mock::given(method("POST")).and(path("/v1/messages")).respond_with(handing_off_agent).mount(&server),
    );
    let dir = tempfile::tempdir().unwrap();
    let (out, cache) = (dir.path().join("out"), dir.path().join("cache"));
    let eval = |name: &str, jobs: &str, mode: &str| {
        bin()
            .args(["eval", "--subset", "--model", "anthropic:claude-test", "-j", jobs, "--cache", mode])
            .args(["--out", out.to_str().unwrap(), "--cache-dir", cache.to_str().unwrap(), "--name", name])
            .env("ANTHROPIC_API_KEY", "sk-ant-test")
            .env("ANTHROPIC_BASE_URL", server.uri())
            .env("INQUIRY_MODEL_MAX_ATTEMPTS", "1")
            .output()
            .unwrap()
    };
    let recorded = eval("recorded", "1", "use");
    let err = String::from_utf8_lossy(&recorded.stderr);
    assert!(matches!(recorded.status.code(), Some(0 | 1)), "{err}");
    let sent = rt.block_on(server.received_requests()).unwrap().len();
    assert_eq!(sent, 24, "12 cases × 2 model calls: {err}");
    // The ticket's createdAt has one-second resolution: replay on another second.
    std::thread::sleep(Duration::from_millis(1100));
    for (name, jobs) in [("replayed-1", "1"), ("replayed-4", "4")] {
        let replayed = eval(name, jobs, "replay");
        let err = String::from_utf8_lossy(&replayed.stderr);
        assert_eq!(replayed.status.code(), recorded.status.code(), "{name}: {err}");
        assert!(err.contains("24 replayed from the response cache"), "{name}: {err}");
        assert_eq!(rt.block_on(server.received_requests()).unwrap().len(), sent, "{name} sent requests");
    }
}

// ---- item 3

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn item_3_the_desk_answers_while_another_process_holds_the_lock() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("desk.sqlite");
    let server = Server::start(&["serve", "--no-cache", "--db", db.to_str().unwrap()], dir.path().join("serve.log"));
    let http = reqwest::Client::builder().timeout(Duration::from_secs(30)).build().unwrap();
    let events = post_inquiry(&http, &server, VIEWING).await;
    let id = result_of(&events)["handoffs"][0]["ticketId"].as_str().unwrap().to_owned();

    let lock = hold_write_lock(&db, Duration::from_secs(12));
    let patches: Vec<_> = (0..4)
        .map(|_| {
            let (http, url) = (http.clone(), server.url(&format!("/api/handoffs/{id}")));
            tokio::spawn(async move {
                let r = http.patch(url).json(&json!({"status": "in_progress"})).send().await.unwrap();
                (r.status().as_u16(), r.text().await.unwrap())
            })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(300)).await;
    for path in ["/", "/healthz", "/api/handoffs"] {
        let started = Instant::now();
        let r = http.get(server.url(path)).send().await.unwrap();
        assert!(started.elapsed() < Duration::from_secs(2), "{path} took {:?} ({})", started.elapsed(), r.status());
    }
    for p in patches {
        let (status, body) = p.await.unwrap();
        assert_eq!(status, 503, "{body}");
        assert!(body.contains("desk.sqlite") && body.contains("busy"), "{body}");
    }
    lock.join().unwrap();
    let r =
        http.patch(server.url(&format!("/api/handoffs/{id}"))).json(&json!({"status": "done"})).send().await.unwrap();
    assert_eq!(r.status(), 200);
}

// ---- item 4

#[test]
fn item_4_serve_and_view_close_stalled_requests_and_stop_on_sigterm() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("desk.sqlite");
    let reports = dir.path().join("reports");
    std::fs::create_dir(&reports).unwrap();
    let servers = [
        Server::start(&["serve", "--no-cache", "--db", db.to_str().unwrap()], dir.path().join("serve.log")),
        Server::start(&["view", reports.to_str().unwrap()], dir.path().join("view.log")),
    ];
    for mut server in servers {
        let host = format!("Host: 127.0.0.1:{}\r\n", server.port);
        // A huge announced body is refused before it is sent.
        let mut s = server.raw();
        write!(s, "POST /api/inquiries HTTP/1.1\r\n{host}Content-Type: application/json\r\nContent-Length: 1000000000000\r\n\r\n").unwrap();
        let started = Instant::now();
        let status = read_status(&mut s);
        assert!(status.contains("413") || status.contains("405") || status.contains("404"), "{status}");
        assert!(started.elapsed() < Duration::from_secs(3), "{:?}", started.elapsed());
        // A half-sent header is closed by the server.
        let mut half = server.raw();
        write!(half, "GET / HTTP/1.1\r\n{host}").unwrap();
        let started = Instant::now();
        let mut buf = [0u8; 256];
        let n = half.read(&mut buf).unwrap_or(0);
        assert!(started.elapsed() < Duration::from_secs(20), "held open {:?}", started.elapsed());
        assert!(n == 0 || String::from_utf8_lossy(&buf[..n]).contains("408"), "{}", String::from_utf8_lossy(&buf[..n]));
        // SIGTERM ends the process even while a client holds a half-sent request.
        let mut stalled = server.raw();
        write!(stalled, "POST /api/inquiries HTTP/1.1\r\n{host}").unwrap();
        assert!(server.terminate_within(Duration::from_secs(10)), "{}", std::fs::read_to_string(&server.log).unwrap());
        drop(stalled);
    }
}

// ---- item 5

pub(crate) fn foreign_db(path: &Path, sql: &str) {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.execute_batch(sql).unwrap();
}

#[test]
fn item_5_other_applications_databases_are_never_written() {
    let dir = tempfile::tempdir().unwrap();
    let other = dir.path().join("other.sqlite");
    foreign_db(&other, "CREATE TABLE accounts (id INTEGER, owner TEXT); INSERT INTO accounts VALUES (1, 'x');");
    let with_tickets = dir.path().join("tickets.sqlite");
    foreign_db(&with_tickets, "CREATE TABLE tickets (id INTEGER, title TEXT); INSERT INTO tickets VALUES (1, 'bug');");
    let cache_dir = dir.path().join("cache");
    std::fs::create_dir(&cache_dir).unwrap();
    drop(inquiry::desk::TicketStore::open(&cache_dir.join("cache.sqlite")).unwrap());
    let before = snapshot(dir.path());
    for (args, expect) in [
        (vec!["tickets", "list", "--db", other.to_str().unwrap()], "not an inquiry desk database"),
        (vec!["tickets", "show", "TKT-0001", "--db", other.to_str().unwrap()], "not an inquiry desk database"),
        (vec!["tickets", "close", "TKT-0001", "--db", other.to_str().unwrap()], "not an inquiry desk database"),
        (vec!["serve", "--no-cache", "--db", with_tickets.to_str().unwrap()], "not an inquiry desk database"),
        (vec!["cache", "stats", "--cache-dir", cache_dir.to_str().unwrap()], "not an inquiry response cache"),
        (vec!["cache", "clear", "--cache-dir", cache_dir.to_str().unwrap()], "not an inquiry response cache"),
    ] {
        let (code, _, err) = run(&args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(err.contains(expect) && err.contains("nothing was written"), "{args:?}: {err}");
    }
    assert_eq!(snapshot(dir.path()), before, "no file changed, none was added");

    // Reading our own database writes nothing either.
    let desk = dir.path().join("desk.sqlite");
    drop(inquiry::desk::TicketStore::open(&desk).unwrap());
    let main_before = std::fs::read(&desk).unwrap();
    let (code, _, err) = run(&["tickets", "list", "--db", desk.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(std::fs::read(&desk).unwrap(), main_before);
}

// ---- item 6

#[test]
fn item_6_keys_echoed_in_successful_answers_are_redacted_everywhere() {
    use base64::Engine as _;
    use wiremock::matchers::{method, path};
    const KEY: &str = "sk-ant-api03-SECRETKEY0123456789abcdefXYZ";
    let b64 = base64::engine::general_purpose::STANDARD.encode(format!("user:{KEY}"));
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = rt.block_on(wiremock::MockServer::start());
    let echo = format!("Debug: x-api-key {KEY} basic {b64}. Heating is included [HH-1001#s5].");
    rt.block_on(
        wiremock::Mock::given(method("POST"))
            .and(path("/v1/messages"))
            .respond_with(wiremock::ResponseTemplate::new(200).set_body_json(json!({
                "id": "m", "type": "message", "role": "assistant", "model": "claude-test",
                "content": [{"type": "text", "text": echo}],
                "stop_reason": "end_turn", "usage": {"input_tokens": 10, "output_tokens": 10}})))
            .mount(&server),
    );
    let dir = tempfile::tempdir().unwrap();
    let (out, cache) = (dir.path().join("out"), dir.path().join("cache"));
    let output = bin()
        .args(["eval", "--case", "heating-hh-1001", "--model", "anthropic:claude-test"])
        .args(["--out", out.to_str().unwrap(), "--cache-dir", cache.to_str().unwrap()])
        .args(["--junit", dir.path().join("junit.xml").to_str().unwrap()])
        .env("ANTHROPIC_API_KEY", KEY)
        .env("ANTHROPIC_BASE_URL", server.uri())
        .env("INQUIRY_MODEL_MAX_ATTEMPTS", "1")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(matches!(output.status.code(), Some(0 | 1)), "{err}");
    let core = &b64[8..b64.len() - 8];
    for (file, _) in snapshot(dir.path()) {
        let bytes = std::fs::read(&file).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        assert!(!text.contains(KEY) && !text.contains(&KEY[..20]), "{} holds the key", file.display());
        assert!(!text.contains(core), "{} holds the base64 key", file.display());
    }
    assert!(!err.contains(KEY) && !String::from_utf8_lossy(&output.stdout).contains(KEY));
}

// ---- item 7

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn item_7_view_serves_nothing_outside_its_roots_and_odd_names_work() {
    let dir = tempfile::tempdir().unwrap();
    let roots = dir.path().join("reports");
    std::fs::create_dir(&roots).unwrap();
    std::fs::write(dir.path().join("secret.txt"), "TOP SECRET").unwrap();
    let make = |name: &str| {
        let set = roots.join(name);
        std::fs::create_dir(&set).unwrap();
        std::fs::write(set.join(".inquiry-report"), "").unwrap();
        std::fs::write(set.join("report.json"), json!({"name": name, "date": "2026-12-01T00:00:00Z"}).to_string())
            .unwrap();
        set
    };
    let evil = make("evil");
    std::os::unix::fs::symlink(dir.path().join("secret.txt"), evil.join("report.html")).unwrap();
    let odd = make("a#b?c%d");
    std::fs::write(odd.join("report.html"), "<p>odd</p>").unwrap();
    let fifo = make("fifo");
    std::fs::remove_file(fifo.join("report.json")).unwrap();
    let made = Command::new("mkfifo").arg(fifo.join("report.json")).status().is_ok_and(|s| s.success());
    std::fs::write(fifo.join("report.html"), "<p>fifo</p>").unwrap();

    let mut server = Server::start(&["view", roots.to_str().unwrap()], dir.path().join("view.log"));
    let http = reqwest::Client::builder().timeout(Duration::from_secs(10)).build().unwrap();
    let index = http.get(server.url("/")).send().await.unwrap().text().await.unwrap();
    // A set's URL is its directory path (here absolute, under the temp dir), percent-encoded.
    let rel: Vec<String> = roots
        .components()
        .filter_map(|c| match c {
            std::path::Component::Normal(n) => Some(n.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect();
    let url = |set: &str| format!("/r/{}/{set}/", rel.join("/"));
    assert!(!index.contains("evil&#x2f;\""), "a linked report.html is not listed: {index}");
    let r = http.get(server.url(&url("evil"))).send().await.unwrap();
    assert_eq!(r.status(), 404);
    assert!(!r.text().await.unwrap().contains("SECRET"));
    assert!(index.contains("a%23b%3Fc%25d&#x2f;\""), "{index}");
    let r = http.get(server.url(&url("a%23b%3Fc%25d"))).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.text().await.unwrap(), "<p>odd</p>");
    if made {
        let r = http.get(server.url(&url("fifo"))).send().await.unwrap();
        assert_eq!(r.status(), 200, "a FIFO report.json does not block the viewer");
    } else {
        eprintln!("skipped: mkfifo is not available");
    }
    assert!(server.terminate_within(Duration::from_secs(10)));
}
