//! Whether a figure in a reply is attached to what the records attach it
//! to: the right listing, and the right kind of cost.
//!
//! The number guard only asks whether a figure exists somewhere in the
//! evidence, so "the utilities add 95 EUR" passes when 95 EUR is the parking
//! price, and K-4001's rent passes as K-4002's. Here each figure is bound:
//!
//! - to a *listing*: a figure in a sentence that names listings must be in
//!   the evidence of one of them (or of a policy page), not only in another
//!   listing's record;
//! - to a *cost kind* (rent, utilities, parking, deposit, Hausgeld, special
//!   levy, commission): each cost word belongs to the figure nearest to it in
//!   its clause, on both sides. A figure the reply gives one kind, where every
//!   passage holding that value gives it other kinds and none this one, is
//!   misattributed. A figure with no cost word, or a value the records give
//!   without one, is not judged.

use std::sync::LazyLock;

use regex::Regex;

use super::evidence::Evidence;
use super::numbers::{figures, Figure};
use crate::fold::plain;

/// Cost kinds and the words (folded, German and English) that name them.
/// Source: the catalogue's own terms (listing fields and policy pages).
static KINDS: LazyLock<Vec<(&'static str, Regex)>> = LazyLock::new(|| {
    [
        (
            "utilities",
            r"\b(utilities|utility costs?|nk|nebenkosten\w*|betriebskosten\w*|running costs|service charges?)\b",
        ),
        ("parking", r"\b(parking( space)?|car park|stellplatz\w*|tiefgarage\w*|garage|parkplatz\w*)\b"),
        ("deposit", r"\b(deposit|kaution|mietkaution|security deposit)\b"),
        ("Hausgeld", r"\b(hausgeld\w*)\b"),
        ("special levy", r"\b(special levy|levy|sonderumlage\w*|umlage)\b"),
        ("commission", r"\b(commission|provision|kauferprovision|maklerprovision|courtage)\b"),
        (
            "rent",
            r"\b((cold|net|warm|gross|all-inclusive|inclusive) rent|all[- ]in|all inclusive|alles inklusive|kaltmiete\w*|warmmiete\w*|pauschalmiete\w*|bruttomiete\w*|nettokaltmiete|inklusivmiete|gesamtmiete|(incl|including|inclusive of|inkl|inklusive|einschliesslich) (the |all |der |den |aller )?(utilities|nebenkosten|betriebskosten|bills|service charges)|(per month|a month|monthly|/month|pro monat|im monat|monatlich) (in total|all told|insgesamt)|(in total|insgesamt) (per month|a month|monthly|pro monat|im monat|monatlich)|(is|as|are) the (monthly )?total|gesamtbetrag\w*|gesamtsumme|rent|miete|mietpreis)\b",
        ),
        ("heating", r"\b(heating( (costs?|share|portion|part|component))?|heizkosten\w*|heizungsanteil|heizung)\b"),
        ("electricity", r"\b(electricity|power|strom|stroms|stromkosten|haushaltsstrom)\b"),
        ("purchase price", r"\b(purchase price|kaufpreis\w*|asking price)\b"),
    ]
    .into_iter()
    .map(|(k, p)| (k, Regex::new(p).expect("valid pattern")))
    .collect()
});

/// Splits at clause breaks (not at parentheses: "Utilities (Nebenkosten) are
/// 310 EUR", nor at the dot of "1.350 EUR"): a cost word belongs to a figure of its own clause.
static BREAK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"[;:!?\[\]]|\.(?:\s|$)|,\s|\s[–—-]\s|\b(and|und|but|aber|while|whereas|plus)\b").expect("valid pattern")
});

/// Words that make the cost word after them the amount a figure is added
/// to, not the figure's own kind ("on top of the cold rent", "zusätzlich
/// zur Kaltmiete"); matched at the end of the text before the cost word.
static REFERENCE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(on top of|in addition to|besides|beside|apart from|as well as|zusatzlich zu[rm]?|neben|zur|zu der|zum|uber|incl|including|inclusive of|inkl|inklusive|einschliesslich|ohne|without|excluding|exclusive of|exkl|exklusive|not counting)\s+(the |your |all |der |die |dem |den |aller |ihre[rnm]? )?(monthly |current |advertised |monatlichen |aktuellen )?([\d.,]+ )?$")
        .expect("valid pattern")
});

