//! `inquiry serve` (the desk) and `inquiry tickets`, through the built binary
//! on loopback: every endpoint, the security answers, a restart, and a
//! SIGKILL while inquiries are streaming.

use std::collections::{HashMap, HashSet};
use std::io::{BufRead as _, BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};
use tokio_stream::StreamExt as _;

use crate::support::{root, texts};

/// A running `inquiry serve` on a free loopback port; killed (SIGKILL) on drop.
pub struct Desk {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    port: u16,
    db: PathBuf,
    extra: Vec<String>,
    log: PathBuf,
}

impl Drop for Desk {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

impl Desk {
    /// Starts the desk on `db` with extra flags and waits until `/healthz` answers.
    pub async fn start(db: &Path, extra: &[&str]) -> Self {
        Self::start_on(db, extra, free_port(), &[]).await
    }

    /// Like [`Desk::start`], with extra environment variables (a provider key);
    /// a restart does not keep them.
    pub async fn start_with_env(db: &Path, extra: &[&str], env: &[(&str, &str)]) -> Self {
        Self::start_on(db, extra, free_port(), env).await
    }

    async fn start_on(db: &Path, extra: &[&str], port: u16, env: &[(&str, &str)]) -> Self {
        let log = db.with_extension(format!("{port}.log"));
        let child = Command::new(env!("CARGO_BIN_EXE_inquiry"))
            .envs(env.iter().copied())
            .args(["serve", "--no-cache", "--db"])
            .arg(db)
            .args(["--bind", &format!("127.0.0.1:{port}")])
            .args(extra)
            .current_dir(root())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .expect("spawn inquiry serve");
        let mut desk = Desk {
            child,
            base: format!("http://127.0.0.1:{port}"),
            port,
            db: db.to_owned(),
            extra: extra.iter().map(|s| s.to_string()).collect(),
            log,
        };
        let http = reqwest::Client::new();
        for _ in 0..300 {
            if let Ok(r) = http.get(format!("{}/healthz", desk.base)).send().await {
                assert_eq!(r.status(), 200);
                return desk;
            }
            if let Some(status) = desk.child.try_wait().unwrap() {
                panic!("inquiry serve exited {status}: {}", std::fs::read_to_string(&desk.log).unwrap_or_default());
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let _ = desk.child.kill();
        panic!("inquiry serve did not answer /healthz: {}", std::fs::read_to_string(&desk.log).unwrap_or_default());
    }

    /// Kills the server with SIGKILL and starts it again on the same port and database.
    pub async fn restart(mut self) -> Self {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
        let extra: Vec<String> = std::mem::take(&mut self.extra);
        let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
        Self::start_on(&self.db.clone(), &extra, self.port, &[]).await
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }
}

/// One server-sent event.
#[derive(Debug, Clone)]
pub struct Sse {
    pub name: String,
    pub data: Value,
}

/// Reads an SSE body until it ends (or `stop` says so), returning the events.
pub async fn read_events(response: reqwest::Response, mut stop: impl FnMut(&Sse) -> bool) -> Vec<Sse> {
    let mut stream = response.bytes_stream();
    let mut buffer = String::new();
    let mut events = vec![];
    while let Some(chunk) = stream.next().await {
        let Ok(chunk) = chunk else { break };
        buffer.push_str(&String::from_utf8_lossy(&chunk));
        while let Some(end) = buffer.find("\n\n") {
            let block: String = buffer.drain(..end + 2).collect();
            let mut name = "message".to_owned();
            let mut data = String::new();
            for line in block.lines() {
                if let Some(v) = line.strip_prefix("event:") {
                    name = v.trim().to_owned();
                } else if let Some(v) = line.strip_prefix("data:") {
                    data.push_str(v.strip_prefix(' ').unwrap_or(v));
                }
            }
            if data.is_empty() {
                continue; // keep-alive comment
            }
            let event = Sse { name, data: serde_json::from_str(&data).unwrap_or(Value::String(data)) };
            let done = stop(&event);
            events.push(event);
            if done {
                return events;
            }
        }
    }
    events
}

async fn ask(http: &reqwest::Client, desk: &Desk, inquiry: &str) -> Vec<Sse> {
    let r = http.post(desk.url("/api/inquiries")).json(&json!({"inquiry": inquiry})).send().await.unwrap();
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    assert_eq!(r.headers()["content-type"], "text/event-stream");
    read_events(r, |_| false).await
}

async fn json_of(r: reqwest::Response) -> (u16, Value) {
    let status = r.status().as_u16();
    let ct = r.headers().get("content-type").map(|v| v.to_str().unwrap().to_owned()).unwrap_or_default();
    let text = r.text().await.unwrap();
    assert!(ct.starts_with("application/json"), "{status}: content-type {ct:?}: {text}");
    (status, serde_json::from_str(&text).unwrap_or_else(|e| panic!("{status}: not JSON ({e}): {text}")))
}

const OPENING: &str = "A flat in Hamburg under €2,000, I have a dog, is heating included, can I view it on Saturday?";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_endpoint_and_its_errors() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("desk.sqlite");
    let desk = Desk::start(&db, &[]).await;
    let http = reqwest::Client::new();

    // The opening inquiry streams its tool calls, the viewing ticket, then the result.
    let events = ask(&http, &desk, OPENING).await;
    let names: Vec<&str> = events.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names.last(), Some(&"result"), "{names:?}");
    let result = &events.last().unwrap().data;
    let trace = result["trace"].as_array().unwrap();
    let calls: Vec<&Sse> = events.iter().filter(|e| e.name == "tool_call").collect();
    let results: Vec<&Sse> = events.iter().filter(|e| e.name == "tool_result").collect();
    assert_eq!((calls.len(), results.len()), (trace.len(), trace.len()), "{names:?}");
    for (event, entry) in results.iter().zip(trace) {
        assert_eq!(&event.data, entry, "each tool_result is the trace entry");
    }
    assert_eq!(calls[0].data["tool"], "search_listings");
    assert_eq!(calls[0].data["arguments"]["city"], "Hamburg");
    let tickets: Vec<&Sse> = events.iter().filter(|e| e.name == "ticket").collect();
    assert_eq!(tickets.len(), result["handoffs"].as_array().unwrap().len());
    let viewing = tickets.iter().find(|t| t.data["reason"] == "viewing_request").expect("a viewing ticket");
    let id = viewing.data["ticketId"].as_str().unwrap().to_owned();
    // Each ticket event comes after its hand_off_to_human result and before the result.
    let at = |name: &str, pred: &dyn Fn(&Sse) -> bool| events.iter().position(|e| e.name == name && pred(e)).unwrap();
    assert!(at("tool_result", &|e| e.data["tool"] == "hand_off_to_human") < at("ticket", &|_| true));

