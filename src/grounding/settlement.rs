//! A yearly settlement of costs where the records say there is none.
//!
//! K-4001's record says "No separate utilities statement is issued for this
//! apartment" (an all-inclusive rent). Labelled wrong replies keep "keine
//! separaten Nebenkosten" and still bring the ordinary rental's settlement
//! back: "einmal im Jahr rechnet der Vermieter die tatsächlichen Kosten ab",
//! "gleicht den Stromverbrauch ab", "werden … nach Ihrem Verbrauch
//! abgerechnet", "mit der Jahresabrechnung ausgeglichen". The German verbs of
//! settling share no word with the English record, so no clause check meets
//! them. Source: the all-inclusive-rent faults of the dev label splits
//! (`labels/dev*.yaml`).

use std::sync::LazyLock;

use regex::Regex;

use super::evidence::Evidence;
use super::polarity::polarity;
use super::record_clauses::passage_with_clause;
use super::wording::clauses;
use super::FindingKind;
use crate::fold::plain;

/// Settling actual costs after the fact (folded text).
static SETTLES: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(\w*abrechnung\w*|abgerechnet|abrechnen|abrechnet|rechnet (\w+ ){0,8}ab|rechnen (\w+ ){0,8}ab|settle\w*|statements?|reconcil\w*|nachzahl\w*|zahlen (\w+ ){0,4}nach|(die|the) differenz|ausgeglichen|verrechnet|verrechnen|verrechnung|ausgleich\w*|abgleich\w*|gleicht (\w+ ){0,8}ab|top-up|back-?payments?|balancing (payment|charge))\b")
        .expect("valid pattern")
});

/// A sentence that sets the ordinary case against this one ("anders als
/// bei …", "unlike a normal rental"): its settlement is the other case's.
static CONTRAST: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(anders als|im gegensatz|unlike|in contrast|rather than|statt|anstatt|instead of|normalerweise|usually|ublicherweise|sonst)\b")
        .expect("valid pattern")
});

/// Flags a claim sentence (`body`, original text) that has costs settled
/// after the fact, when a passage in the evidence says no statement is
/// issued.
pub(super) fn check_settlement(
    body: &str,
    evidence: &Evidence,
    push: &mut impl FnMut(FindingKind, String, Option<String>),
) {
    let folded = plain(body);
    if !SETTLES.is_match(&folded) || CONTRAST.is_match(&folded) {
        return;
    }
    let settles = clauses(&folded).iter().any(|(_, c)| {
        // "once a year" reads as a condition; a settlement stated with it is still stated.
        // "weder etwas zurück, | noch zahlen Sie nach": the second half of a
        // "weder … noch" is denied too.
        let continues_denial =
            (c.trim_start().starts_with("noch ") && folded.contains("weder")) || c.trim_start().starts_with("nor ");
        SETTLES.is_match(c) && !polarity(c).negated && !continues_denial
    });
    if !settles {
        return;
    }
    if let Some(r) = passage_with_clause(evidence, |c| SETTLES.is_match(c) && polarity(c).negated) {
        push(
            FindingKind::Contradicted,
            format!("has costs settled after the fact; the record says no statement is issued [{}]", r.source),
            Some(r.source.clone()),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flagged(body: &str) -> bool {
        let mut e = Evidence::default();
        e.add_tool_result(&serde_json::json!({"id": "K-4001",
            "description": "The rent is an all-inclusive rent (Warmmiete, also Pauschalmiete) of 1,350 EUR per month. Utilities, heating, electricity and internet are all included in the rent. No separate utilities statement is issued for this apartment."}));
        let mut n = 0;
        check_settlement(body, &e, &mut |_, _, _| n += 1);
        n > 0
    }

    #[test]
    fn a_settlement_the_records_rule_out() {
        for wrong in [
            "Wie bei jeder Mietwohnung rechnet der Vermieter einmal im Jahr die tatsächlichen Kosten ab.",
            "Einmal im Jahr gleicht der Vermieter allerdings den tatsächlichen Stromverbrauch ab.",
            "Heizung, Strom und Internet werden aber trotzdem einmal im Jahr nach Ihrem Verbrauch abgerechnet.",
            "Separate Nebenkosten zahlen Sie monatlich keine; die werden erst mit der Jahresabrechnung separat ausgeglichen.",
            "Once a year the landlord settles the actual costs with you.",
            "Die Nebenkosten stecken als feste Vorauszahlung in diesem Betrag und werden am Jahresende mit den tatsächlichen Kosten verrechnet.",
        ] {
            assert!(flagged(wrong), "{wrong}");
        }
        for right in [
            "Eine Nebenkostenabrechnung gibt es nicht, also weder Erstattung noch Nachzahlung.",
            "Anders als bei normalen Mietwohnungen, wo einmal im Jahr abgerechnet wird, zahlen Sie hier nur die Pauschale.",
            "There is no separate utilities statement for this apartment.",
            "Sie bekommen am Jahresende also weder etwas zurück, noch zahlen Sie nach.",
            "Die Kaltmiete beträgt 1.350 EUR.",
        ] {
            assert!(!flagged(right), "{right}");
        }
    }
}
