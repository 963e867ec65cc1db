//! Real providers through the binary (SPEC §6): `inquiry eval` against a
//! mock provider with failing calls writes its report, keys echoed by a
//! provider appear in no report, trace or output, and provider settings
//! come from flags, the environment and `.env` in that order.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use inquiry::eval::case::{load_cases, LoadedCase};
use serde_json::{json, Value};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

use crate::providers::{fixture, ok, rejects_and_echoes_the_key, AnyListing, INQUIRY, KEY};
use crate::support::root;

/// Two real cases from `cases/` without overlays or history (the first two in file order).
fn two_real_cases() -> Vec<LoadedCase> {
    let cases = load_cases(&root().join("cases"), &AnyListing).expect("cases/ loads");
    let picked: Vec<LoadedCase> =
        cases.into_iter().filter(|c| c.case.fixtures.is_none() && c.case.history.is_empty()).take(2).collect();
    assert_eq!(picked.len(), 2);
    picked
}

/// Runs `inquiry eval` in the repository root with `env`, offline retrieval, no embedding or response cache.
fn eval_binary(args: &[&str], env: &[(&str, String)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_inquiry"));
    command.arg("eval").args(args).args(["--no-cache", "--cache", "off"]).current_dir(root());
    for name in
        ["ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_API_KEY", "OPENAI_BASE_URL", "RUST_LOG", "INQUIRY_HOME"]
    {
        command.env_remove(name);
    }
    command.env("NO_COLOR", "1").env("INQUIRY_MODEL_TIMEOUT_S", "20").env("INQUIRY_MODEL_MAX_ATTEMPTS", "3");
    for (k, v) in env {
        command.env(k, v);
    }
    command.output().unwrap()
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))).unwrap()
}

/// Whether the request's messages carry `inquiry` as a user message.
fn asks(request: &Request, inquiry: &str) -> bool {
    serde_json::from_slice::<Value>(&request.body).ok().is_some_and(|b| {
        b["messages"].as_array().is_some_and(|m| m.iter().any(|m| m["role"] == "user" && m["content"] == inquiry))
    })
}

fn model_is(request: &Request, model: &str) -> bool {
    serde_json::from_slice::<Value>(&request.body).ok().is_some_and(|b| b["model"] == model)
}

#[test]
fn eval_writes_its_report_when_some_cases_hit_provider_faults() {
    let cases = two_real_cases();
    let (answered, failing) = (cases[0].clone(), cases[1].clone());
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let server = runtime.block_on(MockServer::start());
    let verdict = json!({
        "must": (1..=answered.case.must.len()).map(|i| json!({"item": i, "met": false, "note": "not stated"})).collect::<Vec<_>>(),
        "must_not": (1..=answered.case.must_not.len()).map(|i| json!({"item": i, "violated": false})).collect::<Vec<_>>(),
        "unsupported_claims": [],
        "language": answered.case.lang.as_str(),
    });
    let mut judge_reply = fixture("openai_judge_verdict.json");
    judge_reply["choices"][0]["message"]["content"] = json!(verdict.to_string());
    runtime.block_on(async {
        Mock::given(method("POST"))
            .and(|r: &Request| model_is(r, "judge-model"))
            .respond_with(ResponseTemplate::new(200).set_body_json(judge_reply))
            .with_priority(1)
            .mount(&server)
            .await;
        let inquiry = answered.case.inquiry.clone();
        let mut reply = fixture("openai_final.json");
        reply["choices"][0]["message"]["content"] = json!("Thank you, a colleague will look into this.");
        Mock::given(method("POST"))
            .and(move |r: &Request| model_is(r, "test-model") && asks(r, &inquiry))
            .respond_with(ResponseTemplate::new(200).set_body_json(reply))
            .with_priority(2)
            .mount(&server)
            .await;
        Mock::given(method("POST"))
            .respond_with(ResponseTemplate::new(500).set_body_json(
                json!({"error": {"message": "The server had an error while processing your request.", "type": "server_error"}}),
            ))
            .with_priority(3)
            .mount(&server)
            .await;
    });
    let out_dir = tempfile::tempdir().unwrap();
    let out = eval_binary(
        &[
            "--model",
            "openai:test-model",
            "--judge",
            "llm",
            "--judge-model",
            "openai:judge-model",
            "--case",
            &answered.case.id,
            "--case",
            &failing.case.id,
            "--out",
            out_dir.path().to_str().unwrap(),
        ],
        &[("OPENAI_BASE_URL", format!("{}/v1", server.uri()))],
    );
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    // One case answered and was graded, the other hit provider faults: the
    // run says something about the agent (exit 0 or 1, not 2), and the faulty
    // case is unmeasured, never a failure.
    assert!(matches!(out.status.code(), Some(0) | Some(1)), "stdout:\n{stdout}\nstderr:\n{stderr}");
    let set = out_dir.path().join("eval");
    assert!(set.join("report.md").is_file());
    let report = read_json(&set.join("report.json"));
    assert_eq!(report["verdict"] == "PASS", out.status.code() == Some(0), "{report:#}");
    let faulty = report["cases"].as_array().unwrap().iter().find(|c| c["id"] == failing.case.id.as_str()).unwrap();
    assert_eq!(faulty["status"], "unmeasured", "{faulty:#}");

    let trace = read_json(&set.join("cases").join(format!("{}.json", failing.case.id)));
    let run = &trace["runs"][0]["result"];
    assert_eq!(run["outcome"], json!({"kind": "forced_handoff", "cause": "model_error"}), "{trace:#}");
    let error = run["error"].as_str().unwrap();
    assert!(error.contains("HTTP 500") && error.contains("3 attempts"), "{error}");
    assert_eq!(trace["runs"][0]["status"], "unmeasured");
    assert!(trace["runs"][0]["verdict"].is_null(), "the judge is not asked about a run the agent could not make");

    let trace = read_json(&set.join("cases").join(format!("{}.json", answered.case.id)));
    assert_eq!(trace["runs"][0]["result"]["outcome"], json!({"kind": "answered"}), "{trace:#}");
    assert_eq!(trace["runs"][0]["result"]["model"], "openai:test-model");
    assert_eq!(trace["runs"][0]["verdict"]["judge"], "llm:openai:judge-model", "{trace:#}");
}