    // The queue lists it, filtered by status.
    let (status, list) = json_of(http.get(desk.url("/api/handoffs?status=open")).send().await.unwrap()).await;
    assert_eq!(status, 200);
    let listed: Vec<&str> =
        list["tickets"].as_array().unwrap().iter().map(|t| t["ticketId"].as_str().unwrap()).collect();
    assert!(listed.contains(&id.as_str()), "{list}");
    assert_eq!(list["count"], listed.len());
    let (_, done) = json_of(http.get(desk.url("/api/handoffs?status=done")).send().await.unwrap()).await;
    assert_eq!(done["count"], 0);
    let (status, bad) = json_of(http.get(desk.url("/api/handoffs?status=closed")).send().await.unwrap()).await;
    assert_eq!((status, bad["field"].as_str()), (400, Some("status")), "{bad}");

    // The live stream reports a change made with PATCH.
    let since = list["lastEvent"].as_i64().unwrap();
    let stream = http.get(desk.url(&format!("/api/handoffs/stream?since={since}"))).send().await.unwrap();
    assert_eq!(stream.status(), 200);
    let watcher = tokio::spawn(read_events(stream, |e| e.name == "ticket"));
    tokio::time::sleep(Duration::from_millis(200)).await;
    let patch = |body: Value| http.patch(desk.url(&format!("/api/handoffs/{id}"))).json(&body).send();
    let (status, changed) =
        json_of(patch(json!({"status": "in_progress", "note": "Calling back at 10"})).await.unwrap()).await;
    assert_eq!(status, 200, "{changed}");
    assert_eq!(
        (changed["status"].as_str(), changed["note"].as_str()),
        (Some("in_progress"), Some("Calling back at 10"))
    );
    let seen =
        tokio::time::timeout(Duration::from_secs(10), watcher).await.expect("the stream reports the change").unwrap();
    assert_eq!(seen[0].data["ticketId"], id.as_str());
    assert_eq!(seen[0].data["status"], "in_progress");
    let (status, detail) = json_of(http.get(desk.url(&format!("/api/handoffs/{id}"))).send().await.unwrap()).await;
    assert_eq!(status, 200);
    let steps: Vec<&str> =
        detail["history"].as_array().unwrap().iter().map(|e| e["status"].as_str().unwrap()).collect();
    assert_eq!(steps, ["open", "in_progress"]);

