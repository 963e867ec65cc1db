//! Hand-labelled replies (`labels/*.yaml`) for measuring the judges.
//!
//! Each file is one split (its stem: `dev`, `test`); each entry is a reply to
//! a bundled case with a human verdict for every `must` item (`conveyed`) and
//! every `must_not` item (`stated`), and the tool calls the reply was written
//! from (`evidence`, with their results), so the guards' view of it can be
//! reproduced. See `labels/README.md`.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Whether a labelled reply is right or wrong as a whole (human judgement).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LabelKind {
    /// Every `must` item conveyed, no `must_not` item stated.
    Correct,
    /// At least one item fails.
    Wrong,
}

/// One tool call of a label's evidence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvidenceCall {
    /// Tool name.
    pub tool: String,
    /// Arguments as sent.
    #[serde(default)]
    pub arguments: serde_json::Value,
    /// The tool's result JSON (filled by `scripts/fill-label-evidence`).
    #[serde(default)]
    pub result: Option<serde_json::Value>,
    /// Whether the call failed.
    #[serde(default)]
    pub is_error: bool,
}

/// One labelled reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Label {
    /// Unique label id.
    pub id: String,
    /// The bundled case it answers.
    pub case: String,
    /// Right or wrong as a whole.
    pub kind: LabelKind,
    /// How it is worded: `template` (like the demo), `model` (like a real
    /// model), `subtle` (a subtly wrong reply).
    pub style: String,
    /// The reply.
    pub reply: String,
    /// Human verdict per `must` item: the fact is conveyed.
    pub conveyed: Vec<bool>,
    /// Human verdict per `must_not` item: the statement is made.
    pub stated: Vec<bool>,
    /// Tool calls the reply was written from.
    #[serde(default)]
    pub evidence: Vec<EvidenceCall>,
    /// Why this label exists.
    #[serde(default)]
    pub note: Option<String>,
    /// Who gave the verdicts (labels exported from the review database);
    /// absent for the hand-written labels. Several reviewers' labels of one
    /// reply give the inter-reviewer agreement in `judge-check`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reviewer: Option<String>,
}

/// A label with where it came from.
#[derive(Debug, Clone)]
pub struct LoadedLabel {
    /// The label.
    pub label: Label,
    /// Split (file stem).
    pub split: String,
    /// File.
    pub file: PathBuf,
    /// 1-based line of its `id:`.
    pub line: usize,
}

/// Why labels could not be loaded.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {message}")]
pub struct LabelError {
    /// File or directory.
    pub path: PathBuf,
    /// What was wrong, with the line and field.
    pub message: String,
}

/// Loads every `*.yaml` file of `dir` (sorted), or the one file `dir` names. Checks unique ids, the kind
/// against the verdicts, and — through `case_items` (case id → number of
/// `must` and `must_not` items, `None` for an unknown case) — that every
/// label answers a known case with one verdict per item.
///
/// # Errors
/// [`LabelError`] naming the file, the line and the field.
pub fn load_labels(
    dir: &Path,
    case_items: &dyn Fn(&str) -> Option<(usize, usize)>,
) -> Result<Vec<LoadedLabel>, LabelError> {
    let err = |path: &Path, message: String| LabelError { path: path.into(), message };
    // One file is a split too (`reviews import reviews.yaml`).
    let mut files: Vec<PathBuf> = if dir.is_file() {
        vec![dir.to_path_buf()]
    } else {
        let entries = std::fs::read_dir(dir).map_err(|e| err(dir, format!("cannot read directory: {e}")))?;
        entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "yaml" || e == "yml"))
            .collect()
    };
    files.sort();
    if files.is_empty() {
        return Err(err(dir, "no *.yaml label files found".into()));
    }
    let mut out: Vec<LoadedLabel> = vec![];
    for file in files {
        let text = crate::text_file::read(&file).map_err(|e| err(&file, e))?;
        let labels: Vec<Label> = crate::text_file::yaml(&text).map_err(|e| err(&file, e))?;
        let lines = crate::text_file::id_lines(&text);
        let split = file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let mut occurrence: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
        for label in labels {
            let k = occurrence.entry(label.id.clone()).or_default();
            let line = lines.get(&label.id).and_then(|l| l.get(*k)).copied().unwrap_or(0);
            *k += 1;
            let at = |field: &str, message: String| {
                err(&file, format!("line {line}: label `{}`, field `{field}`: {message}", label.id))
            };
            if !crate::text_file::is_safe_id(&label.id) {
                return Err(err(
                    &file,
                    format!("line {line}: label id `{}`: {}", label.id, crate::text_file::SAFE_ID_RULE),
                ));
            }
            if let Some(first) = out.iter().find(|l| l.label.id == label.id) {
                return Err(at(
                    "id",
                    format!("duplicate id, first defined in {}:{}", first.file.display(), first.line),
                ));
            }
            let Some((must, must_not)) = case_items(&label.case) else {
                return Err(at("case", format!("unknown case `{}`", label.case)));
            };
            if label.conveyed.len() != must {
                return Err(at(
                    "conveyed",
                    format!("has {} verdicts; the case has {must} must items", label.conveyed.len()),
                ));
            }
            if label.stated.len() != must_not {
                return Err(at(
                    "stated",
                    format!("has {} verdicts; the case has {must_not} must_not items", label.stated.len()),
                ));
            }
            if label.reply.trim().is_empty() {
                return Err(at("reply", "is empty".into()));
            }
            let right = label.conveyed.iter().all(|c| *c) && !label.stated.iter().any(|s| *s);
            if right != (label.kind == LabelKind::Correct) {
                return Err(at(
                    "kind",
                    format!(
                        "is `{}` but the verdicts say the reply is {}",
                        if label.kind == LabelKind::Correct { "correct" } else { "wrong" },
                        if right { "correct" } else { "wrong" }
                    ),
                ));
            }
            if let Some(k) = label.evidence.iter().position(|e| !crate::tools::TOOL_NAMES.contains(&e.tool.as_str())) {
                return Err(at("evidence", format!("call {} names unknown tool `{}`", k + 1, label.evidence[k].tool)));
            }
            out.push(LoadedLabel { label, split: split.clone(), file: file.clone(), line });
        }
    }
    Ok(out)
}
