//! MCP adapter: the in-process client, Streamable HTTP with a real rmcp client,
//! Origin/Host validation, and stdio through the built binary.

use std::io::{BufRead, BufReader, Write};
use std::net::SocketAddr;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use inquiry::mcp::{bind_http, HttpOptions, InProcessClient};
use inquiry::tools::{Toolbox, TOOL_NAMES};
use rmcp::model::{CallToolRequestParams, ErrorCode, ProtocolVersion, ReadResourceRequestParams};
use rmcp::service::{RoleClient, RunningService, ServiceError};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::ServiceExt as _;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::support::{root, toolbox, toolbox_with_retrieval};

fn properties(schema: &Value) -> Vec<&str> {
    schema["properties"].as_object().map(|p| p.keys().map(String::as_str).collect()).unwrap_or_default()
}

// ---------------------------------------------------------------- in-process

#[tokio::test]
async fn in_process_client_lists_the_four_tools_in_order_with_schemas() {
    let client = InProcessClient::connect(toolbox()).await.unwrap();
    let tools = client.list_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, TOOL_NAMES);

    let schema = |name: &str| &tools.iter().find(|t| t.name == name).unwrap().input_schema;
    for t in &tools {
        assert_eq!(t.input_schema["type"], "object", "{}", t.name);
        assert!(t.description.len() > 80, "{} has a real description", t.name);
    }
    let search = properties(schema("search_listings"));
    for p in ["city", "offerType", "propertyType", "maxPrice", "minRooms", "minAreaSqm", "features", "hasPet"] {
        assert!(search.contains(&p), "search_listings lacks {p}: {search:?}");
    }
    assert!(search.contains(&"availableBy") && search.contains(&"limit"));
    assert_eq!(properties(schema("get_listing")), ["id"]);
    assert_eq!(schema("get_listing")["required"], json!(["id"]));
    assert_eq!(properties(schema("search_knowledge")), ["query", "listingId", "k"]);
    assert_eq!(properties(schema("hand_off_to_human")), ["reason", "listingId", "summary", "contactEmail"]);
    let reasons = serde_json::to_string(schema("hand_off_to_human")).unwrap();
    for r in ["viewing_request", "price_negotiation", "not_answerable_from_listing"] {
        assert!(reasons.contains(r), "reason enum names {r}");
    }
    let describe = |name: &str| tools.iter().find(|t| t.name == name).unwrap().description.clone();
    assert!(describe("search_listings").contains("on-request"));
    assert!(describe("hand_off_to_human").contains("not a booking"));
    client.close().await;
}

#[tokio::test]
async fn in_process_client_calls_tools_and_reports_failures_as_results() {
    let tb = toolbox_with_retrieval();
    let client = InProcessClient::connect(tb.clone()).await.unwrap();

    let listing = client.call_tool("get_listing", json!({"id": " hh-1001 "})).await.unwrap();
    assert!(!listing.is_error, "{listing:?}");
    assert_eq!(listing.value["id"], "HH-1001");
    assert_eq!(listing.value["petsAllowed"], "on-request");

    let found = client.call_tool("search_listings", json!({"city": "hamburg", "maxPrice": 2000})).await.unwrap();
    assert!(!found.is_error, "{found:?}");
    let results = found.value["results"].as_array().unwrap();
    assert!(!results.is_empty());
    assert!(results.iter().all(|r| r["city"] == "Hamburg" && r["price"].as_f64().unwrap() <= 2000.0));

    let knowledge = client
        .call_tool("search_knowledge", json!({"query": "Is heating included?", "listingId": "HH-1001", "k": 3}))
        .await
        .unwrap();
    assert!(!knowledge.is_error, "{knowledge:?}");
    assert_eq!(knowledge.value["found"], true);
    assert_eq!(knowledge.value["results"][0]["chunkId"], "HH-1001#s5");

    let ticket = client
        .call_tool(
            "hand_off_to_human",
            json!({"reason": "viewing_request", "listingId": "HH-1001", "summary": "Arrange a viewing on Saturday."}),
        )
        .await
        .unwrap();
    assert!(!ticket.is_error, "{ticket:?}");
    let first_id = ticket.value["ticketId"].as_str().unwrap().to_owned();
    assert!(first_id.ends_with("0001"), "{first_id}");

    // Failures are results with a hint, never transport errors.
    let failures = [
        ("search_listings", json!({"limit": 0}), "limit"),
        ("search_listings", json!({"maxPrice": "cheap"}), "input schema"),
        ("search_listings", json!({"colour": "red"}), "input schema"),
        ("get_listing", json!({"id": "XX-9999"}), "search_listings"),
        ("get_listing", json!({}), "input schema"),
        ("search_knowledge", json!({"query": "a?"}), "3 to 300"),
        ("search_knowledge", json!({"query": "Is heating included?", "k": 11}), "1 to 10"),
        ("search_knowledge", json!({"query": "Is heating included?", "listingId": "ZZ-0000"}), "search_listings"),
        ("hand_off_to_human", json!({"reason": "book_it", "summary": "Book the flat for me now."}), "input schema"),
        ("hand_off_to_human", json!({"reason": "complaint", "summary": "short"}), "10 to 500"),
        ("get_listing", json!(["HH-1001"]), "input schema"),
        ("book_viewing", json!({}), "search_listings"),
    ];
    for (name, args, hint) in failures {
        let out = client.call_tool(name, args.clone()).await.unwrap();
        assert!(out.is_error, "{name} {args} should fail: {out:?}");
        assert!(out.value["error"].is_string(), "{out:?}");
        let h = out.value["hint"].as_str().unwrap();
        assert!(h.contains(hint), "{name} {args}: hint {h:?} should mention {hint:?}");
    }

    // The ticket landed in the toolbox's own queue; failed calls added none.
    let tickets = tb.handoffs().tickets();
    assert_eq!(tickets.len(), 1);
    assert_eq!(tickets[0].ticket_id, first_id);
    assert_eq!(tickets[0].listing_id.as_deref(), Some("HH-1001"));
    client.close().await;
}

