//! The date a rent step takes effect: a reply that moves the yearly rise to
//! another date the records name for something else.
//!
//! B-2001's record says the graduated rent "rises by 3.5 percent every year
//! on 1 January"; the listing is available from 1 December. Labelled wrong
//! replies put the step on "1. Dezember" ("jeweils zum Jahrestag des
//! Bezugs"). The date check ([`super::listing_facts::check_dates`]) passes
//! them, since the month is in the records; here a date is bound to the
//! event of its clause (a rise, or the start of the tenancy), and a rise's
//! date must be one the records give for a rise. Source: the graduated-rent
//! faults of the dev label splits (`labels/dev*.yaml`).

use std::sync::LazyLock;

use regex::Regex;

use super::evidence::Evidence;
use super::listing_facts::{month_of, DATED};
use super::polarity::polarity;
use super::wording::clauses;
use super::FindingKind;
use crate::fold::plain;

/// A rise of the rent (folded text).
static RISE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(steig\w*|erhoh\w*|anheb\w*|anhebung\w*|stufe\w*|staffel\w*|rises?|rising|increase\w*|steps?|goes up|go up)\b")
        .expect("valid pattern")
});

/// The start of a tenancy or the date a flat is free (folded text).
static START: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(frei|verfugbar|bezugsfrei|bezug\w*|einzug\w*|mietbeginn\w*|beginn\w*|available|availability|move[- ]in|moving in|vacant|start of (the|your) (tenancy|lease))\b")
        .expect("valid pattern")
});

/// The rent held where it is next year ("im kommenden Jahr bleibt es bei
/// den heutigen 1.280 EUR", "ändert sich … noch nichts", "stays the same
/// next year"), folded text.
static HELD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(bleibt|bleiben)\b[^;]{0,50}\b(bei|unverandert|gleich|konstant)\b|\bandert sich\b[^;]{0,50}\bnichts\b|\b(stays?|remains?)\b[^;]{0,40}\b(the same|unchanged|at|where it is)\b|\bno (rise|increase|step)\b|\b(zahlen|zahlt|bezahlen)\b[^;]{0,30}\bweiterhin\b|\bweiterhin\b[^;]{0,30}\b(zahlen|zahlt|bei)\b|\b(still|continue to|go on) pay(ing)?\b")
        .expect("valid pattern")
});
static NEXT_YEAR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(im |fur das )?(nachste[nrs]?|kommende[nrs]?) (kalender)?jahr\b|\bnachstes jahr\b|\b(next|the coming) (calendar )?year\b").expect("valid pattern")
});
/// The first step made to wait for months after the move-in ("erst nach
/// zwölf vollen Mietmonaten", "ein volles Jahr nach Ihrem Mietbeginn"), folded text.
static WAITS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\berst\b[^;]{0,40}\b(nach|ab)\b[^;]{0,12}\b(zwolf|12|einem|ein)\b[^;]{0,15}\b(\w*monat\w*|\w*jahr\w*)|\b(ein|einem|zwolf|12) (volles |vollen |ganzes |volle )?(jahr|monate|mietjahr)\b[^;]{0,10}\bnach (ihrem |dem |ihres )?(einzug|mietbeginn|bezug|vertragsbeginn|beginn)|\b(twelve|12|a full|one full|a|one) (full )?(months?|year) after (you move in|moving in|move-in|the start|your move|the tenancy)|\bonly after (twelve|12|a full|one full|a) (full )?(months?|year)\b")
        .expect("valid pattern")
});

/// A step tied to the tenancy's anniversary rather than a calendar date
/// ("jeweils zum Jahrestag des Mietbeginns", "on the anniversary of your
/// move-in"), folded text.
static ANNIVERSARY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(jahrestag\w*|anniversary|anniversaries)\b").expect("valid pattern"));

/// A yearly step made a single one ("steigt zum 1. Januar um 3,5 Prozent und
/// bleibt danach auf diesem Stand", "then stays at that level"), folded text.
static ONCE_ONLY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(bleibt|bleiben) danach\b|\b(stays?|remains?) (there|at that level|the same|unchanged) (afterwards|after that|thereafter)\b|\b(after that|afterwards|thereafter),? (it )?(stays?|remains?)\b")
        .expect("valid pattern")
});

/// A yearly rise denied its rhythm ("greift allerdings nicht jedes Jahr").
static NOT_YEARLY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\bnicht (jedes|in jedem) jahr\b|\bnot (every|each) year\b").expect("valid pattern"));

/// The months of the dates in `text` (folded) that fall in a clause about a
/// rise: the clause names a rise and no start, or follows one that does.
fn rise_months(text: &str) -> Vec<u32> {
    let mut out = vec![];
    let mut rise = false;
    for (_, c) in clauses(text) {
        if START.is_match(c) {
            rise = false;
        } else if RISE.is_match(c) {
            rise = true;
        }
        if rise && !polarity(c).negated {
            out.extend(DATED.captures_iter(c).filter_map(|m| month_of(&m)));
        }
    }
    out
}

