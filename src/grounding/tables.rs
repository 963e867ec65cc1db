//! The roles of a Markdown table's rows. A header row ("| Punkt | Stand |
//! Quelle |", the row above the `|---|` line) only structures the reply, as a
//! heading does. Under a header that asks what the assistant can do ("| Topic
//! | Can I help? |", "| Thema | Kann ich helfen? |"), each row says what the
//! assistant does or does not help with: the assistant's remit, not a claim
//! about the records. Source: the table replies of `labels/dev44.yaml`.

use std::sync::LazyLock;

use regex::Regex;

use super::text::Sentence;
use super::SentenceRole;
use crate::fold::plain;

/// The line under a header row: cells of dashes, with optional colons.
static SEPARATOR: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\|?(\s*:?-{2,}:?\s*\|)+\s*(:?-{2,}:?\s*)?$").expect("valid pattern"));

/// A header that asks whether the assistant can help (folded text).
static REMIT_HEADER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(can i help|can we help|can i do|kann ich helfen|konnen wir helfen|kann ich (das )?ubernehmen|helfe ich|do i help)\b")
        .expect("valid pattern")
});

/// Whether `text` is a Markdown table row: it opens and closes with `|` and
/// holds at least two cells. Shared with the rule judge's table reading.
pub fn is_row(text: &str) -> bool {
    let t = text.trim();
    t.len() > 2 && t.starts_with('|') && t.ends_with('|') && t[1..t.len() - 1].contains('|')
}

/// For each sentence, the role its place in a table gives it, if any:
/// [`SentenceRole::Courtesy`] for a header row and the separator line,
/// [`SentenceRole::Assistant`] for a row under a header that asks what the
/// assistant can help with.
pub(super) fn table_roles(sents: &[Sentence]) -> Vec<Option<SentenceRole>> {
    let mut out = vec![None; sents.len()];
    let mut remit = false;
    for (i, s) in sents.iter().enumerate() {
        let text = s.text.trim();
        if !is_row(text) && !SEPARATOR.is_match(text) {
            remit = false;
            continue;
        }
        if SEPARATOR.is_match(text) {
            out[i] = Some(SentenceRole::Courtesy);
        } else if sents.get(i + 1).is_some_and(|n| SEPARATOR.is_match(n.text.trim())) {
            out[i] = Some(SentenceRole::Courtesy);
            remit = REMIT_HEADER.is_match(&plain(text));
        } else if remit {
            out[i] = Some(SentenceRole::Assistant);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grounding::text::sentences;

    #[test]
    fn headers_structure_and_remit_rows_are_the_assistants() {
        let reply = "Ich kann nicht helfen.\n\n| Thema | Kann ich helfen? |\n|---|---|\n| Restaurants in Ehrenfeld | leider nein |\n| Unsere Wohnungen | ja, gern |\n\nBis bald.\n\n| Punkt | Laut Unterlagen |\n|:--|--:|\n| Kaltmiete | 780 € |";
        let sents = sentences(reply);
        let roles: Vec<(String, Option<SentenceRole>)> =
            sents.iter().map(|s| s.text.clone()).zip(table_roles(&sents)).collect();
        let role_of = |t: &str| roles.iter().find(|(s, _)| s.contains(t)).map(|(_, r)| *r).unwrap();
        assert_eq!(role_of("| Thema |"), Some(SentenceRole::Courtesy));
        assert_eq!(role_of("|---|"), Some(SentenceRole::Courtesy));
        assert_eq!(role_of("Restaurants in Ehrenfeld"), Some(SentenceRole::Assistant));
        assert_eq!(role_of("Unsere Wohnungen"), Some(SentenceRole::Assistant));
        assert_eq!(role_of("| Punkt |"), Some(SentenceRole::Courtesy));
        // A fact row under a plain header stays a claim.
        assert_eq!(role_of("Kaltmiete"), None);
        assert_eq!(role_of("Ich kann nicht helfen"), None);
    }
}
