//! Utilities against the rent amount: put inside a rent figure its record
//! gives them on top of ("the 240 EUR of utilities that are already
//! contained in the 1,650 EUR monthly rent"), or put on top of an
//! all-inclusive rent whose record includes them ("zusätzlich zur
//! Pauschalmiete"). The statements of single costs (heating, electricity,
//! internet, parking) are read in [`super::inclusions`]. Source: the
//! utilities faults of the dev label splits (`labels/dev*.yaml`).

use std::sync::LazyLock;

use regex::Regex;

use super::evidence::Evidence;
use super::inclusions::{status, Cost, UTILITIES};
use super::numbers::{numbers, same_value};
use super::polarity::polarity;
use super::wording::{clauses, PARENS, VERB};
use super::FindingKind;
use crate::fold::plain;

/// The amount a clause puts something in: "contained in the 1,650 EUR
/// monthly rent", "in den 1.650 EUR Kaltmiete enthalten" (folded text; the
/// figure is group `f`).
static IN_AMOUNT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(in|within|inside|into|im|part of|covered by|in der|in den|in die)\s+(the |der |den |die |your |ihrer |ihren |that |those |diesen |dieser )?(?P<f>\d[\d.,]*) eur\b")
        .expect("valid pattern")
});

/// An amount said to hold the utilities: "its cold rent of 1,650 EUR per
/// month already includes the utilities" (folded text; the figure is group `f`).
static HOLDS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?P<f>\d[\d.,]*) eur\b[^;\d]{0,25}\b(already |bereits |schon )?(includes?|including|incl|inkl|inklusive|einschliesslich|covers?|contains?|enthalt|beinhaltet|umfasst)\b")
        .expect("valid pattern")
});

/// "built into the 1,650 EUR you'd pay", "steckt schon in den 1.650 EUR"
/// (folded text).
static BUILT_INTO: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"\b(built|baked|folded|rolled|wrapped|priced|factored) (\w+ )?into\b|\b(steckt|stecken) (\w+ ){0,2}in\b",
    )
    .expect("valid pattern")
});

/// Words that put utilities on top of the rent in a record (folded text).
static ON_TOP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(additional|on top|extra|in addition|zusatzlich|zuzuglich|zzgl|dazu|hinzu)\b")
        .expect("valid pattern")
});

/// Flags a claim sentence (`body`) that puts the utilities inside a listing's
/// rent figure ("the 240 EUR of utilities that are already contained in the
/// 1,650 EUR monthly rent") where that listing's record gives the utilities
/// on top of that rent. An all-inclusive rent (K-4001: "Utilities … are all
/// included in the rent") is left alone: its record puts nothing on top.
pub(super) fn check_utilities_in_rent(
    body: &str,
    evidence: &Evidence,
    push: &mut impl FnMut(FindingKind, String, Option<String>),
) {
    let folded = plain(body);
    if !UTILITIES.is_match(&folded) {
        return;
    }
    for (_, c) in clauses(&folded) {
        let p = polarity(c);
        if p.negated || p.conditional || !(p.included == Some(true) || BUILT_INTO.is_match(c)) {
            continue;
        }
        for cap in IN_AMOUNT.captures_iter(c).chain(HOLDS.captures_iter(c)) {
            let Some(f) = cap.name("f").and_then(|f| numbers(f.as_str()).into_iter().next()) else { continue };
            if let Some((listing, source)) = rent_with_utilities_on_top(evidence, f) {
                push(
                    FindingKind::Contradicted,
                    format!(
                        "puts the utilities inside {listing}'s rent of {} EUR; the record gives them on top [{source}]",
                        cap["f"].trim()
                    ),
                    Some(source.to_owned()),
                );
                return;
            }
        }
        // "780 € im Monat – …, die 190 € NK sind darin schon enthalten": "darin"
        // stands for the first amount of the sentence.
        if IN_IT.is_match(c) {
            let first = FIRST_AMOUNT.captures(&folded).and_then(|m| numbers(&m[0]).into_iter().next());
            if let Some((listing, source)) = first.and_then(|f| rent_with_utilities_on_top(evidence, f)) {
                push(
                    FindingKind::Contradicted,
                    format!("puts the utilities inside {listing}'s rent; the record gives them on top [{source}]"),
                    Some(source.to_owned()),
                );
                return;
            }
        }
    }
}

/// "darin", "in it": the amount named before (folded text).
static IN_IT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(darin|da drin|therein|in it|in that (figure|amount|price)|in this (figure|amount|price))\b")
        .expect("valid pattern")
});

/// The first amount of a sentence (folded text; group `f`).
static FIRST_AMOUNT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?P<f>\d[\d.,]*)\s+eur\b").expect("valid pattern"));

/// A figure given as the whole monthly amount: "1,650 EUR per month is what
/// HH-1001 costs in total", "insgesamt 1.650 EUR" (folded text; the figure
/// is group `f` or `g`, with no other figure between it and the word).
static TOTAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?P<f>\d[\d.,]*) eur\b(?:[^;\d]|\b[a-z]{1,2}-\d{4}\b){0,40}\b(in total|all in|all-in|insgesamt|alles in allem|all told)\b|\b(in total|insgesamt|all in|all told)\b[^;\d]{0,20}(?P<g>\d[\d.,]*) eur\b")
        .expect("valid pattern")
});

