//! What an inquiry asks for: listing ids, search criteria (city, price limit,
//! rooms, pets, offer and property type), hand-off intents and the clauses
//! that ask about a fact. Rules over folded text, never phrases from cases.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use regex::Regex;

use super::language::detect_language;
pub(super) use super::words::*;
use crate::agent::numbers::parse_number;
use crate::fold::fold;
use crate::golden::Lang;
use crate::handoff::HandoffReason;

pub(super) static LISTING_ID: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\b([a-z]{1,2})-?(\d{4})\b").expect("valid pattern"));
pub(super) static PRICE_LIMIT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?ix)\b(?:under|below|less\s+than|up\s+to|max(?:imum)?|at\s+most|no\s+more\s+than|within|bis(?:\s+zu)?|unter|unterhalb\s+von|hochstens|maximal|nicht\s+mehr\s+als)\s*(?:euros?|eur|€)?\s*(\d[\d.,]*)\s*(k\b|tsd\b|tausend\b)?")
        .expect("valid pattern")
});
pub(super) static ROOMS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(\d(?:[.,]5)?)\s*-?\s*(?:rooms?|room\s+flat|zimmer|zi\b)").expect("valid pattern")
});

/// Intent patterns over folded text (see [`crate::fold::fold`]: `ü`→`u`,
/// `ä`/`ae`→`a`, …). One ticket per matched reason.
pub(super) static INTENTS: LazyLock<Vec<(HandoffReason, Regex)>> = LazyLock::new(|| {
    // Patterns run over folded text, so they are folded too ("anschauen" is
    // matched as "anschaun", "request" as "requst").
    let r = |p: &str| Regex::new(&crate::fold::collapse_pairs(p)).expect("valid pattern");
    vec![
        (
            HandoffReason::ViewingRequest,
            r(
                r"\b((can|could|may|might|would\s+like\s+to|want\s+to|like\s+to|i.?d\s+like\s+to|love\s+to|hoping\s+to|able\s+to)\s+(i\s+|we\s+)?(please\s+)?((come|drop\s+by)\s+(and|to)\s+)?(view|see|visit|look\s+at|take\s+a\s+look|come\s+(by|round))|(arrange|book|schedule|set\s+up|request|get|organi[sz]e)\s+(a\s+|an\s+)?(viewing|visit|appointment)|(arrange|book|schedule|set\s+up)\s+(a\s+time\s+)?to\s+(see|view|visit)|viewing\s+(on|at|this|next|tomorrow|sorted|arranged|booked|scheduled)|(come|drop\s+by)\s+(and|to)\s+see|(be\s+)?(shown|show\s+(me|us))\s+(a)?round|(einen|ein|nachsten|neuen)\s+besichtigungstermin\w*|besichtigungstermin\w*\s+(am|fur|um|vereinbaren|ausmachen|bekommen|buchen)|termin\s+zur\s+besichtigung|(fur|zu)\s+(eine|einer)\s+besichtigung|besichtigung\w*\s+(\w+\s+){0,3}(vereinbaren|ausmachen|buchen|anfragen|arrangieren|eintragen)|besichtigung\s+(am|um|nachste|diese|morgen)|(kann|konnte|darf|mochte|mochten|wurde|wurden|will|wollen|konnen)\b.{0,80}\b(besichtig\w*|ansehen|anschauen|anzusehen|anzuschauen|vorbeikommen))\b",
            ),
        ),
        (
            HandoffReason::PriceNegotiation,
            r(
                r"\b(negotia\w*|discount|bargain|haggl\w*|verhandl\w*|verhandel\w*|rabatt|preisnachlass|nachlass|entgegenkomm\w*|sonderpreis|better\s+(price|deal|offer)|come\s+down|go\s+down|(lower|reduce|reduced|drop)\s+(the\s+|your\s+)?(price|rent|asking)|(price|rent|miete|preis|kaufpreis)\s+(\w+\s+){0,3}(lower|reduced|senken|reduzier\w*|runter|nachgeben)|would\b.{0,50}\b(accept|take|consider|agree\s+to)\b|(a\s+(little|bit)|slightly|somewhat|etwas|bisschen)\s+(less|lower|cheaper|weniger|gunstiger|niedriger)|(less|lower|cheaper)\s+(rent|price)|(offer|bieten|biete)\s+(you\s+)?(€\s*)?\d|(wurde|wurden|ware|waren)\s+.{0,90}(akzeptieren|einverstanden|annehmen)|(mit|am)\s+(dem\s+)?preis\s+(noch\s+)?(etwas|was)|meet\s+(me|us)\s+halfway|flexib\w+\s+(on|with|beim|bei\s+der|bei\s+dem)\s+(the\s+)?(price|rent|preis|miete)|(any|some|a\s+bit\s+of|little)\s+flexibility|wiggle\s+room|room\s+for\s+(negotiation|manoeuvre|maneuver)|spielraum|verhandlungs\w*|(reden|sprechen)\s+uber\s+(den\s+|die\s+)?(preis|miete|kaufpreis)|uber\s+(den\s+|die\s+)?(preis|miete|kaufpreis)\s+(\S+\s+){0,4}(reden|sprechen|verhandeln)|(€\s*\d[\d.,]*|\d{1,3}(?:[.,]\d{3})+|[1-9]\d{2}|[1-9]\d{4,}|(?:1[0-8]|2[1-9]|[3-9]\d)\d{2}|\d[\d.,]*\s*(?:€|eur|euros?|k))\s*((a|per)\s+month|pro\s+monat|im\s+monat|monatlich)?\s+(instead|rather)|(statt|anstatt|anstelle\s+von|instead\s+of|rather\s+than)\s+(der\s+|den\s+|the\s+)?(€\s*\d[\d.,]*|\d{1,3}(?:[.,]\d{3})+|[1-9]\d{2}|[1-9]\d{4,}|(?:1[0-8]|2[1-9]|[3-9]\d)\d{2}|\d[\d.,]*\s*(?:€|eur|euros?|k))|(€\s*\d[\d.,]*|\d{1,3}(?:[.,]\d{3})+|[1-9]\d{2}|[1-9]\d{4,}|(?:1[0-8]|2[1-9]|[3-9]\d)\d{2}|\d[\d.,]*\s*(?:€|eur|euros?|k))\s+(statt|anstatt))\b",
            ),
        ),
        (
            HandoffReason::ContractOrLegal,
            r(
                r"\b(contract|lease\s+agreement|tenancy\s+agreement|terminat\w*|notice\s+period|cancel\s+(my|the)\s+(lease|tenancy|contract)|legal\w*|lawyer|solicitor|sublet\w*|sublease|clause|vertrag\w*|mietvertrag\w*|kundig\w*|anwalt|anwaltin|rechtlich\w*|juristisch\w*|untervermiet\w*|klausel\w*)\b",
            ),
        ),
        (
            HandoffReason::Complaint,
            r(
                r"\b(complain\w*|unacceptable|disappoint\w*|angry|annoyed|furious|rude|outrageous|still\s+(not|hasn.?t|has\s+not|isn.?t)\s+(been\s+)?(fixed|repaired|answered|resolved)|beschwer\w*|unzufrieden|verargert|enttauscht|unverschamt|frechheit|immer\s+noch\s+nicht\s+(repariert|behoben|beantwortet)|(warte|warten)\s+(\w+\s+){0,3}seit|still\s+waiting|waiting\s+for\s+(weeks|days|ages|months)|(nobody|no\s+one|no-one)\s+(has\s+|ever\s+)?(got\s+back|answered|replied|called|responded|contacted)|niemand\s+(hat|meldet|ruft|antwortet)|(keine|nie\s+eine)\s+(antwort|ruckmeldung|reaktion)|never\s+(got|received|had)\s+(a\s+|any\s+)?(reply|answer|response|call)|unfreundlich\w*|unprofessionell\w*|unprofessional|terrible\s+service|zumutung|inakzeptabel|argerlich)\b",
            ),
        ),
        (
            HandoffReason::PersonalDataRequest,
            r(
                r"\b((delete|erase|remove)\s+(all\s+)?(of\s+)?(my|our)\s+(personal\s+)?(data|information|details)|personal\s+data|gdpr|data\s+protection|what\s+data\s+(do\s+)?you\s+(have|hold|store|keep)|dsgvo|datenschutz\w*|(meine|unsere)\s+(personlichen\s+)?daten|daten\s+(losch\w*|geloscht)|auskunft\s+uber\s+(meine|die\s+gespeicherten)|personenbezogen\w*|gespeicherten\s+daten|daten\s+.{0,40}gespeichert|forget\s+(about\s+)?me|(delete|close|remove|erase)\s+(my\s+|our\s+)?(account|profile)|(update|change|correct|amend|rectify|fix)\s+(my|our)\s+(e-?mail(\s+address)?|phone(\s+number)?|telephone(\s+number)?|(postal\s+)?address|surname|name|contact\s+details)|(update|change|correct|amend|rectify)\s+the\s+(e-?mail(\s+address)?|phone\s+number|telephone\s+number|contact\s+details)\s+(you|on\s+file|for\s+me)|(meine|unsere)\s+(e-?mail\w*|telefonnummer|handynummer|adresse|anschrift|kontaktdaten)\s+(\w+\s+){0,3}(andern|aktualisieren|berichtigen|korrigieren|loschen)|(andern|aktualisieren|berichtigen|korrigieren|loschen)\s+sie\s+(bitte\s+)?(meine|unsere)\s+(e-?mail|telefon|handy|adresse|anschrift|kontakt|daten|name)|(alles|alle\s+angaben)\s+uber\s+(mich|uns)\s+(\w+\s+){0,2}losch\w*)\b",
            ),
        ),
    ]
});

