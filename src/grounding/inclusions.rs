//! Which running costs a listing's rent includes, as a reply states it,
//! compared with what the listing's record says of the same cost: heating,
//! electricity, internet and parking.
//!
//! Issue #27: "a keyword-keeping contradiction" passes every word check.
//! "Heating included [HH-1001#s5]. The gas you settle with the supplier
//! directly", "Strom und Internet laufen über eigene Verträge" where the
//! record of K-4001 says "Utilities, heating, electricity and internet are
//! all included in the rent", or "the 95 EUR for it is already accounted
//! for in the cold rent" where M-3002's space costs "an extra 95 EUR" all
//! keep the record's words. The general clause check ([`super::claims`])
//! needs a shared subject word and skips record lists; here each cost has
//! its own words in both languages (gas and heat pumps heat, a carport is
//! parking), a list item takes the status of the clause that ends the list,
//! and a clause that names no cost but repeats the figure of a record's
//! cost clause ("the 95 EUR") is about that cost. Utilities themselves are
//! not read: "the 240 EUR utilities include heating" says the utilities
//! include something, not that they are included.

use std::sync::LazyLock;

use regex::Regex;

use super::evidence::Evidence;
use super::numbers::{numbers, same_value};
use super::polarity::polarity;
use super::wording::{clauses, PARENS, VERB};
use super::FindingKind;
use crate::fold::plain;

/// A clause that opens with a pronoun as its subject ("but that is already
/// covered", "das ist schon drin").
static PRONOUN_SUBJECT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\W*(but |and |aber |und |doch )?(that|this|it|das|dies|diese[rs]?|es|er|sie)\b (is|'s|are|ist|sind|wird|comes|kommt|has|hat)\b")
        .expect("valid pattern")
});

/// A running cost a rent may or may not include.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Cost {
    Heating,
    Electricity,
    Internet,
    Parking,
}

impl Cost {
    pub(super) const ALL: [Cost; 4] = [Cost::Heating, Cost::Electricity, Cost::Internet, Cost::Parking];

    fn name(self) -> &'static str {
        match self {
            Cost::Heating => "heating",
            Cost::Electricity => "electricity",
            Cost::Internet => "internet",
            Cost::Parking => "parking",
        }
    }

    /// The cost's words in folded English and German text.
    pub(super) fn words(self) -> &'static Regex {
        static HEATING: LazyLock<Regex> = LazyLock::new(|| {
            Regex::new(r"\b(heating|heat pump|heiz\w*|die warme|beheizt|gas|gasvertrag\w*|gasversorg\w*|gaslieferant\w*|warmepumpe\w*)\b|\w(heizung|warmepumpe)\b")
                .expect("valid pattern")
        });
        static ELECTRICITY: LazyLock<Regex> = LazyLock::new(|| {
            Regex::new(r"\b(electricity|strom|stroms|stromkosten|stromvertrag\w*|stromanbieter\w*|haushaltsstrom)\b")
                .expect("valid pattern")
        });
        static INTERNET: LazyLock<Regex> = LazyLock::new(|| {
            Regex::new(r"\b(internet\w*|broadband|wi-?fi|wlan|breitband\w*)\b").expect("valid pattern")
        });
        static PARKING: LazyLock<Regex> = LazyLock::new(|| {
            Regex::new(r"\b(parking( space)?|(visitor|guest|parking|underground) (bays?|spaces?|spots?)|car park|carport|garages?|tiefgarage\w*|stellplatz\w*|parkplatz\w*|garagenplatz\w*)\b")
                .expect("valid pattern")
        });
        match self {
            Cost::Heating => &HEATING,
            Cost::Electricity => &ELECTRICITY,
            Cost::Internet => &INTERNET,
            Cost::Parking => &PARKING,
        }
    }
}

