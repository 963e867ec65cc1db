//! A run that went wrong becomes a new eval case: `inquiry cases add
//! --from-trace <trace.json>` turns a case trace (`cases/<id>.json` of a
//! report set, or one the desk writes for a conversation) into a case
//! draft — the inquiry and history as the run had them, the listings it
//! looked up, the hand-offs it made or missed, the rubric items to fill (the
//! suite's case of the same id lends its items and patterns as a starting
//! point; without one, items have no patterns and the rule judge reports them
//! unmeasured until they are written) and, as YAML comments, the catalogue
//! facts the run used — and appends it to a chosen case file.
//!
//! Nothing is overwritten: the id must be new in the whole suite and in the
//! target file, the file is rewritten atomically with its old text first,
//! and the result is loaded and validated like any case before it is
//! written.

use std::path::Path;

use super::case::{load_cases, Case, Expectation, KnownListings, LoadedCase};
use super::CaseReport;
use crate::handoff::HandoffReason;

/// Why a draft could not be made; every variant is a data or usage error (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum DraftError {
    /// The trace is not a readable case trace; names the file and field.
    #[error("{file}: field `{field}`: {message}")]
    Trace {
        /// The trace file.
        file: String,
        /// The field at fault (`runs[0].result.reply`).
        field: String,
        /// What is wrong.
        message: String,
    },
    /// Anything else (the id exists, the target is not a case file, the draft fails validation).
    #[error("{0}")]
    Other(String),
}

/// A trace read back, with the run the draft is made from.
#[derive(Debug, Clone)]
pub struct TraceRun {
    /// The case trace.
    pub case: CaseReport,
    /// Index into `case.runs` of the chosen run.
    pub run: usize,
}

/// Reads a case trace and picks the run: `attempt` when given, else the first
/// failing run, else the first run.
///
/// # Errors
/// [`DraftError::Trace`] naming the file and the field: unreadable or not
/// JSON, a field of the wrong type, no runs, the chosen run without a result
/// (it errored before replying) or an empty inquiry.
pub fn read_trace(path: &Path, attempt: Option<usize>) -> Result<TraceRun, DraftError> {
    let file = path.display().to_string();
    let bad = |field: &str, message: String| DraftError::Trace { file: file.clone(), field: field.into(), message };
    let text = crate::text_file::read(path).map_err(|e| bad("(file)", e))?;
    let value: serde_json::Value = crate::json_file::from_str(&text).map_err(|e| bad("(file)", e.to_string()))?;
    let case: CaseReport = serde_path_to_error::deserialize(value).map_err(|e| {
        let field = e.path().to_string();
        bad(if field == "." { "(top level)" } else { &field }, e.into_inner().to_string())
    })?;
    if !crate::text_file::is_safe_id(&case.id) {
        return Err(bad("id", crate::text_file::SAFE_ID_RULE.into()));
    }
    if case.inquiry.trim().is_empty() {
        return Err(bad("inquiry", "is empty".into()));
    }
    if case.runs.is_empty() {
        return Err(bad("runs", "is empty; a trace needs at least one run".into()));
    }
    let run = match attempt {
        Some(a) => case
            .runs
            .iter()
            .position(|r| r.attempt == a)
            .ok_or_else(|| bad("runs", format!("has no run with attempt {a}")))?,
        None => case.runs.iter().position(|r| !r.passed && r.result.is_some()).unwrap_or(0),
    };
    if case.runs[run].result.is_none() {
        return Err(bad(&format!("runs[{run}].result"), "is absent: the run ended before it replied".into()));
    }
    Ok(TraceRun { case, run })
}

/// The listing ids a run used: looked up with `get_listing`, named on a
/// ticket, or cited (`HH-1001#s5` counts as `HH-1001`), in first-use order.
fn listings_used(t: &TraceRun) -> Vec<String> {
    let Some(result) = &t.case.runs[t.run].result else { return vec![] };
    let mut out: Vec<String> = vec![];
    let mut add = |id: &str| {
        if !id.is_empty() && !id.starts_with("policy:") && !out.iter().any(|o| o == id) {
            out.push(id.to_owned());
        }
    };
    for e in &result.trace {
        if e.tool == "get_listing" && !e.is_error {
            if let Some(id) = e.arguments.get("id").and_then(|v| v.as_str()) {
                add(id);
            }
        }
    }
    for tk in &result.handoffs {
        if let Some(id) = &tk.listing_id {
            add(id);
        }
    }
    for c in &result.citations {
        add(c.split('#').next().unwrap_or(""));
    }
    out
}

/// Hand-offs the run made, and those its checks say it missed.
fn handoffs(t: &TraceRun) -> (Vec<HandoffReason>, Vec<HandoffReason>) {
    let run = &t.case.runs[t.run];
    let made: Vec<HandoffReason> = run.result.iter().flat_map(|r| r.handoffs.iter().map(|h| h.reason)).collect();
    let missed: Vec<HandoffReason> = run
        .failures
        .iter()
        .filter_map(|f| f.strip_prefix("handoff missing: "))
        .filter_map(|r| serde_json::from_value(serde_json::Value::String(r.trim().to_owned())).ok())
        .collect();
    (made, missed)
}

