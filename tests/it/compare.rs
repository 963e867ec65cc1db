//! Baseline comparison (#15): `inquiry compare` on reports made by scripted
//! agents with known flips, the gates and their exit codes, reports that
//! cannot be compared, shards that merge into the unsharded run, and the
//! history file.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use inquiry::agent::model::{ModelClient, ModelResponse, ScriptStep, ScriptedModel};
use inquiry::agent::Limits;
use inquiry::eval::judge::{Judge, RuleJudge};
use inquiry::eval::metrics::Thresholds;
use inquiry::eval::prices::PriceTable;
use inquiry::eval::{never_interrupted, report, report_set, run_eval, EvalSetup, ModelFactory, Selection, Silent};
use inquiry::retrieval::RetrievalConfig;
use serde_json::Value;

use crate::support::{inquiry, root, texts};

/// The subset run with the demo model, except that the `broken` cases get an
/// agent that answers without looking anything up (and so fails them).
pub(crate) fn run_with_flips(broken: &[&str], repeat: usize, out: &Path, name: &str) -> PathBuf {
    let r = root();
    let setup = EvalSetup {
        data: r.join("data"),
        cases_dir: r.join("cases"),
        golden: r.join("golden/golden.yaml"),
        fixtures: r.join("fixtures"),
        retrieval: RetrievalConfig {
            thresholds: r.join("retrieval.thresholds.json"),
            cache_dir: None,
            ..Default::default()
        },
        thresholds: Thresholds::default(),
        selection: Selection { subset: true, ..Default::default() },
        concurrency: 3,
        repeat,
        limits: Limits::default(),
        prices: PriceTable::default(),
        name: name.into(),
    };
    let broken: Vec<String> = broken.iter().map(|s| (*s).to_owned()).collect();
    let factory: ModelFactory = Arc::new(move |case, _| -> Arc<dyn ModelClient> {
        if broken.contains(&case.case.id) {
            Arc::new(ScriptedModel::new([ScriptStep::Respond(ModelResponse::text("I am not sure about that, sorry."))]))
        } else {
            Arc::new(inquiry::agent::demo::DemoModel)
        }
    });
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let judge: Arc<dyn Judge> = Arc::new(RuleJudge::default());
    let result = rt
        .block_on(run_eval(
            &setup,
            Arc::new(inquiry::app::McpAgentRunner),
            "scripted",
            factory,
            Some(judge),
            &Silent,
            never_interrupted(),
            &inquiry::eval::InMemory,
        ))
        .unwrap();
    let dest = report_set::destination(Some(out), name, chrono::Utc::now()).unwrap();
    report::write_reports(&result, &dest).unwrap().dir
}

/// `compare --json` without the thresholds gate (tests/it/gates.rs covers it).
fn compare(args: &[&str]) -> (Option<i32>, Value, String) {
    let out = inquiry(&[&["compare", "--json", "--thresholds", "tests/fixtures/no-thresholds.json"], args].concat());
    let (stdout, stderr) = texts(&out);
    let value = serde_json::from_str(&stdout).unwrap_or(Value::Null);
    (out.status.code(), value, stderr)
}

