//! Reproducible runs (#14): the response cache, `--cache replay`, resume
//! after an interrupt, `inquiry rescore`, and the committed JSON Schemas.
//! Real wire formats come from loopback mocks that count requests.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

use super::support::root;

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))).unwrap()
}

/// `inquiry eval` in the repository root with a mock provider and its own cache directory.
fn eval_command(args: &[&str], env: &[(&str, String)]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_inquiry"));
    command.arg("eval").args(args).arg("--no-cache").current_dir(root());
    for name in
        ["ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_API_KEY", "OPENAI_BASE_URL", "RUST_LOG", "INQUIRY_HOME"]
    {
        command.env_remove(name);
    }
    command.env("NO_COLOR", "1").env("INQUIRY_MODEL_TIMEOUT_S", "20").env("INQUIRY_MODEL_MAX_ATTEMPTS", "1");
    for (k, v) in env {
        command.env(k, v);
    }
    command
}

fn run(args: &[&str], env: &[(&str, String)]) -> Output {
    eval_command(args, env).output().unwrap()
}

fn texts(out: &Output) -> (String, String) {
    (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// The first user text of an Anthropic or OpenAI request body.
fn first_user_text(body: &Value) -> String {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    for m in messages.iter().filter(|m| m["role"] == "user") {
        if let Some(s) = m["content"].as_str() {
            return s.to_owned();
        }
        if let Some(blocks) = m["content"].as_array() {
            if let Some(t) = blocks.iter().find(|b| b["type"] == "text").and_then(|b| b["text"].as_str()) {
                return t.to_owned();
            }
        }
    }
    String::new()
}

/// An Anthropic agent as the mock plays it: search the knowledge base once,
/// then answer that a colleague will follow up.
fn anthropic_agent(request: &Request) -> ResponseTemplate {
    let body: Value = serde_json::from_slice(&request.body).unwrap_or_default();
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let has_result = messages
        .iter()
        .any(|m| m["content"].as_array().is_some_and(|blocks| blocks.iter().any(|b| b["type"] == "tool_result")));
    let usage = json!({"input_tokens": 900, "output_tokens": 40, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0});
    let reply = if has_result {
        json!({"id": "msg_2", "type": "message", "role": "assistant", "model": "claude-test",
               "content": [{"type": "text", "text": "Thank you for your message. Which listing do you mean, and by when do you need an answer?"}],
               "stop_reason": "end_turn", "usage": usage})
    } else {
        json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
               "content": [{"type": "tool_use", "id": "toolu_1", "name": "search_knowledge", "input": {"query": first_user_text(&body)}}],
               "stop_reason": "tool_use", "usage": usage})
    };
    ResponseTemplate::new(200).set_body_json(reply)
}

/// The same agent over OpenAI chat completions, answering after `delay`.
fn openai_agent(request: &Request, delay: Duration) -> ResponseTemplate {
    let body: Value = serde_json::from_slice(&request.body).unwrap_or_default();
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let has_result = messages.iter().any(|m| m["role"] == "tool");
    let usage = json!({"prompt_tokens": 900, "completion_tokens": 40, "total_tokens": 940});
    let message = if has_result {
        json!({"role": "assistant", "content": "Thank you for your message. Which listing do you mean, and by when do you need an answer?"})
    } else {
        json!({"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function",
               "function": {"name": "search_knowledge", "arguments": json!({"query": first_user_text(&body)}).to_string()}}]})
    };
    let finish = if has_result { "stop" } else { "tool_calls" };
    ResponseTemplate::new(200)
        .set_body_json(json!({"id": "c", "object": "chat.completion", "model": "gpt-test",
                              "choices": [{"index": 0, "message": message, "finish_reason": finish}], "usage": usage}))
        .set_delay(delay)
}

/// Removes what may differ between a run and its replay: dates, latencies,
/// and the cache provenance the report must show (replayed calls).
fn strip_volatile(v: &mut Value) {
    match v {
        Value::Object(map) => {
            for key in
                ["date", "wall_ms", "latency_ms", "duration_ms", "recorded_latency_ms", "from_cache", "model_calls"]
            {
                map.remove(key);
            }
            if let Some(cache) = map.get_mut("cache").and_then(Value::as_object_mut) {
                cache.remove("hit");
            }
            if let Some(Value::Array(metrics)) = map.get_mut("metrics") {
                metrics.retain(|m| !m["name"].as_str().unwrap_or("").starts_with("latency_"));
            }
            map.values_mut().for_each(strip_volatile);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_volatile),
        _ => {}
    }
}

