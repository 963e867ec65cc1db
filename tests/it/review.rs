//! The review loop from the command line: a failing run of the bundled suite
//! becomes a case (`cases add --from-trace`), bad traces and taken ids are
//! refused, and reviews go to and from the labels/ YAML format. The review
//! page itself is tested in headless Chromium (`review_page_*` below).

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use fantoccini::actions::{InputSource as _, KeyAction, KeyActions};
use fantoccini::Locator;
use serde_json::Value;

use crate::support::{inquiry, root, texts};

/// The committed bundled-suite report's trace of its one failing case.
const FAILING_TRACE: &str = "reports/eval/cases/deposit-instalments.json";

#[test]
fn a_failing_trace_becomes_a_case_that_loads_and_runs() {
    let trace: Value = serde_json::from_str(&std::fs::read_to_string(root().join(FAILING_TRACE)).unwrap()).unwrap();
    assert_eq!(trace["runs"][0]["passed"], false, "the committed trace is a failing run");
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("drafts.yaml");
    let t = target.to_str().unwrap();
    let out = inquiry(&["cases", "add", "--from-trace", FAILING_TRACE, "--to", t]);
    let (stdout, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(stdout.trim(), "deposit-instalments-draft");
    let text = std::fs::read_to_string(&target).unwrap();
    assert!(text.contains("# failure: "), "{text}");
    assert!(text.contains("# hint: [policy:deposit#"), "the catalogue facts the run used: {text}");
    assert!(text.contains(trace["inquiry"].as_str().unwrap()), "{text}");

    // It loads and runs like any case: measured, and failing as the run did.
    let runs = dir.path().join("runs");
    let out = inquiry(&["eval", "--no-cache", "--cases", t, "--name", "draft", "--out", runs.to_str().unwrap()]);
    let (_, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(1), "the drafted case fails as its run did: {stderr}");
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(runs.join("draft/report.json")).unwrap()).unwrap();
    let case = &report["cases"][0];
    assert_eq!(case["id"], "deposit-instalments-draft");
    assert_eq!(case["inquiry"], trace["inquiry"]);
    assert_eq!(case["runs"][0]["status"], "fail", "{case}");

    // Again: a new unique id, the first draft kept as it was.
    let out = inquiry(&["cases", "add", "--from-trace", FAILING_TRACE, "--to", t]);
    assert_eq!(texts(&out).0.trim(), "deposit-instalments-draft-2", "{}", texts(&out).1);
    let again = std::fs::read_to_string(&target).unwrap();
    assert!(again.starts_with(&text), "the file's earlier text is kept");

    // An id in use (in the suite or the target) is refused and nothing is written.
    for id in ["deposit-instalments", "deposit-instalments-draft"] {
        let out = inquiry(&["cases", "add", "--from-trace", FAILING_TRACE, "--to", t, "--id", id]);
        let (_, stderr) = texts(&out);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(&format!("--id `{id}`: a case with this id exists already")), "{stderr}");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), again);
    }
}