/// Flags a claim sentence (`body`) that gives a listing's cold rent as the
/// whole monthly amount, where its record puts the utilities on top.
pub(super) fn check_cold_rent_as_total(
    body: &str,
    evidence: &Evidence,
    push: &mut impl FnMut(FindingKind, String, Option<String>),
) {
    let folded = plain(body);
    for cap in TOTAL.captures_iter(&folded) {
        let Some(m) = cap.name("f").or_else(|| cap.name("g")) else { continue };
        let Some(f) = numbers(m.as_str()).into_iter().next() else { continue };
        if let Some((listing, source)) = rent_with_utilities_on_top(evidence, f) {
            push(
                FindingKind::Contradicted,
                format!(
                    "gives {listing}'s cold rent of {} EUR as the total; the record puts the utilities on top [{source}]",
                    m.as_str().trim()
                ),
                Some(source.to_owned()),
            );
            return;
        }
    }
}

/// The listing whose rent (`price` field) is the amount `f` (EUR), with the
/// source of its record sentence that puts the utilities on top of it.
fn rent_with_utilities_on_top(evidence: &Evidence, f: f64) -> Option<(&str, &str)> {
    evidence.figures.iter().filter(|e| e.source.ends_with(".price") && same_value(e.figure.value, f)).find_map(|rent| {
        let listing = rent.source.trim_end_matches(".price");
        let on_top = evidence.passages.iter().find(|p| {
            p.listing.as_deref() == Some(listing)
                && p.source.contains("#s")
                && UTILITIES.is_match(&plain(&p.text))
                && ON_TOP.is_match(&plain(&p.text))
        })?;
        Some((listing, on_top.source.as_str()))
    })
}

/// Flags a claim sentence (`body`) that puts utilities on top of the rent of
/// a listing in `scope` whose record includes them in it ("die Nebenkosten
/// zahlen Sie als feste Vorauszahlung zusätzlich zur Pauschalmiete", where
/// K-4001's record says "Utilities … are all included in the rent").
pub(super) fn check_utilities_on_top(
    body: &str,
    scope: &[String],
    evidence: &Evidence,
    push: &mut impl FnMut(FindingKind, String, Option<String>),
) {
    let folded = plain(body);
    if !UTILITIES.is_match(&folded) {
        return;
    }
    // "zusätzlich zur Pauschalmiete": the word for the all-inclusive rent reads as
    // an inclusion, so the amount the utilities are put on top of is read first.
    let extra = clauses(&folded).iter().any(|(_, c)| {
        // "stecken die Heizkosten nicht in den Nebenkosten" is about the heating.
        UTILITIES.is_match(c)
            && !Cost::ALL.iter().any(|k| k.words().is_match(c))
            && (status(c) == Some(false) || (ON_TOP_OF_RENT.is_match(c) && !polarity(c).negated))
    });
    if !extra {
        return;
    }
    let includes = evidence.passages.iter().find(|p| {
        p.source.contains("#s")
            && p.listing.as_ref().is_some_and(|l| scope.is_empty() || scope.contains(l))
            && record_includes_utilities(&p.text)
    });
    if let Some(p) = includes {
        push(
            FindingKind::Contradicted,
            format!(
                "puts utilities on top of the rent at {}; the record includes them in it [{}]",
                p.listing.as_deref().unwrap_or_default(),
                p.source
            ),
            Some(p.source.clone()),
        );
    }
}

/// Whether a record sentence puts the utilities in the rent: "Utilities,
/// heating, electricity and internet are all included in the rent" (a list
/// item without a verb takes the status of the next clause that has one;
/// a parenthesised gloss is no clause of its own).
fn record_includes_utilities(text: &str) -> bool {
    let folded = plain(&PARENS.replace_all(text, " "));
    let parts: Vec<&str> = clauses(&folded).into_iter().map(|(_, c)| c).collect();
    parts.iter().enumerate().any(|(i, c)| {
        UTILITIES.is_match(c)
            && match status(c) {
                Some(s) => s,
                None if !VERB.is_match(c) => parts[i + 1..].iter().find_map(|n| status(n)) == Some(true),
                None => false,
            }
    })
}