/// The JSON pointer and both values of the first difference, if any.
fn first_difference(a: &Value, b: &Value, at: &str) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for k in x.keys().chain(y.keys()) {
                let here = format!("{at}/{k}");
                match (x.get(k), y.get(k)) {
                    (Some(p), Some(q)) => {
                        if let Some(d) = first_difference(p, q, &here) {
                            return Some(d);
                        }
                    }
                    (p, q) => return Some(format!("{here}: {p:?} vs {q:?}")),
                }
            }
            None
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            x.iter().zip(y).enumerate().find_map(|(i, (p, q))| first_difference(p, q, &format!("{at}/{i}")))
        }
        _ if a == b => None,
        _ => Some(format!("{at}: {a} vs {b}")),
    }
}

/// The report.json and every trace of a set, volatile fields removed.
fn set_contents(set: &Path) -> Vec<(String, Value)> {
    let mut files = vec![("report.json".to_owned(), read_json(&set.join("report.json")))];
    let mut traces: Vec<PathBuf> = std::fs::read_dir(set.join("cases")).unwrap().map(|e| e.unwrap().path()).collect();
    traces.sort();
    for t in traces {
        files.push((t.file_name().unwrap().to_string_lossy().into_owned(), read_json(&t)));
    }
    for (_, v) in &mut files {
        strip_volatile(v);
    }
    files
}

#[test]
fn replay_sends_no_request_and_reproduces_the_report() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = rt.block_on(MockServer::start());
    rt.block_on(Mock::given(method("POST")).and(path("/v1/messages")).respond_with(anthropic_agent).mount(&server));
    let dir = tempfile::tempdir().unwrap();
    let (out, cache) = (dir.path().join("out"), dir.path().join("cache"));
    let env = [("ANTHROPIC_API_KEY", "sk-ant-test".to_owned()), ("ANTHROPIC_BASE_URL", server.uri())];
    let common = [
        "--subset",
        "--repeat",
        "3",
        "--model",
        "anthropic:claude-test",
        "--out",
        out.to_str().unwrap(),
        "--cache-dir",
        cache.to_str().unwrap(),
    ];
    let first = run(&[&common[..], &["--name", "recorded"]].concat(), &env);
    let (_, err) = texts(&first);
    assert!(matches!(first.status.code(), Some(0 | 1)), "{err}");
    let sent = rt.block_on(server.received_requests()).unwrap().len();
    // 12 cases × 3 repeats × 2 model calls (search, then answer).
    assert_eq!(sent, 72, "{err}");

    let second = run(&[&common[..], &["--name", "replayed", "--cache", "replay"]].concat(), &env);
    let (_, err2) = texts(&second);
    assert_eq!(second.status.code(), first.status.code(), "{err2}");
    assert_eq!(rt.block_on(server.received_requests()).unwrap().len(), sent, "replay sent requests: {err2}");
    assert!(err2.contains("72 replayed from the response cache"), "{err2}");

    let recorded = read_json(&out.join("recorded/report.json"));
    let replayed = read_json(&out.join("replayed/report.json"));
    assert_eq!(recorded["model_calls"], json!({"agent": 72, "agent_from_cache": 0, "judge": 0, "judge_from_cache": 0}));
    assert_eq!(replayed["model_calls"]["agent_from_cache"], 72);
    let (mut a, mut b) = (set_contents(&out.join("recorded")), set_contents(&out.join("replayed")));
    for (_, v) in a.iter_mut().chain(b.iter_mut()) {
        v.as_object_mut().map(|m| m.remove("name"));
    }
    assert_eq!(a.len(), 13);
    for ((name, x), (_, y)) in a.iter().zip(&b) {
        assert!(first_difference(x, y, "").is_none(), "{name} differs at {:?}", first_difference(x, y, ""));
    }

    // The three repeats of a case are three distinct cache entries.
    let trace =
        read_json(&out.join("recorded/cases").join(format!("{}.json", recorded["cases"][0]["id"].as_str().unwrap())));
    let keys: std::collections::BTreeSet<String> = trace["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["result"]["exchanges"][0]["cache_key"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(keys.len(), 3, "{keys:?}");
    let x = &trace["runs"][0]["result"]["exchanges"][0];
    assert_eq!((x["stop"].as_str(), x["usage"]["input"].as_u64()), (Some("tool_use"), Some(900)), "{x:#}");

    let stats = Command::new(env!("CARGO_BIN_EXE_inquiry"))
        .args(["cache", "stats", "--json", "--cache-dir", cache.to_str().unwrap()])
        .output()
        .unwrap();
    let stats: Value = serde_json::from_slice(&stats.stdout).unwrap();
    assert_eq!(stats["entries"], 72, "{stats:#}");
    assert_eq!(stats["by_model"], json!([["anthropic:claude-test", 72]]));

    // Damage: a truncated file under replay is a clear error; under `use` it is rebuilt.
    let db = cache.join("cache.sqlite");
    let _ = std::fs::remove_file(cache.join("cache.sqlite-wal"));
    let _ = std::fs::remove_file(cache.join("cache.sqlite-shm"));
    let len = std::fs::metadata(&db).unwrap().len();
    let f = std::fs::OpenOptions::new().write(true).open(&db).unwrap();
    f.set_len(len / 3).unwrap();
    drop(f);
    let broken =
        run(&[&common[..], &["--name", "broken", "--cache", "replay", "--case", "heating-hh-1001"]].concat(), &env);
    let (_, err4) = texts(&broken);
    assert_eq!(broken.status.code(), Some(2), "{err4}");
    assert!(err4.contains("cache.sqlite") && !err4.contains("panicked"), "{err4}");
}

