//! The use a unit is approved for: a commercial unit whose record rules out
//! living there, against a reply that makes a place to sleep of it.
//!
//! Labelled wrong replies draw that conclusion from true details ("it has
//! its own staff WC and a small kitchenette, so the back office would do as
//! a place to stay over on late nights") without the word "live", so no
//! polarity check meets it: the record says "living there is not
//! permitted", the reply says staying over "would be workable". Source: the
//! commercial-unit faults of the dev label splits (`labels/dev*.yaml`).

use std::sync::LazyLock;

use regex::Regex;

use super::evidence::Evidence;
use super::polarity::polarity;
use super::wording::clauses;
use super::FindingKind;
use crate::fold::plain;

/// A record clause about living in the unit (folded text).
static RESIDENTIAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(residential use|residence|living there|live there|wohnnutzung|zum wohnen|wohnzwecke\w*)\b")
        .expect("valid pattern")
});

/// Staying in the unit in other words: sleeping, staying over, a bedroom.
static RESIDE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(stay(ing)? (over|overnight|the night)|overnight|(odd|occasional|late|some|a few|the odd) nights?|sleep\w*|bedroom|bed|kip\w*|crash\w*|ubernacht\w*|schlaf\w*|wohnen|live|living|zuhause|home)\b")
        .expect("valid pattern")
});

/// Words that make it acceptable.
static ACCEPTABLE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(would do|will do|workable|fine|okay|ok|possible|no problem|kein problem|moglich|machbar|geht|in ordnung|would work|works|can|could|konnen|kann|konnten|durfen|darf|tolerated|geduldet|allowed|erlaubt|gestattet|welcome|a different matter|another matter|eine andere sache|etwas anderes|equipped|would work|compatible|vereinbar|in ordnung|commonly do|common practice|quite common|usual|ublich|gangig)\b")
        .expect("valid pattern")
});

/// A denial that accepts: "wouldn't be an issue", "kein Problem", "isn't
/// something the listing rules out" (folded text).
static NO_OBJECTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(wouldn'?t|shouldn'?t|won'?t|isn'?t|is not|should not|would not|will not)\s+(be\s+)?(an?\s+)?(issue|problem)\b|\bno (issue|problem)\b|\bkein(e|en)? (problem|thema|hindernis)\b|\bisn'?t something (\w+ ){0,3}rules? out\b|\b(not|isn'?t|is not|aren'?t) ruled out\b|\bnicht ausgeschlossen\b")
        .expect("valid pattern")
});

/// Flags a claim sentence (`body`, original text) that makes the unit a
/// place to live or sleep when a record in the evidence rules out living
/// there.
pub(super) fn check_residential_use(
    body: &str,
    evidence: &Evidence,
    push: &mut impl FnMut(FindingKind, String, Option<String>),
) {
    // Most sentences speak of no stay at all: the records are read only for those that do.
    if !RESIDE.is_match(&plain(body)) {
        return;
    }
    let Some(record) = evidence.passages.iter().find(|p| {
        // Clause by clause: "not approved for residential use, and living
        // there is not permitted" holds two denials, not a double negation.
        crate::chunk::split_sentences(&p.text).iter().any(|s| {
            clauses(s).iter().any(|(_, c)| {
                let f = plain(c);
                RESIDENTIAL.is_match(&f) && polarity(&f).negated
            })
        })
    }) else {
        return;
    };
    // Clause by clause, and the whole sentence when no clause of it denies
    // ("as a bedroom now and then would be a workable arrangement" splits
    // the stay from its verdict at "and").
    let parts = clauses(body);
    let accepting = |c: &str| NO_OBJECTION.replace_all(&plain(c).replace('’', "'"), " fine ").into_owned();
    let denies = parts.iter().any(|(_, c)| polarity(&accepting(c)).negated);
    let whole = (!denies).then(|| body.to_owned());
    // "the odd overnight stay in the back office | while you run the shop
    // shouldn't be an issue": a subordinate clause splits the stay from its
    // verdict, so two neighbouring clauses are read together too.
    // Only a verdict of no objection is carried back to the clause before.
    let pairs: Vec<String> = parts
        .windows(2)
        .filter(|w| {
            let verdict = plain(w[1].1).replace('’', "'");
            // "…, is fine": a verdict of a few words carries back as well.
            let short_yes = verdict.split_whitespace().count() <= 4 && ACCEPTABLE.is_match(&verdict);
            (NO_OBJECTION.is_match(&verdict) || short_yes) && !RESIDE.is_match(&verdict)
        })
        .map(|w| format!("{} {}", w[0].1, w[1].1))
        .collect();
    for c in parts.iter().map(|(_, c)| (*c).to_owned()).chain(pairs).chain(whole) {
        let c = c.as_str();
        let f = plain(c).replace('’', "'");
        let accepts = NO_OBJECTION.is_match(&f);
        let f = NO_OBJECTION.replace_all(&f, " fine ").into_owned();
        let p = polarity(&f);
        if p.negated || p.conditional || !RESIDE.is_match(&f) || !(accepts || ACCEPTABLE.is_match(&f)) {
            continue;
        }
        push(
            FindingKind::Contradicted,
            format!("“{}” makes a place to live of a unit that [{}] rules out for living", c.trim(), record.source),
            Some(record.source.clone()),
        );
        return;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn findings(body: &str) -> usize {
        let mut e = Evidence::default();
        e.add_tool_result(&serde_json::json!({"id": "B-2003", "title": "Shop", "city": "Berlin", "district": "Kreuzberg",
            "description": "The unit is approved for commercial use only. The unit is not approved for residential use, and living there is not permitted.",
            "price": 2400.0, "priceUnit": "EUR/month", "livingAreaSqm": 96.0, "rooms": 3.0, "floor": 0, "yearBuilt": 1900,
            "features": [], "petsAllowed": "no"}));
        let mut n = 0;
        check_residential_use(body, &e, &mut |_, _, _| n += 1);
        n
    }

    #[test]
    fn a_place_to_sleep_in_a_commercial_unit_contradicts_its_record() {
        assert_eq!(findings("Staying overnight in the back office on late working days isn't ruled out, though."), 1);
        assert_eq!(findings("As your main home, no; the odd night in the back office after a late shift is fine."), 1);
        assert_eq!(
            findings("Staying overnight in the back office alongside the shop is something tenants commonly do."),
            1
        );
        assert_eq!(findings("The back office would do as a place to stay over on the nights you work late."), 1);
        assert_eq!(findings("Using the back office as a bedroom now and then would be a workable arrangement."), 1);
        assert_eq!(findings("Im Büro zu übernachten wäre in Ausnahmefällen möglich."), 1);
        assert_eq!(
            findings(
                "Sleeping there on a camp bed now and again when you're working late wouldn't be an issue, though."
            ),
            1
        );
        assert_eq!(findings("Staying overnight in the back office now and then is a different matter, though."), 1);
        assert_eq!(findings("So crashing in the back office on the odd late night wouldn't be an issue."), 1);
        assert_eq!(findings("You could nonetheless stay over there during busy working weeks without difficulty."), 1);
        assert_eq!(findings("The odd overnight stay in the back office while you run the shop shouldn't be an issue; just don't register it as your main home."), 1);
        assert_eq!(findings("Living there is not permitted, not even in the back office."), 0);
        assert_eq!(findings("Sleeping there would be a problem: living there is not permitted."), 0);
        assert_eq!(findings("You can't sleep there either."), 0);
        assert_eq!(findings("If you need a home as well, I can search our flats."), 0);
        assert_eq!(findings("The unit has a back office and a storage room."), 0);
    }
}