/// Flags a claim sentence (`body`, original text) that dates a rise in a
/// month no record gives for a rise, when a record does date one.
pub(super) fn check_step_dates(
    body: &str,
    evidence: &Evidence,
    push: &mut impl FnMut(FindingKind, String, Option<String>),
) {
    let folded = plain(body);
    let stated = rise_months(&folded);
    let held = folded.split(';').any(|part| {
        (HELD.is_match(part) && NEXT_YEAR.is_match(part) && !polarity(part).conditional)
            || WAITS.is_match(part)
            || ONCE_ONLY.is_match(part)
            || (NOT_YEARLY.is_match(part) && RISE.is_match(part))
    });
    // "Die Stufe greift jeweils zum Jahrestag Ihres Mietbeginns, nicht zum Kalenderjahr".
    let anniversary =
        RISE.is_match(&folded) && clauses(&folded).iter().any(|(_, c)| ANNIVERSARY.is_match(c) && !polarity(c).negated);
    if stated.is_empty() && !held && !anniversary {
        return;
    }
    let records: Vec<(u32, &str)> = evidence
        .passages
        .iter()
        .flat_map(|p| rise_months(&plain(&p.text)).into_iter().map(move |m| (m, p.source.as_str())))
        .collect();
    let Some((_, source)) = records.first() else { return };
    if anniversary {
        push(
            FindingKind::Contradicted,
            format!("ties the rent's rise to the tenancy's anniversary; the record dates it [{source}]"),
            Some((*source).to_owned()),
        );
        return;
    }
    if held {
        push(
            FindingKind::Contradicted,
            format!("holds the rent back from a rise the record dates every year [{source}]"),
            Some((*source).to_owned()),
        );
        return;
    }
    if let Some(m) = stated.iter().find(|m| !records.iter().any(|(r, _)| r == *m)) {
        const NAMES: [&str; 12] = [
            "January",
            "February",
            "March",
            "April",
            "May",
            "June",
            "July",
            "August",
            "September",
            "October",
            "November",
            "December",
        ];
        let name = NAMES.get((*m as usize).wrapping_sub(1)).copied().unwrap_or("another month");
        push(
            FindingKind::Contradicted,
            format!("dates the rent's rise in {name}; the record dates it otherwise [{source}]"),
            Some((*source).to_owned()),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flagged(body: &str) -> bool {
        let mut e = Evidence::default();
        e.add_tool_result(&serde_json::json!({"id": "B-2001", "availableFrom": "2026-12-01",
            "description": "The rent is a graduated rent (Staffelmiete) that rises by 3.5 percent every year on 1 January. The apartment is available from 1 December 2026."}));
        let mut n = 0;
        check_step_dates(body, &e, &mut |_, _, _| n += 1);
        n > 0
    }

    #[test]
    fn a_yearly_rise_held_back() {
        for wrong in [
            "Im kommenden Jahr bleibt es für Sie trotzdem bei den heutigen 1.280 EUR Kaltmiete, denn die erste Stufe greift erst nach einem vollen Mietjahr.",
            "Für das kommende Jahr ändert sich an den aktuellen 1.280 EUR Kaltmiete aber noch nichts.",
            "Wie bei jeder Staffelmiete liegt der erste Schritt zwölf Monate nach Ihrem Einzug.",
            "Die erste Stufe greift allerdings erst nach zwölf vollen Mietmonaten, also nicht schon im kommenden Januar.",
            "The first step only comes twelve months after you move in.",
            "Die Stufe greift jeweils zum Jahrestag Ihres Mietbeginns, nicht zum Kalenderjahr.",
            "Staffelmiete, +3,5 % pro Jahr, jeweils zum Jahrestag des Mietbeginns.",
            "Die erste Erhöhung greift bei einem Einzug im Dezember noch nicht, im nächsten Jahr zahlen Sie also weiterhin 1.280 €.",
            "Die Kaltmiete steigt zum 1. Januar um 3,5 Prozent und bleibt danach auf diesem Stand.",
            "Diese Erhöhung greift allerdings nicht jedes Jahr, sondern nur zu den Stichtagen im Vertrag.",
        ] {
            assert!(flagged(wrong), "{wrong}");
        }
        for right in [
            "Bis zum 1. Januar bleibt es bei 1.280 EUR; im nächsten Jahr steigt die Miete um 3,5 Prozent.",
            "Zwischen zwei Stufen müssen mindestens zwölf Monate liegen.",
            "Die genaue Miete im nächsten Jahr steht im Mietvertrag.",
            "Die Stufe greift nicht zum Jahrestag des Mietbeginns, sondern jeweils am 1. Januar.",
            "The rent rises every 1 January, not on the anniversary of your move-in.",
        ] {
            assert!(!flagged(right), "{right}");
        }
    }

    #[test]
    fn a_rise_dated_on_the_availability_date() {
        for wrong in [
            "Die aktuelle Kaltmiete von 1.280 EUR steigt jedes Jahr am 1. Dezember um 3,5 Prozent, also jeweils zum Jahrestag des Bezugs.",
            "Die Miete steigt jedes Jahr um 3,5 Prozent, und zwar jeweils zum 1. Dezember, dem Jahrestag des Mietbeginns.",
            "The rent goes up by 3.5 percent every year on 1 December.",
        ] {
            assert!(flagged(wrong), "{wrong}");
        }
        for right in [
            "Die Miete steigt jedes Jahr am 1. Januar um 3,5 Prozent.",
            "Die Staffelmiete steigt jährlich um 3,5 Prozent; die Wohnung ist ab dem 1. Dezember 2026 frei.",
            "Da die Wohnung ab dem 1. Dezember 2026 frei ist, zahlen Sie bis Januar die heutige Miete.",
            "Die Stufe greift nicht am 1. Dezember, sondern am 1. Januar.",
        ] {
            assert!(!flagged(right), "{right}");
        }
    }
}
