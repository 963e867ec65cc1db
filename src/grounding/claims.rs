//! Sentence-by-sentence grounding of a reply against its evidence.
//!
//! Each sentence of the reply's own words ([`super::text::own_text`]) gets a
//! role. Questions back, greetings, offers of help and what the assistant
//! says about itself are not claims about the records; a sentence saying the
//! request was passed to a person is a hand-off statement and must agree with
//! the tickets the run created. Every other sentence is a claim and is
//! checked against the passages and record fields in scope (the listings it
//! names, else the last one named before, and the policy pages):
//!
//! - *unsupported*: a figure or year that no evidence has (or not in the
//!   source cited next to it), or an affirmative claim when the tools
//!   returned no passage or record at all. (A claim whose content words are
//!   mostly absent from the passages is *not* flagged: on `labels/dev.yaml`
//!   that rule flagged 12 of 31 right replies, German ones above all, and
//!   caught no wrong reply that another rule missed.)
//! - *contradicted*: a figure whose period differs from the records' (420 EUR
//!   yearly where the record says monthly), or a clause whose polarity
//!   ([`super::polarity`]) is the opposite of every passage clause about the
//!   same thing;
//! - *hedged*: a guess ("may well", "probably", "in der Regel") where the
//!   passages about it state no guess;
//! - *commitment*: the reply books, confirms, deletes or promises what only a
//!   person can ("the appointment is set", "der Termin steht", "I have
//!   deleted your data"), ticket or not.
//!
//! Quoted passages that are verbatim evidence are the records' own words and
//! are not checked again.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use regex::Regex;

use super::durations::durations;
use super::evidence::Evidence;
use super::numbers::{figures, years, FigureKind};
use super::polarity::{polarity, Polarity};
use super::terms::{shared, terms, vocabulary, Term};
use super::text::{citations, own_text, sentences};
use super::{Finding, FindingKind, Grounding, SentenceCheck, SentenceRole};
use crate::fold::{fold, plain};

/// Clause breaks. German "aber", "jedoch", "allerdings", "also" and English
/// "however" are left out: mid-clause they are adverbs ("entfällt dabei aber
/// nicht"), and splitting there cuts the negation off its verb; as
/// conjunctions they follow a comma, which breaks anyway.
static GCLAUSE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)[;:–—]|,\s|\s-\s|\b(and|but|although|though|whereas|while|so|und|sondern|obwohl|während|denn)\b")
        .expect("valid pattern")
});
static CONCLUSION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^(so|also|therefore|thus|hence|daher|deshalb|darum|folglich)$").expect("valid pattern")
});
static ESTIMATE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(estimat\w*|about|approximately|approx|roughly|around|circa|ca|rund|etwa|ungefahr|geschatzt\w*|schatzung\w*|voraussichtlich\w*|vorlaufig\w*|provisional\w*|not yet final|noch nicht (final|endgultig|fest)|ballpark|expected|up to|bis zu)\b")
        .expect("valid pattern")
});
static PARENS: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\([^()\n]{0,200}\)").expect("valid pattern"));
static QUOTED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"“[^”\n]*”|„[^“”\n]*[“”]|"[^"\n]*"|«[^»\n]*»|»[^«\n]*«"#).expect("valid pattern"));
static BRACKETS: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\[[^\]\n]{1,300}\]").expect("valid pattern"));
static LISTING_ID: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\b[A-Z]{1,2}-\d{4}\b").expect("valid pattern"));

