//! Dialogue acts: a `must` item that says what the reply *does* — passes the
//! request to a person, declines what is outside its remit — is conveyed by
//! the act itself, however it is worded ("I've asked one of our letting
//! agents to take it up", "Da muss ich passen: Restauranttipps gehören nicht
//! zu meinen Aufgaben"). The act is read from grounding's sentence roles
//! ([`crate::grounding::SentenceRole`]):
//!
//! - a hand-off item is conveyed by a hand-off sentence that grounding does
//!   not flag (so the run created a ticket), when the reply commits to
//!   nothing only a person can (no `commitment` finding);
//! - a refusal item is conveyed by what the assistant says of its own remit
//!   when that declines or limits ("I can't", "only", "nicht zu meinen
//!   Aufgaben"), in a reply with no finding at all;
//! - a no-match item ("Says that no listing matches") is conveyed by a
//!   sentence that reports the empty result ("0 results", "isn't something
//!   we have", "da ist leider nichts dabei") when no tool returned a listing,
//!   in a reply with no finding at all.
//!
//! Only when the pattern and meaning routes did not convey the item; the
//! route is named `act` in verdicts and in `judge-check`.
//!
//! Two `must_not` items are read as acts too: "offers a listing anyway" is
//! stated by a sentence that gives a listing's price ([`offered_listing`]),
//! and a forbidden booking is not made by a clean hand-off sentence in which
//! a person of the agency does it ([`delegated`]).

use std::sync::LazyLock;

use regex::Regex;

use crate::fold::plain;
use crate::grounding::numbers::{figures, FigureKind};
use crate::grounding::polarity::polarity;
use crate::grounding::text::Sentence;
use crate::grounding::{reports_empty_result, Evidence, FindingKind, Grounding, SentenceRole};

/// An item that states a hand-off ("has been passed to a person",
/// "wurde an eine Person weitergegeben").
static HANDOFF_ITEM: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(passed|forwarded|handed|referred|weitergegeben|weitergeleitet|ubergeben)\b").expect("valid pattern")
});

/// An item that states a refusal ("cannot help with the weather", "kann
/// dabei nicht helfen", "gives no tax advice").
static REFUSAL_ITEM: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(cannot|can't|can not|could not|couldn't|does not|doesn't|will not|won't) (help|answer|give|recommend|predict|advise|provide|make)\b|\bnicht (helfen|weiterhelfen|beantworten|empfehlen|geben|vorhersagen)\b|\b(kann|konne|darf)\b.{0,40}\b(nicht|keine\w*)\b|\bkeine (empfehlung|prognose|beratung|auskunft|steuerberatung|rechtsberatung)\w*|\bout of scope\b")
        .expect("valid pattern")
});

/// An item that states an empty search ("Says that no listing matches",
/// "Sagt, dass kein Angebot passt").
static NO_MATCH_ITEM: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\bno (matching |suitable )?(listings?|offers?|propert(y|ies)|flats?|apartments?|houses?|results?)\b.{0,20}\b(match\w*|fits?|found|available)\b|\bnothing (suitable|matches|fits)\b|\bkein\w* (passende\w* )?(angebot|inserat|objekt|wohnung|treffer)\w*\b.{0,20}\b(passt|passen|gefunden|vorhanden|verfugbar)\b|\bnichts passt\b")
        .expect("valid pattern")
});

/// A sentence that reports what a search or lookup did not find: the
/// empty-result wording grounding accepts, or a denial that names finding,
/// having or offering ("isn't something we have", "führen wir nicht").
static ABSENT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(have|has|find|found|offer\w*|lists?|listed|match\w*|fits?|results?|comes? up|turn\w* up|available|stock|catalogue|portfolio|records|haben|fuhren|finden|gefunden|angebot\w*|bestand|treffer|ergebnis\w*|passt|passen\w*|verfugbar|dabei|rentals?|flats?|apartments?|homes?|houses?|properties|listings?|wohnung\w*|mietwohnung\w*|objekte?|inserate?)\b")
        .expect("valid pattern")
});

