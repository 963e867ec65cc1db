//! How a reply's clause stands to a record clause or to its neighbours,
//! beyond their shared words: a cold rent and an all-inclusive rent are
//! different figures, a tenant and a landlord different parties (neither
//! pair can contradict the other); a conjunct can share the denial that
//! closes the next one ("Hunde | und Katzen nicht erlaubt"); and another
//! clause can make a statement depend on a condition ("…, solange Ihr
//! Verbrauch im üblichen Rahmen bleibt").

use std::collections::BTreeSet;
use std::sync::LazyLock;

use regex::Regex;

use super::polarity::polarity;
use super::terms::{shared, terms, vocabulary, Term};
use super::wording::clauses;
use crate::fold::plain;

/// Whether `next` (the clause after `clause`, both slices of `body`) is a
/// second conjunct joined by "und"/"and"/"oder"/"or" whose denial closes
/// both ("Hunde | und Katzen nicht erlaubt", "dogs | or cats are not allowed").
pub(super) fn shares_denial(body: &str, clause: &str, next: &str) -> bool {
    let offset = |c: &str| (c.as_ptr() as usize).saturating_sub(body.as_ptr() as usize);
    let between = body.get(offset(clause) + clause.len()..offset(next)).unwrap_or("");
    matches!(between.trim().to_lowercase().as_str(), "und" | "and" | "oder" | "or" | "sowie")
        && CONJUNCT_DENIED.is_match(&plain(next))
}

/// A conjunct of one or two words and its denial ("Katzen nicht erlaubt",
/// "cats are not allowed").
static CONJUNCT_DENIED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\W*(\w+ ){1,2}((are|is|sind|ist) )?(not|nicht|no longer|nicht mehr|never|nie|ausgeschlossen|verboten|untersagt|excluded|forbidden|prohibited|banned)\b")
        .expect("valid pattern")
});

/// Whether another clause of `c`'s part of the sentence (up to a semicolon)
/// is an explicit, undenied condition ("vorausgesetzt, …", "as long as …").
pub(super) fn narrowed_by_condition(body: &str, c: &str) -> bool {
    let part = body.split(';').find(|seg| seg.contains(c.trim())).unwrap_or(body);
    clauses(part).iter().any(|(_, pc)| {
        let f = plain(pc);
        pc.trim() != c.trim() && NARROWING.is_match(&f) && !polarity(&f).negated
    })
}

/// An explicit condition (folded): "vorausgesetzt", "sofern", "solange",
/// "as long as", "provided (that)" opening its clause (not the verb: "access
/// is provided by the staircase"), "only if", "nur wenn", "unless".
static NARROWING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(vorausgesetzt|sofern|solange|as long as|provided that|only if|only when|nur wenn|nur dann|unless|es sei denn)\b|^\W*(and |und )?provided\b")
        .expect("valid pattern")
});

/// A cold rent (Kaltmiete) and an all-inclusive rent (Warmmiete,
/// Pauschalmiete), folded text.
static COLD_RENT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(cold|net) rent|\b(netto)?kaltmiete").expect("valid pattern"));
static WARM_RENT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(warm|gross|all-inclusive|inclusive) rent|\b(warm|pauschal|brutto|inklusiv)miete")
        .expect("valid pattern")
});

/// Whether one clause speaks of a cold rent only and the other of an
/// all-inclusive rent only: "Pauschalmiete inkl. Nebenkosten" says nothing
/// against "three months' cold rent, without utilities".
pub(super) fn rent_kinds_differ(a: &str, b: &str) -> bool {
    let kind = |t: &str| (COLD_RENT.is_match(t), WARM_RENT.is_match(t));
    matches!((kind(a), kind(b)), ((true, false), (false, true)) | ((false, true), (true, false)))
}

/// Whether two clauses each name a party (tenant, landlord, buyer, seller)
/// and share none: they speak of different payers or deciders.
pub(super) fn parties_differ(a: &str, b: &str) -> bool {
    let (pa, pb) = (super::binding::parties(a), super::binding::parties(b));
    !pa.is_empty() && !pb.is_empty() && !pa.iter().any(|p| pb.contains(p))
}

