//! The one analyzer used for indexing and querying keyword search.
//!
//! Text is folded (case, diacritics, `ä`/`ae`, `ö`/`oe`, `ü`/`ue`, `ß`/`ss`; see
//! [`crate::fold`]), split on every non-alphanumeric character, German and
//! English stopwords are dropped, and English words are stemmed. Because the same function produces index terms
//! and query terms, `Schlüssel`, `Schluessel` and `schlussel` meet.

use tantivy::tokenizer::{Token, TokenStream, Tokenizer};

/// Name under which the analyzer is registered with tantivy.
pub const ANALYZER_NAME: &str = "inquiry_folded";

/// Function words of English and German, plus the question words customers
/// use ("how much", "wie hoch"), folded. They carry no evidence of relevance;
/// keeping them would let every question partially "cover" every chunk.
/// Source: the Lucene English list and the Snowball German list, trimmed to
/// words that occur in inquiries, plus interrogatives.
const STOPWORDS: &[&str] = &[
    // English
    "a",
    "an",
    "and",
    "are",
    "as",
    "at",
    "be",
    "been",
    "but",
    "by",
    "can",
    "could",
    "do",
    "does",
    "did",
    "for",
    "from",
    "has",
    "have",
    "had",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "me",
    "my",
    "of",
    "on",
    "or",
    "our",
    "so",
    "such",
    "that",
    "the",
    "their",
    "then",
    "there",
    "these",
    "they",
    "this",
    "to",
    "was",
    "we",
    "were",
    "what",
    "when",
    "where",
    "which",
    "who",
    "will",
    "with",
    "would",
    "you",
    "your",
    "am",
    "any",
    "much",
    "many",
    "please",
    "tell",
    "about",
    "also",
    "should",
    "there's",
    "s",
    "t",
    "us",
    "get",
    "than",
    "too",
    "very",
    "high",
    // German (folded: ü→u, ö→o, ä→a, ß→ss)
    "aber",
    "als",
    "am",
    "an",
    "auch",
    "auf",
    "aus",
    "bei",
    "bin",
    "bis",
    "bitte",
    "da",
    "das",
    "dass",
    "dem",
    "den",
    "der",
    "des",
    "die",
    "dies",
    "diese",
    "diesem",
    "dieser",
    "du",
    "durch",
    "ein",
    "eine",
    "einem",
    "einen",
    "einer",
    "es",
    "fur",
    "gibt",
    "hat",
    "hatte",
    "haben",
    "ich",
    "ihr",
    "ihre",
    "im",
    "in",
    "ist",
    "ja",
    "mich",
    "mir",
    "mit",
    "muss",
    "mussen",
    "nach",
    "noch",
    "oder",
    "sein",
    "seine",
    "sich",
    "sie",
    "sind",
    "so",
    "uber",
    "um",
    "und",
    "uns",
    "unter",
    "vom",
    "von",
    "vor",
    "war",
    "was",
    "welche",
    "welcher",
    "welches",
    "welchem",
    "welchen",
    "wenn",
    "wer",
    "wie",
    "wir",
    "wird",
    "wo",
    "zu",
    "zum",
    "zur",
    "hoch",
    "viel",
    "viele",
    "vielen",
    "wieviel",
    "wieviele",
    "wann",
    "kann",
    "konnen",
    "darf",
    "durfen",
    "man",
    "mein",
    "meine",
    "meinen",
    "werden",
    "ob",
    // German light verbs: "Darf ich meinen Hund mitbringen?" is about the dog.
    "mitbringen",
    "mitnehmen",
];

/// The stopword list folded like German-path tokens (`für`/`fuer` → `fur`).
static COLLAPSED_STOPWORDS: std::sync::LazyLock<std::collections::HashSet<String>> =
    std::sync::LazyLock::new(|| STOPWORDS.iter().map(|w| crate::fold::fold(w)).collect());

/// The stopword list as English-path tokens keep them (`does`, not `dos`).
static PLAIN_STOPWORDS: std::sync::LazyLock<std::collections::HashSet<String>> =
    std::sync::LazyLock::new(|| STOPWORDS.iter().map(|w| crate::fold::plain(w)).collect());

/// True when a folded token ([`crate::fold::tokens`]) is a stopword.
pub fn is_stopword(folded: &str) -> bool {
    COLLAPSED_STOPWORDS.contains(folded)
}

/// English word endings with a vowel pair that is not a transliterated
/// umlaut: `due`, `issue(s|d)`, `value`, `shoe(s)`, `goes`.
static ENGLISH_PAIR_ENDING: std::sync::LazyLock<regex::Regex> =
    std::sync::LazyLock::new(|| regex::Regex::new(r"(ue|oe)[sd]?$").expect("constant regex"));

static STEMMER: std::sync::LazyLock<frostem::Stemmer> =
    std::sync::LazyLock::new(|| frostem::Stemmer::new(frostem::Algorithm::English));

