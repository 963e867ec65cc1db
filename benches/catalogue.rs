//! Catalogue-size benchmark (`cargo bench --bench catalogue`), a plain program
//! (`harness = false`) that runs the `inquiry` binary on synthetic catalogues
//! of 10,000 and 100,000 listings shaped like the bundled one (#32) and
//! prints a Markdown table: wall time and peak RSS of
//!
//! 1. the first `inquiry tool search_knowledge` (the persisted index built);
//! 2. a fresh process with that index (opened without rebuilding);
//! 3. a fresh process after one listing was edited (the index updated);
//! 4. the same question with `--no-cache` (indexing in memory, as before #32;
//!    hashing only: with e5 it would cost what the first row costs);
//! 5. `inquiry serve` from start until the desk answers, with the index present;
//!
//! with the hashing embedder, and with e5 when `models/multilingual-e5-small`
//! is present (`scripts/fetch-models`) for `INQUIRY_BENCH_E5_LISTINGS`
//! listings (default 1,000; embedding 10,000 listings' ~100,000 passages
//! takes about ten minutes on two cores with the int8 engine: set it to
//! 10000 to measure that).
//! Peak RSS needs `/usr/bin/time` (Debian package `time`). Sizes can be
//! chosen with `INQUIRY_BENCH_LISTINGS` (comma-separated).
//!
//! Targets (#32, 10,000 listings): after editing one listing, the next search
//! ready in ≤ 2 s with e5; a fresh process with an existing index answers in
//! ≤ 1 s.
//!
//! Measured 2026-12-02 on the project's 2-core machine (AVX-512 VNNI; e5 on
//! the int8 engine, model load included in every e5 row):
//!
//! | listings | embedder | step | wall s | peak RSS MB |
//! |---|---|---|---|---|
//! | 10,000 | hashing | first search: index built | 4.95 | 975 |
//! | 10,000 | hashing | fresh process, existing index | 0.57 | 549 |
//! | 10,000 | hashing | fresh process after editing one listing | 1.01 | 588 |
//! | 10,000 | hashing | fresh process, in memory (`--no-cache`) | 2.17 | 762 |
//! | 10,000 | hashing | `serve` start-up until the desk answers | 0.51 | n/a |
//! | 10,000 | e5 | first search: index built (99,868 passages) | 310.62 | 1430 |
//! | 10,000 | e5 | fresh process, existing index | 1.67 | 926 |
//! | 10,000 | e5 | fresh process after editing one listing | 1.70 | 968 |
//! | 10,000 | e5 | `serve` start-up until the desk answers | 1.16 | n/a |
//! | 100,000 | hashing | first search: index built | 64.48 | 9237 |
//! | 100,000 | hashing | fresh process, existing index | 6.10 | 5244 |
//! | 100,000 | hashing | fresh process after editing one listing | 9.21 | 5512 |
//! | 100,000 | hashing | fresh process, in memory (`--no-cache`) | 28.71 | 7321 |
//! | 100,000 | hashing | `serve` start-up until the desk answers | 5.12 | n/a |
//!
//! (Measured with the catalogue generator this file had before it moved to
//! `benches/common`: same sizes and shape, other random draws.)
//!
//! Peak RSS counts the mapped vector segments (100,000 listings with
//! hashing: 1M chunks × 512 dims, 4 GB on disk, read once for their
//! checksum at every open).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

#[path = "common/mod.rs"]
mod common;
use common::{synthetic_description, Rng};

/// Writes `count` listings (the bundled ones first, then generated ones with
/// descriptions drawn from the bundled sentences, digits changed) and the
/// bundled policy pages to `dir`.
fn generate(root: &Path, dir: &Path, count: usize) {
    let base: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(root.join("data/listings.json")).unwrap()).unwrap();
    let pool: Vec<String> = base
        .iter()
        .flat_map(|l| inquiry::chunk::split_sentences(l["description"].as_str().unwrap_or_default()))
        .collect();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut listings = base.clone();
    for n in 0..count.saturating_sub(base.len()) {
        let mut l = base[n % base.len()].clone();
        let other = &base[rng.below(base.len())];
        l["id"] = format!(
            "{}{}-{:04}",
            (b'A' + (n / 10_000 / 26 % 26) as u8) as char,
            (b'A' + (n / 10_000 % 26) as u8) as char,
            n % 10_000
        )
        .into();
        l["district"] = other["district"].clone();
        l["city"] = other["city"].clone();
        l["description"] = synthetic_description(&pool, &mut rng).into();
        listings.push(l);
    }
    std::fs::create_dir_all(dir.join("policies")).unwrap();
    std::fs::write(dir.join("listings.json"), serde_json::to_string(&listings).unwrap()).unwrap();
    for entry in std::fs::read_dir(root.join("data/policies")).unwrap() {
        let p = entry.unwrap().path();
        std::fs::copy(&p, dir.join("policies").join(p.file_name().unwrap())).unwrap();
    }
}

