//! Issue 12: verdicts you can trust. One regression test per defect, plus
//! `inquiry judge-check` on the committed labels, its LLM path against a
//! loopback mock, and malformed label files.

use std::process::Command;

use inquiry::agent::guards::{check, Evidence, Violation};
use inquiry::eval::case::{load_cases, KnownListings, LoadedCase};
use inquiry::eval::judge::{JudgeError, RuleJudge};
use serde_json::{json, Value};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::support::{inquiry, root, texts};

struct AnyListing;
impl KnownListings for AnyListing {
    fn knows(&self, _: &str, _: Option<&str>) -> bool {
        true
    }
    fn has_overlay(&self, _: &str) -> bool {
        true
    }
}

fn case(yaml: &str) -> LoadedCase {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("c.yaml"), yaml).unwrap();
    load_cases(dir.path(), &AnyListing).unwrap().remove(0)
}

const HEATING: &str = r#"- id: heating
  lang: en
  inquiry: "Is heating included in the utilities for HH-1001?"
  must:
    - text: "Heating is included"
      patterns: ['heating (is )?(also )?included']
    - text: "The utilities are 240 EUR per month"
      patterns: ['\b240\b']
  must_not:
    - text: "Claims heating costs extra"
      patterns: ['heating costs extra', 'free heating']
"#;

fn grade(c: &LoadedCase, reply: &str) -> Vec<bool> {
    let v = RuleJudge::default().grade(c, reply).unwrap();
    v.must.iter().chain(&v.must_not).map(|g| g.ok).collect()
}

#[test]
fn defect_1_an_item_without_patterns_is_unmeasured_not_failed() {
    let c = case(
        "- id: plain\n  lang: en\n  inquiry: \"Is heating included?\"\n  must:\n    - text: \"Heating is included\"\n  must_not:\n    - text: \"Claims heating costs extra\"\n",
    );
    let err = RuleJudge::default().grade(&c, "Heating is included [HH-1001#s5].").unwrap_err();
    assert!(matches!(err, JudgeError::Ungradable(_)), "{err:?}");
    let msg = err.to_string();
    assert!(msg.contains("must 1") && msg.contains("must_not 1") && msg.contains("--judge llm"), "{msg}");
}

#[test]
fn defect_1_eval_shows_judge_correctness_unmeasured_when_nothing_could_be_graded() {
    let dir = tempfile::tempdir().unwrap();
    let cases = dir.path().join("cases.yaml");
    std::fs::write(
        &cases,
        "- id: plain-heating\n  lang: en\n  inquiry: \"Is heating included in the utilities for HH-1001?\"\n  listings: [HH-1001]\n  must:\n    - text: \"Heating is included\"\n",
    )
    .unwrap();
    let out =
        inquiry(&["eval", "--cases", cases.to_str().unwrap(), "--out", dir.path().to_str().unwrap(), "--no-cache"]);
    let (_, err) = texts(&out);
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("eval/report.json")).unwrap()).unwrap();
    let judge = report["metrics"].as_array().unwrap().iter().find(|m| m["name"] == "judge_correctness").unwrap();
    assert!(judge["value"].is_null(), "{judge:#}");
    assert_eq!(judge["status"], "unmeasured", "{judge:#}");
    assert_eq!(report["cases"][0]["status"], "unmeasured", "never a pass, never a fail");
    assert!(err.contains("case_pass_rate unmeasured"), "no rate is computed from nothing: {err}");
    // Every run reached the agent, so this is no infrastructure failure: the
    // unmeasured bounded metric fails the gate (exit 1), as documented.
    assert_eq!(out.status.code(), Some(2), "the judge graded no run: {err}");
    assert!(err.contains("graded no run"), "{err}");
}

