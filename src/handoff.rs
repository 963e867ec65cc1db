//! Hand-off tickets: what the agent (or an external assistant over MCP) passes
//! to a person. A ticket is not a booking: nothing is reserved or confirmed.

use std::sync::Mutex;

use chrono::{DateTime, SecondsFormat, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Why a person must take over: the closed set of six reasons of SPEC §4.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum HandoffReason {
    /// The inquirer wants to view a property (only a person can arrange it).
    ViewingRequest,
    /// The inquirer asks for a lower price or other terms, however politely.
    PriceNegotiation,
    /// Contract wording, legal advice, termination, disputes.
    ContractOrLegal,
    /// A complaint about the agency, a landlord or a property.
    Complaint,
    /// Access to, correction or deletion of personal data.
    PersonalDataRequest,
    /// The records do not answer the question.
    NotAnswerableFromListing,
}

impl HandoffReason {
    /// All six reasons in a stable order (report tables use it).
    pub const ALL: [HandoffReason; 6] = [
        Self::ViewingRequest,
        Self::PriceNegotiation,
        Self::ContractOrLegal,
        Self::Complaint,
        Self::PersonalDataRequest,
        Self::NotAnswerableFromListing,
    ];

    /// The wire name, e.g. `viewing_request`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ViewingRequest => "viewing_request",
            Self::PriceNegotiation => "price_negotiation",
            Self::ContractOrLegal => "contract_or_legal",
            Self::Complaint => "complaint",
            Self::PersonalDataRequest => "personal_data_request",
            Self::NotAnswerableFromListing => "not_answerable_from_listing",
        }
    }
}

impl std::fmt::Display for HandoffReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A created hand-off ticket, as returned by `hand_off_to_human`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Ticket {
    /// `TKT-0001`, `TKT-0002`, … in creation order within one queue.
    pub ticket_id: String,
    /// Creation time, RFC 3339 UTC with seconds (`2026-11-29T20:15:00Z`).
    pub created_at: String,
    /// One of the six reasons.
    pub reason: HandoffReason,
    /// Normalised listing id the ticket is about, if any.
    pub listing_id: Option<String>,
    /// What the person should do, 10–500 characters.
    pub summary: String,
    /// Where to reach the inquirer, if given.
    pub contact_email: Option<String>,
}

/// A ticket's fields before it has an id: what `hand_off_to_human` validated.
#[derive(Debug, Clone, PartialEq)]
pub struct NewTicket {
    /// One of the six reasons.
    pub reason: HandoffReason,
    /// Normalised listing id, if any.
    pub listing_id: Option<String>,
    /// What the person should do, 10–500 characters.
    pub summary: String,
    /// Where to reach the inquirer, if given.
    pub contact_email: Option<String>,
    /// Creation time.
    pub now: DateTime<Utc>,
}

/// Where tickets are kept beyond the process: the desk's SQLite database
/// (`crate::desk::TicketStore`). The sink gives the ticket its id, so ids are
/// unique across every process that writes to the same database.
pub trait TicketSink: Send + Sync {
    /// Stores the ticket durably and returns it with its id.
    ///
    /// # Errors
    /// The store could not write (a message naming the database).
    fn record(&self, ticket: &NewTicket) -> Result<Ticket, String>;
}

/// A thread-safe ticket queue. Each eval case gets its own in-memory queue;
/// the agent and MCP clients in one process share one. With a [`TicketSink`]
/// (`inquiry serve`, `serve-mcp --tickets`) each ticket is also stored there,
/// and the sink's id is the ticket's id.
#[derive(Default)]
pub struct HandoffQueue {
    tickets: Mutex<Vec<Ticket>>,
    sink: Option<std::sync::Arc<dyn TicketSink>>,
}

impl std::fmt::Debug for HandoffQueue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HandoffQueue").field("tickets", &self.tickets).field("sink", &self.sink.is_some()).finish()
    }
}

impl HandoffQueue {
    /// An empty in-memory queue.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty queue whose tickets are also stored in `sink`.
    pub fn with_sink(sink: std::sync::Arc<dyn TicketSink>) -> Self {
        Self { tickets: Mutex::default(), sink: Some(sink) }
    }

    /// Appends a ticket built from already validated fields and returns it.
    ///
    /// # Errors
    /// The sink could not store it; nothing is appended then.
    pub fn push(&self, new: NewTicket) -> Result<Ticket, String> {
        let mut tickets = self.tickets.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let ticket = match &self.sink {
            Some(sink) => sink.record(&new)?,
            None => Ticket {
                ticket_id: format!("TKT-{:04}", tickets.len() + 1),
                created_at: new.now.to_rfc3339_opts(SecondsFormat::Secs, true),
                reason: new.reason,
                listing_id: new.listing_id,
                summary: new.summary,
                contact_email: new.contact_email,
            },
        };
        tickets.push(ticket.clone());
        Ok(ticket)
    }

    /// A copy of all tickets of this queue in creation order.
    pub fn tickets(&self) -> Vec<Ticket> {
        self.tickets.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).clone()
    }
}
