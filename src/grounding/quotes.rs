//! Quoted passages in a reply: a sentence that quotes a record verbatim
//! ("“Dogs and cats are possible on request.” [HH-1001#s10]") states
//! nothing of its own, so its quoted part is left out of the checks.

use super::wording::{BRACKETS, QUESTION_LABEL, QUOTED, SECTION_LABEL};
use crate::fold::fold;

static FIRST_PERSON: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r"(?i)\b(i|we|ich|wir|my|our|mein\w*|unser\w*)\b").expect("valid pattern")
});

/// The sentence without a section label, without quoted passages that are
/// verbatim evidence and without citation brackets.
pub(super) fn body(sentence: &str, passages: &[String]) -> String {
    // "What this means for you: …" labels the part of the reply, it is no word of the claim.
    let sentence = &SECTION_LABEL.replace(sentence, |c: &regex::Captures<'_>| " ".repeat(c[0].len()));
    // "- **What the landlord can charge:** just the steps …": a question as a bold label.
    // "**What I can do:**" describes the assistant: that label stays.
    let sentence = &QUESTION_LABEL.replace(sentence, |c: &regex::Captures<'_>| {
        if FIRST_PERSON.is_match(&c[0]) {
            c[0].to_owned()
        } else {
            " ".repeat(c[0].len())
        }
    });
    let unquoted = QUOTED.replace_all(sentence, |c: &regex::Captures<'_>| {
        let inner = fold(c[0].trim_matches(|ch: char| "“”„\"«»".contains(ch)));
        let inner = inner.trim().trim_end_matches(['.', '!', '?']);
        if !inner.is_empty() && passages.iter().any(|p| p.contains(inner)) {
            " ".repeat(c[0].len())
        } else {
            c[0].to_owned()
        }
    });
    let mut text = BRACKETS.replace_all(&unquoted, " ").into_owned();
    // A quoted passage of several sentences is cut by the sentence split: an
    // opening mark with no closing one quotes to the end of this sentence, a
    // closing mark with no opening one quotes from its start.
    let verbatim_part = |part: &str| {
        let inner = fold(part.trim_matches(|ch: char| "“”„\"«» ".contains(ch)));
        let inner = inner.trim().trim_end_matches(['.', '!', '?']).trim();
        inner.split_whitespace().count() >= 3 && passages.iter().any(|p| p.contains(inner))
    };
    if let Some(open) = text.rfind(['“', '„']).filter(|o| !text[*o..].contains('”') || text[*o..].ends_with('”'))
    {
        if !text[open..].trim_end().ends_with('”') && verbatim_part(&text[open..]) {
            let blank = " ".repeat(text.len() - open);
            text.replace_range(open.., &blank);
        }
    }
    if let Some(close) = text.find('”').filter(|c| !text[..*c].contains(['“', '„'])) {
        let end = close + '”'.len_utf8();
        if verbatim_part(&text[..end]) {
            let blank = " ".repeat(end);
            text.replace_range(..end, &blank);
        }
    }
    text
}

/// Whether the sentence, without quote marks and citations, is a passage's own words.
pub(super) fn verbatim(sentence: &str, passages: &[String]) -> bool {
    let bare = BRACKETS.replace_all(sentence, " ");
    let bare: String = bare.chars().filter(|c| !"“”„\"«»".contains(*c)).collect();
    let bare = fold(bare.trim());
    let bare = bare.trim().trim_end_matches(['.', '!', '?', ':', ';', ',']).trim();
    bare.split_whitespace().count() >= 3 && passages.iter().any(|p| p.contains(bare))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_section_label_is_no_word_of_the_claim() {
        let b = body("What this means for you: Sorry for the wrong figure [HH-1001].", &[]);
        assert_eq!(b.split_whitespace().collect::<Vec<_>>(), ["Sorry", "for", "the", "wrong", "figure", "."]);
        let b = body("**Was das für Sie heißt:** Ihre Katze darf mit einziehen.", &[]);
        assert_eq!(b.trim(), "Ihre Katze darf mit einziehen.");
        // A sentence that explains a term keeps its words.
        let b = body("What \"on request\" means: the landlord decides.", &[]);
        assert!(b.contains("means"), "{b}");
    }
}
