//! From one run to many: what is done with stored report sets after `eval`
//! wrote them. `compare` (a candidate against a baseline: flips, paired
//! tests) with `gates` (non-inferiority, thresholds, the verdict),
//! `breakdown` (paired differences per tag and language), `power` (what a
//! suite can detect) and `compare_render`, `merge` (shard reports into one),
//! `rescore` (regrading stored runs), `history` (the JSON Lines history and
//! its SVG), and `stored` (reading a report set back).
//!
//! Imports run one way: `analysis` uses `eval` (its report types, grading and
//! renderers) and `stats`; neither imports `analysis`.

pub mod breakdown;
pub mod compare;
pub mod compare_render;
pub mod gates;
pub mod history;
pub mod merge;
pub mod power;
pub mod rescore;
pub mod stored;
