//! Content terms of a text, comparable across German and English: the
//! retrieval analyzer's terms (folded, stopwords dropped, stemmed), each with
//! its glossary translations (DE→EN), the catalogue's synonyms, and the parts
//! of a German compound that the glossary knows (`Monatskaltmiete` → cold
//! rent). Two texts share a term when any alternatives meet.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use regex::Regex;

use crate::retrieval::{analyzer::analyze, glossary::translations};

/// Synonyms the catalogue uses beside the glossary's translations, as
/// (word, equivalents), both sides analyzed at first use. Source: the
/// catalogue's own pairs (Loggia/balcony, lift/elevator) and the everyday
/// words replies use for the records' terms.
const SYNONYMS: &[(&str, &[&str])] = &[
    ("elevator", &["lift"]),
    ("cover", &["include"]),
    ("person", &["agent", "colleague", "team", "someone", "staff"]),
    ("agent", &["person", "colleague"]),
    ("agents", &["person", "colleague"]),
    ("colleague", &["person", "agent"]),
    ("kollege", &["person", "colleague"]),
    ("kollegin", &["person", "colleague"]),
    ("makler", &["person", "agent"]),
    ("mitarbeiter", &["person", "colleague"]),
    ("arrange", &["agree", "set", "schedule", "find"]),
    ("agree", &["arrange"]),
    ("vereinbaren", &["arrange"]),
    ("abstimmen", &["arrange"]),
    ("date", &["time", "appointment", "slot"]),
    ("time", &["date"]),
    ("termin", &["date", "appointment"]),
    ("passed", &["forward", "hand", "refer"]),
    ("forwarded", &["pass", "forward"]),
    ("opened", &["pass", "forward"]),
    ("weitergegeben", &["pass", "forward"]),
    ("ubergeben", &["pass", "forward"]),
    ("touch", &["contact", "call"]),
    ("contact", &["touch", "call"]),
    ("melden", &["contact", "touch"]),
    ("anrufen", &["contact", "call"]),
    ("ruft", &["contact", "call"]),
    ("covers", &["include"]),
    ("covered", &["include"]),
    ("part", &["include"]),
    ("inklusive", &["include"]),
    ("inbegriffen", &["include"]),
    ("additional", &["extra"]),
    ("separately", &["extra"]),
    ("separate", &["extra"]),
    ("zusatzlich", &["extra"]),
    ("separat", &["extra"]),
    ("gesondert", &["extra"]),
    ("says", &["state", "mention"]),
    ("mention", &["state"]),
    ("listing", &["record"]),
    ("records", &["listing"]),
    ("information", &["state"]),
    ("fahrstuhl", &["lift"]),
    ("aufzug", &["lift"]),
    ("loggia", &["balcony"]),
    ("flat", &["apartment"]),
    ("home", &["apartment", "residential"]),
    ("dwelling", &["residential"]),
    ("wohnen", &["residential", "live"]),
    ("living", &["residential", "live"]),
    ("triple", &["three"]),
    ("thrice", &["three"]),
    ("drei", &["three"]),
    ("dreifache", &["three"]),
    ("dreifach", &["three"]),
    ("monate", &["months"]),
    ("monatsmiete", &["rent"]),
    ("monatskaltmiete", &["cold rent"]),
    ("monatskaltmieten", &["cold rent"]),
    ("kaltmieten", &["cold rent"]),
    ("nettokaltmiete", &["cold rent"]),
    ("raten", &["instalments"]),
    ("teilbetrage", &["instalments"]),
    ("parts", &["instalments"]),
    ("instalment", &["instalments"]),
    ("installments", &["instalments"]),
    ("bestatigung", &["confirmation"]),
    ("bescheinigung", &["confirmation"]),
    ("wohnungsgeberbestatigung", &["confirmation residence"]),
    ("anmeldung", &["registration", "anmeldung"]),
    ("heizung", &["heating"]),
    ("heizkosten", &["heating"]),
    ("heat", &["heating"]),
    ("heated", &["heating"]),
    ("nebenkosten", &["utilities"]),
    // The abbreviation of listings and chat ("780 € kalt + 190 € NK").
    ("nk", &["utilities"]),
    ("running costs", &["utilities"]),
    ("utility", &["utilities"]),
    ("deposit", &["kaution"]),
    ("hausgeld", &["hausgeld"]),
    ("eigentumergemeinschaft", &["owners association"]),
    ("sonderumlage", &["special levy"]),
    ("umlage", &["levy"]),
    ("provision", &["commission"]),
    ("maklerprovision", &["commission"]),
    ("vermittlungskosten", &["commission"]),
    ("vermittlungsgebuhr", &["commission"]),
    ("maklerleistung", &["commission"]),
    ("maklerkosten", &["commission"]),
    ("maklergebuhr", &["commission"]),
    ("brokerage", &["commission"]),
    ("gebuhr", &["fee", "commission"]),
    ("gebuhren", &["fee", "commission"]),
    ("fees", &["fee"]),
    ("charge", &["fee", "cost"]),
    ("katzenhaltung", &["cats"]),
    ("hundehaltung", &["dogs"]),
    ("tierhaltung", &["pets"]),
    ("haustiere", &["pets"]),
    ("tiere", &["pets"]),
    ("animals", &["pets"]),
    ("strom", &["electricity"]),
    ("internet", &["internet"]),
    ("wlan", &["internet"]),
    ("baujahr", &["built"]),
    ("gebaut", &["built"]),
    ("errichtet", &["built"]),
    ("dates", &["built"]),
    ("stammt", &["built", "dates"]),
    ("renoviert", &["renovated"]),
    ("saniert", &["renovated"]),
    ("modernised", &["renovated"]),
    ("modernized", &["renovated"]),
    ("renewed", &["renovated"]),
    ("erneuert", &["renovated"]),
    ("dach", &["roof"]),
    ("fenster", &["windows"]),
    ("parken", &["parking"]),
    ("parking", &["parking"]),
    ("garage", &["parking"]),
    ("stellplatz", &["parking"]),
    ("gewerblich", &["commercial"]),
    ("gewerbe", &["commercial"]),
    ("business", &["commercial"]),
    ("shop", &["commercial"]),
    ("erlaubt", &["allowed"]),
    ("gestattet", &["allowed"]),
    ("permitted", &["allowed"]),
    ("welcome", &["allowed"]),
    ("possible", &["allowed"]),
    ("moglich", &["allowed", "possible"]),
    ("approve", &["approval", "request"]),
    ("approval", &["request"]),
    ("zustimmung", &["approval", "request"]),
    ("zustimmen", &["approval", "request"]),
    ("genehmigung", &["approval", "request"]),
    ("consent", &["approval", "request"]),
    ("einverstandnis", &["approval", "request"]),
    ("mieterin", &["tenant"]),
    ("looped", &["pass", "forward"]),
    ("reach", &["contact"]),
    ("einwilligung", &["approval"]),
    ("befindet", &["decide"]),
    ("befinden", &["decide"]),
    ("einzeln", &["case by case"]),
    ("vermieterseite", &["landlord"]),
    ("required", &["need"]),
    ("zwingend", &["need", "required"]),
    ("verpflichtend", &["need", "required"]),
    ("obligatorisch", &["need", "required"]),
    ("pflicht", &["need", "required"]),
    ("compulsory", &["need", "required"]),
    ("mandatory", &["need", "required"]),
    ("necessary", &["need", "required"]),
    ("erforderlich", &["need"]),
    ("notig", &["need"]),
    ("brauchen", &["need"]),
    ("benotigt", &["need"]),
    ("must", &["need"]),
    ("mussen", &["need"]),
    ("projection", &["estimate"]),
    ("projected", &["estimate"]),
    ("prognose", &["estimate"]),
    ("prognostiziert", &["estimate"]),
    ("provisional", &["estimate"]),
    ("schatzung", &["estimate"]),
    ("geschatzt", &["estimate"]),
    ("ballpark", &["estimate"]),
    ("roughly", &["estimate"]),
    ("vorlaufig", &["estimate"]),
    ("approximately", &["estimate"]),
    ("approximate", &["estimate"]),
    ("etwa", &["estimate"]),
    ("ungefahr", &["estimate"]),
    ("voraussichtlich", &["estimate"]),
    ("kunftig", &["future"]),
    ("kunftige", &["future"]),
    ("upcoming", &["future"]),
    ("rechnen", &["calculate"]),
    ("berechnen", &["calculate"]),
    ("ausrechnen", &["calculate"]),
    ("compute", &["calculate"]),
    ("work out", &["calculate"]),
    ("inserate", &["listing"]),
    ("inseraten", &["listing"]),
    ("angebot", &["listing"]),
    ("angebote", &["listing"]),
    ("wunsch", &["request"]),
    ("anfrage", &["request"]),
    ("anliegen", &["request"]),
    ("individually", &["case by case"]),
    ("einzelfall", &["case by case"]),
    ("around", &["estimate"]),
    ("circa", &["estimate"]),
    ("settled", &["final"]),
    ("binding", &["final"]),
    ("verbindlich", &["final"]),
    ("endgultig", &["final"]),
    ("definitive", &["final"]),
    ("licensed", &["approved"]),
    ("genehmigt", &["approved"]),
    ("zugelassen", &["approved", "allowed"]),
    ("permission", &["allowed"]),
    ("premises", &["commercial"]),
    ("gewerberaum", &["commercial"]),
    ("storey", &["floor"]),
    ("stockwerk", &["floor"]),
    ("etage", &["floor"]),
    ("obergeschoss", &["floor"]),
    ("eigentumerseite", &["landlord"]),
    ("owner", &["landlord"]),
    ("vermieter", &["landlord"]),
    ("gebuhrenfrei", &["fee"]),
    ("catalogue", &["records", "listing"]),
    ("katalog", &["records", "listing"]),
    ("property", &["listing"]),
    ("bandwidth", &["speed"]),
    ("bandbreite", &["speed"]),
    ("geschwindigkeit", &["speed"]),
    ("given", &["state"]),
    ("angegeben", &["state"]),
    ("ausnahme", &["exception"]),
    ("ausnahmen", &["exception"]),
    ("notariell", &["notarised"]),
    ("notarielle", &["notarised"]),
    ("notariellen", &["notarised"]),
    ("notarized", &["notarised"]),
    ("kaufvertrag", &["purchase contract"]),
    ("unterschrieben", &["signed"]),
    ("unterzeichnet", &["signed"]),
    ("unterschrift", &["signed"]),
    ("bedingung", &["need", "required"]),
    ("voraussetzung", &["need", "required"]),
    ("versprechen", &["zusage", "promise"]),
    ("zusagen", &["zusage", "promise"]),
    ("vorgesehen", &["possible"]),
    ("courtage", &["commission"]),
    ("vermittlung", &["commission"]),
    ("alone", &["only"]),
    ("solely", &["only"]),
    ("purely", &["only"]),
    ("exclusively", &["only"]),
    ("ausschliesslich", &["only"]),
    ("lediglich", &["only"]),
    ("sum", &["amount"]),
    ("working figure", &["estimate"]),
    ("steigt", &["rise"]),
    ("increase", &["rise"]),
    ("erhoht", &["rise"]),
    // A possibility denied in other words ("barred from adding an index
    // increase", "ist ausgeschlossen"): the denial is read by polarity.
    ("barred", &["possible"]),
    ("ruled", &["possible"]),
    ("excluded", &["possible"]),
    ("ausgeschlossen", &["possible"]),
    // An index rent follows the consumer price index, that is inflation.
    ("inflation", &["index"]),
    ("table", &["possible"]),
    // The steps of a graduated rent, written into the contract.
    ("written", &["agreed"]),
    ("festgelegt", &["agreed", "vereinbart"]),
    ("festgeschrieben", &["agreed", "vereinbart"]),
    ("staffel", &["step", "stufe"]),
    ("schritte", &["step", "stufe"]),
    ("schritten", &["step", "stufe"]),
    // Proof of income in other words ("Belege über Ihr Einkommen aus den
    // zurückliegenden drei Monaten").
    ("beleg", &["nachweis", "proof"]),
    ("belege", &["nachweis", "proof"]),
    ("zuruckliegenden", &["letzten", "last"]),
    ("vergangenen", &["letzten", "last"]),
];

