//! The inquiry desk (`inquiry serve`, `inquiry tickets`): live inquiries over
//! HTTP with server-sent events, and a hand-off queue kept in SQLite that
//! survives restarts and is shared with `serve-mcp --tickets`.
//!
//! `store` owns the database; `api` checks requests; `server` is the axum
//! adapter; `page` renders the desk page with its
//! example inquiries (`examples`); `sources` builds the document a citation
//! dialog shows; `wrong_reply` is the review column (a ticket's run kept,
//! its reply marked wrong). `eval` never uses any of it: its
//! queues are fresh and in memory.

pub mod api;
pub mod examples;
pub mod page;
pub mod server;
pub mod sources;
pub mod store;
pub mod ticket;
pub mod wrong_reply;

pub use server::{bind, router, Desk, DeskOptions, DEFAULT_BIND};
pub use store::{StoreSink, StoredTicket, TicketDetail, TicketStatus, TicketStore, TicketUpdate, DEFAULT_DB};