pub(super) static PETS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&crate::fold::collapse_pairs(
        r"\b(dogs?|cats?|pets?|pupp(y|ies)|kittens?|hund\w*|katze\w*|kater|haustier\w*)\b",
    ))
    .expect("valid pattern")
});

/// What the demo model takes from an inquiry.
#[derive(Debug, Clone, Default)]
pub(super) struct Analysis {
    pub(super) lang: Lang,
    pub(super) ids: Vec<String>,
    pub(super) city: Option<String>,
    pub(super) max_price: Option<f64>,
    pub(super) min_rooms: Option<f64>,
    pub(super) pets: bool,
    pub(super) offer_type: Option<&'static str>,
    pub(super) property_type: Option<&'static str>,
    pub(super) intents: Vec<HandoffReason>,
    pub(super) questions: Vec<String>,
    /// Feature tags a search asks for (`balcony`, `lift`, …).
    pub(super) features: Vec<&'static str>,
    /// "the cheapest …": the first result is the answer.
    pub(super) cheapest: bool,
}

/// Whether folded text asks for the cheapest offer.
static CHEAPEST: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&crate::fold::collapse_pairs(r"\b(cheapest|least\s+expensive|lowest\s+(price|rent)|most\s+affordable|gunstigste\w*|billigste\w*|preiswerteste\w*|preisgunstigste\w*)\b"))
        .expect("valid pattern")
});

