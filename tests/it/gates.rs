//! Gates that agree with their own statistics (#28): one regression test per
//! contradiction the issue found, on reports made by scripted agents with
//! known flips.

use serde_json::Value;

use crate::compare::run_with_flips;
use crate::support::{inquiry, texts};

fn compare(args: &[&str]) -> (Option<i32>, Value, String) {
    let out = inquiry(&[&["compare", "--json"], args].concat());
    let (stdout, stderr) = texts(&out);
    (out.status.code(), serde_json::from_str(&stdout).unwrap_or(Value::Null), stderr)
}

fn gate<'a>(v: &'a Value, name: &str) -> &'a Value {
    v["gates"].as_array().unwrap().iter().find(|g| g["gate"] == name).unwrap_or_else(|| panic!("{name}: {v:#}"))
}

const FOUR: [&str; 4] = ["heating-hh-1001", "broadband-m-3002", "provision-miete-de", "besichtigung-k-4002-de"];

#[test]
fn four_flips_are_never_met_and_the_exact_test_says_it_cannot_reach_alpha() {
    let dir = tempfile::tempdir().unwrap();
    let base = run_with_flips(&[], 1, dir.path(), "base");
    let cand = run_with_flips(&FOUR, 1, dir.path(), "cand");
    let (b, c) = (base.to_str().unwrap(), cand.to_str().unwrap());
    let args = [
        b,
        c,
        "--max-drop",
        "0.02",
        "--fail-on-significant-regression",
        "--thresholds",
        "tests/fixtures/no-thresholds.json",
    ];
    let (code, v, err) = compare(&args);
    assert_eq!((v["test"]["b"].as_u64(), v["test"]["c"].as_u64()), (Some(4), Some(0)), "{:#}", v["test"]);
    // The decision and the printed interval are one: never "met" beside an interval below zero.
    let paired = &v["paired"];
    let hi = paired["interval"]["hi"].as_f64().unwrap();
    let drop = gate(&v, "max_drop");
    assert_ne!(drop["outcome"], "met", "{drop:#}");
    if hi < 0.0 {
        assert_eq!(drop["outcome"], "missed");
    }
    let detail = drop["detail"].as_str().unwrap();
    assert!(detail.contains(&format!("{:+.1}]", hi * 100.0)), "the gate names the interval it decided on: {detail}");
    let sig = gate(&v, "significant_regression");
    assert_eq!(sig["outcome"], "inconclusive", "{sig:#}");
    assert!(
        sig["detail"].as_str().unwrap().contains("cannot reach α = 0.05 with b + c = 4 discordant pairs"),
        "{sig:#}"
    );
    // INCONCLUSIVE exits 0 with a loud line; --inconclusive fail exits 1; every output says the word.
    assert_eq!(v["verdict"], "INCONCLUSIVE", "{err}");
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("INCONCLUSIVE: this suite cannot decide"), "{err}");
    let junit = dir.path().join("gates.xml");
    let mut full = vec!["compare"];
    full.extend_from_slice(&args);
    full.extend(["--inconclusive", "fail", "--junit", junit.to_str().unwrap()]);
    let out = inquiry(&full);
    assert_eq!(out.status.code(), Some(1), "{}", texts(&out).1);
    let (md, err) = texts(&out);
    assert!(md.contains("## Compare — INCONCLUSIVE") && err.contains("INCONCLUSIVE"), "{md}");
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.contains("inquiry-compare INCONCLUSIVE") && xml.contains("INCONCLUSIVE: "), "{xml}");
    assert!(md.contains("Power: with 12 cases"), "the power line: {md}");
    assert!(md.contains("| all | 12 |") && md.contains("Benjamini–Hochberg"), "{md}");
}

#[test]
fn a_deterministic_flip_reads_the_same_with_three_repeats_as_with_one() {
    let dir = tempfile::tempdir().unwrap();
    let verdicts: Vec<(Value, Value)> = [1, 3]
        .into_iter()
        .map(|k| {
            let base = run_with_flips(&[], k, dir.path(), &format!("base{k}"));
            let cand = run_with_flips(&["heating-hh-1001"], k, dir.path(), &format!("cand{k}"));
            let (_, v, err) = compare(&[
                base.to_str().unwrap(),
                cand.to_str().unwrap(),
                "--max-drop",
                "0.02",
                "--thresholds",
                "tests/fixtures/no-thresholds.json",
            ]);
            assert!(v.is_object(), "{err}");
            (v["verdict"].clone(), v["paired"].clone())
        })
        .collect();
    assert_eq!(verdicts[0].0, verdicts[1].0, "K = 3 of a deterministic model says what K = 1 says");
    for key in ["mean", "se"] {
        assert_eq!(verdicts[0].1[key], verdicts[1].1[key], "{key}: {:#} vs {:#}", verdicts[0].1, verdicts[1].1);
    }
    assert_eq!(verdicts[0].1["interval"], verdicts[1].1["interval"]);
    assert_ne!(verdicts[1].0, "FAIL", "one flip of twelve is not a proven drop of more than two points");
}

