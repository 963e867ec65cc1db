//! Keyword search: a tantivy BM25 index over chunk index texts, plus the
//! keyword-coverage signal used for the relevance threshold.
//!
//! Raw BM25 is unbounded and one rare word dominates it, so the keep/drop
//! decision uses *coverage* instead: the IDF-weighted share of the question's
//! terms present in the chunk, 0..1. BM25 only orders the candidate list.

use std::collections::{HashMap, HashSet};

use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::{IndexRecordOption, Schema, TextFieldIndexing, TextOptions, FAST, INDEXED, STRING};
use tantivy::{Index, IndexReader, ReloadPolicy, TantivyDocument, Term};

use super::analyzer::{analyze, FoldingTokenizer, ANALYZER_NAME};
use super::term_tables::{chunk_key, ChunkStamp, ChunkText, TermTables};
use crate::chunk::Chunk;

/// A query term produced by the analyzer. The only way to build a tantivy term
/// query here is from one of these, so an un-analysed string never reaches the index.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AnalyzedTerm(String);

impl AnalyzedTerm {
    /// The folded term text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// One word of a question with the forms that count as a match: the analyzed
/// word itself, then its English equivalents from the [glossary](super::glossary).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryConcept {
    /// The question's own (analyzed) word.
    pub term: AnalyzedTerm,
    /// Every term of `alternatives`, `term` first, without duplicates (BM25 searches them all).
    pub forms: Vec<AnalyzedTerm>,
    /// Ways the concept can be present in a chunk: `[term]`, then each glossary
    /// phrase; a phrase is present when all its terms are (`Kaltmiete` is
    /// `[kaltmiet]` or `[cold, rent]`, not "cold" alone).
    pub alternatives: Vec<Vec<AnalyzedTerm>>,
}

/// Analyzes a question into distinct concepts, in first-seen order.
pub fn query_concepts(question: &str) -> Vec<QueryConcept> {
    let mut seen = HashSet::new();
    analyze(&super::glossary::phrasal(question))
        .into_iter()
        .filter(|t| seen.insert(t.clone()))
        .map(|t| {
            let mut alternatives = vec![vec![AnalyzedTerm(t.clone())]];
            alternatives.extend(
                super::glossary::translations(&t).into_iter().map(|p| p.into_iter().map(AnalyzedTerm).collect()),
            );
            let mut forms: Vec<AnalyzedTerm> = vec![];
            for term in alternatives.iter().flatten() {
                if !forms.contains(term) {
                    forms.push(term.clone());
                }
            }
            QueryConcept { term: AnalyzedTerm(t), forms, alternatives }
        })
        .collect()
}

/// Analyzed terms of light verbs, which weigh half in keyword coverage, and
/// of the nouns keyword queries put where a question has "how much" or
/// "which" ("Kaution Höhe", "deposit amount", "heating type", #30): they say
/// what kind of answer is wanted, not what it is about.
const LIGHT_TERMS: &[&str] = &[
    "pay", "zahlen", "bezahlen", "have", "get", "give", "make", "need", "bekommen", "brauch", "brauchen", "geben",
    "machen", "hohe", "amount", "type", "art",
];

/// Scope value indexed for policy chunks (listing chunks index their listing id).
const POLICY_SCOPE: &str = "policy";

/// A tantivy BM25 index over chunk index texts with the interned terms
/// keyword coverage reads ([`TermTables`]); in RAM, or in a directory that a
/// later process opens without rebuilding ([`super::persisted`]).
pub struct KeywordIndex {
    index: Index,
    reader: IndexReader,
    text: tantivy::schema::Field,
    scope: tantivy::schema::Field,
    /// Chunk position by [`chunk_key`] of its id (a hit carries the key).
    position: std::sync::Arc<HashMap<u64, usize>>,
    terms: TermTables,
    /// Tokens of every chunk's index text ([`TermTables::total_tokens`]).
    total_tokens: u64,
}

/// BM25's statistics over the documents a search can return: tantivy counts
/// a deleted document (an edited chunk's old version) until its segment is
/// merged, so an updated index would score differently from a fresh build.
/// Documents and tokens come from the term tables; a term's document
/// frequency skips deleted documents.
struct AliveStatistics<'a> {
    searcher: &'a tantivy::Searcher,
    docs: u64,
    tokens: u64,
}

