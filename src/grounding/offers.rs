//! The customer's own price said to be accepted: "Die 1.100 € gehen nach
//! meinem Stand aber in Ordnung", "1.100 EUR kalt gehen für ihn in Ordnung",
//! "Gegen 1.100 € spricht von Vermieterseite nichts", "mit einem
//! Entgegenkommen auf 1.100 € ist zu rechnen", "1,100 EUR would be fine".
//! Only the landlord can accept a price, and only a person at the agency can
//! pass the answer on (issue #27: "2,800 EUR is within the range the landlord
//! accepts"). A figure only the customer gave, in a clause that calls it
//! acceptable and neither denies nor asks it, is a commitment. A condition on
//! the landlord's agreement ("if the landlord agrees, 1,100 would be fine")
//! promises nothing. Source: the price faults of the dev label splits.

use std::sync::LazyLock;

use regex::Regex;

use super::evidence::Evidence;
use super::numbers::figures;
use super::polarity::polarity;
use super::wording::{clauses, DENIAL_WORD};
use super::FindingKind;
use crate::fold::plain;

/// Calling a figure acceptable (folded text).
static ACCEPTABLE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(geht|gehen|ginge|gingen) (\w+ ){0,4}in ordnung\b|\b(ist|sind|ware|waren|is|are|would be|will be) (\w+ ){0,2}(machbar|akzeptabel|annehmbar|doable|acceptable|feasible|workable|fine|okay|ok)\b|\bliegen sie (\w+ ){0,3}(realistisch|gut|richtig)\b|\b(genau|gut|durchaus|noch|voll) im rahmen\b|\bist (\w+ ){0,6}zu rechnen\b")
        .expect("valid pattern")
});

/// Calling it acceptable by denying an objection ("spricht nichts dagegen",
/// "no objection"), folded text.
static NO_OBJECTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(spricht|sprechen) (\w+ ){0,5}nichts\b|\bnichts dagegen\b|\bno objections?\b|\bkeine einwande\b")
        .expect("valid pattern")
});

/// The price said to be likely accepted, hedged or not ("should go through",
/// "dürften Sie gute Karten haben", "ich würde mit diesem Betrag planen"):
/// a forecast of the landlord's answer is a promise in other words (folded text).
static LIKELY_ACCEPTED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\bgute karten\b|\bgood (chances?|odds)\b|\b(should|will|would|is likely to|durfte\w*|wird|wurde|sollte\w*) (\w+ ){0,3}(go through|be accepted|work out|fly|durchgehen|angenommen werden|klappen|durchkommen)\b|\b(i'?d|i would|ich wurde|you can|you could|konnen sie|durfen sie) (\w+ ){0,4}(plan|planen|rechnen|kalkulieren)\b")
        .expect("valid pattern")
});

/// The customer's figure named without its digits ("your figure", "Ihr Angebot"; folded text).
static THEIR_FIGURE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(your|ihr|ihre|ihren|ihrem|diese[mnr]?|this|that|the) (figure|offer|price|amount|bid|angebot|preis|betrag|gebot|preisvorschlag|vorschlag)\b")
        .expect("valid pattern")
});

/// A listing record or policy passage (`K-4003#s2`, `M-3001.price`, `policy:…`),
/// not a tool's echo of the customer's words (a hand-off summary).
fn is_record(source: &str) -> bool {
    source.starts_with("policy:") || LISTING_SOURCE.is_match(source)
}

static LISTING_SOURCE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[A-Z]{1,3}-\d{3,5}[#.]").expect("valid pattern"));

/// Not knowing the answer ("whether", "ob", "no guarantee"; folded text).
static OPEN_ANSWER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(whether|ob|no guarantee|keine garantie|can't say|cannot say|kann (ich )?(nicht|keine)|erst (nach|wenn|sobald)|only (after|once|when|if)|sobald)\b")
        .expect("valid pattern")
});

/// A condition on the landlord's or owner's agreement (folded text).
static LANDLORD_CONDITION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(wenn|falls|sofern|ob|if|whether|provided)\b.{0,50}\b(vermieter\w*|landlord|owner|eigentumer\w*|zustimm\w*|agrees?|einverstanden)\b")
        .expect("valid pattern")
});