/// Words between a cost word and a later figure that make the figure what
/// the cost is added to or a part of ("Heizkosten zusätzlich zu den 290
/// EUR", "how much of the 240 EUR is heating").
static BETWEEN_REFERENCE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(on top of|in addition to|part of|much of|share of|zusatzlich zu|teil der|teil von|anteil an|includ\w*|incl|inkl\w*|enthalten|inbegriffen|covered|abgedeckt|drin|in (den|der|dem|the|those|these|that|this|your|ihren)|with(in)? the|mit (den|der|dem))\b")
        .expect("valid pattern")
});

/// Words right before a figure that name it as a whole other costs sit in
/// or beside ("neben den", "of the", "inside that").
/// Words after a figure that say it covers what the clause names (folded).
static COVERED_AFTER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(abgedeckt|abgegolten|bezahlt|enthalten|inbegriffen|drin|covered|included|paid for)\b")
        .expect("valid pattern")
});

static CONTAINER_BEFORE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(neben|of|inside|within|in|zu|uber|mit|from|von|aus|beside|besides)\s+(the|that|this|those|these|den|der|dem|die|diesen|ihren|your)\s+(\w+\s+)?$")
        .expect("valid pattern")
});

/// Abbreviations whose dot ends no clause ("incl.", "inkl.", "zzgl.", "ca.").
static ABBREVIATION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(incl|inkl|excl|exkl|zzgl|ca|approx|est)\.\s").expect("valid pattern"));

/// What joins a cost word to its own figure: "Kaltmiete von 3.100 EUR",
/// "cold rent of 1,650 EUR", "Nebenkosten in Höhe von 290 EUR".
static OF: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*(\(\w+\)\s*)?(von|of|at|in hohe von|uber|:)?\s*$").expect("valid pattern"));

/// "über die …" before a figure and "… hinaus" after it: the figure is
/// what something else comes on top of.
static BEYOND: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\buber (die |den |das |ihre |the )?$").expect("valid pattern"));
static HINAUS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*(eur|euro|eur/monat|eur im monat)?\s*(monatlich |im monat )?hinaus\b").expect("valid pattern")
});

