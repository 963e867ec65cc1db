//! Real providers (SPEC §6) against a local mock server answering with
//! fixtures in the providers' wire formats (`tests/fixtures/providers/`): the
//! real agent loop end to end, the LLM judge, faults (each a forced hand-off,
//! never a panic), `inquiry eval` with failing calls, and key redaction.

use std::sync::Arc;
use std::time::{Duration, Instant};

use inquiry::agent::guards::Evidence;
use inquiry::agent::model::{ModelClient, ModelError, Usage};
use inquiry::agent::{ForcedCause, Limits, Outcome, RunResult, FORCED_HANDOFF_REPLY};
use inquiry::app::ConnectedAgent;
use inquiry::eval::case::{load_cases, KnownListings, LoadedCase};
use inquiry::eval::judge::{Judge, JudgeError, LlmJudge};
use inquiry::eval::prices::PriceTable;
use inquiry::providers::{client_from_spec, AnthropicClient, Env, HttpConfig, OpenAiClient, Secret};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

use crate::support::{root, toolbox_with_retrieval};

pub(crate) const KEY: &str = "sk-test-SECRET-123";
pub(crate) const INQUIRY: &str = "How much is the rent of HH-1001?";

pub(crate) fn fixture(name: &str) -> Value {
    let path = root().join("tests/fixtures/providers").join(name);
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

pub(crate) fn ok(name: &str) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(fixture(name))
}

/// Fast retries for tests: the policy is the same, the waits are short.
/// Anthropic's answer to a bad key, quoting the key back as real providers do.
pub(crate) fn rejects_and_echoes_the_key(request: &Request) -> ResponseTemplate {
    let key = request.headers.get("x-api-key").and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
    let text = fixture("anthropic_error_invalid_key.json").to_string().replace("KEY_PLACEHOLDER", &key);
    ResponseTemplate::new(401).set_body_raw(text, "application/json")
}

fn fast() -> HttpConfig {
    HttpConfig {
        timeout: Duration::from_secs(10),
        max_attempts: 3,
        base_backoff: Duration::from_millis(20),
        max_backoff: Duration::from_secs(5),
    }
}

fn anthropic(base: &str, config: HttpConfig) -> Arc<dyn ModelClient> {
    Arc::new(AnthropicClient::new("claude-sonnet-4-5", base, Secret::new(KEY), config).unwrap())
}

fn openai(base: &str, config: HttpConfig) -> Arc<dyn ModelClient> {
    Arc::new(OpenAiClient::new("gpt-4.1-mini", &format!("{base}/v1"), Some(Secret::new(KEY)), config).unwrap())
}

/// Runs the real agent (in-process MCP, bundled catalogue) on one inquiry.
async fn run(model: Arc<dyn ModelClient>) -> RunResult {
    let connected = ConnectedAgent::connect(model, toolbox_with_retrieval(), Limits::default()).await.unwrap();
    let result = connected.agent.run(INQUIRY, &[]).await.unwrap();
    connected.close().await;
    result
}

fn body(request: &Request) -> Value {
    serde_json::from_slice(&request.body).unwrap()
}

fn prices() -> PriceTable {
    PriceTable::load(&root().join("prices.json")).unwrap()
}

