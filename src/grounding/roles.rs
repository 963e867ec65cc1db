//! The role of a sentence in a reply: a claim about the records, the
//! assistant's own remit, a report of a hand-off, a courtesy (greetings,
//! offers of help, advice to look elsewhere), a question or restated request,
//! or a quote. Only claims are checked against the records; the assistant's
//! remit and hand-offs have checks of their own.
//!
//! Offers, referrals and the assistant's remit are read in the first person
//! ("I can pass this on", "I can't help with the weather") and in the
//! impersonal, nominal register ("Auf Wunsch ist eine Weiterleitung an eine
//! Kollegin möglich", "Information on the weather cannot be provided by this
//! assistant", "consultation of a weather service is recommended").

use std::sync::LazyLock;

use regex::Regex;

use super::wording::{COURTESY, HANDOFF, OFFER, SELF};
use super::SentenceRole;

/// A yes or no that opens an answer, and what follows it.
static ANSWER_WORD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:yes|no|ja|nein|leider nicht|unfortunately not|sure|certainly|of course|absolutely|selbstverstandlich|klar|gern|gerne)\b[\s,:;.!–—-]*(.*)$").expect("valid pattern")
});

/// "Most likely it has been let – but I'm happy to help you look": an offer
/// after the last dash or semicolon leaves the statement before it a claim.
fn offer_in_tail_only(folded: &str) -> bool {
    let Some(at) = [" – ", " — ", " - ", "; "].iter().filter_map(|d| folded.rfind(d)).max() else { return false };
    let head = &folded[..at];
    head.split_whitespace().count() >= 5 && !OFFER.is_match(head) && OFFER.is_match(&folded[at..])
}

/// "One thing I can pass on: our office has mentioned a storm warning": an
/// offer that only introduces, before a colon, what the sentence then states.
fn offer_in_head_only(folded: &str) -> bool {
    let Some(at) = folded.find(": ") else { return false };
    let tail = &folded[at + 2..];
    OFFER.is_match(&folded[..at]) && !OFFER.is_match(tail) && tail.split_whitespace().count() >= 5
}

/// Whether the sentence offers help: an [`OFFER`] match that is not the
/// object of a remit ("weather forecasts aren't something I can help with"
/// declines; "I can help with that" offers).
fn offers(folded: &str) -> bool {
    OFFER.find_iter(folded).any(|m| {
        let before = folded[..m.start()].trim_end();
        !["something", "anything", "nothing", "what", "everything"].iter().any(|w| before.ends_with(w))
    })
}

/// "Yes: dogs and cats are welcome at HH-1003" is short, but it is an
/// answer with a claim after the yes, not a courtesy.
fn answers(folded: &str) -> bool {
    ANSWER_WORD.captures(folded).is_some_and(|c| c[1].split_whitespace().count() >= 3)
}

/// A sentence that restates what the customer asks for ("Sie suchen eine
/// Restaurantempfehlung für Köln", "You'd like to know whether …"): the
/// customer's words, not a claim.
static RESTATED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(sie (suchen|fragen|wunschen|bitten um|mochten (wissen|gern wissen)|mochten (\w+ ){0,4}(besichtigen|anschauen|ansehen|mieten)|wollen wissen|interessieren sich)|you('re| are) (looking for|asking)|you('d| would) like to (know|view|see|book|visit|arrange|rent)|you want to (know|view|see|book|visit|rent)|you asked)\b")
        .expect("valid pattern")
});

/// Whether a sentence (folded) restates the customer's request or question
/// rather than stating anything of its own.
pub fn restates_request(folded: &str) -> bool {
    RESTATED.is_match(folded.trim_start())
}

/// A heading that only structures the reply ("### Kurz gesagt", "**Details**"):
/// a line of at most 60 characters without a full stop.
static HEADING: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*(#{1,6}\s*[^.!?#]{0,60}|\*\*[^*.!?]{1,60}\*\*:?)\s*$").expect("valid pattern"));

/// Advice to look elsewhere for what the agency does not answer ("a
/// weather service is the better source", "Bewertungsportale sind die
/// bessere Quelle"): a pointer, not a claim about the records.
static REFERRAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(the|a|die|eine|ein) (better|best|bessere|beste|richtige|right) (source|sources|quelle|quellen|anlaufstelle|adresse|place to (look|ask|check))\b|\b(would|will|could|can) serve you better\b|\bwould be (a )?better (placed|suited)\b|\b(ware|waren|ist|sind) (dafur )?(besser|eher) geeignet\b|\b(is|are) (your|the) best bet\b|\b(portal|portale|app|apps|dienst|dienste|service|magazin|stadtmagazin|website|webseite|stadtfuhrer|wetterdienst|wetter-app)\w*\b.{0,30}\b(helfen|hilft)\b.{0,20}\bweiter\b|\b(helfen|hilft)\b.{0,20}\b\w*(portal|portale|magazin|dienst|dienste|app|apps|fuhrer|website|webseite)\b.{0,30}\bweiter\b")
        .expect("valid pattern")
});