/// A cost paid outside the rent without a word of [`super::polarity`]:
/// "you pay it yourself", "kommt noch dazu", "läuft über eigene Verträge",
/// "directly to the supplier".
static SEPARATE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(pay|pays|paid|paying|settle|cover)\b.{0,40}\b(yourself|themselves|on your own)\b|\b(zahlen|zahlt|bezahlen|bezahlt|tragen|tragt|begleichen)\b.{0,30}\b(selbst|selber)\b|\b(selbst|selber)\b.{0,20}\b(zahlen|bezahlen|tragen)\b|\b(kommt|kommen)\b.{0,30}\b(dazu|hinzu|obendrauf)\b|\b(lauft|laufen)\b.{0,20}\buber (eigene|ihren eigenen|einen eigenen)\b|\b(to|with) (the|your) (supplier|provider|utility company|energy company)\b|\b(an|mit|bei) (den|dem|ihren|ihrem|einem) (\w+ ){0,3}(versorger|anbieter|energieversorger|stromanbieter|gasversorger)\b|\bschliess\w* sie (\w+ ){0,4}selbst\b|\byour own (supplier|provider)\b|\beigene[nrms]? \w*(rechnung|vertrag|vertrage|abrechnung)\b|\b(own|separate) \w+ (bill|contract|invoice)\b")
        .expect("valid pattern")
});

/// A pronoun standing for a thing named before it (folded text).
static PRONOUN: LazyLock<Regex> = LazyLock::new(|| {
    // "sie werden … mit abgegolten", "abgerechnet wird sie": "sie" with a
    // plural verb opening the clause, or after a singular verb, stands for
    // the cost before it (the formal "Sie" is never billed).
    Regex::new(
        r"\b(it|them|that|this|es|das|dies\w*)\b|^\W*(aber |und |doch )?sie (werden|sind|laufen|gehen)\b|\bwird sie\b",
    )
    .expect("valid pattern")
});

/// Utilities (Nebenkosten) themselves: an extra said of them is not said of
/// the costs they include.
pub(super) static UTILITIES: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(utilities|utility costs|nk|service charges?|running costs|nebenkosten\w*|betriebskosten\w*)\b")
        .expect("valid pattern")
});

/// A listing id in folded text.
static LISTING: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\b[a-z]{1,2}-\d{4}\b").expect("valid pattern"));

/// A cost paid through an amount of the rent: "mit den 290 EUR
/// vorausbezahlt", "paid for out of the 240 EUR" (folded text).
static PAID_THROUGH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(mit|uber|aus|von) (den|der|diesen|ihren|dem) [\d.,]+ eur\b[^;]{0,25}\b(vorausbezahlt|vorausgezahlt|abgedeckt|abgegolten|mitbezahlt|bezahlt|beglichen|gedeckt|finanziert)\b|\b(paid|prepaid|settled|funded|met) (for )?(in advance )?(with|through|via|out of|from) (the|your|those|that) [\d.,]+ eur\b")
        .expect("valid pattern")
});

/// A cost billed through the utilities: "abgerechnet wird sie über die
/// jährliche Nebenkostenabrechnung", "laufen über die
/// Nebenkostenvorauszahlung mit", "billed through the service charge"
/// (folded text). Billing through the utilities puts the cost in them.
static BILLED_WITH_UTILITIES: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(lauft|laufen|abgerechnet|weiterberechnet|umgelegt|verrechnet|billed|charged|recharged|passed on)\b[^;]{0,60}\b(uber|mit|via|through|with|as part of) (die |der |den |dem |the |your |its )?(\w+ )?(nebenkosten\w*|betriebskosten\w*|utilit\w*|service charges?|utility (bill|statement)s?)\b|\b(uber|via|through|mit) (die |der |den |dem |the |your )?(\w+ )?(nebenkosten\w*|betriebskosten\w*|utilit\w*|service charges?)\b[^;]{0,40}\b(abgerechnet|weiterberechnet|umgelegt|verrechnet|mit|billed|charged)\b")
        .expect("valid pattern")
});

/// A price of nothing: "at no (extra) charge", "free of charge",
/// "kostenlos", "ohne Aufpreis" (folded text).
static FREE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(at no (extra |additional |further )?(charge|cost)|free of charge|for free|no (extra |additional )?charge|kostenlos|kostenfrei|gratis|umsonst|ohne (aufpreis|zusatzkosten|zusatzliche kosten|extrakosten|mehrkosten))\b")
        .expect("valid pattern")
});

