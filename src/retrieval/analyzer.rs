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
    "a", "an", "and", "are", "as", "at", "be", "been", "but", "by", "can", "could", "do", "does", "did", "for", "from",
    "has", "have", "had", "how", "i", "if", "in", "into", "is", "it", "its", "me", "my", "of", "on", "or", "our", "so",
    "such", "that", "the", "their", "then", "there", "these", "they", "this", "to", "was", "we", "were", "what",
    "when", "where", "which", "who", "will", "with", "would", "you", "your", "am", "any", "much", "many", "please",
    "tell", "about", "also", "should", "there's", "s", "t", "us", "get", "than", "too", "very", "high",
    // German (folded: ü→u, ö→o, ä→a, ß→ss)
    "aber", "als", "am", "an", "auch", "auf", "aus", "bei", "bin", "bis", "bitte", "da", "das", "dass", "dem", "den",
    "der", "des", "die", "dies", "diese", "diesem", "dieser", "du", "durch", "ein", "eine", "einem", "einen", "einer",
    "es", "fur", "gibt", "hat", "hatte", "haben", "ich", "ihr", "ihre", "im", "in", "ist", "ja", "mich", "mir", "mit",
    "muss", "nach", "noch", "oder", "sein", "seine", "sich", "sie", "sind", "so", "uber", "um", "und", "uns", "unter",
    "vom", "von", "vor", "war", "was", "welche", "welcher", "welches", "welchem", "welchen", "wenn", "wer", "wie",
    "wir", "wird", "wo", "zu", "zum", "zur", "hoch", "viel", "viele", "vielen", "wieviel", "wieviele", "wann", "kann",
    "konnen", "darf", "durfen", "man", "mein", "meine", "meinen", "werden", "ob",
];

/// The German stopwords above that had an umlaut, as customers transliterate
/// them on keyboards without one (`für` → `fuer`).
const TRANSLITERATED_STOPWORDS: &[&str] = &["fuer", "ueber", "koennen", "duerfen", "muessen"];

/// Stopwords as [`crate::fold::plain`] leaves tokens: lower-case ASCII with
/// `ae`/`oe`/`ue` as typed. Checked before the pairs are collapsed, so `due`
/// is not mistaken for the German `du`.
static STOPWORD_SET: std::sync::LazyLock<std::collections::HashSet<String>> = std::sync::LazyLock::new(|| {
    STOPWORDS.iter().chain(TRANSLITERATED_STOPWORDS).map(|w| crate::fold::plain(w)).collect()
});

/// True when a token (as [`crate::fold::plain_tokens`] gives it) is a stopword.
pub fn is_stopword(token: &str) -> bool {
    STOPWORD_SET.contains(token)
}

static STEMMER: std::sync::LazyLock<frostem::Stemmer> =
    std::sync::LazyLock::new(|| frostem::Stemmer::new(frostem::Algorithm::English));

/// Analyzes text into index/query terms, in order: plain tokens (lower-case
/// ASCII, diacritics removed), stopwords dropped, the English Snowball stemmer
/// (`hamsters`/`hamster`, `damaged`/`damage` meet), and last the transliterated
/// umlaut pairs collapsed (`schluessel` → `schlussel`). Collapsing after
/// stemming keeps English words with `ue` whole: `issue`, `issues` and
/// `issued` all stem to `issu`, and `due` is not taken for the German `du`.
/// German words pass through the same steps on both sides, so they still
/// match themselves.
pub fn analyze(text: &str) -> Vec<String> {
    crate::fold::plain_tokens(text)
        .into_iter()
        .filter(|t| !is_stopword(t))
        .map(|t| crate::fold::collapse_pairs(&STEMMER.stem(&t)))
        .collect()
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
