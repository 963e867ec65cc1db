//! What a run records: how it ended, every tool call, model call and
//! rejected draft ([`RunResult`]), and the events it reports while it goes.

use serde::{Deserialize, Serialize};

use super::guards::{Evidence, Violation};
use super::model::{StopReason, Usage};
use crate::handoff::Ticket;

/// Why a run ended in a forced hand-off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ForcedCause {
    /// A draft failed the guards twice.
    GuardFailed,
    /// The model-call limit was reached without a reply.
    TurnLimit,
    /// The token budget was used up.
    TokenBudget,
    /// A model call timed out.
    ModelTimeout,
    /// The model's output was cut off (max tokens).
    Truncated,
    /// The model refused.
    Refused,
    /// The same tool call (name + arguments) was requested a third time.
    RepeatedCall,
    /// The model provider failed (after retries) or answered unreadably.
    ModelError,
    /// A hand-off ticket could not be stored (the desk database refused the
    /// write): the reply says so instead of promising a colleague.
    HandoffNotStored,
}

impl ForcedCause {
    /// The wire name, e.g. `guard_failed`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::GuardFailed => "guard_failed",
            Self::TurnLimit => "turn_limit",
            Self::TokenBudget => "token_budget",
            Self::ModelTimeout => "model_timeout",
            Self::Truncated => "truncated",
            Self::Refused => "refused",
            Self::RepeatedCall => "repeated_call",
            Self::ModelError => "model_error",
            Self::HandoffNotStored => "handoff_not_stored",
        }
    }
}

/// How a run ended. "Answered" can still include tickets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Outcome {
    /// A checked reply was produced.
    Answered,
    /// Code handed the inquiry to a person with the fixed reply.
    ForcedHandoff {
        /// Why.
        cause: ForcedCause,
    },
}

/// One tool call of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TraceEntry {
    /// 1-based model call that requested it (0 for the code's forced hand-off).
    pub model_call: u32,
    /// Tool name.
    pub tool: String,
    /// Arguments as sent.
    pub arguments: serde_json::Value,
    /// Result JSON (`{error, hint}` on failure).
    pub result: serde_json::Value,
    /// Whether the call failed.
    pub is_error: bool,
    /// Wall time of the call (ms).
    pub duration_ms: u64,
}

/// One model call of a run, for auditing a report against the response cache.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ModelExchange {
    /// 1-based model call.
    pub model_call: u32,
    /// Why the model stopped; `None` when the call failed.
    pub stop: Option<StopReason>,
    /// Tokens of this call.
    pub usage: Usage,
    /// Wall time of the call as this run saw it (ms; near 0 for a cache hit).
    pub latency_ms: u64,
    /// Response-cache key, when a cache was used.
    pub cache_key: Option<String>,
    /// Answered from the response cache.
    pub from_cache: bool,
    /// The error, when the call failed.
    pub error: Option<String>,
}

/// A draft that failed the guards.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct GuardEvent {
    /// Model call that produced the draft.
    pub model_call: u32,
    /// The rejected draft.
    pub draft: String,
    /// What failed.
    pub violations: Vec<Violation>,
    /// `repair` (the model got another try) or `forced_handoff`.
    pub action: String,
}

/// Everything a run produced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RunResult {
    /// The reply shown to the customer (checked, or the fixed hand-off text).
    pub reply: String,
    /// Citation ids in the reply.
    pub citations: Vec<String>,
    /// Tickets created in this run, in order.
    pub handoffs: Vec<Ticket>,
    /// Every tool call.
    pub trace: Vec<TraceEntry>,
    /// Tokens used by the model.
    pub usage: Usage,
    /// How it ended.
    pub outcome: Outcome,
    /// Rejected drafts.
    pub guard_events: Vec<GuardEvent>,
    /// The first draft reply, before any repair (eval checks its numbers too).
    pub first_draft: Option<String>,
    /// Model calls made.
    pub model_calls: u32,
    /// Model id.
    pub model: String,
    /// A model or transport error that ended the run, if any.
    pub error: Option<String>,
    /// What the reply could draw on (ids and numbers), for eval's checks.
    pub evidence: Evidence,
    /// Every model call, in order.
    #[serde(default)]
    pub exchanges: Vec<ModelExchange>,
}

/// What a run reports while it goes (`inquiry serve` streams these as
/// server-sent events; the finished [`RunResult`] holds all of them too).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum RunEvent {
    /// A tool call is about to be made.
    ToolCall {
        /// 1-based model call that requested it (0 for the code's forced hand-off).
        model_call: u32,
        /// Tool name.
        tool: String,
        /// Arguments as sent.
        arguments: serde_json::Value,
    },
    /// A tool call returned (or failed).
    ToolResult(TraceEntry),
    /// A draft failed the guards.
    Guard(GuardEvent),
    /// A hand-off ticket was created.
    Ticket(Ticket),
}

impl RunEvent {
    /// The event name: `tool_call`, `tool_result`, `guard` or `ticket`.
    pub fn name(&self) -> &'static str {
        match self {
            Self::ToolCall { .. } => "tool_call",
            Self::ToolResult(_) => "tool_result",
            Self::Guard(_) => "guard",
            Self::Ticket(_) => "ticket",
        }
    }
}
