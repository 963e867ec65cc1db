//! A tenant's right the records state outright, made to depend on the
//! landlord.
//!
//! The deposit policy says "The tenant may pay the deposit in three equal
//! monthly instalments". Labelled wrong replies add the landlord's say:
//! "if your landlord agrees to it, the deposit can be split", "open to
//! tenants who have agreed it with the landlord in the rental contract",
//! "it only applies once they've given their approval". The instalments are
//! named right, so no word check meets the added condition. Source: the
//! deposit faults of the dev label splits (`labels/dev*.yaml`).

use std::sync::LazyLock;

use regex::Regex;

use super::evidence::Evidence;
use super::polarity::polarity;
use super::terms::{shared, terms, vocabulary};
use super::FindingKind;
use crate::fold::plain;

/// A right of the tenant's, in a record (folded text).
static RIGHT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(tenants?|mieter\w*)\b.{0,20}\b(may|can|is entitled to|are entitled to|darf|durfen|kann|konnen)\b")
        .expect("valid pattern")
});

/// The landlord's approval or agreement as a condition (folded text).
static LANDLORD_SAYS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(if|once|provided|as long as|sofern|wenn|falls|solange|vorausgesetzt)\b[^.;]{0,40}\b(landlord|owner|vermieter\w*|eigentumer\w*)\b[^.;]{0,30}\b(agree\w*|approv\w*|consent\w*|zustimm\w*|einverstanden|genehmig\w*|erlaub\w*|okay|ok)\b|\b(landlord|owner|vermieter\w*)'?s? (approval|agreement|consent|permission|zustimmung|genehmigung|einverstandnis|erlaubnis)\b|\b(agreed|arranged|vereinbart|abgesprochen) (\w+ ){0,3}with (the|your) (landlord|owner)\b|\bmit (dem|ihrem) vermieter (\w+ ){0,3}(vereinbart|abgesprochen|abstimmen|absprechen|vereinbaren)\b|\bonce (they|he|she)'?ve given (their|his|her) (approval|consent|ok)\b|\b(request|ask for|beantragen) (\w+ ){0,3}(from|beim|bei ihrem|bei dem) (the |your )?(landlord|vermieter)\b")
        .expect("valid pattern")
});

/// The condition denied ("without the landlord's approval", "no need to ask").
static NO_NEED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(without|ohne|no need|not need|doesn'?t need|don'?t need|nicht notig|nicht erforderlich|keine zustimmung|unabhangig)\b")
        .expect("valid pattern")
});

/// A no that opens the sentence and answers the customer's question.
static ANSWER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\W*(no|not necessarily|not quite|nein|nicht unbedingt|nicht ganz)\b\W*").expect("valid pattern")
});

/// A sentence that points back to the previous one's subject ("this
/// option", "the split", "it").
static POINTS_BACK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(this|that|it|the split|this option|that option|dies\w*|das|es)\b").expect("valid pattern")
});

/// Flags a claim sentence (`body`, original text; `previous`, the sentence
/// before it) that makes a right a record gives the tenant depend on the
/// landlord's approval or agreement.
pub(super) fn check_rights(
    body: &str,
    previous: &str,
    evidence: &Evidence,
    push: &mut impl FnMut(FindingKind, String, Option<String>),
) {
    // "Not necessarily — if your landlord agrees, …": the answer word denies the question, not the condition.
    let folded = ANSWER.replace(&plain(body), "").into_owned();
    if !LANDLORD_SAYS.is_match(&folded) || NO_NEED.is_match(&folded) || polarity(&folded).negated {
        return;
    }
    let here = terms(&folded);
    let before = terms(&plain(previous));
    for p in &evidence.passages {
        let text = plain(&p.text);
        for sentence in text.split(". ") {
            if !RIGHT.is_match(sentence) || polarity(sentence).qualified || polarity(sentence).negated {
                continue;
            }
            let right = terms(sentence);
            let about = shared(&right, &vocabulary(&here)) >= 2
                || (POINTS_BACK.is_match(&folded) && shared(&right, &vocabulary(&before)) >= 2);
            if about {
                push(
                    FindingKind::Contradicted,
                    format!("makes a right the record gives the tenant depend on the landlord [{}]", p.source),
                    Some(p.source.clone()),
                );
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flagged(body: &str, previous: &str) -> bool {
        let mut e = Evidence::default();
        e.add_tool_result(&serde_json::json!({"found": true, "results": [{"chunkId": "policy:deposit#instalments", "listingId": null,
            "text": "The tenant may pay the deposit in three equal monthly instalments. The first instalment is due at the start of the tenancy."}]}));
        let mut n = 0;
        check_rights(body, previous, &e, &mut |_, _, _| n += 1);
        n > 0
    }

    #[test]
    fn a_right_made_to_wait_for_the_landlord() {
        assert!(flagged(
            "If your landlord agrees to it, the deposit can be split into three equal monthly instalments.",
            ""
        ));
        assert!(flagged(
            "This option is open to tenants who have agreed it with the landlord in the rental contract beforehand.",
            "You can spread the deposit over three equal monthly instalments."
        ));
        assert!(!flagged(
            "You may pay the deposit in three equal monthly instalments, without the landlord's approval.",
            ""
        ));
        assert!(!flagged("You may pay the deposit in three equal monthly instalments.", ""));
        assert!(!flagged("Whether dogs are allowed depends on the landlord's approval.", ""));
    }
}