/// A rent word's own kind: a cold rent (Kaltmiete) and an all-inclusive
/// rent (Warmmiete, Pauschalmiete) are different figures, while a plain
/// "rent" or "Miete" can be either ([`compatible`]).
fn rent_kind(name: &'static str, word: &str) -> &'static str {
    if name != "rent" {
        return name;
    }
    if ["cold", "net", "kalt", "nettokalt"].iter().any(|w| word.starts_with(w)) {
        "cold rent"
    } else if [
        "warm",
        "gross",
        "all",
        "inclusive",
        "pauschal",
        "brutto",
        "inklusiv",
        "incl",
        "inkl",
        "einschl",
        "gesamt",
        "per month",
        "a month",
        "monthly",
        "/month",
        "pro monat",
        "im monat",
        "monatlich",
        "in total",
        "insgesamt",
        "is the",
        "as the",
        "are the",
    ]
    .iter()
    .any(|w| word.starts_with(w))
    {
        "all-inclusive rent"
    } else {
        "rent"
    }
}

/// Whether a figure the reply gives kind `said` can be the one the records
/// give kind `recorded`: the same kind, or a plain rent for either rent.
fn compatible(said: &str, recorded: &str) -> bool {
    said == recorded || (said.ends_with("rent") && recorded.ends_with("rent") && (said == "rent" || recorded == "rent"))
}

/// The cost kinds each figure of `text` is given: every cost word goes to
/// the nearest figure of its clause (by byte distance). Returns (figure,
/// kinds) in order.
pub(super) fn figure_kinds(text: &str) -> Vec<(Figure, Vec<&'static str>)> {
    // "1.350 €" folds to "1.350  EUR ": one space, so the unit stays with its figure.
    let folded = plain(text).split_whitespace().collect::<Vec<_>>().join(" ");
    // "1,650 EUR/month incl. utilities": an abbreviation's dot ends no clause.
    let folded = ABBREVIATION.replace_all(&folded, "$1 ").into_owned();
    let mut out = vec![];
    let mut from = 0;
    let mut pieces: Vec<&str> = vec![];
    for m in BREAK.find_iter(&folded) {
        pieces.push(&folded[from..m.start()]);
        from = m.end();
    }
    pieces.push(&folded[from..]);
    for piece in pieces {
        let figs: Vec<(usize, Figure)> = figures(piece)
            .into_iter()
            .filter_map(|f| piece.find(&f.text).map(|at| (at + f.text.len() / 2, f)))
            .collect();
        if figs.is_empty() {
            continue;
        }
        let mut kinds: Vec<Vec<&'static str>> = vec![vec![]; figs.len()];
        // "Zusätzlich zur Kaltmiete von 3.100 EUR": the figure right after a
        // cost word named as what another cost comes on top of is that word's.
        let owned: Vec<bool> = figs
            .iter()
            .map(|(at, f)| {
                let start = at - f.text.len() / 2;
                // "Über die 1.350 EUR hinaus zahlen Sie nichts für Nebenkosten":
                // the figure is what nothing comes on top of.
                if BEYOND.is_match(&piece[..start]) && HINAUS.is_match(&piece[start + f.text.len()..]) {
                    return true;
                }
                KINDS.iter().any(|(_, re)| {
                    re.find_iter(piece).any(|m| {
                        m.end() <= start
                            && REFERENCE.is_match(&piece[..m.start()])
                            && OF.is_match(&piece[m.end()..start])
                    })
                })
            })
            .collect();
        for (name, re) in KINDS.iter() {
            for m in re.find_iter(piece) {
                // "240 EUR on top of the cold rent": the rent is what the figure is added to.
                if REFERENCE.is_match(&piece[..m.start()]) {
                    continue;
                }
                let name = rent_kind(name, m.as_str());
                let mid = (m.start() + m.end()) / 2;
                // "Heizkosten zusätzlich zu den 290 EUR": a figure named as
                // what the cost comes on top of is not the cost's own figure.
                let own = |at: usize| at < m.start() || !BETWEEN_REFERENCE.is_match(&piece[m.end()..at.max(m.end())]);
                // "neben den 290 EUR auch die Stromkosten", "how much of the 240 EUR
                // is for heating": a heating or power cost beside an amount named as
                // a whole is not that amount.
                // "Mit den 1.350 EUR sind Nebenkosten, Heizung und Strom abgedeckt":
                // the utilities covered by an amount are not that amount either.
                let whole = |at: usize, f: &Figure| {
                    // (The covering word may close a list after the piece: the sentence's rest.)
                    let rest = folded.get(piece.as_ptr() as usize - folded.as_ptr() as usize + at..).unwrap_or("");
                    let covers = name == "utilities" && COVERED_AFTER.is_match(rest);
                    (matches!(name, "heating" | "electricity") || covers)
                        && CONTAINER_BEFORE.is_match(&piece[..at.saturating_sub(f.text.len() / 2)])
                };
                if let Some((i, _)) = figs
                    .iter()
                    .enumerate()
                    .filter(|(i, (at, f))| own(*at) && !owned[*i] && !whole(*at, f))
                    .min_by_key(|(_, (at, _))| at.abs_diff(mid))
                {
                    if !kinds[i].contains(&name) {
                        kinds[i].push(name);
                    }
                }
            }
        }
        out.extend(figs.into_iter().map(|(_, f)| f).zip(kinds));
    }
    out
}

/// A misbinding of one reply figure, as a reason, with the evidence source
/// that holds the value; `None` when the figure is bound as the records bind
/// it, or when that cannot be told.
///
/// `clause_kinds`: the cost kinds the reply gives this figure
/// ([`figure_kinds`]); `named`: the listing ids the reply's sentence names.
pub(super) fn misbinding(
    figure: &Figure,
    clause_kinds: &[&'static str],
    named: &[String],
    evidence: &Evidence,
) -> Option<(String, Option<String>)> {
    let matches: Vec<_> = evidence.matching_figures(figure).collect();
    if matches.is_empty() {
        return None;
    }
    let listing_of =
        |source: &str| evidence.passages.iter().find(|p| p.source == source).and_then(|p| p.listing.clone());
    if !named.is_empty() {
        let in_scope = matches.iter().any(|m| listing_of(&m.source).is_none_or(|l| named.contains(&l)));
        if !in_scope {
            let owner = listing_of(&matches[0].source).unwrap_or_default();
            return Some((
                format!("\"{}\" is {}'s figure in the records, not {}'s", figure.text, owner, named.join("/")),
                Some(matches[0].source.clone()),
            ));
        }
    }
    if clause_kinds.len() != 1 {
        return None;
    }
    let said = clause_kinds[0];
    let mut recorded: Vec<&'static str> = vec![];
    for m in &matches {
        let Some(p) = evidence.passages.iter().find(|p| p.source == m.source) else { return None };
        let kinds = figure_kinds(&p.text)
            .into_iter()
            .find(|(f, _)| f.kind == figure.kind && super::numbers::same_value(f.value, figure.value))
            .map(|(_, k)| k)
            .unwrap_or_default();
        // The price field says only "rent": the description tells which.
        if kinds == ["rent"] && said.ends_with(" rent") {
            continue;
        }
        if kinds.is_empty() || kinds.iter().any(|k| compatible(said, k)) {
            return None;
        }
        recorded.extend(kinds);
    }
    recorded.dedup();
    if recorded.is_empty() {
        return None;
    }
    Some((
        format!("\"{}\" is the {} in the records, not the {said}", figure.text, recorded.join("/")),
        Some(matches[0].source.clone()),
    ))
}

/// The parties a figure can belong to, and their words (folded). Source:
/// the policy pages ("The buyer's share of the commission … is 3.57
/// percent", "Tenants pay no commission").
static PARTIES: LazyLock<Vec<(&'static str, Regex)>> = LazyLock::new(|| {
    [
        ("tenant", r"\b(tenants?|renters?|mieter|mieterin|mieterinnen|mietern|mieters|mieterseite)\b"),
        ("landlord", r"\b(landlords?|landlady|lessors?|vermieter\w*)\b"),
        ("buyer", r"\b(buyers?|purchasers?|kaufer\w*|erwerber\w*)\b"),
        ("seller", r"\b(sellers?|vendors?|verkaufer\w*)\b"),
    ]
    .into_iter()
    .map(|(k, p)| (k, Regex::new(p).expect("valid pattern")))
    .collect()
});

/// A record sentence that gives another party the same figure as the
/// sentence before ("The seller pays the same share"), folded.
static SAME_SHARE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(the same|an equal|equal|gleiche\w*|denselben|ebenso viel)\b.{0,20}\b(share|amount|percentage|anteil|betrag|satz)\b")
        .expect("valid pattern")
});

