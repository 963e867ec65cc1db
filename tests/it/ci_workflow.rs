//! The CI eval workflow (#29) without GitHub: the scripts of `scripts/ci/`
//! that `.github/workflows/eval.yml` calls, run in order on the bundled
//! subset with a simulated matrix of three shards, `GITHUB_OUTPUT`,
//! `GITHUB_STEP_SUMMARY` and a pull-request event, for a change that passes,
//! one that regresses, one too small to decide, and one whose thresholds miss.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::support::root;

struct Pipeline {
    dir: PathBuf,
    eval_dir: PathBuf,
    cases: PathBuf,
    thresholds: PathBuf,
    /// The gates for the comparison (`GATE_ARGS`).
    gates: String,
}

impl Pipeline {
    fn new(dir: &Path, name: &str, cases: &Path, thresholds: &Path) -> Self {
        let eval_dir = dir.join(name);
        std::fs::create_dir_all(&eval_dir).unwrap();
        // A 12-case subset decides a 20-point margin when nothing changed (`inquiry power` says
        // what a suite can detect); the workflow's default two points needs far more cases.
        let gates = "--max-drop 0.2 --critical-all-runs".to_owned();
        Self { dir: dir.to_owned(), eval_dir, cases: cases.to_owned(), thresholds: thresholds.to_owned(), gates }
    }

    fn script(&self, name: &str, args: &[&str]) -> (i32, String) {
        let event = self.dir.join("event.json");
        std::fs::write(&event, r#"{"pull_request": {"number": 7, "head": {"repo": {"fork": false}}}}"#).unwrap();
        let out = Command::new("bash")
            .arg(root().join("scripts/ci").join(name))
            .args(args)
            .current_dir(root())
            .env("INQUIRY", env!("CARGO_BIN_EXE_inquiry"))
            .env("EVAL_DIR", &self.eval_dir)
            .env("EVAL_ARGS", format!("--subset --no-cache --cases {}", self.cases.display()))
            .env("MERGE_ARGS", format!("--cases {} --thresholds {}", self.cases.display(), self.thresholds.display()))
            .env("GATE_ARGS", &self.gates)
            .env("GITHUB_OUTPUT", self.eval_dir.join("github_output"))
            .env("GITHUB_STEP_SUMMARY", self.eval_dir.join("step_summary.md"))
            .env("GITHUB_EVENT_NAME", "pull_request")
            .env("GITHUB_EVENT_PATH", &event)
            .env_remove("GITHUB_TOKEN")
            .env_remove("INQUIRY_HOME")
            .output()
            .unwrap();
        (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned())
    }

    /// Shards, merge, compare (when a baseline is given), comment, finish: the workflow's order.
    fn run(&self, baseline: Option<&Path>) -> i32 {
        for i in ["1", "2", "3"] {
            let (code, err) = self.script("shard.sh", &[i, "3"]);
            assert_eq!(code, 0, "shard {i}: {err}");
        }
        let (code, err) = self.script("merge.sh", &["3"]);
        assert_eq!(code, 0, "merge: {err}");
        if let Some(base) = baseline {
            let (code, err) = self.script("compare.sh", &[base.to_str().unwrap()]);
            assert_eq!(code, 0, "compare: {err}");
            let (code, err) = self.script("comment.sh", &[]);
            assert_eq!(code, 0, "comment: {err}");
            assert!(err.contains("no token or gh CLI: comment not posted"), "{err}");
        }
        self.script("finish.sh", &[]).0
    }

    fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.eval_dir.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
    }

    fn outputs(&self) -> String {
        self.read("github_output")
    }
}

/// A copy of the bundled cases in which the given cases can no longer pass
/// (each gets a must item no reply says).
fn cases_breaking(dir: &Path, name: &str, ids: &[String]) -> PathBuf {
    let out = dir.join(name);
    std::fs::create_dir_all(&out).unwrap();
    for entry in std::fs::read_dir(root().join("cases")).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let mut cases: Vec<serde_json::Map<String, Value>> = yaml_serde::from_str(&text).unwrap();
        for case in &mut cases {
            if ids.iter().any(|id| case["id"] == Value::String(id.clone())) {
                let must = case.entry("must").or_insert_with(|| Value::Array(vec![]));
                must.as_array_mut().unwrap().push(serde_json::json!({
                    "text": "States a fact no reply contains",
                    "patterns": ["zzqx never said anywhere"]
                }));
            }
        }
        std::fs::write(out.join(path.file_name().unwrap()), yaml_serde::to_string(&cases).unwrap()).unwrap();
    }
    out
}