#[test]
fn bad_traces_exit_2_naming_the_file_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let trace: Value = serde_json::from_str(&std::fs::read_to_string(root().join(FAILING_TRACE)).unwrap()).unwrap();
    let target = dir.path().join("drafts.yaml");
    let mut cases: Vec<(&str, Value, &str)> = vec![];
    let mut no_runs = trace.clone();
    no_runs["runs"] = Value::Array(vec![]);
    cases.push(("no-runs.json", no_runs, "field `runs`: is empty"));
    let mut bad_type = trace.clone();
    bad_type["runs"][0]["result"]["reply"] = Value::from(42);
    cases.push(("bad-type.json", bad_type, "field `runs[0].result.reply`"));
    let mut missing = trace.clone();
    missing.as_object_mut().unwrap().remove("inquiry");
    cases.push(("missing.json", missing, "missing field `inquiry`"));
    let mut no_result = trace.clone();
    no_result["runs"][0]["result"] = Value::Null;
    cases.push(("no-result.json", no_result, "field `runs[0].result`: is absent"));
    let mut bad_id = trace;
    bad_id["id"] = Value::from("../../etc/passwd");
    cases.push(("bad-id.json", bad_id, "field `id`"));
    for (name, value, want) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, serde_json::to_string(&value).unwrap()).unwrap();
        let out = inquiry(&["cases", "add", "--from-trace", path.to_str().unwrap(), "--to", target.to_str().unwrap()]);
        let (_, stderr) = texts(&out);
        assert_eq!(out.status.code(), Some(2), "{name}: {stderr}");
        assert!(stderr.contains(path.to_str().unwrap()) && stderr.contains(want), "{name}: {stderr}");
        assert!(!target.exists(), "{name}: nothing written");
    }
    let path = dir.path().join("not-json.json");
    std::fs::write(&path, "{ not json").unwrap();
    let out = inquiry(&["cases", "add", "--from-trace", path.to_str().unwrap(), "--to", target.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(texts(&out).1.contains(path.to_str().unwrap()), "{}", texts(&out).1);
}

/// A child process ended when dropped (a failed test leaves no server behind).
struct Running(std::process::Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `inquiry view DIR --review` with a known token; returns it and its base URL.
fn start_review(dir: &Path, db: &Path) -> (Running, String) {
    start_review_with(dir, db, &[])
}

fn start_review_with(dir: &Path, db: &Path, extra: &[&str]) -> (Running, String) {
    let port = crate::browser::free_port();
    let mut child = Command::new(env!("CARGO_BIN_EXE_inquiry"))
        .arg("view")
        .arg(dir)
        .args(["--bind", &format!("127.0.0.1:{port}"), "--review", "--sample", "10", "--reviews"])
        .arg(db)
        .args(extra)
        .env("INQUIRY_REVIEW_TOKEN", "review-test-token")
        .current_dir(root())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let base = format!("http://127.0.0.1:{port}");
    for _ in 0..200 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return (Running(child), base);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("inquiry view --review did not listen on {port}");
}

async fn press(b: &crate::browser::Browser, key: char) {
    let keys =
        KeyActions::new("keyboard".into()).then(KeyAction::Down { value: key }).then(KeyAction::Up { value: key });
    b.client.perform_actions(keys).await.unwrap();
}

async fn wait_text(b: &crate::browser::Browser, css: &str, want: &str) {
    let mut last = String::new();
    for _ in 0..200 {
        if let Ok(e) = b.client.find(Locator::Css(css)).await {
            last = e.text().await.unwrap_or_default();
            if last.contains(want) {
                return;
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("{css}: waited for {want:?}, last saw {last:?}");
}

/// Reviews the first ten replies of the queue with the keyboard: every item
/// passes except in the replies `fail_in`, where every item fails.
async fn review_ten(b: &crate::browser::Browser, base: &str, reviewer: &str, fail_in: &[usize]) -> Vec<String> {
    b.client.goto(&format!("{base}/review?reviewer={reviewer}#token=review-test-token")).await.unwrap();
    wait_text(b, "#progress", "/10 reviewed").await;
    let mut keys = vec![];
    for n in 0..10 {
        wait_text(b, "#position", &format!("reply {} of 10", n + 1)).await;
        let head = b.client.find(Locator::Css("#entry-head")).await.unwrap();
        keys.push(head.attr("data-key").await.unwrap().unwrap());
        let items = b.client.find_all(Locator::Css("#items .item")).await.unwrap();
        assert!(!items.is_empty(), "reply {n} has items to review");
        let mut kinds = vec![];
        for i in &items {
            kinds.push(i.attr("data-kind").await.unwrap().unwrap());
        }
        for kind in kinds {
            // y = conveyed (must) / stated (must_not): an item passes on `y` for must, `n` for must_not.
            let pass = !fail_in.contains(&n);
            press(b, if (kind == "must") == pass { 'y' } else { 'n' }).await;
        }
        wait_text(b, "#progress", &format!("{}/10 reviewed", n + 1)).await;
    }
    keys
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(chromium),
    ignore = "chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)"
)]
async fn review_page_keyboard_reviews_persist_export_and_agreement() {
    let out = crate::browser::bundled_report();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("reviews.sqlite");
    let (view, base) = start_review(out, &db);
    let b = crate::browser::Browser::start().await;

    let keys = review_ten(&b, &base, "ana", &[0, 1]).await;
    b.screenshot("review-done.png").await;
    // Reloaded, the reviews are there: every reply reviewed, verdicts shown.
    b.client.refresh().await.unwrap();
    wait_text(&b, "#progress", "10/10 reviewed").await;
    let shown = b.text_of("#items").await;
    assert!(!shown.contains("not reviewed"), "{shown}");
    let store = inquiry::review::ReviewStore::open(&db).unwrap();
    let rows = store.all().unwrap();
    let reviewed: std::collections::BTreeSet<String> =
        rows.iter().map(|r| format!("{}:{}", r.case_id, r.reply_hash)).collect();
    assert_eq!(reviewed, keys.iter().cloned().collect(), "ten replies stored");
    assert!(rows.iter().all(|r| r.reviewer == "ana" && r.sampled()));
    drop(store);
    let console = b.console().await;
    assert!(console.is_empty(), "console output: {console:#?}");

    // Writing needs the token; a foreign page is refused before that.
    let http = reqwest::Client::new();
    let body = serde_json::json!({"reviewer": "eve", "key": keys[0], "must": [], "must_not": []});
    let no_token = http.post(format!("{base}/review/api/verdicts")).json(&body).send().await.unwrap();
    assert_eq!(no_token.status(), 401);
    let foreign = http
        .post(format!("{base}/review/api/verdicts"))
        .header("origin", "http://evil.example")
        .bearer_auth("review-test-token")
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(foreign.status(), 403);

    // A second reviewer disagrees on some replies.
    let keys_b = review_ten(&b, &base, "ben", &[0, 2]).await;
    assert_eq!(keys_b, keys, "the same queue");
    b.client.clone().close().await.unwrap();
    drop(view);

    // Export to the labels format; judge-check reads it and reports the reviewers' κ.
    let labels = dir.path().join("labels");
    std::fs::create_dir_all(&labels).unwrap();
    let file = labels.join("reviews.yaml");
    let o = inquiry(&["reviews", "export", "--reviews", db.to_str().unwrap(), "--out", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", texts(&o).1);
    assert!(texts(&o).1.contains("20 label(s) from 2 reviewer(s)"), "{}", texts(&o).1);
    let o = inquiry(&["reviews", "export", "--reviews", db.to_str().unwrap(), "--out", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "an export never overwrites");
    let jc = dir.path().join("jc");
    let o = inquiry(&["judge-check", "--labels", labels.to_str().unwrap(), "--out", jc.to_str().unwrap(), "--json"]);
    assert!(matches!(o.status.code(), Some(0 | 1)), "{}", texts(&o).1);
    let report: Value = serde_json::from_str(&texts(&o).0).unwrap();
    let r = &report["reviewers"];
    assert_eq!(r["method"], "cohen");
    assert_eq!(r["reviewers"], serde_json::json!(["ana", "ben"]));
    assert_eq!(r["shared_replies"], 10);
    // Expected κ from the two patterns: replies 0 and 1 fail for ana, 0 and 2 for ben.
    let store = inquiry::review::ReviewStore::open(&db).unwrap();
    let rows = store.all().unwrap();
    let mut pairs = vec![];
    for a in rows.iter().filter(|r| r.reviewer == "ana") {
        let b = rows
            .iter()
            .find(|b| b.reviewer == "ben" && b.reply_hash == a.reply_hash && b.kind == a.kind && b.item == a.item)
            .unwrap();
        pairs.push((a.item_passes(), b.item_passes()));
    }
    assert_eq!(r["items"].as_u64().unwrap() as usize, pairs.len());
    let want = inquiry::stats::cohen_kappa(&pairs).unwrap();
    assert!((r["kappa"].as_f64().unwrap() - want).abs() < 1e-9, "{r} vs {want}");
    assert!(want > 0.0 && want < 1.0, "{want}");
    let i = &r["kappa_interval"];
    assert!(i["lo"].as_f64().unwrap() <= want && want <= i["hi"].as_f64().unwrap(), "{r}");
    // The judge's own κ against the reviewers, with its interval, sits beside it.
    let all = report["agreement"].as_array().unwrap().iter().find(|a| a["split"] == "all").unwrap();
    assert_eq!(all["replies"], 20);
    let md = std::fs::read_to_string(jc.join("judge-check/report.md")).unwrap();
    assert!(md.contains("reviewers ana, ben with each other (Cohen's κ; 10 replies)"), "{md}");

    // The judge-corrected pass rate of the reviewed report, from the ten sampled replies.
    let set = out.join("eval");
    let o = inquiry(&[
        "compare",
        set.to_str().unwrap(),
        set.to_str().unwrap(),
        "--reviews",
        db.to_str().unwrap(),
        "--json",
    ]);
    let (_, stderr) = texts(&o);
    assert!(
        stderr.contains("candidate: judge-corrected pass rate")
            && stderr.contains("from 10 reviewed of 49 graded runs; reviewers ana, ben"),
        "{stderr}"
    );
}

#[test]
fn reviews_import_and_export_round_trip_the_labels_format() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.sqlite");
    let d = db.to_str().unwrap();
    // Hand-written labels need a reviewer name.
    let o = inquiry(&["reviews", "import", "labels/dev.yaml", "--reviews", d]);
    assert_eq!(o.status.code(), Some(2));
    assert!(texts(&o).1.contains("field `reviewer` is absent"), "{}", texts(&o).1);
    let o = inquiry(&["reviews", "import", "labels/dev.yaml", "--reviews", d, "--reviewer", "team"]);
    assert_eq!(o.status.code(), Some(0), "{}", texts(&o).1);
    let out = dir.path().join("back.yaml");
    let o = inquiry(&["reviews", "export", "--reviews", d, "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", texts(&o).1);
    let original: Vec<Value> =
        yaml_serde::from_str(&std::fs::read_to_string(root().join("labels/dev.yaml")).unwrap()).unwrap();
    let back: Vec<Value> = yaml_serde::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(back.len(), original.len());
    for l in &original {
        let b = back.iter().find(|b| b["reply"] == l["reply"] && b["case"] == l["case"]).expect("every label back");
        for f in ["kind", "conveyed", "stated"] {
            assert_eq!(b[f], l[f], "{f} of {}", l["id"]);
        }
        assert_eq!(b["reviewer"], "team");
    }
    // Imported labels are not a random sample of a report's runs: they never
    // enter the judge-corrected pass rate, which stays unmeasured.
    let o = inquiry(&["compare", "reports/eval", "reports/eval", "--reviews", d]);
    let (_, stderr) = texts(&o);
    assert!(stderr.contains("candidate: judge-corrected pass rate unmeasured"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_desk_reply_marked_wrong_joins_the_review_queue_and_becomes_a_case() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("desk.sqlite");
    let desk = crate::desk::Desk::start(&db, &[]).await;
    let http = reqwest::Client::new();
    let message = "A flat in Hamburg under €2,000, I have a dog, is heating included, can I view it on Saturday?";
    let r = http
        .post(format!("{}/api/inquiries", desk.base))
        .json(&serde_json::json!({"inquiry": message}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let events = crate::desk::read_events(r, |e| e.name == "result").await;
    let result = &events.last().unwrap().data;
    let ticket = result["handoffs"][0]["ticketId"].as_str().expect("a viewing ticket").to_owned();

    // Marked wrong with a note; an unknown ticket is a 404 naming the field.
    let mark = http
        .post(format!("{}/api/handoffs/{ticket}/wrong", desk.base))
        .json(&serde_json::json!({"note": "promised a Saturday viewing slot"}))
        .send()
        .await
        .unwrap();
    assert_eq!(mark.status(), 200);
    let unknown = http
        .post(format!("{}/api/handoffs/TKT-9999/wrong", desk.base))
        .json(&serde_json::json!({"note": "x"}))
        .send()
        .await
        .unwrap();
    assert_eq!(unknown.status(), 404);
    let listed: Value =
        http.get(format!("{}/api/wrong-replies", desk.base)).send().await.unwrap().json().await.unwrap();
    assert_eq!(listed["wrongReplies"][0]["ticketId"], ticket.as_str());
    assert_eq!(listed["wrongReplies"][0]["note"], "promised a Saturday viewing slot");
    drop(desk);

    // It joins the review queue with its reply and the way to a case.
    let store = inquiry::desk::TicketStore::open_read_only(&db).unwrap();
    let marks = inquiry::desk::wrong_reply::wrong_replies(&store).unwrap();
    let mut queue = inquiry::review::queue::build(&[], 10, 1);
    inquiry::review::queue::add_tickets(&mut queue, &marks, "desk.sqlite");
    assert_eq!((queue.counts.tickets, queue.entries.len()), (1, 1));
    let entry = &queue.entries[0];
    assert_eq!(entry.reply, result["reply"].as_str().unwrap());
    assert_eq!(entry.inquiry, message);
    assert_eq!(entry.drawn, ["ticket"]);
    assert!(!entry.evidence.is_empty(), "the run's tool calls");

    // And becomes a case draft that validates.
    let trace = dir.path().join("ticket.json");
    let o = inquiry(&["tickets", "--db", db.to_str().unwrap(), "trace", &ticket, "--out", trace.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", texts(&o).1);
    let target = dir.path().join("drafts.yaml");
    let o = inquiry(&["cases", "add", "--from-trace", trace.to_str().unwrap(), "--to", target.to_str().unwrap()]);
    let (stdout, stderr) = texts(&o);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    let id = stdout.trim();
    assert!(id.starts_with("ticket-") && id.ends_with("-draft"), "{id}");
    let text = std::fs::read_to_string(&target).unwrap();
    assert!(
        text.contains("# failure: desk: reply was wrong") && text.contains("promised a Saturday viewing slot"),
        "{text}"
    );
    assert!(text.contains("viewing_request"), "the hand-off the run made: {text}");
    assert!(text.contains("HH-"), "the listings the run used: {text}");
    // A ticket that was not marked has no trace to give.
    let o = inquiry(&["tickets", "--db", db.to_str().unwrap(), "trace", "TKT-9999"]);
    assert_eq!(o.status.code(), Some(2));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(chromium),
    ignore = "chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)"
)]
async fn review_page_the_desk_review_column_marks_a_reply_wrong_and_the_queue_shows_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("desk.sqlite");
    let desk = crate::desk::Desk::start(&db, &[]).await;
    let b = crate::browser::Browser::start().await;
    b.client.goto(&format!("{}/", desk.base)).await.unwrap();
    b.client.wait().for_element(Locator::Css("#queue .empty")).await.unwrap();
    let message = "A flat in Hamburg under €2,000, I have a dog, is heating included, can I view it on Saturday?";
    b.client.find(Locator::Css("#inquiry")).await.unwrap().send_keys(message).await.unwrap();
    b.client.find(Locator::Css("#send")).await.unwrap().click().await.unwrap();
    b.client.wait().at_most(Duration::from_secs(30)).for_element(Locator::Css(".msg.agent")).await.unwrap();
    let ticket = b.client.wait().for_element(Locator::Css("#queue .ticket")).await.unwrap();
    let id = ticket.attr("data-ticket").await.unwrap().unwrap();
    let note = b.client.find(Locator::Css(&format!("#ticket-{id} .wrong-note"))).await.unwrap();
    note.send_keys("offered a viewing slot nobody confirmed").await.unwrap();
    b.client.find(Locator::Css(&format!("#ticket-{id} .mark-wrong"))).await.unwrap().click().await.unwrap();
    wait_text(&b, &format!("#ticket-{id} .wrong-mark"), "Reply marked wrong: offered a viewing slot nobody confirmed")
        .await;
    b.client.refresh().await.unwrap();
    wait_text(&b, &format!("#ticket-{id} .wrong-mark"), "offered a viewing slot nobody confirmed").await;
    let console = b.console().await;
    assert!(console.is_empty(), "desk console output: {console:#?}");
    drop(desk);

    // The review queue shows the marked ticket with its reply and the way to a case.
    let empty = dir.path().join("sets");
    std::fs::create_dir_all(&empty).unwrap();
    let reviews = dir.path().join("reviews.sqlite");
    let (view, base) = start_review_with(&empty, &reviews, &["--desk", db.to_str().unwrap()]);
    b.client.goto(&format!("{base}/review?reviewer=ana#token=review-test-token")).await.unwrap();
    wait_text(&b, "#items", "offered a viewing slot nobody confirmed").await;
    let kind = b.text_of("#items .ticket .kind").await;
    assert_eq!(kind.to_lowercase(), format!("desk ticket {}: reply marked wrong", id.to_lowercase()));
    assert!(b.text_of(".to-case").await.contains(&format!("trace {id}")));
    assert!(b.text_of("#reply").await.contains("HH-1001"), "the reply the customer got");
    assert_eq!(b.text_of("#progress").await, "0/0 reviewed", "a ticket has no items to grade");
    // The desk page's open stream broke when the desk stopped; nothing else may be logged.
    let console: Vec<Value> =
        b.console().await.into_iter().filter(|m| !m["message"].as_str().unwrap_or("").contains("net::ERR_")).collect();
    assert!(console.is_empty(), "review console output: {console:#?}");
    b.client.clone().close().await.unwrap();
    drop(view);
}

/// A failing run's case page offers the command that makes it a case, and
/// that command, run as written against the report set it names, writes a
/// draft (the report's "make this run a case" path, #31 item 4).
#[test]
fn a_failing_case_page_offers_the_cases_add_command_and_it_works() {
    let dir = tempfile::tempdir().unwrap();
    let out = inquiry(&[
        "eval",
        "--no-cache",
        "--case",
        "deposit-instalments",
        "--out",
        dir.path().to_str().unwrap(),
        "--name",
        "one",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", texts(&out).1);
    let html = std::fs::read_to_string(dir.path().join("one/report.html")).unwrap();
    let cmd =
        "inquiry cases add --from-trace runs/latest/cases/deposit-instalments.json --run 1 --to cases/drafts.yaml";
    // The page escapes `/` as `&#x2f;`.
    let escaped = cmd.replace('/', "&#x2f;");
    assert!(html.contains(&format!("<code>{escaped}</code>")), "the case page shows the command");
    assert!(html.contains(&format!("data-copy=\"{escaped}\"")), "with a copy button");
    // The same command with this report set's folder in place of runs/latest.
    let trace = dir.path().join("one/cases/deposit-instalments.json");
    let target = dir.path().join("drafts.yaml");
    let out = inquiry(&[
        "cases",
        "add",
        "--from-trace",
        trace.to_str().unwrap(),
        "--run",
        "1",
        "--to",
        target.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", texts(&out).1);
    assert_eq!(texts(&out).0.trim(), "deposit-instalments-draft");
}