#[test]
fn a_replay_miss_names_the_case_run_call_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    // An empty but valid cache: every call is a miss.
    inquiry::cache::ResponseCache::create(&cache).unwrap();
    let out = run(
        &[
            "--case",
            "heating-hh-1001",
            "--model",
            "openai:gpt-test",
            "--cache",
            "replay",
            "--cache-dir",
            cache.to_str().unwrap(),
            "--out",
            dir.path().join("out").to_str().unwrap(),
        ],
        // Nothing listens here: a request would fail differently.
        &[("OPENAI_BASE_URL", "http://127.0.0.1:9/v1".to_owned())],
    );
    let (_, err) = texts(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("case heating-hh-1001 run 1 model call 1: no cached response (key "), "{err}");
    let key = err.split("(key ").nth(1).unwrap().split(')').next().unwrap();
    assert_eq!(key.len(), 64, "{err}");
}

#[test]
fn an_unwritable_cache_directory_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, "x").unwrap();
    // A directory below a plain file cannot be created, even by root.
    let cache = file.join("cache");
    let out = run(
        &["--case", "heating-hh-1001", "--model", "openai:gpt-test", "--cache-dir", cache.to_str().unwrap()],
        &[("OPENAI_BASE_URL", "http://127.0.0.1:9/v1".to_owned())],
    );
    let (_, err) = texts(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("--cache-dir") && err.contains("cannot create the cache directory"), "{err}");
}

