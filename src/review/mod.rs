//! The review loop: people grade what the judges cannot, and their verdicts
//! measure the judges.
//!
//! - [`store`]: the SQLite review database (one row per reviewer, item and
//!   verdict, keyed by the reply's hash).
//! - [`export`]: reviews to and from the `labels/` YAML format.
//! - [`queue`]: what to review from one or more report sets: replies the
//!   judges disagree on, replies the rule judge left undecided, and a seeded
//!   uniform random sample.
//! - [`server`]: the review page and its API, served by `inquiry view --review`.
//! - [`corrected`]: the judge-corrected pass rate of a report from the
//!   reviewed random sample (prediction-powered inference).
//!
//! The reviewers' agreement with each other and with a judge is computed by
//! `judge-check` ([`crate::eval::reviewer_agreement`]) from exported labels.

pub mod corrected;
pub mod export;
pub mod queue;
pub mod server;
pub mod store;

pub use store::{reply_hash, ItemKind, Review, ReviewStore, StoredReply, DEFAULT_DB};