/// Every file under `dir`, recursively.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = vec![];
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(files_under(&path));
        } else {
            out.push(path);
        }
    }
    out
}

#[test]
fn keys_echoed_by_providers_appear_in_no_report_trace_or_output() {
    const OPENAI_KEY: &str = "sk-test-SECRET-456";
    let cases = two_real_cases();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let server = runtime.block_on(MockServer::start());
    runtime.block_on(async {
        // Both providers reject the key and quote it back, as real ones do.
        Mock::given(method("POST"))
            .and(path("/v1/messages"))
            .respond_with(rejects_and_echoes_the_key)
            .mount(&server)
            .await;
        Mock::given(method("POST"))
            .and(path("/v1/chat/completions"))
            .respond_with(|request: &Request| {
                let auth = request.headers.get("authorization").and_then(|v| v.to_str().ok()).unwrap_or("");
                let key = auth.trim_start_matches("Bearer ").to_owned();
                let text = fixture("openai_error_invalid_key.json").to_string().replace("KEY_PLACEHOLDER", &key);
                ResponseTemplate::new(401).set_body_raw(text, "application/json")
            })
            .mount(&server)
            .await;
    });
    let out_dir = tempfile::tempdir().unwrap();
    let out = eval_binary(
        &[
            "--model",
            "anthropic:x",
            "--judge",
            "llm",
            "--judge-model",
            "openai:y",
            "--case",
            &cases[0].case.id,
            "--case",
            &cases[1].case.id,
            "--out",
            out_dir.path().to_str().unwrap(),
            "--junit",
            out_dir.path().join("junit.xml").to_str().unwrap(),
            "--json",
        ],
        &[
            ("ANTHROPIC_API_KEY", KEY.into()),
            ("ANTHROPIC_BASE_URL", server.uri()),
            ("OPENAI_API_KEY", OPENAI_KEY.into()),
            ("OPENAI_BASE_URL", format!("{}/v1", server.uri())),
            ("RUST_LOG", "debug".into()),
        ],
    );
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    // Every agent call failed (401): nothing is known about the agent, exit 2.
    assert_eq!(out.status.code(), Some(2), "stdout:\n{stdout}\nstderr:\n{stderr}");
    assert!(stderr.contains("every agent call failed"), "{stderr}");
    // The judge's provider also rejects and echoes its key: judge-check reaches it.
    let mut judge_check = Command::new(env!("CARGO_BIN_EXE_inquiry"));
    judge_check
        .args(["judge-check", "--judge", "llm", "--judge-model", "openai:y", "--out"])
        .arg(out_dir.path())
        .current_dir(root())
        .env("OPENAI_API_KEY", OPENAI_KEY)
        .env("OPENAI_BASE_URL", format!("{}/v1", server.uri()))
        .env("INQUIRY_MODEL_MAX_ATTEMPTS", "1")
        .env("RUST_LOG", "debug");
    let jc = judge_check.output().unwrap();
    let (jc_out, jc_err) = (String::from_utf8_lossy(&jc.stdout), String::from_utf8_lossy(&jc.stderr));
    assert_eq!(jc.status.code(), Some(2), "a judge that grades nothing is exit 2: {jc_err}");
    assert!(jc_err.contains("graded none of the"), "{jc_err}");
    let requests = runtime.block_on(server.received_requests()).unwrap();
    assert!(requests.iter().any(|r| r.url.path() == "/v1/messages"), "the agent called the provider");
    assert!(requests.iter().any(|r| r.url.path() == "/v1/chat/completions"), "the judge called the provider");
    let stderr = std::borrow::Cow::<str>::Owned(format!("{stderr}\n{jc_err}\n{jc_out}"));

    let files = files_under(out_dir.path());
    assert!(files.len() >= 5, "{files:?}");
    let mut redacted_somewhere = false;
    for (name, text) in files
        .iter()
        .map(|f| (f.display().to_string(), std::fs::read_to_string(f).unwrap()))
        .chain([("stdout".to_owned(), stdout.into_owned()), ("stderr".to_owned(), stderr.into_owned())])
    {
        for key in [KEY, OPENAI_KEY, "SECRET"] {
            assert!(!text.contains(key), "{name} contains the key {key}:\n{text}");
        }
        redacted_somewhere |= text.contains("[redacted]");
    }
    assert!(redacted_somewhere, "the echoed keys were replaced by [redacted]");
}