#[test]
fn defect_2_the_customer_s_quoted_question_does_not_convey_a_fact() {
    let c = case(HEATING);
    // Only the question's words: neither fact is conveyed.
    let echo = "On your question “Is heating included in the utilities for HH-1001?”, a colleague will get back to you [HH-1001].";
    assert_eq!(grade(&c, echo), [false, false, true]);
    // Quoting the record does convey it.
    let quote = "On your question “Is heating included in the utilities for HH-1001?”, our records say: “Utilities (Nebenkosten) are an additional 240 EUR per month, heating included.” [HH-1001#s5]";
    assert_eq!(grade(&c, quote), [true, true, true]);
    // Reported speech is the customer's question, not a claim.
    assert!(!grade(&c, "Thanks for asking whether heating is included. A colleague will confirm.")[0]);
}

#[test]
fn defect_2_questions_and_negated_clauses_do_not_count_as_conveyed() {
    let c = case(HEATING);
    assert_eq!(grade(&c, "Is heating included? The utilities are 240 EUR [HH-1001].")[..2], [false, true]);
    assert_eq!(grade(&c, "Heating is not included in the 240 EUR utilities [HH-1001].")[..2], [false, false]);
    assert_eq!(grade(&c, "Heating is not included, but the utilities are 240 EUR [HH-1001].")[..2], [false, true]);
    assert!(
        grade(&c, "Die Heizung ist nicht inbegriffen; heating included ist falsch.")[0],
        "quote-free text still counts"
    );
    // A must_not statement in the same clause overrides the must hit.
    assert_eq!(grade(&c, "Free heating included, and the utilities are 240 EUR [HH-1001]."), [false, true, false]);
    // A negated must_not statement is not made.
    assert!(grade(&c, "It doesn't come with free heating: heating is included in the 240 EUR [HH-1001#s5].")[2]);
}

fn evidence(user: &str, tool: Value) -> Evidence {
    let mut e = Evidence::default();
    e.add_user_text(user);
    e.add_tool_result(&tool);
    e
}

#[test]
fn defect_3_figures_the_customer_wrote_need_no_citation() {
    let e = evidence("Do you have a house for rent in Berlin under 500 EUR?", json!({"total": 0, "results": []}));
    assert_eq!(check("We have no houses for rent in Berlin under 500 EUR.", &e), Vec::<Violation>::new());
    let e = evidence("Would you accept 1.100 € for HH-1001?", json!({"ticketId": "TKT-0001"}));
    assert_eq!(check("I have passed your offer of 1.100 € to a colleague.", &e), Vec::<Violation>::new());
    // A figure from a tool still needs a source.
    let e = evidence("How much is HH-1001?", json!({"id": "HH-1001", "price": 1650}));
    assert_eq!(check("The rent is 1,650 EUR per month.", &e), vec![Violation::MissingEvidence]);
}

fn bin(args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, String, String) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_inquiry"));
    c.args(args).current_dir(root());
    for v in ["OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "INQUIRY_HOME"] {
        c.env_remove(v);
    }
    c.env("INQUIRY_MODEL_MAX_ATTEMPTS", "1").env("INQUIRY_MODEL_TIMEOUT_S", "5");
    // A response cache of this call's own, removed afterwards.
    let cache = tempfile::tempdir().unwrap();
    c.env("INQUIRY_CACHE_DIR", cache.path());
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.output().unwrap();
    let (o, e) = texts(&out);
    (out.status.code(), o, e)
}

/// A loopback port with nothing listening.
fn closed_port() -> String {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    drop(l);
    format!("http://127.0.0.1:{port}/v1")
}

