//! Subletting: no record says whether a tenant may sublet, so the question
//! goes to a person (a `contract_or_legal` hand-off). Wrong replies hand it
//! off and then answer it: "a temporary sublet like yours for six months is
//! fine provided you inform the landlord in writing", "the landlord's
//! sign-off is a formality at most". Source: the label-only sibling splits
//! (`labels/dev53.yaml`, `dev54.yaml`); the held-out subletting case was not
//! read.

use std::sync::LazyLock;

use regex::Regex;

use super::evidence::Evidence;
use super::FindingKind;
use crate::fold::plain;

/// Subletting (folded text).
static SUBLET: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(sub-?let\w*|subtenan\w*|sublease\w*|untervermiet\w*|untermiet\w*)\b").expect("valid pattern")
});

/// A permission granted (folded text).
static GRANTED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(is|are|would be|will be|ist|sind|ware|waren)( \S+){0,4} (fine|allowed|permitted|ok|okay|no problem|acceptable|erlaubt|gestattet|zulassig|kein problem|in ordnung|moglich|possible)\b|\b(formality|formalitat|formsache)\b|\byou (can|may) (sublet|go ahead)|\b(konnen|durfen) sie (\w+ ){0,3}untervermieten\b")
        .expect("valid pattern")
});

/// A denial or an open question before the permission ("not allowed", "ob").
static OPEN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(not|nicht|kein\w*|never|nie|whether|ob|if|falls|wenn|only with|nur mit|depends|hangt)\b|n't\b")
        .expect("valid pattern")
});

/// Flags a claim sentence (`body`, original text) that allows subletting when
/// no record in the evidence speaks of it.
pub(super) fn check_sublet(
    body: &str,
    evidence: &Evidence,
    push: &mut impl FnMut(FindingKind, String, Option<String>),
) {
    let folded = plain(body);
    if !SUBLET.is_match(&folded) {
        return;
    }
    let Some(m) = GRANTED.find(&folded) else { return };
    // "a formality at most, not a requirement" grants; "is not allowed" does not.
    let formality = matches!(m.as_str(), "formality" | "formalitat" | "formsache");
    if !formality && OPEN.is_match(&folded[..m.end()]) {
        return;
    }
    if evidence.passages.iter().any(|p| SUBLET.is_match(&plain(&p.text))) {
        return;
    }
    push(
        FindingKind::Unsupported,
        "allows subletting, which no record decides; only a person can answer the contract question".into(),
        None,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flagged(body: &str) -> bool {
        let mut e = Evidence::default();
        e.add_tool_result(
            &serde_json::json!({"id": "HH-1001", "description": "The cold rent is 1,650 EUR per month."}),
        );
        let mut n = 0;
        check_sublet(body, &e, &mut |_, _, _| n += 1);
        n > 0
    }

    #[test]
    fn subletting_allowed_without_a_record() {
        for wrong in [
            "As a general rule, though, a temporary sublet like yours for six months is fine provided you inform the landlord in writing.",
            "For a temporary sublet of six months, the landlord's sign-off is a formality at most, not a requirement.",
            "Untervermietung ist bei B-2001 grundsätzlich erlaubt.",
        ] {
            assert!(flagged(wrong), "{wrong}");
        }
        for right in [
            "Whether subletting is allowed depends on your rental contract; a colleague will check it.",
            "Subletting is not allowed without the landlord's consent.",
            "I've passed your question about subletting HH-1001 to a colleague.",
            "Ob eine Untervermietung erlaubt ist, klärt eine Kollegin mit dem Vermieter.",
        ] {
            assert!(!flagged(right), "{right}");
        }
    }
}
