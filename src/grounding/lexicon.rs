//! The catalogue's English vocabulary in German, for grounding only.
//!
//! The records are English; German replies restate them in German words
//! ("der Vermieter entscheidet im Einzelfall" for "the landlord decides case
//! by case"). The retrieval glossary ([`crate::retrieval::glossary`]) holds
//! the legal terms customers search by; this lexicon holds the everyday
//! words of an explanation (verbs, inflected forms, paraphrases), written by
//! hand from every content word of `data/policies/*.md` and the listings'
//! descriptions, not from any label set. It is kept apart from the glossary
//! so that retrieval's figures do not move with it, and it serves only the
//! check of explained terms ([`super::definitions`]): as alternatives of
//! every term it made contradictions match across languages too eagerly
//! (right replies failed on the dev splits: 38 -> 77 of 762).
//!
//! Format of `de_en.tsv`: `german<TAB>english|english …`, one German word per
//! line; `#` starts a comment line.

use std::collections::HashMap;
use std::sync::LazyLock;

use crate::retrieval::analyzer::analyze;

const SOURCE: &str = include_str!("de_en.tsv");

/// Analyzed German word → analyzed English words (every word of every
/// equivalent: "case by case" gives `case`).
static LEXICON: LazyLock<HashMap<String, Vec<String>>> = LazyLock::new(|| {
    let mut out: HashMap<String, Vec<String>> = HashMap::new();
    for line in SOURCE.lines().filter(|l| !l.trim_start().starts_with('#')) {
        let Some((german, english)) = line.split_once('\t') else { continue };
        // A German word the analyzer drops (a stopword) or splits has no single key.
        let key = analyze(german);
        let [key] = key.as_slice() else { continue };
        let words = out.entry(key.clone()).or_default();
        for w in english.split('|').flat_map(analyze) {
            if w != *key && !words.contains(&w) {
                words.push(w);
            }
        }
    }
    out
});

/// The English words an analyzed German word stands for; empty when the
/// lexicon does not know it.
pub fn english(analyzed: &str) -> &'static [String] {
    LEXICON.get(analyzed).map_or(&[], Vec::as_slice)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn knows(german: &str, english_word: &str) -> bool {
        let k = analyze(german);
        let e = analyze(english_word);
        english(&k[0]).contains(&e[0])
    }

    #[test]
    fn everyday_german_words_meet_the_records_english() {
        assert!(knows("entscheidet", "decides"));
        assert!(knows("monatlich", "monthly"));
        assert!(knows("Erstattung", "refund"));
        assert!(english("xyzzy").is_empty());
    }

    #[test]
    fn every_line_has_a_german_word_and_english_equivalents() {
        for (n, line) in SOURCE.lines().enumerate().filter(|(_, l)| !l.starts_with('#') && !l.trim().is_empty()) {
            let (german, english) = line.split_once('\t').unwrap_or_else(|| panic!("de_en.tsv:{}: no tab", n + 1));
            assert!(!german.contains(' ') && !german.is_empty(), "de_en.tsv:{}: one German word", n + 1);
            assert!(english.split('|').all(|e| !e.trim().is_empty()), "de_en.tsv:{}: empty equivalent", n + 1);
        }
    }
}