#[test]
fn defect_4_an_unreachable_model_is_exit_2_not_a_worse_agent() {
    let dir = tempfile::tempdir().unwrap();
    let url = closed_port();
    let out = dir.path().to_str().unwrap();
    let junit = dir.path().join("junit.xml");
    let (code, _, err) = bin(
        &["eval", "--subset", "--model", "openai:foo", "--out", out, "--no-cache", "--junit", junit.to_str().unwrap()],
        &[("OPENAI_BASE_URL", &url)],
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("every agent call failed (12 runs)"), "{err}");
    assert!(err.contains("UNMEASURED") && !err.contains("FAIL"), "not reported as a worse agent: {err}");
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("eval/report.json")).unwrap()).unwrap();
    for name in ["case_pass_rate", "handoff_precision", "handoff_recall"] {
        let m = report["metrics"].as_array().unwrap().iter().find(|m| m["name"] == name).unwrap();
        assert!(m["value"].is_null(), "{name} computed from fallback tickets: {m:#}");
    }
    let xml = std::fs::read_to_string(&junit).unwrap();
    let (cases_part, thresholds_part) = xml.split_once("<testsuite name=\"inquiry-thresholds\"").unwrap();
    assert_eq!(cases_part.matches("<error").count(), 12, "errors, not failures: {xml}");
    assert!(thresholds_part.contains("threshold case_pass_rate") && thresholds_part.contains("<error"), "{xml}");
    assert!(!xml.contains("<failure"), "{xml}");

    // ask: exit 2, and the fallback reply is not shown as an answer.
    let (code, stdout, err) = bin(
        &["ask", "Is heating included in HH-1001?", "--model", "openai:foo", "--no-cache"],
        &[("OPENAI_BASE_URL", &url)],
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(stdout.is_empty(), "{stdout}");
    assert!(err.contains("could not answer"), "{err}");

    // openai: with neither a base URL nor a key says so before calling anything.
    let (code, _, err) = bin(&["ask", "Is heating included in HH-1001?", "--model", "openai:foo"], &[]);
    assert_eq!(code, Some(2));
    assert!(err.contains("OPENAI_BASE_URL") && err.contains("OPENAI_API_KEY"), "{err}");
}

#[test]
fn defect_4_an_unreachable_judge_is_exit_2_not_every_case_failed() {
    let dir = tempfile::tempdir().unwrap();
    let url = closed_port();
    let (code, _, err) = bin(
        &[
            "eval",
            "--subset",
            "--judge",
            "llm",
            "--judge-model",
            "openai:judge",
            "--out",
            dir.path().to_str().unwrap(),
            "--no-cache",
        ],
        &[("OPENAI_BASE_URL", &url)],
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("graded no run"), "{err}");
    assert!(!err.contains("FAIL heating"), "no case is failed for the judge's outage: {err}");
}

#[test]
fn judge_check_runs_offline_on_the_committed_labels() {
    let dir = tempfile::tempdir().unwrap();
    let (code, stdout, err) = bin(&["judge-check", "--json", "--out", dir.path().to_str().unwrap()], &[]);
    assert_eq!(code, Some(0), "{err}");
    let r: Value = serde_json::from_str(&stdout).unwrap();
    let splits: Vec<&str> = r["agreement"].as_array().unwrap().iter().map(|a| a["split"].as_str().unwrap()).collect();
    assert_eq!(
        splits,
        [
            "dev", "dev2", "dev3", "dev4", "dev5", "dev6", "dev7", "dev8", "dev9", "dev10", "dev11", "dev12", "dev13",
            "dev14", "dev15", "dev16", "dev17", "dev18", "dev19", "dev20", "dev21", "dev22", "dev23", "dev24", "dev25",
            "dev26", "dev27", "dev28", "dev29", "dev30", "dev31", "dev32", "dev33", "dev34", "dev35", "dev36", "dev37",
            "dev38", "dev39", "dev40", "dev41", "dev42", "dev43", "dev44", "dev45", "dev46", "dev47", "dev48", "dev49",
            "dev50", "dev51", "dev52", "dev53", "dev54", "dev55", "dev56", "dev57", "dev58", "dev59", "test", "test2",
            "all"
        ]
    );
    let all = &r["agreement"][splits.len() - 1];
    assert!(all["replies"].as_u64().unwrap() >= 60, "{all:#}");
    assert!(all["item_kappa"].is_number() && all["human_pass_rate"].is_number() && all["judge_pass_rate"].is_number());
    assert!(all["false_passes"].is_u64() && all["false_fails"].is_u64());
    // Per route, the items each decided; together they are every graded item.
    let routed: u64 = all["routes"].as_array().unwrap().iter().map(|r| r["items"].as_u64().unwrap()).sum();
    assert_eq!(routed, all["items"].as_u64().unwrap(), "{all:#}");
    assert!(all["false_passes_items_only"].as_u64().unwrap() >= all["false_passes"].as_u64().unwrap());
    assert!(err.contains("item κ") && err.contains("false pass"), "{err}");
    let md = std::fs::read_to_string(dir.path().join("judge-check/report.md")).unwrap();
    assert!(md.contains("## Disagreements") && md.contains("> "), "every disagreement with its reply");
    // A bound it misses is exit 1.
    let t = dir.path().join("t.json");
    std::fs::write(&t, r#"{"judge_kappa": {"min": 0.99}}"#).unwrap();
    let (code, _, err) =
        bin(&["judge-check", "--thresholds", t.to_str().unwrap(), "--out", dir.path().to_str().unwrap()], &[]);
    assert_eq!(code, Some(1), "{err}");
}

fn labels_dir(text: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("dev.yaml"), text).unwrap();
    dir
}