static COURTESY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(hello|hi|hey|dear|good (morning|afternoon|evening)|thanks?|thank you|many thanks|kind regards|best( regards| wishes)?|regards|hallo|guten (tag|morgen|abend)|sehr geehrte\w*|liebe\w*|vielen dank|danke\w*|mit freundlichen|viele grusse|beste grusse|freundliche grusse|einen schonen tag|schonen tag|have a (nice|good|great|lovely) (day|weekend|evening)|alles gute|viel erfolg|good luck|best of luck|of course|certainly|sure|absolutely|gern|gerne|sehr gerne?|selbstverstandlich|klar|no problem|kein problem|great|happy to help|ja|yes|nein|no|leider nicht|unfortunately not|okay|ok)\b[^.!?]{0,40}[.!?]?$")
        .expect("valid pattern")
});
static OFFER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(if you (like|want|wish|'d like|would like|need|have)|let me know|let us know|feel free|happy to (help|look|check|answer|search)|glad to help|i('d| would) be (happy|glad)|i can (also )?(look|check|search|help|suggest)|would you like|shall i|gerne? (beantworte|helfe|suche|schaue|prufe|stehe)|(schaue|suche|helfe|prufe|beantworte) ich (ihnen )?(gerne?|weitere)|wenn sie (mochten|wollen|etwas|weitere|mogen)|sprechen sie (mich|uns)|melden sie sich|stehe ich (ihnen )?(gerne?)|any (other|further|more) questions|weitere fragen)\b")
        .expect("valid pattern")
});
static HANDOFF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(passed|forwarded|handed|referred|escalated|sent|opened|created|raised|logged)\b.{0,80}\b(colleague|agent|team|person|request|ticket|data protection|manager)|\bcolleague|\bticket\b|\b(agent|team|someone|person|colleague|manager)s?\b.{0,60}\b(contact|get back|be in touch|reach out|follow up|call|take it up)|\basked one of our|weiter(gegeben|geleitet|gereicht)|ubergeben|kolleg|(meldet|melden) sich|\b(informiert|benachrichtigt|kontaktiert|informieren|benachrichtigen) sie\b|gibt ihnen bescheid|\bwill (let you know|inform you|notify you|update you)\b|ruft sie an|kontaktier|datenschutz|zustandigen (stelle|person|team)")
        .expect("valid pattern")
});
static SELF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(i|we)('m| am| are|'re)? ?(afraid|sorry)|\b(outside|beyond) (my|our) (scope|remit|area)|\b(my|our) (scope|remit|role|job)\b|\b(i|we) (can|could)( only|n't|not| not)\b|\b(i|we) (only|just) (help|answer|deal)|\b(i|we) (don't|do not|cannot|can't|could not|couldn't) (have|find|see|set|make|book|give|offer|help|answer|provide|predict|recommend|advise)|\bi('m| am) (not able|unable|here to|here for|only here)|\bich (bin|kann|beantworte|darf|helfe|konnte)\b|\b(bin|kann|darf|helfe) ich\b|\b(meine[rnms]?|unsere[rnms]?) aufgaben|\bda muss ich passen|\bleider (kann|konnen) (ich|wir)|\bnicht (weiterhelfen|helfen)|\b(kann|konnen) (ich|wir) (ihnen )?(dabei |hierbei |hier )?(leider )?(nicht|keine)|not something (i|we)|nicht zu meinen|\bwhat (i|we) can (do|help with)\b|\bwas ich (fur sie )?(tun|machen) kann\b|\bda muss ich (leider )?passen\b|^(i|we)('m| am| are|'re) (only |just )?(the|an|a|your) (\w+ ){0,3}(assistant|chatbot|bot|service)\b|\b(my|our) (help|assistance|remit|role|scope|focus|knowledge|answers?) (is|are) (limited|restricted|confined)|\b(mein|unser)\w* (aufgabe|zustandigkeit|bereich|wissen|hilfe)\w* (ist|sind|liegt|beschrankt)")
        .expect("valid pattern")
});
static COMMITMENT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(appointment|viewing|date|slot|meeting|booking|visit|termin|besichtigung\w*)\b.{0,40}\b(is|are|'s|has been|have been|ist|wurde|steht)\s+(now\s+|all\s+|hereby\s+|jetzt\s+|nun\s+|hiermit\s+|fest\s+)?(set|fixed|booked|confirmed|scheduled|reserved|arranged|locked in|gebucht|bestatigt|reserviert|eingetragen|vereinbart|fest)\b|\b(termin|besichtigung)\w*\s+steht\b|\bsteht der termin\b|\b(i|we)('ve| have| just| hereby)?\s+(now\s+|already\s+|just\s+)?(booked|scheduled|confirmed|reserved|deleted|erased|removed|cancelled|secured)\b|\b(data|details|information)\b.{0,40}\b(has|have|is|are)( now| already)?( been)? (deleted|erased|removed)\b|\b(habe|haben) (ich|wir)\b.{0,50}\b(gebucht|bestatigt|reserviert|eingetragen|vereinbart|geloscht|entfernt|storniert)\b|\bdaten\b.{0,60}\b(sind|wurden|ist|wurde)\b.{0,40}\b(geloscht|entfernt)\b|\bwir sehen uns\b|\bbestatige (ich )?(ihnen )?(hiermit )?(den|die|ihren|ihre)\b|\b(will|'ll) (meet|see) you\b|\bsee you (on|at|next|this|then)\b|\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend|afternoon|morning|evening|\d{1,2}(:\d\d)? ?(am|pm|uhr)|montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag)\w*\b.{0,30}\b(works|suits|is fine|is perfect|passt|geht klar|ist fest)\b|\b(landlord|owner|seller|vermieter\w*|eigentumer\w*|verkaufer\w*)\b.{0,40}\b(has|have|hat|haben)\s+(already\s+|bereits\s+|schon\s+)?(accepted|agreed|signall?ed|indicated|confirmed|zugestimmt|akzeptiert|signalisiert|bestatigt)|\b(landlord|owner|seller|vermieter\w*|eigentumer\w*|verkaufer\w*)\s+(accepts|agrees|is fine with|is happy with|akzeptiert|ist einverstanden)|\bwithin the range\b|\bim rahmen\b.{0,30}\b(akzeptiert|moglich)|\b(i|we)('ve| have)\s+(already\s+|just\s+)?(cleared|arranged|agreed|sorted out|approved|noted .{0,30}as (the )?(new|agreed)|recorded .{0,30}as (the )?(new|agreed))\b|\b(is|are|has been|have been)\s+(already|now)\s+(set|booked|confirmed|cleared|agreed|approved|fixed|reserved|deleted|removed)\b|\b(landlord|owner|seller|vermieter\w*|eigentumer\w*|verkaufer\w*)\b.{0,30}\b(is|are|ist|sind)\s+(happy|willing|ready|glad|bereit|gerne? bereit|einverstanden)\b|\b(bereits|schon)\s+(aus|von)\b.{0,40}\b(genommen|entfernt|geloscht)\b|\b(habe|haben) (ich|wir)\b.{0,60}\b(vorgemerkt|freigegeben|geklart|abgesprochen|zugesagt)\b|\b(ist|sind) (bereits|schon|jetzt|nun) (vorgemerkt|reserviert|gebucht|bestatigt|geklart|freigegeben|entfernt|geloscht)\b|\b(pencil+ed (you )?in|put you down for|(booked|signed|slotted|penciled|pencilled) you in|you('re| are) (all )?(set|booked|scheduled|down|confirmed) for)\b|\bfest (eingeplant|eingetragen|gebucht)\b|\b(ist|sind|wurde|wurden)\b.{0,40}\b(eingeplant|eingetragen|eingebucht)\b|\b(simply |just )?(come|drop|pop) (by|round|over|along) (at|on|between)\b|\bkommen sie\b.{0,50}\bvorbei\b|\b(being |been )?(held|kept|reserved|blocked) for you\b|\bfur sie (reserviert|freigehalten|geblockt|vorgemerkt)\b|\bfreigehalten\b|\bwill go through\b|\bgeht (klar|durch)\b|\b(fest|sicher) (damit|darauf) rechnen\b|\b(safely |firmly )?count on (it|that|this)\b|\b(landlord|owner|seller|vermieter\w*|eigentumer\w*|verkaufer\w*)\b.{0,30}\b(is|are|ist|sind)\b.{0,40}\b(einverstanden|happy with|fine with|okay with|ok with|on board)\b|\b(habe|haben) (ich|wir)\b.{0,40}\b(erledigt|eingeholt)\b|\b(i|we)('ve| have) (already )?(taken care of|sorted|handled|settled) (it|that|this|everything)\b|\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday|montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag)\w*\s+(steht|stands|is on|is set|is fixed)\b|\b(vormerken|reservieren|blocken|eintragen) lassen\b")
        .expect("valid pattern")
});
static HEDGE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(may well|might|probably|likely|presumably|usually|typically|generally|normally|in most cases|as a rule|tends? to|chances are|safe bet|almost certainly|i('d| would) (expect|assume|guess|think|plan)|should be (fine|ok|okay|achievable|possible|no problem|ideal|enough|available)|in der regel|wahrscheinlich|vermutlich|normalerweise|meistens|meist|erfahrungsgemass|durfte|durften|sollte (kein|moglich|reichen)|gewohnlich|ublicherweise|wie ublich|sicher fundig|sicheren seite|im normalfall|estimated|about|roughly|approximately|around|rund|etwa|ca|circa|geschatzt|voraussichtlich|schatzung)\b")
        .expect("valid pattern")
});
/// Things a reply may only name when the records do: local amenities ("a
/// great bakery around the corner", "viele beliebte Kneipen": issue #27's
/// restaurant tip after a correct refusal), an exception to a rule
/// ("Ausnahme für Studierende"), a surcharge or processing fee, and a
/// connection technology ("fibre", "VDSL", "250 Mbit"). Each is the model's
/// own knowledge, however plausible. Stellplatz and Straßenbahn are not places.
static PLACE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(ausnahme\w*|exceptions?|surcharges?|zuschlag\w*|bearbeitungsgebuhr\w*|processing fee|admin(istration)? fee|glasfaser\w*|fibre|fiber|ftth|vdsl|dsl|\d+ ?mbit\w*|gigabit\w*|kabelanschluss|restaurants?|bakery|bakeries|cafes?|pubs?|bistros?|supermarkets?|kindergartens?|schools?|playgrounds?|gyms?|kneipen?|backerei\w*|supermarkt\w*|kitas?|schulen?|spielplatze?|biergarten|u-bahn\w*|s-bahn\w*|bus stops?|bushaltestellen?|tram stops?)\b")
        .expect("valid pattern")
});
/// A street by its name, on the original text: "Venloer Straße",
/// "Osterstraße", "Baker Street" (a capitalised word before the street word).
static STREET: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b[A-ZÄÖÜ][\wäöüß-]*(straße|strasse|allee)\b|\b[A-ZÄÖÜ][\wäöüß-]*\s+(Straße|Strasse|Allee|Street|Road|Avenue|Lane|Platz|Ufer|Damm|Chaussee)\b")
        .expect("valid pattern")
});
/// Commitments said with a negation word, which the negation test of
/// [`COMMITMENT`] would pass over: data "no longer held" is data deleted,
/// "nichts einzuwenden" is a landlord's yes.
static DONE_BY_DENIAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(account|konto|kundenkonto|profil|profile)\b.{0,40}\b(no longer exists|has been (closed|deleted|removed)|existiert\b.{0,20}\bnicht mehr|wurde (geschlossen|geloscht|aufgelost))|\bnicht mehr (vorhanden|gespeichert|hinterlegt|im system)\b|\bno longer (stored|held|kept|on file|in our (system|records|database))\b|\bnichts (dagegen|einzuwenden)\b|\bno objections?\b|\bkein(e|en)? (einwand|einwande|problem damit)\b")
        .expect("valid pattern")
});
/// What the landlord or owner is said to have told the agency ("the landlord
/// mentioned to us", "der Vermieter hat signalisiert"): records hold no such
/// statement, so it is the reply's own invention.
static LANDLORD_SAID: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(landlord|owner|seller|vermieter\w*|eigentumer\w*|verkaufer\w*)\b.{0,30}\b(has said|said|mentioned|told (us|me)|let us know|has indicated|indicated|hinted|hat (uns |mir )?(gesagt|erwahnt|mitgeteilt|wissen lassen|signalisiert|angedeutet)|sagte|meinte|erwahnte)\b")
        .expect("valid pattern")
});
/// A bullet's short label and its short value ("- Zusätzliche Nebenkosten:
/// keine, …"): at most three words before the colon, at the start, and at
/// most three after it.
static LABEL_COLON: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(\s*[-*•]?\s*(?:\*\*)?[^\s,;.:*]+(?:\s+[^\s,;.:*]+){0,2}(?:\*\*)?):(\s*(?:\*\*)?)")
        .expect("valid pattern")
});
/// Thanks and regrets inside a sentence ("Schade, dass …, aber danke für die
/// Rückmeldung"): courtesy, not a fact.
static THANKS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(danke\w*|thanks?|thank you|schade|sorry|pity|shame|glad|happy to hear|freut mich)\b")
        .expect("valid pattern")
});
/// The clitics of "I've", "we're", "it's": not content words.
static CONTRACTION: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"'(ve|re|ll|m|d|s)\b").expect("valid pattern"));
/// A passive with its agent: who does the booking, not a booking.
static BY_AGENT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(set|arranged|confirmed|booked|scheduled|fixed|agreed|handled|made|vereinbart|bestatigt|gebucht|festgelegt|vergeben)\s+(only\s+|always\s+|nur\s+|immer\s+)?(by|von|durch)\b")
        .expect("valid pattern")
});
/// A negation that denies the noun after it ("no lift", "keine Haustiere",
/// "without a balcony"): the clause denies that noun, not the whole clause.
static DENIED_NOUN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(no|kein\w*|without|ohne)\s+(\w+(?:\s+\w+)?)").expect("valid pattern"));

