//! A requirement the records state, waived by a reply in other words.
//!
//! B-2002's record says "A housing entitlement certificate (WBS) is required
//! to rent this apartment". Labelled wrong replies keep the word and waive
//! the requirement: "Eine Anmietung ohne WBS ist aber nicht unmöglich",
//! "Bewerben können Sie sich auch ohne", "Sollten Sie keinen WBS haben, ist
//! das aber kein Hindernis", "erforderlich ist der Schein für die Anmietung
//! aber nicht", "den Schein reichen Sie einfach nach". No polarity check
//! meets them: the double negation reads as a denial, the requirement word
//! is not negated, or the waiver sits in another clause. Source: the
//! requirement faults of the dev label splits (`labels/dev*.yaml`).

use std::sync::LazyLock;

use regex::Regex;

use super::evidence::Evidence;
use super::polarity::polarity;
use super::terms::{shared, terms, vocabulary, Term};
use super::wording::clauses;
use super::FindingKind;
use crate::fold::plain;

/// A requirement word (folded text).
static REQUIRED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(required|requires|erforderlich|needed|necessary|notwendig|notig|pflicht|mandatory|compulsory|zwingend|vorgeschrieben|verlangt)\b")
        .expect("valid pattern")
});

/// Doing without it is possible (folded text, after "ohne …" or "keinen …").
static POSSIBLE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(moglich|possible|konnen|kann|konnten|can|could|geht|gehen|reicht|fine|durfen|darf|kein (hindernis|problem|thema)|no (obstacle|problem|issue)|trotzdem|anyway|still)\b|\bnicht unmoglich\b|\bnot impossible\b")
        .expect("valid pattern")
});

/// "ohne", "without", "keinen …": doing without the thing (folded text).
static WITHOUT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(ohne|without|keinen|keine|kein|no)\b").expect("valid pattern"));

/// "kein Hindernis", "no obstacle" (folded text).
static NO_OBSTACLE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(kein (hindernis|problem)|no (obstacle|problem))\b").expect("valid pattern"));

/// Handing it in after the fact ("reichen Sie einfach nach", "hand it in later").
static LATER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\bnachreich\w*|\breich\w* (\w+ ){0,6}nach\b|\b(hand|submit|bring|send)( it| them)? in later\b|\b(provide|submit|show) (it|them) later\b")
        .expect("valid pattern")
});

/// A pronoun standing for the required thing ("Zwingend ist er aber nicht").
static PRONOUN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(er|es|it|der schein|this|that)\b").expect("valid pattern"));

/// The subjects of the records' requirements: the words of a clause before
/// its requirement word ("A housing entitlement certificate (…, WBS) is").
fn requirements(evidence: &Evidence) -> Vec<(Vec<Term>, String)> {
    let mut out = vec![];
    for p in &evidence.passages {
        let text = plain(&p.text);
        for sentence in text.split(". ") {
            if let Some(m) = REQUIRED.find(sentence) {
                let subject = terms(&sentence[..m.start()]);
                if !subject.is_empty() && !polarity(sentence).negated && !polarity(sentence).conditional {
                    out.push((subject, p.source.clone()));
                }
            }
        }
    }
    out
}

/// Whether a sentence (folded) waives a requirement it names or refers to.
fn waives(folded: &str, names: bool) -> bool {
    let parts = clauses(folded);
    let clause_waives = |c: &str| {
        // "ohne WBS ist es nicht unmöglich": without the thing, it is possible.
        let rest = WITHOUT.replace_all(c, " ");
        let rest = rest.replace("nicht unmoglich", "moglich").replace("not impossible", "possible");
        let rest_negated = polarity(&rest).negated;
        let possible = POSSIBLE.is_match(&rest) && !rest_negated;
        (WITHOUT.is_match(c) && possible)
            || (REQUIRED.is_match(c) && polarity(c).negated && (names || PRONOUN.is_match(c)))
            || LATER.is_match(c)
    };
    // "Sollten Sie keinen WBS haben, | ist das aber kein Hindernis": the
    // waiver may follow the clause that drops the thing.
    let without_then_fine = WITHOUT.is_match(folded) && NO_OBSTACLE.is_match(folded);
    parts.iter().any(|(_, c)| clause_waives(c)) || without_then_fine
}

/// Flags a claim sentence (`body`, original text) that waives a requirement
/// a record states, naming its subject (or, for "zwingend ist er nicht", a
/// pronoun) in the sentence.
pub(super) fn check_requirements(
    body: &str,
    evidence: &Evidence,
    push: &mut impl FnMut(FindingKind, String, Option<String>),
) {
    let folded = plain(body);
    if !WITHOUT.is_match(&folded) && !REQUIRED.is_match(&folded) && !LATER.is_match(&folded) {
        return;
    }
    let said_terms = terms(&folded);
    let said = vocabulary(&said_terms);
    for (subject, source) in requirements(evidence) {
        // "der Schein" names the Wohnberechtigungsschein: a compound's head.
        let head = |w: &str| w.len() >= 5 && subject.iter().flatten().any(|t| t.len() > w.len() && t.ends_with(w));
        let names = shared(&subject, &said) > 0 || folded.split(|c: char| !c.is_alphanumeric()).any(head);
        if (names || PRONOUN.is_match(&folded)) && waives(&folded, names) {
            push(FindingKind::Contradicted, format!("waives a requirement the record states [{source}]"), Some(source));
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flagged(body: &str) -> bool {
        let mut e = Evidence::default();
        e.add_tool_result(&serde_json::json!({"id": "B-2002",
            "description": "A housing entitlement certificate (Wohnberechtigungsschein, WBS) is required to rent this apartment. The cold rent is 780 EUR per month."}));
        let mut n = 0;
        check_requirements(body, &e, &mut |_, _, _| n += 1);
        n > 0
    }

    #[test]
    fn a_requirement_waived_in_other_words() {
        for wrong in [
            "Eine Anmietung ohne WBS ist aber nicht unmöglich – sprechen Sie das bei Ihrer Bewerbung einfach an.",
            "Bewerben können Sie sich auch ohne, der Vermieter bevorzugt lediglich Interessenten mit Wohnberechtigungsschein.",
            "Sollten Sie keinen WBS haben, ist das für die Anmietung aber kein Hindernis.",
            "Die Wohnung ist als WBS-Wohnung gekennzeichnet, erforderlich ist der Schein für die Anmietung aber nicht.",
            "Unterschreiben und einziehen können Sie aber auch schon ohne – den Schein reichen Sie einfach in den ersten Monaten nach.",
            "You can rent it without a WBS.",
        ] {
            assert!(flagged(wrong), "{wrong}");
        }
        for right in [
            "Ja, für B-2002 ist ein Wohnberechtigungsschein erforderlich.",
            "Ohne WBS ist eine Anmietung leider nicht möglich.",
            "Ohne WBS können Sie die Wohnung nicht anmieten.",
            "Um einen WBS kommen Sie nicht herum.",
            "A WBS is required; without one you can't rent it.",
            "Die Kaltmiete beträgt 780 EUR, Haustiere sind nicht erlaubt.",
        ] {
            assert!(!flagged(right), "{right}");
        }
    }
}
