//! What a reply says a listing has, against the listing's record: its
//! features (lift, balcony, garden, cellar, parking …), the date it is
//! available from and its energy class.
//!
//! Issue #27: "an invented fact beside correct ones" passes every word
//! check when the invented fact uses the catalogue's own words ("It does
//! have a balcony", "available from March", "energy class A"). A record's
//! `features` list and description say what a listing has; a feature
//! neither names is unsupported, one the reply denies but the list names is
//! a contradiction. A date or class that differs from the record's
//! `availableFrom` or `energyClass` is a contradiction. Nothing is checked
//! for a listing whose record is not in the evidence (a search summary
//! without its features says nothing either way), and a figure the customer
//! wrote is theirs.

use std::sync::LazyLock;

use regex::Regex;

use super::evidence::Evidence;
use super::polarity::polarity;
use super::wording::clauses;
use super::FindingKind;
use crate::fold::plain;

/// A feature's words (folded text) and the record keys that mean it.
struct Feature {
    name: &'static str,
    keys: &'static [&'static str],
    words: Regex,
}

fn feature(name: &'static str, keys: &'static [&'static str], words: &str) -> Feature {
    Feature { name, keys, words: Regex::new(words).expect("valid pattern") }
}

/// The catalogue's feature keys (`data/listings.json`) and how replies name
/// them in English and German. A loggia counts as a balcony and a garage as
/// parking, as the catalogue's glossary does.
static FEATURES: LazyLock<Vec<Feature>> = LazyLock::new(|| {
    vec![
        feature("a lift", &["lift"], r"\b(lifts?|elevators?|aufzug\w*|fahrstuhl\w*|personenaufzug)\b"),
        feature("a balcony", &["balcony", "loggia"], r"\b(balcon(y|ies)|balkon\w*|loggia\w*)\b"),
        feature("a garden", &["garden"], r"\b(gardens?|garten|gartens|gartenanteil|gartennutzung|privatgarten)\b"),
        feature("a terrace", &["terrace"], r"\b(terraces?|terrasse|dachterrasse)\b"),
        feature("a cellar", &["cellar"], r"\b(cellar|basement|keller|kellerabteil|kellerraum)\b"),
        feature(
            "a fitted kitchen",
            &["fitted-kitchen"],
            r"\b(fitted kitchen|built-in kitchen|einbaukuche|einbaukuchen)\b",
        ),
        feature("a bathtub", &["bathtub"], r"\b(bath ?tubs?|badewanne)\b"),
        feature("a guest WC", &["guest-wc"], r"\b(guest (wc|toilet|bathroom)|gaste-?wc|gaste-?toilette)\b"),
        feature(
            "parking",
            &["parking", "garage"],
            r"\b(parking|car park|stellplatz\w*|parkplatz\w*|tiefgarage\w*|underground garage|garages?|carport)\b",
        ),
        feature("furniture", &["furnished"], r"\b(furnished|mobliert|moblierte[nmrs]?|teilmobliert)\b"),
        feature(
            "bicycle storage",
            &["bicycle-storage"],
            r"\b(bicycle (storage|room|cellar|shed)|bike (room|storage|shed)|fahrradkeller|fahrradraum|fahrradabstell\w*)\b",
        ),
        feature("underfloor heating", &["underfloor-heating"], r"\b(underfloor heating|fussbodenheizung)\b"),
        // No record lists a connection: a reply that says the record has one invents it.
        feature(
            "an internet connection",
            &["internet", "broadband", "fibre", "cable"],
            r"\b(cable (internet|connection|tv|socket)|fibre|fiber|glasfaser\w*|kabelanschluss\w*|kabel-?internet|broadband connection|dsl)\b",
        ),
    ]
});

static LISTING: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\b[a-z]{1,2}-\d{4}\b").expect("valid pattern"));

/// A question, a wish or a search criterion: "whether it has a lift",
/// "you are looking for a balcony".
static NOT_A_CLAIM: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(looking for|you (want|wanted|need|asked|mentioned|prefer)|wish|wunsch\w*|suchen|gesucht|mochten|wollten|brauchen|wichtig|important)\b")
        .expect("valid pattern")
});

/// Words of price and payment: a negation beside them is about the cost.
static COSTS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(free|kostenlos|kostenfrei|gratis|pay|paid|cost\w*|price|eur|euro|rent\w*|miete\w*|zahlen|gebuhr\w*|fee|fees|charge\w*)\b")
        .expect("valid pattern")
});

