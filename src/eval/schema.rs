//! JSON Schemas of the files `inquiry eval` writes, generated from the Rust
//! types with schemars and committed under `docs/schema/` (a test fails when
//! the committed files and the code disagree; `inquiry schema --write
//! docs/schema` regenerates them). With them, runs recorded by other tools
//! can be converted into this format and rescored.

use std::path::Path;

use super::{CaseReport, EvalReport, REPORT_SCHEMA};

/// The schema files: (file name, schema).
pub fn all() -> Vec<(&'static str, serde_json::Value)> {
    vec![("report.v1.schema.json", report()), ("case-trace.v1.schema.json", case_trace())]
}

/// `report.json`: the [`EvalReport`] with each run's full `result` replaced
/// by its `reply`, and each case's `trace` path (`cases/<id>.json`).
pub fn report() -> serde_json::Value {
    let mut schema = serde_json::to_value(schemars::schema_for!(EvalReport)).unwrap_or_default();
    schema["$id"] = format!("https://inquiry.invalid/schema/{REPORT_SCHEMA}").into();
    schema["title"] = "inquiry eval report.json".into();
    if let Some(defs) = schema.get_mut("$defs") {
        if let Some(props) = defs.pointer_mut("/CaseRun/properties").and_then(|p| p.as_object_mut()) {
            props.remove("result");
            props.insert(
                "reply".into(),
                serde_json::json!({"description": "The reply shown to the customer; null when the agent could not run.", "type": ["string", "null"]}),
            );
        }
        if let Some(req) = defs.pointer_mut("/CaseRun/required").and_then(|p| p.as_array_mut()) {
            req.retain(|r| r != "result");
        }
        if let Some(props) = defs.pointer_mut("/CaseReport/properties").and_then(|p| p.as_object_mut()) {
            props.insert(
                "trace".into(),
                serde_json::json!({"description": "Path of the case's trace file, relative to the report set: cases/<id>.json.", "type": "string"}),
            );
        }
    }
    schema
}

/// `cases/<id>.json`: one [`CaseReport`] with every run's full agent result.
pub fn case_trace() -> serde_json::Value {
    let mut schema = serde_json::to_value(schemars::schema_for!(CaseReport)).unwrap_or_default();
    schema["$id"] = "https://inquiry.invalid/schema/inquiry.eval.case-trace/v1".into();
    schema["title"] = "inquiry eval case trace (cases/<id>.json)".into();
    schema
}

/// Writes every schema file into `dir`.
///
/// # Errors
/// The directory cannot be created or a file cannot be written.
pub fn write(dir: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| anyhow::anyhow!("{}: cannot create: {e}", dir.display()))?;
    for (name, schema) in all() {
        super::report::write_atomic(&dir.join(name), (serde_json::to_string_pretty(&schema)? + "\n").as_bytes())?;
    }
    Ok(())
}
