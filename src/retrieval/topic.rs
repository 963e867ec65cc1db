//! The question's topic: the question with its place words removed, for the
//! vector relevance signal.
//!
//! Listing ids, districts and cities say *which* listing a question is about;
//! scope and ranking use them. Whether a passage *answers* the question is a
//! matter of its topic. Embedded whole, "How good are the schools in
//! Volksdorf?" sits closest to the Volksdorf listing's first sentence, with a
//! cosine z-score above most answerable questions (5.53 with
//! multilingual-e5-small; `reports/calibration-*-e5.md`), only because both
//! name Volksdorf. Keyword coverage already ignores a chunk's place words
//! ([`super::bm25::KeywordIndex::coverage`]); the vector z-score now does the same.
//!
//! Known cost: a district that is also an ordinary word (`Mitte`, `Berg`) is
//! dropped from the topic too.

use std::collections::HashSet;

use super::analyzer::analyze;
use crate::catalogue::Listing;

/// Analysed terms of every listing's id, district and city (with the city's
/// exonyms: Cologne, Munich).
#[derive(Debug, Clone, Default)]
pub struct PlaceTerms(HashSet<String>);

impl PlaceTerms {
    /// Collects the place terms of a catalogue's listings.
    pub fn from_listings(listings: &[Listing]) -> Self {
        Self(
            listings
                .iter()
                .flat_map(|l| {
                    let exonyms = crate::fold::exonyms(&l.city).join(" ");
                    analyze(&format!("{} {} {} {exonyms}", l.id, l.district, l.city))
                })
                .collect(),
        )
    }

    /// Whether an analysed term names a place.
    pub fn contains(&self, term: &str) -> bool {
        self.0.contains(term)
    }

    /// The question without the words that only name a place: a
    /// whitespace-separated word is dropped when it has analysed terms and all
    /// of them are place terms (`HH-1001?`, `Sülz,`). Stopwords and punctuation
    /// stay, so the sentence still reads as a question. Returns the question
    /// unchanged when nothing would be left but stopwords ("Altona?").
    pub fn topic(&self, question: &str) -> String {
        let mut kept_content = false;
        let words: Vec<&str> = question
            .split_whitespace()
            .filter(|w| {
                let terms = analyze(w);
                let place = !terms.is_empty() && terms.iter().all(|t| self.0.contains(t));
                kept_content |= !terms.is_empty() && !place;
                !place
            })
            .collect();
        if kept_content {
            words.join(" ")
        } else {
            question.to_string()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn places() -> PlaceTerms {
        PlaceTerms(
            ["hh", "1001", "volksdorf", "sulz", "koln", "hamburg", "altona"].iter().map(|s| s.to_string()).collect(),
        )
    }

    #[test]
    fn drops_ids_districts_and_cities_with_their_punctuation() {
        let p = places();
        assert_eq!(p.topic("How good are the local schools in Volksdorf?"), "How good are the local schools in");
        assert_eq!(p.topic("Wie gut sind die Schulen rund um Sülz?"), "Wie gut sind die Schulen rund um");
        assert_eq!(p.topic("Is heating included for HH-1001 in Hamburg?"), "Is heating included for in");
    }

    #[test]
    fn keeps_a_question_with_no_topic_words() {
        let p = places();
        assert_eq!(p.topic("What about Altona?"), "What about Altona?");
        assert_eq!(p.topic("HH-1001"), "HH-1001");
    }

    #[test]
    fn keeps_words_that_mix_place_and_topic_terms() {
        // "Sülz-Wohnung" analyses to [sulz, wohnung]: not a place word alone.
        assert_eq!(places().topic("Gibt es die Sülz-Wohnung noch?"), "Gibt es die Sülz-Wohnung noch?");
    }
}
