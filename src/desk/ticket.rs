//! What the desk keeps about a ticket beside the ticket itself: where it
//! stands, its history, and the changes a person may make.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::handoff::Ticket;

/// Longest note a person may attach to a status change (characters).
pub const MAX_NOTE_CHARS: usize = 2_000;

/// Where a ticket stands: a person moves it `open` → `in_progress` → `done`
/// (any order is allowed; the history keeps each step).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TicketStatus {
    /// Nobody has taken it yet.
    Open,
    /// A person is on it.
    InProgress,
    /// Dealt with.
    Done,
}

impl TicketStatus {
    /// The wire name: `open`, `in_progress` or `done`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Open => "open",
            Self::InProgress => "in_progress",
            Self::Done => "done",
        }
    }
}

impl std::str::FromStr for TicketStatus {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "open" => Ok(Self::Open),
            "in_progress" => Ok(Self::InProgress),
            "done" => Ok(Self::Done),
            other => Err(format!("unknown status {other:?}; expected open, in_progress or done")),
        }
    }
}

/// A ticket as the desk keeps it: the ticket plus where it stands.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StoredTicket {
    /// The ticket as `hand_off_to_human` returned it.
    #[serde(flatten)]
    pub ticket: Ticket,
    /// Current status.
    pub status: TicketStatus,
    /// The latest note, if any.
    pub note: Option<String>,
    /// Last change, RFC 3339 UTC with seconds.
    pub updated_at: String,
    /// Who created it: `desk` (`inquiry serve`) or `mcp` (`serve-mcp --tickets`).
    pub source: String,
}

/// One step of a ticket's history: its creation or a status change.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TicketEvent {
    /// Change-feed sequence number, increasing across the database.
    pub seq: i64,
    /// The ticket.
    pub ticket_id: String,
    /// When, RFC 3339 UTC with seconds.
    pub at: String,
    /// Status after this step.
    pub status: TicketStatus,
    /// The note given with it, if any.
    pub note: Option<String>,
    /// Who made the step: `desk`, `mcp`, `cli`.
    pub source: String,
}

/// A ticket with its whole history, oldest step first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TicketDetail {
    /// The ticket and its current status.
    #[serde(flatten)]
    pub ticket: StoredTicket,
    /// Every step.
    pub history: Vec<TicketEvent>,
}

/// A change to apply to a ticket; at least one field is set.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TicketUpdate {
    /// New status.
    pub status: Option<TicketStatus>,
    /// Note to record (at most [`MAX_NOTE_CHARS`] characters).
    pub note: Option<String>,
}
