//! Answer guards: checks every draft reply passes before anyone sees it (SPEC §6).
//!
//! - *Citation*: `[HH-1001#s5]`, `[policy:deposit#amount]`, `[HH-1001]` must
//!   name ids that a tool returned in this run.
//! - *Number*: every price, area and percentage must equal a number in this
//!   run's successful tool results or in the user's current or earlier inquiries,
//!   or be worked out from such numbers in the reply ("1,650 + 240 = 1,890 EUR").
//! - *Missing evidence*: a reply with figures from the records carries at least
//!   one citation. A figure the customer wrote ("no houses under 500 EUR", "your
//!   offer of 1.100 €") is their own and needs none.
//! - *Empty*: the reply has text.
//! - *Grounding*: every sentence agrees with the evidence it could come from
//!   ([`crate::grounding::check`]: unsupported, contradicted, hedged,
//!   commitment); [`check_grounded`] adds it to the four above.
//!
//! Earlier replies are context only: their citations and figures are never evidence.

use serde::{Deserialize, Serialize};

use super::numbers::{figures, same_value, Figure};
use crate::grounding::arithmetic::derived_values;
pub use crate::grounding::text::{citation_spans, citations, own_words};
pub use crate::grounding::Evidence;

/// One failed check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "guard", rename_all = "snake_case")]
pub enum Violation {
    /// A cited id that no tool returned in this run.
    Citation {
        /// The id.
        id: String,
    },
    /// A figure not found in tool results or the user's inquiries.
    Number {
        /// The figure.
        figure: Figure,
    },
    /// Figures from the records but no citation.
    MissingEvidence,
    /// A sentence the grounding check flags.
    Grounding {
        /// The finding.
        finding: crate::grounding::Finding,
    },
    /// No text.
    Empty,
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Violation::Citation { id } => {
                write!(f, "citation [{id}] names an id no tool returned in this conversation")
            }
            Violation::Number { figure } => write!(
                f,
                "the figure \"{}\" does not appear in any tool result or in the customer's messages",
                figure.text
            ),
            Violation::MissingEvidence => f.write_str("the reply states figures but cites no source"),
            Violation::Grounding { finding } => write!(
                f,
                "sentence {} is {}: {} (“{}”); say only what the tool results say, keep their qualifications, and leave bookings and promises to a person",
                finding.sentence,
                finding.kind.as_str(),
                finding.reason,
                finding.text
            ),
            Violation::Empty => f.write_str("the reply is empty"),
        }
    }
}

/// Runs all four guards on a draft; an empty list means it passes.
pub fn check(reply: &str, evidence: &Evidence) -> Vec<Violation> {
    if reply.trim().is_empty() {
        return vec![Violation::Empty];
    }
    let mut out = Vec::new();
    let cited = citations(reply);
    for id in &cited {
        if !evidence.ids.contains(id) {
            out.push(Violation::Citation { id: id.clone() });
        }
    }
    out.extend(ungrounded_figures(reply, evidence).into_iter().map(|figure| Violation::Number { figure }));
    // Only figures that come from the records need a source.
    if cited.is_empty() && figures(reply).iter().any(|f| !evidence.user_wrote(f.value)) {
        out.push(Violation::MissingEvidence);
    }
    out
}

/// The four guards of [`check`], then grounding: each finding of
/// [`crate::grounding::check`] over the customer's messages and the number of
/// tickets the run has created so far.
pub fn check_grounded(reply: &str, evidence: &Evidence, customer: &[&str], tickets: usize) -> Vec<Violation> {
    let mut out = check(reply, evidence);
    if out.contains(&Violation::Empty) {
        return out;
    }
    out.extend(
        crate::grounding::check(reply, evidence, customer, tickets)
            .findings()
            .cloned()
            .map(|finding| Violation::Grounding { finding }),
    );
    out
}

/// Figures of a text that no evidence supports and that it does not work out
/// from supported ones ([`derived_values`]), for eval's number checks.
pub fn ungrounded_figures(reply: &str, evidence: &Evidence) -> Vec<Figure> {
    let derived = derived_values(reply, evidence, "");
    figures(reply)
        .into_iter()
        .filter(|f| !evidence.supports(f) && !derived.iter().any(|d| same_value(*d, f.value)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn evidence() -> Evidence {
        let mut e = Evidence::default();
        e.add_tool_result(&serde_json::json!({
            "id": "HH-1001", "title": "Flat", "city": "Hamburg",
            "description": "The cold rent is 1,650 EUR per month. Utilities are an additional 240 EUR per month, heating included.",
            "price": 1650.0, "priceUnit": "EUR/month"
        }));
        e
    }

    #[test]
    fn a_total_worked_out_from_the_records_passes_the_number_guard() {
        let e = evidence();
        assert!(ungrounded_figures("1,650 EUR + 240 EUR = 1,890 EUR a month [HH-1001].", &e).is_empty());
        assert!(check("1,650 EUR + 240 EUR = 1,890 EUR a month [HH-1001].", &e).is_empty());
        // Wrong arithmetic is an invented figure.
        let wrong = ungrounded_figures("1,650 EUR + 240 EUR = 1,990 EUR a month [HH-1001].", &e);
        assert_eq!(wrong.iter().map(|f| f.value).collect::<Vec<_>>(), vec![1990.0]);
    }
}