/// A guess at what went wrong with the customer's own input ("It may be a
/// typo", "vielleicht ein Tippfehler"): about their words, not the records.
static TYPO: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(typo|tippfehler|vertipp\w*|misspel\w*|mistyp\w*)\b").expect("valid pattern"));

/// A bullet and a short bold label before a sentence ("- **What I do:** I
/// answer questions …"): structure, left out when reading the sentence's role.
static BULLET_LABEL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*([-*•]|\d{1,2}[.)])\s+(\*\*[^*]{1,40}\*\*:?\s*)?|^\s*\*\*[^*]{1,40}:\*\*\s*")
        .expect("valid pattern")
});

/// An offer in the impersonal register: an act of the agency that "can be
/// arranged", "kann erfolgen", "ist auf Wunsch möglich" ("Forwarding to a
/// colleague can be arranged on request", "Auf Wunsch ist eine Weiterleitung
/// an eine Kollegin möglich", "Angaben zu Ihrer Katze können für die Anfrage
/// übermittelt werden"). A done act ("wurde weitergeleitet", "has been
/// forwarded") has no modal and is no offer.
static IMPERSONAL_OFFER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(can|could|may) (also |gladly |readily |easily )?be (arranged|passed on|forwarded|carried out|submitted|organi[sz]ed|handed over|taken up|answered|initiated|conducted|put forward|requested)\b|\b(kann|konnen|konnte|konnten) (\w+ ){0,8}(erfolgen|(ubermittelt|weitergeleitet|weitergegeben|eingereicht|gestellt|gepruft|durchgefuhrt|beantwortet|veranlasst|vorgenommen|aufgenommen|organisiert|vereinbart|angefragt) werden)\b|\b(eine|die) (weiterleitung|ubermittlung|suche|recherche|prufung|kontaktaufnahme|ruckmeldung|vermittlung)\w*\b[^,;]{0,80}\b(ist|sind|ware|waren) (\w+ ){0,4}moglich\b|\b(ist|ware) (auf wunsch |bei bedarf |jederzeit |gerne? )?(eine|die) (weiterleitung|ubermittlung|suche|recherche|prufung|kontaktaufnahme|ruckmeldung|vermittlung)\w*\b[^,;]{0,80}\bmoglich\b|\b(forwarding|a referral|referral|a search|a callback|passing on)\b[^;]{0,80}\b(is|would be) (also )?possible\b|\b(auf wunsch|bei bedarf|bei interesse) (ist|ware) (eine|die) (weiterleitung|ubermittlung|suche|recherche|prufung|kontaktaufnahme|ruckmeldung|vermittlung)\w*\b")
        .expect("valid pattern")
});

/// The assistant's remit in the impersonal register ("cannot be provided by
/// this assistant", "kann durch diesen Assistenten nicht gegeben werden",
/// "Assistance is limited to questions concerning the agency's listings",
/// "Die Beantwortung von Fragen beschränkt sich auf die Inserate", "I have
/// no access to weather data").
pub(super) static IMPERSONAL_SELF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(by|through|from) (this|the) (assistant|chat|chatbot|service)\b|\b(durch|von) (diesen|diesem|den|dem) (assistenten|chat|chatbot|dienst)\b|\b(assistance|support|help|answers?|information)\b.{0,30}\b(is|are) (limited|restricted|confined)\b|\b(beantwortung|unterstutzung|hilfe|auskunft|auskunfte|beratung)\b.{0,40}\b(beschrankt|begrenzt)\b|\bbeschrankt sich auf\b|\b(can|may) be answered here\b|\bhier (\w+ ){0,3}beantwortet werden\b|\b(i|we) (have|has) no (access|data|information|means|way)\b|\b(ich|wir) (habe|haben) (keinen|keine) (zugriff|daten|informationen|moglichkeit)\b")
        .expect("valid pattern")
});

