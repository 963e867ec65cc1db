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
//!   Aufgaben"), in a reply with no finding at all.
//!
//! Only when the pattern and meaning routes did not convey the item; the
//! route is named `act` in verdicts and in `judge-check`.

use std::sync::LazyLock;

use regex::Regex;

use crate::fold::plain;
use crate::grounding::polarity::polarity;
use crate::grounding::{FindingKind, Grounding, SentenceRole};

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

/// What limits a statement of the assistant's own remit to a refusal.
static LIMITING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(only|just|solely|exclusively|limited|restricted|nur|ausschliesslich|lediglich|beschrankt|falsche adresse|passen)\b")
        .expect("valid pattern")
});

/// Which act an item states, if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Act {
    /// The request was passed to a person.
    Handoff,
    /// The assistant declines what is outside its remit.
    Refusal,
}

/// The act an item's statement names.
pub fn act_of(statement: &str) -> Option<Act> {
    let f = plain(statement);
    if HANDOFF_ITEM.is_match(&f) {
        Some(Act::Handoff)
    } else if REFUSAL_ITEM.is_match(&f) {
        Some(Act::Refusal)
    } else {
        None
    }
}

/// The 1-based sentence that performs `act`, if the reply performs it.
pub fn performed(act: Act, grounding: &Grounding) -> Option<usize> {
    match act {
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
        assert!(performed(Act::Handoff, &check(said, &e, &["Can the rent come down?"], 1)).is_some());
        // Without a ticket the hand-off sentence is flagged: no act.
        assert!(performed(Act::Handoff, &check(said, &e, &["Can the rent come down?"], 0)).is_none());
        let booked = "I've passed your request to a colleague, and your viewing is booked for Tuesday at 3 pm.";
        assert!(performed(Act::Handoff, &check(booked, &e, &["Can I view it Tuesday?"], 1)).is_none());
    }

    #[test]
    fn a_refusal_in_other_words_performs_the_act_and_a_tip_beside_it_does_not() {
        let e = Evidence::default();
        let q = ["Können Sie mir ein Restaurant empfehlen?"];
        let said = "Da muss ich passen: Restauranttipps gehören nicht zu meinen Aufgaben.";
        assert!(performed(Act::Refusal, &check(said, &e, &q, 0)).is_some());
        let tip = "Da muss ich passen: Restauranttipps gehören nicht zu meinen Aufgaben. Auf der Venloer Straße gibt es aber viele Restaurants.";
        assert!(performed(Act::Refusal, &check(tip, &e, &q, 0)).is_none());
    }
}
