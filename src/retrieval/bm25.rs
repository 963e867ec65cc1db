//! Keyword search: a tantivy BM25 index over chunk index texts, plus the
//! keyword-coverage signal used for the relevance threshold.
//!
//! Raw BM25 is unbounded and one rare word dominates it, so the keep/drop
//! decision uses *coverage* instead: the IDF-weighted share of the question's
//! terms present in the chunk, 0..1. BM25 only orders the candidate list.

use std::collections::{HashMap, HashSet};

use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::{IndexRecordOption, Schema, TextFieldIndexing, TextOptions, Value, FAST, STORED, STRING};
use tantivy::{Index, IndexReader, TantivyDocument, Term};

use super::analyzer::{analyze, FoldingTokenizer, ANALYZER_NAME};
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

/// In-RAM tantivy index over chunk index texts with per-chunk term sets.
pub struct KeywordIndex {
    reader: IndexReader,
    text: tantivy::schema::Field,
    scope: tantivy::schema::Field,
    chunk: tantivy::schema::Field,
    /// Analyzed terms keyword coverage reads, by chunk position: a listing
    /// sentence's own text; a policy section's text with its page title and
    /// heading (which name the section's topic).
    doc_terms: Vec<HashSet<String>>,
    /// Terms that only say *which* listing a chunk belongs to (place words),
    /// by chunk position; see [`KeywordIndex::coverage`].
    locating: Vec<HashSet<String>>,
    /// For a listing sentence, the words of its header (the listing title) that
    /// the sentence itself lacks, by chunk position.
    title_only: Vec<HashSet<String>>,
    /// Number of chunks containing each term.
    doc_freq: HashMap<String, usize>,
}

impl KeywordIndex {
    /// Indexes every chunk's `index_text` (text with its context header) for
    /// BM25. `locating[i]` is the text of place words for chunk `i` (its
    /// listing's id, district and city; every listing's for a policy chunk),
    /// whose terms locate rather than answer.
    ///
    /// # Errors
    /// A tantivy error while writing the in-RAM index.
    pub fn build(chunks: &[Chunk], locating: &[String]) -> tantivy::Result<Self> {
        let mut builder = Schema::builder();
        let indexing =
            TextFieldIndexing::default().set_tokenizer(ANALYZER_NAME).set_index_option(IndexRecordOption::WithFreqs);
        let text = builder.add_text_field("text", TextOptions::default().set_indexing_options(indexing));
        let scope = builder.add_text_field("scope", STRING);
        let chunk = builder.add_u64_field("chunk", STORED | FAST);
        let index = Index::create_in_ram(builder.build());
        index.tokenizers().register(ANALYZER_NAME, FoldingTokenizer);
        let mut writer = index.writer_with_num_threads(1, 15_000_000)?;
        let mut doc_terms = Vec::with_capacity(chunks.len());
        let mut located: Vec<HashSet<String>> = Vec::with_capacity(chunks.len());
        let mut title_only: Vec<HashSet<String>> = Vec::with_capacity(chunks.len());
        let mut place_sets: HashMap<&str, HashSet<String>> = HashMap::new();
        let mut header_sets: HashMap<&str, HashSet<String>> = HashMap::new();
        let mut doc_freq: HashMap<String, usize> = HashMap::new();
        for (i, c) in chunks.iter().enumerate() {
            let mut doc = TantivyDocument::default();
            doc.add_text(text, &c.index_text);
            doc.add_text(scope, c.listing_id.as_deref().unwrap_or(POLICY_SCOPE));
            doc.add_u64(chunk, i as u64);
            writer.add_document(doc)?;
            // `index_text` is a header line and the text: analyse each header once.
            let own: HashSet<String> = analyze(&c.text).into_iter().collect();
            let header = c.index_text.strip_suffix(c.text.as_str()).unwrap_or(&c.index_text);
            let mut with_header =
                header_sets.entry(header).or_insert_with(|| analyze(header).into_iter().collect()).clone();
            with_header.extend(own.iter().cloned());
            // Many chunks share one place text (a listing's sentences; every
            // policy section): analyse each distinct text once.
            let places: HashSet<String> = match locating.get(i) {
                Some(t) => place_sets.entry(t.as_str()).or_insert_with(|| analyze(t).into_iter().collect()).clone(),
                None => HashSet::new(),
            };
            // A listing's title heads every one of its sentences: its words say
            // which listing, not what this sentence says ("with balcony" made
            // "dates from 1912" a full match for "Does it have a balcony?").
            let terms = if c.listing_id.is_some() {
                title_only.push(with_header.difference(&own).filter(|t| !places.contains(*t)).cloned().collect());
                own
            } else {
                title_only.push(HashSet::new());
                with_header
            };
            for t in &terms {
                *doc_freq.entry(t.clone()).or_default() += 1;
            }
            doc_terms.push(terms);
            located.push(places);
        }
        writer.commit()?;
        let reader = index.reader()?;
        let locating = located;
        Ok(Self { reader, text, scope, chunk, doc_terms, locating, title_only, doc_freq })
    }

    /// Number of indexed chunks.
    pub fn len(&self) -> usize {
        self.doc_terms.len()
    }

    /// True when nothing is indexed.
    pub fn is_empty(&self) -> bool {
        self.doc_terms.is_empty()
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
        let hits = searcher.search(&BooleanQuery::new(clauses), &TopDocs::with_limit(limit).order_by_score())?;
        let mut out = Vec::with_capacity(hits.len());
        for (score, address) in hits {
            let doc: TantivyDocument = searcher.doc(address)?;
            if let Some(pos) = doc.get_first(self.chunk).and_then(|v| v.as_u64()) {
                out.push((pos as usize, score));
            }
        }
        Ok(out)
    }

    /// Inverse document frequency, `ln(1 + (N - n + 0.5) / (n + 0.5))`: the
    /// BM25 (Lucene) form, which stays positive even for a term in every chunk
    /// (the classic Robertson–Spärck Jones form is 0 at n = N/2 and negative above).
    pub fn idf(&self, term: &str) -> f64 {
        let n = self.doc_freq.get(term).copied().unwrap_or(0) as f64;
        let total = self.doc_terms.len() as f64;
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
        let Some(own) = self.doc_terms.get(chunk) else { return 0.0 };
        let title = self.title_only.get(chunk).filter(|_| !scoped);
        let present = |t: &str| own.contains(t) || title.is_some_and(|x| x.contains(t));
        let locating = &self.locating[chunk];
        let (mut hit, mut all) = (0.0, 0.0);
        // A phrase is as specific as its rarest term.
        let phrase_idf = |p: &[AnalyzedTerm]| p.iter().map(|f| self.idf(f.as_str())).fold(0.0, f64::max);
        for c in concepts.iter().filter(|c| !locating.contains(c.term.as_str())) {
            let in_corpus =
                || c.alternatives.iter().filter(|p| p.iter().all(|f| self.doc_freq.contains_key(f.as_str())));
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
                all += if self.doc_freq.contains_key(c.term.as_str()) {
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