    // A malformed PATCH names its field; an unknown ticket is 404.
    for (body, field) in [
        (json!({"status": "closed"}), "status"),
        (json!({"status": 3}), "status"),
        (json!({"note": ["x"]}), "note"),
        (json!({"colour": "red"}), "colour"),
        (json!({}), "status"),
    ] {
        let (status, e) = json_of(patch(body.clone()).await.unwrap()).await;
        assert_eq!((status, e["field"].as_str()), (400, Some(field)), "{body}: {e}");
    }
    let not_json = http
        .patch(desk.url(&format!("/api/handoffs/{id}")))
        .header("content-type", "application/json")
        .body("{status")
        .send()
        .await
        .unwrap();
    assert_eq!(json_of(not_json).await.0, 400);
    let form = http
        .patch(desk.url(&format!("/api/handoffs/{id}")))
        .header("content-type", "application/x-www-form-urlencoded")
        .body("status=done")
        .send()
        .await
        .unwrap();
    assert_eq!(json_of(form).await.0, 415, "JSON bodies only");
    let (status, e) =
        json_of(http.patch(desk.url("/api/handoffs/TKT-9999")).json(&json!({"status": "done"})).send().await.unwrap())
            .await;
    assert_eq!((status, e["field"].as_str()), (404, Some("id")));

