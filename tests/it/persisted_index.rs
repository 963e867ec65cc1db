//! The retrieval cache (#32): passage embeddings by text, and the persisted
//! index opened as is, updated after an edit, rebuilt when damaged, and
//! always answering exactly as an index built in memory would.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use inquiry::catalogue::Catalogue;
use inquiry::retrieval::embed::{EmbedError, Embedder, HashingEmbedder};
use inquiry::retrieval::persisted::{index_dir, Opened, MAX_SEGMENTS};
use inquiry::retrieval::{KeepRule, RetrievalSettings, Retriever};

use crate::support::catalogue;

/// Hashing embedder that counts passage embeddings and allows caching.
struct CountingEmbedder {
    inner: HashingEmbedder,
    passages: AtomicUsize,
}

impl Embedder for CountingEmbedder {
    fn model_id(&self) -> &str {
        "counting-hashing"
    }
    fn dims(&self) -> usize {
        self.inner.dims()
    }
    fn embed_queries(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.inner.embed_queries(texts)
    }
    fn embed_passages(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.passages.fetch_add(texts.len(), Ordering::SeqCst);
        self.inner.embed_passages(texts)
    }
}

fn counting() -> Arc<CountingEmbedder> {
    Arc::new(CountingEmbedder { inner: HashingEmbedder::default(), passages: AtomicUsize::new(0) })
}

fn build(cat: &Catalogue, embedder: Arc<dyn Embedder>, cache: Option<&Path>) -> Retriever {
    Retriever::build(
        cat,
        RetrievalSettings {
            embedder,
            reranker: None,
            keep: KeepRule::Fused { vector_z: 2.0, keyword_coverage: 0.3 },
            cache_dir: cache.map(Path::to_path_buf),
        },
    )
    .unwrap()
}

const QUESTIONS: &[(&str, Option<&str>)] = &[
    ("Is heating included?", None),
    ("Is heating included?", Some("HH-1001")),
    ("Kann ich die Kaution in Raten zahlen?", None),
    ("Are dogs allowed?", Some("HH-1002")),
    ("sauna in the basement", None),
    ("When was the building renovated?", None),
];

/// Every question's full answer (chunks, every score) from both retrievers.
fn assert_same_answers(a: &Retriever, b: &Retriever, what: &str) {
    for (q, scope) in QUESTIONS {
        assert_eq!(a.retrieve(q, *scope, 5).unwrap(), b.retrieve(q, *scope, 5).unwrap(), "{what}: {q} / {scope:?}");
        assert_eq!(a.candidates(q, *scope).unwrap(), b.candidates(q, *scope).unwrap(), "{what}: candidates of {q}");
    }
}

fn edited(cat: &Catalogue, listing: usize, extra: &str) -> Catalogue {
    let mut listings = cat.listings.clone();
    listings[listing].description.push_str(extra);
    Catalogue::from_parts(listings, cat.policies.clone())
}

#[test]
fn a_persisted_index_is_reopened_as_is_and_answers_as_one_built_in_memory() {
    let dir = tempfile::tempdir().unwrap();
    let cat = catalogue();
    let embedder = counting();
    let n = cat.chunks.len();
    let first = build(&cat, embedder.clone(), Some(dir.path()));
    assert_eq!(first.persisted(), Some(Opened::Built));
    assert_eq!(embedder.passages.load(Ordering::SeqCst), n, "the first build embeds every passage");
    let second = build(&cat, embedder.clone(), Some(dir.path()));
    assert_eq!(second.persisted(), Some(Opened::AsIs));
    assert_eq!(embedder.passages.load(Ordering::SeqCst), n, "reopening embeds nothing");
    let memory = build(&cat, counting(), None);
    assert_eq!(memory.persisted(), None);
    assert_same_answers(&second, &memory, "reopened vs in memory");
}

#[test]
fn an_edited_listing_reembeds_only_its_own_passages_and_the_update_matches_a_fresh_build() {
    let dir = tempfile::tempdir().unwrap();
    let cat = catalogue();
    let embedder = counting();
    build(&cat, embedder.clone(), Some(dir.path()));
    let before = embedder.passages.load(Ordering::SeqCst);
    let changed = edited(&cat, 3, " The flat has a sauna in the basement.");
    let own =
        changed.chunks.iter().filter(|c| c.listing_id.as_deref() == Some(changed.listings[3].id.as_str())).count();
    let updated = build(&changed, embedder.clone(), Some(dir.path()));
    let Some(Opened::Updated(k)) = updated.persisted() else { panic!("{:?}", updated.persisted()) };
    assert!(k >= 1 && k <= 2 * own, "{k} entries changed; the listing has {own} chunks");
    let embedded = embedder.passages.load(Ordering::SeqCst) - before;
    assert_eq!(embedded, 1, "only the new sentence is embedded (the others are in the passage cache or unchanged)");
    assert_same_answers(&updated, &build(&changed, counting(), None), "updated vs in memory");
    let hit = updated.retrieve("sauna in the basement", None, 5).unwrap();
    assert_eq!(hit.results[0].listing_id.as_deref(), Some(changed.listings[3].id.as_str()));
    // Back to the original: every passage is in the passage cache.
    let back = build(&cat, embedder.clone(), Some(dir.path()));
    assert!(matches!(back.persisted(), Some(Opened::Updated(_))));
    assert_eq!(embedder.passages.load(Ordering::SeqCst) - before, 1, "nothing new to embed");
    assert_same_answers(&back, &build(&cat, counting(), None), "reverted vs in memory");
}

