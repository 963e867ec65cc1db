//! What a policy term covers, as a reply states it, against the policy's
//! own list: "Hausgeld … covers the running costs of the common property,
//! the property management fee and contributions to the maintenance
//! reserve". A reply that explains the term wrongly keeps its words: "Die
//! Instandhaltungsrücklage gehört nicht dazu", "die laufenden Betriebskosten
//! und die Hausverwaltung rechnen Sie getrennt davon ab". The clause check of
//! [`super::claims`] needs two shared subject words and a short record
//! clause; here each item of a policy list is a subject of its own.
//!
//! Only policy passages are read (a listing's running costs are
//! [`super::inclusions`]' field), and only in a reply that names the term
//! the passage's section is about (its anchor: `policy:condominium#hausgeld`).

use std::sync::LazyLock;

use regex::Regex;

use super::evidence::Evidence;
use super::polarity::polarity;
use super::terms::{shared, terms, vocabulary, Term};
use super::wording::{clauses, PARENS};
use super::FindingKind;
use crate::fold::plain;

/// A verb that opens a list of what something covers.
static COVERS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(covers?|includes?|including|consists of|umfasst|beinhaltet|enthalt|deckt|decken)\b")
        .expect("valid pattern")
});
/// A pronoun subject at the end of the words before the list verb.
static PRONOUN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(it|they|this|es|sie|dies|das)\s*$").expect("valid pattern"));
/// Breaks between the items of such a list.
static ITEM_BREAK: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r",|;|\b(and|und|sowie|as well as|plus)\b").expect("valid pattern"));
/// Words that name no item of their own ("costs", "fee", "the").
static GENERIC: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(cost|costs|kost|kosten|fee|fees|gebuhr|contribution|contributions|beitrag|beitrage|payment|zahlung|amount|betrag)$")
        .expect("valid pattern")
});

/// One item of a policy list, with the passage it came from.
pub(super) struct Item {
    source: String,
    terms: Vec<Term>,
    text: String,
}

fn specific(t: &[Term]) -> Vec<Term> {
    t.iter().filter(|t| !GENERIC.is_match(&t[0])).cloned().collect()
}

fn items(evidence: &Evidence, reply_terms: &[Term]) -> Vec<Item> {
    let vocab = vocabulary(reply_terms);
    let mut out = vec![];
    for p in evidence.passages.iter().filter(|p| p.source.starts_with("policy:")) {
        // The section's own term ("hausgeld") must be named in the reply.
        let anchor = p.source.rsplit_once('#').map(|(_, a)| a.replace('-', " ")).unwrap_or_default();
        let subject: Vec<Term> = terms(&anchor).into_iter().filter(|t| !COVERS.is_match(&t[0])).collect();
        if subject.is_empty() || shared(&subject, &vocab) == 0 {
            continue;
        }
        for sentence in crate::chunk::split_sentences(&p.text) {
            let f = plain(&sentence);
            let Some(m) = COVERS.find(&f) else { continue };
            if polarity(&f).negated || polarity(&f).conditional {
                continue;
            }
            // The list must be the term's own: "It covers …", "Hausgeld
            // includes …", not "one fixed monthly amount covers …".
            let before = f[..m.start()].rsplit([',', ';', ':', ')']).next().unwrap_or_default();
            if !(PRONOUN.is_match(before) || shared(&subject, &vocabulary(&terms(before))) > 0) {
                continue;
            }
            let list = &f[m.end()..];
            for piece in ITEM_BREAK.split(list) {
                let t = specific(&terms(piece));
                if !t.is_empty() {
                    out.push(Item { source: p.source.clone(), terms: t, text: piece.trim().to_owned() });
                }
            }
        }
    }
    out
}

/// Clauses of `body` that say an item of a policy list is not covered
/// ("gehört nicht dazu", "getrennt davon", "not part of it"), in a reply
/// (`reply`) that names the policy term.
pub(super) fn check_covers(
    body: &str,
    reply: &str,
    evidence: &Evidence,
    listed: &std::cell::OnceCell<Vec<Item>>,
    push: &mut impl FnMut(FindingKind, String, Option<String>),
) {
    // The policy lists are read once per reply, on the first claim sentence.
    let listed = listed.get_or_init(|| items(evidence, &terms(reply)));
    if listed.is_empty() {
        return;
    }
    for (_, c) in clauses(body) {
        let p = polarity(&PARENS.replace_all(c, " "));
        if p.included != Some(false) || p.conditional {
            continue;
        }
        let ct = specific(&terms(c));
        if let Some(item) = listed.iter().find(|i| shared(&i.terms, &vocabulary(&ct)) * 2 >= i.terms.len()) {
            push(
                FindingKind::Contradicted,
                format!("“{}” says it is not covered; [{}] lists it: “{}”", c.trim(), item.source, item.text),
                Some(item.source.clone()),
            );
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn evidence() -> Evidence {
        let mut e = Evidence::default();
        e.add_tool_result(&serde_json::json!({"found": true, "results": [{
            "chunkId": "policy:condominium#hausgeld", "listingId": null,
            "text": "Hausgeld is the monthly payment an owner makes to the owners' association (Eigentümergemeinschaft). It covers the running costs of the common property, the property management fee and contributions to the maintenance reserve."
        }]}));
        e
    }

    fn flagged(body: &str, reply: &str) -> bool {
        let mut hit = false;
        check_covers(body, reply, &evidence(), &Default::default(), &mut |_, _, _| hit = true);
        hit
    }

    #[test]
    fn an_item_said_not_covered_contradicts_the_policy_list() {
        let reply = "Das Hausgeld beträgt 420 EUR im Monat.";
        assert!(flagged("Die Instandhaltungsrücklage gehört nicht dazu.", reply));
        assert!(flagged("The maintenance reserve is billed separately.", "Hausgeld is 420 EUR."));
        assert!(!flagged("Die Instandhaltungsrücklage gehört mit dazu.", reply));
        assert!(!flagged("The maintenance reserve is part of it.", "Hausgeld is 420 EUR."));
        // A reply that does not speak of Hausgeld is not read against its list.
        assert!(!flagged("The maintenance reserve is billed separately.", "The levy is 18,000 EUR."));
    }

    #[test]
    fn a_list_whose_subject_is_not_the_term_is_not_read() {
        let mut e = Evidence::default();
        e.add_tool_result(&serde_json::json!({"found": true, "results": [{
            "chunkId": "policy:furnished#all-inclusive-rent", "listingId": null,
            "text": "With an all-inclusive rent (Pauschalmiete), one fixed monthly amount covers both the rent and the running costs."
        }]}));
        let mut hit = false;
        let body = "The utilities are an additional 240 EUR a month on top of the rent.";
        let reply = "Not an all-inclusive rent: the utilities are extra.";
        check_covers(body, reply, &e, &Default::default(), &mut |_, _, _| hit = true);
        assert!(!hit);
    }
}