const TWO_LABELS: &str = r#"- id: right
  case: heating-hh-1001
  kind: correct
  style: model
  reply: "Yes, heating is covered by the 240 EUR utilities [HH-1001]."
  conveyed: [true, true]
  stated: [false]
  evidence:
    - tool: get_listing
      arguments: {id: HH-1001}
- id: wrong
  case: heating-hh-1001
  kind: wrong
  style: subtle
  reply: "Heating is not part of the 240 EUR utilities [HH-1001]."
  conveyed: [false, true]
  stated: [true]
  evidence:
    - tool: get_listing
      arguments: {id: HH-1001}
"#;

#[test]
fn judge_check_llm_path_goes_through_the_provider() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = rt.block_on(MockServer::start());
    let verdict = json!({"must": [{"item": 1, "met": true}, {"item": 2, "met": true}], "must_not": [{"item": 1, "violated": false}], "unsupported_claims": [], "language": "en"});
    let body = json!({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "judge",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": verdict.to_string()}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
    });
    rt.block_on(
        Mock::given(method("POST"))
            .and(path("/v1/chat/completions"))
            .respond_with(ResponseTemplate::new(200).set_body_json(body))
            .mount(&server),
    );
    let labels = labels_dir(TWO_LABELS);
    let out = tempfile::tempdir().unwrap();
    let url = format!("{}/v1", server.uri());
    let (code, stdout, err) = bin(
        &[
            "judge-check",
            "--judge",
            "llm",
            "--judge-model",
            "openai:judge",
            "--labels",
            labels.path().to_str().unwrap(),
            "--json",
            "--out",
            out.path().to_str().unwrap(),
        ],
        &[("OPENAI_BASE_URL", &url)],
    );
    assert_eq!(code, Some(0), "{err}");
    let r: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(r["judge"], "llm:openai:judge");
    let all = &r["agreement"][1];
    assert_eq!(
        (all["replies_graded"].as_u64(), all["false_passes"].as_u64(), all["wrong_replies"].as_u64()),
        (Some(2), Some(1), Some(1)),
        "{all:#}"
    );
    assert_eq!(r["disagreements"].as_array().unwrap().len(), 2, "must 1 and must_not 1 of the wrong reply");
    let requests = rt.block_on(server.received_requests()).unwrap();
    assert_eq!(requests.len(), 2, "one judge call per label");
}