/// Something put on top of the rent itself (folded text).
static ON_TOP_OF_RENT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(zusatzlich zu[mr]?|zuzuglich zu[mr]?|on top of|in addition to) (der |die |den |the |your |ihrer )?(\w+ )?(pauschalmiete|warmmiete|miete|rent|pauschale)\b|\b(zur|zu der) (\w+ )?(pauschalmiete|warmmiete|miete|pauschale)\b[^;]{0,60}\b(hinzu|dazu)\b")
        .expect("valid pattern")
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utilities_put_inside_a_rent_they_come_on_top_of() {
        let mut e = Evidence::default();
        e.add_tool_result(&serde_json::json!({"id": "HH-1001", "price": 1650, "description": "The cold rent (Kaltmiete) is 1,650 EUR per month. Utilities (Nebenkosten) are an additional 240 EUR per month, heating included."}));
        e.add_tool_result(&serde_json::json!({"id": "K-4001", "price": 1350, "description": "The rent is an all-inclusive rent (Warmmiete, also Pauschalmiete) of 1,350 EUR per month. Utilities, heating, electricity and internet are all included in the rent."}));
        let findings = |body: &str| {
            let mut n = 0;
            check_utilities_in_rent(body, &e, &mut |_, _, _| n += 1);
            n
        };
        assert_eq!(findings("Heating is covered, as part of the 240 EUR of utilities that are already contained in the 1,650 EUR monthly rent."), 1);
        assert_eq!(findings("Die Nebenkosten sind in den 1.650 EUR Miete bereits enthalten."), 1);
        assert_eq!(findings("Its cold rent of 1,650 EUR per month already includes the utilities and heating."), 1);
        assert_eq!(findings("The 240 EUR of utilities includes heating."), 0);
        assert_eq!(
            findings(
                "It's part of the utilities, and those 240 EUR a month are already built into the 1,650 EUR you'd pay."
            ),
            1
        );
        // The right twins: on top of the rent, denied, or an all-inclusive rent.
        assert_eq!(
            findings("Heating is part of the 240 EUR of utilities, which come on top of the 1,650 EUR monthly rent."),
            0
        );
        assert_eq!(findings("The utilities are not included in the 1,650 EUR cold rent."), 0);
        assert_eq!(findings("Utilities, heating and internet are all included in the 1,350 EUR monthly rent."), 0);
        assert_eq!(
            findings("Miete: 780 € im Monat – eine reine Kaltmiete ist das allerdings nicht, die 190 € NK inkl. Heizung sind darin schon enthalten."),
            0,
            "780 EUR is no rent of the evidence here"
        );
        assert_eq!(findings("Miete: 1.650 € im Monat, die 240 € NK sind darin schon enthalten."), 1);
        assert_eq!(findings("Miete: 1.650 € im Monat, die 240 € NK sind darin nicht enthalten."), 0);
        // "inkl." glosses the utilities after another figure, not the rent before it.
        assert_eq!(findings("1.650 EUR kalt + 240 EUR NK (inkl. Heizung)."), 0);
    }

    #[test]
    fn a_cold_rent_given_as_the_total() {
        let mut e = Evidence::default();
        e.add_tool_result(&serde_json::json!({"id": "HH-1001", "price": 1650, "description": "The cold rent (Kaltmiete) is 1,650 EUR per month. Utilities (Nebenkosten) are an additional 240 EUR per month, heating included."}));
        e.add_tool_result(&serde_json::json!({"id": "K-4001", "price": 1350, "description": "The rent is an all-inclusive rent (Warmmiete, also Pauschalmiete) of 1,350 EUR per month. Utilities, heating, electricity and internet are all included in the rent."}));
        let findings = |body: &str| {
            let mut n = 0;
            check_cold_rent_as_total(body, &e, &mut |_, _, _| n += 1);
            n
        };
        assert_eq!(findings("1,650 EUR per month is what HH-1001 costs in total."), 1);
        assert_eq!(findings("Insgesamt zahlen Sie 1.650 EUR im Monat."), 1);
        assert_eq!(findings("1,650 EUR cold rent plus 240 EUR utilities, 1,890 EUR in total."), 0);
        assert_eq!(findings("1,650 EUR cold rent; in total 1,890 EUR."), 0);
        assert_eq!(findings("K-4001 costs 1,350 EUR a month in total."), 0);
    }

    #[test]
    fn utilities_put_on_top_of_an_all_inclusive_rent() {
        let mut e = Evidence::default();
        e.add_tool_result(&serde_json::json!({"id": "K-4001", "description": "The rent is an all-inclusive rent (Warmmiete, also Pauschalmiete) of 1,350 EUR per month. Utilities, heating, electricity and internet are all included in the rent."}));
        e.add_tool_result(&serde_json::json!({"id": "HH-1001", "description": "Utilities (Nebenkosten) are an additional 240 EUR per month, heating included."}));
        let findings = |body: &str, scope: &str| {
            let mut n = 0;
            check_utilities_on_top(body, &[scope.to_owned()], &e, &mut |_, _, _| n += 1);
            n
        };
        assert_eq!(findings("Die Nebenkosten zahlen Sie stattdessen als feste monatliche Vorauszahlung zusätzlich zur Pauschalmiete.", "K-4001"), 1);
        assert_eq!(findings("Zur Pauschalmiete kommen bei K-4001 noch Nebenkosten hinzu.", "K-4001"), 1);
        assert_eq!(findings("Nebenkosten kommen bei K-4001 nicht hinzu.", "K-4001"), 0);
        assert_eq!(findings("In diesem Fall stecken die Heizkosten nicht in den Nebenkosten.", "K-4001"), 0);
        assert_eq!(findings("The utilities of 240 EUR come on top of the cold rent.", "HH-1001"), 0);
    }
}