fn passing_subset_cases(report: &Path) -> Vec<String> {
    let report: Value = serde_json::from_str(&std::fs::read_to_string(report.join("report.json")).unwrap()).unwrap();
    report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["status"] == "pass" && c["critical"] != true)
        .map(|c| c["id"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn the_workflow_scripts_pass_regress_decide_nothing_and_miss_thresholds_as_they_should() {
    let dir = tempfile::tempdir().unwrap();
    let cases = root().join("cases");
    let thresholds = root().join("thresholds.json");

    // The baseline: the bundled subset as it is (what main's last run left on eval-data).
    let base = Pipeline::new(dir.path(), "base", &cases, &thresholds);
    assert_eq!(base.run(None), 0, "{}", base.read("status"));
    let baseline = base.eval_dir.join("merged/all");
    let merged: Value = serde_json::from_str(&base.read("merged/all/report.json")).unwrap();
    assert_eq!(merged["cases"].as_array().unwrap().len(), 12, "three shards merge into the 12-case subset");
    let junit = base.read("merged/junit.xml");
    assert!(junit.contains("threshold case_pass_rate") && junit.contains("inquiry-thresholds"), "{junit}");
    let passing = passing_subset_cases(&baseline);
    assert!(passing.len() >= 6, "{passing:?}");

    // 1. A change that passes: nothing moved.
    let same = Pipeline::new(dir.path(), "pass", &cases, &thresholds);
    assert_eq!(same.run(Some(&baseline)), 0, "{}", same.read("status"));
    assert!(same.outputs().contains("thresholds=met") && same.outputs().contains("gates=PASS"), "{}", same.outputs());
    let comment = same.read("comment.md");
    assert!(
        comment.starts_with("<!-- inquiry-eval-comment -->")
            && comment.contains("gates against the baseline: **PASS**")
    );
    assert!(same.read("step_summary.md").contains("max_drop"), "the step summary has the gates");

    // 2. A change that regresses: six cases newly fail (the workflow's default two-point margin).
    let broken = cases_breaking(dir.path(), "cases-regress", &passing[..6]);
    let mut regress = Pipeline::new(dir.path(), "regress", &broken, &thresholds);
    regress.gates = "--max-drop 0.02 --critical-all-runs".into();
    assert_eq!(regress.run(Some(&baseline)), 1, "{}", regress.read("status"));
    assert!(regress.outputs().contains("gates=FAIL"), "{}", regress.outputs());
    let comment = regress.read("comment.md");
    for id in &passing[..6] {
        assert!(comment.contains(id.as_str()), "the comment names {id}: {comment}");
    }
    let gates_junit = regress.read("compare-junit.xml");
    assert!(gates_junit.contains("gate max_drop") && gates_junit.contains("<failure"), "{gates_junit}");
    std::fs::write(dir.path().join("regress-comment.md"), &comment).unwrap();

    // 3. A change too small to decide at this suite size: one case flips, two-point margin.
    let one = cases_breaking(dir.path(), "cases-one", &passing[..1]);
    let mut small = Pipeline::new(dir.path(), "inconclusive", &one, &thresholds);
    small.gates = "--max-drop 0.02".into();
    let code = small.run(Some(&baseline));
    let outputs = small.outputs();
    assert!(outputs.contains("gates=INCONCLUSIVE"), "{outputs}");
    assert_eq!(code, 0, "inconclusive passes by default, loudly");
    assert!(small.read("comment.md").contains("INCONCLUSIVE"));

    // 4. Thresholds missed: the comparison and the comment still run, the job fails.
    let strict = dir.path().join("strict.json");
    std::fs::write(&strict, r#"{"retrieval_recall_at_5": {"min": 1.0}}"#).unwrap();
    let miss = Pipeline::new(dir.path(), "miss", &cases, &strict);
    assert_eq!(miss.run(Some(&baseline)), 1, "{}", miss.read("status"));
    assert!(
        miss.outputs().contains("thresholds=missed") && miss.outputs().contains("gates=PASS"),
        "{}",
        miss.outputs()
    );
    let junit = miss.read("merged/junit.xml");
    assert!(junit.contains("threshold retrieval_recall_at_5") && junit.contains("<failure"), "{junit}");
    assert!(miss.read("comment.md").contains("thresholds: **missed**"));
}

#[test]
fn two_runs_differing_only_in_retrieval_thresholds_have_different_inputs_and_history_says_which() {
    let dir = tempfile::tempdir().unwrap();
    let history = dir.path().join("h.jsonl");
    let edited = dir.path().join("retrieval.thresholds.json");
    let text = std::fs::read_to_string(root().join("retrieval.thresholds.json")).unwrap();
    // The same thresholds with a trailing newline more: a different file, the same values.
    std::fs::write(&edited, format!("{text}\n")).unwrap();
    for extra in [vec![], vec!["--retrieval-thresholds", edited.to_str().unwrap()]] {
        let out = Command::new(env!("CARGO_BIN_EXE_inquiry"))
            .args(["eval", "--case", "heating-hh-1001", "--no-cache", "--history", history.to_str().unwrap()])
            .args(["--out", dir.path().join("out").to_str().unwrap()])
            .args(&extra)
            .current_dir(root())
            .output()
            .unwrap();
        assert!(matches!(out.status.code(), Some(0 | 1)), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let lines: Vec<Value> =
        std::fs::read_to_string(&history).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 2);
    assert_ne!(lines[0]["inputs_hash"], lines[1]["inputs_hash"]);
    assert_ne!(lines[0]["inputs"]["retrieval_thresholds"], lines[1]["inputs"]["retrieval_thresholds"]);
    assert_eq!(lines[0]["inputs"]["cases"], lines[1]["inputs"]["cases"]);
    let out = Command::new(env!("CARGO_BIN_EXE_inquiry"))
        .args(["history", history.to_str().unwrap(), "--svg", dir.path().join("h.svg").to_str().unwrap()])
        .current_dir(root())
        .output()
        .unwrap();
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("retrieval_thresholds changed"), "{table}");
}

/// The real-model job's provider choice (`scripts/ci/real-model.sh`, as the
/// workflow calls it): Anthropic when its key is set (also when a Bedrock
/// token is), else Bedrock with its region, else "skipped: no key" without
/// running anything; a missed gate (exit 1) does not fail the job, exit 2 does.
#[test]
fn the_real_model_job_picks_anthropic_then_bedrock_else_skips() {
    let dir = tempfile::tempdir().unwrap();
    let calls = dir.path().join("calls.txt");
    let stub = dir.path().join("inquiry-stub");
    std::fs::write(
        &stub,
        format!("#!/usr/bin/env bash\necho \"$*\" >> {}\nexit \"${{STUB_EXIT:-0}}\"\n", calls.display()),
    )
    .unwrap();
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&stub, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let run = |env: &[(&str, &str)]| {
        let _ = std::fs::remove_file(&calls);
        let mut command = Command::new("bash");
        command
            .arg(root().join("scripts/ci/real-model.sh"))
            .current_dir(root())
            .env("INQUIRY", &stub)
            .env("EVAL_DIR", dir.path().join("eval-ci"));
        for name in [
            "ANTHROPIC_API_KEY",
            "AWS_BEARER_TOKEN_BEDROCK",
            "AWS_REGION",
            "ANTHROPIC_MODEL_ID",
            "BEDROCK_MODEL_ID",
            "GITHUB_STEP_SUMMARY",
        ] {
            command.env_remove(name);
        }
        for (k, v) in env {
            command.env(k, v);
        }
        let out = command.output().unwrap();
        let called = std::fs::read_to_string(&calls).unwrap_or_default();
        (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned(), called)
    };
    let (code, stdout, called) = run(&[]);
    assert_eq!(code, Some(0));
    assert!(stdout.starts_with("skipped: no key"), "{stdout}");
    assert!(called.is_empty(), "nothing runs without a key: {called}");

    let eval_dir = dir.path().join("eval-ci");
    let (code, _, called) = run(&[("ANTHROPIC_API_KEY", "k"), ("AWS_BEARER_TOKEN_BEDROCK", "t")]);
    assert_eq!(code, Some(0));
    assert_eq!(
        called.trim(),
        format!("eval --subset --model anthropic:claude-sonnet-4-5 --out {} --name real-model", eval_dir.display())
    );

    let (code, _, called) = run(&[("AWS_BEARER_TOKEN_BEDROCK", "t")]);
    assert_eq!(code, Some(0));
    assert_eq!(
        called.trim(),
        format!(
            "eval --subset --model bedrock:eu.anthropic.claude-sonnet-4-5-20250929-v1:0 --region eu-central-1 --out {} --name real-model",
            eval_dir.display()
        )
    );
    let (_, _, called) = run(&[
        ("AWS_BEARER_TOKEN_BEDROCK", "t"),
        ("AWS_REGION", "us-east-1"),
        ("BEDROCK_MODEL_ID", "us.anthropic.claude-haiku-4-5-20251001-v1:0"),
    ]);
    assert!(
        called.contains("--model bedrock:us.anthropic.claude-haiku-4-5-20251001-v1:0 --region us-east-1"),
        "{called}"
    );

    assert_eq!(
        run(&[("ANTHROPIC_API_KEY", "k"), ("STUB_EXIT", "1")]).0,
        Some(0),
        "a missed gate is reported, not fatal"
    );
    assert_eq!(run(&[("ANTHROPIC_API_KEY", "k"), ("STUB_EXIT", "2")]).0, Some(2), "nothing measured fails the job");

    // The workflow runs this script with both secrets.
    let workflow = std::fs::read_to_string(root().join(".github/workflows/eval.yml")).unwrap();
    let job = &workflow[workflow.find("  real-model:").expect("the real-model job")..];
    for needed in [
        "run: scripts/ci/real-model.sh",
        "ANTHROPIC_API_KEY: ${{ secrets.ANTHROPIC_API_KEY }}",
        "AWS_BEARER_TOKEN_BEDROCK: ${{ secrets.AWS_BEARER_TOKEN_BEDROCK }}",
    ] {
        assert!(job.contains(needed), "the real-model job lacks {needed}");
    }
}