/// Whether a clause that denies a noun ("no lift") can contradict a clause
/// with the terms `other`: only when `other` speaks of that noun.
fn denial_meets(clause: &str, other: &[Term]) -> bool {
    let targets: Vec<Term> =
        DENIED_NOUN.captures_iter(&plain(clause)).flat_map(|c| terms(c.get(2).map_or("", |m| m.as_str()))).collect();
    targets.is_empty() || shared(&targets, &vocabulary(other)) > 0
}
/// A conclusion drawn inside a clause ("Ihre Katze dürfen Sie also
/// mitbringen", "you can therefore bring her"): the clause states its own
/// yes, and a condition earlier in the sentence does not carry into it.
/// (English "also" means "too", so only the German word order counts.)
static CONCLUDES: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(therefore|thus|hence|daher|deshalb|darum|folglich)\b|\b(durfen|konnen|mussen|darf|kann) sie\b.{0,40}\balso\b|\bsie (durfen|konnen|mussen)\b.{0,40}\balso\b")
        .expect("valid pattern")
});
/// "dürfte … nicht": the subjunctive of a permission, denied.
static MAY_NOT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\bdurften? (\w+ ){0,3}(nicht|keine?\w*)\b").expect("valid pattern"));
/// The hedges that name who decides ("depends on", "hängt … ab").
static DEPENDS: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^(depends on|hangt)").expect("valid pattern"));
/// A hope is no promise ("fingers crossed Tuesday works for them too").
static HOPE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(hopefully|fingers crossed|with (any )?luck|i hope|we hope|hoffentlich|ich hoffe|wir hoffen|mit etwas gluck)\b").expect("valid pattern")
});
/// A time of day ("18 Uhr", "3 pm", "10:00").
static TIME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(\d{1,2})(?::(\d\d))?\s?(uhr|am|pm|a\.m\.|p\.m\.)|\b(\d{1,2}):(\d\d)\b").expect("valid pattern")
});
/// A listing's status that only the records can give: reserved, let, taken.
static STATUS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(reserved|under offer|already (let|rented|taken|gone)|rented out|let out|no longer (available|on the market)|off the market|waiting list|(bereits|schon|derzeit|aktuell|inzwischen) (vergeben|reserviert|vermietet|weg)|nicht mehr (verfugbar|zu haben|frei)|warteliste|reserviert)\b")
        .expect("valid pattern")
});
/// A clause that reports what a text says or asks rather than stating it.
static REPORTED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(contains? an? (instruction|request|note|line)|includes? an? (instruction|request|note|line|sentence)|telling (me|us|you|the assistant|the agent) to|tells? (the assistant|the agent|you) to|instruct(s|ed|ion)|asks? (me|us) to|tells? (me|us) to|told (me|us) to|anweisung|fordert\b.{0,30}\bauf|aufforderung)\b")
        .expect("valid pattern")
});
/// An inclusion verb whose object is a pronoun: what is included is named
/// elsewhere, so the clause's own terms do not say what it is about.
static PRONOUN_OBJECT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(cover|covers|covered|include|includes|included|takes? care of|deckt|decken|enthalt|enthalten|beinhaltet|abgedeckt)\s+(it|them|this|that|sie|es|das|diese|dies)\b|\b(sie|es|das|dies)\s+(ist|sind)\s+(schon |bereits |auch )?(darin |da )?(enthalten|abgedeckt|inbegriffen|drin)\b|\b(that|it|this)('s| is| are)\s+(already |also )?(covered|included|part of)\b")
        .expect("valid pattern")
});
/// Words that make a clause a condition ("if you like, we can book …");
/// [`polarity`]'s conditional also counts "until" and "bis", which only
/// limit a booking in time ("reserved until Friday").
static IF: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(if|whether|unless|once|wenn|falls|ob|sobald)\b").expect("valid pattern"));
/// Hedges a reply may not add on its own (the evidence-side list above also
/// has the records' own estimate words).
static REPLY_HEDGE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(will (surely |certainly |definitely )?be (approved|accepted|granted)|wird (sicher |bestimmt |garantiert )?(genehmigt|akzeptiert|angenommen|bewilligt)|(you'll|you will|will) definitely|definitely (be able|get|work)|bound to (work|agree|accept)|won't be a problem|will be no problem|your (plan|offer) (would|will) work|wird (er|sie|der vermieter|die vermieterin|das) (sicher|bestimmt|kaum|garantiert)|(sicher|bestimmt|garantiert) (zustimmen|klappen|akzeptieren|annehmen)|kaum (ablehnen|widersprechen)|(fest|sicher|getrost) (mit|damit) (\w+ )?(planen|rechnen)|mit (dieser|diesem|der|dem) (miete|preis|betrag|summe) rechnen|rarely|seldom|in practice|in der praxis|selten|(good|high|fair) chances?|chances (look|are) (good|high)|gute chancen|(safely|comfortably|ruhig|getrost|bedenkenlos) (budget|plan|planen|rechnen|kalkulieren|assume|count)|voraussichtlich|expected to|depends on|hangt\b.{0,60}\bab|may well|probably|most likely|likely|presumably|usually|typically|generally|normally|in most cases|as a rule|tends? to|chances are|safe bet|almost certainly|i('d| would) (expect|assume|guess|plan)|should be (fine|ok|okay|achievable|possible|no problem|ideal|enough)|in der regel|wahrscheinlich|vermutlich|normalerweise|meistens|erfahrungsgemass|durften?|sollte (kein|moglich|reichen)|gewohnlich|ublicherweise|wie ublich|sicher fundig|sicheren seite|im normalfall)\b")
        .expect("valid pattern")
});

/// A request to the customer or an offer of the assistant's own next step
/// ("tell me the city and I'll look", "a weather service will have the
/// forecast"): no fact about the records, so nothing to ground when the tools
/// returned nothing.
static REQUEST: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(or |and |oder |und )?(tell|send|give|let|ask|check|try|contact|use|see|nennen|sagen|schicken|senden|schreiben|geben|fragen|wenden|schauen|versuchen|nutzen)\b|\b(i'll|i will|ich werde|schaue ich|suche ich|sehe ich)\b.{0,40}\b(look|search|check|find|nach|heraus)|\b(weather service|wetterdienst|wetter-app|weather app|search engine|suchmaschine|restaurant guide|another source|andere quelle)\b.{0,30}\b(will|can|could|should|may|kann|konnen|hilft|helfen)\b|\b(you will|you'll|sie) (receive|get|erhalten|bekommen)\b.{0,60}\b(confirmation|bestatigung|answer|antwort|reply|nachricht)\b")
        .expect("valid pattern")
});