/// Appends a sentence to one listing's description (an edit).
fn edit_one(dir: &Path, index: usize, sentence: &str) {
    let path = dir.join("listings.json");
    let mut listings: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let d = format!("{} {sentence}", listings[index]["description"].as_str().unwrap_or_default());
    listings[index]["description"] = d.into();
    std::fs::write(&path, serde_json::to_string(&listings).unwrap()).unwrap();
}

struct Measured {
    seconds: f64,
    rss_mb: Option<f64>,
}

fn time_command(work: &Path, args: &[&str]) -> Measured {
    let rss = work.join("rss.txt");
    let has_time = Path::new("/usr/bin/time").exists();
    let mut cmd = if has_time {
        let mut c = Command::new("/usr/bin/time");
        c.args(["-f", "%M", "-o", rss.to_str().unwrap(), env!("CARGO_BIN_EXE_inquiry")]);
        c
    } else {
        Command::new(env!("CARGO_BIN_EXE_inquiry"))
    };
    let started = Instant::now();
    let out = cmd.arg("-C").arg(work).args(args).stderr(Stdio::piped()).output().unwrap();
    let seconds = started.elapsed().as_secs_f64();
    assert!(out.status.success(), "inquiry {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    let rss_mb = has_time
        .then(|| std::fs::read_to_string(&rss).ok())
        .flatten()
        .and_then(|s| s.trim().parse::<f64>().ok())
        .map(|kb| kb / 1024.0);
    Measured { seconds, rss_mb }
}

/// Starts `inquiry serve` and waits until the desk page answers; returns the
/// seconds from start to the first answer.
fn serve_startup(work: &Path, embedder: &str) -> f64 {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_inquiry"))
        .arg("-C")
        .arg(work)
        .args(["serve", "--data", "catalogue", "--embedder", embedder, "--models"])
        .arg(models_dir())
        .args(["--bind", &format!("127.0.0.1:{port}"), "--db", "desk.sqlite"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(600);
    let ready = loop {
        if let Ok(mut s) = std::net::TcpStream::connect(("127.0.0.1", port)) {
            use std::io::Write;
            // The desk checks the Host header against its address.
            let request = format!("GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n");
            let _ = s.write_all(request.as_bytes());
            let mut buf = [0u8; 12];
            if s.read_exact(&mut buf).is_ok() && buf.starts_with(b"HTTP/1.1 200") {
                break started.elapsed().as_secs_f64();
            }
        }
        if Instant::now() > deadline || child.try_wait().ok().flatten().is_some() {
            let _ = child.kill();
            panic!("inquiry serve did not start");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let _ = child.kill();
    let _ = child.wait();
    ready
}

fn models_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("models")
}

fn row(listings: usize, embedder: &str, what: &str, m: &Measured) {
    let rss = m.rss_mb.map_or_else(|| "n/a".to_owned(), |r| format!("{r:.0}"));
    println!("| {listings} | {embedder} | {what} | {:.2} | {rss} |", m.seconds);
}

fn measure(root: &Path, listings: usize, embedder: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path();
    generate(root, &work.join("catalogue"), listings);
    std::fs::copy(root.join("retrieval.thresholds.json"), work.join("retrieval.thresholds.json")).unwrap();
    let models = models_dir();
    let search = |question: &str, extra: &[&str]| {
        let args: Vec<String> =
            ["tool", "--data", "catalogue", "--embedder", embedder, "--models", models.to_str().unwrap()]
                .into_iter()
                .map(String::from)
                .chain(extra.iter().map(|s| s.to_string()))
                .chain(["search_knowledge".to_owned(), format!("{{\"query\": \"{question}\"}}")])
                .collect();
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        time_command(work, &refs)
    };
    row(listings, embedder, "first search: index built", &search("Is heating included?", &[]));
    row(listings, embedder, "fresh process, existing index", &search("Kann ich die Kaution in Raten zahlen?", &[]));
    edit_one(&work.join("catalogue"), listings / 2, "The flat has a sauna in the basement.");
    row(listings, embedder, "fresh process after editing one listing", &search("sauna in the basement", &[]));
    if embedder == "hashing" {
        // (With e5 this would embed every passage again: the first row's cost.)
        row(
            listings,
            embedder,
            "fresh process, in memory (--no-cache)",
            &search("Is heating included?", &["--no-cache"]),
        );
    }
    let serve = serve_startup(work, embedder);
    println!("| {listings} | {embedder} | `serve` start-up until the desk answers | {serve:.2} | n/a |");
}

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let sizes: Vec<usize> = std::env::var("INQUIRY_BENCH_LISTINGS")
        .ok()
        .map(|s| s.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![10_000, 100_000]);
    println!("| listings | embedder | step | wall s | peak RSS MB |\n|---|---|---|---|---|");
    for &n in &sizes {
        measure(&root, n, "hashing");
    }
    if models_dir().join("multilingual-e5-small/model.safetensors").is_file() {
        let n = std::env::var("INQUIRY_BENCH_E5_LISTINGS").ok().and_then(|s| s.parse().ok()).unwrap_or(1_000);
        measure(&root, n, "e5");
    } else {
        println!("| - | e5 | skipped: models/multilingual-e5-small is absent (scripts/fetch-models) | - | - |");
    }
}
