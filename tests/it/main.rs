//! Integration tests: one binary, one module per area.

mod agent;
mod bad_inputs;
mod bad_inputs_servers;
mod bad_inputs_surfaces;
mod browser;
mod calibrate;
mod catalogue_errors;
mod ci_workflow;
mod cli;
mod compare;
mod demo_generalisation;
mod desk;
mod eval;
mod first_run;
mod gates;
mod hardening;
mod hardening_r3;
mod mcp;
mod models;
mod numbers_fuzz;
mod providers;
mod replay;
mod retrieval;
mod support;
mod tools;
mod verdicts;
