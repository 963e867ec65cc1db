//! `inquiry`: a harness that evaluates and calibrates a tool-using
//! property-inquiry agent. See `ARCHITECTURE.md` for the map of modules.
#![warn(missing_docs)]

pub mod agent;
pub mod analysis;
pub mod app;
pub mod cache;
pub mod calibrate;
pub mod catalogue;
pub mod chunk;
pub mod cli;
pub mod desk;
pub mod eval;
pub mod fold;
pub mod golden;
pub mod grounding;
pub mod handoff;
pub mod json_file;
pub mod knowledge;
pub mod mcp;
pub mod providers;
pub mod retrieval;
pub mod review;
pub mod serving;
pub mod sqlite_owner;
pub mod stats;
pub mod text_file;
pub mod tools;
pub mod view;