fn ids(v: &Value, movement: &str) -> Vec<String> {
    v["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["movement"] == movement)
        .map(|c| c["id"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn compare_lists_exactly_the_known_flips_and_the_gates_decide_the_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    let base = run_with_flips(&[], 1, dir.path(), "base");
    // heating-hh-1001 is not critical; haggle-hh-1002-de is.
    let cand = run_with_flips(&["heating-hh-1001", "haggle-hh-1002-de"], 1, dir.path(), "cand");
    let minor = run_with_flips(&["heating-hh-1001"], 1, dir.path(), "minor");
    let (b, c, m) = (base.to_str().unwrap(), cand.to_str().unwrap(), minor.to_str().unwrap());

    let (code, v, err) = compare(&[b, c]);
    assert_eq!(code, Some(0), "no gate, no failure: {err}");
    assert_eq!(ids(&v, "newly_failing"), ["haggle-hh-1002-de", "heating-hh-1001"], "{v:#}");
    assert!(ids(&v, "newly_passing").is_empty());
    assert_eq!(v["test"]["test"], "mcnemar");
    assert_eq!((v["test"]["b"].as_u64(), v["test"]["c"].as_u64()), (Some(2), Some(0)));
    assert!((v["test"]["p"].as_f64().unwrap() - 0.5).abs() < 1e-12, "{:#}", v["test"]);
    let flip = v["cases"].as_array().unwrap().iter().find(|x| x["id"] == "heating-hh-1001").unwrap();
    assert!(flip["cand_failure"].as_str().unwrap().contains("listing not named: HH-1001"), "{flip:#}");
    assert!(flip["cand_trace"].as_str().unwrap().ends_with("cand/cases/heating-hh-1001.json"));
    assert_eq!(ids(&compare(&[c, b]).1, "newly_passing"), ["haggle-hh-1002-de", "heating-hh-1001"]);

    // --max-drop: two of twelve cases (16.7 points) fail; twelve cases cannot
    // tell that from a drop of two points (the interval straddles −2), nor
    // show it is under 20: inconclusive, exit 0 (1 with --inconclusive fail).
    let (code, v, err) = compare(&[b, c, "--max-drop", "0.02"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(v["verdict"], "INCONCLUSIVE");
    assert!(err.contains("INCONCLUSIVE: max_drop INCONCLUSIVE"), "{err}");
    let (code, _, _) = compare(&[b, c, "--max-drop", "0.02", "--inconclusive", "fail"]);
    assert_eq!(code, Some(1));
    let (code, v, _) = compare(&[b, c, "--max-drop", "0.2"]);
    assert_eq!((code, v["verdict"].as_str()), (Some(0), Some("INCONCLUSIVE")));
    let (code, v, _) = compare(&[b, c, "--max-drop", "0.6"]);
    assert_eq!((code, v["verdict"].as_str()), (Some(0), Some("PASS")));

    // --critical-all-runs: fails when the critical case flips, passes when only the other does.
    let (code, v, _) = compare(&[b, c, "--critical-all-runs"]);
    assert_eq!(code, Some(1));
    assert!(v["gates"][0]["detail"].as_str().unwrap().contains("haggle-hh-1002-de"), "{v:#}");
    let (code, _, err) = compare(&[b, m, "--critical-all-runs"]);
    assert_eq!(code, Some(0), "{err}");

    // Two flips cannot be significant at 0.05 (the smallest p is 0.5): inconclusive, not "met".
    let (code, v, _) = compare(&[b, c, "--fail-on-significant-regression"]);
    assert_eq!((code, v["gates"][0]["outcome"].as_str()), (Some(0), Some("inconclusive")));

    // The Markdown for a pull request names the flips and links both traces.
    let md = dir.path().join("compare.md");
    let out = inquiry(&[
        "compare",
        b,
        c,
        "--summary-md",
        md.to_str().unwrap(),
        "--thresholds",
        "tests/fixtures/no-thresholds.json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let text = std::fs::read_to_string(&md).unwrap();
    assert!(text.contains("### Newly failing (2)") && text.contains("[candidate]("), "{text}");
    assert_eq!(texts(&out).0, text, "stdout carries the same Markdown");
}

#[test]
fn repeats_use_the_paired_sign_flip_test() {
    let dir = tempfile::tempdir().unwrap();
    let base = run_with_flips(&[], 2, dir.path(), "base");
    let cand = run_with_flips(&["heating-hh-1001"], 2, dir.path(), "cand");
    let (code, v, err) = compare(&[base.to_str().unwrap(), cand.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    let t = &v["test"];
    assert_eq!(t["test"], "sign_flip", "{t:#}");
    assert_eq!((t["cases"].as_u64(), t["nonzero"].as_u64()), (Some(12), Some(1)));
    assert!((t["mean_difference"].as_f64().unwrap() + 1.0 / 12.0).abs() < 1e-9, "{t:#}");
    assert_eq!(t["method"], "exact");
    assert!((t["p"].as_f64().unwrap() - 1.0).abs() < 1e-12, "one changed case: p = 1");
}

#[test]
fn reports_of_different_suites_or_selections_cannot_be_compared() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    assert!(inquiry(&["eval", "--no-cache", "--out", out, "--name", "suite"]).status.code().is_some());
    assert!(inquiry(&["eval", "--no-cache", "--cases", "heldout/cases", "--out", out, "--name", "other"])
        .status
        .code()
        .is_some());
    assert!(inquiry(&["eval", "--no-cache", "--subset", "--out", out, "--name", "subset"]).status.code().is_some());
    let (code, _, err) = compare(&[&format!("{out}/suite"), &format!("{out}/other")]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("different suites") && err.contains("only in the baseline: ") && err.contains("heating-hh-1001"),
        "{err}"
    );
    let (code, _, err) = compare(&[&format!("{out}/suite"), &format!("{out}/subset")]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("select different cases: baseline all cases, candidate subset"), "{err}");
    // eval --baseline applies the same rules.
    let run = inquiry(&[
        "eval",
        "--no-cache",
        "--subset",
        "--out",
        out,
        "--name",
        "again",
        "--baseline",
        &format!("{out}/subset"),
        "--max-drop",
        "0.02",
    ]);
    let (_, err) = texts(&run);
    assert_eq!(run.status.code(), Some(0), "{err}");
    // Twelve unchanged cases cannot show that a drop is under two points.
    assert!(err.contains("baseline: INCONCLUSIVE: max_drop INCONCLUSIVE"), "{err}");
    assert!(err.contains("INCONCLUSIVE: this suite cannot decide max_drop"), "{err}");
}

#[test]
fn shards_merge_into_the_unsharded_run() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let full = inquiry(&["eval", "--no-cache", "--out", out, "--name", "full"]);
    assert!(matches!(full.status.code(), Some(0 | 1)));
    let mut parts = vec![];
    for i in 1..=3 {
        let name = format!("s{i}");
        let r = inquiry(&["eval", "--no-cache", "--shard", &format!("{i}/3"), "--out", out, "--name", &name]);
        assert!(matches!(r.status.code(), Some(0 | 1)), "{}", texts(&r).1);
        parts.push(format!("{out}/{name}"));
    }
    let shard2: Value =
        serde_json::from_str(&std::fs::read_to_string(format!("{out}/s2/report.json")).unwrap()).unwrap();
    assert_eq!(shard2["golden"]["answerable"], 0, "the golden set runs in shard 1 only");
    let merge = inquiry(
        &[&["merge"], &parts.iter().map(String::as_str).collect::<Vec<_>>()[..], &["--out", out, "--name", "all"]]
            .concat(),
    );
    assert_eq!(merge.status.code(), full.status.code(), "{}", texts(&merge).1);
    let read = |n: &str| -> Value {
        serde_json::from_str(&std::fs::read_to_string(format!("{out}/{n}/report.json")).unwrap()).unwrap()
    };
    let (a, b) = (read("full"), read("all"));
    let case_ids = |v: &Value| v["cases"].as_array().unwrap().iter().map(|c| c["id"].clone()).collect::<Vec<_>>();
    assert_eq!(case_ids(&a), case_ids(&b));
    let steady = |v: &Value| {
        v["metrics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| !m["name"].as_str().unwrap().starts_with("latency_"))
            .cloned()
            .collect::<Vec<_>>()
    };
    assert_eq!(steady(&a), steady(&b));
    assert_eq!(a["verdict"], b["verdict"]);
    // A shard missing, or one given twice, is refused.
    let r = inquiry(&["merge", &parts[0], &parts[1], "--out", out, "--name", "partial"]);
    assert_eq!(r.status.code(), Some(2));
    assert!(texts(&r).1.contains("do not add up"), "{}", texts(&r).1);
}

#[test]
fn history_appends_one_line_per_run_and_draws_a_trend() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let history = dir.path().join("history.jsonl");
    for name in ["one", "two"] {
        let r = inquiry(&[
            "eval",
            "--no-cache",
            "--subset",
            "--out",
            out,
            "--name",
            name,
            "--history",
            history.to_str().unwrap(),
        ]);
        assert_eq!(r.status.code(), Some(0), "{}", texts(&r).1);
    }
    let text = std::fs::read_to_string(&history).unwrap();
    let lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["inputs_hash"], lines[1]["inputs_hash"]);
    assert_eq!(lines[0]["model"], "demo");
    let rate = lines[0]["metrics"].as_array().unwrap().iter().find(|m| m["name"] == "case_pass_rate").unwrap();
    assert!(rate["interval"]["lo"].as_f64().unwrap() < rate["value"].as_f64().unwrap());
    let r = inquiry(&["history", history.to_str().unwrap()]);
    let (stdout, err) = texts(&r);
    assert_eq!(r.status.code(), Some(0), "{err}");
    assert!(stdout.contains("case pass rate") && stdout.matches("demo").count() == 2, "{stdout}");
    let svg = std::fs::read_to_string(dir.path().join("history.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("<title>") && svg.contains("<polygon"), "{svg}");
    // A malformed line is an error naming it; the file is left as it was.
    std::fs::write(&history, format!("{text}{{\"date\": 3}}\n")).unwrap();
    let r = inquiry(&["history", history.to_str().unwrap()]);
    assert_eq!(r.status.code(), Some(2));
    assert!(texts(&r).1.contains("history.jsonl:3: not a history line"), "{}", texts(&r).1);
    assert!(std::fs::read_to_string(&history).unwrap().starts_with(&text));
}

/// The JSON embedded in a report.html (`<script type="application/json" id="report-data">`).
fn embedded_json(html: &str) -> Value {
    let start = html.find(r#"id="report-data">"#).expect("embedded report data") + r#"id="report-data">"#.len();
    let end = start + html[start..].find("</script>").unwrap();
    serde_json::from_str(&html[start..end]).expect("the embedded data is JSON")
}

#[test]
fn every_report_set_has_an_html_page_and_compare_adds_the_changes() {
    let dir = tempfile::tempdir().unwrap();
    let base = run_with_flips(&[], 1, dir.path(), "base");
    let cand = run_with_flips(&["heating-hh-1001"], 1, dir.path(), "cand");
    let html = std::fs::read_to_string(cand.join("report.html")).unwrap();
    let json: Value = serde_json::from_str(&std::fs::read_to_string(cand.join("report.json")).unwrap()).unwrap();
    assert_eq!(embedded_json(&html), json, "report.html embeds what report.json holds");
    assert!(!html.contains("http://") && !html.contains("https://"), "no network address in the page");
    assert!(html.contains("Content-Security-Policy") && html.contains("default-src 'none'"));
    let cases = json["cases"].as_array().unwrap();
    for c in cases {
        let id = c["id"].as_str().unwrap();
        assert!(html.contains(&format!(r#"id="case-{id}""#)), "a page for {id}");
    }
    assert!(!html.contains(r#"id="changed""#), "no baseline, no comparison view");

    // compare --html: the candidate's page headed by what changed.
    let page = dir.path().join("compare.html");
    let out = inquiry(&["compare", base.to_str().unwrap(), cand.to_str().unwrap(), "--html", page.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", texts(&out).1);
    let compared = std::fs::read_to_string(&page).unwrap();
    let changed = &compared[compared.find(r#"id="changed""#).expect("the changed view")..];
    let changed = &changed[..changed.find("</section>").unwrap()];
    assert!(changed.contains("#case/heating-hh-1001") && changed.contains("newly failing"), "{changed}");
    assert_eq!(changed.matches("<a href=\"#case/").count(), 1, "only the one flip: {changed}");

    // rescore and merge write report sets too, each with its page.
    let again = dir.path().join("again");
    let out = inquiry(&["rescore", cand.to_str().unwrap(), "--out", again.to_str().unwrap(), "--name", "r"]);
    assert!(out.status.code().is_some_and(|c| c <= 1), "{}", texts(&out).1);
    let html = std::fs::read_to_string(again.join("r/report.html")).unwrap();
    assert!(html.contains(r#"id="case-heating-hh-1001""#));
}

#[test]
fn one_case_repeated_is_not_certainty() {
    // Repeats of one case are one unit: agreement among them does not make the
    // suite pass rate's interval zero-width.
    let dir = tempfile::tempdir().unwrap();
    let out = inquiry(&[
        "eval",
        "--no-cache",
        "--repeat",
        "3",
        "--case",
        "heating-hh-1001",
        "--json",
        "--out",
        dir.path().to_str().unwrap(),
    ]);
    let (stdout, err) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let v: Value = serde_json::from_str(&stdout).unwrap();
    let rate = v["metrics"].as_array().unwrap().iter().find(|m| m["name"] == "case_pass_rate").unwrap();
    assert_eq!(rate["value"], 1.0);
    let lo = rate["interval"]["lo"].as_f64().unwrap();
    assert!((lo - 0.2065).abs() < 0.001, "Wilson over 1 case: {rate:#}");
}