impl tantivy::query::Bm25StatisticsProvider for AliveStatistics<'_> {
    fn total_num_tokens(&self, field: tantivy::schema::Field) -> tantivy::Result<u64> {
        // The text field's tokens are counted per chunk; any other field
        // (the scope: one token a document) has one token per document.
        let text = self.searcher.schema().get_field("text")?;
        Ok(if field == text { self.tokens } else { self.docs })
    }

    fn total_num_docs(&self) -> tantivy::Result<u64> {
        Ok(self.docs)
    }

    fn doc_freq(&self, term: &Term) -> tantivy::Result<u64> {
        let mut n = 0u64;
        for segment in self.searcher.segment_readers() {
            let index = segment.inverted_index(term.field())?;
            match segment.alive_bitset() {
                None => n += u64::from(index.doc_freq(term)?),
                Some(alive) => {
                    if let Some(mut postings) = index.read_postings(term, IndexRecordOption::Basic)? {
                        use tantivy::DocSet;
                        let mut doc = postings.doc();
                        while doc != tantivy::TERMINATED {
                            n += u64::from(alive.is_alive(doc));
                            doc = postings.advance();
                        }
                    }
                }
            }
        }
        Ok(n)
    }
}

/// The index schema: analysed text, scope (listing id or `policy`) and the
/// chunk key (indexed to delete an edited chunk, fast to find a hit's chunk).
fn schema() -> (Schema, [tantivy::schema::Field; 3]) {
    let mut builder = Schema::builder();
    let indexing =
        TextFieldIndexing::default().set_tokenizer(ANALYZER_NAME).set_index_option(IndexRecordOption::WithFreqs);
    let text = builder.add_text_field("text", TextOptions::default().set_indexing_options(indexing));
    let scope = builder.add_text_field("scope", STRING);
    let key = builder.add_u64_field("key", INDEXED | FAST);
    (builder.build(), [text, scope, key])
}

/// What the term tables are made from, for each chunk; `locating[i]` is the
/// place-word text of chunk `i` (see [`KeywordIndex::build`]).
pub fn chunk_texts<'a>(chunks: &'a [Chunk], locating: &'a [&'a str]) -> Vec<ChunkText<'a>> {
    chunks
        .iter()
        .enumerate()
        .map(|(i, c)| ChunkText {
            id: &c.id,
            text: &c.text,
            header: c.index_text.strip_suffix(c.text.as_str()).unwrap_or(&c.index_text),
            listing: c.listing_id.is_some(),
            locating: locating.get(i).copied().unwrap_or(""),
        })
        .collect()
}

fn document(fields: [tantivy::schema::Field; 3], c: &Chunk) -> TantivyDocument {
    let [text, scope, key] = fields;
    let mut doc = TantivyDocument::default();
    doc.add_text(text, &c.index_text);
    doc.add_text(scope, c.listing_id.as_deref().unwrap_or(POLICY_SCOPE));
    doc.add_u64(key, chunk_key(&c.id));
    doc
}

impl KeywordIndex {
    /// Indexes every chunk's `index_text` (text with its context header) for
    /// BM25, in RAM. `locating[i]` is the text of place words for chunk `i`
    /// (its listing's id, district and city; every listing's for a policy
    /// chunk), whose terms locate rather than answer.
    ///
    /// # Errors
    /// A tantivy error while writing the in-RAM index.
    pub fn build(chunks: &[Chunk], locating: &[String]) -> tantivy::Result<Self> {
        let locating: Vec<&str> = locating.iter().map(String::as_str).collect();
        Self::build_in(None, chunks, &locating)
    }

    /// As [`Self::build`], written to `dir` (which must be empty) when given.
    ///
    /// # Errors
    /// A tantivy error while writing the index.
    pub fn build_in(dir: Option<&std::path::Path>, chunks: &[Chunk], locating: &[&str]) -> tantivy::Result<Self> {
        let (schema, fields) = schema();
        let index = match dir {
            Some(d) => Index::create_in_dir(d, schema)?,
            None => Index::create_in_ram(schema),
        };
        index.tokenizers().register(ANALYZER_NAME, FoldingTokenizer);
        let mut writer: tantivy::IndexWriter = index.writer_with_num_threads(1, 15_000_000)?;
        for c in chunks {
            writer.add_document(document(fields, c))?;
        }
        writer.commit()?;
        writer.wait_merging_threads()?;
        let texts = chunk_texts(chunks, locating);
        let stamps: Vec<_> = texts.iter().map(ChunkText::stamp).collect();
        let terms = TermTables::build(&texts, &stamps, None);
        Self::from_parts(index, fields, chunks, terms)
    }