// ---------------------------------------------------------------- HTTP

struct HttpServer {
    addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: JoinHandle<anyhow::Result<()>>,
}

impl HttpServer {
    async fn start(tb: Toolbox) -> Self {
        Self::start_with(tb, HttpOptions::loopback(0)).await
    }

    async fn start_with(tb: Toolbox, options: HttpOptions) -> Self {
        let (stop, stopped) = oneshot::channel::<()>();
        let (addr, task) = bind_http(tb, options, async move {
            let _ = stopped.await;
        })
        .await
        .unwrap();
        Self { addr, stop: Some(stop), task }
    }

    fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    async fn client(&self) -> RunningService<RoleClient, ()> {
        ().serve(StreamableHttpClientTransport::from_uri(self.url())).await.expect("MCP client connects over HTTP")
    }

    async fn stop(mut self) {
        let _ = self.stop.take().unwrap().send(());
        tokio::time::timeout(Duration::from_secs(10), self.task)
            .await
            .expect("server stops within 10 s")
            .unwrap()
            .unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_serves_tools_and_resources_to_an_rmcp_client() {
    let tb = toolbox_with_retrieval();
    let server = HttpServer::start(tb.clone()).await;
    let client = server.client().await;

    let info = client.peer_info().expect("server info");
    let implementation = info.server_info.clone().expect("server implementation");
    assert_eq!(implementation.name, "inquiry");
    assert_eq!(implementation.version, env!("CARGO_PKG_VERSION"));
    assert!(info.capabilities.tools.is_some() && info.capabilities.resources.is_some());

    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, TOOL_NAMES);
    for t in &tools {
        let a = t.annotations.as_ref().expect("annotations");
        let read_only = t.name != "hand_off_to_human";
        assert_eq!(a.read_only_hint, Some(read_only), "{}", t.name);
        assert_eq!(a.destructive_hint, Some(false), "{}", t.name);
        assert_eq!(a.idempotent_hint, Some(read_only), "{}", t.name);
        assert_eq!(a.open_world_hint, Some(false), "{}", t.name);
    }
    let search = &tools[0].input_schema;
    assert!(search["properties"]["maxPrice"].is_object() && search["properties"]["hasPet"].is_object());

    let call = |name: &str, args: Value| {
        CallToolRequestParams::new(name.to_owned()).with_arguments(args.as_object().unwrap().clone())
    };
    let ok = client.call_tool(call("get_listing", json!({"id": "HH-1001"}))).await.unwrap();
    assert_eq!(ok.is_error, Some(false));
    let structured = ok.structured_content.clone().unwrap();
    assert_eq!(structured["id"], "HH-1001");
    let text = ok.content[0].as_text().unwrap().text.clone();
    assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), structured, "text copy of the structured result");

    let bad = client.call_tool(call("search_listings", json!({"limit": 0}))).await.unwrap();
    assert_eq!(bad.is_error, Some(true));
    assert!(bad.structured_content.unwrap()["hint"].as_str().unwrap().contains("1 to 25"));
    let bad = client.call_tool(call("hand_off_to_human", json!({"reason": "bribe", "summary": "x"}))).await.unwrap();
    assert_eq!(bad.is_error, Some(true), "invalid arguments are a tool error, not a JSON-RPC error");

    let knowledge =
        client.call_tool(call("search_knowledge", json!({"query": "Is there a gym nearby?"}))).await.unwrap();
    assert_eq!(knowledge.is_error, Some(false));
    assert_eq!(knowledge.structured_content.unwrap()["found"], false);

    // Resources: the policy pages.
    let resources = client.list_all_resources().await.unwrap();
    let uris: Vec<&str> = resources.iter().map(|r| r.uri.as_str()).collect();
    assert_eq!(uris.len(), tb.catalogue().policies.len());
    assert!(uris.contains(&"policy://deposit"), "{uris:?}");
    let deposit = resources.iter().find(|r| r.uri == "policy://deposit").unwrap();
    assert_eq!(deposit.name, "deposit");
    assert_eq!(deposit.mime_type.as_deref(), Some("text/markdown"));
    assert_eq!(deposit.title.as_deref(), Some(tb.catalogue().policy("deposit").unwrap().title.as_str()));
    let templates = client.list_all_resource_templates().await.unwrap();
    assert_eq!(templates[0].uri_template, "policy://{slug}");

    let read = client.read_resource(ReadResourceRequestParams::new("policy://deposit")).await.unwrap();
    let text = match &read.contents[0] {
        rmcp::model::ResourceContents::TextResourceContents { text, mime_type, uri, .. } => {
            assert_eq!(mime_type.as_deref(), Some("text/markdown"));
            assert_eq!(uri, "policy://deposit");
            text.clone()
        }
        other => panic!("expected text contents, got {other:?}"),
    };
    assert!(text.contains("## Amount"), "{text}");

    let negotiated = info.protocol_version.clone();
    for missing in ["policy://parking", "file:///etc/passwd"] {
        match client.read_resource(ReadResourceRequestParams::new(missing)).await {
            Err(ServiceError::McpError(e)) => {
                let expected = if negotiated >= ProtocolVersion::V_2026_07_28 {
                    ErrorCode::INVALID_PARAMS
                } else {
                    ErrorCode::RESOURCE_NOT_FOUND
                };
                assert_eq!(e.code, expected, "{missing}: {e:?}");
                assert!(e.message.contains(missing), "{e:?}");
            }
            other => panic!("{missing}: expected a JSON-RPC error, got {other:?}"),
        }
    }

    client.cancel().await.unwrap();
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_sessions_share_one_ticket_queue() {
    let tb = toolbox();
    let server = HttpServer::start(tb.clone()).await;
    let a = server.client().await;
    let b = server.client().await;
    let ticket = |reason: &str| {
        CallToolRequestParams::new("hand_off_to_human").with_arguments(
            json!({"reason": reason, "listingId": null, "summary": "Please call the inquirer back today."})
                .as_object()
                .unwrap()
                .clone(),
        )
    };
    let first = a.call_tool(ticket("complaint")).await.unwrap();
    let second = b.call_tool(ticket("price_negotiation")).await.unwrap();
    let first = first.structured_content.unwrap()["ticketId"].as_str().unwrap().to_owned();
    let second = second.structured_content.unwrap()["ticketId"].as_str().unwrap().to_owned();

    // The agent's in-process client on the same toolbox sees the same queue.
    let local = InProcessClient::connect(tb.clone()).await.unwrap();
    let third = local.call_tool("hand_off_to_human", ticket("complaint").arguments.unwrap().into()).await.unwrap();
    let third = third.value["ticketId"].as_str().unwrap().to_owned();
    let queue = tb.handoffs().tickets();
    let ids: Vec<&str> = queue.iter().map(|t| t.ticket_id.as_str()).collect();
    assert_eq!(ids, [first.as_str(), second.as_str(), third.as_str()], "one queue, numbered in creation order");
    assert!(first.ends_with("0001") && second.ends_with("0002") && third.ends_with("0003"), "{ids:?}");
    let reasons: Vec<String> = queue.iter().map(|t| t.reason.to_string()).collect();
    assert_eq!(reasons, ["complaint", "price_negotiation", "complaint"]);

    local.close().await;
    a.cancel().await.unwrap();
    // Shutdown does not wait for clients that are still connected.
    server.stop().await;
    let _ = b.cancel().await;
}

