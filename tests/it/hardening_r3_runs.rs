//! Issue 26, items 8 to 12: regression tests for the hardening findings on
//! the history, output checks, shards, compare, the desk's tokens and the
//! response cache of `ask`. Each drives the real binary.

use std::io::Write as _;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::hardening_r3::*;
use crate::support::root;

// ---- item 8

fn history_line() -> String {
    let report = std::fs::read_to_string(root().join("reports/eval/report.json")).unwrap();
    let report: inquiry::eval::EvalReport = serde_json::from_str(&report).unwrap();
    serde_json::to_string(&inquiry::analysis::history::HistoryLine::of(&report, "abc".into())).unwrap()
}

#[test]
fn item_8_the_history_is_never_replaced_by_its_own_trend() {
    let dir = tempfile::tempdir().unwrap();
    let h = dir.path().join("h.jsonl");
    std::fs::write(&h, format!("{}\n", history_line())).unwrap();
    let trend = dir.path().join("trend.svg");
    std::fs::copy(&h, &trend).unwrap();
    let before = snapshot(dir.path());
    for args in
        [vec!["history", h.to_str().unwrap(), "--svg", h.to_str().unwrap()], vec!["history", trend.to_str().unwrap()]]
    {
        let (code, _, err) = run(&args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(err.contains("--svg") && err.contains("history file itself"), "{err}");
    }
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn item_8_an_append_cut_by_a_failure_leaves_readable_history() {
    let dir = tempfile::tempdir().unwrap();
    let h = dir.path().join("h.jsonl");
    let line = history_line();
    // An earlier failure left half a line: the next append starts a line of its own.
    std::fs::write(&h, format!("{line}\n{}", &line[..line.len() / 2])).unwrap();
    let parsed: inquiry::analysis::history::HistoryLine = serde_json::from_str(&line).unwrap();
    inquiry::analysis::history::append(&h, &parsed).unwrap();
    let loaded = inquiry::analysis::history::load(&h).unwrap();
    assert_eq!(loaded.len(), 2, "the cut line is skipped, both whole lines are read");

    // A full disk (a 64 KiB tmpfs, where this test may mount one): nothing, not half a line.
    let mnt = dir.path().join("full");
    std::fs::create_dir(&mnt).unwrap();
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=64k", "tmpfs", mnt.to_str().unwrap()])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !mounted {
        eprintln!("skipped (full disk part): cannot mount a tmpfs here");
        return;
    }
    let h = mnt.join("h.jsonl");
    // Page-aligned (blank lines are skipped), so an append needs a new page of the full disk.
    let mut text = format!("{line}\n");
    text.push_str(&"\n".repeat(8192 - text.len() % 8192));
    std::fs::write(&h, text).unwrap();
    let filler = mnt.join("filler");
    let mut f = std::fs::File::create(&filler).unwrap();
    let chunk = vec![b'x'; 1024];
    while f.write_all(&chunk).is_ok() {}
    let _ = f.flush();
    drop(f);
    let size = std::fs::metadata(&h).unwrap().len();
    let err = inquiry::analysis::history::append(&h, &parsed).unwrap_err().to_string();
    assert!(err.contains("h.jsonl") && err.contains("nothing was appended"), "{err}");
    assert_eq!(std::fs::metadata(&h).unwrap().len(), size);
    std::fs::remove_file(&filler).unwrap();
    inquiry::analysis::history::append(&h, &parsed).unwrap();
    assert_eq!(inquiry::analysis::history::load(&h).unwrap().len(), 2);
    let _ = Command::new("umount").arg(&mnt).status();
}

// ---- item 9

#[test]
fn item_9_a_closed_stdout_is_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let h = dir.path().join("h.jsonl");
    std::fs::write(&h, format!("{}\n", history_line()).repeat(50)).unwrap();
    let svg = dir.path().join("t.svg");
    let base = root().join("reports/eval");
    for args in [
        vec!["schema"],
        vec!["schema", "case-trace"],
        vec!["compare", base.to_str().unwrap(), base.to_str().unwrap()],
        vec!["compare", base.to_str().unwrap(), base.to_str().unwrap(), "--json"],
        vec!["history", h.to_str().unwrap(), "--svg", svg.to_str().unwrap()],
    ] {
        let mut child = bin().args(&args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        drop(child.stdout.take()); // like `| head -0`
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_ne!(out.status.code(), Some(101), "{args:?}: {err}");
        assert!(!err.contains("panicked") && !err.contains("Broken pipe"), "{args:?}: {err}");
    }
}

// ---- item 10

#[test]
fn item_10_outputs_are_checked_before_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let fifo = dir.path().join("summary.fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().is_ok_and(|s| s.success());
    let subdir = dir.path().join("adir");
    std::fs::create_dir(&subdir).unwrap();
    let cases: Vec<(Vec<String>, Vec<(&str, String)>, &str)> = vec![
        (vec!["--history".into(), dir.path().join("missing/h.jsonl").display().to_string()], vec![], "--history"),
        (vec!["--history".into(), subdir.display().to_string()], vec![], "--history"),
        (vec!["--junit".into(), "/proc/junit.xml".into()], vec![], "--junit"),
        (vec!["--baseline".into(), root().join("reports/eval").display().to_string()], vec![], "--baseline"),
    ];
    let mut all = cases;
    if made {
        all.push((vec![], vec![("GITHUB_STEP_SUMMARY", fifo.display().to_string())], "GITHUB_STEP_SUMMARY"));
        all.push((vec!["--history".into(), fifo.display().to_string()], vec![], "--history"));
    }
    for (extra, env, names) in all {
        let started = Instant::now();
        let mut cmd = bin();
        cmd.args(["eval", "--subset", "--no-cache", "--out", out.to_str().unwrap()]).args(&extra);
        for (k, v) in &env {
            cmd.env(k, v);
        }
        let output = cmd.stdin(Stdio::null()).output().unwrap();
        let err = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{extra:?} {env:?}: {err}");
        assert!(err.contains(names), "{extra:?}: {err}");
        assert!(!out.exists(), "{extra:?}: no report set before the check");
        assert!(started.elapsed() < Duration::from_secs(30), "{extra:?}: {:?}", started.elapsed());
    }
}

// ---- item 11

#[test]
fn item_11_an_empty_shard_is_a_valid_shard_and_merges() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let mut sets = vec![];
    for i in 1..=4 {
        let name = format!("shard-{i}");
        let (code, _, err) = run(&[
            "eval",
            "--no-cache",
            "--case",
            "heating-hh-1001",
            "--shard",
            &format!("{i}/4"),
            "--out",
            out.to_str().unwrap(),
            "--name",
            &name,
        ]);
        assert!(matches!(code, Some(0 | 1)), "shard {i}: {err}");
        sets.push(out.join(&name).display().to_string());
    }
    let mut args = vec!["merge".to_owned()];
    args.extend(sets);
    args.extend(["--out".into(), out.display().to_string(), "--name".into(), "merged".into()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, _, err) = run(&args);
    assert!(matches!(code, Some(0 | 1)), "{err}");
    let merged: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("merged/report.json")).unwrap()).unwrap();
    assert_eq!(merged["cases"].as_array().unwrap().len(), 1);
    assert_eq!(merged["cases"][0]["id"], "heating-hh-1001");
}

