//! Desk load benchmark (`cargo bench --bench desk_load`), a plain program
//! (`harness = false`): serves the desk in this process on loopback with the
//! demo model over the bundled catalogue, sends 50 streamed inquiries at once
//! (`POST /api/inquiries`, read to the `result` event), and prints p50/p95/max
//! latency and the error count. Then it stores 10,000 tickets in a fresh
//! database and times listing them (the store call, and `GET /api/handoffs`).
//! Targets (#19): no error; both listing times printed.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use inquiry::desk::{Desk, DeskOptions, TicketStore};
use inquiry::handoff::{HandoffReason, NewTicket};
use serde_json::json;
use tokio_stream::StreamExt as _;

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

async fn serve(db: &Path) -> (String, tokio::sync::oneshot::Sender<()>) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = inquiry::retrieval::RetrievalConfig {
        thresholds: root.join(inquiry::retrieval::thresholds::DEFAULT_THRESHOLDS_FILE),
        cache_dir: None,
        ..Default::default()
    };
    let knowledge = inquiry::app::Knowledge::load(&root.join("data"), None, &config).unwrap();
    let desk = Desk {
        catalogue: knowledge.catalogue,
        retriever: knowledge.retriever,
        model: inquiry::app::model_client("demo").unwrap(),
        store: Arc::new(TicketStore::open(db).unwrap()),
    };
    let options = DeskOptions {
        bind: "127.0.0.1:0".parse().unwrap(),
        allow_remote: false,
        token: None,
        inquiries_per_minute: 10_000,
        limits: inquiry::agent::Limits::default(),
    };
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let (addr, _task) = inquiry::desk::bind(desk, options, async {
        let _ = stopped.await;
    })
    .await
    .unwrap();
    (format!("http://{addr}"), stop)
}

async fn one_inquiry(http: reqwest::Client, base: String, i: usize) -> Result<f64, String> {
    let inquiries = [
        "A flat in Hamburg under €2,000, I have a dog, is heating included, can I view it on Saturday?",
        "Is heating included in HH-1001?",
        "Kann ich die Wohnung B-2001 am Samstag besichtigen?",
        "What is the deposit for M-3002?",
        "Could the rent for K-4001 be lower?",
    ];
    let started = Instant::now();
    let r = http
        .post(format!("{base}/api/inquiries"))
        .json(&json!({"inquiry": inquiries[i % inquiries.len()]}))
        .send()
        .await
        .map_err(|e| e.to_string())?;
    if !r.status().is_success() {
        return Err(format!("HTTP {}", r.status()));
    }
    let mut body = String::new();
    let mut stream = r.bytes_stream();
    while let Some(chunk) = stream.next().await {
        body.push_str(&String::from_utf8_lossy(&chunk.map_err(|e| e.to_string())?));
        if body.contains("event: result") && body.ends_with("\n\n") {
            return Ok(started.elapsed().as_secs_f64() * 1000.0);
        }
        if body.contains("event: error") {
            return Err("error event".into());
        }
    }
    Err("stream ended without a result".into())
}

fn main() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    rt.block_on(async {
        let (base, stop) = serve(&dir.path().join("load.sqlite")).await;
        let http = reqwest::Client::new();
        // One warm-up inquiry, then 50 at once.
        one_inquiry(http.clone(), base.clone(), 0).await.unwrap();
        let started = Instant::now();
        let tasks: Vec<_> = (0..50).map(|i| tokio::spawn(one_inquiry(http.clone(), base.clone(), i))).collect();
        let mut latencies = vec![];
        let mut errors = vec![];
        for t in tasks {
            match t.await.unwrap() {
                Ok(ms) => latencies.push(ms),
                Err(e) => errors.push(e),
            }
        }
        let wall = started.elapsed();
        latencies.sort_by(f64::total_cmp);
        println!(
            "50 concurrent streamed inquiries (demo model): {} ok, {} error(s); latency p50 {:.0} ms, p95 {:.0} ms, max {:.0} ms; wall {:.2} s",
            latencies.len(),
            errors.len(),
            percentile(&latencies, 0.5),
            percentile(&latencies, 0.95),
            latencies.last().copied().unwrap_or(0.0),
            wall.as_secs_f64()
        );
        if !errors.is_empty() {
            println!("errors: {errors:?}");
        }
        let _ = stop.send(());

        // 10,000 tickets: listing them from the store and over HTTP.
        let db = dir.path().join("big.sqlite");
        let store = TicketStore::open(&db).unwrap();
        let filled = Instant::now();
        for i in 0..10_000 {
            let new = NewTicket {
                reason: HandoffReason::ALL[i % 6],
                listing_id: Some("HH-1001".into()),
                summary: format!("Customer {i} asks to view the flat on Saturday morning"),
                contact_email: None,
                now: chrono::Utc::now(),
            };
            store.create(&new, "desk").unwrap();
        }
        println!("stored 10,000 tickets one transaction each in {:.2} s", filled.elapsed().as_secs_f64());
        drop(store);
        let mut store_ms = vec![];
        let store = TicketStore::open(&db).unwrap();
        for _ in 0..5 {
            let t = Instant::now();
            assert_eq!(store.list(None).unwrap().len(), 10_000);
            store_ms.push(t.elapsed().as_secs_f64() * 1000.0);
        }
        drop(store);
        let (base, stop) = serve(&db).await;
        let mut http_ms = vec![];
        let mut bytes = 0;
        for _ in 0..5 {
            let t = Instant::now();
            let body = http.get(format!("{base}/api/handoffs")).send().await.unwrap().bytes().await.unwrap();
            http_ms.push(t.elapsed().as_secs_f64() * 1000.0);
            bytes = body.len();
        }
        store_ms.sort_by(f64::total_cmp);
        http_ms.sort_by(f64::total_cmp);
        println!(
            "listing 10,000 tickets: TicketStore::list median {:.0} ms; GET /api/handoffs median {:.0} ms ({} KB of JSON)",
            percentile(&store_ms, 0.5),
            percentile(&http_ms, 0.5),
            bytes / 1024
        );
        let _ = stop.send(());
        tokio::time::sleep(Duration::from_millis(50)).await;
    });
}
