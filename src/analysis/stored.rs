//! A stored report set read back from disk: its `report.json` (the summary,
//! runs without their full agent result) and, on request, each case's trace
//! file with the full runs. Shared by compare, merge and rescore.

use std::path::{Path, PathBuf};

use anyhow::Context as _;

use crate::eval::{CaseReport, EvalReport, REPORT_SCHEMA};

/// A report read from disk, with where it came from.
#[derive(Debug, Clone)]
pub struct LoadedReport {
    /// The report (runs without their full agent result).
    pub report: EvalReport,
    /// The report set directory (traces are `dir/cases/<id>.json`).
    pub dir: PathBuf,
}

/// Reads a `report.json` (or the set directory holding it).
///
/// # Errors
/// A missing or unreadable file, invalid JSON (with line and column), or a
/// report of another schema.
pub fn load_report(path: &Path) -> anyhow::Result<LoadedReport> {
    let (dir, json) = if path.is_dir() {
        (path.to_owned(), path.join("report.json"))
    } else {
        (path.parent().map(Path::to_owned).unwrap_or_default(), path.to_owned())
    };
    let text = crate::text_file::read(&json).map_err(|e| anyhow::anyhow!("{}: {e}", json.display()))?;
    let value: serde_json::Value =
        crate::json_file::from_str(&text).map_err(|e| anyhow::anyhow!("{}: {e}", json.display()))?;
    let schema = value.get("schema").and_then(|s| s.as_str()).unwrap_or("");
    if schema != REPORT_SCHEMA {
        anyhow::bail!(
            "{}: schema `{schema}`; expected `{REPORT_SCHEMA}` (a report.json written by `inquiry eval`)",
            json.display()
        );
    }
    // serde_path_to_error names the field at fault (`cases[3].runs[0].latency_ms`).
    let report: EvalReport = serde_path_to_error::deserialize(value).map_err(|e| {
        anyhow::anyhow!("{}: not a readable eval report: field `{}`: {}", json.display(), e.path(), e.inner())
    })?;
    Ok(LoadedReport { report, dir })
}

/// A stored report set, with every case's full runs from its trace file.
#[derive(Debug, Clone)]
pub struct StoredReport {
    /// The report, with `cases[i].runs[j].result` filled in from the traces.
    pub report: EvalReport,
    /// The set directory it was read from.
    pub dir: PathBuf,
}

/// Reads a report set: its directory or its `report.json`. Each case's runs
/// come from `cases/<id>.json` in the same set.
///
/// # Errors
/// A missing or unreadable file, a report of another schema, a case id that
/// is not a safe file name, or a trace that does not belong to the report.
pub fn load_stored(path: &Path) -> anyhow::Result<StoredReport> {
    let LoadedReport { mut report, dir } = load_report(path)?;
    for case in &mut report.cases {
        *case = read_trace(&dir, &case.id)?;
    }
    Ok(StoredReport { report, dir })
}

/// Reads the trace `cases/<id>.json` of a stored report set.
///
/// # Errors
/// A case id that is not a safe file name, a missing or unreadable trace, or
/// a trace that holds another case.
pub fn read_trace(dir: &Path, id: &str) -> anyhow::Result<CaseReport> {
    if !crate::text_file::is_safe_id(id) {
        anyhow::bail!("{}: case id `{}` is not a safe file name", dir.join("report.json").display(), id.escape_debug());
    }
    let trace = dir.join(crate::eval::report::trace_path(id));
    let text = crate::text_file::read(&trace)
        .map_err(|e| anyhow::anyhow!("{}: {e} (the trace of case {id})", trace.display()))?;
    let full: CaseReport =
        serde_json::from_str(&text).with_context(|| format!("{}: not a readable case trace", trace.display()))?;
    if full.id != id {
        anyhow::bail!("{}: holds case `{}`, expected `{id}`", trace.display(), full.id);
    }
    Ok(full)
}

/// The first failure or unmeasured line of a case.
pub fn first_line(c: &CaseReport) -> Option<String> {
    c.runs.iter().find_map(|x| {
        x.failures
            .first()
            .map(|f| format!("run {}: {f}", x.attempt))
            .or_else(|| x.unmeasured.as_ref().map(|u| format!("run {}: unmeasured: {u}", x.attempt)))
    })
}
