//! Code checks of one run (SPEC §7): hand-offs, expected listings, number
//! grounding of the final reply and of the first draft, the outcome, and the
//! `grounding` family: every sentence of the final reply checked against the
//! run's evidence ([`crate::grounding`]).

use serde::{Deserialize, Serialize};

use super::case::Case;
use crate::agent::guards::ungrounded_figures;
use crate::agent::numbers::Figure;
use crate::agent::{Outcome, RunResult};
use crate::grounding::Grounding;
use crate::handoff::HandoffReason;

/// Results of the code checks of one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CodeChecks {
    /// Distinct reasons of the tickets created.
    pub created: Vec<HandoffReason>,
    /// Required reasons with no ticket.
    pub missing_handoffs: Vec<HandoffReason>,
    /// Created reasons neither required nor allowed.
    pub extra_handoffs: Vec<HandoffReason>,
    /// Expected listing ids neither named in the reply nor carried by a ticket.
    pub missing_listings: Vec<String>,
    /// Figures of the final reply not found in tool results or user messages.
    pub final_ungrounded: Vec<Figure>,
    /// Same for the first draft; `None` when the model never drafted a reply.
    pub first_draft_ungrounded: Option<Vec<Figure>>,
    /// How the run ended.
    pub outcome: Outcome,
    /// Sentence-by-sentence grounding of the final reply; `None` in runs
    /// recorded before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grounding: Option<Grounding>,
}

impl CodeChecks {
    /// Runs every code check on a run of a case.
    pub fn run(case: &Case, result: &RunResult) -> Self {
        let mut created: Vec<HandoffReason> = result.handoffs.iter().map(|t| t.reason).collect();
        created.sort();
        created.dedup();
        let missing_handoffs = case.handoffs.iter().filter(|r| !created.contains(r)).copied().collect();
        let extra_handoffs = created
            .iter()
            .filter(|r| !case.handoffs.contains(r) && !case.allow_handoffs.contains(r))
            .copied()
            .collect();
        let missing_listings = case
            .listings
            .iter()
            .filter(|id| {
                !result.reply.contains(id.as_str())
                    && !result.handoffs.iter().any(|t| t.listing_id.as_deref() == Some(id.as_str()))
            })
            .cloned()
            .collect();
        Self {
            created,
            missing_handoffs,
            extra_handoffs,
            missing_listings,
            final_ungrounded: ungrounded_figures(&result.reply, &result.evidence),
            first_draft_ungrounded: result.first_draft.as_ref().map(|d| ungrounded_figures(d, &result.evidence)),
            outcome: result.outcome,
            grounding: Some(crate::grounding::check(
                &result.reply,
                &result.evidence,
                &customer_messages(case),
                result.handoffs.len(),
            )),
        }
    }

    /// Whether the final reply's figures are all grounded.
    pub fn final_numbers_ok(&self) -> bool {
        self.final_ungrounded.is_empty()
    }

    /// Whether the first draft's figures are all grounded (`None` without a draft).
    pub fn first_draft_numbers_ok(&self) -> Option<bool> {
        self.first_draft_ungrounded.as_ref().map(Vec::is_empty)
    }

    /// One line per failed check, in a fixed order.
    pub fn failure_lines(&self) -> Vec<String> {
        let mut out = vec![];
        for r in &self.missing_handoffs {
            out.push(format!("handoff missing: {r}"));
        }
        for r in &self.extra_handoffs {
            out.push(format!("handoff extra: {r}"));
        }
        for id in &self.missing_listings {
            out.push(format!("listing not named: {id}"));
        }
        for f in &self.final_ungrounded {
            out.push(format!("number not grounded (final reply): {}", f.text));
        }
        for f in self.first_draft_ungrounded.iter().flatten() {
            out.push(format!("number not grounded (first draft): {}", f.text));
        }
        for f in self.grounding.iter().flat_map(|g| g.findings()) {
            out.push(format!("grounding: sentence {} {}: {} (“{}”)", f.sentence, f.kind.as_str(), f.reason, f.text));
        }
        if let Outcome::ForcedHandoff { cause } = self.outcome {
            out.push(format!("outcome: forced hand-off ({})", cause.as_str()));
        }
        out
    }
}

fn customer_messages(case: &Case) -> Vec<&str> {
    std::iter::once(case.inquiry.as_str()).chain(case.history.iter().map(|t| t.inquiry.as_str())).collect()
}