/// A negation that denies the noun after it ("no lift", "keine Haustiere",
/// "without a balcony"): the clause denies that noun, not the whole clause.
static DENIED_NOUN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(no|kein\w*|without|ohne)\s+(\w+(?:\s+\w+)?)").expect("valid pattern"));

/// A denied noun phrase that opens with "further", "other", "weitere": what
/// comes beyond (folded).
static BEYOND_WORD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(further|other|additional|extra|more|weiter\w*|zusatzlich\w*|sonstig\w*|andere\w*)\b")
        .expect("valid pattern")
});

/// Whether a clause that denies a noun ("no lift") can contradict a clause
/// with the terms `other`: only when `other` speaks of that noun.
pub(super) fn denial_meets(clause: &str, other: &[Term]) -> bool {
    let targets: Vec<Term> =
        DENIED_NOUN.captures_iter(&plain(clause)).flat_map(|c| terms(c.get(2).map_or("", |m| m.as_str()))).collect();
    if targets.is_empty() {
        return true;
    }
    // "keine weiteren Erhöhungen", "no further costs": a denial of what comes
    // beyond the record, not of the record's own.
    if DENIED_NOUN.captures_iter(&plain(clause)).all(|c| c.get(2).is_some_and(|m| BEYOND_WORD.is_match(m.as_str()))) {
        return false;
    }
    // "a note that you owe no rent" restates the Mietschuldenfreiheitsbescheinigung,
    // "no fee for cancelling" the "free of charge": what a record calls free of
    // something, a denial of that something agrees with.
    let known = vocabulary(other);
    if known.iter().any(|w| *w == "free" || w.ends_with("frei") || w.contains("freiheit")) {
        return false;
    }
    shared(&targets, &known) > 0
}

/// Whether two clauses speak of the same thing: two shared terms, or one
/// when either clause has at most two.
pub(super) fn about_same(a: &[Term], b: &[Term]) -> bool {
    let sh = shared(a, &vocabulary(b));
    sh >= 2 || (sh == 1 && a.len().min(b.len()) <= 2)
}

/// Words that carry a clause's polarity (included, extra, allowed), not its
/// subject: "heating included" and "heating is extra" are both about heating.
static MARKERS: LazyLock<BTreeSet<String>> = LazyLock::new(|| {
    [
        "include",
        "included",
        "extra",
        "additional",
        "separate",
        "separately",
        "allowed",
        "possible",
        "permitted",
        "cover",
        "covered",
        "part",
    ]
    .iter()
    .flat_map(|w| crate::retrieval::analyzer::analyze(w))
    .collect()
});

/// Words that name no particular thing ("Diese Kosten kommen zusätzlich
/// auf Sie zu", "es kommt nichts obendrauf"): a sentence whose subject is
/// only these says nothing the records could lack.
pub(super) static GENERIC: LazyLock<BTreeSet<String>> = LazyLock::new(|| {
    [
        "cost",
        "costs",
        "kosten",
        "amount",
        "betrag",
        "sum",
        "summe",
        "nothing",
        "nichts",
        "everything",
        "alles",
        "anything",
        "something",
        "etwas",
        "come",
        "comes",
        "kommt",
        "kommen",
        "obendrauf",
        "rechnen",
        "einrechnen",
        "einplanen",
        "planen",
        "plan",
        "budget",
        "kalkulation",
        "monatlich",
        "monthly",
        "warm",
        "drin",
        "top",
        "drauf",
        "dazu",
        "hinzu",
        "grund",
        "reason",
        "zwar",
        "anfallen",
        "fallt",
    ]
    .iter()
    .flat_map(|w| crate::retrieval::analyzer::analyze(w))
    .collect()
});

/// The subject terms of a clause: its terms without the polarity words and
/// without figures (the figure checks compare those).
pub(super) fn focus(t: &[Term]) -> Vec<Term> {
    t.iter()
        .filter(|t| !t.iter().any(|w| MARKERS.contains(w)) && !t[0].chars().all(|c| c.is_ascii_digit()))
        .cloned()
        .collect()
}