pub(super) fn analyze(inquiry: &str) -> Analysis {
    let folded = fold(inquiry);
    let mut a = Analysis { lang: detect_language(inquiry), ..Analysis::default() };
    for cap in LISTING_ID.captures_iter(inquiry) {
        let id = format!("{}-{}", cap[1].to_uppercase(), &cap[2]);
        if !a.ids.contains(&id) {
            a.ids.push(id);
        }
    }
    let words: BTreeSet<&str> = folded.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
    a.city = CITIES.iter().find(|(_, names)| names.iter().any(|n| words.contains(n))).map(|(c, _)| (*c).to_owned());
    if let Some(cap) = PRICE_LIMIT.captures(&folded) {
        let thousands = cap.get(2).is_some();
        a.max_price = parse_number(cap[1].trim_end_matches(['.', ','])).map(|v| if thousands { v * 1000.0 } else { v });
    }
    a.min_rooms = ROOMS.captures(inquiry).and_then(|c| parse_number(&c[1]));
    a.pets = PETS.is_match(&folded);
    let has = |list: &[&str]| words.iter().any(|w| is_one_of(list, w));
    a.offer_type = if has(&["buy", "purchase", "kaufen", "kauf", "eigentumswohnung", "sale"]) {
        Some("sale")
    } else if has(&["rent", "mieten", "miete", "let", "rental"]) && (a.city.is_some() || a.max_price.is_some()) {
        Some("rent")
    } else {
        None
    };
    a.property_type = if has(&["office", "shop", "commercial", "gewerbe", "laden", "buro", "gewerbeflache"]) {
        Some("commercial")
    } else if has(&["house", "haus", "einfamilienhaus", "reihenhaus"]) {
        Some("house")
    } else if has(&["flat", "apartment", "wohnung", "appartement", "condominium", "eigentumswohnung"]) {
        Some("apartment")
    } else {
        None
    };
    let padded = format!(" {} ", words_joined(&folded));
    for (tag, names) in FEATURES {
        if names.iter().any(|n| padded.contains(&format!(" {} ", crate::fold::collapse_pairs(n)))) {
            a.features.push(tag);
        }
    }
    a.cheapest = CHEAPEST.is_match(&folded);
    if a.cheapest && a.offer_type.is_none() && a.property_type != Some("commercial") {
        // "The cheapest flat" compares rents; a sale price is not on the same scale.
        a.offer_type = Some("rent");
    }
    for (reason, pattern) in INTENTS.iter() {
        if pattern.is_match(&folded) && !a.intents.contains(reason) {
            a.intents.push(*reason);
        }
    }
    a.questions = question_clauses(inquiry);
    // A question asked twice is searched once.
    let mut seen = BTreeSet::new();
    a.questions.retain(|q| seen.insert(fold(q)));
    if a.ids.is_empty() && (a.city.is_some() || a.max_price.is_some()) {
        // In a search, a clause that only restates criteria ("in which I may
        // keep my cat?") is answered by the search itself.
        a.questions.retain(|q| {
            let f = fold(q);
            f.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).any(|w| {
                !is_one_of(FILLER, w)
                    && !is_one_of(CRITERIA_WORDS, w)
                    && !is_place_or_number(w)
                    && !PETS.is_match(w)
                    && !is_one_of(DISCOURSE, w)
                    && !FEATURES.iter().any(|(_, names)| is_one_of(names, w))
            })
        });
    }
    a
}