#[test]
fn many_edits_are_compacted_and_still_answer_as_a_fresh_build() {
    let dir = tempfile::tempdir().unwrap();
    let cat = catalogue();
    let mut current = (*cat).clone();
    assert_eq!(build(&current, counting(), Some(dir.path())).persisted(), Some(Opened::Built));
    // Each edit writes one segment: past MAX_SEGMENTS they must have been compacted.
    for round in 0..(MAX_SEGMENTS + 3) {
        current = edited(&current, round % current.listings.len(), &format!(" Note {round}: the hallway was painted."));
        let r = build(&current, counting(), Some(dir.path()));
        assert!(matches!(r.persisted(), Some(Opened::Updated(_))), "round {round}: {:?}", r.persisted());
    }
    let counting_dir = index_dir(&dir.path().join("index"), counting().as_ref());
    let segments = std::fs::read_dir(&counting_dir)
        .unwrap()
        .filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().starts_with("vectors-"))
        .count();
    assert!(segments <= MAX_SEGMENTS, "{segments} segment files after compaction");
    assert_same_answers(
        &build(&current, counting(), Some(dir.path())),
        &build(&current, counting(), None),
        "after compaction",
    );
}

#[test]
fn a_damaged_index_is_rebuilt_never_read() {
    let cat = catalogue();
    let memory = build(&cat, counting(), None);
    // Each way of damaging a file, in a fresh cache each time.
    let damage: &[(&str, fn(&Path))] = &[
        ("a flipped byte in the vectors", |d| flip(&d.join("vectors-0.bin"), 100)),
        ("a truncated term table", |d| truncate(&d.join("terms.bin"))),
        ("a garbled manifest", |d| std::fs::write(d.join("manifest.json"), b"{not json").unwrap()),
        ("a row map pointing elsewhere", |d| flip(&d.join("rows.bin"), 4)),
        ("a damaged keyword-index file", |d| {
            let keyword = d.join("keyword");
            let file = std::fs::read_dir(&keyword)
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|e| e == "idx" || e == "term" || e == "store"))
                .max_by_key(|p| std::fs::metadata(p).unwrap().len())
                .expect("an index file");
            flip(&file, 40);
        }),
    ];
    for (what, harm) in damage {
        let dir = tempfile::tempdir().unwrap();
        build(&cat, counting(), Some(dir.path()));
        let index = index_dir(&dir.path().join("index"), counting().as_ref());
        harm(&index);
        let embedder = counting();
        let r = build(&cat, embedder.clone(), Some(dir.path()));
        assert_eq!(r.persisted(), Some(Opened::Built), "{what}");
        assert_eq!(embedder.passages.load(Ordering::SeqCst), 0, "{what}: the passage cache still holds every vector");
        assert_same_answers(&r, &memory, what);
        assert_eq!(
            build(&cat, counting(), Some(dir.path())).persisted(),
            Some(Opened::AsIs),
            "{what}: rebuilt for good"
        );
    }
}

#[test]
fn a_directory_inquiry_did_not_write_is_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let index = index_dir(&dir.path().join("index"), counting().as_ref());
    std::fs::create_dir_all(&index).unwrap();
    std::fs::write(index.join("notes.txt"), b"mine").unwrap();
    let cat = catalogue();
    let r = build(&cat, counting(), Some(dir.path()));
    assert_eq!(r.persisted(), Some(Opened::Built));
    assert_same_answers(&r, &build(&cat, counting(), None), "in memory beside a foreign directory");
    let names: Vec<String> =
        std::fs::read_dir(&index).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert_eq!(names, ["notes.txt"], "nothing written into or removed from it");
    assert_eq!(std::fs::read(index.join("notes.txt")).unwrap(), b"mine");
}

#[test]
fn processes_sharing_a_cache_directory_agree() {
    let dir = tempfile::tempdir().unwrap();
    let cat = catalogue();
    let changed = edited(&cat, 1, " A new bicycle room opens in spring.");
    // Four builders at once over two catalogues: the lock serialises them,
    // and each gets the index of its own catalogue.
    let results: Vec<(bool, Retriever)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|i| {
                let (cat, changed, path) = (&cat, &changed, dir.path());
                s.spawn(move || {
                    let which = i % 2 == 0;
                    (which, build(if which { cat } else { changed }, counting(), Some(path)))
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let (plain, edited_memory) = (build(&cat, counting(), None), build(&changed, counting(), None));
    for (original, r) in &results {
        assert_same_answers(r, if *original { &plain } else { &edited_memory }, "concurrent builder");
    }
}

fn flip(path: &Path, at: usize) {
    let mut bytes = std::fs::read(path).unwrap();
    let i = at.min(bytes.len() - 1);
    bytes[i] ^= 0x5a;
    std::fs::write(path, bytes).unwrap();
}

fn truncate(path: &Path) {
    let bytes = std::fs::read(path).unwrap();
    std::fs::write(path, &bytes[..bytes.len() / 2]).unwrap();
}
