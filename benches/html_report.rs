//! HTML report benchmark (`cargo bench --bench html_report`), a plain program
//! (`harness = false`): writes the 49-case suite's report set (once with
//! `--repeat 1`, once with `--repeat 3`), prints each `report.html`'s size,
//! and loads each five times in headless Chromium (Debian's `chromium` and
//! `chromium-driver`), printing the load time (navigation start to the end
//! of the load event) as median and max. Target (#18): at most 2 MB for the
//! 49-case report.

use std::process::{Command, Stdio};
use std::time::Duration;

use fantoccini::ClientBuilder;
use serde_json::{json, Value};

fn main() {
    let root = env!("CARGO_MANIFEST_DIR");
    let dir = tempfile::tempdir().unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut driver = Command::new("/usr/bin/chromedriver")
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromedriver (apt-get install chromium chromium-driver)");
    let caps = json!({"browserName": "chrome", "goog:chromeOptions": {"binary": "/usr/bin/chromium",
        "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,1600"]}});
    let client = rt.block_on(async {
        for _ in 0..100 {
            let connector = hyper_util::client::legacy::connect::HttpConnector::new();
            if let Ok(c) = ClientBuilder::new(connector)
                .capabilities(caps.as_object().unwrap().clone())
                .connect(&format!("http://127.0.0.1:{port}"))
                .await
            {
                return c;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("no WebDriver session");
    });
    for repeat in ["1", "3"] {
        let name = format!("repeat-{repeat}");
        let status = Command::new(env!("CARGO_BIN_EXE_inquiry"))
            .args(["eval", "--no-cache", "--repeat", repeat, "--name", &name, "--out"])
            .arg(dir.path())
            .current_dir(root)
            .stderr(Stdio::null())
            .status()
            .unwrap();
        assert!(status.code().is_some_and(|c| c <= 1), "eval {status:?}");
        let html = dir.path().join(&name).join("report.html");
        let bytes = std::fs::metadata(&html).unwrap().len();
        let mut ms: Vec<f64> = rt.block_on(async {
            let mut out = vec![];
            for _ in 0..5 {
                client.goto("about:blank").await.unwrap();
                client.goto(&format!("file://{}", html.display())).await.unwrap();
                let t: Value = client
                    .execute(
                        "const t = performance.getEntriesByType('navigation')[0]; return t.loadEventEnd - t.startTime;",
                        vec![],
                    )
                    .await
                    .unwrap();
                out.push(t.as_f64().unwrap_or(f64::NAN));
            }
            out
        });
        ms.sort_by(f64::total_cmp);
        println!(
            "49 cases x {repeat} run(s): report.html {:.0} KB ({bytes} bytes; target <= 2 MB for 1 run), load median {:.0} ms, max {:.0} ms (5 loads)",
            bytes as f64 / 1024.0,
            ms[ms.len() / 2],
            ms[ms.len() - 1]
        );
    }
    let _ = rt.block_on(client.close());
    let _ = driver.kill();
    let _ = driver.wait();
}