const MONTHS: &[(&str, u32)] = &[
    ("january", 1),
    ("januar", 1),
    ("jan", 1),
    ("february", 2),
    ("februar", 2),
    ("feb", 2),
    ("march", 3),
    ("marz", 3),
    ("april", 4),
    ("may", 5),
    ("mai", 5),
    ("june", 6),
    ("juni", 6),
    ("july", 7),
    ("juli", 7),
    ("august", 8),
    ("september", 9),
    ("sept", 9),
    ("october", 10),
    ("oktober", 10),
    ("november", 11),
    ("december", 12),
    ("dezember", 12),
];

/// Availability words: the clause says when the listing can be moved into.
static AVAILABLE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(available|availability|vacant|free from|move in|moving in|verfugbar\w*|frei|bezugsfrei|beziehbar|bezug|einzug\w*|einziehen|ziehen sie)\b")
        .expect("valid pattern")
});

/// A month, by name ("1 March 2027", "1. März") or in numbers ("01.03.2027",
/// "2027-03-01"), with its year when given.
static DATE: LazyLock<Regex> = LazyLock::new(|| {
    let names = MONTHS.iter().map(|(n, _)| *n).collect::<Vec<_>>().join("|");
    Regex::new(&format!(
        r"\b(?P<name>{names})\b\.?(?:\s+(?P<y1>20\d\d))?|\b(?P<d>\d{{1,2}})\.(?P<m>\d{{1,2}})\.(?P<y2>20\d\d|\d\d)?|\b(?P<y3>20\d\d)-(?P<m3>\d\d)-\d\d\b"
    ))
    .expect("valid pattern")
});

static ENERGY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(?:energy (?:efficiency )?(?:class|rating|label)|energieeffizienzklasse|energieklasse|effizienzklasse)\s*(?:is|of|:|ist|von|der klasse)?\s*(?P<c>[a-h]\+{0,3})(?:\s|$|[.,;)])")
        .expect("valid pattern")
});

/// The months (and years) a text names.
fn months(text: &str) -> Vec<(u32, Option<i32>)> {
    DATE.captures_iter(text)
        .filter_map(|c| {
            if let Some(n) = c.name("name") {
                // "may" is also a verb: only a day or a year beside it makes it the month.
                if n.as_str() == "may" && c.name("y1").is_none() {
                    return None;
                }
                let m = MONTHS.iter().find(|(w, _)| *w == n.as_str())?.1;
                return Some((m, c.name("y1").and_then(|y| y.as_str().parse().ok())));
            }
            if let Some(m) = c.name("m") {
                let m: u32 = m.as_str().parse().ok()?;
                let y =
                    c.name("y2")
                        .and_then(|y| y.as_str().parse::<i32>().ok())
                        .map(|y| if y < 100 { 2000 + y } else { y });
                return (1..=12).contains(&m).then_some((m, y));
            }
            let y = c.name("y3")?.as_str().parse().ok()?;
            let m = c.name("m3")?.as_str().parse().ok()?;
            Some((m, Some(y)))
        })
        .collect()
}

/// One listing's record fields as the evidence holds them.
#[derive(Default)]
struct Record {
    features: Option<(Vec<String>, String)>,
    description: Vec<String>,
    available: Option<(u32, i32, String)>,
    energy: Option<(String, String)>,
}

fn record(evidence: &Evidence, listing: &str) -> Record {
    let mut r = Record::default();
    for p in evidence.passages.iter().filter(|p| p.listing.as_deref() == Some(listing)) {
        let Some((_, key)) = p.source.rsplit_once('.').filter(|(_, k)| !k.contains('#')) else {
            if p.source.contains('#') {
                r.description.push(plain(&p.text));
            }
            continue;
        };
        let value = p.text.split_once(": ").map_or(p.text.as_str(), |(_, v)| v).trim();
        match key {
            "features" => {
                let keys = value.split(", ").map(|k| k.replace(' ', "-")).collect();
                r.features = Some((keys, p.source.clone()));
            }
            "availableFrom" => {
                let mut parts = value.split('-');
                let y = parts.next().and_then(|y| y.parse().ok());
                let m = parts.next().and_then(|m| m.parse().ok());
                if let (Some(y), Some(m)) = (y, m) {
                    r.available = Some((m, y, p.source.clone()));
                }
            }
            "energyClass" => r.energy = Some((value.to_lowercase(), p.source.clone())),
            _ => {}
        }
    }
    r
}

