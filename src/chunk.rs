//! Chunks: the units retrieval returns and replies cite (SPEC §3).
//!
//! A listing description is split into sentences; sentence *i* (1-based) is
//! chunk `<ID>#s<i>`. A policy section is chunk `policy:<slug>#<section-slug>`.
//! Each chunk keeps `text` (returned and cited verbatim) and `index_text`, the
//! text with a context header for keyword search and the reranker.
//!
//! This module owns the chunk types and the splitting rules; `catalogue`
//! applies them to its listings and policy pages (the dependency runs one way).

use serde::{Deserialize, Serialize};

/// Where a chunk comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ChunkSource {
    /// A sentence of a listing description.
    Listing,
    /// A section of a policy page.
    Policy,
}

/// One retrievable passage.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Chunk {
    /// `HH-1001#s5` or `policy:deposit#amount`.
    pub id: String,
    /// Listing sentence or policy section.
    pub source: ChunkSource,
    /// Owning listing for listing chunks; `None` for policy chunks.
    pub listing_id: Option<String>,
    /// The passage as written; what tools return and replies quote.
    pub text: String,
    /// `text` prefixed with a context header (listing title, id, district, city,
    /// or policy page title and section heading); used for BM25 and the reranker.
    pub index_text: String,
}

/// Splits text into sentences: a break after `.`, `!` or `?` that is followed by
/// whitespace and then an upper-case letter. `3.57` stays whole (no space), and
/// `3 rooms. 2 baths` stays whole too (no upper-case letter): SPEC §3.
///
/// Returns trimmed, non-empty sentences in order.
pub fn split_sentences(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut sentences = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < chars.len() {
        if matches!(chars[i], '.' | '!' | '?') {
            let mut j = i + 1;
            while j < chars.len() && chars[j].is_whitespace() {
                j += 1;
            }
            if j > i + 1 && j < chars.len() && chars[j].is_uppercase() {
                push_trimmed(&mut sentences, &chars[start..=i]);
                start = j;
                i = j;
                continue;
            }
        }
        i += 1;
    }
    push_trimmed(&mut sentences, &chars[start.min(chars.len())..]);
    sentences
}

fn push_trimmed(out: &mut Vec<String>, chars: &[char]) {
    let s: String = chars.iter().collect();
    let s = s.trim();
    if !s.is_empty() {
        out.push(s.to_owned());
    }
}

/// Slugifies a heading: fold diacritics (`ü`→`u`, `ß`→`ss`), lower-case, and turn
/// each run of other characters into one `-`, trimmed at both ends.
///
/// ```
/// assert_eq!(inquiry::chunk::slugify("Return of the deposit"), "return-of-the-deposit");
/// assert_eq!(inquiry::chunk::slugify("Größe & Lage"), "grosse-lage");
/// ```
pub fn slugify(heading: &str) -> String {
    let ascii = deunicode::deunicode(heading).to_lowercase();
    let mut slug = String::with_capacity(ascii.len());
    for c in ascii.chars() {
        if c.is_ascii_alphanumeric() {
            slug.push(c);
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
    }
    while slug.ends_with('-') {
        slug.pop();
    }
    slug
}

/// Chunk id of a policy section: `policy:<page-slug>#<section-slug>`.
pub fn policy_chunk_id(page: &str, section: &str) -> String {
    format!("policy:{page}#{section}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_on_sentence_ends_only() {
        assert_eq!(
            split_sentences("Rent is 1,650 EUR. Levy 3.57 percent! Ok? yes. Done"),
            ["Rent is 1,650 EUR.", "Levy 3.57 percent!", "Ok? yes.", "Done"]
        );
        assert_eq!(split_sentences("Three rooms. 2 baths."), ["Three rooms. 2 baths."]);
        assert_eq!(split_sentences("  "), Vec::<String>::new());
        assert_eq!(split_sentences("Ends with dot."), ["Ends with dot."]);
        assert_eq!(split_sentences("Über. Äpfel."), ["Über.", "Äpfel."]);
    }

    #[test]
    fn slugs() {
        assert_eq!(slugify("Amount"), "amount");
        assert_eq!(slugify("  What to bring? "), "what-to-bring");
        assert_eq!(slugify("Hausgeld & Sonderumlage"), "hausgeld-sonderumlage");
        assert_eq!(slugify("!!!"), "");
    }
}