/// The catalogue facts a run used, one line each (`[HH-1001#s5] text`):
/// passages from `search_knowledge`, listing titles and descriptions from
/// `get_listing`; a cited one is marked.
pub fn hints(t: &TraceRun) -> Vec<String> {
    let Some(result) = &t.case.runs[t.run].result else { return vec![] };
    let one_line = |s: &str| {
        let s: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
        let mut cut: String = s.chars().take(300).collect();
        if cut.len() < s.len() {
            cut.push('…');
        }
        cut
    };
    let mut out: Vec<String> = vec![];
    let mut push = |id: &str, text: &str| {
        let cited = if result.citations.iter().any(|c| c == id) { " (cited)" } else { "" };
        let line = format!("[{id}]{cited} {}", one_line(text));
        if !out.contains(&line) {
            out.push(line);
        }
    };
    for e in result.trace.iter().filter(|e| !e.is_error) {
        match e.tool.as_str() {
            "get_listing" => {
                let id = e.result.get("id").and_then(|v| v.as_str()).unwrap_or("");
                let title = e.result.get("title").and_then(|v| v.as_str()).unwrap_or("");
                let desc = e.result.get("description").and_then(|v| v.as_str()).unwrap_or("");
                push(id, &format!("{title}. {desc}"));
            }
            "search_knowledge" => {
                for r in e.result.get("results").and_then(|v| v.as_array()).into_iter().flatten() {
                    let id = r.get("chunkId").and_then(|v| v.as_str()).unwrap_or("");
                    push(id, r.get("text").and_then(|v| v.as_str()).unwrap_or(""));
                }
            }
            _ => {}
        }
    }
    out
}

/// Builds the draft case `id` from a trace run. `original` is the suite's
/// case of the trace's id, when it still exists: its overlay (`fixtures`),
/// listings, hand-off rules and items (with their patterns, to adjust to
/// what went wrong) are kept; otherwise they come from the run, and items
/// carry no match patterns: they are for a person to fill.
pub fn draft(t: &TraceRun, id: &str, original: Option<&Case>) -> Case {
    let c = &t.case;
    let (made, missed) = handoffs(t);
    let mut required: Vec<HandoffReason> = original.map(|o| o.handoffs.clone()).unwrap_or_default();
    for r in made.iter().chain(&missed) {
        if !required.contains(r) {
            required.push(*r);
        }
    }
    // The original's items (with their patterns, a starting point to adjust),
    // else the trace's item texts without patterns, else a placeholder.
    let items = |from_case: Option<&Vec<Expectation>>, texts: &[String], placeholder: &str| -> Vec<Expectation> {
        match from_case {
            Some(items) if !items.is_empty() => items.clone(),
            _ if texts.is_empty() => vec![Expectation { text: placeholder.to_owned(), patterns: vec![] }],
            _ => texts.iter().map(|t| Expectation { text: t.clone(), patterns: vec![] }).collect(),
        }
    };
    let mut tags: Vec<String> = vec!["draft".into()];
    tags.extend(c.tags.iter().filter(|t| *t != "draft").cloned());
    Case {
        id: id.to_owned(),
        lang: c.lang,
        inquiry: c.inquiry.clone(),
        history: c.history.clone(),
        listings: original.map(|o| o.listings.clone()).unwrap_or_else(|| listings_used(t)),
        handoffs: required,
        allow_handoffs: original.map(|o| o.allow_handoffs.clone()).unwrap_or_default(),
        must: items(original.map(|o| &o.must), &c.items.must, "FILL IN: a fact the reply must convey"),
        must_not: items(
            original.map(|o| &o.must_not),
            &c.items.must_not,
            "FILL IN: a statement the reply must not make",
        ),
        tags,
        subset: false,
        fixtures: original.and_then(|o| o.fixtures.clone()),
        critical: c.critical,
        cluster: None,
    }
}

/// The YAML text appended to the case file: a comment block (where the
/// draft came from, what to fill, the hints) and the case as a one-item list.
///
/// # Errors
/// The case does not serialize (not expected).
pub fn render(case: &Case, source: &str, t: &TraceRun) -> anyhow::Result<String> {
    let run = &t.case.runs[t.run];
    let mut s = format!(
        "\n# --- {} (draft from {source}, run {}: {}) ---\n# Fill in (or adjust) the match patterns of each must/must_not item (the rule judge reports an item\n# without patterns as unmeasured) and check listings and hand-offs; then drop the `draft` tag.\n",
        case.id,
        run.attempt,
        if run.passed { "passed" } else { "failed" }
    );
    let scrub = |l: &str| l.replace(['\n', '\r'], " ");
    for f in &run.failures {
        s.push_str(&format!("# failure: {}\n", scrub(f)));
    }
    if let Some(r) = &run.result {
        s.push_str(&format!("# reply: {}\n", scrub(&r.reply.chars().take(400).collect::<String>())));
    }
    for h in hints(t) {
        s.push_str(&format!("# hint: {}\n", scrub(&h)));
    }
    s.push_str(&yaml_serde::to_string(&vec![case])?);
    Ok(s)
}

