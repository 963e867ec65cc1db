//! Facts that read like conditions or habits, whose words the records must
//! name:
//! - when a payment falls due. Issue #27: a commission "due as soon as the
//!   seller accepts your reservation" passes every check, because "as soon
//!   as" reads as a condition and conditions state nothing. But "X is due
//!   when Y" states a fact: the trigger Y. Its content words must be in the
//!   evidence (the policy says "due only once the notarised purchase contract
//!   has been signed"); a trigger no record names is the reply's invention;
//! - a rhythm other than monthly or yearly ("im Zweijahresrhythmus", "every
//!   other year", "quarterly") that no record gives.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use regex::Regex;

use super::evidence::Evidence;
use super::terms::{shared, terms, Term};
use super::FindingKind;
use crate::fold::plain;

/// A payment falling due, then its trigger ("due as soon as …", "fällig,
/// sobald …", "wird mit … fällig").
static DUE_WHEN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(due|payable|fallig\w*|zahlbar|zu zahlen|zu entrichten)\b[^.;:]{0,20}?\b(as soon as|once|when|upon|sobald|wenn|sowie|nachdem)\s+([^.;:]{3,120})")
        .expect("valid pattern")
});

/// Words of a trigger that name nothing of their own.
static FILLER: LazyLock<BTreeSet<String>> = LazyLock::new(|| {
    ["due", "payable", "pay", "paid", "fallig", "zahlen", "only", "nur", "erst", "your", "ihre", "ihr", "you", "sie"]
        .iter()
        .flat_map(|w| crate::retrieval::analyzer::analyze(w))
        .collect()
});

/// A trigger of a payment in `body` whose content words are mostly in no
/// tool result and no customer message (`customer`).
pub(super) fn check_triggers(
    body: &str,
    evidence: &Evidence,
    customer: &str,
    push: &mut impl FnMut(FindingKind, String, Option<String>),
) {
    let folded = plain(body);
    let Some(c) = DUE_WHEN.captures(&folded) else { return };
    let trigger = c.get(3).map_or("", |m| m.as_str());
    let wanted: Vec<Term> = terms(trigger).into_iter().filter(|t| !t.iter().all(|w| FILLER.contains(w))).collect();
    if wanted.is_empty() || evidence.passages.is_empty() {
        return;
    }
    let known: Vec<Term> = evidence.passages.iter().flat_map(|p| terms(&p.text)).chain(terms(customer)).collect();
    let vocab: BTreeSet<&str> = known.iter().flatten().map(String::as_str).collect();
    if shared(&wanted, &vocab) * 2 < wanted.len() {
        push(
            FindingKind::Unsupported,
            format!("says when a payment falls due (\"{}\"); no record names that moment", c[0].trim()),
            None,
        );
    }
}

/// A rhythm a record would have to give: every two years, half-yearly,
/// quarterly, weekly.
static RHYTHM: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(zweijahres\w*|alle zwei jahre|jedes zweite jahr|every (two|other|second) years?|biennial\w*|every (three|four|five) years|alle (drei|vier|funf) jahre|halbjahrlich|half-yearly|every six months|alle sechs monate|every (two|2|other|second) months|alle (zwei|2) monate|jeden zweiten monat|quartal\w*|quarterly|(per|each|every|once a|twice a) quarter|(a|one) quarter (later|after|afterwards)|vierteljahrlich|every (three|3) months|alle drei monate|wochentlich|weekly|every week)\b")
        .expect("valid pattern")
});

/// A rhythm other than monthly or yearly that no tool result and no
/// customer message gives.
pub(super) fn check_rhythm(
    body: &str,
    evidence: &Evidence,
    customer: &str,
    push: &mut impl FnMut(FindingKind, String, Option<String>),
) {
    let folded = plain(body);
    let Some(m) = RHYTHM.find(&folded) else { return };
    if evidence.passages.is_empty() {
        return;
    }
    let said = |t: &str| RHYTHM.find_iter(&plain(t)).any(|o| o.as_str() == m.as_str());
    if !evidence.passages.iter().any(|p| said(&p.text)) && !said(customer) {
        push(FindingKind::Contradicted, format!("gives a rhythm no record gives (\"{}\")", m.as_str()), None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flagged(body: &str) -> bool {
        let mut e = Evidence::default();
        e.add_tool_result(&serde_json::json!({"found": true, "results": [{
            "chunkId": "policy:commission#when-commission-is-due", "listingId": null,
            "text": "The buyer's commission is due only once the notarised purchase contract has been signed. No commission is due if the purchase does not take place."
        }]}));
        let mut hit = false;
        check_triggers(body, &e, "When do I pay the commission?", &mut |_, _, _| hit = true);
        hit
    }

    #[test]
    fn an_invented_trigger_is_unsupported_and_the_records_one_is_not() {
        assert!(flagged("The commission is due as soon as the seller accepts your reservation."));
        assert!(flagged("Die Provision ist fällig, sobald der Verkäufer Ihre Reservierung annimmt."));
        assert!(!flagged("The commission is due only once the notarised purchase contract has been signed."));
        assert!(!flagged("Die Provision wird erst fällig, wenn der notarielle Kaufvertrag unterschrieben ist."));
        assert!(!flagged("The commission is 3.57 percent of the price."));
    }

    fn deposit() -> Evidence {
        let mut e = Evidence::default();
        e.add_tool_result(&serde_json::json!({"found": true, "results": [{
            "chunkId": "policy:deposit#instalments", "listingId": null,
            "text": "The tenant may pay the deposit in three equal monthly instalments. The first instalment is due at the start of the tenancy."
        }]}));
        e
    }

    #[test]
    fn an_invented_rhythm_is_flagged() {
        let hits = |body: &str| {
            let mut n = 0;
            check_rhythm(body, &deposit(), "Can I pay the deposit in instalments?", &mut |_, _, _| n += 1);
            n
        };
        assert_eq!(hits("The instalments are due quarterly."), 1);
        assert_eq!(hits("The instalments are due once a quarter."), 1);
        assert_eq!(hits("Then, a quarter later, the second instalment becomes due."), 1);
        assert_eq!(hits("The deposit is the cold rent for a quarter of a year."), 0);
        assert_eq!(hits("The instalments are spread so that one is paid every two months."), 1);
        assert_eq!(hits("The deposit is paid in three equal monthly instalments."), 0);
    }
}