#[test]
fn an_interrupted_run_is_incomplete_and_resumes_from_the_cache() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = rt.block_on(MockServer::start());
    rt.block_on(
        Mock::given(method("POST"))
            .and(path("/v1/chat/completions"))
            .respond_with(|r: &Request| openai_agent(r, Duration::from_millis(120)))
            .mount(&server),
    );
    let dir = tempfile::tempdir().unwrap();
    let (out, cache) = (dir.path().join("out"), dir.path().join("cache"));
    let env = [("OPENAI_BASE_URL", format!("{}/v1", server.uri()))];
    let junit_path = dir.path().join("junit.xml");
    let args = [
        "--model",
        "openai:gpt-test",
        "-j",
        "3",
        "--out",
        out.to_str().unwrap(),
        "--name",
        "full",
        "--cache-dir",
        cache.to_str().unwrap(),
        "--junit",
        junit_path.to_str().unwrap(),
    ];
    let child = eval_command(&args, &env).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    // 49 cases × 2 calls = 98 requests; interrupt after about half.
    let started = Instant::now();
    while rt.block_on(server.received_requests()).unwrap().len() < 45 {
        assert!(started.elapsed() < Duration::from_secs(60), "the run did not get going");
        std::thread::sleep(Duration::from_millis(20));
    }
    let pid = child.id().to_string();
    assert!(Command::new("kill").args(["-INT", &pid]).status().unwrap().success());
    let first = child.wait_with_output().unwrap();
    let (_, err) = texts(&first);
    assert_eq!(first.status.code(), Some(130), "{err}");
    assert!(err.contains("INCOMPLETE: interrupted by SIGINT"), "{err}");
    let report = read_json(&out.join("full/report.json"));
    assert_eq!(report["verdict"], "INCOMPLETE");
    let finished = report["incomplete"]["runs_finished"].as_u64().unwrap();
    assert_eq!(report["incomplete"]["runs_planned"], 49);
    assert!(finished > 5 && finished < 49, "{:#}", report["incomplete"]);
    assert_eq!(report["cases"].as_array().unwrap().len() as u64, finished);
    let md = std::fs::read_to_string(out.join("full/report.md")).unwrap();
    assert!(md.contains("## INCOMPLETE") && md.contains("**INCOMPLETE: interrupted by SIGINT"), "{md}");
    let junit = std::fs::read_to_string(&junit_path).unwrap();
    assert!(junit.contains("eval-incomplete"), "{junit}");

    let stored = inquiry::cache::ResponseCache::open(&cache, true).unwrap().stats().unwrap().entries;
    assert!(stored >= 2 * finished, "every finished run's calls are stored: {stored} < 2 × {finished}");
    let before = rt.block_on(server.received_requests()).unwrap().len();
    let second = run(&args, &env);
    let (_, err2) = texts(&second);
    assert!(matches!(second.status.code(), Some(0 | 1)), "{err2}");
    let requests = rt.block_on(server.received_requests()).unwrap();
    let resent = &requests[before..];
    // Only the calls that were not stored are sent again.
    assert_eq!(resent.len() as u64, 98 - stored, "{err2}");
    let done: Vec<String> =
        report["cases"].as_array().unwrap().iter().map(|c| c["inquiry"].as_str().unwrap().to_owned()).collect();
    for r in resent {
        let body: Value = serde_json::from_slice(&r.body).unwrap();
        let inquiry = first_user_text(&body);
        assert!(!done.contains(&inquiry), "a finished case was sent again: {inquiry}");
    }
    let report = read_json(&out.join("full/report.json"));
    assert_ne!(report["verdict"], "INCOMPLETE");
    assert_eq!(report["cases"].as_array().unwrap().len(), 49);
    assert_eq!(report["model_calls"]["agent_from_cache"].as_u64().unwrap(), stored);
}

/// A copy of `cases/` with one line of one file replaced.
fn cases_with(file: &str, from: &str, to: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(root().join("cases")).unwrap() {
        let entry = entry.unwrap();
        let mut text = std::fs::read_to_string(entry.path()).unwrap();
        if entry.file_name() == file {
            assert!(text.contains(from), "{file} has no `{from}`");
            text = text.replacen(from, to, 1);
        }
        std::fs::write(dir.path().join(entry.file_name()), text).unwrap();
    }
    dir
}

fn inquiry_bin(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_inquiry")).args(args).current_dir(root()).env("NO_COLOR", "1").output().unwrap()
}