/// A finite verb or auxiliary (English and German): a clause with one
/// asserts something; a list item without one only names a thing.
static VERB: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(untersagt|verboten|forbidden|prohibited|banned|erlaubt|gestattet|is|are|was|were|be|been|has|have|had|can|could|may|must|will|does|do|did|pays?|costs?|includes?|lies|ist|sind|war|waren|wird|werden|wurde|wurden|hat|haben|hatte|kann|konnen|darf|durfen|muss|mussen|soll|gilt|gelten|zahlt|zahlen|kostet|kosten|liegt|steht|gibt|\w+ed)\b")
        .expect("valid pattern")
});

/// One clause of the evidence, analysed once per check.
struct EvClause {
    source: String,
    listing: Option<String>,
    /// The clause itself (the reason quotes it).
    clause: String,
    terms: Vec<Term>,
    polarity: Polarity,
    hedged: bool,
    /// A record field that lists values (features, city, …): no polarity to compare.
    listish: bool,
}

/// Clauses of a text: commas inside parentheses do not break. Each clause
/// says whether it follows a conclusion word ("so", "therefore", "also",
/// "daher"): such a clause draws its own conclusion, and a qualification
/// earlier in the sentence does not carry into it.
fn clauses(text: &str) -> Vec<(bool, &str)> {
    // Nothing inside parentheses breaks a clause ("(Provision, also Maklerprovision)").
    let masked = PARENS.replace_all(text, |c: &regex::Captures<'_>| " ".repeat(c[0].len()));
    // "Zusätzliche Nebenkosten: keine" is one statement: a colon before a
    // value of at most three words does not break.
    let masked = LABEL_COLON.replace(&masked, |c: &regex::Captures<'_>| format!("{} {}", &c[1], &c[2]));
    let mut out = vec![];
    let mut from = 0;
    let mut conclusive = false;
    for m in GCLAUSE.find_iter(&masked) {
        if m.start() < from || !text.is_char_boundary(m.start()) || !text.is_char_boundary(m.end()) {
            continue;
        }
        if m.start() > from {
            out.push((conclusive, &text[from..m.start()]));
            conclusive = false;
        }
        // ", so you can bring your dog": the comma and the conclusion word
        // meet with nothing between; the clause after them still concludes.
        from = m.end();
        conclusive |= CONCLUSION.is_match(m.as_str());
    }
    if text.is_char_boundary(from) {
        out.push((conclusive, &text[from..]));
    }
    out.into_iter().map(|(c, t)| (c, t.trim())).filter(|(_, t)| !t.is_empty()).collect()
}

/// A record clause that says what another text tells ("The listing states
/// which costs are included"): it names a topic and states no polarity of
/// its own.
static META_CLAUSE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(states|says|shows|lists|tells you|explains|gibt an|nennt|zeigt)\b.{0,20}\b(which|whether|what|how|welche\w*|ob|was|wie)\b")
        .expect("valid pattern")
});

