//! Merging shard reports (`eval --shard i/n` in a CI matrix) into one report
//! with the metrics and thresholds applied to the whole suite again.

use std::collections::HashMap;

use super::stored::StoredReport;
use crate::eval::case::LoadedCase;
use crate::eval::finish_report;
use crate::eval::metrics::Thresholds;
use crate::eval::{CaseReport, EvalReport};

/// Merges `parts` (each with its full traces) into one report named `name`.
/// `suite` gives the loaded cases (the order of the merged report and what
/// the metrics need).
///
/// # Errors
/// No parts; parts of different models, judges, retrieval, repeats or base
/// selections; a case in two parts; a case the suite no longer has; shards
/// that do not add up (a missing or repeated shard).
pub fn merge(
    parts: &[StoredReport],
    suite: &[LoadedCase],
    thresholds: &Thresholds,
    name: &str,
) -> anyhow::Result<EvalReport> {
    let first = &parts.first().ok_or_else(|| anyhow::anyhow!("merge needs at least one report"))?.report;
    let mut base_selection = first.selection.clone();
    base_selection.shard = None;
    let mut shards = vec![];
    for p in parts {
        let r = &p.report;
        let mut sel = r.selection.clone();
        let shard = sel.shard.take();
        let same = r.model == first.model
            && r.judge == first.judge
            && r.retrieval == first.retrieval
            && r.repeat == first.repeat
            && sel == base_selection;
        if !same {
            anyhow::bail!(
                "{}: model {}, judge {}, repeat {}, selection {} differ from {} (model {}, judge {}, repeat {}, selection {}); only shards of one run can be merged",
                p.dir.display(),
                r.model,
                r.judge,
                r.repeat,
                crate::eval::selection_words(&r.selection),
                parts[0].dir.display(),
                first.model,
                first.judge,
                first.repeat,
                crate::eval::selection_words(&first.selection)
            );
        }
        if r.incomplete.is_some() {
            anyhow::bail!("{}: the report is INCOMPLETE (interrupted); re-run that shard first", p.dir.display());
        }
        shards.push(shard);
    }
    if shards.iter().any(Option::is_some) {
        let count = shards.iter().flatten().map(|s| s.count).max().unwrap_or(1);
        let mut seen: Vec<u32> = shards.iter().flatten().filter(|s| s.count == count).map(|s| s.index).collect();
        seen.sort_unstable();
        let want: Vec<u32> = (1..=count).collect();
        if seen != want || shards.iter().any(|s| s.is_none_or(|s| s.count != count)) {
            anyhow::bail!(
                "the shards do not add up to one run: expected 1/{count} … {count}/{count} once each, got {seen:?}"
            );
        }
    }
    let mut by_id: HashMap<String, CaseReport> = HashMap::new();
    for p in parts {
        for c in &p.report.cases {
            if by_id.insert(c.id.clone(), c.clone()).is_some() {
                anyhow::bail!("case {} is in more than one report ({} among them)", c.id, p.dir.display());
            }
        }
    }
    let mut cases = vec![];
    let mut reports = vec![];
    for c in suite {
        if let Some(r) = by_id.remove(&c.case.id) {
            cases.push(c.clone());
            reports.push(r);
        }
    }
    if let Some(id) = by_id.keys().next() {
        anyhow::bail!("case {id} is not in the current suite; merge with the cases the shards ran (--cases)");
    }
    let golden = parts
        .iter()
        .map(|p| &p.report.golden)
        .find(|g| g.answerable + g.unanswerable > 0)
        .cloned()
        .unwrap_or_else(crate::eval::golden::GoldenReport::not_run);
    let mut merged = first.clone();
    merged.name = name.to_owned();
    merged.selection = base_selection;
    merged.date = parts.iter().map(|p| p.report.date.clone()).min().unwrap_or_default();
    merged.wall_ms = parts.iter().map(|p| p.report.wall_ms).max().unwrap_or(0);
    merged.concurrency = parts.iter().map(|p| p.report.concurrency).sum();
    merged.golden = golden;
    merged.cases = reports;
    let judged = merged.judge != "none";
    Ok(finish_report(merged, &cases, thresholds, judged))
}