/// POSTs an `initialize` request with the given extra headers; returns the HTTP status.
async fn raw_initialize(addr: SocketAddr, host: &str, extra_headers: &[(&str, &str)]) -> u16 {
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}
    })
    .to_string();
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (name, value) in extra_headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(&body);
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut head = Vec::new();
    let mut buf = [0u8; 512];
    while !head.windows(2).any(|w| w == b"\r\n") {
        let n = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut buf)).await.unwrap().unwrap();
        assert!(n > 0, "connection closed before a status line: {:?}", String::from_utf8_lossy(&head));
        head.extend_from_slice(&buf[..n]);
    }
    let line = String::from_utf8_lossy(&head).lines().next().unwrap().to_owned();
    line.split(' ').nth(1).unwrap().parse().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_validates_origin_and_host() {
    let server = HttpServer::start(toolbox()).await;
    let addr = server.addr;
    let host = addr.to_string();
    let port = addr.port();

    assert_eq!(raw_initialize(addr, &host, &[]).await, 200, "no Origin: a non-browser client");
    assert_eq!(raw_initialize(addr, &host, &[("Origin", "http://evil.example")]).await, 403);
    assert_eq!(raw_initialize(addr, &host, &[("Origin", "https://localhost.evil.example")]).await, 403);
    assert_eq!(raw_initialize(addr, &host, &[("Origin", "null")]).await, 403);
    for origin in [format!("http://localhost:{port}"), format!("http://127.0.0.1:{port}"), "http://[::1]:5173".into()] {
        assert_eq!(raw_initialize(addr, &host, &[("Origin", &origin)]).await, 200, "{origin}");
    }
    assert_eq!(raw_initialize(addr, &format!("localhost:{port}"), &[]).await, 200);
    assert_eq!(raw_initialize(addr, "evil.example", &[]).await, 403, "DNS rebinding: foreign Host");
    server.stop().await;

    // Extra origins extend the loopback defaults.
    let options = HttpOptions { allowed_origins: vec!["https://app.example.org".into()], ..HttpOptions::loopback(0) };
    let server = HttpServer::start_with(toolbox(), options).await;
    let host = server.addr.to_string();
    assert_eq!(raw_initialize(server.addr, &host, &[("Origin", "https://app.example.org")]).await, 200);
    assert_eq!(raw_initialize(server.addr, &host, &[("Origin", "http://localhost:8080")]).await, 200);
    assert_eq!(raw_initialize(server.addr, &host, &[("Origin", "http://evil.example")]).await, 403);
    server.stop().await;
}