    /// Opens an index written by [`Self::build_in`] for exactly these chunks,
    /// with their term tables.
    ///
    /// # Errors
    /// A tantivy error, or an index whose documents are not these chunks
    /// (another count, or a key no chunk has): a stale index is never read.
    pub fn open(dir: &std::path::Path, chunks: &[Chunk], terms: TermTables) -> tantivy::Result<Self> {
        let index = Index::open_in_dir(dir)?;
        let fields = Self::fields(&index)?;
        index.tokenizers().register(ANALYZER_NAME, FoldingTokenizer);
        Self::from_parts(index, fields, chunks, terms)
    }

    /// Brings an index written by [`Self::build_in`] for `old`'s chunks up to
    /// date with `chunks`: deletes the documents of chunks that changed or went,
    /// adds those that changed or came, and re-analyses only those.
    ///
    /// # Errors
    /// As [`Self::open`].
    /// `stamps[i]` is the stamp of chunk `i` ([`ChunkText::stamp`]).
    pub fn update(
        dir: &std::path::Path,
        old: &TermTables,
        chunks: &[Chunk],
        locating: &[&str],
        stamps: &[ChunkStamp],
    ) -> tantivy::Result<Self> {
        let index = Index::open_in_dir(dir)?;
        let fields = Self::fields(&index)?;
        index.tokenizers().register(ANALYZER_NAME, FoldingTokenizer);
        let texts = chunk_texts(chunks, locating);
        let new_set: HashSet<_> = stamps.iter().copied().collect();
        let old_set: HashSet<_> = old.stamps().iter().copied().collect();
        // The index must be the one the old tables describe, undamaged.
        let docs = index.reader_builder().reload_policy(ReloadPolicy::Manual).try_into()?.searcher().num_docs();
        if docs as usize != old.len() {
            return Err(tantivy::TantivyError::InvalidArgument(format!(
                "the index holds {docs} documents, its term tables {}",
                old.len()
            )));
        }
        let damaged = index.validate_checksum()?;
        if !damaged.is_empty() {
            return Err(tantivy::TantivyError::InvalidArgument(format!("{} damaged index files", damaged.len())));
        }
        let mut writer: tantivy::IndexWriter = index.writer_with_num_threads(1, 15_000_000)?;
        let mut changed = 0usize;
        for s in old.stamps().iter().filter(|s| !new_set.contains(s)) {
            writer.delete_term(Term::from_field_u64(fields[2], s.key));
            changed += 1;
        }
        for (c, s) in chunks.iter().zip(stamps).filter(|(_, s)| !old_set.contains(s)) {
            // An id kept with new content: its old document was deleted above.
            writer.delete_term(Term::from_field_u64(fields[2], s.key));
            writer.add_document(document(fields, c))?;
            changed += 1;
        }
        if changed > 0 {
            writer.commit()?;
        }
        writer.wait_merging_threads()?;
        tracing::debug!(changed, "keyword index updated");
        let t = std::time::Instant::now();
        let terms = TermTables::build(&texts, stamps, Some(old));
        tracing::debug!(ms = t.elapsed().as_millis(), "term tables updated");
        Self::from_parts(index, fields, chunks, terms)
    }

    fn fields(index: &Index) -> tantivy::Result<[tantivy::schema::Field; 3]> {
        let schema = index.schema();
        let (expected, _) = self::schema();
        if schema != expected {
            return Err(tantivy::TantivyError::SchemaError("the index was written with another schema".into()));
        }
        Ok([schema.get_field("text")?, schema.get_field("scope")?, schema.get_field("key")?])
    }

    fn from_parts(
        index: Index,
        fields: [tantivy::schema::Field; 3],
        chunks: &[Chunk],
        terms: TermTables,
    ) -> tantivy::Result<Self> {
        let [text, scope, _key] = fields;
        // A fixed snapshot: another process updating a persisted index must
        // not change what this one's term tables and positions describe.
        let reader = index.reader_builder().reload_policy(ReloadPolicy::Manual).try_into()?;
        let mut position = HashMap::with_capacity(chunks.len());
        for (i, c) in chunks.iter().enumerate() {
            if position.insert(chunk_key(&c.id), i).is_some() {
                return Err(tantivy::TantivyError::InvalidArgument(format!("two chunks share the key of {}", c.id)));
            }
        }
        let docs = reader.searcher().num_docs() as usize;
        if docs != chunks.len() || terms.len() != chunks.len() {
            return Err(tantivy::TantivyError::InvalidArgument(format!(
                "the index holds {docs} documents and {} term entries for {} chunks",
                terms.len(),
                chunks.len()
            )));
        }
        let total_tokens = terms.total_tokens();
        Ok(Self { index, reader, text, scope, position: std::sync::Arc::new(position), terms, total_tokens })
    }