/// Splits an inquiry into clauses and keeps those that ask about a fact:
/// a clause ending in `?` or opening with a question word, that is not only a
/// hand-off request (viewing, negotiation, …) or only search criteria.
pub(super) fn question_clauses(inquiry: &str) -> Vec<String> {
    // Commas separate jobs only in a sentence that also lists search criteria
    // or asks for a hand-off ("flat in Hamburg under 2,000, I have a dog, is
    // heating included, can I view it"); elsewhere a comma belongs to the
    // question ("Does it have parking, and what does it cost?").
    let folded = fold(inquiry);
    let mixed = INTENTS.iter().any(|(_, p)| p.is_match(&folded)) || PRICE_LIMIT.is_match(&folded);
    let mut clauses: Vec<(String, bool)> = vec![];
    let mut current = String::new();
    let chars: Vec<char> = inquiry.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let next_space = chars.get(i + 1).is_none_or(|n| n.is_whitespace());
        if matches!(c, '?' | '!' | '\n' | ';') || (c == '.' && next_space) || (c == ',' && next_space && mixed) {
            if c == '?' || c == '.' || c == '!' {
                current.push(c);
            }
            let text = current.trim().to_owned();
            if !text.is_empty() {
                clauses.push((text, c == '?'));
            }
            current.clear();
        } else {
            current.push(c);
        }
    }
    if !current.trim().is_empty() {
        clauses.push((current.trim().to_owned(), false));
    }
    let is_question = |text: &str, ends_with_question: bool| -> bool {
        let folded = fold(text);
        let words: Vec<&str> = folded.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
        // "And is it …" opens a question; "and we have been looking …" does not.
        let opener = words.iter().find(|w| !matches!(**w, "and" | "und" | "also" | "but" | "aber"));
        let opens_question = opener.is_some_and(|w| is_one_of(QUESTION_WORDS_EN, w) || is_one_of(QUESTION_WORDS_DE, w));
        if !(ends_with_question || opens_question) || INTENTS.iter().any(|(_, p)| p.is_match(&folded)) {
            return false;
        }
        words.iter().any(|w| !is_one_of(FILLER, w) && !is_place_or_number(w) && !is_one_of(DISCOURSE, w))
    };
    clauses
        .into_iter()
        .flat_map(|(text, ends_with_question)| {
            if is_question(&text, ends_with_question) {
                return vec![text];
            }
            // "Wie hoch ist die Kaution und kann ich sie am Samstag besichtigen?":
            // a question joined to a hand-off request is still a question.
            let folded = fold(&text);
            if !INTENTS.iter().any(|(_, p)| p.is_match(&folded)) {
                return vec![];
            }
            let opens = |part: &str| {
                fold(part)
                    .split(|c: char| !c.is_alphanumeric())
                    .find(|w| !w.is_empty())
                    .is_some_and(|w| is_one_of(QUESTION_WORDS_EN, w) || is_one_of(QUESTION_WORDS_DE, w))
            };
            // Split only where a new request starts ("… und kann ich …"), not
            // inside one ("Could I come and see …").
            let mut parts = vec![];
            let mut start = 0;
            for m in CONJUNCTION.find_iter(&text) {
                if opens(&text[m.end()..]) {
                    parts.push(&text[start..m.start()]);
                    start = m.end();
                }
            }
            parts.push(&text[start..]);
            if parts.len() < 2 {
                return vec![];
            }
            parts
                .into_iter()
                .map(str::trim)
                .filter(|part| !part.is_empty() && opens(part) && is_question(part, false))
                .map(|part| part.trim_end_matches([',', ';']).to_owned())
                .collect()
        })
        .collect()
}