/// The parties (tenant, landlord, buyer, seller) a folded text names.
pub(super) fn parties(folded: &str) -> Vec<&'static str> {
    PARTIES.iter().filter(|(_, re)| re.is_match(folded)).map(|(k, _)| *k).collect()
}

/// A figure given to the wrong party: the reply's sentence (`body`) names
/// only parties that no evidence sentence holding the figure names, while
/// those sentences name others ("Als Mieter zahlen Sie 3,57 Prozent", where
/// the records give 3.57 percent as the buyer's share). `None` when the
/// sentence or the records name no party, or when they share one.
pub(super) fn wrong_party(figure: &Figure, body: &str, evidence: &Evidence) -> Option<(String, Option<String>)> {
    let said = parties(&plain(body));
    if said.is_empty() {
        return None;
    }
    let mut recorded: Vec<&'static str> = vec![];
    let mut source = None;
    for m in evidence.matching_figures(figure) {
        let p = evidence.passages.iter().find(|p| p.source == m.source)?;
        let sentences = crate::chunk::split_sentences(&p.text);
        let at = sentences.iter().position(|s| {
            figures(s).iter().any(|f| f.kind == figure.kind && super::numbers::same_value(f.value, figure.value))
        })?;
        let mut named = parties(&plain(&sentences[at]));
        // "… is 3.57 percent … The seller pays the same share": the seller's too.
        named.extend(
            sentences[at + 1..].iter().filter(|s| SAME_SHARE.is_match(&plain(s))).flat_map(|s| parties(&plain(s))),
        );
        if named.is_empty() || named.iter().any(|n| said.contains(n)) {
            return None;
        }
        recorded.extend(named);
        source.get_or_insert_with(|| m.source.clone());
    }
    source.as_ref()?;
    recorded.sort_unstable();
    recorded.dedup();
    Some((
        format!("\"{}\" is the {}'s in the records, not the {}'s", figure.text, recorded.join("/"), said.join("/")),
        source,
    ))
}

