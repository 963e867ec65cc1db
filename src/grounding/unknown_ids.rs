//! A listing the tools did not find, given a history: "There's no listing
//! XY-9999 in our current records: it was let earlier this year and has
//! since been taken offline", "that reference belonged to a flat that has
//! since been let".
//!
//! When `get_listing` finds nothing, the only true statement is the absence.
//! The passages check ([`super::claims`]) reads a reply with no evidence at
//! all; a run that also searched the catalogue has passages, so a sentence
//! about the missing id is read here: an assertive clause that lets, sells
//! or withdraws it states what no tool result holds. Source: the
//! unknown-id faults of the dev label splits (`labels/dev*.yaml`).

use std::sync::LazyLock;

use regex::Regex;

use super::polarity::polarity;
use super::wording::clauses;
use super::FindingKind;
use crate::fold::plain;

/// A listing's history: let, sold, taken offline (folded text).
static HISTORY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(was|were|has been|had been|have been|got|wurde|wurden|ist|war) (\w+ ){0,3}(let|rented( out)?|sold|taken (down|offline|off)|withdrawn|delisted|removed|vermietet|verkauft|vergeben|offline genommen|deaktiviert|entfernt)\b|\bbelonged to\b|\b(is|ist|are) (still |noch )?(available|verfugbar|frei|zu haben)\b|\bgehorte (zu )?\b|\bit was an? \w+ (flat|apartment|house)\b")
        .expect("valid pattern")
});

/// A possibility, not a statement: "it may have been let" (folded text).
static POSSIBLY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(may|might|could|possibly|perhaps|maybe|vielleicht|moglicherweise|eventuell|kann|konnte|vermutlich|probably|wahrscheinlich)\b")
        .expect("valid pattern")
});

/// A listing id in original text.
static LISTING_ID: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\b[A-Z]{1,2}-\d{4}\b").expect("valid pattern"));

/// Flags a claim sentence (`body`) that gives a history to a listing id no
/// tool result holds, named in it or in the sentence before (`previous`).
/// `known`: the listing ids the evidence holds.
pub(super) fn check_unknown_history(
    body: &str,
    previous: &str,
    known: &std::collections::BTreeSet<String>,
    push: &mut impl FnMut(FindingKind, String, Option<String>),
) {
    let unknown = LISTING_ID
        .find_iter(body)
        .chain(LISTING_ID.find_iter(previous))
        .map(|m| m.as_str())
        .find(|id| !known.contains(*id));
    let Some(id) = unknown else { return };
    let told = clauses(&plain(body)).into_iter().any(|(_, c)| {
        let p = polarity(c);
        HISTORY.is_match(c) && !p.negated && !p.conditional && !POSSIBLY.is_match(c)
    });
    if told {
        push(FindingKind::Unsupported, format!("gives {id} a history, but no tool result holds {id}"), None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flagged(body: &str, previous: &str) -> bool {
        let known = ["HH-1001".to_owned()].into_iter().collect();
        let mut n = 0;
        check_unknown_history(body, previous, &known, &mut |_, _, _| n += 1);
        n > 0
    }

    #[test]
    fn a_history_for_a_listing_no_tool_found() {
        assert!(flagged("There's no listing XY-9999 in our current records: it was let earlier this year and has since been taken offline.", ""));
        assert!(flagged(
            "XY-9999: not in our current records; that reference belonged to a flat that has since been let.",
            ""
        ));
        assert!(flagged(
            "It was a two-room flat in Hamburg that got let last month.",
            "There's no XY-9999 in our current listings, sorry."
        ));
        assert!(flagged("There's no listing XY-9999 in our records marked as let, so it is still available.", ""));
        assert!(!flagged("There's no XY-9999 in our records, so it's no longer available.", ""));
        // The absence alone, a possibility, and a known listing say nothing untrue.
        assert!(!flagged("There's no listing XY-9999 in our records.", ""));
        assert!(!flagged("XY-9999 is not in our records; it may have been let already or the number has a typo.", ""));
        assert!(!flagged("HH-1001 was renovated in 2019 and is let from January.", ""));
    }
}