/// Where one sentence joins two requests ("… und kann ich …", "… and could we …").
static CONJUNCTION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i),?\s+(?:und|and|oder|or|sowie|aber|but|also)\s+").expect("valid pattern"));

/// Folded text as its words joined by single spaces (hyphens kept inside a word).
fn words_joined(folded: &str) -> String {
    folded.split(|c: char| !(c.is_alphanumeric() || c == '-')).filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" ")
}

pub(super) fn is_place_or_number(word: &str) -> bool {
    word.chars().all(|c| c.is_ascii_digit())
        || CITIES.iter().any(|(_, names)| names.contains(&word))
        || is_one_of(QUESTION_WORDS_EN, word)
        || is_one_of(QUESTION_WORDS_DE, word)
        || (word.len() <= 2 && word.chars().all(|c| c.is_ascii_alphabetic()))
}

/// Topics a question may ask about that a listing record answers directly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Field {
    Price,
    Pets,
    Rooms,
    Area,
    Floor,
    Available,
    Energy,
    YearBuilt,
}

pub(super) fn fields_asked(question: &str) -> Vec<Field> {
    let f = fold(question);
    let mut out = vec![];
    let has = |ws: &[&str]| f.split(|c: char| !c.is_alphanumeric()).any(|x| is_one_of(ws, x));
    if has(&[
        "price",
        "cost",
        "costs",
        "rent",
        "kaltmiete",
        "miete",
        "preis",
        "kaufpreis",
        "kostet",
        "expensive",
        "teuer",
    ]) {
        out.push(Field::Price);
    }
    if PETS.is_match(&f) {
        out.push(Field::Pets);
    }
    if has(&["rooms", "zimmer"]) {
        out.push(Field::Rooms);
    }
    if has(&["big", "size", "large", "area", "sqm", "qm", "quadratmeter", "gross", "flache"]) {
        out.push(Field::Area);
    }
    if has(&["floor", "etage", "stock", "stockwerk", "geschoss"]) {
        out.push(Field::Floor);
    }
    let starts =
        |stems: &[&str]| f.split(|c: char| !c.is_alphanumeric()).any(|x| stems.iter().any(|s| x.starts_with(s)));
    if has(&[
        "available",
        "availability",
        "verfugbar",
        "frei",
        "einziehen",
        "move",
        "vacant",
        "free",
        "keys",
        "key",
        "handover",
    ]) || starts(&["bezug", "einzug", "verfugbar", "schlussel", "ubergabe", "ubergeben"])
    {
        out.push(Field::Available);
    }
    if has(&["energy", "energieklasse", "energieausweis", "efficiency"]) {
        out.push(Field::Energy);
    }
    // "How old is the heating?" asks about the heating, not the building's year.
    let component = starts(&[
        "heat",
        "heiz",
        "boiler",
        "kessel",
        "warmepump",
        "kitchen",
        "kuche",
        "bath",
        "bad",
        "window",
        "fenster",
        "roof",
        "dach",
        "lift",
        "elevator",
        "aufzug",
        "fahrstuhl",
        "renov",
        "sanier",
        "modernis",
        "refurb",
        "floor",
        "boden",
        "install",
        "instal",
        "applianc",
        "gerat",
    ]);
    if starts(&["baujahr", "gebaut", "errichtet", "erbaut"])
        || has(&["built", "constructed"])
        || (has(&["year", "jahr", "old", "alt", "age"]) && !component)
    {
        out.push(Field::YearBuilt);
    }
    out
}