static ANALYZED_SYNONYMS: LazyLock<Vec<(String, Vec<String>)>> = LazyLock::new(|| {
    SYNONYMS
        .iter()
        .filter_map(|(w, eq)| {
            let key = analyze(w).join(" ");
            (!key.is_empty()).then(|| (key, eq.iter().flat_map(|e| analyze(e)).collect()))
        })
        .collect()
});

/// Glossary keys (analyzed), for compound splitting.
static COMPOUND_PARTS: LazyLock<Vec<String>> = LazyLock::new(|| {
    let mut keys: Vec<String> = ANALYZED_SYNONYMS.iter().map(|(k, _)| k.clone()).filter(|k| !k.contains(' ')).collect();
    for w in ["miete", "kosten", "heizung", "kaution", "provision", "wohnung", "haus", "tiere", "stellplatz", "gebuhr"]
    {
        keys.extend(analyze(w));
    }
    keys.retain(|k| k.len() >= 4);
    keys.sort_by_key(|k| std::cmp::Reverse(k.len()));
    keys.dedup();
    keys
});

/// Words that carry no content of their own in a reply about a listing:
/// replies and records both name them everywhere.
const WEAK: &[&str] = &[
    "eur", "month", "monat", "year", "jahr", "list", "listing", "inserat", "record", "unterlag", "ticket", "also",
    "auch", "just", "yes", "ja", "nein", "you", "your", "sie", "ihr", "ihnen", "ihre", "we", "wir", "uns", "unser",
    "ich", "will", "would", "may", "get", "let", "make", "alreadi", "bereit", "still", "noch", "nur", "onli", "now",
    "jetzt", "here", "hier", "dort", "this", "thi", "diese", "dies", "der", "die", "das", "den", "dem", "ist", "sind",
    "wird", "werden", "hat", "haben", "sein", "wurde", "per", "pro", "im", "am", "um", "zu", "zum", "zur", "mit",
    "von", "vom", "fur", "auf", "aus", "bei", "nach", "uber", "als", "wie", "so", "too", "well", "veri", "sehr",
    "gern", "gerne", "one", "ein", "eine", "einen", "einem", "einer", "es", "er", "they", "them", "there", "what",
    "which", "who", "whi", "dass", "da", "dann", "about", "up", "out", "over", "all", "alle", "allen", "each", "jede",
    "jeden", "jedes", "some", "ani", "our", "mean", "say", "said", "state", "stat", "sagt", "steht", "laut", "accord",
    "note", "mention", "erwahnt",
    // Negations are polarity, not content; time adverbs say nothing of the records.
    "no", "not", "nicht", "kein", "keine", "keinen", "keiner", "never", "nie", "none", "noth", "nothing", "nichts",
    "ohn", "ohne", "without", "under", "unter", "sinc", "since", "seit", "seitdem",
];

