//! The rule judge's embedding route: an item's statement against the reply's
//! sentences, clauses and adjacent-sentence windows by the cosine of their
//! sentence embeddings (multilingual-e5-small, `query: ` prefix on both
//! sides, as for a symmetric similarity), when the model is present.
//!
//! Embeddings find paraphrases that share no words with the item ("served by
//! stairs only" for "The building has no lift"), but they barely see a
//! negation: "Heating is not included" is as close to "Heating is included"
//! as any paraphrase. So a match only counts when polarity agrees, clause by
//! clause ([`crate::grounding::polarity`]), and when the item's figures and
//! periods are not contradicted ([`ItemMeaning::figures_agree`]).
//!
//! The route only ever adds a decision the lexical matcher
//! ([`super::meaning`]) could not make; where the model is absent the judge
//! is exactly the lexical one.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use super::meaning::ItemMeaning;
use crate::grounding::numbers::{figures, Figure};
use crate::grounding::polarity::{polarity, Polarity};
use crate::grounding::text::Sentence;
use crate::retrieval::e5::{E5Embedder, E5_MODEL_ID, MODEL_FILES};
use crate::retrieval::embed::Embedder;

/// A `must` item the lexical matcher left not conveyed or partly matched is
/// conveyed from this cosine on, polarity and figures agreeing.
///
/// Chosen on `labels/dev.yaml` and `labels/dev2.yaml` only (2026-12-02): of
/// the 19 `must` items there that reached the route, the 9 whose polarity and
/// figures agreed were all conveyed by the human's label (cosines 0.831–0.931);
/// the 10 where polarity differed include all 6 that were not (0.835–0.928).
/// From 0.85 on, right replies failed fall from 7/31 to 5/31 (dev) and 9/28 to
/// 5/28 (dev2) with no more wrong replies passed; from 0.83 on, dev2 passes one
/// more wrong reply (the route passes its right item, the judge misses its
/// wrong one). 0.85 leaves that margin. On the bundled suite, the demo's
/// wrong deposit-instalments reply (about the deposit's return, not its
/// instalments) reaches 0.86 with agreeing polarity: the count rule
/// ([`counts_agree`]: "three" is not in it) rejects it, and the suite stays
/// 48/49 with e5.
///
/// `must_not` statements have no embedding route: on the same labels,
/// statements made and statements not made interleave from 0.85 to 0.93 with
/// agreeing polarity (e5 places "gives the Hausgeld as a yearly amount" at
/// 0.91 from a reply that says it is monthly), so no threshold separates them.
pub const EMBED_CONVEYED: f64 = 0.85;

/// Entries the in-run cache keeps before it starts over (about 1.5 KB each
/// at 384 dimensions).
const CACHE_LIMIT: usize = 50_000;

/// A sentence embedder for the judge, loaded on first use, with an in-run
/// cache of vectors by text (an eval grades the same item texts and many of
/// the same sentences over and over).
pub struct SentenceSimilarity {
    model_id: String,
    dir: Option<PathBuf>,
    embedder: OnceLock<Result<Arc<dyn Embedder>, String>>,
    cache: Mutex<HashMap<String, Arc<[f32]>>>,
}

impl std::fmt::Debug for SentenceSimilarity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SentenceSimilarity").field("model_id", &self.model_id).field("dir", &self.dir).finish()
    }
}

impl SentenceSimilarity {
    /// Uses an embedder already loaded.
    pub fn new(embedder: Arc<dyn Embedder>) -> Self {
        let model_id = embedder.model_id().to_owned();
        let cell = OnceLock::new();
        let _ = cell.set(Ok(embedder));
        SentenceSimilarity { model_id, dir: None, embedder: cell, cache: Mutex::new(HashMap::new()) }
    }

    /// multilingual-e5-small from `<models_dir>/multilingual-e5-small`,
    /// loaded when the judge first needs it.
    ///
    /// # Errors
    /// The directory or one of its model files is missing (the message names
    /// it and says to run `scripts/fetch-models`).
    pub fn e5(models_dir: &Path) -> Result<Self, String> {
        let dir = models_dir.join(E5_MODEL_ID);
        if let Some(missing) = MODEL_FILES.iter().find(|f| !dir.join(f).is_file()) {
            return Err(format!(
                "{}: missing {missing}; run scripts/fetch-models to download multilingual-e5-small",
                dir.display()
            ));
        }
        Ok(SentenceSimilarity {
            model_id: E5_MODEL_ID.into(),
            dir: Some(dir),
            embedder: OnceLock::new(),
            cache: Mutex::new(HashMap::new()),
        })
    }