/// Advice to the customer ("I would recommend checking the DWD", "Ich würde
/// Ihnen empfehlen, ein Bewertungsportal zu nutzen", "consultation of a
/// weather service is recommended", "ist die Nutzung eines Stadtführers
/// naheliegend"): what they might do, not a claim. Read so only in a
/// sentence without figures, where a fact could hide in the advice.
static ADVICE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(please note that |just to be safe,? |to be safe,? )?(i|we)('d| would)? (strongly )?(recommend|suggest|advise)\b|\b((ich|wir) (wurde|wurden)|(wurde|wurden) (ich|wir)) (ihnen )?(\w+ ){0,3}(empfehlen|raten)\b|^(ich|wir) (empfehle|empfehlen|rate|raten) (ihnen|dir)\b|\b(consultation|use|check|checking|verification|a look at|contacting)\b.{0,80}\b(is|are|would be) (recommended|advisable|advised|suggested)\b|\b(nutzung|konsultation|prufung|uberprufung|kontaktaufnahme|einsicht|blick)\b.{0,80}\b(ist|ware|wird) (\w+ )?(naheliegend|empfehlenswert|ratsam|empfohlen)\b|\b(ist|ware|wird) (die|eine|ein) (nutzung|konsultation|prufung|uberprufung|kontaktaufnahme|einsicht|blick)\b.{0,80}\b(naheliegend|empfehlenswert|ratsam|empfohlen)\b|\bempfiehlt sich (die|eine|ein)\b")
        .expect("valid pattern")
});

/// Whether a sentence advises the customer and states no figure.
fn advises(folded: &str) -> bool {
    (ADVICE.is_match(folded) || (ELSEWHERE.is_match(folded) && !PARTY.is_match(folded)))
        && !folded.chars().any(|c| c.is_ascii_digit())
}

/// Advice to look elsewhere that opens the sentence ("schauen Sie am besten
/// in ein Bewertungsportal", "your best bet is to check a review site"), folded.
static ELSEWHERE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\W*([^.:;]{0,40}[:,]\s*)?((zuerst|zunachst|dann|danach|first|then)\s*,?\s*)?((schauen|fragen|wenden|nutzen|suchen|informieren|erkundigen|recherchieren) sie\b.{0,80}\bam besten\b|am besten (\w+ ){0,2}(schauen|fragen|wenden|nutzen|suchen|informieren|erkundigen|recherchieren) sie\b|(your best bet|you'?re best off|you'?d be best off|it'?s best to)\b.{0,40}\b(check|ask|look|search|use|try|contact)\b)")
        .expect("valid pattern")
});

/// A party of the letting: advice to ask one of them is about the records'
/// matter, and the rest of the sentence may state it (folded).
static PARTY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"\b(vermieter\w*|eigentumer\w*|verkaufer\w*|hausverwaltung|landlord|owner|seller|agency|agentur|makler\w*)\b",
    )
    .expect("valid pattern")
});

/// The role of a sentence (folded): read without its bullet and label
/// first, then whole (a label may say the role itself: "**What I can do:**").
pub(super) fn role(folded: &str, question: bool) -> SentenceRole {
    let core = BULLET_LABEL.replace(folded, "");
    // "- **Heating:** Yes, it's covered": after a label, a short yes is the label's claim.
    let labelled = folded.len() > core.len() && folded[..folded.len() - core.len()].contains(':');
    match role_of(&core, question) {
        SentenceRole::Claim if core != folded => role_of(folded, question),
        SentenceRole::Courtesy if labelled && !offers(&core) => SentenceRole::Claim,
        r => r,
    }
}

/// Whether a sentence (folded) is only a courtesy: an offer ("Auf Wunsch kann
/// eine Suche nach Wohnungen erfolgen, in denen Katzen erlaubt sind"), a
/// referral, advice without a figure, a heading. It states nothing about the
/// records, so the rule judge reads no `must_not` statement in it.
pub fn courtesy_only(folded: &str) -> bool {
    role(folded, false) == SentenceRole::Courtesy
}

