//! What a sentence says was done, or knows, that only a person or the
//! records could: a booking, confirmation or deletion (a *commitment*,
//! ticket or not), a place, street, status or time of day no tool result
//! has, and what the landlord is said to have told the agency. Read on the
//! folded sentence and its clauses; a condition ("if you like, …") or a
//! hope states nothing, a negation denies the act.

use std::sync::LazyLock;

use regex::Regex;

use super::polarity::polarity;
use super::wording::{
    is_street, ACTION_DONE, BEFORE, BY_AGENT, COMMITMENT, DONE_BY_DENIAL, FUTURE_ACT, HANDOFF, HOPE, IF,
    LANDLORD_NO_REFUSAL, LANDLORD_SAID, LANDLORD_WILL, PLACE, RELATIVE_DAY, REPLY_HEDGE, SELF, SLOT_LABEL_CONFIRMED,
    STATUS, STREET, TIME,
};
use super::{FindingKind, SentenceRole};
use crate::fold::plain;

/// An indirect question about the landlord's answer ("whether the landlord will accept").
/// A deadline set by the move or the handover of the keys (folded).
static BEFORE_MOVE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(before (you move in|moving in|move-in|your move|the move|the keys|you get the keys|the handover|handover|the (tenancy|lease) (begins|starts|commences))|by the time you (get|receive|collect) the keys|by the time you move in|vor (dem )?(mietbeginn|beginn des mietverhaltnisses)|(spread )?over the (\w+ )?months before|vor (dem |ihrem )?(einzug|einziehen)|vor der (schlusselubergabe|ubergabe)|bis zur schlusselubergabe|bis zum einzug|bevor sie einziehen)\b")
        .expect("valid pattern")
});

/// Advice to plan or budget ("Before you move in, plan for the deposit"):
/// the customer's planning, not a deadline (folded).
static PLANNING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(plan (for|on|ahead)|budget for|keep in mind|bear in mind|set aside|put aside|einplanen|bedenken|denken sie (an|daran)|rechnen sie (mit|damit)|zurucklegen)\b")
        .expect("valid pattern")
});

/// Words of paying (folded).
static PAYMENT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(pa(y|id|ying|yment|yments)|settled?|due|transfer\w*|instal+ments?|deposit|amount|sum|parts?|kaution|rate|raten|zahl\w*|bezahl\w*|faellig|fallig|uberwies\w*|uberweis\w*|betrag|summe)\b")
        .expect("valid pattern")
});

/// Any denial word (folded): a clause that has one is not read for a deadline.
static ANY_DENIAL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(not|no|never|nicht|kein\w*|nie|ohne|without)\b|n't\b").expect("valid pattern"));

/// The customer and the other side as one subject (folded).
static BOTH_PARTIES: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(you and (the|your) (landlord|owner|seller|vendor)|(the|your) (landlord|owner|seller|vendor) and you|sie und (der|die|ihr|ihre) (vermieter|eigentumer|verkaufer)\w*|(der|die|ihr|ihre) (vermieter|eigentumer|verkaufer)\w* und sie)\b")
        .expect("valid pattern")
});

/// The assistant reporting its own act in the perfect ("ich habe", "we've"), folded.
static FIRST_PERFECT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(ich|wir) (habe|haben)\b|\b(habe|haben) (ich|wir)\b|\b(i|we)('ve| have)\b").expect("valid pattern")
});

/// Denials beyond [`ANY_DENIAL`] ("nothing is booked yet", "weder zusagen
/// noch", "until then"), folded: a sentence with one is read clause by clause only.
static WIDER_DENIAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(nothing|nichts|weder|neither|none|nobody|niemand|until then|bis dahin|yet|noch)\b")
        .expect("valid pattern")
});

static WHETHER: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\b(whether|ob)\b").expect("valid pattern"));

/// A turn in a sentence: what follows may add what the first part declined.
static CONTRAST: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(but|however|though|although|aber|jedoch|doch|allerdings|trotzdem|dennoch)\b")
        .expect("valid pattern")
});

