//! Issue 16: what a new user tripped over, one test per finding.

use std::process::Command;

use serde_json::Value;

use crate::support::root;

fn repo(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_inquiry"))
        .args(args)
        .current_dir(root())
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

#[test]
fn ad_hoc_runs_go_to_a_git_ignored_run_directory_with_a_latest_pointer() {
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_inquiry"))
            .arg("-C")
            .arg(dir.path())
            .args(args)
            .args(["--data", root().join("data").to_str().unwrap(), "--cases", root().join("cases").to_str().unwrap()])
            .args([
                "--golden",
                root().join("golden/golden.yaml").to_str().unwrap(),
                "--fixtures",
                root().join("fixtures").to_str().unwrap(),
            ])
            .args([
                "--thresholds",
                root().join("thresholds.json").to_str().unwrap(),
                "--retrieval-thresholds",
                root().join("retrieval.thresholds.json").to_str().unwrap(),
            ])
            .output()
            .unwrap()
    };
    let out = run(&["eval", "--case", "heating-hh-1001", "--no-cache"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let latest = dir.path().join("runs/latest");
    assert!(latest.join("report.md").is_file(), "runs/latest points at the run");
    let target = std::fs::read_link(&latest).unwrap();
    assert!(target.to_string_lossy().ends_with("-eval"), "{}", target.display());
    assert!(!dir.path().join("reports").exists(), "committed reports are written only when asked for");
    let ignore = std::fs::read_to_string(root().join(".gitignore")).unwrap();
    assert!(ignore.lines().any(|l| l == "/runs"), "runs/ is git-ignored");
}

#[test]
fn the_console_summary_names_each_failing_case_with_its_first_failure() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, err) = repo(&["eval", "--out", dir.path().to_str().unwrap(), "--no-cache"]);
    assert!(matches!(code, Some(0) | Some(1)), "{err}");
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("eval/report.json")).unwrap()).unwrap();
    for c in report["cases"].as_array().unwrap().iter().filter(|c| c["status"] != "pass") {
        let first = c["runs"][0]["failures"][0].as_str().unwrap();
        let line = format!("FAIL {}: {first}", c["id"].as_str().unwrap());
        assert!(err.contains(&line), "expected {line:?} in:\n{err}");
    }
}

#[test]
fn repeat_output_has_pass_at_k_pass_hat_k_one_reply_per_wording_and_well_formed_lists() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, err) = repo(&[
        "eval",
        "--case",
        "deposit-instalments",
        "--repeat",
        "3",
        "--out",
        dir.path().to_str().unwrap(),
        "--no-cache",
    ]);
    assert!(matches!(code, Some(0) | Some(1)), "{err}");
    let md = std::fs::read_to_string(dir.path().join("eval/report.md")).unwrap();
    assert!(md.contains("| case | runs | passed | pass@1 | pass^1 | pass@2 | pass^2 | pass@3 | pass^3 |"), "{md}");
    assert!(md.contains("## Flaky cases"), "{md}");
    // The deterministic demo gives three identical replies: shown once.
    assert_eq!(md.matches("**Reply:**").count(), 1, "{md}");
    assert!(md.contains("Runs 1, 2, 3: **Reply:**"), "{md}");
    // Every failure list ends with a blank line, so what follows is not inside it.
    for (i, line) in md.lines().enumerate().skip(1) {
        let prev = md.lines().nth(i - 1).unwrap();
        if prev.starts_with("- ") && !line.is_empty() {
            assert!(line.starts_with("- "), "line {i} follows a list item without a blank line: {line:?}");
        }
    }
}

#[test]
fn case_messages_name_the_language_list_tags_and_hide_rust_type_names() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, err) = repo(&["eval", "--tag", "nosuchtag", "--out", dir.path().to_str().unwrap()]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("--tag nosuchtag: no case has this tag") && err.contains("fact") && err.contains("search"),
        "{err}"
    );
    let t = dir.path().join("t.json");
    std::fs::write(&t, r#"{"case_pass_rate": 0.9}"#).unwrap();
    let (code, _, err) = repo(&["eval", "--thresholds", t.to_str().unwrap(), "--out", dir.path().to_str().unwrap()]);
    assert_eq!(code, Some(2));
    assert!(!err.contains("struct Bounds") && err.contains("a mapping"), "{err}");
    let cases = dir.path().join("c.yaml");
    std::fs::write(&cases, "- id: a\n  lang: en\n  inquiry: \"Hi\"\n  listings: [HH-1001]\n  musts: []\n").unwrap();
    let (code, _, err) = repo(&["eval", "--cases", cases.to_str().unwrap(), "--out", dir.path().to_str().unwrap()]);
    assert_eq!(code, Some(2));
    assert_eq!(err.matches("line 5").count(), 1, "a location is printed once: {err}");
    std::fs::write(&cases, "- id: a\n  lang: en\n  inquiry: \"Hi there\"\n").unwrap();
    let (code, _, err) = repo(&["eval", "--cases", cases.to_str().unwrap(), "--out", dir.path().to_str().unwrap()]);
    assert_eq!(code, Some(2));
    assert!(err.contains("the case checks nothing"), "{err}");
}

