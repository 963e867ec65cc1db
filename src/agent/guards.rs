//! Answer guards: checks every draft reply passes before anyone sees it (SPEC §6).
//!
//! - *Citation*: `[HH-1001#s5]`, `[policy:deposit#amount]`, `[HH-1001]` must
//!   name ids that a tool returned in this run.
//! - *Number*: every price, area and percentage must equal a number in this
//!   run's successful tool results or in the user's current or earlier inquiries.
//! - *Missing evidence*: a reply with figures from the records carries at least
//!   one citation. A figure the customer wrote ("no houses under 500 EUR", "your
//!   offer of 1.100 €") is their own and needs none.
//! - *Empty*: the reply has text.
//!
//! Earlier replies are context only: their citations and figures are never evidence.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use super::numbers::{figures, numbers, same_value, Figure};

static BRACKET: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\[([^\[\]\n]{1,300})\]").expect("valid pattern"));
static CITATION_ID: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:[A-Z]{1,2}-\d{4}(?:#s\d+)?|policy:[a-z0-9-]+#[a-z0-9-]+)$").expect("valid pattern")
});

static QUOTED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"“[^”]*”|„[^“”]*[“”]|"[^"]*"|\[[^\]]*\]"#).expect("valid pattern"));

/// The reply's own words: quoted passages (`“…”`, `„…“`, `"…"`) and bracketed
/// citations removed. A German reply quoting the English catalogue is still
/// German; language checks look at these words only.
pub fn own_words(reply: &str) -> std::borrow::Cow<'_, str> {
    QUOTED.replace_all(reply, " ")
}

/// Citation ids in a reply, in order of first appearance, without duplicates.
/// A bracket may hold several ids separated by `,` or `;`.
pub fn citations(reply: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for cap in BRACKET.captures_iter(reply) {
        for part in cap[1].split([',', ';']) {
            let id = part.trim();
            if CITATION_ID.is_match(id) && !out.iter().any(|o| o == id) {
                out.push(id.to_owned());
            }
        }
    }
    out
}

/// Where each citation id sits in a reply: (byte range of the id, id), in
/// order, every occurrence (the same brackets [`citations`] reads).
pub fn citation_spans(reply: &str) -> Vec<(std::ops::Range<usize>, String)> {
    let mut out = Vec::new();
    for cap in BRACKET.captures_iter(reply) {
        let Some(inner) = cap.get(1) else { continue };
        let mut at = inner.start();
        for part in inner.as_str().split([',', ';']) {
            let lead = part.len() - part.trim_start().len();
            let id = part.trim();
            if CITATION_ID.is_match(id) {
                out.push((at + lead..at + lead + id.len(), id.to_owned()));
            }
            at += part.len() + 1;
        }
    }
    out
}

/// What a run's tools returned and the user wrote: the only sources a reply may use.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Evidence {
    /// Listing and chunk ids returned by tools.
    pub ids: BTreeSet<String>,
    /// Numbers in successful tool results.
    pub tool_numbers: Vec<f64>,
    /// Numbers the user wrote (current and earlier inquiries).
    pub user_numbers: Vec<f64>,
}

impl Evidence {
    /// Adds a successful tool result: every listing id (`id`, `listingId`), chunk
    /// id (`chunkId`) and number in it, including numbers inside text fields.
    pub fn add_tool_result(&mut self, value: &serde_json::Value) {
        match value {
            serde_json::Value::Object(map) => {
                for (key, v) in map {
                    if matches!(key.as_str(), "id" | "listingId" | "chunkId") {
                        if let Some(s) = v.as_str() {
                            self.ids.insert(s.to_owned());
                        }
                    }
                    self.add_tool_result(v);
                }
            }
            serde_json::Value::Array(items) => items.iter().for_each(|v| self.add_tool_result(v)),
            serde_json::Value::Number(n) => self.tool_numbers.extend(n.as_f64()),
            serde_json::Value::String(s) => self.tool_numbers.extend(numbers(s)),
            _ => {}
        }
    }

    /// Adds text the user wrote.
    pub fn add_user_text(&mut self, text: &str) {
        self.user_numbers.extend(numbers(text));
    }

    fn supports(&self, value: f64) -> bool {
        self.tool_numbers.iter().chain(&self.user_numbers).any(|n| same_value(*n, value))
    }

    /// Whether the customer wrote this value (current or earlier inquiries).
    fn user_wrote(&self, value: f64) -> bool {
        self.user_numbers.iter().any(|n| same_value(*n, value))
    }
}

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
    let found = figures(reply);
    for figure in &found {
        if !evidence.supports(figure.value) {
            out.push(Violation::Number { figure: figure.clone() });
        }
    }
    // Only figures that come from the records need a source.
    if cited.is_empty() && found.iter().any(|f| !evidence.user_wrote(f.value)) {
        out.push(Violation::MissingEvidence);
    }
    out
}

/// Figures of a text that no evidence supports (for eval's number checks).
pub fn ungrounded_figures(reply: &str, evidence: &Evidence) -> Vec<Figure> {
    figures(reply).into_iter().filter(|f| !evidence.supports(f.value)).collect()
}

#[cfg(test)]
mod span_tests {
    use super::*;

    #[test]
    fn citation_spans_point_at_each_id() {
        let reply = "Heating is included [HH-1001#s5; policy:deposit#amount] and [x] [HH-1001].";
        let spans = citation_spans(reply);
        let ids: Vec<&str> = spans.iter().map(|(r, _)| &reply[r.clone()]).collect();
        assert_eq!(ids, ["HH-1001#s5", "policy:deposit#amount", "HH-1001"]);
        assert!(spans.iter().all(|(r, id)| &reply[r.clone()] == id));
    }
}
