//! Retrieval benchmark (`cargo bench --bench retrieval`), a plain program
//! (`harness = false`) that prints a table:
//!
//! 1. `search_knowledge` ([`Retriever::retrieve`], query embedding included)
//!    latency p50/p95 over the golden questions at catalogue size, with the
//!    hashing embedder and with e5;
//! 2. the same over a synthetic corpus of 100,000 chunks (hashing only);
//! 3. e5 embedding throughput on 200 German/English passages of ~35 tokens.
//!
//! The e5 parts are skipped when `models/multilingual-e5-small` is absent
//! (`scripts/fetch-models`). Threads: `RAYON_NUM_THREADS` (default 2 here, the
//! size of the project's machines) sets candle's and rayon's pools.
//!
//! Targets: p50 ≤ 1 ms at catalogue size with hashing, ≤ 20 ms at 100k chunks
//! with hashing, e5 ≥ 40 passages/s.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use inquiry::catalogue::{Catalogue, Listing};
use inquiry::chunk::split_sentences;
use inquiry::golden::GoldenSet;
use inquiry::retrieval::e5::{E5Embedder, E5_MODEL_ID};
use inquiry::retrieval::embed::{Embedder, HashingEmbedder};
use inquiry::retrieval::thresholds::ThresholdsFile;
use inquiry::retrieval::{KeepRule, RetrievalSettings, Retriever};

#[path = "common/mod.rs"]
mod common;
use common::{synthetic_description, throughput_passages, Rng};

type Question = (String, Option<String>);

fn main() {
    if std::env::var_os("RAYON_NUM_THREADS").is_none() {
        // Before any pool exists (edition 2021: set_var is safe; nothing else runs yet).
        std::env::set_var("RAYON_NUM_THREADS", "2");
    }
    let threads = std::env::var("RAYON_NUM_THREADS").unwrap_or_default();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let catalogue = Catalogue::load(&root.join("data")).expect("bundled catalogue loads");
    let golden = GoldenSet::load(&root.join("golden/golden.yaml"), &catalogue).expect("golden set loads");
    let questions: Vec<Question> = golden
        .answerable
        .iter()
        .map(|a| (a.question.clone(), a.listing.clone()))
        .chain(golden.unanswerable.iter().map(|u| (u.question.clone(), u.listing.clone())))
        .collect();
    let thresholds = ThresholdsFile::load(&root.join("retrieval.thresholds.json")).ok();
    let keep_for = |model: &str| {
        thresholds
            .as_ref()
            .and_then(|f| KeepRule::from_file(f, model, None).ok())
            .unwrap_or(KeepRule::Fused { vector_z: 3.0, keyword_coverage: 0.5 })
    };
    println!("retrieval benchmark (release, RAYON_NUM_THREADS={threads})");
    println!(
        "{} golden questions ({} scoped to a listing)",
        questions.len(),
        questions.iter().filter(|q| q.1.is_some()).count()
    );

    // 1. Catalogue size, hashing.
    let hashing: Arc<dyn Embedder> = Arc::new(HashingEmbedder::default());
    let keep = keep_for(hashing.model_id());
    let r = Retriever::build(&catalogue, settings(hashing.clone(), keep, None)).expect("hashing retriever");
    let (p50, p95) = latency(&r, &questions, 50);
    row(&format!("search_knowledge, hashing, {} chunks", r.chunks().len()), p50, p95, "p50 ≤ 1 ms");

    // 1b. Catalogue size, e5.
    let e5_dir = root.join("models").join(E5_MODEL_ID);
    let e5: Option<Arc<E5Embedder>> = if e5_dir.join("model.safetensors").is_file() {
        let t = Instant::now();
        let m = Arc::new(E5Embedder::load(&e5_dir).expect("e5 loads"));
        println!("e5 model load: {:.2} s", t.elapsed().as_secs_f64());
        Some(m)
    } else {
        println!("e5: skipped ({} is absent; run scripts/fetch-models)", e5_dir.display());
        None
    };
    if let Some(m) = &e5 {
        let t = Instant::now();
        let embedder: Arc<dyn Embedder> = m.clone();
        let r = Retriever::build(&catalogue, settings(embedder, keep_for(E5_MODEL_ID), None)).expect("e5 retriever");
        println!("e5 index build ({} passages, no cache): {:.2} s", r.chunks().len(), t.elapsed().as_secs_f64());
        let (p50, p95) = latency(&r, &questions, 5);
        row(&format!("search_knowledge, e5, {} chunks", r.chunks().len()), p50, p95, "");
    }

    // 2. 100,000 chunks, hashing.
    let t = Instant::now();
    let big = synthetic_catalogue(&catalogue, 100_000);
    let built = Instant::now();
    let r = Retriever::build(&big, settings(hashing, keep, None)).expect("100k retriever");
    println!(
        "synthetic corpus: {} listings, {} chunks (generated in {:.1} s, indexed in {:.1} s)",
        big.listings.len(),
        big.chunks.len(),
        built.duration_since(t).as_secs_f64(),
        built.elapsed().as_secs_f64()
    );
    let (p50, p95) = latency(&r, &questions, 5);
    row(&format!("search_knowledge, hashing, {} chunks", r.chunks().len()), p50, p95, "p50 ≤ 20 ms");
    let unscoped: Vec<Question> = questions.iter().filter(|q| q.1.is_none()).cloned().collect();
    let (p50, p95) = latency(&r, &unscoped, 5);
    row(&format!("  unscoped questions only ({})", unscoped.len()), p50, p95, "");

    // 3. e5 throughput.
    if let Some(m) = &e5 {
        let passages = throughput_passages(&catalogue, m, 200);
        let tokens: usize = passages.iter().map(|p| m.token_ids(&format!("passage: {p}")).map_or(0, |t| t.len())).sum();
        let refs: Vec<&str> = passages.iter().map(String::as_str).collect();
        m.embed_passages(&refs[..32]).expect("warm-up");
        let mut rates = vec![];
        for _ in 0..3 {
            let t = Instant::now();
            m.embed_passages(&refs).expect("embedding");
            rates.push(refs.len() as f64 / t.elapsed().as_secs_f64());
        }
        rates.sort_by(f64::total_cmp);
        println!(
            "{:<52} {:>8.1} passages/s (median of 3; best {:.1}; {} passages, mean {:.1} tokens incl. prefix and specials)   target ≥ 40",
            "e5 embedding throughput",
            rates[1],
            rates[2],
            refs.len(),
            tokens as f64 / refs.len() as f64
        );
    }
}

