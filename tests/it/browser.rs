//! The HTML report and `inquiry view` in real headless Chromium (Debian's
//! `chromium` and `chromium-driver`, driven over WebDriver by fantoccini).
//!
//! Ignored, and counted as such, where the browser is not installed;
//! `.ci/run` installs it. Screenshots go to `target/browser-artifacts/`.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{json, Value};

use crate::support::root;

/// A chromedriver process and a headless Chromium session; both end on drop.
pub(crate) struct Browser {
    pub(crate) client: Client,
    port: u16,
    session: String,
    driver: Child,
}

impl Drop for Browser {
    fn drop(&mut self) {
        // Ending the WebDriver session makes chromedriver quit Chromium; a plain
        // HTTP request, because a test that failed never reached `close()`.
        if let Ok(mut s) = std::net::TcpStream::connect(("127.0.0.1", self.port)) {
            use std::io::{Read as _, Write as _};
            let _ = s.set_read_timeout(Some(Duration::from_secs(10)));
            let request = format!(
                "DELETE /session/{} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                self.session, self.port
            );
            if s.write_all(request.as_bytes()).is_ok() {
                let _ = s.read_to_end(&mut Vec::new());
            }
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

pub(crate) fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

impl Browser {
    pub(crate) async fn start() -> Self {
        let port = free_port();
        let driver = Command::new("/usr/bin/chromedriver")
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromedriver");
        let caps = json!({
            "browserName": "chrome",
            "goog:loggingPrefs": {"browser": "ALL"},
            "goog:chromeOptions": {
                "binary": "/usr/bin/chromium",
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                         "--window-size=1400,1600", "--disable-extensions", "--no-first-run"]
            }
        });
        let caps: serde_json::Map<String, Value> = caps.as_object().unwrap().clone();
        let mut last = None;
        for _ in 0..100 {
            let connector = hyper_util::client::legacy::connect::HttpConnector::new();
            match ClientBuilder::new(connector)
                .capabilities(caps.clone())
                .connect(&format!("http://127.0.0.1:{port}"))
                .await
            {
                Ok(client) => {
                    let session = client.session_id().await.unwrap().unwrap_or_default();
                    return Browser { client, port, session, driver };
                }
                Err(e) => last = Some(e),
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("no WebDriver session: {last:?}");
    }

    /// Browser console messages since the last call (chromedriver's log endpoint).
    pub(crate) async fn console(&self) -> Vec<Value> {
        let session = self.client.session_id().await.unwrap().expect("a session");
        let url = format!("http://127.0.0.1:{}/session/{session}/se/log", self.port);
        let reply: Value = reqwest::Client::new()
            .post(url)
            .json(&json!({"type": "browser"}))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        reply["value"].as_array().cloned().unwrap_or_default()
    }

    pub(crate) async fn text_of(&self, css: &str) -> String {
        self.client.find(Locator::Css(css)).await.unwrap_or_else(|e| panic!("{css}: {e}")).text().await.unwrap()
    }

    /// How many elements match `css` and are displayed.
    pub(crate) async fn visible(&self, css: &str) -> Vec<fantoccini::elements::Element> {
        let mut out = vec![];
        for e in self.client.find_all(Locator::Css(css)).await.unwrap() {
            if e.is_displayed().await.unwrap() {
                out.push(e);
            }
        }
        out
    }

    pub(crate) async fn screenshot(&self, name: &str) {
        let png = self.client.screenshot().await.unwrap();
        let dir = root().join("target/browser-artifacts");
        std::fs::create_dir_all(&dir).unwrap();
        assert!(png.len() > 10_000, "{name}: a near-empty screenshot ({} bytes)", png.len());
        std::fs::write(dir.join(name), png).unwrap();
    }
}

/// The bundled suite's report sets (under `target/browser-artifacts/sets`),
/// written once per test process.
pub(crate) fn bundled_report() -> &'static Path {
    static OUT: OnceLock<PathBuf> = OnceLock::new();
    OUT.get_or_init(|| {
        let out = root().join("target/browser-artifacts/sets");
        let status = Command::new(env!("CARGO_BIN_EXE_inquiry"))
            .args(["eval", "--no-cache", "--name", "eval", "--out"])
            .arg(&out)
            .current_dir(root())
            .stderr(Stdio::null())
            .status()
            .unwrap();
        assert!(status.code().is_some_and(|c| c <= 1), "eval exit {status:?}");
        out
    })
}

fn report_json(set: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(set.join("report.json")).unwrap()).unwrap()
}

fn file_url(path: &Path) -> String {
    format!("file://{}", path.display())
}

/// What the run page and a case page must show for the bundled suite.
async fn check_bundled_pages(b: &Browser, url: &str, set: &Path, shots: &str) {
    let report = report_json(set);
    let cases = report["cases"].as_array().unwrap();
    // The full runs are in the trace files (report.json keeps a summary of each run).
    let traces: Vec<Value> = cases
        .iter()
        .map(|c| {
            let path = set.join(format!("cases/{}.json", c["id"].as_str().unwrap()));
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
        })
        .collect();
    b.client.goto(url).await.unwrap();
    b.client.wait().for_element(Locator::Css("#cases")).await.unwrap();
    let console = b.console().await;
    assert!(console.is_empty(), "console output on load: {console:#?}");
    assert_eq!(b.text_of("#verdict").await, report["verdict"].as_str().unwrap());

    // The case list shows every case.
    assert_eq!(cases.len(), 49, "the bundled suite");
    assert_eq!(b.visible("#cases tbody tr.case-row").await.len(), 49);
    b.screenshot(&format!("{shots}-run-page.png")).await;

    // The "failed" filter shows exactly the failing cases.
    let failing: Vec<&str> = cases
        .iter()
        .filter(|c| matches!(c["status"].as_str(), Some("fail" | "flaky")))
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    b.client.find(Locator::Css("#f-status")).await.unwrap().select_by_value("failed").await.unwrap();
    let mut shown = vec![];
    for row in b.visible("#cases tbody tr.case-row").await {
        shown.push(row.attr("data-id").await.unwrap().unwrap());
    }
    assert_eq!(shown, failing, "the failed filter");
    assert_eq!(b.text_of("#shown-count").await, format!("{} of 49 cases", failing.len()));
    b.client.find(Locator::Css("#f-status")).await.unwrap().select_by_value("").await.unwrap();

    // A citation click shows its passage: the first case whose reply cites a passage.
    let cited = traces
        .iter()
        .find(|c| {
            c["runs"][0]["result"]["citations"]
                .as_array()
                .is_some_and(|a| a.iter().any(|x| x.as_str().unwrap().contains('#')))
        })
        .expect("a case with a passage citation");
    let id = cited["id"].as_str().unwrap();
    b.client.find(Locator::Css(&format!("a[href='#case/{id}']"))).await.unwrap().click().await.unwrap();
    let page = format!("#case-{id}");
    assert_eq!(b.visible(&page).await.len(), 1, "{id}: its page is shown");
    assert!(b.visible("#run-page").await.is_empty(), "the run page is hidden");
    let button = b
        .client
        .find(Locator::Css(&format!("{page} button.cite:not(.ungrounded)")))
        .await
        .unwrap_or_else(|e| panic!("{id}: no grounded citation button: {e}"));
    let cite = button.text().await.unwrap();
    let panel_id = button.attr("data-passage").await.unwrap().unwrap();
    assert!(b.visible(&format!("#{panel_id}")).await.is_empty(), "the passage starts hidden");
    button.click().await.unwrap();
    assert_eq!(b.visible(&format!("#{panel_id}")).await.len(), 1, "a click shows the passage");
    let passage = b.text_of(&format!("#{panel_id} blockquote")).await;
    assert!(!passage.is_empty());
    assert_eq!(b.text_of(&format!("#{panel_id} .passage-id code")).await, cite);
    // The passage is what a tool of that run returned (the trace file holds it).
    let trace_text: String = cited["runs"][0]["result"]["trace"].to_string();
    let needle = serde_json::to_string(&passage).unwrap();
    let needle = &needle[1..needle.len() - 1];
    assert!(trace_text.contains(needle), "{id}: passage {passage:?} is not in the run's tool results");
    b.screenshot(&format!("{shots}-case-page.png")).await;

    // A viewing case shows its ticket in the tickets pane.
    let viewing = traces
        .iter()
        .find(|c| {
            c["runs"][0]["result"]["handoffs"]
                .as_array()
                .is_some_and(|t| t.iter().any(|t| t["reason"] == "viewing_request"))
        })
        .expect("a case with a viewing ticket");
    let vid = viewing["id"].as_str().unwrap();
    let ticket = viewing["runs"][0]["result"]["handoffs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["reason"] == "viewing_request")
        .unwrap();
    b.client.goto(&format!("{url}#case/{vid}")).await.unwrap();
    let tickets = b.visible(&format!("#case-{vid} .pane.tickets .ticket")).await;
    assert!(!tickets.is_empty(), "{vid}: a ticket is shown");
    let mut texts = vec![];
    for t in tickets {
        texts.push(t.text().await.unwrap());
    }
    let ticket_id = ticket["ticketId"].as_str().unwrap();
    assert!(
        texts.iter().any(|t| t.contains(ticket_id) && t.contains("viewing_request")),
        "{vid}: {ticket_id} viewing_request not in {texts:?}"
    );
    let console = b.console().await;
    assert!(console.is_empty(), "console output while browsing: {console:#?}");
    // The console capture itself works: a message the test writes is read back.
    b.client.execute("console.error('probe from the test')", vec![]).await.unwrap();
    let console = b.console().await;
    assert!(
        console.iter().any(|m| m["message"].as_str().is_some_and(|t| t.contains("probe from the test"))),
        "{console:#?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(chromium),
    ignore = "chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)"
)]
async fn report_html_in_headless_chromium() {
    let set = bundled_report().join("eval");
    let size = std::fs::metadata(set.join("report.html")).unwrap().len();
    assert!(size <= 2 * 1024 * 1024, "report.html of the bundled suite is {size} bytes; at most 2 MB");
    let b = Browser::start().await;
    check_bundled_pages(&b, &file_url(&set.join("report.html")), &set, "report").await;
    assert!(b.client.find_all(Locator::Css("#all-sets")).await.unwrap().is_empty(), "no server, no link to one");
    // The failing cases are listed above the case list, each linking to its page.
    let report = report_json(&set);
    let failing: Vec<&str> = report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| matches!(c["status"].as_str(), Some("fail" | "flaky")))
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    if !failing.is_empty() {
        let mut listed = vec![];
        for a in b.client.find_all(Locator::Css("#failing a")).await.unwrap() {
            let href = a.attr("href").await.unwrap().unwrap_or_default();
            listed.push(href.trim_start_matches("#case/").to_owned());
        }
        assert_eq!(listed, failing);
    }
    b.client.clone().close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(chromium),
    ignore = "chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)"
)]
async fn markup_in_listings_and_inquiries_is_shown_literally_and_never_runs() {
    let fixture = root().join("tests/fixtures/html-injection");
    let out = tempfile::tempdir().unwrap();
    let status = Command::new(env!("CARGO_BIN_EXE_inquiry"))
        .args(["eval", "--no-cache", "--name", "markup", "--cases"])
        .arg(fixture.join("cases"))
        .arg("--fixtures")
        .arg(fixture.join("fixtures"))
        .arg("--out")
        .arg(out.path())
        .current_dir(root())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.code().is_some_and(|c| c <= 1), "eval exit {status:?}");
    let html = out.path().join("markup/report.html");
    let b = Browser::start().await;
    b.client.goto(&format!("{}#case/markup-heating-hh-1098", file_url(&html))).await.unwrap();
    b.client.wait().for_element(Locator::Css("#case-markup-heating-hh-1098")).await.unwrap();
    // Open every tool result, so their text is rendered and visible.
    for d in b.client.find_all(Locator::Css("#case-markup-heating-hh-1098 .call details")).await.unwrap() {
        d.find(Locator::Css("summary")).await.unwrap().click().await.unwrap();
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(b.client.get_alert_text().await.is_err(), "no alert is open");
    let pwned = b.client.execute("return window.__pwned === undefined", vec![]).await.unwrap();
    assert_eq!(pwned, Value::Bool(true), "no injected script or handler ran");
    let console = b.console().await;
    assert!(console.is_empty(), "console output: {console:#?}");
    // Shown literally: the customer's text and the listing record as the tool returned it.
    let inquiry = b.text_of("#case-markup-heating-hh-1098 .msg.customer p").await;
    assert!(inquiry.contains("<script>window.__pwned=1;alert('inquiry')</script>"), "{inquiry}");
    let result = b.text_of("#case-markup-heating-hh-1098 .call details pre").await;
    for literal in [
        "<script>window.__pwned=1;alert('description')</script>",
        "</script><img src=x onerror=",
        "javascript:window.__pwned=1;alert('link')",
    ] {
        assert!(result.contains(literal), "{literal} not shown literally in {result}");
    }
    // No element came from the data: no img, no link other than the page's own.
    assert!(b.client.find_all(Locator::Css("img")).await.unwrap().is_empty());
    for a in b.client.find_all(Locator::Css("a")).await.unwrap() {
        let href = a.attr("href").await.unwrap().unwrap_or_default();
        assert!(href.starts_with('#'), "a link from data: {href}");
    }
    b.screenshot("markup-case-page.png").await;
    b.client.clone().close().await.unwrap();
}

/// Starts `inquiry view DIR` on a free loopback port; returns the process and its base URL.
fn start_view(dir: &Path) -> (Child, String) {
    let port = free_port();
    let child = Command::new(env!("CARGO_BIN_EXE_inquiry"))
        .arg("view")
        .arg(dir)
        .args(["--bind", &format!("127.0.0.1:{port}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut child = child;
    let base = format!("http://127.0.0.1:{port}");
    for _ in 0..100 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return (child, base);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("inquiry view did not listen on {port}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(chromium),
    ignore = "chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)"
)]
async fn inquiry_view_lists_and_serves_the_same_pages() {
    let out = bundled_report();
    let set = out.join("eval");
    let (mut view, base) = start_view(out);
    let b = Browser::start().await;
    b.client.goto(&format!("{base}/")).await.unwrap();
    let rows = b.visible("#sets tbody tr").await;
    assert_eq!(rows.len(), 1, "one report set");
    b.client.find(Locator::Css("#sets tbody tr a")).await.unwrap().click().await.unwrap();
    b.client.wait().for_element(Locator::Css("#cases")).await.unwrap();
    let url = b.client.current_url().await.unwrap().to_string();
    assert!(url.starts_with(&base) && url.ends_with("/eval/"), "{url}");
    check_bundled_pages(&b, &url, &set, "view").await;
    // Served over HTTP, the page links back to the list of report sets.
    let back = b.client.find(Locator::Css("#all-sets")).await.unwrap();
    assert_eq!(back.attr("href").await.unwrap().as_deref(), Some("/"));
    b.client.clone().close().await.unwrap();

    // Read-only and same-origin only.
    let http = reqwest::Client::new();
    let foreign = http.get(format!("{base}/")).header("origin", "http://evil.example").send().await.unwrap();
    assert_eq!(foreign.status(), 403);
    let foreign = http.get(&url).header("origin", "http://evil.example").send().await.unwrap();
    assert_eq!(foreign.status(), 403);
    let post = http.post(format!("{base}/")).send().await.unwrap();
    assert_eq!(post.status(), 405);
    let outside = http.get(format!("{base}/r/..%2F..%2Fetc%2Fpasswd")).send().await.unwrap();
    assert_eq!(outside.status(), 404);
    let _ = view.kill();
    let _ = view.wait();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(chromium),
    ignore = "chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)"
)]
async fn the_desk_answers_streams_its_trace_and_keeps_tickets_across_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("desk.sqlite");
    let desk = crate::desk::Desk::start(&db, &[]).await;
    let b = Browser::start().await;
    b.client.goto(&format!("{}/", desk.base)).await.unwrap();
    b.client.wait().for_element(Locator::Css("#queue .empty")).await.unwrap();
    let inquiry = "A flat in Hamburg under €2,000, I have a dog, is heating included, can I view it on Saturday?";
    b.client.find(Locator::Css("#inquiry")).await.unwrap().send_keys(inquiry).await.unwrap();
    b.client.find(Locator::Css("#send")).await.unwrap().click().await.unwrap();
    // The trace pane fills as the events stream in, then the reply appears.
    b.client.wait().at_most(Duration::from_secs(30)).for_element(Locator::Css(".msg.agent")).await.unwrap();
    let calls = b.visible("#trace .call").await;
    assert!(calls.len() >= 3, "{} tool call(s) shown", calls.len());
    assert!(b.visible("#trace .call.pending").await.is_empty(), "every call got its result");
    assert!(calls[0].text().await.unwrap().contains("search_listings"));
    let reply = b.text_of(".msg.agent .reply").await;
    assert!(reply.contains("HH-1001"), "{reply}");
    b.screenshot("desk-answered.png").await;

    // A citation opens the source dialog with the passage marked.
    let cite = b
        .client
        .find(Locator::Css(".msg.agent button.cite[data-source*='#']"))
        .await
        .expect("a passage citation in the reply");
    let id = cite.attr("data-source").await.unwrap().unwrap();
    cite.click().await.unwrap();
    let quote = b.client.wait().for_element(Locator::Css("#source-dialog[open] mark.cited-passage")).await.unwrap();
    let source: Value = reqwest::get(format!("{}/api/sources/{}", desk.base, id.replace('#', "%23")))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(quote.text().await.unwrap(), source["text"].as_str().unwrap());
    b.client.find(Locator::Css("#source-close")).await.unwrap().click().await.unwrap();
    assert!(b.visible("#source-dialog").await.is_empty(), "Close closes the dialog");

    // The viewing ticket is in the queue pane.
    let ticket = b.client.wait().for_element(Locator::Css("#queue .ticket")).await.unwrap();
    let ticket_id = ticket.attr("data-ticket").await.unwrap().unwrap();
    let tickets_text = b.text_of("#queue").await;
    assert!(tickets_text.contains("viewing_request"), "{tickets_text}");
    b.screenshot("desk-ticket.png").await;
    let console = b.console().await;
    assert!(console.is_empty(), "console output: {console:#?}");

    // Restarted (SIGKILL), the server still has the ticket, and the page shows it again.
    let desk = desk.restart().await;
    b.client.refresh().await.unwrap();
    let again = b.client.wait().for_element(Locator::Css(&format!("#ticket-{ticket_id}"))).await.unwrap();
    assert!(again.text().await.unwrap().contains("viewing_request"));
    // Marking it in progress from the page reaches the database.
    b.client
        .find(Locator::Css(&format!("#ticket-{ticket_id} select.status-select")))
        .await
        .unwrap()
        .select_by_value("in_progress")
        .await
        .unwrap();
    let store = inquiry::desk::TicketStore::open(&db).unwrap();
    let mut status = None;
    for _ in 0..100 {
        status = store.get(&ticket_id).unwrap().map(|t| t.ticket.status);
        if status == Some(inquiry::desk::TicketStatus::InProgress) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(status, Some(inquiry::desk::TicketStatus::InProgress));
    // The old page's open stream broke when the server was killed; nothing else may be logged.
    let console: Vec<Value> =
        b.console().await.into_iter().filter(|m| !m["message"].as_str().unwrap_or("").contains("net::ERR_")).collect();
    assert!(console.is_empty(), "console output after the restart: {console:#?}");
    b.client.clone().close().await.unwrap();
    drop(desk);
}

/// The calibration page (`calibrate`'s report.html): rendered without console
/// output, the picture inline with labelled axes, and no text of the picture
/// cut off at its edges.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(chromium),
    ignore = "chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)"
)]
async fn calibration_page_in_headless_chromium() {
    // Not beside the eval sets: inquiry view's test counts the sets there.
    let out = root().join("target/browser-artifacts/calibration");
    let status = Command::new(env!("CARGO_BIN_EXE_inquiry"))
        .args(["calibrate", "--no-cache", "--name", "calibration", "--replace", "--out"])
        .arg(&out)
        .current_dir(root())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(0), "calibrate exit {status:?}");
    let b = Browser::start().await;
    b.client.goto(&file_url(&out.join("calibration/report.html"))).await.unwrap();
    b.client.wait().for_element(Locator::Css("figure svg")).await.unwrap();
    let console = b.console().await;
    assert!(console.is_empty(), "console output on load: {console:#?}");
    let h2: Vec<String> = {
        let mut v = vec![];
        for e in b.client.find_all(Locator::Css("h2")).await.unwrap() {
            v.push(e.text().await.unwrap());
        }
        v
    };
    assert!(h2.iter().any(|h| h.starts_with("Proposal")), "{h2:?}");
    assert!(h2.iter().any(|h| h == "Rank metrics and stability"), "{h2:?}");
    let body = b.text_of("body").await;
    assert!(body.contains("Clopper–Pearson") && body.contains("Guarantee."), "{body}");
    // Axes labelled: each panel names its signal and unit under the axis.
    let svg_text = b.text_of("figure svg").await;
    for label in ["IDF-weighted share of question terms", "z-score of the cosine", "cosine similarity"] {
        assert!(svg_text.contains(label), "axis label {label:?} missing: {svg_text}");
    }
    // Nothing cut off: every text of the picture lies inside the picture.
    let outside: Value = b
        .client
        .execute(
            "const svg = document.querySelector('figure svg').getBoundingClientRect();\
             return [...document.querySelectorAll('figure svg text')].filter(t => { const r = t.getBoundingClientRect();\
               return r.left < svg.left - 0.5 || r.right > svg.right + 0.5 || r.top < svg.top - 0.5 || r.bottom > svg.bottom + 0.5; })\
               .map(t => t.textContent);",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(outside, json!([]), "texts outside the picture");
    b.screenshot("calibration-page.png").await;
    b.client.clone().close().await.unwrap();
}