fn metric<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["metrics"].as_array().unwrap().iter().find(|m| m["name"] == name).unwrap()
}

#[test]
fn repeats_are_not_independent_observations() {
    let dir = tempfile::tempdir().unwrap();
    let cand = run_with_flips(&["heating-hh-1001"], 3, dir.path(), "cand");
    let r: Value = serde_json::from_str(&std::fs::read_to_string(cand.join("report.json")).unwrap()).unwrap();
    let judge = metric(&r, "judge_correctness");
    let cases = metric(&r, "case_pass_rate");
    // 33 of 36 runs, but 11 of 12 cases: the interval is the case-level one.
    let wilson_11_12 = inquiry::stats::wilson(11, 12, inquiry::stats::Z95).unwrap();
    let wilson_33_36 = inquiry::stats::wilson(33, 36, inquiry::stats::Z95).unwrap();
    let lo = |m: &Value| m["interval"]["lo"].as_f64().unwrap();
    let hi = |m: &Value| m["interval"]["hi"].as_f64().unwrap();
    assert!((lo(cases) - wilson_11_12.lo).abs() < 0.02, "{cases:#}");
    assert!(hi(cases) < 1.0, "one case failed all its runs: the upper end is not 100%: {cases:#}");
    assert!(lo(judge) < wilson_33_36.lo - 0.05, "judge_correctness does not count 36 runs as 36 cases: {judge:#}");
    assert!((lo(judge) - lo(cases)).abs() < 0.02, "the case-level interval: {judge:#} vs {cases:#}");
    assert!(judge["design_effect"].as_f64().unwrap() > 1.5, "{judge:#}");
}

#[test]
fn compare_applies_the_thresholds_and_refuses_incomplete_reports() {
    let dir = tempfile::tempdir().unwrap();
    let base = run_with_flips(&[], 1, dir.path(), "base");
    let cand = run_with_flips(&[], 1, dir.path(), "cand");
    let json = cand.join("report.json");
    let mut r: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    for m in r["metrics"].as_array_mut().unwrap() {
        if m["name"] == "unanswerable_false_positives" {
            m["value"] = 7.0.into();
            m["detail"] = "7/8".into();
        }
    }
    std::fs::write(&json, serde_json::to_string(&r).unwrap()).unwrap();
    let (b, c) = (base.to_str().unwrap(), cand.to_str().unwrap());
    let (code, v, err) = compare(&[b, c]);
    assert_eq!(code, Some(1), "thresholds.json is applied by default: {err}");
    let t = gate(&v, "thresholds");
    assert_eq!(t["outcome"], "missed");
    assert!(t["detail"].as_str().unwrap().contains("unanswerable_false_positives 7 (max 0)"), "{t:#}");

    // An interrupted candidate: exit 2 with the missing case count, whatever the gates say.
    r["incomplete"] = serde_json::json!({
        "reason": "interrupted by SIGINT", "runs_finished": 2, "runs_planned": 12,
        "unfinished_cases": ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"]
    });
    r["verdict"] = "INCOMPLETE".into();
    std::fs::write(&json, serde_json::to_string(&r).unwrap()).unwrap();
    let (code, v, err) = compare(&[b, c, "--max-drop", "0.5"]);
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(v["verdict"], "INCOMPLETE");
    assert!(err.contains("the candidate is INCOMPLETE (interrupted by SIGINT): 10 cases missing"), "{err}");
}

#[test]
fn power_says_what_the_bundled_suite_can_decide() {
    let out = inquiry(&["power", "reports/eval", "--json"]);
    let (stdout, err) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let p: Value = serde_json::from_str(&stdout).unwrap();
    let mde = p["minimum_detectable_drop"].as_f64().unwrap();
    assert!(mde > 0.1 && mde < 0.2, "{p:#}");
    assert!(p["cases_needed"].as_u64().unwrap() > 300, "two points need hundreds of cases: {p:#}");
    let out = inquiry(&["power", "reports/eval", "--repeat", "3"]);
    let text = texts(&out).0;
    assert!(text.contains("target drop 2.0 points: NOT decidable with this suite"), "{text}");
}