    /// The term tables (written beside a persisted index).
    pub fn terms(&self) -> &TermTables {
        &self.terms
    }

    /// Checks every file of the index against its checksum (tantivy's own),
    /// so a damaged file is found before it is read.
    ///
    /// # Errors
    /// A damaged or missing file, named.
    pub fn validate(&self) -> tantivy::Result<()> {
        let damaged = self.index.validate_checksum()?;
        if damaged.is_empty() {
            Ok(())
        } else {
            let names: Vec<String> = damaged.iter().map(|p| p.display().to_string()).collect();
            Err(tantivy::TantivyError::InvalidArgument(format!("damaged index files: {}", names.join(", "))))
        }
    }

    /// Number of indexed chunks.
    pub fn len(&self) -> usize {
        self.terms.len()
    }

    /// True when nothing is indexed.
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// BM25 top `limit` chunks for the terms, restricted to a listing's chunks
    /// plus policy chunks when `scope` is given. Returns (chunk position, score),
    /// best first; empty when no term matches.
    ///
    /// # Errors
    /// A tantivy search error.
    pub fn search(
        &self,
        concepts: &[QueryConcept],
        scope: Option<&str>,
        limit: usize,
    ) -> tantivy::Result<Vec<(usize, f32)>> {
        if concepts.is_empty() || limit == 0 {
            return Ok(vec![]);
        }
        let should: Vec<(Occur, Box<dyn Query>)> = concepts
            .iter()
            .flat_map(|c| &c.forms)
            .map(|t| {
                let q = TermQuery::new(Term::from_field_text(self.text, t.as_str()), IndexRecordOption::WithFreqs);
                (Occur::Should, Box::new(q) as Box<dyn Query>)
            })
            .collect();
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = vec![(Occur::Must, Box::new(BooleanQuery::new(should)))];
        if let Some(listing) = scope {
            let allowed: Vec<(Occur, Box<dyn Query>)> = [listing, POLICY_SCOPE]
                .into_iter()
                .map(|s| {
                    let q = TermQuery::new(Term::from_field_text(self.scope, s), IndexRecordOption::Basic);
                    (Occur::Should, Box::new(q) as Box<dyn Query>)
                })
                .collect();
            clauses.push((Occur::Must, Box::new(BooleanQuery::new(allowed))));
        }
        let searcher = self.reader.searcher();
        // Ties go to the earlier chunk, whatever segment holds it, so an
        // updated index ranks exactly as a fresh one.
        let position = self.position.clone();
        let collector = TopDocs::with_limit(limit).tweak_score(move |segment: &tantivy::SegmentReader| {
            let keys = segment.fast_fields().u64("key").ok();
            let position = position.clone();
            move |doc: tantivy::DocId, score: tantivy::Score| {
                let at = keys.as_ref().and_then(|k| k.first(doc)).and_then(|k| position.get(&k).copied());
                (score, std::cmp::Reverse(at.unwrap_or(usize::MAX)))
            }
        });
        let stats = AliveStatistics { searcher: &searcher, docs: self.terms.len() as u64, tokens: self.total_tokens };
        let hits = searcher.search_with_statistics_provider(&BooleanQuery::new(clauses), &collector, &stats)?;
        let mut out = Vec::with_capacity(hits.len());
        for ((score, std::cmp::Reverse(pos)), _) in hits {
            if pos < self.terms.len() {
                out.push((pos, score));
            }
        }
        Ok(out)
    }

    /// Inverse document frequency, `ln(1 + (N - n + 0.5) / (n + 0.5))`: the
    /// BM25 (Lucene) form, which stays positive even for a term in every chunk
    /// (the classic Robertson–Spärck Jones form is 0 at n = N/2 and negative above).
    pub fn idf(&self, term: &str) -> f64 {
        let n = self.terms.doc_freq(term) as f64;
        let total = self.terms.len() as f64;
        (1.0 + (total - n + 0.5) / (n + 0.5)).ln()
    }