/// Whether a reply clause and an evidence clause share their subject closely
/// enough for opposite polarity to be a contradiction: two shared subject
/// terms, or one when either clause is about that one thing alone. ("HH-1002
/// is at the top of the building" shares only "building" with "The building
/// has no lift" and contradicts nothing.)
pub(super) fn same_subject(reply: &[Term], ev: &[Term]) -> bool {
    let (a, b) = (focus(reply), focus(ev));
    let sh = shared(&a, &vocabulary(&b));
    // One shared subject term is enough only for a short reply clause: "you
    // won't get a heating bill of your own" is about the bill, not about
    // whether heating is included.
    sh >= 2 || (sh == 1 && a.len().min(b.len()) <= 1 && a.len() <= 2)
}

/// An ellipsis that takes its predicate from the clause before ("…is ruled
/// out, and so are raises to the local comparative rent", "ebenso die
/// Mieterhöhung nach Modernisierung"): no polarity of its own to compare.
pub(super) static ELLIPSIS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\W*(and |und )?((so|as|neither|nor) (is|are|was|were|does|do|did|can|could|would)|(ebenso|genauso|ebenfalls|gleichfalls|likewise)|(is|are|was|were) [^?]*$)")
        .expect("valid pattern")
});

/// A conjunct that goes on from the clause before ("and a rise after
/// modernisation", "oder eine Indexmiete"), folded.
static CONJUNCT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\W*(and|or|nor|as well as|und|oder|sowie|noch)(\s|$)").expect("valid pattern"));

/// Whether a clause (a slice of `body`, original text) is elliptic: it
/// borrows its verb and polarity from the clause before ([`ELLIPSIS`]: "as
/// are …", "ebenso …"), or it is joined by "and"/"or" to such a clause
/// ("…, as are a rise to the local comparative rent | and a rise after
/// modernisation").
pub(super) fn elliptic(body: &str, previous: Option<&str>, clause: &str) -> bool {
    if ELLIPSIS.is_match(&plain(clause)) {
        return true;
    }
    let Some(previous) = previous.filter(|p| ELLIPSIS.is_match(&plain(p))) else { return false };
    let offset = |t: &str| (t.as_ptr() as usize).checked_sub(body.as_ptr() as usize);
    let (Some(a), Some(b)) = (offset(previous).map(|o| o + previous.len()), offset(clause)) else { return false };
    body.get(a..b).is_some_and(|gap| {
        CONJUNCT.is_match(&plain(gap.trim_start_matches([',', ';']))) || CONJUNCT.is_match(&plain(clause))
    })
}

/// A denial of a few words that opens its clause ("nicht bei Vermietungen",
/// "but not through the landlord"), folded text.
pub(super) static ELLIPTIC_NOT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\W*(aber |but |und |and |jedoch |also )?(nicht|not|nie|never)\b( \S+){1,4}\W*$")
        .expect("valid pattern")
});

/// "plus" between two figures ("1,650 EUR plus 240 EUR"), folded text.
pub(super) static FIGURE_PLUS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(\d\s*(eur|euro|€)?\s+)(plus|zuzuglich|\+)(\s+\d)").expect("valid pattern"));

/// A denial right before a figure ("isn't 1,500 EUR", "nicht 1.500 €"), folded text.
static DENIED_FIGURE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(isn'?t|is not|aren'?t|are not|not|nicht)\s+(\w+\s+)?\d").expect("valid pattern"));

/// Whether a clause denies a figure the record clause does not give: "the
/// cold rent isn't 1,500 EUR" says nothing against "is 1,650 EUR" or against
/// "the deposit is three months' cold rent".
pub(super) fn denies_other_figure(clause: &str, record: &str) -> bool {
    let (mine, theirs) = (super::numbers::numbers(clause), super::numbers::numbers(record));
    DENIED_FIGURE.is_match(&plain(clause))
        && !mine.is_empty()
        && !mine.iter().any(|m| theirs.iter().any(|t| super::numbers::same_value(*m, *t)))
}

#[cfg(test)]
mod tests {
    use super::narrowed_by_condition;

    #[test]
    fn provided_as_a_verb_is_no_condition() {
        let body =
            "A lift is not available; access is provided by the staircase only, which was last renovated in 2021.";
        assert!(!narrowed_by_condition(body, "which was last renovated in 2021."));
        let body = "Heating is included, provided you keep to the usual consumption.";
        assert!(narrowed_by_condition(body, "Heating is included"));
        let body = "Heating is included, provided that you keep to the usual consumption.";
        assert!(narrowed_by_condition(body, "Heating is included"));
    }
}
