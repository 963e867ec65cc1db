//! Issue 13: regression tests for the break-it findings, one per item, named after it.

use std::process::Command;

use crate::support::{root, temp_catalogue};

fn run(args: &[&str], dir: &std::path::Path) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_inquiry"))
        .args(args)
        .current_dir(dir)
        .env_remove("INQUIRY_HOME")
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn repo(args: &[&str]) -> (Option<i32>, String, String) {
    run(args, &root())
}

fn case_file(dir: &std::path::Path, text: &str) -> String {
    let p = dir.join("cases.yaml");
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_owned()
}

const CASE_TAIL: &str = "  lang: en\n  inquiry: \"Is heating included in HH-1001?\"\n  listings: [HH-1001]\n";

#[test]
fn item_1_a_case_id_cannot_write_outside_out() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    for id in ["../../../escape-trace", "a/b", "Upper", &"x".repeat(300)] {
        let cases = case_file(dir.path(), &format!("- id: \"{id}\"\n{CASE_TAIL}"));
        let (code, _, err) = repo(&["eval", "--cases", &cases, "--out", out.to_str().unwrap(), "--no-cache"]);
        assert_eq!(code, Some(2), "{id}: {err}");
        assert!(err.contains("cases.yaml: line 1: case id") && err.contains("lower-case letters"), "{err}");
        assert!(!out.exists(), "nothing written for {id}");
        assert!(!dir.path().join("escape-trace.json").exists());
    }
}