/// The first free id among `<base>-draft`, `<base>-draft-2`, … (cut so it
/// stays a safe id), given the ids in use.
pub fn unique_id(base: &str, taken: &dyn Fn(&str) -> bool) -> String {
    let base: String = base.chars().take(crate::text_file::MAX_ID_LEN - 12).collect();
    let base = base.trim_end_matches('-');
    let first = format!("{base}-draft");
    if !taken(&first) {
        return first;
    }
    (2..).map(|n| format!("{base}-draft-{n}")).find(|id| !taken(id)).unwrap_or(first)
}

/// What `cases add` wrote.
#[derive(Debug, Clone)]
pub struct Added {
    /// The new case's id.
    pub id: String,
    /// The validated case as loaded back from the written file.
    pub case: LoadedCase,
}

/// Appends the draft of `trace` to `target` (created when absent) after
/// checking it: `id` (or a derived unique one) must be new in `suite` and
/// in `target`, and `target`'s new text must load as a case file.
///
/// # Errors
/// [`DraftError`]: a bad trace (file and field), an existing id, a target
/// that is not a `.yaml` regular file, or a draft that fails validation.
pub fn add_from_trace(
    trace: &Path,
    attempt: Option<usize>,
    target: &Path,
    suite: &Path,
    id: Option<&str>,
    known: &dyn KnownListings,
) -> Result<Added, DraftError> {
    let other = |m: String| DraftError::Other(m);
    if !target.extension().is_some_and(|e| e == "yaml" || e == "yml") {
        return Err(other(format!("{}: expected a .yaml case file", target.display())));
    }
    let existing = match std::fs::symlink_metadata(target) {
        Ok(m) if m.is_file() => {
            Some(crate::text_file::read(target).map_err(|e| other(format!("{}: {e}", target.display())))?)
        }
        Ok(_) => return Err(other(format!("{}: not a regular file; expected a .yaml case file", target.display()))),
        Err(_) => None,
    };
    let t = read_trace(trace, attempt)?;
    let mut ids: Vec<String> = vec![];
    let suite_cases = if suite.exists() {
        load_cases(suite, known).map_err(|e| other(format!("the suite does not load: {e}")))?
    } else {
        vec![]
    };
    ids.extend(suite_cases.iter().map(|c| c.case.id.clone()));
    if existing.is_some() {
        let here = load_cases(target, known).map_err(|e| other(format!("the target does not load: {e}")))?;
        ids.extend(here.iter().map(|c| c.case.id.clone()));
    }
    let taken = |i: &str| ids.iter().any(|x| x == i);
    let id = match id {
        Some(i) => {
            if !crate::text_file::is_safe_id(i) {
                return Err(other(format!(
                    "--id `{}`: {}",
                    crate::text_file::escape_for_terminal(i, 120),
                    crate::text_file::SAFE_ID_RULE
                )));
            }
            if taken(i) {
                return Err(other(format!(
                    "--id `{i}`: a case with this id exists already; nothing was written (choose another id)"
                )));
            }
            i.to_owned()
        }
        None => unique_id(&t.case.id, &taken),
    };
    let original = suite_cases.iter().find(|c| c.case.id == t.case.id).map(|c| &c.case);
    let case = draft(&t, &id, original);
    let text = render(&case, &trace.display().to_string(), &t).map_err(|e| other(e.to_string()))?;
    let new_text = format!("{}{text}", existing.as_deref().unwrap_or(""));
    // Validate the whole new file the way the suite loads it, before writing.
    let dir = target.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let check = tempfile::Builder::new()
        .suffix(".yaml")
        .tempfile_in(dir)
        .map_err(|e| other(format!("{}: cannot write here: {e}", dir.display())))?;
    std::fs::write(check.path(), &new_text).map_err(|e| other(format!("{}: {e}", dir.display())))?;
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(target).map(|m| m.permissions().mode()).unwrap_or(0o644);
        let _ = std::fs::set_permissions(check.path(), std::fs::Permissions::from_mode(mode));
    }
    let loaded =
        load_cases(check.path(), known).map_err(|e| other(format!("the draft does not validate: {}", e.message)))?;
    let case =
        loaded.into_iter().find(|c| c.case.id == id).ok_or_else(|| other("the draft was not read back".into()))?;
    // Another writer may have changed the target meanwhile: never drop its text.
    let now = std::fs::read_to_string(target).ok();
    if now != existing {
        return Err(other(format!("{}: changed while the draft was made; nothing was written", target.display())));
    }
    check.persist(target).map_err(|e| other(format!("{}: {}", target.display(), e.error)))?;
    Ok(Added { id, case: LoadedCase { file: target.to_owned(), ..case } })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unique_ids_skip_taken_ones() {
        let taken = ["heating-draft".to_owned(), "heating-draft-2".to_owned()];
        assert_eq!(unique_id("heating", &|i| taken.iter().any(|t| t == i)), "heating-draft-3");
        assert_eq!(unique_id("x", &|_| false), "x-draft");
        let long = "a".repeat(100);
        let id = unique_id(&long, &|_| false);
        assert!(crate::text_file::is_safe_id(&id), "{id}");
    }
}