/// Whether a clause says the costs it names are in the rent (`Some(true)`),
/// paid apart from it (`Some(false)`), or neither.
pub(super) fn status(folded: &str) -> Option<bool> {
    let p = polarity(folded);
    if p.conditional {
        return None;
    }
    // "comes with the flat at no charge": the "no" of a price of nothing
    // denies the charge, not the inclusion; another denial still flips it.
    if let Some(m) = FREE.find(folded) {
        let rest = format!("{} {}", &folded[..m.start()], &folded[m.end()..]);
        let r = polarity(&rest);
        return Some(!(r.negated || r.included == Some(false)));
    }
    if p.included.is_some() {
        return p.included;
    }
    if PAID_THROUGH.is_match(folded) {
        return Some(!p.negated);
    }
    // "Die Nebenkosten werden über die Nebenkostenabrechnung abgerechnet" is
    // about the utilities themselves, not a cost within them.
    if let Some(m) = BILLED_WITH_UTILITIES.find(folded) {
        if !UTILITIES.is_match(&folded[..m.start()]) {
            return Some(!p.negated);
        }
    }
    SEPARATE.is_match(folded).then_some(p.negated)
}

/// A clause of a few words closed by its denial ("das Internet allerdings
/// nicht", "but not the electricity").
static ELLIPTIC_DENIAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\W*((but |aber |jedoch )?(not|nicht) (the |das |die |der )?\w+( \w+)?|(the |das |die |der )?\w+( \w+)? ((allerdings|aber|jedoch|dagegen|hingegen|however|though) )?(not|nicht))\W*$")
        .expect("valid pattern")
});

/// One statement about one cost: the costs a clause names, with the clause's
/// status, and the figures the clause gives.
struct Said {
    costs: Vec<Cost>,
    folded: String,
    included: Option<bool>,
    figures: Vec<f64>,
}

/// "in that cold rent", "in der Kaltmiete", "im Kaltmietpreis": the amount a
/// clause puts a cost in is the cold rent, which by definition holds no
/// running costs (folded text).
static IN_COLD_RENT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(in|within|into|by|im|in der|in die|in ihrer|durch die|von der)\s+((the|that|this|your|its|der|die|ihrer|dieser) )?([\d.,]+ (eur |euro )?)?((monthly|net|monatliche[nr]?|reine[nr]?) )?(cold rent|net rent|kaltmiete\w*|nettokaltmiete)\b|\bim kaltmietpreis\b")
        .expect("valid pattern")
});

/// The statements of one sentence, clause by clause. A clause without a
/// verb ("Utilities, heating, electricity and internet are all included")
/// is a list item and takes the status of the next clause that has one.
fn read(sentence: &str) -> Vec<Said> {
    // Most sentences say nothing of inclusion: one look at the whole.
    let whole = plain(sentence);
    if polarity(&whole).included.is_none()
        && !SEPARATE.is_match(&whole)
        && !PAID_THROUGH.is_match(&whole)
        && !BILLED_WITH_UTILITIES.is_match(&whole)
        && !FREE.is_match(&whole)
    {
        return vec![];
    }
    let said = |c: &str| {
        let folded = plain(c);
        Said {
            costs: Cost::ALL.into_iter().filter(|k| k.words().is_match(&folded)).collect(),
            included: status(&folded),
            figures: numbers(c),
            folded,
        }
    };
    let mut out: Vec<Said> = vec![];
    for (_, c) in clauses(sentence) {
        // A parenthesised gloss has a status of its own: "290 EUR utilities
        // on top of the rent (heating not included)".
        out.push(said(&PARENS.replace_all(c, " ")));
        out.extend(PARENS.find_iter(c).map(|g| said(g.as_str().trim_matches(['(', ')']))));
    }
    for i in (0..out.len()).rev() {
        if out[i].included.is_none() && !VERB.is_match(&out[i].folded) {
            out[i].included = out.get(i + 1).and_then(|n| n.included);
        }
    }
    // "…, heating and electricity are included, das Internet allerdings nicht":
    // a short clause that only denies takes the opposite of the clause before.
    for i in 1..out.len() {
        let elliptic = out[i].included.is_none()
            && !VERB.is_match(&out[i].folded)
            && ELLIPTIC_DENIAL.is_match(&out[i].folded)
            && !out[i].costs.is_empty();
        if elliptic {
            // "Enthalten sind die Nebenkosten und die Heizung, | Strom | und Internet dagegen
            // nicht": the nearest clause before with a status of its own.
            out[i].included = out[..i].iter().rev().find_map(|s| s.included).map(|v| !v);
            // A bare list item right before the denial ("Strom") is denied with it.
            if i >= 2 && out[i - 1].included.is_none() && !VERB.is_match(&out[i - 1].folded) {
                out[i - 1].included = out[i].included;
            }
        }
    }
    for i in 1..out.len() {
        let folded = out[i].folded.clone();
        // "… heating is included, but you pay it on top of the 240 EUR": the
        // pronoun stands for the cost of the nearest clause before that names one.
        if out[i].costs.is_empty() && PRONOUN.is_match(&folded) {
            out[i].costs =
                out[..i].iter().rev().find(|s| !s.costs.is_empty()).map(|s| s.costs.clone()).unwrap_or_default();
        }
        // "the 240 EUR you pay on top for utilities take care of the heating":
        // the extra is the utilities', not the heating's.
        if out[i].included == Some(false) && UTILITIES.is_match(&folded) {
            out[i].costs.clear();
        }
    }
    if out.first().is_some_and(|s| s.included == Some(false) && UTILITIES.is_match(&s.folded)) {
        out[0].costs.clear();
    }
    out
}

