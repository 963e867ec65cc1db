//! Integration tests: one binary, one module per area.

mod catalogue_errors;
mod cli;
mod retrieval;
mod support;
mod tools;