#[test]
fn a_listing_id_without_its_hyphen_gets_a_suggestion() {
    let (code, out, err) = repo(&["tool", "get_listing", r#"{"id": "HH1001"}"#]);
    assert_eq!(code, Some(2));
    assert!(err.contains("did you mean HH-1001?"), "{err}");
    assert!(out.contains("did you mean HH-1001?"), "the model sees the hint too: {out}");
}

#[test]
fn a_missing_thresholds_file_hints_at_dash_c() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_inquiry"))
        .args(["eval"])
        .current_dir(dir.path())
        .env_remove("INQUIRY_HOME")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("thresholds.json") && err.contains("-C DIR"), "{err}");
}

#[test]
fn suites_in_other_shapes_load_jsonl_camel_case_and_plain_string_items() {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("suite.jsonl");
    std::fs::write(
        &suite,
        concat!(
            r#"{"id": "plain-heating", "lang": "en", "inquiry": "Is heating included in the utilities for HH-1001?", "listings": ["HH-1001"], "must": ["Heating is included"], "mustNot": ["Claims heating costs extra"], "allowHandoffs": ["not_answerable_from_listing"]}"#,
            "\n\n",
            r#"{"id": "patterned-heating", "lang": "en", "inquiry": "Is heating included in the utilities for HH-1001?", "listings": ["HH-1001"], "must": [{"text": "Heating is included", "patterns": ["heating (is )?included"]}]}"#,
            "\n"
        ),
    )
    .unwrap();
    let (code, out, err) = repo(&[
        "eval",
        "--cases",
        suite.to_str().unwrap(),
        "--out",
        dir.path().to_str().unwrap(),
        "--json",
        "--no-cache",
    ]);
    assert!(matches!(code, Some(0) | Some(1)), "{err}");
    let report: Value = serde_json::from_str(&out).unwrap();
    let status =
        |id: &str| report["cases"].as_array().unwrap().iter().find(|c| c["id"] == id).unwrap()["status"].clone();
    assert_eq!(status("plain-heating"), "unmeasured", "plain-string items are for the LLM judge");
    assert_eq!(status("patterned-heating"), "pass");
    // A golden set given as JSON loads too.
    let golden = dir.path().join("golden.json");
    std::fs::write(&golden, r#"{"answerable": [{"id": "heating", "lang": "en", "question": "Is heating included in the utilities?", "listing": "HH-1001", "expected": ["HH-1001#s5"]}], "unanswerable": [{"id": "gym", "lang": "en", "question": "Is there a gym nearby?"}]}"#).unwrap();
    let (code, _, err) = repo(&[
        "eval",
        "--case",
        "heating-hh-1001",
        "--golden",
        golden.to_str().unwrap(),
        "--out",
        dir.path().to_str().unwrap(),
        "--no-cache",
    ]);
    assert!(matches!(code, Some(0) | Some(1)), "{err}");
}

#[test]
fn calibrate_says_when_a_route_is_switched_off_and_its_svg_has_a_title_and_axis_labels() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, err) = repo(&["calibrate", "--out", dir.path().to_str().unwrap(), "--name", "c", "--no-cache"]);
    assert!(matches!(code, Some(0) | Some(1)), "{err}");
    let svg = std::fs::read_to_string(dir.path().join("c/report.svg")).unwrap();
    assert!(svg.contains("<title>Calibration of") && svg.contains("z-score of the cosine"), "{svg}");
    assert!(!svg.contains(">1.003<") && !svg.contains(">2.886<"), "ticks at round values");
    // Offline, vectorZ does not separate and is set above every golden score.
    assert!(err.contains("vectorZ: proposed") && err.contains("so this route keeps nothing on its own"), "{err}");
}