#[test]
fn rescore_changes_exactly_the_case_whose_pattern_changed() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let base = inquiry_bin(&["eval", "--no-cache", "--out", out, "--name", "base"]);
    assert!(matches!(base.status.code(), Some(0 | 1)), "{}", texts(&base).1);
    // The stored run's trace holds everything grading needs; the rescore reads
    // only those files (its API takes no model and no toolbox).
    // A pattern (not the item's text) changes: a must_not pattern that now matches the stored reply. (A `must`
    // pattern changed to match nothing would not flip it: the item's text still conveys it by meaning.)
    let changed = cases_with(
        "facts.yaml",
        "'(excluding|excludes) heating']",
        "'(excluding|excludes) heating', 'measured consumption']",
    );
    let r = inquiry_bin(&[
        "rescore",
        &format!("{out}/base"),
        "--cases",
        changed.path().to_str().unwrap(),
        "--out",
        out,
        "--name",
        "after",
        "--json",
    ]);
    let (stdout, err) = texts(&r);
    assert!(matches!(r.status.code(), Some(0 | 1)), "{err}");
    let v: Value = serde_json::from_str(&stdout).unwrap();
    let changes = v["changes"].as_array().unwrap();
    assert_eq!(changes.len(), 1, "{v:#}");
    assert_eq!(changes[0]["case"], "heating-hh-1001");
    assert_eq!((changes[0]["before"].as_str(), changes[0]["after"].as_str()), (Some("pass"), Some("fail")));
    assert!(changes[0]["after_line"].as_str().unwrap().contains("must_not 1 stated"), "{v:#}");
    let report = read_json(&dir.path().join("after/report.json"));
    let base_report = read_json(&dir.path().join("base/report.json"));
    let passed = |r: &Value| r["cases"].as_array().unwrap().iter().filter(|c| c["passed"] == true).count();
    assert_eq!(passed(&report) + 1, passed(&base_report));
    assert_eq!(report["model_calls"], base_report["model_calls"], "the stored calls, none new");

    // A reworded item cannot be lined up with the stored grades: unmeasured, not regraded.
    let reworded = cases_with(
        "facts.yaml",
        "The utilities (Nebenkosten) are an additional 240 EUR per month",
        "Utilities cost 240 EUR a month on top",
    );
    let r = inquiry_bin(&[
        "rescore",
        &format!("{out}/base"),
        "--cases",
        reworded.path().to_str().unwrap(),
        "--out",
        out,
        "--name",
        "reworded",
        "--json",
    ]);
    let (stdout, err) = texts(&r);
    let v: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}\n{err}"));
    assert_eq!(v["items_changed"], json!(["heating-hh-1001"]), "{v:#}");
    assert_eq!(v["changes"][0]["after"], "unmeasured");
    assert!(err.contains("its must/must_not texts changed"), "{err}");
}

#[test]
fn rescore_refuses_what_is_not_a_report_set() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("report.json"), r#"{"schema": "something/else"}"#).unwrap();
    let r = inquiry_bin(&["rescore", dir.path().to_str().unwrap(), "--out", dir.path().to_str().unwrap()]);
    let (_, err) = texts(&r);
    assert_eq!(r.status.code(), Some(2), "{err}");
    assert!(err.contains("expected `inquiry.eval.report/v1`"), "{err}");
    let r = inquiry_bin(&["rescore", dir.path().join("nothing").to_str().unwrap()]);
    assert_eq!(r.status.code(), Some(2));
}

#[test]
fn committed_schemas_match_the_code_and_describe_real_reports() {
    for (name, schema) in inquiry::eval::schema::all() {
        let path = root().join("docs/schema").join(name);
        let committed: Value = read_json(&path);
        assert_eq!(
            committed,
            schema,
            "{} is out of date: run `target/release/inquiry schema --write docs/schema`",
            path.display()
        );
    }
    // Every key of a real report.json is described by the schema.
    let dir = tempfile::tempdir().unwrap();
    let out = inquiry_bin(&["eval", "--subset", "--no-cache", "--out", dir.path().to_str().unwrap()]);
    assert!(matches!(out.status.code(), Some(0 | 1)));
    let report = read_json(&dir.path().join("eval/report.json"));
    let schema = inquiry::eval::schema::report();
    for key in report.as_object().unwrap().keys() {
        assert!(schema["properties"].get(key).is_some(), "report key `{key}` is not in the schema");
    }
    for key in report["cases"][0].as_object().unwrap().keys() {
        assert!(schema["$defs"]["CaseReport"]["properties"].get(key).is_some(), "case key `{key}`");
    }
    for key in report["cases"][0]["runs"][0].as_object().unwrap().keys() {
        assert!(schema["$defs"]["CaseRun"]["properties"].get(key).is_some(), "run key `{key}`");
    }
}