#[test]
fn item_2_clean_up_never_deletes_files_it_did_not_write() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("data")).unwrap();
    std::fs::write(dir.path().join("data/listings.json"), "[]").unwrap();
    std::fs::write(dir.path().join("data/notes.json"), "{}").unwrap();
    let (code, _, err) = repo(&[
        "eval",
        "--case",
        "heating-hh-1001",
        "--out",
        dir.path().to_str().unwrap(),
        "--name",
        "data",
        "--no-cache",
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("holds files this tool did not write") && err.contains("listings.json"), "{err}");
    assert!(dir.path().join("data/listings.json").exists() && dir.path().join("data/notes.json").exists());
    // fixtures/injection is the catalogue of an overlay, not a report set.
    let (code, _, err) =
        repo(&["eval", "--case", "heating-hh-1001", "--out", "fixtures", "--name", "injection", "--no-cache"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(root().join("fixtures/injection/listings.json").exists());
}

#[test]
fn item_3_a_late_failure_leaves_the_old_report_set_whole() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let (code, _, err) = repo(&["eval", "--subset", "--out", out, "--no-cache"]);
    assert!(matches!(code, Some(0) | Some(1)), "{err}");
    let before = std::fs::read_to_string(dir.path().join("eval/report.json")).unwrap();
    // A --junit path in a missing directory, and a step summary that is a directory:
    // both refused before the run, the old set untouched.
    let (code, _, err) =
        repo(&["eval", "--case", "heating-hh-1001", "--out", out, "--junit", "/nonexistent-dir/j.xml", "--no-cache"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--junit") && err.contains("does not exist"), "{err}");
    let summary = Command::new(env!("CARGO_BIN_EXE_inquiry"))
        .args(["eval", "--case", "heating-hh-1001", "--out", out, "--no-cache"])
        .current_dir(root())
        .env("GITHUB_STEP_SUMMARY", dir.path())
        .output()
        .unwrap();
    assert_eq!(summary.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&summary.stderr).contains("GITHUB_STEP_SUMMARY"));
    assert_eq!(std::fs::read_to_string(dir.path().join("eval/report.json")).unwrap(), before);
    let cases = std::fs::read_dir(dir.path().join("eval/cases")).unwrap().count();
    assert_eq!(cases, 12, "the 12 traces of the old set are all there");
    let stray: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != "eval")
        .collect();
    assert!(stray.is_empty(), "no staging or temp files left: {stray:?}");
}

#[test]
fn item_5_yaml_aliases_cannot_multiply_a_small_file() {
    let dir = tempfile::tempdir().unwrap();
    let patterns: Vec<String> = (0..1000).map(|i| format!("'p{i}'")).collect();
    let mut text =
        format!("- id: a\n{CASE_TAIL}  must:\n    - &big {{text: x, patterns: [{}]}}\n", patterns.join(", "));
    for i in 0..1000 {
        text.push_str(&format!("- id: b{i}\n{CASE_TAIL}  must: [*big]\n"));
    }
    let cases = case_file(dir.path(), &text);
    let started = std::time::Instant::now();
    let (code, _, err) =
        repo(&["eval", "--cases", &cases, "--case", "a", "--out", dir.path().to_str().unwrap(), "--no-cache"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("YAML aliases"), "{err}");
    // Not a timing test: the limit is checked before anything expands.
    let _ = started;
    // Under the alias cap, repeats of one list are compiled once and load.
    let mut text =
        format!("- id: a\n{CASE_TAIL}  must:\n    - &big {{text: x, patterns: [{}]}}\n", patterns.join(", "));
    for i in 0..100 {
        text.push_str(&format!("- id: b{i}\n{CASE_TAIL}  must: [*big]\n"));
    }
    let cases = case_file(dir.path(), &text);
    let (code, _, err) =
        repo(&["eval", "--cases", &cases, "--case", "a", "--out", dir.path().to_str().unwrap(), "--no-cache"]);
    assert!(matches!(code, Some(0) | Some(1)), "{err}");
    // Distinct patterns are capped.
    let many: Vec<String> = (0..5001).map(|i| format!("'q{i}'")).collect();
    let cases = case_file(
        dir.path(),
        &format!("- id: a\n{CASE_TAIL}  must:\n    - {{text: x, patterns: [{}]}}\n", many.join(", ")),
    );
    let (code, _, err) = repo(&["eval", "--cases", &cases, "--out", dir.path().to_str().unwrap(), "--no-cache"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("more than 5000 distinct match patterns"), "{err}");
}

#[test]
fn item_6_deep_yaml_is_refused_before_parsing() {
    let dir = tempfile::tempdir().unwrap();
    let cases = case_file(dir.path(), &format!("- id: a\n  x: {}{}\n", "[".repeat(100_000), "]".repeat(100_000)));
    let (code, _, err) = repo(&["eval", "--cases", &cases, "--out", dir.path().to_str().unwrap(), "--no-cache"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("line 2: nested deeper than 64 levels"), "{err}");
}

#[test]
fn item_6_many_cases_in_one_file_load_and_name_their_lines() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::new();
    for i in 0..4000 {
        text.push_str(&format!("- id: c{i}\n{CASE_TAIL}"));
    }
    text.push_str(&format!("- id: c17\n{CASE_TAIL}"));
    let cases = case_file(dir.path(), &text);
    let (code, _, err) = repo(&["eval", "--cases", &cases, "--out", dir.path().to_str().unwrap(), "--no-cache"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("line 16001: duplicate case id `c17`") && err.contains(":69"), "{err}");
}

#[test]
fn item_8_a_broken_fixture_catalogue_reports_its_own_error() {
    let fixtures = tempfile::tempdir().unwrap();
    std::fs::create_dir(fixtures.path().join("injection")).unwrap();
    std::fs::write(fixtures.path().join("injection/listings.json"), "[{").unwrap();
    let (code, _, err) = repo(&[
        "eval",
        "--fixtures",
        fixtures.path().to_str().unwrap(),
        "--out",
        fixtures.path().to_str().unwrap(),
        "--no-cache",
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("injection/listings.json") && err.contains("invalid JSON"), "{err}");
    assert!(!err.contains("unknown listing id"), "{err}");
    // An overlay id that the main catalogue has is the overlay's error too.
    let dup =
        std::fs::read_to_string(root().join("fixtures/injection/listings.json")).unwrap().replace("HH-1099", "HH-1001");
    std::fs::write(fixtures.path().join("injection/listings.json"), dup).unwrap();
    let (code, _, err) = repo(&[
        "eval",
        "--fixtures",
        fixtures.path().to_str().unwrap(),
        "--out",
        fixtures.path().to_str().unwrap(),
        "--no-cache",
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("HH-1001") && err.contains("already has"), "{err}");
}

#[test]
fn item_9_a_repeated_key_is_an_error_in_listings_and_tool_arguments() {
    let cat = temp_catalogue();
    let file = cat.path().join("listings.json");
    let text =
        std::fs::read_to_string(&file).unwrap().replacen("\"price\": 1650,", "\"price\": 1650, \"price\": 9999,", 1);
    std::fs::write(&file, text).unwrap();
    let (code, _, err) = repo(&["check", "--data", cat.path().to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("duplicate key `price`") && err.contains("line"), "{err}");
    let (code, _, err) = repo(&["tool", "get_listing", r#"{"id": "HH-1001", "id": "HH-1002"}"#]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("duplicate key `id`"), "{err}");
}

#[test]
fn item_10_a_byte_order_mark_is_accepted_everywhere() {
    let cat = temp_catalogue();
    for f in ["listings.json", "policies/deposit.md"] {
        let p = cat.path().join(f);
        let text = std::fs::read_to_string(&p).unwrap();
        std::fs::write(&p, format!("\u{feff}{text}")).unwrap();
    }
    let (code, out, err) = repo(&["check", "--data", cat.path().to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("12 listings, 8 policy pages"), "{out}");
    let dir = tempfile::tempdir().unwrap();
    let cases = case_file(dir.path(), &format!("\u{feff}- id: bom\n{CASE_TAIL}"));
    let (code, _, err) = repo(&["eval", "--cases", &cases, "--out", dir.path().to_str().unwrap(), "--no-cache"]);
    assert!(matches!(code, Some(0) | Some(1)), "{err}");
}

#[test]
fn item_11_null_is_not_a_string() {
    let dir = tempfile::tempdir().unwrap();
    for value in ["~", "null", ""] {
        let cases = case_file(dir.path(), &format!("- id: n\n  lang: en\n  inquiry: {value}\n  listings: [HH-1001]\n"));
        let (code, _, err) = repo(&["eval", "--cases", &cases, "--out", dir.path().to_str().unwrap(), "--no-cache"]);
        assert_eq!(code, Some(2), "{value}: {err}");
        assert!(err.contains("expected a string, found null") && err.contains("line"), "{err}");
    }
}

#[test]
fn item_12_a_named_file_that_is_missing_is_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, err) = repo(&[
        "eval",
        "--case",
        "heating-hh-1001",
        "--prices",
        "pricse.json",
        "--out",
        dir.path().to_str().unwrap(),
        "--no-cache",
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--prices pricse.json: no such file"), "{err}");
}

#[test]
fn item_13_echoed_values_are_capped_and_escaped() {
    let long = format!("HH{}", "1".repeat(120_000));
    let (code, out, err) = repo(&["tool", "get_listing", &format!("{{\"id\": \"{long}\"}}")]);
    assert_eq!(code, Some(2));
    assert!(err.len() < 2_000 && out.len() < 2_000, "stderr {} bytes, stdout {} bytes", err.len(), out.len());
    let (code, _, err) = repo(&["eval", "--case", "heat\u{1b}[2Jing"]);
    assert_eq!(code, Some(2));
    assert!(!err.contains('\u{1b}') && err.contains("\\u{1b}"), "{err}");
}

#[test]
fn item_15_a_fifo_and_an_empty_catalogue_are_refused() {
    let cat = temp_catalogue();
    let file = cat.path().join("listings.json");
    std::fs::write(&file, "[]").unwrap();
    let (code, _, err) = repo(&["check", "--data", cat.path().to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("holds no listings"), "{err}");
    std::fs::remove_file(&file).unwrap();
    let status = Command::new("mkfifo").arg(&file).status().unwrap();
    assert!(status.success());
    let (code, _, err) = repo(&["check", "--data", cat.path().to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("is not a regular file"), "{err}");
}

fn openai_client(url: &str, key: &str) -> std::sync::Arc<dyn inquiry::agent::model::ModelClient> {
    let env = inquiry::providers::Env::from_pairs([
        ("OPENAI_BASE_URL", url.to_owned()),
        ("OPENAI_API_KEY", key.to_owned()),
        ("INQUIRY_MODEL_MAX_ATTEMPTS", "1".to_owned()),
    ]);
    inquiry::providers::client_from_spec("openai:m", &env).unwrap().unwrap()
}

async fn ask_once(
    client: &dyn inquiry::agent::model::ModelClient,
) -> Result<inquiry::agent::model::ModelResponse, inquiry::agent::model::ModelError> {
    let messages = [inquiry::agent::model::Message::User { text: "hi".into() }];
    client
        .complete(inquiry::agent::model::ModelRequest {
            system: "s",
            messages: &messages,
            tools: &[],
            max_output_tokens: 10,
            sample: 0,
        })
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn item_4_a_key_cut_by_the_error_excerpt_is_still_redacted() {
    use wiremock::{matchers::method, Mock, MockServer, ResponseTemplate};
    const KEY: &str = "sk-live-ABCDEFGHIJKLMNOPQRSTUVWXYZ012345";
    let server = MockServer::start().await;
    // The key starts at character 290 of the message: a 300-character excerpt cuts it.
    let message = format!("{}{KEY} is not valid", "x".repeat(290));
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(401)
                .set_body_json(serde_json::json!({"error": {"message": message, "type": "invalid_request_error"}})),
        )
        .mount(&server)
        .await;
    let err = ask_once(openai_client(&format!("{}/v1", server.uri()), KEY).as_ref()).await.unwrap_err().to_string();
    assert!(!err.contains("sk-live-ABCD"), "a key prefix leaked: {err}");
    assert!(err.contains("[redacted]"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn item_14_a_huge_provider_body_is_refused_and_a_runaway_reply_is_not_an_answer() {
    use wiremock::{matchers::method, Mock, MockServer, ResponseTemplate};
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(vec![b' '; 9 * 1024 * 1024], "application/json"))
        .mount(&server)
        .await;
    let err = ask_once(openai_client(&format!("{}/v1", server.uri()), "k").as_ref()).await.unwrap_err().to_string();
    assert!(err.contains("at most 8388608") || err.contains("larger than 8388608"), "{err}");

    let model =
        std::sync::Arc::new(inquiry::agent::model::ScriptedModel::new([inquiry::agent::model::ScriptStep::Respond(
            inquiry::agent::model::ModelResponse::text("a".repeat(25_000)),
        )]));
    let connected =
        inquiry::app::ConnectedAgent::connect(model, crate::support::toolbox(), Default::default()).await.unwrap();
    let result = connected.agent.run("Is heating included in HH-1001?", &[]).await.unwrap();
    connected.close().await;
    assert_eq!(
        result.outcome,
        inquiry::agent::Outcome::ForcedHandoff { cause: inquiry::agent::ForcedCause::Truncated }
    );
    assert!(result.error.unwrap().contains("at most 20000"));
}

#[test]
fn item_15_an_absurd_timeout_says_what_is_accepted() {
    let env = inquiry::providers::Env::from_pairs([("INQUIRY_MODEL_TIMEOUT_S", "18446744073709551615")]);
    let err = inquiry::providers::http_config(&env).unwrap_err().to_string();
    assert!(err.contains("at most 86400"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn item_13_over_mcp_a_huge_argument_is_not_echoed_in_full() {
    let client = inquiry::mcp::InProcessClient::connect(crate::support::toolbox()).await.unwrap();
    let huge = "X".repeat(1_000_000);
    for (tool, args) in [
        ("get_listing", serde_json::json!({"id": huge})),
        ("search_listings", serde_json::json!({"maxPrice": huge})),
        (
            "hand_off_to_human",
            serde_json::json!({"reason": "complaint", "summary": "The heating is broken again.", "contactEmail": huge}),
        ),
        (huge.as_str(), serde_json::json!({})),
    ] {
        let result = client.call_tool(tool, args).await.unwrap();
        assert!(result.is_error, "{}", &tool[..tool.len().min(20)]);
        let size = result.value.to_string().len();
        assert!(size < 2_000, "{}: a 1 MB argument came back as {size} bytes", &tool[..tool.len().min(20)]);
    }
    client.close().await;
}

#[test]
fn item_15_tools_other_than_search_knowledge_do_not_build_the_index() {
    // 3,000 listings: the catalogue loads in well under a second; the index
    // would take seconds. Here only correctness is asserted (timings are in
    // the note, measured with /usr/bin/time).
    let cat = temp_catalogue();
    let base: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(cat.path().join("listings.json")).unwrap()).unwrap();
    let mut many = vec![];
    for a in b'A'..=b'Z' {
        for n in 0..116 {
            let mut l = base[many.len() % base.len()].clone();
            l["id"] = format!("{}Q-{}", a as char, 1000 + n).into();
            many.push(l);
        }
    }
    std::fs::write(cat.path().join("listings.json"), serde_json::to_string(&many).unwrap()).unwrap();
    let data = cat.path().to_str().unwrap();
    let (code, out, err) = repo(&["tool", "get_listing", r#"{"id": "CQ-1007"}"#, "--data", data]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("\"CQ-1007\""), "{out}");
    // A bad retrieval setting does not matter to a tool that does not search.
    let (code, _, err) = repo(&[
        "tool",
        "search_listings",
        r#"{"city": "Hamburg"}"#,
        "--data",
        data,
        "--retrieval-thresholds",
        "/nonexistent.json",
    ]);
    assert_eq!(code, Some(0), "{err}");
}