    /// Whether `<models_dir>/multilingual-e5-small` holds the model files.
    pub fn e5_present(models_dir: &Path) -> bool {
        let dir = models_dir.join(E5_MODEL_ID);
        MODEL_FILES.iter().all(|f| dir.join(f).is_file())
    }

    /// The model's id (`multilingual-e5-small`).
    pub fn model_id(&self) -> &str {
        &self.model_id
    }

    fn embedder(&self) -> Result<&Arc<dyn Embedder>, String> {
        self.embedder
            .get_or_init(|| match &self.dir {
                Some(dir) => E5Embedder::load(dir).map(|e| Arc::new(e) as Arc<dyn Embedder>).map_err(|e| e.to_string()),
                None => Err("no sentence embedder".into()),
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// One unit vector per text (cached by text).
    ///
    /// # Errors
    /// The model failed to load or to embed (the message says why).
    pub fn vectors(&self, texts: &[&str]) -> Result<Vec<Arc<[f32]>>, String> {
        let missing: Vec<&str> = {
            let cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
            let mut seen = std::collections::HashSet::new();
            texts.iter().copied().filter(|t| !cache.contains_key(*t) && seen.insert(*t)).collect()
        };
        if !missing.is_empty() {
            let fresh = self.embedder()?.embed_queries(&missing).map_err(|e| e.to_string())?;
            let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
            if cache.len() + missing.len() > CACHE_LIMIT {
                cache.clear();
            }
            for (t, v) in missing.iter().zip(fresh) {
                cache.insert((*t).to_owned(), v.into());
            }
        }
        let cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        let mut out = Vec::with_capacity(texts.len());
        for t in texts {
            match cache.get(*t) {
                Some(v) => out.push(v.clone()),
                // Only when the cache started over between the two locks.
                None => {
                    drop(cache);
                    return self.vectors(texts);
                }
            }
        }
        Ok(out)
    }
}

fn cosine(a: &[f32], b: &[f32]) -> f64 {
    a.iter().zip(b).map(|(x, y)| f64::from(*x) * f64::from(*y)).sum()
}

/// A stretch of the reply: one sentence or two adjacent ones.
struct Span {
    first: usize,
    last: usize,
    text: String,
    vector: Arc<[f32]>,
}

/// One clause of a reply sentence.
struct Clause {
    polarity: Polarity,
    vector: Arc<[f32]>,
}

/// The reply's sentences (questions left out), their clauses and their
/// adjacent pairs, embedded once per reply.
pub struct ReplyVectors {
    spans: Vec<Span>,
    clauses: Vec<Clause>,
    figures: Vec<Figure>,
    /// The stated sentences, joined (durations are looked for anywhere in them).
    text: String,
}

/// How the closest stretch of the reply meets an item by embedding.
#[derive(Debug, Clone, PartialEq)]
pub struct EmbeddingMatch {
    /// 0-based index of its first sentence.
    pub sentence: usize,
    /// 0-based index of its last sentence (`sentence + 1` for a window of two).
    pub last: usize,
    /// Cosine of the item's statement and the stretch (−1..1; e5 puts
    /// unrelated sentences near 0.7).
    pub similarity: f64,
    /// Every item clause agrees in polarity with the stretch's clause closest
    /// to it (negation, inclusion; a condition states no fact).
    pub polarity_agrees: bool,
    /// The item's figures are in the stretch or elsewhere in the reply, with
    /// no other period; its years are in the stretch.
    pub figures_agree: bool,
}

impl EmbeddingMatch {
    /// "sentence 2" or "sentences 2–3" (1-based).
    pub fn place(&self) -> String {
        if self.last > self.sentence {
            format!("sentences {}–{}", self.sentence + 1, self.last + 1)
        } else {
            format!("sentence {}", self.sentence + 1)
        }
    }

    /// Whether polarity and figures both agree.
    pub fn agrees(&self) -> bool {
        self.polarity_agrees && self.figures_agree
    }
}

impl ReplyVectors {
    /// Embeds the reply's non-question sentences, their clauses and each pair
    /// of adjacent non-question sentences.
    ///
    /// # Errors
    /// The model failed to load or to embed.
    pub fn new(sim: &SentenceSimilarity, sents: &[Sentence]) -> Result<Self, String> {
        let stated: Vec<usize> =
            sents.iter().enumerate().filter(|(_, s)| !s.question && has_words(&s.text)).map(|(i, _)| i).collect();
        let mut span_at: Vec<(usize, usize, String)> =
            stated.iter().map(|&i| (i, i, sents[i].text.trim().to_owned())).collect();
        for w in stated.windows(2).filter(|w| w[1] == w[0] + 1) {
            span_at.push((w[0], w[1], format!("{} {}", sents[w[0]].text.trim(), sents[w[1]].text.trim())));
        }
        let mut clause_at: Vec<(usize, String)> = vec![];
        for &i in &stated {
            let s = &sents[i];
            for &(a, b) in &s.clauses {
                if let Some(c) = s.text.get(a..b).map(str::trim).filter(|c| has_words(c)) {
                    clause_at.push((i, c.to_owned()));
                }
            }
        }
        let texts: Vec<&str> =
            span_at.iter().map(|(_, _, t)| t.as_str()).chain(clause_at.iter().map(|(_, t)| t.as_str())).collect();
        let mut vectors = sim.vectors(&texts)?.into_iter();
        let spans = span_at
            .into_iter()
            .zip(vectors.by_ref())
            .map(|((first, last, text), vector)| Span { first, last, text, vector })
            .collect();
        let clauses = clause_at
            .into_iter()
            .zip(vectors)
            .map(|((_, text), vector)| Clause { polarity: polarity(&text), vector })
            .collect();
        let figures = stated.iter().flat_map(|&i| figures(&sents[i].text)).collect();
        let text = stated.iter().map(|&i| sents[i].text.as_str()).collect::<Vec<_>>().join(" ");
        Ok(ReplyVectors { spans, clauses, figures, text })
    }

    /// The stretch of the reply closest to the item's statement (highest
    /// cosine; among equals the first), with polarity and figures checked
    /// there; `None` for a reply without statements or an item without words.
    ///
    /// # Errors
    /// The model failed to embed.
    pub fn best(&self, sim: &SentenceSimilarity, item: &ItemMeaning) -> Result<Option<EmbeddingMatch>, String> {
        if self.spans.is_empty() || !has_words(item.statement()) {
            return Ok(None);
        }
        let clauses: Vec<(&str, Polarity)> = item.clauses().collect();
        let texts: Vec<&str> = std::iter::once(item.statement()).chain(clauses.iter().map(|(t, _)| *t)).collect();
        let vectors = sim.vectors(&texts)?;
        // An embedder that returns fewer vectors than texts is a model failure, not a panic.
        let Some((whole, parts)) = vectors.split_first().filter(|(_, rest)| rest.len() == clauses.len()) else {
            return Err(format!("{} vectors for {} texts", vectors.len(), texts.len()));
        };
        let mut best: Option<(&Span, f64)> = None;
        for span in &self.spans {
            let c = cosine(whole, &span.vector);
            if best.is_none_or(|(_, b)| c > b) {
                best = Some((span, c));
            }
        }
        let Some((span, similarity)) = best else { return Ok(None) };
        // Each item clause against the reply's clause closest to it, wherever
        // it is: "heating is not included" anywhere in the reply contradicts
        // "heating is included", however close another sentence comes.
        let mut polarity_agrees = true;
        for ((_, ip), iv) in clauses.iter().zip(parts) {
            let closest =
                self.clauses.iter().map(|c| (cosine(iv, &c.vector), c.polarity)).max_by(|a, b| a.0.total_cmp(&b.0));
            if let Some((_, sp)) = closest {
                polarity_agrees &= !ip.disagrees(&sp) && (ip.conditional || !sp.conditional);
            }
        }
        Ok(Some(EmbeddingMatch {
            sentence: span.first,
            last: span.last,
            similarity,
            polarity_agrees,
            figures_agree: item.figures_agree(&span.text, &self.figures)
                && item.durations_agree(&self.text)
                && counts_agree(item.statement(), &span.text),
        }))
    }
}

/// Counts written as words, English and German (folded), with their values.
/// "one" / "ein" are left out: they are mostly pronouns and articles.
const COUNT_WORDS: &[(&str, u32)] = &[
    ("two", 2),
    ("three", 3),
    ("four", 4),
    ("five", 5),
    ("six", 6),
    ("seven", 7),
    ("eight", 8),
    ("nine", 9),
    ("ten", 10),
    ("eleven", 11),
    ("twelve", 12),
    ("double", 2),
    ("twice", 2),
    ("triple", 3),
    ("zwei", 2),
    ("drei", 3),
    ("vier", 4),
    ("funf", 5),
    ("sechs", 6),
    ("sieben", 7),
    ("acht", 8),
    ("neun", 9),
    ("zehn", 10),
    ("elf", 11),
    ("zwolf", 12),
    ("doppelt", 2),
];

/// Endings that keep a count word's value ("dreifache", "zweimal", "threefold").
const COUNT_ENDINGS: &[&str] = &["", "fach", "fache", "fachen", "facher", "mal", "fold"];

/// The count a word or a short number stands for ("three", "Dreifache", "3").
fn count_of(token: &str) -> Option<u32> {
    if !token.is_empty() && token.len() <= 2 && token.bytes().all(|b| b.is_ascii_digit()) {
        return token.parse().ok();
    }
    COUNT_WORDS.iter().find_map(|(w, v)| token.strip_prefix(w).filter(|rest| COUNT_ENDINGS.contains(rest)).map(|_| *v))
}

/// Every count the item writes as a word ("three equal monthly instalments")
/// is in the stretch, as a word or a number. Figures with units are
/// [`ItemMeaning::figures_agree`]'s; bare counts are not figures there, and
/// an embedding puts "paid in three instalments" close to "returned within
/// six months".
fn counts_agree(statement: &str, span: &str) -> bool {
    let tokens = |t: &str| -> Vec<String> {
        crate::fold::plain(t)
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_owned)
            .collect()
    };
    let wanted: Vec<u32> = tokens(statement)
        .iter()
        .filter(|t| !t.bytes().all(|b| b.is_ascii_digit()))
        .filter_map(|t| count_of(t))
        .collect();
    let found: Vec<u32> = tokens(span).iter().filter_map(|t| count_of(t)).collect();
    wanted.iter().all(|w| found.contains(w))
}

fn has_words(text: &str) -> bool {
    text.chars().filter(|c| c.is_alphabetic()).count() >= 2
}

/// The sentence embedder a rule judge gets for `choice`: `none` gives none;
/// `e5` gives multilingual-e5-small from `models_dir` (an error when it is
/// absent); `auto` gives it when `models_dir` holds it, else none (the
/// judge is then exactly the lexical one).
///
/// # Errors
/// `e5` with the model absent, or an unknown choice.
pub fn judge_embedder(choice: &str, models_dir: &Path) -> Result<Option<Arc<SentenceSimilarity>>, String> {
    match choice {
        "none" => Ok(None),
        "e5" => SentenceSimilarity::e5(models_dir).map(|s| Some(Arc::new(s))),
        "auto" if SentenceSimilarity::e5_present(models_dir) => {
            SentenceSimilarity::e5(models_dir).map(|s| Some(Arc::new(s)))
        }
        "auto" => Ok(None),
        other => Err(format!("unknown judge embedder `{other}`; expected auto, e5 or none")),
    }
}

/// Whether a judge id names the offline rule judge, with or without a
/// sentence embedder (`rules`, `rules+multilingual-e5-small`), as opposed to
/// `patterns`, `llm:<model>` or `rules+llm:<model>`.
pub fn is_rule_judge(id: &str) -> bool {
    id == "rules" || id.strip_prefix("rules+").is_some_and(|m| !m.contains(':'))
}

#[cfg(test)]
#[path = "similarity_tests.rs"]
mod similarity_tests;