/// A feature put in by a pronoun ("one was put in", "einer wurde
/// nachgerüstet"), folded text.
static INSTALLED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(one|it|einer|einen|eins|er)\b.{0,30}\b(put in|added|installed|fitted|retrofitted|built in|eingebaut|nachgerustet|installiert|nachtraglich eingebaut)\b")
        .expect("valid pattern")
});

/// Dates (a day or year with a month) that no tool result and no customer
/// message names: "jeweils zum 1. Juli" where the records say 1 January.
pub(super) fn check_dates(
    body: &str,
    evidence: &Evidence,
    customer: &str,
    push: &mut impl FnMut(FindingKind, String, Option<String>),
) {
    let stated: Vec<u32> = DATED.captures_iter(&plain(body)).filter_map(|c| month_of(&c)).collect();
    if stated.is_empty() || evidence.passages.is_empty() {
        return;
    }
    let known: Vec<u32> = evidence
        .passages
        .iter()
        .flat_map(|p| months(&plain(&p.text)).into_iter().map(|(m, _)| m))
        .chain(months(customer).into_iter().map(|(m, _)| m))
        .collect();
    if let Some(m) = stated.iter().find(|m| !known.contains(m)) {
        let name = MONTHS.iter().find(|(_, n)| n == m).map_or("", |(w, _)| *w);
        push(FindingKind::Unsupported, format!("names a date in {name} that no tool result gives"), None);
    }
}

/// A month with a day before it ("1. Juli", "1 July") or a year after it.
pub(super) static DATED: LazyLock<Regex> = LazyLock::new(|| {
    let names = MONTHS.iter().filter(|(n, _)| n.len() > 3).map(|(n, _)| *n).collect::<Vec<_>>().join("|");
    Regex::new(&format!(r"\b\d{{1,2}}(?:st|nd|rd|th|\.)?\s+(?P<a>{names})\b|\b(?P<b>{names})\s+(?:\d{{1,2}}(?:st|nd|rd|th)?,?\s+)?20\d\d\b"))
        .expect("valid pattern")
});

pub(super) fn month_of(c: &regex::Captures<'_>) -> Option<u32> {
    let n = c.name("a").or_else(|| c.name("b"))?.as_str();
    MONTHS.iter().find(|(w, _)| *w == n).map(|(_, m)| *m)
}