/// Checks one sentence (`folded`: its folded text, `folded_clauses` its
/// clauses, `body`: the original text without citations) with its `role`;
/// `sources` gives the passages and the customer's words, folded, built on
/// first need.
pub(super) fn check_acts<'s>(
    role: SentenceRole,
    folded: &str,
    folded_clauses: &[(bool, &str)],
    body: &str,
    sources: &dyn Fn() -> &'s Vec<String>,
    push: &mut impl FnMut(FindingKind, String, Option<String>),
) {
    let plain_sources = sources;
    // A word the records hold, or its translation ("Ausnahme" where the
    // policy says "exception").
    let known = |w: &str| {
        let own = crate::retrieval::analyzer::analyze(w);
        let word_in = |alt: &str, e: &String| e.split(|c: char| !c.is_alphanumeric()).any(|t| t.starts_with(alt));
        plain_sources().iter().any(|e| e.contains(w))
            || super::terms::terms(w)
                .iter()
                .flatten()
                .filter(|alt| alt.len() > 4 && !own.contains(alt))
                .any(|alt| plain_sources().iter().any(|e| word_in(alt, e)))
    };
    if role != SentenceRole::Question {
        let mut committed = false;
        for &(_, c) in folded_clauses {
            let p = polarity(c);
            // "until Friday" limits a reservation, it does not make it conditional.
            // "Before you plan around that number, …" sets a time, it plans nothing.
            let unconditional = !(p.conditional && IF.is_match(c)) && !HOPE.is_match(c) && !BEFORE.is_match(c);
            // "appointments are set by our agents" says who books, it books nothing.
            let by_agent = BY_AGENT.is_match(c);
            let done = ACTION_DONE.is_match(c) && !HANDOFF.is_match(c);
            if unconditional
                && (((COMMITMENT.is_match(c) || done) && !p.negated && !by_agent) || DONE_BY_DENIAL.is_match(c))
            {
                push(FindingKind::Commitment, "books, confirms or promises what only a person can do".into(), None);
                committed = true;
                break;
            }
        }
        // "Ich habe Ihr Profil samt Kontaktdaten und Suchaufträgen aus dem System
        // entfernt": a list of nouns split the act from its verb; the whole
        // sentence, with no denial, condition or hope anywhere, still makes it.
        if !committed
            && folded_clauses.len() > 1
            && FIRST_PERFECT.is_match(folded)
            && !ANY_DENIAL.is_match(folded)
            && !WIDER_DENIAL.is_match(folded)
            && !IF.is_match(folded)
            && !HOPE.is_match(folded)
            && !BEFORE.is_match(folded)
            && !BY_AGENT.is_match(folded)
            && COMMITMENT.is_match(folded)
        {
            push(FindingKind::Commitment, "books, confirms or promises what only a person can do".into(), None);
        }
        if SLOT_LABEL_CONFIRMED.is_match(folded) && !HOPE.is_match(folded) {
            push(FindingKind::Commitment, "books, confirms or promises what only a person can do".into(), None);
        }
    }
    // A sentence about the assistant's remit with no turn ("but", "aber") names
    // the topics it declines: "Restaurants gehören nicht zu dem, wobei ich helfen kann".
    // A row of a "Can I help?" table is a remit statement of its own ("| Restaurants | leider nein |").
    let remit_row = role == SentenceRole::Assistant && folded.trim_start().starts_with('|');
    let declines = remit_row
        || ((SELF.is_match(folded) || super::roles::IMPERSONAL_SELF.is_match(folded)) && !CONTRAST.is_match(folded));
    if matches!(role, SentenceRole::Claim | SentenceRole::Assistant) && !declines {
        for &(_, c) in folded_clauses {
            let p = polarity(c);
            // "Restaurants gehören nicht zu dem, wobei ich helfen kann" names
            // the topic it declines, it recommends nothing.
            if p.negated || (p.conditional && IF.is_match(c)) || SELF.is_match(c) {
                continue;
            }
            if let Some(m) = PLACE.find_iter(c).find(|m| !known(m.as_str())) {
                push(FindingKind::Unsupported, format!("names what no record does (\"{}\")", m.as_str()), None);
                break;
            }
        }
    }
    // What the landlord is said to have told us, a status or a time the records
    // lack: also in a sentence that reports a hand-off ("the landlord has let us
    // know that 2,800 EUR works, so the colleague only sorts out the paperwork").
    if matches!(role, SentenceRole::Claim | SentenceRole::Assistant | SentenceRole::Handoff) {
        // "Dass der Vermieter 1.100 € ablehnt, ist nicht zu erwarten": a refusal
        // ruled out foretells the yes, hedged or not, across the sentence's clauses.
        if LANDLORD_NO_REFUSAL.is_match(folded) && !WHETHER.is_match(folded) {
            push(
                FindingKind::Commitment,
                "foretells that the landlord will not refuse, which only the landlord can say".into(),
                None,
            );
            return;
        }
        for &(_, c) in folded_clauses {
            let p = polarity(c);
            // "If you commit to a longer lease, the landlord will go down to 2,800 EUR"
            // foretells the decision under a condition the records do not have either.
            // "Whether the landlord will accept it is the landlord's call" asks, it does not foretell.
            let asks = WHETHER.is_match(c);
            // "You and the seller will agree in the contract who pays" tells how the
            // parties settle it, not what the other side will decide.
            let both_parties = BOTH_PARTIES.is_match(folded);
            if !p.negated && !asks && !both_parties && LANDLORD_WILL.is_match(c) && !REPLY_HEDGE.is_match(c) {
                push(
                    FindingKind::Commitment,
                    "foretells the landlord's decision, which only the landlord can give".into(),
                    None,
                );
                break;
            }
            if p.conditional && IF.is_match(c) {
                continue;
            }
            if !p.negated && LANDLORD_SAID.is_match(c) {
                push(
                    FindingKind::Unsupported,
                    "reports what the landlord or the agency's staff said; no record says so".into(),
                    None,
                );
                break;
            }
            // "XY-9999 no longer appears in our records — it has already been let" (folded, the
            // dash is "--"):
            // the denial before the dash is not the status's.
            let undenied = |at: usize| {
                let dashes = [" -- ", " - ", " — ", " – "];
                let from = dashes.iter().filter_map(|d| c[..at].rfind(d)).max().unwrap_or(0);
                let to = dashes.iter().filter_map(|d| c[at..].find(d).map(|i| at + i)).min().unwrap_or(c.len());
                !polarity(&c[from..to]).negated
            };
            if let Some(m) = STATUS
                .find(c)
                .filter(|m| undenied(m.start()) && !plain_sources().iter().any(|e| e.contains(m.as_str())))
            {
                push(FindingKind::Unsupported, format!("gives a status the records do not (\"{}\")", m.as_str()), None);
                break;
            }
            // "All three instalments are settled before the keys are handed over":
            // a deadline of the move the records do not set.
            // Only in a sentence of a payment, with no denial in the clause ("No — a
            // single lump sum before moving in isn't required" denies twice).
            // "Before you move in, plan for the deposit": a clause that opens with the
            // move times the advice of the next one.
            let opens = |m: &regex::Match<'_>| c[..m.start()].trim().is_empty();
            if let Some(m) = BEFORE_MOVE.find(c).filter(|m| {
                PAYMENT.is_match(folded)
                    && !ANY_DENIAL.is_match(c)
                    && !PLANNING.is_match(c)
                    && !(opens(m) && PLANNING.is_match(folded))
                    && !plain_sources().iter().any(|e| BEFORE_MOVE.is_match(e))
            }) {
                push(
                    FindingKind::Unsupported,
                    format!("sets a deadline the records do not (\"{}\")", m.as_str()),
                    None,
                );
                break;
            }
        }
        // "A colleague will call you tomorrow": a date for a person's act that
        // no tool result or message gives.
        let dated = folded_clauses.iter().find_map(|&(_, c)| {
            let p = polarity(c);
            let day = RELATIVE_DAY.find(c).filter(|d| !c.contains("guten morgen") || d.as_str() != "morgen")?;
            (FUTURE_ACT.is_match(c) && !p.negated && !(p.conditional && IF.is_match(c)) && !HOPE.is_match(c))
                .then_some(day)
                .filter(|d| !plain_sources().iter().any(|e| e.contains(d.as_str())))
        });
        if let Some(d) = dated {
            push(
                FindingKind::Commitment,
                format!("promises a person's act for a day no record or message gives (\"{}\")", d.as_str()),
                None,
            );
        }
        for m in TIME.captures_iter(folded) {
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
        let unnamed = STREET
            .find_iter(body)
            .find(|m| is_street(m.as_str()) && !plain_sources().iter().any(|e| e.contains(&plain(m.as_str()))));
        if let Some(m) = unnamed.filter(|_| !polarity(folded).negated) {
            push(FindingKind::Unsupported, format!("names a street the records do not (\"{}\")", m.as_str()), None);
        }
    }
}