#[tokio::test]
async fn http_refuses_a_non_loopback_bind_unless_allowed() {
    let options = HttpOptions { bind: "0.0.0.0:0".parse().unwrap(), ..HttpOptions::default() };
    let err = bind_http(toolbox(), options, std::future::pending()).await.unwrap_err().to_string();
    assert!(err.contains("0.0.0.0:0") && err.contains("loopback"), "{err}");

    let options = HttpOptions { allowed_origins: vec!["app.example.org".into()], ..HttpOptions::loopback(0) };
    let err = bind_http(toolbox(), options, std::future::pending()).await.unwrap_err().to_string();
    assert!(err.contains("app.example.org") && err.contains("scheme://host"), "{err}");
}

// ---------------------------------------------------------------- stdio
//
// Through the CLI: `inquiry serve-mcp --data <root>/data` (src/cli.rs wires it to
// `inquiry::mcp::serve_stdio`, with tracing on stderr).

#[test]
fn stdio_server_speaks_only_json_rpc_on_stdout() {
    let data = root().join("data");
    let mut child = Command::new(env!("CARGO_BIN_EXE_inquiry"))
        .args(["serve-mcp", "--data"])
        .arg(&data)
        .env("RUST_LOG", "debug")
        .env("NO_COLOR", "1")
        .current_dir(root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn inquiry serve-mcp");
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let (lines_tx, lines) = mpsc::channel::<String>();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if lines_tx.send(line).is_err() {
                break;
            }
        }
    });
    let logs = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let stderr_reader = std::thread::spawn({
        let logs = logs.clone();
        move || {
            for line in BufReader::new(&mut stderr).lines().map_while(Result::ok) {
                let mut logs = logs.lock().unwrap();
                logs.push_str(&line);
                logs.push('\n');
            }
        }
    });
    let mut seen: Vec<String> = Vec::new();
    let mut response = |id: i64| -> Value {
        loop {
            let line = lines.recv_timeout(Duration::from_secs(30)).unwrap_or_else(|e| {
                std::thread::sleep(Duration::from_millis(200));
                panic!("no response to request {id} ({e}); stdout so far: {seen:#?}\nstderr:\n{}", logs.lock().unwrap())
            });
            seen.push(line.clone());
            let msg: Value =
                serde_json::from_str(&line).unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}"));
            assert_eq!(msg["jsonrpc"], "2.0", "{line}");
            if msg["id"] == id {
                return msg;
            }
        }
    };
    let mut send = |msg: Value| {
        writeln!(stdin, "{msg}").unwrap();
        stdin.flush().unwrap();
    };

    send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "stdio-test", "version": "0"}}}));
    let init = response(1);
    assert_eq!(init["result"]["serverInfo"]["name"], "inquiry", "{init}");
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    let list = response(2);
    let names: Vec<&str> =
        list["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, TOOL_NAMES);
    send(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "get_listing", "arguments": {"id": "HH-1001"}}}));
    let call = response(3);
    assert_eq!(call["result"]["structuredContent"]["id"], "HH-1001", "{call}");
    send(json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
        "params": {"name": "get_listing", "arguments": {"id": 1001}}}));
    let bad = response(4);
    assert_eq!(bad["result"]["isError"], true, "{bad}");
    send(json!({"jsonrpc": "2.0", "id": 5, "method": "resources/read", "params": {"uri": "policy://deposit"}}));
    let read = response(5);
    assert!(read["result"]["contents"][0]["text"].as_str().unwrap().contains("## Amount"), "{read}");

    // defect 9: a repeated argument key is an error naming it, not "last one wins".
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{{"name":"get_listing","arguments":{{"id":"HH-1001","id":"HH-1002"}}}}}}"#
    )
    .unwrap();
    stdin.flush().unwrap();
    let twice = response(6);
    assert_eq!(twice["result"]["isError"], true, "{twice}");
    let error = twice["result"]["structuredContent"]["error"].as_str().unwrap();
    assert!(error.contains("get_listing") && error.contains("duplicate key `id`"), "{twice}");

    drop(stdin);
    // EOF on stdin ends the server.
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            panic!("serve-mcp did not exit after stdin closed");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    reader.join().unwrap();
    for line in lines.try_iter() {
        let msg: Value =
            serde_json::from_str(&line).unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}"));
        assert_eq!(msg["jsonrpc"], "2.0", "{line}");
    }
    stderr_reader.join().unwrap();
    let logs = logs.lock().unwrap().clone();
    assert!(status.success(), "exit {status:?}; stderr:\n{logs}");
    assert!(!logs.is_empty(), "RUST_LOG=debug logs go to stderr");
}