/// Whether a question is about utilities (Nebenkosten, running costs).
pub(super) fn mentions_utilities(question: &str) -> bool {
    let f = fold(question);
    f.split(|c: char| !c.is_alphanumeric())
        .any(|w| matches!(w, "utilities" | "nebenkosten" | "betriebskosten" | "warmmiete" | "pauschalmiete"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn analyses_the_opening_inquiry() {
        let a =
            analyze("A flat in Hamburg under €2,000, I have a dog, is heating included, can I view it on Saturday?");
        assert_eq!(a.lang, Lang::En);
        assert_eq!(a.city.as_deref(), Some("Hamburg"));
        assert_eq!(a.max_price, Some(2000.0));
        assert!(a.pets);
        assert_eq!(a.intents, [HandoffReason::ViewingRequest]);
        assert_eq!(a.questions, ["is heating included"]);
    }

    #[test]
    fn words_shared_by_both_languages_do_not_decide() {
        // "was" is English too: this question got a German reply once.
        assert_eq!(detect_language("When was HH-1001 built?"), Lang::En);
        assert_eq!(detect_language("Was kostet ein Tiefgaragenstellplatz bei M-3002?"), Lang::De);
        assert_eq!(detect_language("Liegt die Wohnung an der Alster?"), Lang::De);
        assert_eq!(detect_language("Is the flat also available in May?"), Lang::En);
    }

    #[test]
    fn analyses_german() {
        let a = analyze("Wohnung in München bis 2.500 €, ich habe eine Katze. Ist die Heizung inklusive? Kann ich sie am Samstag besichtigen?");
        assert_eq!(a.lang, Lang::De);
        assert_eq!(a.city.as_deref(), Some("München"));
        assert_eq!(a.max_price, Some(2500.0));
        assert!(a.pets);
        assert_eq!(a.intents, [HandoffReason::ViewingRequest]);
        assert_eq!(a.questions, ["Ist die Heizung inklusive?"]);
    }

    #[test]
    fn recognises_every_intent() {
        let cases = [
            ("Would the landlord perhaps accept 1,500 instead?", HandoffReason::PriceNegotiation),
            ("Is there any flexibility on the price?", HandoffReason::PriceNegotiation),
            ("Wäre der Vermieter mit 1.500 € einverstanden?", HandoffReason::PriceNegotiation),
            ("Please delete all my personal data.", HandoffReason::PersonalDataRequest),
            ("Bitte löschen Sie meine Daten.", HandoffReason::PersonalDataRequest),
            ("Can I terminate the contract early?", HandoffReason::ContractOrLegal),
            ("Die Heizung ist immer noch nicht repariert, ich möchte mich beschweren.", HandoffReason::Complaint),
            ("Can I see the flat on Friday?", HandoffReason::ViewingRequest),
            // Folded text has "anschaun": the patterns are folded the same way.
            ("Ich würde mir die Wohnung gern am Montag anschauen.", HandoffReason::ViewingRequest),
            ("Could someone show us round the flat next week?", HandoffReason::ViewingRequest),
            ("Can you set up a time to see K-4001?", HandoffReason::ViewingRequest),
        ];
        for (text, reason) in cases {
            assert!(analyze(text).intents.contains(&reason), "{text}: {:?}", analyze(text).intents);
        }
        assert!(analyze("Is heating included?").intents.is_empty());
        // Asking what to bring to a viewing is a question, not a request for one.
        assert!(analyze("Was muss ich zum Besichtigungstermin mitbringen?").intents.is_empty());
        // "does" folds to "dos": a clause opening with it is still a question.
        assert_eq!(
            question_clauses("Does the flat have a garden, and what does it cost"),
            ["Does the flat have a garden, and what does it cost"]
        );
    }
}