// ---- item 12

#[test]
fn item_12_compare_refuses_duplicate_ids_and_outputs_over_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let set = dir.path().join("dup");
    std::fs::create_dir(&set).unwrap();
    let mut report: Value =
        serde_json::from_str(&std::fs::read_to_string(root().join("reports/eval/report.json")).unwrap()).unwrap();
    let first = report["cases"][0].clone();
    report["cases"].as_array_mut().unwrap().push(first);
    std::fs::write(set.join("report.json"), report.to_string()).unwrap();
    let base = root().join("reports/eval");
    let (code, _, err) = run(&["compare", base.to_str().unwrap(), set.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("appears twice"), "{err}");

    let before = snapshot(&base);
    for flag in ["--html", "--summary-md"] {
        let target = base.join(if flag == "--html" { "report.html" } else { "report.md" });
        let (code, _, err) =
            run(&["compare", base.to_str().unwrap(), base.to_str().unwrap(), flag, target.to_str().unwrap()]);
        assert_eq!(code, Some(2), "{flag}: {err}");
        assert!(err.contains("that is an input"), "{err}");
    }
    assert_eq!(snapshot(&base), before);

    // A number out of range names its field.
    let mut bad = report.clone();
    bad["cases"].as_array_mut().unwrap().pop();
    bad["repeat"] = json!(1e300);
    std::fs::write(set.join("report.json"), bad.to_string()).unwrap();
    let (code, _, err) = run(&["compare", base.to_str().unwrap(), set.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("field `repeat`"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn item_12_desk_tokens_schemes_and_query_values() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("desk.sqlite");
    let out = bin()
        .args(["serve", "--no-cache", "--db", db.to_str().unwrap(), "--bind", "127.0.0.1:0"])
        .env("INQUIRY_DESK_TOKEN", "   ")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("only whitespace"), "{err}");

    let server = Server::start(
        &["serve", "--no-cache", "--db", db.to_str().unwrap(), "--token", "s3cret-token"],
        dir.path().join("serve.log"),
    );
    let http = reqwest::Client::builder().timeout(Duration::from_secs(30)).build().unwrap();
    for scheme in ["Bearer", "bearer", "BEARER"] {
        let r = http
            .get(server.url("/api/handoffs?status=in%5Fprogress"))
            .header("Authorization", format!("{scheme} s3cret-token"))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200, "{scheme}: {}", r.text().await.unwrap());
    }
    let r = http.get(server.url("/api/handoffs")).header("Authorization", "Basic s3cret-token").send().await.unwrap();
    assert_eq!(r.status(), 401);
}

#[test]
fn item_12_ask_with_an_unreachable_model_leaves_no_cache_file() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let out = bin()
        .args(["ask", "Is heating included in HH-1001?", "--model", "openai:none"])
        .args(["--cache-dir", cache.to_str().unwrap()])
        .env("OPENAI_API_KEY", "k")
        .env("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
        .env("INQUIRY_MODEL_MAX_ATTEMPTS", "1")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(101), "{err}");
    assert!(!cache.join("cache.sqlite").exists(), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn item_12_mcp_http_answers_bad_json_with_400() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&["serve-mcp", "--http"], dir.path().join("mcp.log"));
    let http = reqwest::Client::builder().timeout(Duration::from_secs(10)).build().unwrap();
    for body in ["", "{not json", "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]", "42"] {
        let r = http
            .post(server.url("/mcp"))
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .body(body)
            .send()
            .await
            .unwrap();
        let status = r.status();
        let text = r.text().await.unwrap();
        assert_eq!(status, 400, "{body:?}: {text}");
        assert!(text.contains("jsonrpc"), "{text}");
    }
}