/// Flags a sentence (`body`, original text) that calls a figure only the
/// customer gave acceptable, in a clause it neither denies nor asks.
pub(super) fn check_offer_accepted(
    body: &str,
    evidence: &Evidence,
    push: &mut impl FnMut(FindingKind, String, Option<String>),
) {
    let folded = plain(body);
    if LANDLORD_CONDITION.is_match(&folded) {
        return;
    }
    // "so your figure should go through": a forecast of the answer to a price
    // only the customer gave, with or without its digits.
    // A price the customer wrote that no record or policy gives (a hand-off summary may repeat it).
    let customer_price = evidence.user_numbers.iter().any(|v| {
        *v >= 100.0 && !evidence.figures.iter().any(|f| is_record(&f.source) && (f.figure.value - v).abs() < 0.5)
    });
    let forecast = clauses(&folded).iter().any(|(_, c)| {
        LIKELY_ACCEPTED.is_match(c)
            // "without much trouble" denies nothing.
            && !DENIAL_WORD.is_match(c)
            && !OPEN_ANSWER.is_match(&folded)
            && !c.contains('?')
            && (THEIR_FIGURE.is_match(&folded)
                || figures(c).iter().any(|f| evidence.user_wrote(f.value) && !evidence.tool_supports(f)))
    });
    if forecast && customer_price {
        push(
            FindingKind::Commitment,
            "forecasts that the landlord or seller accepts the customer's own price, which only they can decide".into(),
            None,
        );
        return;
    }
    if !ACCEPTABLE.is_match(&folded) && !NO_OBJECTION.is_match(&folded) {
        return;
    }
    let offered: Vec<String> = figures(body)
        .into_iter()
        .filter(|f| evidence.user_wrote(f.value) && !evidence.tool_supports(f))
        .map(|f| plain(&f.text).trim().to_owned())
        .collect();
    if offered.is_empty() {
        return;
    }
    let accepted = clauses(&folded).iter().any(|(_, c)| {
        if !offered.iter().any(|f| c.contains(f.as_str())) {
            return false;
        }
        let p = polarity(c);
        if p.conditional || c.contains('?') {
            return false;
        }
        let by_denial = NO_OBJECTION.find(c).is_some_and(|m| {
            let rest = format!("{} {}", &c[..m.start()], &c[m.end()..]);
            !polarity(&rest).negated
        });
        by_denial || (ACCEPTABLE.is_match(c) && !p.negated)
    });
    if accepted {
        push(
            FindingKind::Commitment,
            "calls the customer's own price acceptable, which only the landlord can decide".into(),
            None,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(body: &str) -> bool {
        let mut e = Evidence::default();
        e.add_tool_result(
            &serde_json::json!({"id": "HH-1002", "description": "The cold rent is 1,190 EUR per month."}),
        );
        e.add_user_text("Würden Sie 1.100 EUR Kaltmiete akzeptieren? Would 1,100 EUR work?");
        let mut n = 0;
        check_offer_accepted(body, &e, &mut |_, _, _| n += 1);
        n > 0
    }

    #[test]
    fn the_customers_price_called_acceptable_is_a_commitment() {
        for wrong in [
            "Die 1.100 € Kaltmiete statt der inserierten 1.190 € gehen nach meinem Stand aber in Ordnung.",
            "Die Kollegin hat kurz mit dem Vermieter telefoniert – 1.100 EUR kalt gehen für ihn in Ordnung.",
            "Gegen 1.100 € statt der ausgeschriebenen Miete spricht von Vermieterseite nichts.",
            "Mit einem Entgegenkommen des Vermieters auf 1.100 € ist nach Einschätzung der Agentur jedoch zu rechnen.",
            "1,100 EUR would be fine for the landlord.",
            "Since the flat is vacant, the seller will be keen on a quick sale, so your figure should go through without much trouble.",
            "Da die Wohnung erst im März frei wird, dürften Sie mit 1.100 € Kaltmiete gute Karten haben – ich würde mit diesem Betrag planen.",
        ] {
            assert!(flags(wrong), "{wrong}");
        }
        for right in [
            "Ob 1.100 EUR in Ordnung gehen, entscheidet der Vermieter.",
            "Ich kann Ihnen nicht sagen, ob der Vermieter 1.100 EUR akzeptiert.",
            "Ob der Vermieter bei 1.100 EUR mitgeht, kann ich nicht sagen.",
            "I've passed on your offer of 1,100 EUR; whether it is acceptable is the landlord's decision.",
            "If the landlord agrees, 1,100 EUR would be fine.",
            "Die Kaltmiete beträgt 1.190 EUR, das ist in Ordnung so im Inserat angegeben.",
            "Ihr Vorschlag von 1.100 EUR liegt beim Vermieter; ich kann ihn nicht annehmen.",
            "Whether your offer will be accepted, I can't say; a colleague will get back to you.",
            "Before you plan with that figure, I need to put something right: my previous reply gave you the wrong cold rent.",
            "Your offer of 1,100 EUR won't go through me: the landlord decides.",
            "Ich habe Ihr Angebot weitergegeben; mit diesem Betrag planen können Sie erst nach der Zusage des Vermieters.",
        ] {
            assert!(!flags(right), "{right}");
        }
    }
}