#[test]
fn malformed_label_files_name_the_file_line_and_field() {
    let kinds: Vec<(String, Vec<&str>)> = vec![
        (
            TWO_LABELS.replace("conveyed: [false, true]", "conveyed: [false]"),
            vec!["dev.yaml", "line 11", "label `wrong`, field `conveyed`", "2 must items"],
        ),
        (
            TWO_LABELS.replace("case: heating-hh-1001\n  kind: wrong", "case: nope\n  kind: wrong"),
            vec!["dev.yaml", "line 11", "field `case`", "unknown case `nope`"],
        ),
        (
            TWO_LABELS.replace("kind: wrong", "kind: correct"),
            vec!["dev.yaml", "line 11", "field `kind`", "the verdicts say the reply is wrong"],
        ),
        (TWO_LABELS.replace("- id: wrong", "- id: right"), vec!["dev.yaml", "line 11", "duplicate id"]),
        (
            TWO_LABELS.replace("style: subtle", "style: subtle\n  verdict: x"),
            vec!["dev.yaml", "unknown field `verdict`", "line 15"],
        ),
        (TWO_LABELS.replace("- tool: get_listing\n      arguments: {id: HH-1001}\n\"#", ""), vec![]),
        (
            TWO_LABELS.replacen("tool: get_listing", "tool: get_listings", 1),
            vec!["dev.yaml", "line 1", "field `evidence`", "unknown tool `get_listings`"],
        ),
        (TWO_LABELS.replacen("reply: \"Yes", "reply: ~\n  x: \"Yes", 1), vec!["dev.yaml"]),
    ];
    for (text, needles) in kinds.into_iter().filter(|(_, n)| !n.is_empty()) {
        let labels = labels_dir(&text);
        let out = tempfile::tempdir().unwrap();
        let (code, _, err) = bin(
            &["judge-check", "--labels", labels.path().to_str().unwrap(), "--out", out.path().to_str().unwrap()],
            &[],
        );
        assert_eq!(code, Some(2), "{text}\n{err}");
        for n in needles {
            assert!(err.contains(n), "expected {n:?} in: {err}");
        }
    }
}

/// A label may answer a label-only case of `<labels>/cases/` (a sibling that `eval` never runs); a
/// label-only case that reuses a suite case's id is refused with both places named.
#[test]
fn judge_check_grades_labels_of_label_only_cases() {
    let labels = labels_dir(
        r#"- id: sibling-right
  case: lift-hh-1002-sibling
  kind: correct
  style: model
  reply: "HH-1002 is on the fifth floor, and there is no lift in the building [HH-1002]."
  conveyed: [true]
  stated: []
  evidence:
    - tool: get_listing
      arguments: {id: HH-1002}
"#,
    );
    let cases = labels.path().join("cases");
    std::fs::create_dir(&cases).unwrap();
    let sibling = r#"- id: lift-hh-1002-sibling
  lang: en
  inquiry: "Is there a lift at HH-1002?"
  listings: [HH-1002]
  must:
    - text: "The building has no lift"
      patterns: ['no lift']
"#;
    std::fs::write(cases.join("siblings.yaml"), sibling).unwrap();
    let out = tempfile::tempdir().unwrap();
    let args =
        ["judge-check", "--labels", labels.path().to_str().unwrap(), "--json", "--out", out.path().to_str().unwrap()];
    let (code, stdout, err) = bin(&args, &[]);
    assert_eq!(code, Some(0), "{err}");
    let r: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(r["labels"][0]["case"], "lift-hh-1002-sibling");
    assert_eq!(r["labels"][0]["verdict"]["must"][0]["ok"], true, "{:#}", r["labels"][0]);
    // The same id as a suite case: refused, naming the directory and the id.
    std::fs::write(cases.join("siblings.yaml"), sibling.replace("lift-hh-1002-sibling", "heating-hh-1001")).unwrap();
    let (code, _, err) = bin(&args, &[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("heating-hh-1001") && err.contains("label-only"), "{err}");
}
