//! How many of a thing a reply says there are ("two instalments", "drei
//! Stellplätze"), against the counts the records give for the same thing.
//!
//! Issue #27: "a figure attached to the wrong thing" includes a count: "the
//! deposit can be split into two equal monthly instalments" where the
//! policy says three keeps every word of the record but one, and a count
//! written as a word is no figure for the number guard. Floors and rooms
//! ([`super::counts`]) and durations ([`super::durations`]) have checks of
//! their own; here are the other things the catalogue and the policies
//! count. A count that no tool result and no customer message gives for the
//! same thing, where the records give another, is a contradiction.

use std::sync::LazyLock;

use regex::Regex;

use super::evidence::Evidence;
use super::numbers::number_word;
use super::FindingKind;
use crate::fold::plain;

/// The counted things and their words (folded English and German).
const THINGS: &[(&str, &str)] = &[
    ("instalments", r"instal+ments?|raten|teilzahlung(en)?|teilbetrage?n?|tranchen?|monatsraten"),
    ("bathrooms", r"bathrooms?|bader|badezimmer"),
    ("bedrooms", r"bedrooms?|schlafzimmer(n)?"),
    ("parking spaces", r"parking spaces?|spaces|stellplatze?n?|parkplatze?n?"),
    ("cars", r"cars|autos|fahrzeuge?n?|pkw"),
    ("steps", r"steps|stufen|staffelstufen"),
];

/// A count (a number word from two, or one or two digits), at most two
/// words, then a counted thing.
static COUNT: LazyLock<Regex> = LazyLock::new(|| {
    let things = THINGS.iter().map(|(_, w)| format!("(?:{w})")).collect::<Vec<_>>().join("|");
    Regex::new(&format!(
        r"\b(two|three|four|five|six|seven|eight|nine|ten|twelve|zwei|drei|vier|funf|sechs|sieben|acht|neun|zehn|zwolf|\d{{1,2}})\s+(?:[a-z-]+\s+){{0,2}}?({things})\b"
    ))
    .expect("valid pattern")
});

/// The thing a word names, if it is a counted one.
fn thing(word: &str) -> Option<&'static str> {
    static WORDS: LazyLock<Vec<(&'static str, Regex)>> = LazyLock::new(|| {
        THINGS.iter().map(|(t, w)| (*t, Regex::new(&format!("^(?:{w})$")).expect("valid pattern"))).collect()
    });
    WORDS.iter().find(|(_, r)| r.is_match(word)).map(|(t, _)| *t)
}

/// Every (count, thing) in `text`.
fn counts(text: &str) -> Vec<(u32, &'static str, String)> {
    let folded = plain(text);
    COUNT
        .captures_iter(&folded)
        .filter_map(|c| {
            let n = c[1].parse::<u32>().ok().or_else(|| number_word(&c[1]).map(|v| v as u32))?;
            Some((n, thing(&c[2])?, c[0].to_owned()))
        })
        .collect()
}

/// Counts of a claim sentence (`body`) against those the tool results give
/// for the same thing (`cache`: those counts, read once per reply);
/// `customer`: the customer's messages.
pub(super) fn check_counted(
    body: &str,
    evidence: &Evidence,
    cache: &std::cell::OnceCell<Vec<(u32, &'static str, String)>>,
    customer: &str,
    push: &mut impl FnMut(FindingKind, String, Option<String>),
) {
    let said = counts(body);
    if said.is_empty() {
        return;
    }
    let given = cache.get_or_init(|| {
        evidence
            .passages
            .iter()
            .flat_map(|p| counts(&p.text).into_iter().map(|(n, t, _)| (n, t, p.source.clone())))
            .collect()
    });
    let asked = counts(customer);
    for (n, t, words) in said {
        let records: Vec<&(u32, &str, String)> = given.iter().filter(|(_, g, _)| *g == t).collect();
        if records.is_empty()
            || records.iter().any(|(m, _, _)| *m == n)
            || asked.iter().any(|(m, a, _)| *m == n && *a == t)
        {
            continue;
        }
        let (m, _, source) = records[0];
        push(
            FindingKind::Contradicted,
            format!("says \"{words}\"; the records give {m} {t} [{source}]"),
            Some(source.clone()),
        );
        return;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_in_both_languages() {
        assert_eq!(
            counts("The deposit can be split into three equal monthly instalments.")
                .into_iter()
                .map(|(n, t, _)| (n, t))
                .collect::<Vec<_>>(),
            [(3, "instalments")]
        );
        assert_eq!(counts("Sie können die Kaution in zwei Raten zahlen.")[0].0, 2);
        assert_eq!(counts("in 3 monatlichen Raten")[0].0, 3);
        // One is an article as often as a count.
        assert!(counts("one instalment").is_empty());
        assert!(counts("two rooms").is_empty());
    }
}