    // Sources: a cited chunk with its listing, a policy section, a listing id; 404 otherwise.
    let cited = result["citations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .find(|c| c.contains('#'))
        .expect("a passage citation");
    let (status, source) =
        json_of(http.get(desk.url(&format!("/api/sources/{}", cited.replace('#', "%23")))).send().await.unwrap()).await;
    assert_eq!(status, 200);
    assert_eq!(source["chunkId"], cited);
    let listing = cited.split('#').next().unwrap();
    assert_eq!(source["listing"]["id"], listing);
    let returned: Vec<&Value> = trace
        .iter()
        .filter(|t| t["tool"] == "search_knowledge")
        .flat_map(|t| t["result"]["results"].as_array().unwrap())
        .collect();
    let passage =
        returned.iter().find(|r| r["chunkId"] == cited).expect("the cited passage came from search_knowledge");
    assert_eq!(source["text"], passage["text"], "the source is the passage the agent read");
    let (_, policy) = json_of(http.get(desk.url("/api/sources/policy:deposit%23amount")).send().await.unwrap()).await;
    assert_eq!((policy["kind"].as_str(), policy["policy"]["section"].as_str()), (Some("policy"), Some("Amount")));
    let (_, record) = json_of(http.get(desk.url(&format!("/api/sources/{listing}"))).send().await.unwrap()).await;
    assert_eq!(record["kind"], "listing_record");
    let (status, e) = json_of(http.get(desk.url("/api/sources/XX-0000%23s1")).send().await.unwrap()).await;
    assert_eq!((status, e["field"].as_str()), (404, Some("chunkId")), "{e}");

    // Inquiry bodies: too long (413 JSON), over the body limit (413), not JSON, bad history.
    let long = "Is heating included? ".repeat(200);
    let (status, e) =
        json_of(http.post(desk.url("/api/inquiries")).json(&json!({"inquiry": long})).send().await.unwrap()).await;
    assert_eq!((status, e["field"].as_str()), (413, Some("inquiry")), "{e}");
    assert!(e["error"].as_str().unwrap().contains("4000"), "{e}");
    let huge = json!({"inquiry": "x".repeat(100_000)}).to_string();
    let r = http
        .post(desk.url("/api/inquiries"))
        .header("content-type", "application/json")
        .body(huge)
        .send()
        .await
        .unwrap();
    // The body was refused unread, so the connection closes: a pooled
    // connection reused after it would fail the next request.
    assert_eq!(r.headers().get("connection").and_then(|v| v.to_str().ok()), Some("close"));
    assert_eq!(json_of(r).await.0, 413);
    let (status, e) = json_of(
        http.post(desk.url("/api/inquiries"))
            .json(&json!({"inquiry": "hi", "history": [{"inquiry": "a"}]}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!((status, e["field"].as_str()), (400, Some("history[0].reply")));
    let r = http.post(desk.url("/api/inquiries")).body("inquiry=hi").send().await.unwrap();
    assert_eq!(json_of(r).await.0, 415);

    // Foreign Origin on a change, a foreign Host (DNS rebinding), unknown paths.
    let r = http
        .patch(desk.url(&format!("/api/handoffs/{id}")))
        .header("origin", "http://evil.example")
        .json(&json!({"status": "done"}))
        .send()
        .await
        .unwrap();
    assert_eq!(json_of(r).await.0, 403);
    let r = http
        .post(desk.url("/api/inquiries"))
        .header("origin", "http://evil.example")
        .json(&json!({"inquiry": "hi there"}))
        .send()
        .await
        .unwrap();
    assert_eq!(json_of(r).await.0, 403);
    let r = http
        .patch(desk.url(&format!("/api/handoffs/{id}")))
        .header("origin", desk.base.clone())
        .json(&json!({"note": "same origin is fine"}))
        .send()
        .await
        .unwrap();
    assert_eq!(json_of(r).await.0, 200);
    let r = http.get(desk.url("/api/handoffs")).header("host", "evil.example").send().await.unwrap();
    assert_eq!(json_of(r).await.0, 403);
    assert_eq!(json_of(http.get(desk.url("/api/nothing")).send().await.unwrap()).await.0, 404);

    // Health and the page.
    let (status, health) = json_of(http.get(desk.url("/healthz")).send().await.unwrap()).await;
    assert_eq!((status, health["status"].as_str()), (200, Some("ok")));
    assert_eq!(health["tickets"]["in_progress"], 1);
    let page = http.get(desk.url("/")).send().await.unwrap();
    let csp = page.headers()["content-security-policy"].to_str().unwrap().to_owned();
    assert!(csp.contains("connect-src 'self'") && csp.contains("script-src 'sha256-"), "{csp}");
    assert!(page.text().await.unwrap().contains("id=\"queue\""));

    // `inquiry tickets` reads and changes the same database.
    let out = Command::new(env!("CARGO_BIN_EXE_inquiry"))
        .args(["tickets", "list", "--json", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    let (stdout, stderr) = texts(&out);
    assert!(out.status.success(), "{stderr}");
    let cli: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        cli.as_array().unwrap().len(),
        health["tickets"].as_object().unwrap().values().map(|v| v.as_u64().unwrap()).sum::<u64>() as usize
    );
    let out = Command::new(env!("CARGO_BIN_EXE_inquiry"))
        .args(["tickets", "close", &id, "--note", "Viewing booked for Saturday 11:00", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", texts(&out).1);
    let (_, detail) = json_of(http.get(desk.url(&format!("/api/handoffs/{id}"))).send().await.unwrap()).await;
    assert_eq!(detail["status"], "done");
    assert_eq!(detail["history"].as_array().unwrap().last().unwrap()["source"], "cli");
    let out = Command::new(env!("CARGO_BIN_EXE_inquiry"))
        .args(["tickets", "show", "TKT-9999", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(texts(&out).1.contains("no ticket TKT-9999"), "{}", texts(&out).1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_and_rate_limits() {
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::start(&dir.path().join("desk.sqlite"), &["--token", "s3cret-token", "--rate-limit", "2"]).await;
    let http = reqwest::Client::new();
    for auth in [None, Some("Bearer wrong"), Some("s3cret-token"), Some("Bearer s3cret-token-and-more")] {
        let mut r = http.get(desk.url("/api/handoffs"));
        if let Some(a) = auth {
            r = r.header("authorization", a);
        }
        let r = r.send().await.unwrap();
        assert_eq!(r.headers()["www-authenticate"], "Bearer realm=\"inquiry desk\"");
        assert_eq!(json_of(r).await.0, 401, "{auth:?}");
    }
    let ok = http.get(desk.url("/api/handoffs")).bearer_auth("s3cret-token").send().await.unwrap();
    assert_eq!(json_of(ok).await.0, 200);
    // Two inquiries a minute: the third is refused with 429 and Retry-After.
    let post = || {
        http.post(desk.url("/api/inquiries"))
            .bearer_auth("s3cret-token")
            .json(&json!({"inquiry": "Is HH-1001 still available?"}))
            .send()
    };
    for _ in 0..2 {
        let r = post().await.unwrap();
        assert_eq!(r.status(), 200);
        read_events(r, |_| false).await;
    }
    let r = post().await.unwrap();
    assert!(r.headers().contains_key("retry-after"));
    let (status, e) = json_of(r).await;
    assert_eq!(status, 429, "{e}");
    // Other endpoints are not rate-limited.
    assert_eq!(
        json_of(http.get(desk.url("/api/handoffs")).bearer_auth("s3cret-token").send().await.unwrap()).await.0,
        200
    );

    // Remote serving needs a token; a non-loopback address needs --allow-remote.
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_inquiry"))
            .arg("serve")
            .args(args)
            .arg("--db")
            .arg(dir.path().join("other.sqlite"))
            .current_dir(root())
            .output()
            .unwrap()
    };
    let out = run(&["--allow-remote", "--bind", "0.0.0.0:0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(texts(&out).1.contains("--allow-remote needs --token"), "{}", texts(&out).1);
    let out = run(&["--bind", "0.0.0.0:0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(texts(&out).1.contains("loopback"), "{}", texts(&out).1);
}

/// Twenty different viewing and price requests: each run of the demo files one ticket or more.
fn inquiries(n: usize) -> Vec<String> {
    let listings: Value =
        serde_json::from_str(&std::fs::read_to_string(root().join("data/listings.json")).unwrap()).unwrap();
    let ids: Vec<String> = listings.as_array().unwrap().iter().map(|l| l["id"].as_str().unwrap().to_owned()).collect();
    (0..n)
        .map(|i| {
            let id = &ids[i % ids.len()];
            match i % 3 {
                0 => format!("Can I view {id} on Saturday morning? This is customer number {i}."),
                1 => format!("Is a lower rent possible for {id}? I would offer 100 EUR less. Customer number {i}."),
                _ => format!("Kann ich {id} am Montag besichtigen? Kundennummer {i}."),
            }
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tickets_survive_sigkill_while_inquiries_stream() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("desk.sqlite");
    let desk = Desk::start(&db, &["--rate-limit", "1000"]).await;
    let http = reqwest::Client::new();
    let (finished_tx, mut finished_rx) = tokio::sync::mpsc::unbounded_channel::<()>();
    let mut streams = vec![];
    for inquiry in inquiries(20) {
        let http = http.clone();
        let url = desk.url("/api/inquiries");
        let finished_tx = finished_tx.clone();
        streams.push(tokio::spawn(async move {
            let r = http.post(url).json(&json!({"inquiry": inquiry})).send().await;
            let Ok(r) = r else { return vec![] };
            read_events(r, |e| {
                if e.name == "result" {
                    let _ = finished_tx.send(());
                }
                false
            })
            .await
        }));
    }
    // Kill while the rest are still streaming: after the fifth result.
    for _ in 0..5 {
        tokio::time::timeout(Duration::from_secs(60), finished_rx.recv()).await.expect("five inquiries finish");
    }
    let desk = desk.restart().await;
    let mut reported: Vec<Value> = vec![];
    let mut finished = 0;
    for s in streams {
        let events = s.await.unwrap();
        if let Some(result) = events.iter().find(|e| e.name == "result") {
            finished += 1;
            let tickets: Vec<Value> = events.iter().filter(|e| e.name == "ticket").map(|e| e.data.clone()).collect();
            assert_eq!(tickets, result.data["handoffs"].as_array().unwrap().clone(), "ticket events match the result");
            assert!(!tickets.is_empty(), "each of these inquiries hands something off");
            reported.extend(tickets);
        }
    }
    assert!((5..=20).contains(&finished), "{finished} finished");
    eprintln!("SIGKILL with {} of 20 inquiries unfinished; {} ticket(s) reported", 20 - finished, reported.len());
    let (status, list) = json_of(http.get(desk.url("/api/handoffs")).send().await.unwrap()).await;
    assert_eq!(status, 200);
    let stored: HashMap<String, Value> = list["tickets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["ticketId"].as_str().unwrap().to_owned(), t.clone()))
        .collect();
    assert_eq!(stored.len(), list["tickets"].as_array().unwrap().len(), "no ticket id twice");
    for ticket in &reported {
        let id = ticket["ticketId"].as_str().unwrap();
        let row = stored.get(id).unwrap_or_else(|| panic!("reported ticket {id} is missing after the restart"));
        for key in ["createdAt", "reason", "listingId", "summary", "contactEmail"] {
            assert_eq!(row[key], ticket[key], "{id}.{key}");
        }
    }
    let ids: HashSet<&str> = reported.iter().map(|t| t["ticketId"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), reported.len(), "no ticket reported twice");
    // No request was stored twice: each stored summary belongs to one hand-off.
    let mut summaries: HashMap<(String, String), usize> = HashMap::new();
    for t in stored.values() {
        *summaries.entry((t["reason"].to_string(), t["summary"].to_string())).or_default() += 1;
    }
    assert!(summaries.values().all(|&n| n == 1), "a duplicated ticket: {summaries:?}");
    // The database passes SQLite's integrity check and is at the current schema.
    let store = inquiry::desk::TicketStore::open(&db).unwrap();
    assert_eq!(store.schema_version().unwrap(), 2);
    assert_eq!(store.list(None).unwrap().len(), stored.len());
}

#[test]
fn serve_mcp_with_tickets_writes_to_the_desk_queue_and_eval_never_does() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("desk.sqlite");
    let mut child = Command::new(env!("CARGO_BIN_EXE_inquiry"))
        .args(["serve-mcp", "--no-cache", "--tickets"])
        .arg(&db)
        .current_dir(root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut send = |msg: Value| {
        writeln!(stdin, "{msg}").unwrap();
        stdin.flush().unwrap();
    };
    send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "desk-test", "version": "0"}}}));
    let _init = lines.next().unwrap().unwrap();
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "hand_off_to_human", "arguments": {
        "reason": "viewing_request", "listingId": "HH-1002", "summary": "Customer wants to view HH-1002 on Friday afternoon", "contactEmail": "ana@example.org"}}}),
    );
    let reply: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    let ticket = &reply["result"]["structuredContent"];
    assert_eq!(reply["result"]["isError"], false, "{reply}");
    drop(stdin);
    let _ = child.wait();
    let store = inquiry::desk::TicketStore::open(&db).unwrap();
    let stored = store.list(None).unwrap();
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0].ticket.ticket_id, ticket["ticketId"].as_str().unwrap());
    assert_eq!((stored[0].source.as_str(), stored[0].ticket.listing_id.as_deref()), ("mcp", Some("HH-1002")));

    // eval uses fresh in-memory queues: the desk database named in the environment is never written.
    let untouched = dir.path().join("eval-must-not-write.sqlite");
    let facts = std::fs::read_to_string(root().join("cases/facts.yaml")).unwrap();
    let first =
        facts.lines().find_map(|l| l.trim().trim_start_matches("- ").strip_prefix("id:")).unwrap().trim().to_owned();
    let out = Command::new(env!("CARGO_BIN_EXE_inquiry"))
        .args(["eval", "--no-cache", "--case", &first])
        .arg("--out")
        .arg(dir.path().join("reports"))
        .env("INQUIRY_DESK_DB", &untouched)
        .current_dir(root())
        .output()
        .unwrap();
    assert!(out.status.code().is_some_and(|c| c <= 1), "{}", texts(&out).1);
    assert!(!untouched.exists(), "eval wrote to the desk database");
}
