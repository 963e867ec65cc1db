//! From one run to many: what is done with stored report sets after `eval`
//! wrote them. `compare` (a candidate against a baseline: flips, paired
//! tests, gates) with `compare_render`, `merge` (shard reports into one),
//! `rescore` (regrading stored runs), `history` (the JSON Lines history and
//! its SVG), and `stored` (reading a report set back).
//!
//! Imports run one way: `analysis` uses `eval` (its report types, grading and
//! renderers) and `stats`; neither imports `analysis`.

pub mod compare;
pub mod compare_render;
pub mod history;
pub mod merge;
pub mod rescore;
pub mod stored;