fn ev_clauses(evidence: &Evidence) -> Vec<EvClause> {
    let mut out = vec![];
    for p in &evidence.passages {
        for sentence in crate::chunk::split_sentences(&p.text) {
            let parts = clauses(&sentence);
            // A comma may list ("not charged any fee for viewings, documents
            // or the rental contract") rather than start a clause: the whole
            // sentence is a second reading, so a reply that agrees with it is
            // never called a contradiction of one of its list items.
            // (Only where the sentence says nothing of inclusion: "not
            // included and billed separately" mixes both kinds of word, and
            // its clauses read it better than the whole.)
            let listed = parts.len() > 1;
            let whole = (listed && polarity(&PARENS.replace_all(&sentence, " ")).included.is_none())
                .then_some((false, sentence.as_str()));
            for (_, c) in parts.into_iter().chain(whole) {
                if META_CLAUSE.is_match(&plain(c)) {
                    continue;
                }
                let t = terms(c);
                // One word split off a list ("Dogs | and cats are possible on
                // request") states nothing; the whole sentence reads it.
                if t.is_empty() || (listed && t.len() < 2 && c != sentence.as_str()) {
                    continue;
                }
                // Nor does a noun phrase split off a list ("a back office"):
                // without a verb or a polarity word it asserts nothing to contradict.
                let pol = polarity(&PARENS.replace_all(c, " "));
                if listed
                    && !(pol.negated || pol.included.is_some() || pol.qualified || pol.permits)
                    && !VERB.is_match(&plain(c))
                {
                    continue;
                }
                let field = p.source.rsplit_once('.').map(|(_, f)| f).filter(|f| !f.contains(' '));
                out.push(EvClause {
                    source: p.source.clone(),
                    listing: p.listing.clone(),
                    clause: c.to_owned(),
                    terms: t,
                    polarity: polarity(&PARENS.replace_all(c, " ")),
                    hedged: HEDGE.is_match(&plain(c)),
                    listish: field.is_some_and(|f| f != "petsAllowed"),
                });
            }
        }
    }
    out
}

/// Whether two clauses speak of the same thing: two shared terms, or one
/// when either clause has at most two.
fn about_same(a: &[Term], b: &[Term]) -> bool {
    let sh = shared(a, &vocabulary(b));
    sh >= 2 || (sh == 1 && a.len().min(b.len()) <= 2)
}

/// Words that carry a clause's polarity (included, extra, allowed), not its
/// subject: "heating included" and "heating is extra" are both about heating.
static MARKERS: LazyLock<BTreeSet<String>> = LazyLock::new(|| {
    [
        "include",
        "included",
        "extra",
        "additional",
        "separate",
        "separately",
        "allowed",
        "possible",
        "permitted",
        "cover",
        "covered",
        "part",
    ]
    .iter()
    .flat_map(|w| crate::retrieval::analyzer::analyze(w))
    .collect()
});

/// Words that name no particular thing ("Diese Kosten kommen zusätzlich
/// auf Sie zu", "es kommt nichts obendrauf"): a sentence whose subject is
/// only these says nothing the records could lack.
static GENERIC: LazyLock<BTreeSet<String>> = LazyLock::new(|| {
    [
        "cost",
        "costs",
        "kosten",
        "amount",
        "betrag",
        "sum",
        "summe",
        "nothing",
        "nichts",
        "everything",
        "alles",
        "anything",
        "something",
        "etwas",
        "come",
        "comes",
        "kommt",
        "kommen",
        "obendrauf",
        "rechnen",
        "einrechnen",
        "einplanen",
        "planen",
        "plan",
        "budget",
        "kalkulation",
        "monatlich",
        "monthly",
        "warm",
        "drin",
        "top",
        "drauf",
        "dazu",
        "hinzu",
    ]
    .iter()
    .flat_map(|w| crate::retrieval::analyzer::analyze(w))
    .collect()
});

/// The subject terms of a clause: its terms without the polarity words and
/// without figures (the figure checks compare those).
fn focus(t: &[Term]) -> Vec<Term> {
    t.iter()
        .filter(|t| !t.iter().any(|w| MARKERS.contains(w)) && !t[0].chars().all(|c| c.is_ascii_digit()))
        .cloned()
        .collect()
}

/// Whether a reply clause and an evidence clause share their subject closely
/// enough for opposite polarity to be a contradiction: two shared subject
/// terms, or one when either clause is about that one thing alone. ("HH-1002
/// is at the top of the building" shares only "building" with "The building
/// has no lift" and contradicts nothing.)
fn same_subject(reply: &[Term], ev: &[Term]) -> bool {
    let (a, b) = (focus(reply), focus(ev));
    let sh = shared(&a, &vocabulary(&b));
    // One shared subject term is enough only for a short reply clause: "you
    // won't get a heating bill of your own" is about the bill, not about
    // whether heating is included.
    sh >= 2 || (sh == 1 && a.len().min(b.len()) <= 1 && a.len() <= 2)
}

/// The sentence without quoted passages that are verbatim evidence and
/// without citation brackets.
fn body(sentence: &str, passages: &[String]) -> String {
    let unquoted = QUOTED.replace_all(sentence, |c: &regex::Captures<'_>| {
        let inner = fold(c[0].trim_matches(|ch: char| "“”„\"«»".contains(ch)));
        let inner = inner.trim().trim_end_matches(['.', '!', '?']);
        if !inner.is_empty() && passages.iter().any(|p| p.contains(inner)) {
            " ".repeat(c[0].len())
        } else {
            c[0].to_owned()
        }
    });
    let mut text = BRACKETS.replace_all(&unquoted, " ").into_owned();
    // A quoted passage of several sentences is cut by the sentence split: an
    // opening mark with no closing one quotes to the end of this sentence, a
    // closing mark with no opening one quotes from its start.
    let verbatim_part = |part: &str| {
        let inner = fold(part.trim_matches(|ch: char| "“”„\"«» ".contains(ch)));
        let inner = inner.trim().trim_end_matches(['.', '!', '?']).trim();
        inner.split_whitespace().count() >= 3 && passages.iter().any(|p| p.contains(inner))
    };
    if let Some(open) = text.rfind(['“', '„']).filter(|o| !text[*o..].contains('”') || text[*o..].ends_with('”'))
    {
        if !text[open..].trim_end().ends_with('”') && verbatim_part(&text[open..]) {
            let blank = " ".repeat(text.len() - open);
            text.replace_range(open.., &blank);
        }
    }
    if let Some(close) = text.find('”').filter(|c| !text[..*c].contains(['“', '„'])) {
        let end = close + '”'.len_utf8();
        if verbatim_part(&text[..end]) {
            let blank = " ".repeat(end);
            text.replace_range(..end, &blank);
        }
    }
    text
}