/// Listing facts of a claim sentence (`body`: without citations) against
/// the records of the listings it is about: those a clause names, else
/// those in `scope` (named in this or an earlier sentence). `customer`: the
/// customer's messages, folded (their dates are theirs).
pub(super) fn check_listing_facts(
    body: &str,
    scope: &[String],
    evidence: &Evidence,
    customer: &str,
    push: &mut impl FnMut(FindingKind, String, Option<String>),
) {
    let folded = plain(body);
    let names_feature = FEATURES.iter().any(|f| f.words.is_match(&folded));
    if !names_feature && !AVAILABLE.is_match(&folded) && !ENERGY.is_match(&folded) {
        return;
    }
    // General explanations cite a policy ("the utilities cover the lift's
    // upkeep"): a feature a policy passage names is read only beside a listing id.
    let policy_texts: std::cell::OnceCell<Vec<String>> = std::cell::OnceCell::new();
    let in_policy = |f: &Feature| {
        policy_texts
            .get_or_init(|| evidence.passages.iter().filter(|p| p.listing.is_none()).map(|p| plain(&p.text)).collect())
            .iter()
            .any(|t| f.words.is_match(t))
    };
    let mut cache: Vec<(String, std::rc::Rc<Record>)> = vec![];
    let mut record_of = |l: &String| -> std::rc::Rc<Record> {
        if let Some((_, r)) = cache.iter().find(|(k, _)| k == l) {
            return r.clone();
        }
        let r = std::rc::Rc::new(record(evidence, l));
        cache.push((l.clone(), r.clone()));
        r
    };
    let mut about: Vec<String> = scope.to_vec();
    let mut last_named: Vec<&Feature> = vec![];
    for (_, c) in clauses(&folded) {
        let named: Vec<String> = LISTING.find_iter(c).map(|m| m.as_str().to_uppercase()).collect();
        if !named.is_empty() {
            about = named.clone();
        }
        about.sort();
        about.dedup();
        if about.is_empty() || NOT_A_CLAIM.is_match(c) {
            continue;
        }
        let p = polarity(c);
        if p.conditional {
            continue;
        }
        let records: Vec<(String, std::rc::Rc<Record>)> = about.iter().map(|l| (l.clone(), record_of(l))).collect();
        let mut named_here: Vec<&Feature> = FEATURES.iter().filter(|f| f.words.is_match(c)).collect();
        // "no lift was planned, but one was put in in 2021": the feature of the
        // clause before, installed in this one.
        if named_here.is_empty() && INSTALLED.is_match(c) {
            named_here.extend(last_named.iter().copied());
        }
        if !named_here.is_empty() {
            last_named = named_here.clone();
        }
        for f in named_here {
            if named.is_empty() && in_policy(f) {
                continue;
            }
            let has = |r: &Record| {
                r.features.as_ref().is_some_and(|(keys, _)| keys.iter().any(|k| f.keys.contains(&k.as_str())))
                    // "The building has no lift" names the lift without having one.
                    || r.description.iter().any(|d| f.words.is_match(d) && !polarity(d).negated)
            };
            let checked: Vec<&(String, std::rc::Rc<Record>)> =
                records.iter().filter(|(_, r)| r.features.is_some()).collect();
            // Several listings and not all of their records in the evidence: unknown.
            if checked.is_empty() || checked.len() < records.len() {
                continue;
            }
            if !p.negated && !checked.iter().any(|(_, r)| has(r)) {
                let (listing, r) = checked[0];
                let source = r.features.as_ref().map(|(_, s)| s.clone());
                push(
                    FindingKind::Unsupported,
                    format!("says {listing} has {}; its record does not list it", f.name),
                    source,
                );
                return;
            }
            let listed = |r: &Record| {
                r.features.as_ref().is_some_and(|(keys, _)| keys.iter().any(|k| f.keys.contains(&k.as_str())))
            };
            // "doesn't come with free parking", "won't pay anything on top
            // for parking" deny a price, not the feature.
            if p.negated && p.included.is_none() && !COSTS.is_match(c) && checked.iter().all(|(_, r)| listed(r)) {
                let (listing, r) = checked[0];
                let source = r.features.as_ref().map(|(_, s)| s.clone());
                push(
                    FindingKind::Contradicted,
                    format!("says {listing} has no {}; its record lists it", f.name.trim_start_matches("a ")),
                    source,
                );
                return;
            }
        }
        if p.negated {
            continue;
        }
        if AVAILABLE.is_match(c) {
            let customer_months = months(customer);
            for (m, y) in months(c) {
                if customer_months.iter().any(|(cm, _)| *cm == m) {
                    continue;
                }
                let dated: Vec<&(u32, i32, String)> =
                    records.iter().filter_map(|(_, r)| r.available.as_ref()).collect();
                if dated.is_empty() || dated.len() < records.len() {
                    continue;
                }
                if !dated.iter().any(|(rm, ry, _)| *rm == m && y.is_none_or(|y| y == *ry)) {
                    let (rm, ry, source) = dated[0];
                    push(
                        FindingKind::Contradicted,
                        format!(
                            "gives an availability date the record does not: the record says {ry}-{rm:02} [{source}]"
                        ),
                        Some(source.clone()),
                    );
                    return;
                }
            }
        }
        if let Some(class) = ENERGY.captures(c).and_then(|e| e.name("c").map(|m| m.as_str().to_owned())) {
            let classes: Vec<&(String, String)> = records.iter().filter_map(|(_, r)| r.energy.as_ref()).collect();
            if !classes.is_empty() && classes.len() == records.len() && !classes.iter().any(|(rc, _)| *rc == class) {
                let (rc, source) = classes[0];
                push(
                    FindingKind::Contradicted,
                    format!(
                        "gives energy class {} where the record says {} [{source}]",
                        class.to_uppercase(),
                        rc.to_uppercase()
                    ),
                    Some(source.clone()),
                );
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn findings(body: &str, customer: &str) -> Vec<(FindingKind, String)> {
        let mut e = Evidence::default();
        e.add_tool_result(&serde_json::json!({"id": "M-3002", "description": "A bright flat. A space in the underground car park can be rented for 95 EUR per month.",
            "features": ["loggia", "lift", "parking"], "availableFrom": "2027-01-01", "energyClass": "A"}));
        e.add_tool_result(&serde_json::json!({"found": true, "results": [{"chunkId": "policy:utilities#what-they-cover", "listingId": null,
            "text": "Utilities cover heating, water and the upkeep of a lift or garden."}]}));
        let mut out = vec![];
        check_listing_facts(body, &["M-3002".to_owned()], &e, &plain(customer), &mut |k, r, _| out.push((k, r)));
        out
    }

    #[test]
    fn features_dates_and_classes_against_the_record() {
        use FindingKind::*;
        assert!(findings("M-3002 has a loggia and a lift.", "").is_empty());
        assert!(findings("Die Wohnung hat einen Balkon.", "").is_empty(), "a loggia counts as a balcony");
        assert_eq!(findings("M-3002 also has a small garden.", "")[0].0, Unsupported);
        assert_eq!(findings("Die Wohnung ist möbliert.", "")[0].0, Unsupported);
        assert_eq!(findings("M-3002 has no lift.", "")[0].0, Contradicted);
        assert!(findings("M-3002 doesn't come with free parking.", "").is_empty(), "a price denied");
        assert!(findings("M-3002 has no garden.", "").is_empty());
        // A feature put in by a pronoun in the clause after its denial.
        assert_eq!(findings("M-3002 had no cellar at first, but one was added in 2021.", "")[0].0, Unsupported);
        assert!(findings("M-3002 has no cellar, and none is planned.", "").is_empty());
        assert_eq!(findings("It is available from 1 March 2027.", "")[0].0, Contradicted);
        assert!(findings("It is available from 1 January 2027.", "").is_empty());
        assert!(findings("You wanted to move in by March.", "I want to move in by March").is_empty());
        assert_eq!(findings("Die Energieeffizienzklasse ist C.", "")[0].0, Contradicted);
        assert!(findings("It has energy class A.", "").is_empty());
        // A feature a policy names is read only beside a listing id.
        assert!(findings("Utilities cover the upkeep of a garden.", "").is_empty());
        // No record lists a connection type.
        assert_eq!(findings("The record notes a cable internet connection in the flat.", "")[0].0, Unsupported);
        assert!(findings("The record doesn't say whether there is fibre.", "").is_empty());
        assert!(findings("The listing says nothing about the internet connection.", "").is_empty());
    }

    #[test]
    fn a_date_no_tool_result_gives_is_unsupported() {
        let mut e = Evidence::default();
        e.add_tool_result(&serde_json::json!({"id": "B-2001", "description": "Graduated rent: the rent rises by 3.5 percent on 1 January every year."}));
        let dates = |body: &str, customer: &str| {
            let mut out = vec![];
            check_dates(body, &e, &plain(customer), &mut |k, r, _| out.push((k, r)));
            out
        };
        assert!(dates("Die Miete steigt jeweils zum 1. Januar um 3,5 Prozent.", "").is_empty());
        assert_eq!(dates("Die Miete steigt jeweils zum 1. Juli um 3,5 Prozent.", "")[0].0, FindingKind::Unsupported);
        assert!(dates("You want to move in on 1 July.", "I want to move in on 1 July").is_empty());
        assert!(dates("You may move in whenever it suits you.", "").is_empty());
    }

    #[test]
    fn months_by_name_and_in_numbers() {
        assert_eq!(months("available from 1 march 2027"), [(3, Some(2027))]);
        assert_eq!(months("frei ab dem 1. marz"), [(3, None)]);
        assert_eq!(months("ab 01.03.2027 bezugsfrei"), [(3, Some(2027))]);
        assert_eq!(months("availablefrom: 2027-01-15"), [(1, Some(2027))]);
        assert!(months("you may move in").is_empty());
    }

    #[test]
    fn feature_words_in_both_languages() {
        let named = |text: &str| -> Vec<&str> {
            FEATURES.iter().filter(|f| f.words.is_match(&plain(text))).map(|f| f.name).collect()
        };
        assert_eq!(named("Das Haus hat einen Fahrstuhl"), ["a lift"]);
        assert_eq!(named("mit Einbauküche und Gäste-WC"), ["a fitted kitchen", "a guest WC"]);
        assert_eq!(named("a loggia facing south"), ["a balcony"]);
        assert_eq!(named("ein Stellplatz in der Tiefgarage"), ["parking"]);
        assert_eq!(named("Die Wohnung ist möbliert"), ["furniture"]);
        assert!(named("Die Wohnung ist unmöbliert").is_empty());
        assert!(named("ein Fahrradkeller").iter().all(|n| *n == "bicycle storage"));
    }
}
