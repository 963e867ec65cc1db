//! Replay benchmark (`cargo bench --bench replay`), a plain program
//! (`harness = false`): records the 49-case suite × 3 repeats against a
//! loopback mock of the OpenAI wire format (`--cache use`), then times
//! `inquiry eval --cache replay` of the same command three times and prints
//! the wall times. Target (#14): < 2 s wall on 2 cores, release build.

use std::process::Command;
use std::time::Instant;

use serde_json::{json, Value};
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

fn agent(request: &Request) -> ResponseTemplate {
    let body: Value = serde_json::from_slice(&request.body).unwrap_or_default();
    let has_result = body["messages"].as_array().is_some_and(|m| m.iter().any(|m| m["role"] == "tool"));
    let message = if has_result {
        json!({"role": "assistant", "content": "Thank you for your message. A colleague will get back to you about this."})
    } else {
        let question = body["messages"][1]["content"].as_str().unwrap_or("").to_owned();
        json!({"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function",
               "function": {"name": "search_knowledge", "arguments": json!({"query": question}).to_string()}}]})
    };
    ResponseTemplate::new(200).set_body_json(json!({"choices": [{"index": 0, "message": message,
        "finish_reason": if has_result { "stop" } else { "tool_calls" }}],
        "usage": {"prompt_tokens": 900, "completion_tokens": 40}}))
}

fn main() {
    let root = env!("CARGO_MANIFEST_DIR");
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = rt.block_on(MockServer::start());
    rt.block_on(Mock::given(method("POST")).respond_with(agent).mount(&server));
    let dir = tempfile::tempdir().unwrap();
    let (out, cache) = (dir.path().join("out"), dir.path().join("cache"));
    let eval = |mode: &str, name: &str| {
        let started = Instant::now();
        let status = Command::new(env!("CARGO_BIN_EXE_inquiry"))
            .args(["eval", "--repeat", "3", "--model", "openai:bench", "--no-cache", "--cache", mode])
            .args(["--cache-dir", cache.to_str().unwrap(), "--out", out.to_str().unwrap(), "--name", name])
            .env("OPENAI_BASE_URL", format!("{}/v1", server.uri()))
            .env_remove("OPENAI_API_KEY")
            .current_dir(root)
            .stderr(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(matches!(status.code(), Some(0 | 1)), "eval --cache {mode} failed: {status}");
        started.elapsed()
    };
    let recorded = eval("use", "recorded");
    let sent = rt.block_on(server.received_requests()).unwrap().len();
    println!("recorded 49 cases x 3 repeats: {sent} requests, {:.2} s", recorded.as_secs_f64());
    for i in 1..=3 {
        let t = eval("replay", &format!("replay-{i}"));
        println!("replay {i}: {:.2} s wall", t.as_secs_f64());
    }
    let after = rt.block_on(server.received_requests()).unwrap().len();
    println!("requests sent by the replays: {}", after - sent);
}