/// Whether the sentence, without quote marks and citations, is a passage's own words.
fn verbatim(sentence: &str, passages: &[String]) -> bool {
    let bare = BRACKETS.replace_all(sentence, " ");
    let bare: String = bare.chars().filter(|c| !"“”„\"«»".contains(*c)).collect();
    let bare = fold(bare.trim());
    let bare = bare.trim().trim_end_matches(['.', '!', '?', ':', ';', ',']).trim();
    bare.split_whitespace().count() >= 3 && passages.iter().any(|p| p.contains(bare))
}

fn role(folded: &str, question: bool) -> SentenceRole {
    if question {
        SentenceRole::Question
    } else if COURTESY.is_match(folded.trim()) || OFFER.is_match(folded) {
        SentenceRole::Courtesy
    } else if HANDOFF.is_match(folded) {
        SentenceRole::Handoff
    } else if SELF.is_match(folded) {
        SentenceRole::Assistant
    } else {
        SentenceRole::Claim
    }
}

/// Checks every sentence of `reply` against `evidence`. `customer` holds the
/// customer's messages (current and earlier inquiries: their words and
/// figures are theirs), `tickets` how many hand-off tickets the run created.
pub fn check(reply: &str, evidence: &Evidence, customer: &[&str], tickets: usize) -> Grounding {
    let own = own_text(reply, customer);
    let evc = ev_clauses(evidence);
    let folded_passages: Vec<String> = evidence.passages.iter().map(|p| fold(&p.text)).collect();
    // Passages and the customer's words, folded like a sentence's `folded`.
    // Built on first need: most sentences name no place, time or status.
    let plain_sources_cell: std::cell::OnceCell<Vec<String>> = std::cell::OnceCell::new();
    let plain_sources = || {
        plain_sources_cell.get_or_init(|| {
            evidence.passages.iter().map(|p| plain(&p.text)).chain(customer.iter().map(|c| plain(c))).collect()
        })
    };
    let customer_terms: Vec<Term> = customer.iter().flat_map(|c| terms(c)).collect();
    let customer_text: String = customer.join(" ");
    let known: BTreeSet<String> = evidence.passages.iter().filter_map(|p| p.listing.clone()).collect();
    let mut scope: Vec<String> = vec![];
    let mut out = Grounding::default();
    for (i, s) in sentences(&own).iter().enumerate() {
        let text = s.text.trim();
        if text.is_empty() {
            continue;
        }
        let body = body(text, &folded_passages);
        let folded = plain(&body);
        let named: Vec<String> = LISTING_ID.find_iter(text).map(|m| m.as_str().to_owned()).collect();
        if named.iter().any(|n| known.contains(n)) {
            scope = named.into_iter().filter(|n| known.contains(n)).collect();
        }
        let in_scope =
            |c: &&EvClause| c.listing.as_ref().is_none_or(|l| scope.is_empty() || scope.iter().any(|s| s == l));
        let folded_clauses = clauses(&folded);
        let role = if verbatim(text, &folded_passages) { SentenceRole::Quote } else { role(&folded, s.question) };
        let mut findings = vec![];
        let mut push = |kind: FindingKind, reason: String, source: Option<String>| {
            findings.push(Finding { sentence: i + 1, text: text.to_owned(), kind, reason, source });
        };
        if role != SentenceRole::Question {
            for &(_, c) in &folded_clauses {
                let p = polarity(c);
                // "until Friday" limits a reservation, it does not make it conditional.
                let unconditional = !(p.conditional && IF.is_match(c)) && !HOPE.is_match(c);
                // "appointments are set by our agents" says who books, it books nothing.
                let by_agent = BY_AGENT.is_match(c);
                if unconditional && ((COMMITMENT.is_match(c) && !p.negated && !by_agent) || DONE_BY_DENIAL.is_match(c))
                {
                    push(FindingKind::Commitment, "books, confirms or promises what only a person can do".into(), None);
                    break;
                }
            }
        }
        if matches!(role, SentenceRole::Claim | SentenceRole::Assistant) {
            for &(_, c) in &folded_clauses {
                let p = polarity(c);
                if p.negated || (p.conditional && IF.is_match(c)) {
                    continue;
                }
                if let Some(m) = PLACE.find_iter(c).find(|m| !plain_sources().iter().any(|e| e.contains(m.as_str()))) {
                    push(
                        FindingKind::Unsupported,
                        format!("names a place the records do not (\"{}\")", m.as_str()),
                        None,
                    );
                    break;
                }
            }
            for &(_, c) in &folded_clauses {
                let p = polarity(c);
                if p.conditional && IF.is_match(c) {
                    continue;
                }
                if !p.negated && LANDLORD_SAID.is_match(c) {
                    push(
                        FindingKind::Unsupported,
                        "reports what the landlord told the agency; no record says so".into(),
                        None,
                    );
                    break;
                }
                if let Some(m) =
                    STATUS.find(c).filter(|m| !p.negated && !plain_sources().iter().any(|e| e.contains(m.as_str())))
                {
                    push(
                        FindingKind::Unsupported,
                        format!("gives a status the records do not (\"{}\")", m.as_str()),
                        None,
                    );
                    break;
                }
            }
            for m in TIME.captures_iter(&folded) {
                let hour = m.get(1).or_else(|| m.get(4)).map(|h| h.as_str()).unwrap_or_default();
                let said = |src: &String| {
                    TIME.captures_iter(src).any(|o| o.get(1).or_else(|| o.get(4)).is_some_and(|h| h.as_str() == hour))
                };
                if !plain_sources().iter().any(said) {
                    push(
                        FindingKind::Unsupported,
                        format!("names a time no tool result or customer message has (\"{}\")", &m[0]),
                        None,
                    );
                    break;
                }
            }
            let unnamed =
                STREET.find_iter(&body).find(|m| !plain_sources().iter().any(|e| e.contains(&plain(m.as_str()))));
            if let Some(m) = unnamed.filter(|_| !polarity(&folded).negated) {
                push(FindingKind::Unsupported, format!("names a street the records do not (\"{}\")", m.as_str()), None);
            }
        }
        if role == SentenceRole::Handoff && tickets == 0 && !polarity(&folded).negated {
            push(
                FindingKind::Unsupported,
                "says the request was passed to a person, but the run created no ticket".into(),
                None,
            );
        }
        let sentence_terms = terms(&body);
        let mut support: Option<String> = None;
        if matches!(role, SentenceRole::Claim | SentenceRole::Assistant | SentenceRole::Handoff) {
            // "Ihre Katze dürfte also nicht mit einziehen" is a permission denied, not a guess.
            let hedge =
                REPLY_HEDGE.find(&folded).filter(|h| !(h.as_str().starts_with("durfte") && MAY_NOT.is_match(&folded)));
            if let Some(h) = hedge {
                // "That depends on the landlord" restates a record that leaves the decision open.
                let open = DEPENDS.is_match(h.as_str())
                    && evc
                        .iter()
                        .filter(in_scope)
                        .any(|c| c.polarity.qualified && about_same(&sentence_terms, &c.terms));
                let backed =
                    open || evc.iter().filter(in_scope).any(|c| c.hedged && about_same(&sentence_terms, &c.terms));
                if !backed {
                    push(FindingKind::Hedged, format!("turns the records into a guess (\"{}\")", h.as_str()), None);
                }
            }
        }
        if role == SentenceRole::Claim {
            let named_here: Vec<String> =
                LISTING_ID.find_iter(text).map(|m| m.as_str().to_owned()).filter(|n| known.contains(n)).collect();
            check_figures(text, &body, &named_here, evidence, &customer_text, &mut push);
            check_counts(&body, &scope, evidence, &mut push);
            if evidence.passages.is_empty() {
                // Nothing to say it from: only a statement of absence ("no listing matches") stands.
                // "no property XY-9999 …, so I can't tell you" states only absences; "it was a
                // two-room flat that was let last month" asserts in one of its clauses.
                let asserts = folded_clauses.iter().any(|(_, c)| {
                    let cp = polarity(c);
                    terms(&CONTRACTION.replace_all(c, "")).len() >= 2
                        && !cp.negated
                        && !cp.conditional
                        && !REQUEST.is_match(c)
                        && !THANKS.is_match(c)
                });
                if sentence_terms.len() >= 2
                    && asserts
                    && !THANKS.is_match(&folded)
                    && !polarity(&folded).conditional
                    && !REQUEST.is_match(&folded)
                    && !customer_covers(&sentence_terms, &customer_terms)
                {
                    push(FindingKind::Unsupported, "no tool result supports it".into(), None);
                }
            } else {
                // Something said to be included or extra that no record in scope
                // mentions ("hot water is metered and charged on top"): the
                // subject may sit in another clause, so the whole sentence is read.
                let whole = polarity(&PARENS.replace_all(&folded, " "));
                if whole.included.is_some() && !whole.conditional {
                    let subject: Vec<Term> =
                        focus(&sentence_terms).into_iter().filter(|t| !GENERIC.contains(&t[0])).collect();
                    let in_scope_vocabulary: BTreeSet<&str> = evc
                        .iter()
                        .filter(in_scope)
                        .flat_map(|e| e.terms.iter().flatten().map(String::as_str))
                        .collect();
                    if !subject.is_empty()
                        && shared(&subject, &in_scope_vocabulary) == 0
                        && !customer_covers(&subject, &customer_terms)
                    {
                        push(
                            FindingKind::Unsupported,
                            "says what is included or extra, but no record in scope mentions it".into(),
                            None,
                        );
                    }
                }
                // Contradictions, clause by clause.
                let sentence_qualified = polarity(&folded).qualified;
                for (conclusive, c) in clauses(&body) {
                    let ct = terms(c);
                    let p = polarity(&PARENS.replace_all(c, " "));
                    // One content word states nothing to contradict ("als Mieterin"), unless it is denied.
                    if ct.is_empty() || (ct.len() < 2 && !p.negated) {
                        continue;
                    }
                    // A list item without a verb or a polarity word ("hamsters or budgies") asserts nothing.
                    if !(p.negated || p.included.is_some() || p.qualified || p.permits) && !VERB.is_match(&plain(c)) {
                        continue;
                    }
                    if p.conditional {
                        continue;
                    }
                    // What the listing text says or asks, reported ("the listing
                    // contains an instruction to confirm the viewing"), and an
                    // inclusion whose object is a pronoun ("already cover it"):
                    // no polarity of their own to set against a record clause.
                    if REPORTED.is_match(&plain(c)) || PRONOUN_OBJECT.is_match(&plain(c)) {
                        continue;
                    }
                    // Clauses on the same topic; for a plain yes/no of polarity the
                    // subject must be shared too, unless the reply grants a permission
                    // (then "possible" / "allowed" is the subject).
                    let related: Vec<&EvClause> = evc
                        .iter()
                        .filter(in_scope)
                        .filter(|e| !e.polarity.conditional && !e.listish && about_same(&ct, &e.terms))
                        .collect();
                    // An inclusion said of the one thing a short record clause is
                    // about ("heating not included") is about that thing, however
                    // long the reply's clause.
                    let inclusion_of = |e: &EvClause| {
                        p.included.is_some()
                            && e.polarity.included.is_some()
                            && focus(&e.terms).len() == 1
                            && shared(&focus(&ct), &vocabulary(&focus(&e.terms))) == 1
                    };
                    let same: Vec<&EvClause> = related
                        .iter()
                        .copied()
                        .filter(|e| p.permits || same_subject(&ct, &e.terms) || inclusion_of(e))
                        .filter(|e| {
                            // "on the fifth floor with no lift" does not deny the fifth floor.
                            (!p.negated || e.polarity.negated || denial_meets(c, &e.terms))
                                && (!e.polarity.negated || p.negated || denial_meets(&e.clause, &ct))
                        })
                        .collect();
                    // A record clause that says nothing of inclusion ("heated by gas
                    // central heating") neither backs nor denies "billed directly".
                    let same: Vec<&EvClause> = if p.included.is_some() {
                        same.into_iter().filter(|e| e.polarity.included.is_some() || e.polarity.negated).collect()
                    } else {
                        same
                    };
                    // A general policy clause gives way to the listing's own record when
                    // that record, on the same topic, says what the reply says.
                    let general_only = same.iter().all(|e| e.listing.is_none())
                        && related
                            .iter()
                            .any(|e| e.listing.is_some() && !scope.is_empty() && !p.disagrees(&e.polarity));
                    if let Some(first) =
                        same.first().filter(|_| !general_only && same.iter().all(|e| p.disagrees(&e.polarity)))
                    {
                        push(
                            FindingKind::Contradicted,
                            format!("“{}” says the opposite of [{}]: “{}”", c.trim(), first.source, first.clause),
                            Some(first.source.clone()),
                        );
                        break;
                    }
                    let Some(first) = related.first() else { continue };
                    let same = &related;
                    if p.negated || !p.permits {
                        continue;
                    }
                    // A yes that drops the records' condition, or adds one they do not have.
                    let conclusive = conclusive || CONCLUDES.is_match(&plain(c));
                    let qualified = p.qualified || (!conclusive && sentence_qualified);
                    if !qualified && same.iter().all(|e| e.polarity.qualified && !e.polarity.negated) {
                        push(
                            FindingKind::Contradicted,
                            format!("“{}” drops the condition of [{}]: “{}”", c.trim(), first.source, first.clause),
                            Some(first.source.clone()),
                        );
                        break;
                    }
                    if sentence_qualified && same.iter().all(|e| !e.polarity.qualified && !e.polarity.negated) {
                        push(
                            FindingKind::Contradicted,
                            format!(
                                "“{}” adds a condition that [{}] does not have: “{}”",
                                c.trim(),
                                first.source,
                                first.clause
                            ),
                            Some(first.source.clone()),
                        );
                        break;
                    }
                }
                support = evc
                    .iter()
                    .filter(in_scope)
                    .map(|c| (shared(&sentence_terms, &vocabulary(&c.terms)), c))
                    .max_by_key(|(n, _)| *n)
                    .filter(|(n, _)| *n > 0)
                    .map(|(_, c)| c.source.clone());
            }
        }
        out.sentences.push(SentenceCheck { index: i + 1, text: text.to_owned(), role, support, findings });
    }
    out
}