/// Analyzes text into index/query terms: plain tokens (lower-case ASCII,
/// diacritics removed), stopwords dropped, the English Snowball stemmer
/// (`hamsters`/`hamster`, `damaged`/`damage` meet), with the transliterated
/// umlaut pairs collapsed (`schluessel` → `schlussel`).
///
/// The pairs are collapsed *before* stemming (so `Höhe` and `Hoehe` stem
/// alike), except in words ending like English `-ue`/`-oe` words, which are
/// stemmed first: `issue`, `issues` and `issued` all become `issu`, and
/// `due` is not taken for the German stopword `du`. German words pass through
/// the same steps on both sides, so they still match themselves.
pub fn analyze(text: &str) -> Vec<String> {
    TERMS.with_borrow_mut(|memo| {
        crate::fold::plain_tokens(text)
            .into_iter()
            .filter_map(|t| {
                if let Some(term) = memo.get(&t) {
                    return term.clone();
                }
                let term = term_of(&t);
                if memo.len() >= MEMO_WORDS {
                    memo.clear();
                }
                memo.insert(t, term.clone());
                term
            })
            .collect()
    })
}

/// Words the Snowball stemmer conflates although they mean different things:
/// `installed` and `instalments` both stem to `instal`, so "Raten" (→
/// instalments) matched the sentence about a heat pump "installed in 2022".
/// Each prefix maps to its own term (longest prefix first).
const STEM_EXCEPTIONS: &[(&str, &str)] =
    &[("installment", "instalment"), ("instalment", "instalment"), ("install", "install")];

/// The term of one plain token, `None` for a stopword.
fn term_of(t: &str) -> Option<String> {
    if let Some((_, term)) = STEM_EXCEPTIONS.iter().find(|(prefix, _)| t.starts_with(prefix)) {
        return Some((*term).to_owned());
    }
    if matches!(t, "euro" | "euros") {
        // The unit as records write it (`310 EUR`).
        return Some("eur".to_owned());
    }
    if ENGLISH_PAIR_ENDING.is_match(t) {
        (!PLAIN_STOPWORDS.contains(t)).then(|| crate::fold::collapse_pairs(&STEMMER.stem(t)))
    } else {
        let folded = crate::fold::collapse_pairs(t);
        (!COLLAPSED_STOPWORDS.contains(&folded)).then(|| STEMMER.stem(&folded).into_owned())
    }
}

/// Distinct words remembered per thread before the memo starts over.
const MEMO_WORDS: usize = 100_000;

thread_local! {
    /// Token → term, because stemming dominated indexing a large catalogue
    /// (a catalogue repeats its vocabulary; 10,000 listings analyse the same
    /// few thousand words about a million times).
    static TERMS: std::cell::RefCell<std::collections::HashMap<String, Option<String>>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
}

/// tantivy tokenizer wrapping [`analyze`].
#[derive(Debug, Clone, Default)]
pub struct FoldingTokenizer;

/// Token stream over already analyzed terms.
pub struct AnalyzedStream {
    tokens: Vec<Token>,
    next: usize,
}

impl Tokenizer for FoldingTokenizer {
    type TokenStream<'a> = AnalyzedStream;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> AnalyzedStream {
        let tokens = analyze(text)
            .into_iter()
            .enumerate()
            .map(|(position, text)| Token { offset_from: 0, offset_to: 0, position, text, position_length: 1 })
            .collect();
        AnalyzedStream { tokens, next: 0 }
    }
}

impl TokenStream for AnalyzedStream {
    fn advance(&mut self) -> bool {
        self.next += 1;
        self.next <= self.tokens.len()
    }

    fn token(&self) -> &Token {
        &self.tokens[self.next - 1]
    }

    fn token_mut(&mut self) -> &mut Token {
        &mut self.tokens[self.next - 1]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_and_drops_stopwords() {
        assert_eq!(analyze("Wie hoch ist die Kaution für HH-1001?"), ["kaution", "hh", "1001"]);
        assert_eq!(analyze("Is heating included?"), ["heat", "includ"]);
        assert_eq!(analyze("hamsters"), analyze("hamster"));
        assert_eq!(analyze("Schlüssel"), analyze("SCHLUESSEL"));
        assert_eq!(analyze("Does it have a lift?"), ["lift"], "stopwords are folded too");
        assert_eq!(analyze("Ist das fuer mich?"), Vec::<String>::new(), "transliterated stopwords");
    }

    #[test]
    fn english_words_with_ue_keep_their_forms_together() {
        assert_eq!(analyze("issue"), analyze("issues"));
        assert_eq!(analyze("issue"), analyze("issued"));
        // "due" survives as a term (it used to fold to the stopword "du").
        assert_eq!(analyze("When is the commission due?").len(), 2);
        assert_eq!(analyze("value"), analyze("values"));
        assert_eq!(analyze("goes"), analyze("go"));
    }

    #[test]
    fn umlaut_spellings_meet_in_short_words_and_stopwords() {
        assert_eq!(analyze("Höhe"), analyze("Hoehe"));
        assert_eq!(analyze("Nähe"), analyze("Naehe"));
        assert_eq!(analyze("Müssen wir zahlen?"), analyze("Muessen wir zahlen?"));
        assert_eq!(analyze("Hätte ich einen Keller?"), analyze("Haette ich einen Keller?"));
    }

    #[test]
    fn stream_yields_every_token_once() {
        let mut tok = FoldingTokenizer;
        let mut stream = tok.token_stream("Nebenkosten und Heizung");
        let mut seen = vec![];
        while let Some(t) = stream.next() {
            seen.push((t.position, t.text.clone()));
        }
        assert_eq!(seen, [(0, "nebenkosten".to_owned()), (1, "heizung".to_owned())]);
        // (German words come through the English stemmer unchanged here.)
    }
}