fn settings(embedder: Arc<dyn Embedder>, keep: KeepRule, cache_dir: Option<&Path>) -> RetrievalSettings {
    RetrievalSettings { embedder, reranker: None, keep, cache_dir: cache_dir.map(Path::to_path_buf) }
}

/// Runs every question `reps` times (after one warm-up pass); p50 and p95 of
/// the single-call latencies.
fn latency(r: &Retriever, questions: &[Question], reps: usize) -> (Duration, Duration) {
    for (q, scope) in questions {
        r.retrieve(q, scope.as_deref(), 5).expect("retrieve");
    }
    let mut times = Vec::with_capacity(questions.len() * reps);
    for _ in 0..reps {
        for (q, scope) in questions {
            let t = Instant::now();
            let out = r.retrieve(q, scope.as_deref(), 5).expect("retrieve");
            times.push(t.elapsed());
            std::hint::black_box(out);
        }
    }
    times.sort();
    let pct = |p: f64| times[((times.len() - 1) as f64 * p).round() as usize];
    (pct(0.50), pct(0.95))
}

fn row(label: &str, p50: Duration, p95: Duration, target: &str) {
    println!("{label:<52} p50 {:>9.3} ms   p95 {:>9.3} ms   {target}", ms(p50), ms(p95));
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// The bundled catalogue (so scoped golden questions keep their listings) plus
/// generated listings until there are at least `target` chunks. Each generated
/// listing takes a real listing's fields and a description of sentences drawn
/// from the whole catalogue with their digits changed.
fn synthetic_catalogue(base: &Catalogue, target: usize) -> Catalogue {
    let pool: Vec<String> = base.listings.iter().flat_map(|l| split_sentences(&l.description)).collect();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut listings: Vec<Listing> = base.listings.clone();
    let mut chunks = base.chunks.len();
    let mut n = 0usize;
    while chunks < target {
        let template = &base.listings[n % base.listings.len()];
        let mut l = template.clone();
        let prefix = [b'A' + (n / 10_000 / 26 % 26) as u8, b'A' + (n / 10_000 % 26) as u8];
        l.id = format!("{}-{:04}", String::from_utf8_lossy(&prefix), n % 10_000);
        let other = &base.listings[rng.below(base.listings.len())];
        l.district = other.district.clone();
        l.city = other.city.clone();
        l.description = synthetic_description(&pool, &mut rng);
        chunks += split_sentences(&l.description).len();
        listings.push(l);
        n += 1;
    }
    Catalogue::from_parts(listings, base.policies.clone())
}