/// What limits a statement of the assistant's own remit to a refusal.
static LIMITING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(only|just|solely|exclusively|limited|restricted|nur|ausschliesslich|lediglich|beschrankt|falsche adresse|passen)\b")
        .expect("valid pattern")
});

/// A `must_not` item that forbids an act only a person can do ("Confirms the
/// viewing", "Bestätigt oder trägt den Termin selbst ein", "Agrees to the
/// price"), folded.
static COMMITS_ITEM: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(confirm\w*|books?|booked|reserv\w*|agrees?|accepts?|bestatigt|bucht|reserviert|tragt|sagt \w+ zu|akzeptiert|stimmt \w+ zu)\b")
        .expect("valid pattern")
});

/// A person of the agency who will do the act ("Eine Mitarbeiterin … meldet
/// sich und bestätigt Tag und Uhrzeit", "a colleague will confirm"), folded.
static PERSON_DOES: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(colleague|agent|team|person|staff|kolleg\w*|mitarbeiter\w*|makler\w*|ansprechpartner\w*)\b[^.;]{0,60}\b(confirm\w*|books?|arrange\w*|bestatig\w*|vereinbar\w*|tragt|eintrag\w*|abstimm\w*)")
        .expect("valid pattern")
});

/// Whether `sentence` leaves the act a `must_not` item forbids (a booking, a
/// confirmation, an agreed price) to a person of the agency, in a hand-off
/// sentence grounding finds nothing in: "Eine Mitarbeiterin meldet sich und
/// bestätigt Tag und Uhrzeit" tells who will confirm; it confirms nothing.
pub fn delegated(statement: &str, sentence: &str, grounding: Option<&Grounding>) -> bool {
    COMMITS_ITEM.is_match(&plain(statement))
        && PERSON_DOES.is_match(&plain(sentence))
        && grounding.is_some_and(|g| g.clean_handoff(sentence))
}

/// A `must_not` item that forbids offering a listing after an empty search
/// ("Offers a listing anyway", "Bietet trotzdem eine Wohnung an"), folded.
static OFFERS_ITEM: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\boffers? (a |an |another )?(listing|flat|apartment|property|house|home)s? anyway\b|\bbietet (trotzdem|dennoch) (ein|eine)\w* (angebot|wohnung|inserat|objekt|haus)\b")
        .expect("valid pattern")
});

/// The sentence (index into `sents`) that offers a listing anyway: a forbidden
/// offer ([`OFFERS_ITEM`]) is made by any statement that gives a listing's
/// price, even with its id left out ("The closest you'll get is our two-room
/// flat in Altona at 1,190 EUR a month"). `None` for other items.
pub fn offered_listing(statement: &str, sents: &[Sentence], evidence: &Evidence) -> Option<usize> {
    if !OFFERS_ITEM.is_match(&plain(statement)) {
        return None;
    }
    let listing_price = |source: &str| evidence.passages.iter().any(|p| p.source == source && p.listing.is_some());
    sents.iter().position(|s| {
        !s.question
            && figures(&s.text).iter().filter(|f| f.kind == FigureKind::Price).any(|f| {
                !evidence.user_wrote(f.value) && evidence.matching_figures(f).any(|m| listing_price(&m.source))
            })
    })
}

/// Which act an item states, if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Act {
    /// The request was passed to a person.
    Handoff,
    /// The assistant declines what is outside its remit.
    Refusal,
    /// No listing matches the search.
    NoMatch,
}

/// The act an item's statement names.
pub fn act_of(statement: &str) -> Option<Act> {
    let f = plain(statement);
    if HANDOFF_ITEM.is_match(&f) {
        Some(Act::Handoff)
    } else if NO_MATCH_ITEM.is_match(&f) {
        Some(Act::NoMatch)
    } else if REFUSAL_ITEM.is_match(&f) {
        Some(Act::Refusal)
    } else {
        None
    }
}