fn role_of(folded: &str, question: bool) -> SentenceRole {
    if question || RESTATED.is_match(folded.trim_start()) || TYPO.is_match(folded) {
        SentenceRole::Question
    } else if HEADING.is_match(folded)
        || REFERRAL.is_match(folded)
        || advises(folded)
        || IMPERSONAL_OFFER.is_match(folded)
        || (COURTESY.is_match(folded.trim()) && !answers(folded.trim()))
        || (offers(folded) && !offer_in_tail_only(folded) && !offer_in_head_only(folded))
    {
        SentenceRole::Courtesy
    } else if HANDOFF.is_match(folded) {
        SentenceRole::Handoff
    } else if SELF.is_match(folded) || IMPERSONAL_SELF.is_match(folded) {
        SentenceRole::Assistant
    } else {
        SentenceRole::Claim
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(s: &str) -> SentenceRole {
        role(&crate::fold::plain(s), false)
    }

    #[test]
    fn an_offer_in_the_impersonal_register_is_a_courtesy() {
        assert_eq!(
            r("- Auf Wunsch ist eine Weiterleitung dieser Frage an eine Kollegin oder einen Kollegen möglich."),
            SentenceRole::Courtesy
        );
        assert_eq!(
            r("- Forwarding of questions on the levy to a colleague can be arranged on request."),
            SentenceRole::Courtesy
        );
        assert_eq!(
            r("- Angaben zu Ihrer Katze können für die Anfrage an die Agentur übermittelt werden."),
            SentenceRole::Courtesy
        );
        // Done, not offered: a hand-off report.
        assert_eq!(r("Ihre Anfrage wurde an eine Kollegin weitergeleitet."), SentenceRole::Handoff);
        assert_eq!(r("The question has been forwarded to a colleague."), SentenceRole::Handoff);
        assert_eq!(r("Ich habe Ihre Anfrage an das Vermietungsteam übergeben."), SentenceRole::Handoff);
        // The flat is handed over to its buyer: no hand-off to a person.
        assert_eq!(
            r("Zuerst erwerben Sie die Wohnung; übergeben werden kann sie ab dem 1. Februar 2027."),
            SentenceRole::Claim
        );
        // A fact of the property in the passive stays a claim.
        assert_eq!(
            r("A space in the underground car park can be added for an extra 95 EUR per month."),
            SentenceRole::Claim
        );
        assert_eq!(r("Stellen Sie einfach eine Anfrage über uns, im Einzelfall ist das möglich."), SentenceRole::Claim);
    }

    #[test]
    fn short_offers_and_referrals_are_courtesies() {
        assert_eq!(r("Happy to run a search."), SentenceRole::Courtesy);
        assert_eq!(r("Dann gern Bescheid geben."), SentenceRole::Courtesy);
        assert_eq!(r("➡️ Für Ehrenfeld helfen Bewertungsportale oder ein Stadtmagazin weiter"), SentenceRole::Courtesy);
        assert_eq!(r("The heating is included in the utilities."), SentenceRole::Claim);
    }

    #[test]
    fn the_remit_in_the_impersonal_register_is_the_assistants() {
        assert_eq!(r("- Information on the weather, including a forecast for Hamburg this weekend, cannot be provided by this assistant."), SentenceRole::Assistant);
        assert_eq!(
            r("- Die Beantwortung von Fragen beschränkt sich auf die Inserate der Agentur."),
            SentenceRole::Assistant
        );
        assert_eq!(r("Please note that I have no access to weather data."), SentenceRole::Assistant);
    }

    #[test]
    fn advice_without_a_figure_is_a_courtesy() {
        assert_eq!(
            r("Für aktuelle Tipps würde ich Ihnen empfehlen, ein Bewertungsportal zu nutzen."),
            SentenceRole::Courtesy
        );
        assert_eq!(
            r("- For weather information, consultation of a weather service is recommended."),
            SentenceRole::Courtesy
        );
        assert_eq!(
            r("Für Restaurantempfehlungen ist die Nutzung eines Stadtführers naheliegend."),
            SentenceRole::Courtesy
        );
        // An offer in the impersonal register is no statement either.
        assert!(courtesy_only(&crate::fold::plain(
            "Auf Wunsch kann eine Suche nach Wohnungen erfolgen, in denen die Katzenhaltung gestattet ist."
        )));
        assert!(!courtesy_only(&crate::fold::plain("In B-2001 ist die Katzenhaltung gestattet.")));
        // Advice that carries a figure is read as a claim.
        assert_eq!(r("I would recommend keeping the 240 EUR as its own line in your budget."), SentenceRole::Claim);
    }
}