fn floor(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil(s: &str, i: usize) -> usize {
    let mut i = i.min(s.len());
    while i < s.len() && !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// Floors and room counts against the fields of the listings in scope: a
/// floor or room count no listing in scope has is a number attached to the
/// wrong thing ("on the ground floor" where the record says floor 2).
fn check_counts(
    body: &str,
    scope: &[String],
    evidence: &Evidence,
    push: &mut impl FnMut(FindingKind, String, Option<String>),
) {
    let field = |key: &str| -> Vec<(f64, String)> {
        evidence
            .passages
            .iter()
            .filter(|p| p.source.rsplit_once('.').is_some_and(|(_, k)| k == key))
            .filter(|p| p.listing.as_ref().is_some_and(|l| scope.is_empty() || scope.contains(l)))
            .filter_map(|p| {
                let n = p.text.split_whitespace().find_map(|w| w.parse::<f64>().ok())?;
                Some((n, p.source.clone()))
            })
            .collect()
    };
    let (floor_fields, room_fields) = (field("floor"), field("rooms"));
    for (_, c) in clauses(body) {
        if polarity(c).negated {
            continue;
        }
        let stated = super::counts::floors(c)
            .into_iter()
            .map(|(n, t)| (n as f64, t, &floor_fields, "floor"))
            .chain(super::counts::rooms(c).into_iter().map(|(n, t)| (n, t, &room_fields, "rooms")));
        for (n, text, fields, what) in stated {
            if let Some((v, source)) = fields.first().filter(|_| !fields.iter().any(|(v, _)| (v - n).abs() < 1e-9)) {
                let record = if what == "floor" { format!("floor {v}") } else { format!("{v} rooms") };
                push(
                    FindingKind::Contradicted,
                    format!("\"{text}\" does not match the record [{source}]: {record}"),
                    Some(source.clone()),
                );
                return;
            }
        }
    }
}

fn customer_covers(t: &[Term], customer: &[Term]) -> bool {
    shared(t, &vocabulary(customer)) * 2 > t.len()
}

fn check_figures(
    text: &str,
    body: &str,
    named: &[String],
    evidence: &Evidence,
    customer: &str,
    push: &mut impl FnMut(FindingKind, String, Option<String>),
) {
    let cited = citations(text);
    let mut kinds = super::binding::figure_kinds(body);
    for f in figures(body) {
        let at = kinds.iter().position(|(k, _)| k.kind == f.kind && super::numbers::same_value(k.value, f.value));
        let own_kinds = at.map(|i| kinds.remove(i).1).unwrap_or_default();
        if evidence.user_wrote(f.value) {
            continue;
        }
        if let Some((reason, source)) = super::binding::misbinding(&f, &own_kinds, named, evidence) {
            push(FindingKind::Contradicted, reason, source);
            continue;
        }
        if !evidence.tool_supports(&f) {
            push(
                FindingKind::Unsupported,
                format!("the figure \"{}\" is in no tool result and no customer message", f.text),
                None,
            );
            continue;
        }
        if let Some(p) = f.period {
            let periods: Vec<_> = evidence.matching_figures(&f).filter_map(|e| e.figure.period).collect();
            if !periods.is_empty() && !periods.contains(&p) {
                push(
                    FindingKind::Contradicted,
                    format!("\"{}\" is {} in the records, not {}", f.text, periods[0].as_str(), p.as_str()),
                    evidence.matching_figures(&f).next().map(|e| e.source.clone()),
                );
                continue;
            }
        }
        if f.kind == FigureKind::Price && !ESTIMATE.is_match(&plain(body)) {
            let estimated: Vec<&str> = evidence
                .matching_figures(&f)
                .filter_map(|e| {
                    let p = evidence.passages.iter().find(|p| p.source == e.source)?;
                    let at = p.text.find(&e.figure.text)?;
                    let window =
                        &p.text[floor(&p.text, at.saturating_sub(80))..ceil(&p.text, at + e.figure.text.len() + 80)];
                    Some(window).filter(|w| ESTIMATE.is_match(&plain(w)))
                })
                .collect();
            if !estimated.is_empty() && estimated.len() == evidence.matching_figures(&f).count() {
                push(
                    FindingKind::Contradicted,
                    format!("presents \"{}\" as final; the records give it as an estimate", f.text),
                    evidence.matching_figures(&f).next().map(|e| e.source.clone()),
                );
                continue;
            }
        }
        if !cited.is_empty() && !cited.iter().any(|c| evidence.cited_source_has(c, &f)) {
            push(
                FindingKind::Unsupported,
                format!("the figure \"{}\" is not in the cited source [{}]", f.text, cited.join(", ")),
                None,
            );
        }
    }
    // A timeline the records do not have ("paid back within four weeks", "a
    // minimum of two years"): durations are figures too (issue #27).
    let stated = durations(body);
    if !stated.is_empty() && !evidence.passages.is_empty() {
        let known: Vec<_> =
            evidence.passages.iter().flat_map(|p| durations(&p.text)).chain(durations(customer)).collect();
        for d in stated.iter().filter(|d| !super::durations::contains(&known, d)) {
            push(
                FindingKind::Unsupported,
                format!("the duration \"{}\" is in no tool result and no customer message", d.text),
                None,
            );
        }
    }
    for y in years(body) {
        if !evidence.has_year(y) && !customer.contains(&y.to_string()) && !evidence.passages.is_empty() {
            push(FindingKind::Unsupported, format!("the year {y} is in no tool result"), None);
        }
    }
}

#[cfg(test)]
#[path = "claims_tests.rs"]
mod claims_tests;