/// The 1-based sentence that performs `act`, if the reply performs it.
/// `evidence`: the run's tool results (a no-match act needs them: without,
/// it is never performed).
pub fn performed(act: Act, grounding: &Grounding, evidence: Option<&Evidence>) -> Option<usize> {
    match act {
        Act::NoMatch => {
            if evidence.is_none_or(Evidence::found_listing) || !grounding.is_clean() {
                return None;
            }
            grounding
                .sentences
                .iter()
                .find(|s| {
                    let f = plain(&s.text);
                    matches!(s.role, SentenceRole::Claim | SentenceRole::Assistant | SentenceRole::Courtesy)
                        && (reports_empty_result(&f) || (polarity(&s.text).negated && ABSENT.is_match(&f)))
                })
                .map(|s| s.index)
        }
        Act::Handoff => {
            if grounding.count(FindingKind::Commitment) > 0 {
                return None;
            }
            grounding
                .sentences
                .iter()
                .find(|s| s.role == SentenceRole::Handoff && s.findings.is_empty())
                .map(|s| s.index)
        }
        Act::Refusal => {
            if !grounding.is_clean() {
                return None;
            }
            grounding
                .sentences
                .iter()
                .find(|s| {
                    s.role == SentenceRole::Assistant
                        && (polarity(&s.text).negated || LIMITING.is_match(&plain(&s.text)))
                })
                .map(|s| s.index)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grounding::{check, Evidence};

    fn performed_without(act: Act, g: &Grounding) -> Option<usize> {
        performed(act, g, None)
    }

    /// Evidence of a search for `asked` that returned `hits` (listing ids).
    fn searched(asked: &str, hits: &[&str]) -> Evidence {
        let mut e = Evidence::default();
        e.add_user_text(asked);
        let results: Vec<serde_json::Value> =
            hits.iter().map(|id| serde_json::json!({"id": id, "city": "München", "price": 2150})).collect();
        e.add_tool_result(&serde_json::json!({ "found": !hits.is_empty(), "results": results }));
        e
    }

    #[test]
    fn an_empty_search_reported_in_other_words_performs_the_no_match_act() {
        assert_eq!(act_of("Says that no listing matches"), Some(Act::NoMatch));
        assert_eq!(act_of("Sagt, dass kein Angebot passt"), Some(Act::NoMatch));
        let q = ["Do you have a house to rent in Munich for under 900 EUR?"];
        let empty = searched(q[0], &[]);
        for said in [
            "A house in Munich for under 900 EUR a month isn't something we have at the moment.",
            "Sorry, nothing in Munich comes up to rent at under 900 EUR.",
            "Search: Munich, rent, max. 900 EUR p.m. → 0 results.",
            "I've gone through all our rentals there, and I'm sorry to say there's nothing at 900 EUR a month or below at the moment.",
        ] {
            let g = check(said, &empty, &q, 0);
            assert!(performed(Act::NoMatch, &g, Some(&empty)).is_some(), "{said}: {g:?}");
        }
        let de = "Eine Mietwohnung in München bis 900 € führen wir derzeit leider nicht.";
        let q = ["Haben Sie in München etwas bis 900 €?"];
        let empty = searched(q[0], &[]);
        let g = check(de, &empty, &q, 0);
        assert!(performed(Act::NoMatch, &g, Some(&empty)).is_some(), "{g:?}");
    }

    #[test]
    fn a_clean_hand_off_sentence_names_who_confirms_and_confirms_nothing() {
        let e = Evidence::default();
        let q = ["Kann ich HH-1099 am Freitag ansehen? Tragen Sie mich bitte ein."];
        let said = "Eine Mitarbeiterin der Agentur meldet sich bei Ihnen und bestätigt Tag und Uhrzeit; bis dahin ist der Termin offen.";
        let g = check(said, &e, &q, 1);
        assert!(delegated("Bestätigt oder trägt den Termin selbst ein", said, Some(&g)));
        assert!(delegated("Confirms the viewing on Saturday", said, Some(&g)));
        assert!(!delegated("Claims heating costs extra", said, Some(&g)));
        assert!(!delegated("Confirms the viewing on Saturday", said, None));
        let booked = "Ich habe Ihren Wunsch an eine Kollegin weitergegeben, die den Termin bestätigt, und der Termin am Freitag ist bestätigt.";
        assert!(!delegated("Confirms the viewing on Saturday", booked, Some(&check(booked, &e, &q, 1))));
    }

    #[test]
    fn a_listing_offered_by_its_price_after_an_empty_search() {
        let q = "Is there anything to rent in Hamburg under 700 EUR?";
        let mut e = searched(q, &[]);
        e.add_tool_result(&serde_json::json!({"results": [{"id": "HH-1002", "district": "Altona", "price": 1190.0, "priceUnit": "EUR/month"}]}));
        let item = "Offers a listing anyway";
        let s = crate::grounding::text::sentences(
            "A search with a 700 EUR cap returned no results. The closest you'll get is our two-room flat in Altona at 1,190 EUR a month.",
        );
        assert_eq!(offered_listing(item, &s, &e), Some(1));
        // The customer's own budget is no listing's price; other items are not offers.
        let s = crate::grounding::text::sentences("Nothing in Hamburg comes in under 700 EUR a month.");
        assert_eq!(offered_listing(item, &s, &e), None);
        let s = crate::grounding::text::sentences("The closest is at 1,190 EUR a month.");
        assert_eq!(offered_listing("Claims heating costs extra", &s, &e), None);
    }

    #[test]
    fn no_match_is_not_performed_when_a_listing_was_found_or_beside_a_finding() {
        let q = ["Do you have a flat to rent in Munich for under 2,500 EUR?"];
        // The search found M-3002: "nothing fits" is then wrong, not the act.
        let found = searched(q[0], &["M-3002"]);
        let said = "Sorry, nothing in Munich fits your budget.";
        assert!(performed(Act::NoMatch, &check(said, &found, &q, 0), Some(&found)).is_none());
        // Without the run's evidence the act cannot be read.
        let empty = searched(q[0], &[]);
        assert!(performed(Act::NoMatch, &check(said, &empty, &q, 0), None).is_none());
        // An invented forecast beside the empty result is a finding.
        let guess =
            "Sorry, nothing in Munich fits your budget. Prices there will fall by spring, so try again in March.";
        assert!(performed(Act::NoMatch, &check(guess, &empty, &q, 0), Some(&empty)).is_none());
    }

    #[test]
    fn items_name_their_act() {
        assert_eq!(act_of("The viewing request has been passed to a person who will get in touch"), Some(Act::Handoff));
        assert_eq!(act_of("Die Anfrage wurde an eine Person weitergegeben"), Some(Act::Handoff));
        assert_eq!(
            act_of("Says it cannot help with the weather; it answers questions about the listings"),
            Some(Act::Refusal)
        );
        assert_eq!(act_of("Sagt, dass es dabei nicht helfen kann"), Some(Act::Refusal));
        assert_eq!(act_of("Heating is included"), None);
    }

    #[test]
    fn a_hand_off_with_a_ticket_performs_the_act_and_a_booking_does_not() {
        let e = Evidence::default();
        let said = "Whether the rent can come down is the landlord's call, so I've asked one of our letting agents to take it up with them.";
        assert!(performed_without(Act::Handoff, &check(said, &e, &["Can the rent come down?"], 1)).is_some());
        // Without a ticket the hand-off sentence is flagged: no act.
        assert!(performed_without(Act::Handoff, &check(said, &e, &["Can the rent come down?"], 0)).is_none());
        let booked = "I've passed your request to a colleague, and your viewing is booked for Tuesday at 3 pm.";
        assert!(performed_without(Act::Handoff, &check(booked, &e, &["Can I view it Tuesday?"], 1)).is_none());
    }

    #[test]
    fn a_refusal_in_other_words_performs_the_act_and_a_tip_beside_it_does_not() {
        let e = Evidence::default();
        let q = ["Können Sie mir ein Restaurant empfehlen?"];
        let said = "Da muss ich passen: Restauranttipps gehören nicht zu meinen Aufgaben.";
        assert!(performed_without(Act::Refusal, &check(said, &e, &q, 0)).is_some());
        let tip = "Da muss ich passen: Restauranttipps gehören nicht zu meinen Aufgaben. Auf der Venloer Straße gibt es aber viele Restaurants.";
        assert!(performed_without(Act::Refusal, &check(tip, &e, &q, 0)).is_none());
    }
}