    /// Keyword coverage of a chunk: the IDF-weighted share of the question's
    /// concepts present in its index text, 0..1 (0 for a question without terms).
    ///
    /// A concept matches when any of its alternatives (the word, or a glossary
    /// phrase with all its terms) is in the chunk; its weight is the IDF of its
    /// most common alternative that occurs in the corpus, a phrase counting as
    /// its rarest term (the question word's own IDF when none occurs, which is
    /// the highest possible: an unknown word like `gym` pulls coverage down for
    /// every chunk).
    ///
    /// Terms that locate the chunk (its listing's id, district, city and
    /// title words; any listing's place words for a policy section) are left
    /// out of both sums: "is there a dishwasher in K-4001?" matches every K-4001
    /// sentence on `k` and `4001`, but none of them is about dishwashers; and
    /// "hamsters for HH-1002 in Altona?" should not count against the pets policy.
    ///
    /// A listing sentence is read without its listing's title when the search
    /// is `scoped` (the listing is already chosen, so "Does the apartment have
    /// a balcony?" needs the balcony sentence, not any sentence of a listing
    /// titled "… with balcony"). Unscoped, the title's words count as present:
    /// they say which listing "the two-room apartment in Altona" is.
    pub fn coverage(&self, concepts: &[QueryConcept], chunk: usize, scoped: bool) -> f64 {
        // Verbs that say how, not what ("pay", "have", "get"): half weight, so
        // a sentence sharing only "pay" does not cover "Raten zahlen" (#17).
        let light = |c: &QueryConcept| if LIGHT_TERMS.contains(&c.term.as_str()) { 0.5 } else { 1.0 };
        if chunk >= self.terms.len() {
            return 0.0;
        }
        let t = &self.terms;
        let present = |w: &str| t.id(w).is_some_and(|id| t.own_has(chunk, id) || (!scoped && t.title_has(chunk, id)));
        let in_corpus_term = |w: &str| t.doc_freq(w) > 0;
        let (mut hit, mut all) = (0.0, 0.0);
        // A phrase is as specific as its rarest term.
        let phrase_idf = |p: &[AnalyzedTerm]| p.iter().map(|f| self.idf(f.as_str())).fold(0.0, f64::max);
        for c in concepts.iter().filter(|c| !t.id(c.term.as_str()).is_some_and(|id| t.locates(chunk, id))) {
            let in_corpus = || c.alternatives.iter().filter(|p| p.iter().all(|f| in_corpus_term(f.as_str())));
            if c.alternatives.iter().any(|p| p.iter().all(|f| present(f.as_str()))) {
                // A present concept weighs what its most common way of being present weighs.
                let w = in_corpus().map(|p| phrase_idf(p)).min_by(f64::total_cmp).unwrap_or(0.0) * light(c);
                hit += w;
                all += w;
            } else {
                // A missing one weighs as much, unless the question's own word
                // is absent from the corpus (a German word over English text):
                // then it weighs its most specific translation, so "Raten"
                // (instalments) counts fully against a sentence that only
                // shares "pay" (#17).
                all += if in_corpus_term(c.term.as_str()) {
                    in_corpus().map(|p| phrase_idf(p)).min_by(f64::total_cmp).unwrap_or(0.0)
                } else {
                    in_corpus()
                        .map(|p| phrase_idf(p))
                        .max_by(f64::total_cmp)
                        .unwrap_or_else(|| self.idf(c.term.as_str()))
                } * light(c);
            }
        }
        if all > 0.0 {
            hit / all
        } else {
            0.0
        }
    }
}

#[cfg(test)]
mod statistics_tests {
    use super::*;
    use tantivy::query::Bm25StatisticsProvider;

    /// On an index without deletions, BM25's statistics from the term tables
    /// are tantivy's own, so scores are what they were before (#32).
    #[test]
    fn alive_statistics_equal_tantivys_on_a_fresh_index() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let cat = crate::catalogue::Catalogue::load(&root.join("data")).unwrap();
        let places: Vec<String> = cat.chunks.iter().map(|c| c.listing_id.clone().unwrap_or_default()).collect();
        let index = KeywordIndex::build(&cat.chunks, &places).unwrap();
        let searcher = index.reader.searcher();
        let ours = AliveStatistics { searcher: &searcher, docs: index.terms.len() as u64, tokens: index.total_tokens };
        assert_eq!(ours.total_num_docs().unwrap(), searcher.total_num_docs().unwrap());
        for field in [index.text, index.scope] {
            assert_eq!(ours.total_num_tokens(field).unwrap(), searcher.total_num_tokens(field).unwrap(), "{field:?}");
        }
        for word in ["heating", "deposit", "kaution", "balcony", "policy", "nosuchword"] {
            let term = Term::from_field_text(index.text, &analyze(word).first().cloned().unwrap_or_default());
            assert_eq!(
                ours.doc_freq(&term).unwrap(),
                Bm25StatisticsProvider::doc_freq(&searcher, &term).unwrap(),
                "{word}"
            );
        }
    }
}