/// Reads until the peer closes; true when it closed within `within`.
async fn closed_within(stream: &mut tokio::net::TcpStream, within: Duration) -> bool {
    let mut buf = [0u8; 1024];
    let deadline = tokio::time::Instant::now() + within;
    loop {
        match tokio::time::timeout_at(deadline, stream.read(&mut buf)).await {
            Err(_) => return false,
            Ok(Ok(0)) | Ok(Err(_)) => return true,
            Ok(Ok(_)) => {}
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn defect_7_idle_and_stalled_http_connections_are_closed() {
    let options = HttpOptions { header_timeout: Duration::from_millis(300), ..HttpOptions::loopback(0) };
    let server = HttpServer::start_with(toolbox(), options).await;
    // Connected, and never a byte sent.
    let mut idle = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    // Stopped in the middle of its headers.
    let mut stalled = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    stalled.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: appl").await.unwrap();
    assert!(closed_within(&mut idle, Duration::from_secs(5)).await, "an idle connection stays open");
    assert!(closed_within(&mut stalled, Duration::from_secs(5)).await, "a stalled connection stays open");
    // A normal request still works.
    assert_eq!(raw_initialize(server.addr, "127.0.0.1", &[]).await, 200);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn defect_7_live_sessions_are_capped_with_503() {
    let options = HttpOptions { max_sessions: 2, ..HttpOptions::loopback(0) };
    let server = HttpServer::start_with(toolbox(), options).await;
    assert_eq!(raw_initialize(server.addr, "127.0.0.1", &[]).await, 200);
    assert_eq!(raw_initialize(server.addr, "127.0.0.1", &[]).await, 200);
    assert_eq!(raw_initialize(server.addr, "127.0.0.1", &[]).await, 503, "a third live session is refused");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn defect_7_idle_sessions_are_dropped() {
    let options = HttpOptions { max_sessions: 1, session_idle: Duration::from_millis(400), ..HttpOptions::loopback(0) };
    let server = HttpServer::start_with(toolbox(), options).await;
    assert_eq!(raw_initialize(server.addr, "127.0.0.1", &[]).await, 200);
    assert_eq!(raw_initialize(server.addr, "127.0.0.1", &[]).await, 503);
    // The abandoned session expires, which frees its place.
    let started = tokio::time::Instant::now();
    loop {
        tokio::time::sleep(Duration::from_millis(200)).await;
        if raw_initialize(server.addr, "127.0.0.1", &[]).await == 200 {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(10), "the idle session was never dropped");
    }
    server.stop().await;
}

#[test]
fn defect_7_sigterm_shuts_the_http_server_down_gracefully() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_inquiry"))
        .args(["serve-mcp", "--http", "--bind", "127.0.0.1:0", "--no-cache"])
        .current_dir(root())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    while !line.contains("serving MCP") {
        line.clear();
        assert!(stderr.read_line(&mut line).unwrap() > 0, "the server exited before serving");
    }
    let pid = child.id().to_string();
    assert!(Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait());
    });
    let status = rx.recv_timeout(Duration::from_secs(10)).expect("the server stops within 10 s").unwrap();
    assert_eq!(status.code(), Some(0), "a graceful shutdown exits 0, not by the signal: {status:?}");
}

/// One JSON-RPC POST to `/mcp`; returns the session id header and the
/// message with `id` (from a JSON or an SSE body).
async fn post_mcp(
    http: &reqwest::Client,
    addr: SocketAddr,
    session: Option<&str>,
    body: String,
) -> (Option<String>, Option<Value>) {
    let mut request = http
        .post(format!("http://{addr}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .body(body);
    if let Some(id) = session {
        request = request.header("mcp-session-id", id);
    }
    let response = request.send().await.unwrap();
    let session = response.headers().get("mcp-session-id").map(|v| v.to_str().unwrap().to_owned());
    let text = response.text().await.unwrap();
    let message = text
        .lines()
        .map(|l| l.strip_prefix("data:").unwrap_or(l).trim())
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|m| m.get("id").is_some());
    (session, message)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn defect_9_repeated_tool_argument_keys_over_http_are_errors() {
    let server = HttpServer::start(toolbox()).await;
    let http = reqwest::Client::new();
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}});
    let (session, _) = post_mcp(&http, server.addr, None, init.to_string()).await;
    let session = session.expect("a session id");
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string();
    post_mcp(&http, server.addr, Some(&session), initialized).await;
    let twice = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_listings","arguments":{"limit":1,"limit":25}}}"#;
    let (_, reply) = post_mcp(&http, server.addr, Some(&session), twice.into()).await;
    let reply = reply.expect("a reply to the call");
    assert_eq!(reply["result"]["isError"], true, "{reply}");
    let error = reply["result"]["structuredContent"]["error"].as_str().unwrap();
    assert!(error.contains("search_listings") && error.contains("duplicate key `limit`"), "{reply}");
    // The same call with the key once is answered.
    let once =
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search_listings","arguments":{"limit":1}}}"#;
    let (_, reply) = post_mcp(&http, server.addr, Some(&session), once.into()).await;
    let reply = reply.expect("a reply to the call");
    assert_eq!(reply["result"]["isError"], false, "{reply}");
    assert_eq!(reply["result"]["structuredContent"]["results"].as_array().unwrap().len(), 1, "{reply}");
    server.stop().await;
}
