//! Hybrid retrieval behind `search_knowledge` (SPEC §5).
//!
//! 1. Scope: with a listing id, only that listing's chunks and the policy chunks
//!    are candidates (a boundary in code, not in a prompt).
//! 2. Two candidate lists of up to 20: BM25 over index texts and cosine over
//!    passage embeddings.
//! 3. Merge. With a reranker, keep chunks whose score clears the reranker
//!    threshold. Without one, order by reciprocal rank fusion (k = 60) of the
//!    BM25, vector and keyword-coverage rankings, and keep a chunk when its
//!    cosine z-score or its keyword coverage clears its threshold. Both
//!    relevance signals leave place words out (ids, districts, cities: see
//!    [`topic`]); the rankings use the whole question.
//! 4. Order: the scoped listing's own chunks first, then by reranker score, or
//!    without a reranker by keyword coverage with RRF breaking ties; top `k`.
//! 5. Nothing kept → `found: false` with a reason. The nearest passage is not an answer.

pub mod analyzer;
pub mod batch;
pub mod bm25;
mod config;
pub mod cross_encoder;
pub mod e5;
pub mod embed;
pub mod glossary;
pub mod mapped;
pub mod passage_cache;
pub mod persisted;
pub mod rerank;
pub mod store;
pub mod term_tables;
pub mod thresholds;
pub mod topic;

pub use config::{EmbedderChoice, Models, RetrievalConfig, RETRIEVAL_CACHE_DIR};

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use crate::catalogue::Catalogue;
use crate::chunk::{Chunk, ChunkSource};
use crate::fold;
use crate::tools::{HitScores, KnowledgeHit, KnowledgeSearch, SearchKnowledgeOutput};
use bm25::{query_concepts, KeywordIndex};
use embed::Embedder;
use rerank::Reranker;
use store::{FlatStore, VectorStore};
use thresholds::{ThresholdsError, ThresholdsFile};
use topic::PlaceTerms;

/// Words that name the property a question is about ("the apartment", "das
/// Haus") rather than what is asked: like place words, they locate and are
/// left out of keyword coverage. Source: the catalogue's property types and
/// the nouns titles and inquiries use for them, in English and German.
const PROPERTY_WORDS: &str = "apartment flat house home condominium unit shop office property studio \
    wohnung haus eigentumswohnung objekt immobilie laden buro einfamilienhaus";

/// With the hashing embedder, catalogues of fewer chunks are indexed in
/// memory (about 0.1 s per 1,000 chunks) rather than persisted: at this size
/// (about 500 listings) opening a persisted index starts to pay.
pub const PERSIST_MIN_CHUNKS: usize = 5_000;

/// Size of each candidate list (BM25 and vector).
pub const CANDIDATES_PER_LIST: usize = 20;
/// Reciprocal rank fusion constant (Cormack et al. 2009).
pub const RRF_K: f64 = 60.0;