static IDS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\[[^\]\n]{1,300}\]|\b[A-Z]{1,2}-\d{4}\b|\bTKT-\d+\b|policy:[a-z0-9-]+#[a-z0-9-]+")
        .expect("valid pattern")
});

/// A term with its alternatives (the term itself first).
pub type Term = Vec<String>;

/// The content terms of `text`, each with its alternatives. Ids, citations,
/// weak words and one-character tokens are left out; numbers of two or more
/// digits stay (a shared figure links a sentence to its passage).
pub fn terms(text: &str) -> Vec<Term> {
    terms_of(text, true)
}

/// [`terms`] with the weak words kept (for matching an item's own text,
/// where "listing" and "records" may be the point).
pub fn all_terms(text: &str) -> Vec<Term> {
    terms_of(text, false)
}

/// Modal verbs of necessity, which the analyzer drops as stopwords: the
/// sense "need" is content ("Sie müssen einen WBS haben").
static NEED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(müssen|muss|musst|müsste|mussen|must|have to|has to|needs?|brauchen|brauche|braucht|benötigen|benötigt)\b")
        .expect("valid pattern")
});

/// Analysed texts, per thread: one eval grounds each reply up to three times
/// (guard on each draft, code check, rule judge) over the same evidence
/// clauses, and the analyzer and the compound split dominate that cost.
/// Cleared when it grows past [`MEMO_LIMIT`] entries, so memory stays bounded.
const MEMO_LIMIT: usize = 20_000;