/// A mock OpenAI-compatible provider that answers one tool call, then the final reply.
fn answering_openai(runtime: &tokio::runtime::Runtime) -> MockServer {
    let server = runtime.block_on(MockServer::start());
    runtime.block_on(
        Mock::given(method("POST"))
            .and(path("/v1/chat/completions"))
            .respond_with(ok("openai_tool_calls.json"))
            .up_to_n_times(1)
            .mount(&server),
    );
    runtime.block_on(Mock::given(method("POST")).respond_with(ok("openai_final.json")).mount(&server));
    server
}

#[test]
fn dotenv_in_the_working_directory_configures_providers_without_overriding_the_environment() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let server = answering_openai(&runtime);
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join(".env"),
        format!("# provider settings\nOPENAI_BASE_URL={}/v1\nOPENAI_API_KEY=from-dotenv\n", server.uri()),
    )
    .unwrap();
    let thresholds = root().join(inquiry::retrieval::thresholds::DEFAULT_THRESHOLDS_FILE);
    let out = Command::new(env!("CARGO_BIN_EXE_inquiry"))
        .args(["ask", INQUIRY, "--model", "openai:gpt-4.1-mini", "--json", "--no-cache", "--data"])
        .arg(root().join("data"))
        .arg("--retrieval-thresholds")
        .arg(&thresholds)
        .current_dir(dir.path())
        .env_remove("INQUIRY_HOME")
        .env_remove("OPENAI_BASE_URL")
        .env("OPENAI_API_KEY", "from-environment")
        .output()
        .unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "stdout:\n{stdout}\nstderr:\n{stderr}");
    let result: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(result["outcome"], json!({"kind": "answered"}), "{result:#}");
    assert_eq!(result["model"], "openai:gpt-4.1-mini");
    let requests = runtime.block_on(server.received_requests()).unwrap();
    assert_eq!(requests.len(), 2, "the base URL came from .env");
    for r in &requests {
        assert_eq!(
            r.headers.get("authorization").unwrap(),
            "Bearer from-environment",
            "the environment wins over .env"
        );
    }
}

#[test]
fn a_missing_anthropic_key_is_a_usage_error_naming_the_variable() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_inquiry"))
        .args(["ask", INQUIRY, "--model", "anthropic:claude-sonnet-4-5"])
        .current_dir(dir.path())
        .env_remove("INQUIRY_HOME")
        .env_remove("ANTHROPIC_API_KEY")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("ANTHROPIC_API_KEY"), "{stderr}");
}

#[test]
fn base_url_flag_wins_over_dotenv_and_environment() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let server = answering_openai(&runtime);
    let dir = tempfile::tempdir().unwrap();
    // Port 9 (discard) on loopback: nothing listens, so using it would fail.
    std::fs::write(dir.path().join(".env"), "OPENAI_BASE_URL=http://127.0.0.1:9/v1\n").unwrap();
    let thresholds = root().join(inquiry::retrieval::thresholds::DEFAULT_THRESHOLDS_FILE);
    let out = Command::new(env!("CARGO_BIN_EXE_inquiry"))
        .args(["ask", INQUIRY, "--model", "openai:gpt-4.1-mini", "--json", "--no-cache", "--base-url"])
        .arg(format!("{}/v1", server.uri()))
        .arg("--data")
        .arg(root().join("data"))
        .arg("--retrieval-thresholds")
        .arg(&thresholds)
        .current_dir(dir.path())
        .env_remove("INQUIRY_HOME")
        .env("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
        .env("OPENAI_API_KEY", "k")
        .output()
        .unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "stdout:\n{stdout}\nstderr:\n{stderr}");
    let result: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(result["outcome"], json!({"kind": "answered"}), "{result:#}");
    assert_eq!(runtime.block_on(server.received_requests()).unwrap().len(), 2);
}