/// A figure said of the whole building ("for the building as a whole",
/// "für das gesamte Haus") and one said of a single unit ("for this unit",
/// "Ihr Anteil"), folded.
static BUILDING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(building as a whole|(the )?(whole|entire) (building|house|property)|for the building|all (the )?units|gesamte[nms]? (gebaude|haus|objekt)|ganze[nms]? (gebaude|haus)|fur das (gebaude|haus)|alle einheiten|alle wohnungen)\b")
        .expect("valid pattern")
});
static UNIT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(for this (unit|flat|apartment)|this (unit|flat|apartment)'s (share|part)|your (share|portion)|fur diese (wohnung|einheit)|ihr anteil|auf diese (wohnung|einheit))\b")
        .expect("valid pattern")
});

/// A figure the records give for one unit, said of the whole building
/// ("The 18,000 EUR is the estimated cost for the building as a whole",
/// where the record says "the special levy for this unit … is estimated at
/// 18,000 EUR"). `None` when the clause names no building-wide scope or a
/// record holding the figure is not about one unit.
pub(super) fn wrong_scope(figure: &Figure, body: &str, evidence: &Evidence) -> Option<(String, Option<String>)> {
    let folded = plain(body);
    let clause = BREAK
        .split(&folded)
        .find(|c| figures(c).iter().any(|f| f.kind == figure.kind && super::numbers::same_value(f.value, figure.value)))
        .unwrap_or(&folded);
    // The building may be named after the figure's clause ("18,000 EUR – for the
    // building as a whole"), unless the sentence also names the unit and the
    // figure's own clause does not name the building.
    if !BUILDING.is_match(&folded) || (UNIT.is_match(&folded) && !BUILDING.is_match(clause)) {
        return None;
    }
    let mut source = None;
    for m in evidence.matching_figures(figure) {
        let p = evidence.passages.iter().find(|p| p.source == m.source)?;
        let text = plain(&p.text);
        if !UNIT.is_match(&text) || BUILDING.is_match(&text) {
            return None;
        }
        source.get_or_insert_with(|| m.source.clone());
    }
    let source = source?;
    Some((format!("\"{}\" is this unit's figure in the records, not the whole building's", figure.text), Some(source)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn evidence() -> Evidence {
        let mut e = Evidence::default();
        e.add_tool_result(&serde_json::json!({"id": "M-3002", "description": "The cold rent is 2,150 EUR per month. Utilities (Nebenkosten) are an additional 310 EUR per month. A space in the underground car park is available for an extra 95 EUR per month.", "price": 2150.0, "priceUnit": "EUR/month"}));
        e.add_tool_result(&serde_json::json!({"id": "K-4001", "description": "Pauschalmiete.", "price": 1350.0, "priceUnit": "EUR/month"}));
        e
    }

    fn check(reply: &str, named: &[&str]) -> Vec<String> {
        let e = evidence();
        let named: Vec<String> = named.iter().map(|s| (*s).to_owned()).collect();
        figure_kinds(reply).iter().filter_map(|(f, k)| misbinding(f, k, &named, &e)).map(|(r, _)| r).collect()
    }

    #[test]
    fn each_cost_word_goes_to_its_nearest_figure() {
        let kinds: Vec<Vec<&str>> =
            figure_kinds("The Nebenkosten of 240 EUR a month, payable on top of the 1,650 EUR cold rent")
                .into_iter()
                .map(|(_, k)| k)
                .collect();
        assert_eq!(kinds, [vec!["utilities"], vec!["cold rent"]]);
        // A bare number (no unit, so no figure) on top of which the figure comes.
        let kinds: Vec<Vec<&str>> = figure_kinds("Those run to EUR 240 a month on top of the 1,650 cold rent")
            .into_iter()
            .map(|(_, k)| k)
            .collect();
        assert_eq!(kinds, [Vec::<&str>::new()]);
    }

    #[test]
    fn heating_and_power_take_a_figure_only_when_it_is_theirs() {
        let kinds = |t: &str| figure_kinds(t).into_iter().map(|(_, k)| k).collect::<Vec<_>>();
        assert_eq!(kinds("Für die Heizung fallen monatlich 290 EUR an"), [vec!["heating"]]);
        assert_eq!(kinds("Die 290 EUR im Monat zahlen Sie für den Strom der Wärmepumpe"), [vec!["electricity"]]);
        assert_eq!(kinds("Heating sits inside that 240 EUR"), [Vec::<&str>::new()]);
        assert_eq!(kinds("neben den 290 EUR auch die Stromkosten der Wärmepumpe"), [Vec::<&str>::new()]);
        assert_eq!(kinds("Die Nebenkosten von 195 EUR inklusive Heizung"), [vec!["utilities"]]);
        assert_eq!(
            kinds("Mit den 1.350 EUR im Monat sind Nebenkosten, Heizung, Strom und Internet bereits abgedeckt"),
            [Vec::<&str>::new()]
        );
    }

    #[test]
    fn swapped_amounts_and_another_listings_figure_are_misbound() {
        assert_eq!(check("Parking costs 310 EUR per month, and the utilities add 95 EUR per month.", &[]).len(), 2);
        assert!(check("Parking costs 95 EUR per month, and the utilities add 310 EUR per month.", &[]).is_empty());
        assert_eq!(check("K-4002 costs 1,350 EUR a month.", &["K-4002"]).len(), 1);
        assert!(check("M-3002 costs 2,150 EUR a month.", &["M-3002"]).is_empty());
        // No cost word next to it: nothing to bind.
        assert!(check("That adds 95 EUR per month.", &[]).is_empty());
    }

    #[test]
    fn a_cold_rent_is_not_an_all_inclusive_rent() {
        let mut e = Evidence::default();
        e.add_tool_result(&serde_json::json!({"id": "K-4001", "description": "The rent is an all-inclusive rent (Warmmiete, also Pauschalmiete) of 1,350 EUR per month. Utilities, heating, electricity and internet are all included in the rent.", "price": 1350.0, "priceUnit": "EUR/month"}));
        e.add_tool_result(&serde_json::json!({"id": "HH-1001", "description": "The cold rent (Kaltmiete) is 1,650 EUR per month. Utilities (Nebenkosten) are an additional 240 EUR per month, heating included.", "price": 1650.0, "priceUnit": "EUR/month"}));
        let check = |reply: &str| -> Vec<String> {
            figure_kinds(reply).iter().filter_map(|(f, k)| misbinding(f, k, &[], &e)).map(|(r, _)| r).collect()
        };
        assert_eq!(check("Die Kaltmiete für K-4001 beträgt 1.350 EUR pro Monat.").len(), 1);
        assert_eq!(check("Bei K-4001 beträgt die Kaltmiete 1.350 € im Monat.").len(), 1);
        assert!(check("Die Miete für K-4001 beträgt 1.350 EUR pro Monat, alles inklusive.").is_empty());
        assert!(check("K-4001 kostet pauschal 1.350 EUR warm.").is_empty());
        assert_eq!(check("The warm rent is 1,650 EUR.").len(), 1);
        assert_eq!(check("It comes to 1,650 EUR a month all in.").len(), 1);
        assert!(check("It comes to 1,350 EUR a month all-in.").is_empty());
        assert_eq!(check("The 240 EUR a month is the heating share.").len(), 1);
        assert!(check("The cold rent is 1,650 EUR.").is_empty());
        // "incl. utilities" and "per month in total" make the figure an all-inclusive rent.
        assert_eq!(check("HH-1001 costs 1,650 EUR/month incl. utilities.").len(), 1);
        assert_eq!(check("You'd pay 1,650 EUR per month in total.").len(), 1);
        assert!(check("K-4001 costs 1,350 EUR per month including utilities.").is_empty());
        assert!(check("HH-1001 costs 1,650 EUR per month, plus 240 EUR utilities including heating.").is_empty());
        // "the total" names an all-inclusive figure.
        assert_eq!(check("The listing gives 1,650 EUR per month for HH-1001 as the total.").len(), 1);
        assert!(check("K-4001: 1,350 EUR is the total, everything included.").is_empty());
    }

    #[test]
    fn the_figure_of_a_cost_named_as_a_reference_is_that_costs() {
        let kinds: Vec<Vec<&str>> =
            figure_kinds("Zusätzlich zur Kaltmiete von 3.100 EUR fallen Nebenkosten in Höhe von 290 EUR pro Monat an")
                .into_iter()
                .map(|(_, k)| k)
                .collect();
        assert_eq!(kinds, [vec![], vec!["utilities"]]);
        // Without "von" the nearest cost word still goes to the nearest figure.
        let kinds: Vec<Vec<&str>> = figure_kinds("Zusätzlich zur Kaltmiete fallen 290 EUR Nebenkosten an")
            .into_iter()
            .map(|(_, k)| k)
            .collect();
        assert_eq!(kinds, [vec!["utilities"]]);
        let kinds: Vec<Vec<&str>> =
            figure_kinds("Über die 1.350 EUR hinaus zahlen Sie monatlich nichts für Nebenkosten")
                .into_iter()
                .map(|(_, k)| k)
                .collect();
        assert_eq!(kinds, [Vec::<&str>::new()]);
    }

    #[test]
    fn a_unit_figure_is_not_the_building_figure() {
        let mut e = Evidence::default();
        e.add_tool_result(&serde_json::json!({"id": "M-3001", "description": "The special levy (Sonderumlage) for this unit for the facade renovation is estimated at 18,000 EUR and is not yet final."}));
        let scope = |body: &str| figures(body).iter().find_map(|f| wrong_scope(f, body, &e)).map(|(r, _)| r);
        assert!(scope("The 18,000 EUR is the estimated cost for the building as a whole.").is_some());
        assert!(
            scope("The levy is estimated at 18,000 EUR for the building as a whole and is not yet final.").is_some()
        );
        assert!(scope("Your share is estimated at 18,000 EUR.").is_none());
        assert!(scope("For this unit the levy is put at 18,000 EUR.").is_none());
    }

    #[test]
    fn a_figure_given_to_another_party() {
        let mut e = Evidence::default();
        e.add_tool_result(&serde_json::json!({"found": true, "results": [{"chunkId": "policy:commission#sales", "listingId": null,
            "text": "For sales, the commission is split equally between buyer and seller. The buyer's share of the commission (Käuferprovision) is 3.57 percent of the purchase price including VAT."}]}));
        let party = |body: &str| figures(body).iter().find_map(|f| wrong_party(f, body, &e)).map(|(r, _)| r);
        assert!(party("Als Mieter übernehmen Sie einen Anteil von 3,57 Prozent.").is_some_and(|r| r.contains("buyer")));
        assert!(party("Sie als Käufer zahlen 3,57 Prozent des Kaufpreises.").is_none());
        assert!(party("Tenants pay nothing; buyers pay 3.57 percent.").is_none());
        assert!(party("The commission is 3.57 percent.").is_none());
    }
}