/// Why retrieval could not be built or run.
#[derive(Debug, thiserror::Error)]
pub enum RetrievalError {
    /// tantivy failed.
    #[error("keyword index: {0}")]
    Index(#[from] tantivy::TantivyError),
    /// The embedder failed.
    #[error(transparent)]
    Embed(#[from] embed::EmbedError),
    /// The reranker failed.
    #[error(transparent)]
    Rerank(#[from] rerank::RerankError),
    /// Thresholds are missing or invalid.
    #[error(transparent)]
    Thresholds(#[from] ThresholdsError),
}

/// The keep/drop rule in force, resolved from the thresholds file.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum KeepRule {
    /// No reranker: keep when `cosine_z >= vector_z` or `coverage >= keyword_coverage`.
    Fused {
        /// Cosine z-score threshold.
        vector_z: f64,
        /// Keyword coverage threshold (0..1).
        keyword_coverage: f64,
    },
    /// Reranker: keep when `rerank >= min_score`.
    Rerank {
        /// Reranker score threshold (0..1).
        min_score: f64,
    },
}

/// What a retriever is built from.
pub struct RetrievalSettings {
    /// Passage and query embedder.
    pub embedder: Arc<dyn Embedder>,
    /// Cross-encoder, or `None` for fused mode.
    pub reranker: Option<Arc<dyn Reranker>>,
    /// The keep rule; see [`KeepRule::from_file`].
    pub keep: KeepRule,
    /// The retrieval cache directory (`.cache/retrieval`), or `None` to
    /// index in memory: `passages.sqlite` (passage embeddings by text,
    /// [`passage_cache`]) and `index/` (the persisted index, [`persisted`]).
    pub cache_dir: Option<PathBuf>,
}

impl KeepRule {
    /// Looks the active models' thresholds up in a thresholds file.
    ///
    /// # Errors
    /// A missing entry, with a message telling the user to run `inquiry calibrate`.
    pub fn from_file(file: &ThresholdsFile, embedder: &str, reranker: Option<&str>) -> Result<Self, ThresholdsError> {
        Ok(match reranker {
            Some(model) => Self::Rerank { min_score: file.rerank(model)? },
            None => {
                let (vector_z, keyword_coverage) = file.fused(embedder)?;
                Self::Fused { vector_z, keyword_coverage }
            }
        })
    }
}

/// Every signal of one candidate chunk for one question.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// Position in [`Retriever::chunks`].
    pub chunk: usize,
    /// BM25 score when the chunk is in the BM25 list.
    pub bm25: Option<f64>,
    /// 1-based rank in the BM25 list.
    pub bm25_rank: Option<usize>,
    /// 1-based rank in the vector list.
    pub vector_rank: Option<usize>,
    /// Keyword coverage, 0..1.
    pub coverage: f64,
    /// Cosine similarity between the chunk and the question's topic (the
    /// question without place words, [`PlaceTerms::topic`]).
    pub cosine: f64,
    /// z-score of that cosine among all scoped chunks.
    pub cosine_z: f64,
    /// Reranker score when a reranker is configured.
    pub rerank: Option<f64>,
    /// Reciprocal-rank-fusion score over the BM25, vector and coverage rankings.
    pub rrf: f64,
}

impl Candidate {
    /// The ordering score: reranker score when present, else RRF.
    pub fn score(&self) -> f64 {
        self.rerank.unwrap_or(self.rrf)
    }
}

/// The retrieval pipeline over one catalogue's chunks.
pub struct Retriever {
    chunks: Vec<Chunk>,
    keyword: KeywordIndex,
    embedder: Arc<dyn Embedder>,
    vectors: store::Vectors,
    reranker: Option<Arc<dyn Reranker>>,
    keep: KeepRule,
    by_listing: HashMap<String, Vec<usize>>,
    policy: Vec<usize>,
    places: PlaceTerms,
    opened: Option<persisted::Opened>,
}

impl Retriever {
    /// Indexes the catalogue's chunks: keyword index, passage embeddings (from
    /// the cache when valid), scope tables.
    ///
    /// # Errors
    /// Index or embedding failures.
    pub fn build(catalogue: &Catalogue, settings: RetrievalSettings) -> Result<Self, RetrievalError> {
        let started = std::time::Instant::now();
        let chunks = catalogue.chunks.clone();
        let place_text = |l: &crate::catalogue::Listing| {
            format!("{} {} {} {} {PROPERTY_WORDS}", l.id, l.district, l.city, fold::exonyms(&l.city).join(" "))
        };
        let places: HashMap<&str, String> = catalogue.listings.iter().map(|l| (l.id.as_str(), place_text(l))).collect();
        let every_place: String =
            catalogue.listings.iter().map(|l| places[l.id.as_str()].as_str()).collect::<Vec<_>>().join(" ");
        let locating: Vec<&str> = chunks
            .iter()
            .map(|c| c.listing_id.as_deref().and_then(|id| places.get(id)).map_or(every_place.as_str(), String::as_str))
            .collect();
        let embedder = settings.embedder.as_ref();
        let passages = settings.cache_dir.as_deref().filter(|_| embedder.cacheable()).and_then(|dir| {
            passage_cache::PassageCache::open(dir)
                .map_err(|e| tracing::warn!(error = %format!("{e:#}"), "passage-embedding cache unusable; embedding without it"))
                .ok()
        });
        let mut opened = None;
        // Persist when reading the index back is cheaper than building it:
        // a model embedder, or a catalogue of thousands of listings.
        let persist = embedder.cacheable() || chunks.len() >= PERSIST_MIN_CHUNKS;
        let (keyword, vectors) = match settings.cache_dir.as_deref().filter(|_| persist) {
            Some(dir) => {
                let embed = |cs: &[&Chunk]| embed_passages(embedder, cs, passages.as_ref());
                let loaded = persisted::open_or_build(&dir.join("index"), &chunks, &locating, embedder, &embed)?;
                opened = Some(loaded.opened);
                (loaded.keyword, loaded.vectors)
            }
            None => {
                // The keyword index and the passage embeddings are independent:
                // build them on two threads (10,000 listings: about 3 s and 2 s).
                std::thread::scope(|scope| {
                    let embedding = scope.spawn(|| {
                        let all: Vec<&Chunk> = chunks.iter().collect();
                        embed_passages(embedder, &all, None).map(|v| FlatStore::new(embedder.dims(), &v))
                    });
                    let keyword = KeywordIndex::build_in(None, &chunks, &locating);
                    let vectors = embedding.join().unwrap_or_else(|_| {
                        Err(RetrievalError::Embed(embed::EmbedError {
                            model: embedder.model_id().into(),
                            message: "the passage-embedding thread panicked".into(),
                        }))
                    });
                    Ok::<_, RetrievalError>((keyword?, store::Vectors::Flat(vectors?)))
                })?
            }
        };
        // Where start-up time goes (`RUST_LOG=inquiry=debug`).
        tracing::debug!(chunks = chunks.len(), total_ms = started.elapsed().as_millis(), "retrieval index ready");
        let mut by_listing: HashMap<String, Vec<usize>> = HashMap::new();
        let mut policy = Vec::new();
        for (i, c) in chunks.iter().enumerate() {
            match &c.listing_id {
                Some(id) => by_listing.entry(id.clone()).or_default().push(i),
                None => policy.push(i),
            }
        }
        Ok(Self {
            chunks,
            keyword,
            embedder: settings.embedder,
            vectors,
            reranker: settings.reranker,
            keep: settings.keep,
            by_listing,
            policy,
            places: PlaceTerms::from_listings(&catalogue.listings),
            opened,
        })
    }

    /// How the persisted index was obtained (opened as is, updated, built);
    /// `None` when indexing in memory (no cache directory).
    pub fn persisted(&self) -> Option<persisted::Opened> {
        self.opened
    }

    /// The indexed chunks, by position.
    pub fn chunks(&self) -> &[Chunk] {
        &self.chunks
    }

    /// The keep rule in force.
    pub fn keep_rule(&self) -> KeepRule {
        self.keep
    }

    /// Embedder model id.
    pub fn embedder_id(&self) -> &str {
        self.embedder.model_id()
    }

    /// Reranker model id, if any.
    pub fn reranker_id(&self) -> Option<&str> {
        self.reranker.as_deref().map(|r| r.model_id())
    }

    /// Chunk positions a question may see: all, or one listing's plus policies.
    pub fn scope(&self, listing: Option<&str>) -> Vec<usize> {
        match listing {
            None => (0..self.chunks.len()).collect(),
            Some(id) => {
                let mut v = self.by_listing.get(id).cloned().unwrap_or_default();
                v.extend(&self.policy);
                v
            }
        }
    }

    /// The merged candidate list for a question with every signal, best first
    /// (reranker score, else RRF). Nothing is filtered by thresholds here; this
    /// is what calibration measures.
    ///
    /// # Errors
    /// Search, embedding or reranking failures.
    pub fn candidates(&self, question: &str, listing: Option<&str>) -> Result<Vec<Candidate>, RetrievalError> {
        let scope = self.scope(listing);
        let terms = query_concepts(question);
        let bm25 = self.keyword.search(&terms, listing, CANDIDATES_PER_LIST)?;
        // The vector list ranks by the whole question (a district helps find
        // its listing); the relevance signal uses the topic alone.
        let topic = self.places.topic(question);
        let texts: Vec<&str> = if topic == question { vec![question] } else { vec![question, topic.as_str()] };
        let mut queries = self.embedder.embed_queries(&texts)?.into_iter();
        let query = queries.next().unwrap_or_default();
        let cosines = self.vectors.cosines(&query, &scope);
        let topic_cosines = match queries.next() {
            Some(topic_query) => self.vectors.cosines(&topic_query, &scope),
            None => cosines.clone(),
        };
        let (mean, sd) = mean_sd(&topic_cosines);
        let by_cosine = top_by_cosine(&scope, &cosines, CANDIDATES_PER_LIST);
        // Unscoped, the scope is every chunk in order (it can hold 100k):
        // index it directly; scoped, it is one listing's chunks plus policies.
        let position: HashMap<usize, usize> =
            if listing.is_some() { scope.iter().enumerate().map(|(p, &c)| (c, p)).collect() } else { HashMap::new() };
        let cosine_of = |chunk: usize| -> Option<f32> {
            let p = if listing.is_some() { position.get(&chunk).copied() } else { Some(chunk) };
            p.and_then(|p| topic_cosines.get(p).copied())
        };

        let mut merged: Vec<Candidate> = Vec::new();
        let mut slot: HashMap<usize, usize> = HashMap::new();
        let mut entry = |chunk: usize, merged: &mut Vec<Candidate>| -> usize {
            *slot.entry(chunk).or_insert_with(|| {
                let cosine = f64::from(cosine_of(chunk).unwrap_or(0.0));
                merged.push(Candidate {
                    chunk,
                    bm25: None,
                    bm25_rank: None,
                    vector_rank: None,
                    coverage: self.keyword.coverage(&terms, chunk, listing.is_some()),
                    cosine,
                    cosine_z: if sd > 0.0 { (cosine - mean) / sd } else { 0.0 },
                    rerank: None,
                    rrf: 0.0,
                });
                merged.len() - 1
            })
        };
        for (rank, (chunk, score)) in bm25.iter().enumerate() {
            let i = entry(*chunk, &mut merged);
            merged[i].bm25 = Some(f64::from(*score));
            merged[i].bm25_rank = Some(rank + 1);
            merged[i].rrf += 1.0 / (RRF_K + (rank + 1) as f64);
        }
        for (rank, (chunk, _)) in by_cosine.iter().take(CANDIDATES_PER_LIST).enumerate() {
            let i = entry(*chunk, &mut merged);
            merged[i].vector_rank = Some(rank + 1);
            merged[i].rrf += 1.0 / (RRF_K + (rank + 1) as f64);
        }
        // Third ranking for the fusion: keyword coverage over the merged list.
        // BM25 alone favours chunks whose header repeats the question's place
        // words; coverage favours the chunk that holds the asked-for terms.
        let mut by_coverage: Vec<usize> = (0..merged.len()).collect();
        by_coverage.sort_by(|&a, &b| {
            merged[b].coverage.total_cmp(&merged[a].coverage).then(merged[a].chunk.cmp(&merged[b].chunk))
        });
        for (rank, i) in by_coverage.into_iter().enumerate() {
            if merged[i].coverage > 0.0 {
                merged[i].rrf += 1.0 / (RRF_K + (rank + 1) as f64);
            }
        }
        if let Some(reranker) = &self.reranker {
            let texts: Vec<&str> = merged.iter().map(|c| self.chunks[c.chunk].index_text.as_str()).collect();
            let scores = reranker.score(question, &texts)?;
            for (c, s) in merged.iter_mut().zip(scores) {
                c.rerank = Some(f64::from(s));
            }
        }
        merged.sort_by(|a, b| b.score().total_cmp(&a.score()).then(a.chunk.cmp(&b.chunk)));
        Ok(merged)
    }

    /// Whether a candidate clears the keep rule.
    pub fn keeps(&self, c: &Candidate) -> bool {
        keeps(self.keep, c)
    }

    /// Full search: candidates, keep rule, own-listing-first order, top `k`.
    ///
    /// # Errors
    /// Search, embedding or reranking failures.
    pub fn retrieve(
        &self,
        question: &str,
        listing: Option<&str>,
        k: usize,
    ) -> Result<SearchKnowledgeOutput, RetrievalError> {
        let candidates = self.candidates(question, listing)?;
        // The candidate nearest to being kept, for the "nothing found" reason:
        // by reranker score, else by coverage then z-score (not by RRF).
        let best = candidates
            .iter()
            .max_by(|a, b| match self.keep {
                KeepRule::Rerank { .. } => a.score().total_cmp(&b.score()),
                KeepRule::Fused { .. } => a.coverage.total_cmp(&b.coverage).then(a.cosine_z.total_cmp(&b.cosine_z)),
            })
            .cloned()
            .filter(|_| !query_concepts(question).is_empty());
        let mut kept: Vec<Candidate> = candidates.into_iter().filter(|c| self.keeps(c)).collect();
        if matches!(self.keep, KeepRule::Fused { .. }) {
            // Without a reranker, coverage (bounded, calibrated) orders the kept
            // chunks and RRF breaks ties: RRF alone lets a chunk that sits high
            // in one noisy list outrank the one that holds every asked-for term.
            // Between equal coverage, the passage that names an asked-for
            // concept first is about it ("The current cold rent is …" before
            // "The deposit is three months' cold rent" for "What is the cold
            // rent?", #30): a declarative sentence puts its subject first.
            let concepts = query_concepts(question);
            let lead: HashMap<usize, usize> =
                kept.iter().map(|c| (c.chunk, self.lead_position(c.chunk, &concepts))).collect();
            kept.sort_by(|a, b| {
                b.coverage
                    .total_cmp(&a.coverage)
                    .then(lead[&a.chunk].cmp(&lead[&b.chunk]))
                    .then(b.rrf.total_cmp(&a.rrf))
            });
        }
        if let Some(id) = listing {
            // Stable sort keeps score order within each group.
            kept.sort_by_key(|c| self.chunks[c.chunk].listing_id.as_deref() != Some(id));
        }
        kept.truncate(k);
        if kept.is_empty() {
            return Ok(SearchKnowledgeOutput {
                found: false,
                results: vec![],
                reason: Some(self.nothing_found(best.as_ref())),
            });
        }
        let results = kept
            .into_iter()
            .map(|c| {
                let chunk = &self.chunks[c.chunk];
                KnowledgeHit {
                    chunk_id: chunk.id.clone(),
                    source: chunk.source,
                    listing_id: chunk.listing_id.clone(),
                    text: chunk.text.clone(),
                    scores: HitScores {
                        bm25: c.bm25.map(round4),
                        coverage: Some(round4(c.coverage)),
                        cosine: Some(round4(c.cosine)),
                        cosine_z: Some(round4(c.cosine_z)),
                        rerank: c.rerank.map(round4),
                    },
                }
            })
            .collect();
        Ok(SearchKnowledgeOutput { found: true, results, reason: None })
    }

    /// Position (in analyzed terms) of the first term of `chunk` that is a
    /// form of one of `concepts`, place words left out; `usize::MAX` when none is.
    fn lead_position(&self, chunk: usize, concepts: &[bm25::QueryConcept]) -> usize {
        analyzer::analyze(&self.chunks[chunk].text)
            .iter()
            .position(|t| !self.places.contains(t) && concepts.iter().any(|c| c.forms.iter().any(|f| f.as_str() == t)))
            .unwrap_or(usize::MAX)
    }

    fn nothing_found(&self, best: Option<&Candidate>) -> String {
        let Some(b) = best else {
            return "nothing suitable found: the question has no searchable words (only stopwords or punctuation); name the topic, e.g. \"Is heating included?\"".into();
        };
        match self.keep {
            KeepRule::Fused { vector_z, keyword_coverage } => format!(
                "nothing suitable found: no passage cleared the relevance thresholds (best candidate {}: keyword coverage {:.2} < {:.2}, vector z-score {:.2} < {:.2})",
                self.chunks[b.chunk].id, b.coverage, keyword_coverage, b.cosine_z, vector_z
            ),
            KeepRule::Rerank { min_score } => format!(
                "nothing suitable found: no passage cleared the reranker threshold (best candidate {}: {:.4} < {:.4})",
                self.chunks[b.chunk].id,
                b.rerank.unwrap_or(0.0),
                min_score
            ),
        }
    }
}

/// Applies a keep rule to a candidate's signals.
pub fn keeps(rule: KeepRule, c: &Candidate) -> bool {
    match rule {
        KeepRule::Fused { vector_z, keyword_coverage } => c.cosine_z >= vector_z || c.coverage >= keyword_coverage,
        KeepRule::Rerank { min_score } => c.rerank.is_some_and(|s| s >= min_score),
    }
}

impl KnowledgeSearch for Retriever {
    fn search(&self, query: &str, scope: Option<&str>, k: usize) -> Result<SearchKnowledgeOutput, String> {
        self.retrieve(query, scope, k).map_err(|e| e.to_string())
    }
}

/// Embeds passages, reading and writing the content-addressed cache when
/// one is open (only the passages it lacks reach the embedder).
fn embed_passages(
    embedder: &dyn Embedder,
    chunks: &[&Chunk],
    cache: Option<&passage_cache::PassageCache>,
) -> Result<Vec<Vec<f32>>, RetrievalError> {
    let texts: Vec<&str> = chunks.iter().map(|c| c.text.as_str()).collect();
    let Some(cache) = cache else { return Ok(embedder.embed_passages(&texts)?) };
    let model = embedder.fingerprint();
    let keys: Vec<[u8; 32]> = texts.iter().map(|t| passage_cache::text_key(t)).collect();
    let mut found = cache.get_many(&model, embedder.dims(), &keys).unwrap_or_else(|e| {
        tracing::warn!(path = %cache.path().display(), error = %e, "passage-embedding cache unreadable; embedding every passage");
        vec![None; keys.len()]
    });
    let missing: Vec<usize> = (0..texts.len()).filter(|&i| found[i].is_none()).collect();
    tracing::debug!(passages = texts.len(), missing = missing.len(), "passage-embedding cache");
    if !missing.is_empty() {
        let wanted: Vec<&str> = missing.iter().map(|&i| texts[i]).collect();
        let fresh = embedder.embed_passages(&wanted)?;
        let rows: Vec<([u8; 32], &[f32])> = missing.iter().zip(&fresh).map(|(&i, v)| (keys[i], v.as_slice())).collect();
        if let Err(e) = cache.put_many(&model, &rows) {
            tracing::warn!(path = %cache.path().display(), error = %e, "could not write the passage-embedding cache");
        }
        for (i, v) in missing.into_iter().zip(fresh) {
            found[i] = Some(v);
        }
    }
    Ok(found.into_iter().map(Option::unwrap_or_default).collect())
}

/// The `k` best (chunk, cosine) pairs, best first, ties by chunk position: a
/// partial selection, since an unscoped scope can hold 100k chunks.
fn top_by_cosine(scope: &[usize], cosines: &[f32], k: usize) -> Vec<(usize, f32)> {
    let order = |a: &(usize, f32), b: &(usize, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
    let mut all: Vec<(usize, f32)> = scope.iter().copied().zip(cosines.iter().copied()).collect();
    if all.len() > k {
        all.select_nth_unstable_by(k, order);
        all.truncate(k);
    }
    all.sort_by(order);
    all
}

fn mean_sd(xs: &[f32]) -> (f64, f64) {
    if xs.is_empty() {
        return (0.0, 0.0);
    }
    let n = xs.len() as f64;
    let mean = xs.iter().map(|&x| f64::from(x)).sum::<f64>() / n;
    let var = xs.iter().map(|&x| (f64::from(x) - mean).powi(2)).sum::<f64>() / n;
    (mean, var.sqrt())
}

fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

/// Whether a chunk is a policy chunk (helper for callers ordering results).
pub fn is_policy(chunk: &Chunk) -> bool {
    chunk.source == ChunkSource::Policy
}