thread_local! {
    static MEMO: std::cell::RefCell<std::collections::HashMap<(String, bool), Vec<Term>>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
}

fn terms_of(text: &str, drop_weak: bool) -> Vec<Term> {
    let key = (text.to_owned(), drop_weak);
    if let Some(hit) = MEMO.with(|m| m.borrow().get(&key).cloned()) {
        return hit;
    }
    let out = analyse_terms(text, drop_weak);
    MEMO.with(|m| {
        let mut m = m.borrow_mut();
        if m.len() >= MEMO_LIMIT {
            m.clear();
        }
        m.insert(key, out.clone());
    });
    out
}

fn analyse_terms(text: &str, drop_weak: bool) -> Vec<Term> {
    let cleaned = IDS.replace_all(text, " ");
    let cleaned = NEED.replace_all(&cleaned, " need ");
    let mut out: Vec<Term> = vec![];
    for t in analyze(&cleaned) {
        if t.len() < 2 || (drop_weak && WEAK.contains(&t.as_str())) || out.iter().any(|o| o[0] == t) {
            continue;
        }
        if t.chars().all(|c| c.is_ascii_digit()) && t.len() < 2 {
            continue;
        }
        out.push(alternatives(&t));
    }
    out
}

/// A term and everything it may stand for.
pub fn alternatives(t: &str) -> Term {
    let mut alt = vec![t.to_owned()];
    let push = |w: &str, alt: &mut Vec<String>| {
        if !alt.iter().any(|a| a == w) {
            alt.push(w.to_owned());
        }
    };
    for phrase in translations(t) {
        for w in phrase {
            push(&w, &mut alt);
        }
    }
    for (k, eq) in ANALYZED_SYNONYMS.iter() {
        if k == t {
            for w in eq {
                push(w, &mut alt);
            }
        }
    }
    if alt.len() == 1 && t.len() >= 8 && !t.chars().any(|c| c.is_ascii_digit()) {
        // A German compound: its known head (`…kaltmiete`) and its known first part.
        for part in COMPOUND_PARTS.iter() {
            if t != part && (t.ends_with(part.as_str()) || t.starts_with(part.as_str())) {
                for w in alternatives(part) {
                    push(&w, &mut alt);
                }
            }
        }
    }
    alt
}

/// The union of all alternatives of `terms`.
pub fn vocabulary(terms: &[Term]) -> BTreeSet<&str> {
    terms.iter().flatten().map(String::as_str).collect()
}

/// How many of `a`'s terms meet one of `b`'s.
pub fn shared(a: &[Term], b: &BTreeSet<&str>) -> usize {
    a.iter().filter(|t| t.iter().any(|w| b.contains(w.as_str()))).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meet(a: &str, b: &str) -> usize {
        let (ta, tb) = (terms(a), terms(b));
        shared(&ta, &vocabulary(&tb))
    }

    #[test]
    fn german_and_english_terms_meet() {
        assert_eq!(meet("Aufzug", "The building has no lift."), 1);
        assert_eq!(meet("Die Heizung ist enthalten", "heating included"), 2);
        assert!(meet("höchstens drei Monatskaltmieten", "at most three months' cold rent") >= 2);
        assert_eq!(meet("Nebenkosten", "Utilities are an additional 240 EUR"), 1);
        assert_eq!(meet("HH-1001 [HH-1001#s5]", "HH-1001"), 0, "ids are not content");
    }
}