/// A cost the record of a listing says is included or separate.
pub(super) struct Record {
    listing: String,
    cost: Cost,
    included: bool,
    /// The record puts the cost in the utilities ("Utilities … are an
    /// additional 240 EUR per month, heating included").
    in_utilities: bool,
    figures: Vec<f64>,
    source: String,
}

/// What the description sentences of the listings in the evidence say of
/// each cost.
fn records(evidence: &Evidence) -> Vec<Record> {
    let mut out = vec![];
    for p in evidence.passages.iter().filter(|p| p.source.contains("#s")) {
        let Some(listing) = &p.listing else { continue };
        for said in read(&p.text) {
            let Some(included) = said.included else { continue };
            for cost in said.costs {
                out.push(Record {
                    listing: listing.clone(),
                    cost,
                    included,
                    in_utilities: included && UTILITIES.is_match(&plain(&p.text)),
                    figures: said.figures.clone(),
                    source: p.source.clone(),
                });
            }
        }
    }
    out
}

/// Cost statements of a claim sentence (`body`: without citations) against
/// the record of the listing they are about: the one a clause names, else
/// the listings in `scope`. A clause that names no cost but gives the
/// figure of a record's cost clause is about that cost. A statement that
/// every such record contradicts is a contradiction; with no record of the
/// cost there is nothing to check. `cache` keeps the records for the reply's
/// other sentences.
pub(super) fn check_inclusions(
    body: &str,
    scope: &[String],
    evidence: &Evidence,
    cache: &std::cell::OnceCell<Vec<Record>>,
    push: &mut impl FnMut(FindingKind, String, Option<String>),
) {
    let said = read(body);
    if said.iter().all(|s| s.included.is_none()) {
        return;
    }
    let records = cache.get_or_init(|| records(evidence));
    if records.is_empty() {
        return;
    }
    let mut about: Vec<String> = scope.to_vec();
    let mut previous: Vec<Cost> = vec![];
    for s in said {
        let named: Vec<String> = LISTING.find_iter(&s.folded).map(|m| m.as_str().to_uppercase()).collect();
        if !named.is_empty() {
            about = named;
        }
        about.sort();
        about.dedup();
        let in_scope = |r: &&Record| about.is_empty() || about.contains(&r.listing);
        let mut costs: Vec<Cost> = if s.costs.is_empty() {
            records
                .iter()
                .filter(in_scope)
                .filter(|r| r.figures.iter().any(|f| s.figures.iter().any(|g| same_value(*f, *g))))
                .map(|r| r.cost)
                .collect()
        } else {
            s.costs.clone()
        };
        // "It's an extra 95 EUR, but that is already covered by the cold rent":
        // a clause whose subject is a pronoun speaks of the previous clause's cost.
        if costs.is_empty() && PRONOUN_SUBJECT.is_match(&s.folded) {
            costs = previous.clone();
        }
        if !costs.is_empty() {
            previous = costs.clone();
        }
        let Some(included) = s.included else { continue };
        for cost in costs {
            let relevant: Vec<&Record> = records.iter().filter(in_scope).filter(|r| r.cost == cost).collect();
            let listings = {
                let mut l: Vec<&str> = relevant.iter().map(|r| r.listing.as_str()).collect();
                l.dedup();
                l.len()
            };
            // Several listings in scope and a record for only some: the
            // statement may be about one the evidence says nothing of.
            if relevant.is_empty() || (about.len() > 1 && listings < about.len()) {
                continue;
            }
            // "heating is included in that cold rent" where the record puts it in
            // the utilities: included, but in the wrong amount.
            let in_cold_rent = included && cost != Cost::Parking && IN_COLD_RENT.is_match(&s.folded);
            if in_cold_rent && relevant.iter().all(|r| r.in_utilities) {
                let r = relevant[0];
                push(
                    FindingKind::Contradicted,
                    format!(
                        "says {} is included in the cold rent at {}; the record puts it in the utilities [{}]",
                        cost.name(),
                        r.listing,
                        r.source
                    ),
                    Some(r.source.clone()),
                );
                return;
            }
            if relevant.iter().any(|r| r.included == included) {
                continue;
            }
            let r = relevant[0];
            let word = |i: bool| if i { "included in the rent" } else { "paid separately" };
            push(
                FindingKind::Contradicted,
                format!(
                    "says {} is {} at {}; the record says {} [{}]",
                    cost.name(),
                    word(included),
                    r.listing,
                    word(r.included),
                    r.source
                ),
                Some(r.source.clone()),
            );
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn statuses(sentence: &str) -> Vec<(Vec<Cost>, Option<bool>)> {
        read(sentence).into_iter().filter(|s| !s.costs.is_empty()).map(|s| (s.costs, s.included)).collect()
    }

    #[test]
    fn the_records_wordings() {
        use Cost::*;
        assert_eq!(
            statuses("Utilities (Nebenkosten) are an additional 240 EUR per month, heating included."),
            [(vec![Heating], Some(true))]
        );
        assert_eq!(
            statuses("Utilities (Nebenkosten) are an additional 290 EUR per month, heating not included."),
            [(vec![Heating], Some(false))]
        );
        assert_eq!(
            statuses("Utilities, heating, electricity and internet are all included in the rent."),
            [(vec![Heating], Some(true)), (vec![Electricity], Some(true)), (vec![Internet], Some(true))]
        );
        assert_eq!(
            statuses("A parking space in the underground car park is available for an extra 95 EUR per month."),
            [(vec![Parking], Some(false))]
        );
        assert_eq!(statuses("A carport for two cars is included in the rent."), [(vec![Parking], Some(true))]);
    }

    #[test]
    fn replies_in_both_languages() {
        use Cost::*;
        assert_eq!(
            statuses("Nebenkosten und Heizung sind darin enthalten, Strom und Internet laufen über eigene Verträge."),
            [(vec![Heating], Some(true)), (vec![Electricity], Some(false)), (vec![Internet], Some(false))]
        );
        assert_eq!(statuses("The gas itself you pay yourself."), [(vec![Heating], Some(false))]);
        assert_eq!(statuses("You won't pay anything on top for the heating."), [(vec![Heating], Some(true))]);
        assert_eq!(
            statuses("On top of the rent come 290 EUR utilities (heating not included), while the carport is part of the rent."),
            [(vec![Heating], Some(false)), (vec![Parking], Some(true))]
        );
        assert_eq!(
            statuses(
                "Heating is included in the utilities list, but as its own item: you pay it on top of the 240 EUR."
            ),
            [(vec![Heating], Some(true)), (vec![Heating], Some(false))]
        );
        assert_eq!(
            statuses("The 240 EUR you pay on top for utilities covers the heating."),
            [(vec![Heating], Some(true))]
        );
        assert_eq!(statuses("Eine eigene Heizkostenrechnung bekommen Sie nicht."), [(vec![Heating], Some(true))]);
        assert_eq!(statuses("Den Strom zahlen Sie direkt an den Versorger."), [(vec![Electricity], Some(false))]);
        assert_eq!(statuses("One parking space comes with the flat at no charge."), [(vec![Parking], Some(true))]);
        assert_eq!(statuses("Tenants can use the visitor bays free of charge."), [(vec![Parking], Some(true))]);
        assert_eq!(statuses("Der Stellplatz ist nicht kostenlos."), [(vec![Parking], Some(false))]);
        // A heating system named without a word on its cost says nothing.
        assert!(statuses("The building is heated by gas central heating.").is_empty());
    }

    #[test]
    fn a_pronoun_subject_speaks_of_the_previous_clauses_cost() {
        let mut e = Evidence::default();
        e.add_tool_result(&serde_json::json!({"id": "M-3002", "description": "A parking space in the underground car park is available for an extra 95 EUR per month."}));
        let findings = |body: &str| {
            let mut n = 0;
            check_inclusions(body, &["M-3002".to_owned()], &e, &std::cell::OnceCell::new(), &mut |_, _, _| n += 1);
            n
        };
        assert_eq!(
            findings("Parking is listed at an extra 95 EUR per month, but that is already covered by the cold rent."),
            1
        );
        assert_eq!(findings("Parking is listed at an extra 95 EUR per month, and that is on top of the cold rent."), 0);
    }

    #[test]
    fn heating_in_the_cold_rent_is_not_heating_in_the_utilities() {
        let mut e = Evidence::default();
        e.add_tool_result(&serde_json::json!({"id": "HH-1001", "description": "The cold rent (Kaltmiete) is 1,650 EUR per month. Utilities (Nebenkosten) are an additional 240 EUR per month, heating included."}));
        let findings = |body: &str| {
            let mut n = 0;
            check_inclusions(body, &["HH-1001".to_owned()], &e, &std::cell::OnceCell::new(), &mut |_, _, _| n += 1);
            n
        };
        assert_eq!(
            findings("The good news is that heating is included in that cold rent, and the utilities come on top."),
            1
        );
        assert_eq!(findings("Die Heizung ist bereits in der Kaltmiete enthalten."), 1);
        assert_eq!(findings("Heating: already included in that 1,650 EUR cold rent."), 1);
        assert_eq!(findings("Heating is already covered by this cold rent."), 1);
        assert_eq!(findings("Heating is included in the 240 EUR utilities, which come on top of the cold rent."), 0);
        assert_eq!(findings("Heating is included."), 0);
    }

    #[test]
    fn heating_paid_through_the_utilities_is_included() {
        let mut e = Evidence::default();
        e.add_tool_result(&serde_json::json!({"id": "HH-1003", "description": "Utilities (Nebenkosten) are an additional 290 EUR per month, heating not included."}));
        let findings = |body: &str| {
            let mut n = 0;
            check_inclusions(body, &["HH-1003".to_owned()], &e, &std::cell::OnceCell::new(), &mut |_, _, _| n += 1);
            n
        };
        assert_eq!(findings("Die Kosten der Wärmepumpe werden deshalb mit den 290 EUR vorausbezahlt."), 1);
        assert_eq!(findings("The heating is paid for out of the 290 EUR."), 1);
        assert_eq!(findings("Die Kosten der Wärmepumpe werden nicht mit den 290 EUR vorausbezahlt."), 0);
        assert_eq!(
            findings("Abgerechnet wird die Heizung über die jährliche Nebenkostenabrechnung des Vermieters."),
            1
        );
        assert_eq!(findings("Die Heizkosten laufen dagegen über die Nebenkostenvorauszahlung mit."), 1);
        assert_eq!(
            findings("Die Heizkosten sind nicht als eigener Posten ausgewiesen – sie werden über die 290 EUR bereits mit abgegolten."),
            1
        );
        assert_eq!(findings("Die Heizung läuft nicht über die Nebenkosten."), 0);
        assert_eq!(findings("Die Nebenkosten werden einmal im Jahr über die Nebenkostenabrechnung abgerechnet."), 0);
    }

    #[test]
    fn a_clause_that_only_denies_takes_the_opposite_of_the_one_before() {
        let mut e = Evidence::default();
        e.add_tool_result(&serde_json::json!({"id": "K-4001", "description": "The rent is an all-inclusive rent (Warmmiete, also Pauschalmiete) of 1,350 EUR per month. Utilities, heating, electricity and internet are all included in the rent."}));
        let findings = |body: &str| {
            let mut n = 0;
            check_inclusions(body, &["K-4001".to_owned()], &e, &std::cell::OnceCell::new(), &mut |_, _, _| n += 1);
            n
        };
        assert_eq!(findings("Heizung, Strom und die übrigen Nebenkosten sind in der Pauschale enthalten, das Internet allerdings nicht."), 1);
        assert_eq!(
            findings("Heizung, Strom, Internet und die übrigen Nebenkosten sind in der Pauschale enthalten."),
            0
        );
    }
}
