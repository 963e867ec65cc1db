//! Integration tests: one binary, one module per area.

mod agent;
mod bad_inputs;
mod browser;
mod calibrate;
mod catalogue_errors;
mod cli;
mod compare;
mod demo_generalisation;
mod desk;
mod eval;
mod first_run;
mod grounding;
mod hardening;
mod mcp;
mod models;
mod numbers_fuzz;
mod providers;
mod replay;
mod retrieval;
mod support;
mod tools;
mod verdicts;