/// A forced hand-off for `cause`: the fixed reply, the code's ticket as the
/// last trace entry, and an error naming `needle`, without the key.
fn assert_forced(result: &RunResult, cause: ForcedCause, needle: &str) {
    assert_eq!(result.outcome, Outcome::ForcedHandoff { cause }, "{result:#?}");
    assert_eq!(result.reply, FORCED_HANDOFF_REPLY);
    let last = result.trace.last().expect("the forced hand-off is traced");
    assert_eq!((last.tool.as_str(), last.model_call, last.is_error), ("hand_off_to_human", 0, false));
    assert_eq!(result.handoffs.len(), 1);
    let error = result.error.as_deref().expect("the error is recorded");
    assert!(error.contains(needle), "error {error:?} lacks {needle:?}");
    assert!(!error.contains(KEY));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn anthropic_tool_use_conversation_is_answered_with_cache_usage_and_cost() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/messages"))
        .and(header("x-api-key", KEY))
        .and(header("anthropic-version", "2023-06-01"))
        .respond_with(ok("anthropic_tool_use.json"))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(method("POST")).and(path("/v1/messages")).respond_with(ok("anthropic_final.json")).mount(&server).await;

    let result = run(anthropic(&server.uri(), fast())).await;

    assert_eq!(result.outcome, Outcome::Answered, "{result:#?}");
    assert_eq!(result.reply, "The cold rent of HH-1001 is 1,650 EUR per month [HH-1001].");
    assert_eq!(result.citations, vec!["HH-1001".to_owned()]);
    assert_eq!(result.model, "anthropic:claude-sonnet-4-5");
    assert_eq!(result.model_calls, 2);
    assert_eq!(result.trace.len(), 1);
    assert_eq!(result.trace[0].tool, "get_listing");
    assert_eq!(result.trace[0].arguments, json!({"id": "HH-1001"}));
    assert_eq!(result.trace[0].model_call, 1);
    assert!(!result.trace[0].is_error);
    assert_eq!(result.usage, Usage { input: 1500, output: 140, cache_read: 2100, cache_write: 2100 });
    // claude-sonnet-4-5: 3 / 15 / 0.3 / 3.75 USD per million tokens.
    let expected = (1500.0 * 3.0 + 140.0 * 15.0 + 2100.0 * 0.3 + 2100.0 * 3.75) / 1e6;
    let cost = prices().cost(&result.model, &result.usage).unwrap();
    assert!((cost - expected).abs() < 1e-12, "{cost} != {expected}");
    assert!((cost - 0.015105).abs() < 1e-12);

    let requests = server.received_requests().await.unwrap();
    assert_eq!(requests.len(), 2);
    let first = body(&requests[0]);
    assert_eq!(first["model"], "claude-sonnet-4-5");
    assert_eq!(first["system"][0]["cache_control"], json!({"type": "ephemeral"}));
    let tools = first["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 4, "the four MCP tools are offered");
    assert!(tools.iter().all(|t| t["input_schema"].is_object() && t["description"].is_string()));
    assert_eq!(tools.last().unwrap()["cache_control"], json!({"type": "ephemeral"}));
    assert_eq!(first["messages"], json!([{"role": "user", "content": [{"type": "text", "text": INQUIRY}]}]));

    let second = body(&requests[1]);
    let messages = second["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 3);
    assert_eq!(messages[1]["role"], "assistant");
    assert_eq!(messages[1]["content"][0], json!({"type": "text", "text": "I'll look up the listing."}));
    assert_eq!(
        messages[1]["content"][1],
        json!({"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9", "name": "get_listing", "input": {"id": "HH-1001"}})
    );
    assert_eq!(messages[2]["role"], "user");
    let block = &messages[2]["content"][0];
    assert_eq!(block["type"], "tool_result");
    assert_eq!(block["tool_use_id"], "toolu_01A09q90qw90lq917835lq9");
    assert_eq!(block["is_error"], false);
    let content = block["content"].as_str().unwrap();
    assert!(content.contains("trust=\"untrusted\"") && content.contains("1650"), "{content}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openai_tool_calls_conversation_is_answered_with_cached_tokens_and_cost() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .and(header("authorization", format!("Bearer {KEY}").as_str()))
        .respond_with(ok("openai_tool_calls.json"))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(ok("openai_final.json"))
        .mount(&server)
        .await;

    let result = run(openai(&server.uri(), fast())).await;

    assert_eq!(result.outcome, Outcome::Answered, "{result:#?}");
    assert_eq!(result.reply, "The cold rent of HH-1001 is 1,650 EUR per month [HH-1001].");
    assert_eq!(result.model, "openai:gpt-4.1-mini");
    assert_eq!(result.trace.len(), 1);
    assert_eq!(result.trace[0].tool, "get_listing");
    assert_eq!(result.trace[0].arguments, json!({"id": "HH-1001"}));
    // Cached prompt tokens are billed as cache reads, not as input.
    assert_eq!(result.usage, Usage { input: 1500 + 776, output: 90, cache_read: 1024, cache_write: 0 });
    // gpt-4.1-mini: 0.4 / 1.6 / 0.1 USD per million tokens.
    let expected = (2276.0 * 0.4 + 90.0 * 1.6 + 1024.0 * 0.1) / 1e6;
    let cost = prices().cost(&result.model, &result.usage).unwrap();
    assert!((cost - expected).abs() < 1e-12, "{cost} != {expected}");
    assert!((cost - 0.0011568).abs() < 1e-12);

    let requests = server.received_requests().await.unwrap();
    assert_eq!(requests.len(), 2);
    let first = body(&requests[0]);
    assert_eq!(first["model"], "gpt-4.1-mini");
    assert_eq!(first["max_tokens"], 1024, "compatible servers get max_tokens");
    assert_eq!(first["messages"][0]["role"], "system");
    assert_eq!(first["messages"][1], json!({"role": "user", "content": INQUIRY}));
    let tools = first["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 4);
    assert!(tools.iter().all(|t| t["type"] == "function" && t["function"]["parameters"].is_object()));

    let second = body(&requests[1]);
    let messages = second["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 4);
    assert_eq!(
        messages[2]["tool_calls"],
        json!([{"id": "call_Zx3fLJbfT2bw0n3wqn1Yc5rM", "type": "function", "function": {"name": "get_listing", "arguments": "{\"id\":\"HH-1001\"}"}}])
    );
    assert_eq!(messages[3]["role"], "tool");
    assert_eq!(messages[3]["tool_call_id"], "call_Zx3fLJbfT2bw0n3wqn1Yc5rM");
    let content = messages[3]["content"].as_str().unwrap();
    assert!(content.contains("trust=\"untrusted\"") && content.contains("1650"), "{content}");
}

/// Every listing and overlay is known (the cases are read, not resolved).
pub(crate) struct AnyListing;

impl KnownListings for AnyListing {
    fn knows(&self, _id: &str, _overlay: Option<&str>) -> bool {
        true
    }
    fn has_overlay(&self, _name: &str) -> bool {
        true
    }
}

pub(crate) fn rent_case() -> LoadedCase {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("rent.yaml"),
        r#"- id: rent-hh-1001
  lang: en
  inquiry: "How much is the rent of HH-1001?"
  listings: [HH-1001]
  must:
    - text: "The cold rent is 1,650 EUR per month"
    - text: "Names listing HH-1001"
  must_not:
    - text: "Claims the rent includes utilities"
  tags: [fact]
"#,
    )
    .unwrap();
    load_cases(dir.path(), &AnyListing).unwrap().remove(0)
}

pub(crate) fn answered_result() -> RunResult {
    RunResult {
        reply: "The cold rent of HH-1001 is 1,650 EUR per month [HH-1001].".into(),
        citations: vec!["HH-1001".into()],
        handoffs: vec![],
        trace: vec![],
        usage: Usage::default(),
        outcome: Outcome::Answered,
        guard_events: vec![],
        first_draft: None,
        model_calls: 2,
        model: "scripted".into(),
        error: None,
        evidence: Evidence::default(),
        exchanges: vec![],
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn llm_judge_through_the_provider_grades_and_rejects_a_skipped_item() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(ok("openai_judge_verdict.json"))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(ok("openai_judge_verdict_skipped.json"))
        .mount(&server)
        .await;
    // The same path `--judge llm --judge-model openai:<id>` takes.
    let env = Env::from_pairs([("OPENAI_BASE_URL", format!("{}/v1", server.uri())), ("OPENAI_API_KEY", KEY.into())]);
    let model = client_from_spec("openai:gpt-4.1-mini", &env).unwrap().unwrap();
    let judge = LlmJudge::load(model, &root().join("rubrics")).unwrap();
    let case = rent_case();

    let verdict = judge.judge(&case, &answered_result()).await.unwrap();
    assert_eq!(verdict.judge, "llm:openai:gpt-4.1-mini");
    assert!(verdict.passed(), "{verdict:#?}");
    assert_eq!(verdict.must.len(), 2);
    assert_eq!(verdict.must_not.len(), 1);
    assert_eq!(verdict.usage, Usage { input: 640, output: 70, cache_read: 0, cache_write: 0 });
    let requests = server.received_requests().await.unwrap();
    let first = body(&requests[0]);
    assert!(first.get("tools").is_none(), "the judge offers no tools");
    assert_eq!(first["messages"][0]["role"], "system");
    assert!(first["messages"][1]["content"].as_str().unwrap().contains("1,650 EUR"));

    let err = judge.judge(&case, &answered_result()).await.unwrap_err();
    assert!(matches!(&err, JudgeError::InvalidVerdict(m) if m.contains("must item 2 was not graded")), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rate_limit_with_retry_after_is_waited_out_then_answered() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(429)
                .insert_header("retry-after", "1")
                .set_body_json(json!({"type": "error", "error": {"type": "rate_limit_error", "message": "Number of request tokens has exceeded your per-minute rate limit"}})),
        )
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(method("POST")).respond_with(ok("anthropic_tool_use.json")).up_to_n_times(1).mount(&server).await;
    Mock::given(method("POST")).respond_with(ok("anthropic_final.json")).mount(&server).await;

    let started = Instant::now();
    let result = run(anthropic(&server.uri(), fast())).await;
    assert!(started.elapsed() >= Duration::from_secs(1), "retry-after: 1 was not honoured: {:?}", started.elapsed());
    assert_eq!(result.outcome, Outcome::Answered, "{result:#?}");
    assert_eq!(result.error, None);
    assert_eq!(result.trace[0].tool, "get_listing");
    assert_eq!(server.received_requests().await.unwrap().len(), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_errors_are_retried_then_end_in_a_model_error_handoff() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(500).set_body_json(
            json!({"type": "error", "error": {"type": "api_error", "message": "Internal server error"}}),
        ))
        .mount(&server)
        .await;
    let result = run(anthropic(&server.uri(), fast())).await;
    assert_forced(&result, ForcedCause::ModelError, "HTTP 500");
    let error = result.error.unwrap();
    assert!(error.contains("api_error: Internal server error") && error.contains("3 attempts"), "{error}");
    assert_eq!(server.received_requests().await.unwrap().len(), 3, "3 attempts in all");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hanging_provider_ends_in_a_model_timeout_handoff() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ok("openai_final.json").set_delay(Duration::from_secs(5)))
        .mount(&server)
        .await;
    let config = HttpConfig { timeout: Duration::from_millis(300), ..fast() };
    let started = Instant::now();
    let result = run(openai(&server.uri(), config)).await;
    assert!(started.elapsed() < Duration::from_secs(4), "{:?}", started.elapsed());
    assert_forced(&result, ForcedCause::ModelTimeout, "timed out");
    assert_eq!(server.received_requests().await.unwrap().len(), 1, "a timeout is not retried");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_json_ends_in_a_model_error_handoff() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(200).set_body_raw(r#"{"id": "msg_01", "content": [{"type": "te"#, "application/json"),
        )
        .mount(&server)
        .await;
    let result = run(anthropic(&server.uri(), fast())).await;
    assert_forced(&result, ForcedCause::ModelError, "invalid JSON");
    assert_eq!(server.received_requests().await.unwrap().len(), 1, "not retried");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_content_type_ends_in_a_model_error_handoff() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_raw("<html><body><h1>Welcome to nginx!</h1></body></html>", "text/html; charset=utf-8"),
        )
        .mount(&server)
        .await;
    let result = run(openai(&server.uri(), fast())).await;
    assert_forced(&result, ForcedCause::ModelError, "content type text/html");
    assert!(result.error.unwrap().contains("Welcome to nginx"), "the body's start is quoted");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_tool_call_arguments_end_in_a_model_error_handoff() {
    let server = MockServer::start().await;
    Mock::given(method("POST")).respond_with(ok("openai_bad_arguments.json")).mount(&server).await;
    let result = run(openai(&server.uri(), fast())).await;
    assert_forced(&result, ForcedCause::ModelError, "arguments are not valid JSON");
    assert_eq!(result.trace.len(), 1, "no tool ran on the broken call");
}

/// Reads one HTTP request (headers and `content-length` body) from `sock`.
async fn read_request(sock: &mut tokio::net::TcpStream) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let n = sock.read(&mut chunk).await.unwrap_or(0);
        if n == 0 {
            return;
        }
        buf.extend_from_slice(&chunk[..n]);
        let text = String::from_utf8_lossy(&buf);
        if let Some(end) = text.find("\r\n\r\n") {
            let length = text[..end]
                .lines()
                .find_map(|l| {
                    let (name, value) = l.split_once(':')?;
                    name.eq_ignore_ascii_case("content-length").then(|| value.trim().parse::<usize>().ok())?
                })
                .unwrap_or(0);
            if buf.len() >= end + 4 + length {
                return;
            }
        }
    }
}

/// A raw HTTP server that answers every request with `reply` and closes.
async fn raw_server(reply: &'static str) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut sock, _)) = listener.accept().await {
            tokio::spawn(async move {
                read_request(&mut sock).await;
                let _ = sock.write_all(reply.as_bytes()).await;
                let _ = sock.flush().await;
                let _ = sock.shutdown().await;
            });
        }
    });
    format!("http://{addr}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_cut_off_mid_stream_ends_in_a_model_error_handoff() {
    let base = raw_server(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 400\r\nconnection: close\r\n\r\n{\"id\":\"msg_01\",\"type\":\"message\",\"content\":[{\"type\":\"te",
    )
    .await;
    let result = run(anthropic(&base, fast())).await;
    assert_forced(&result, ForcedCause::ModelError, "cut off");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_provider_is_retried_then_ends_in_a_model_error_handoff() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let result = run(openai(&format!("http://127.0.0.1:{port}"), fast())).await;
    assert_forced(&result, ForcedCause::ModelError, "unreachable");
    assert!(result.error.unwrap().contains("3 attempts"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_echoed_key_is_redacted_from_errors_and_debug_output() {
    let server = MockServer::start().await;
    Mock::given(method("POST")).respond_with(rejects_and_echoes_the_key).mount(&server).await;
    let model = anthropic(&server.uri(), fast());
    let result = run(model.clone()).await;
    assert_forced(&result, ForcedCause::ModelError, "HTTP 401");
    let error = result.error.clone().unwrap();
    assert!(error.contains("authentication_error: invalid x-api-key: [redacted]"), "{error}");
    assert_eq!(server.received_requests().await.unwrap().len(), 1, "401 is not retried");
    assert!(!serde_json::to_string(&result).unwrap().contains(KEY));
    let client = AnthropicClient::new("claude-sonnet-4-5", &server.uri(), Secret::new(KEY), fast()).unwrap();
    let debug = format!("{client:?}");
    assert!(!debug.contains(KEY) && debug.contains("redacted"), "{debug}");
    let direct = ModelError::Provider(error);
    assert!(!format!("{direct:?}").contains(KEY));
}
