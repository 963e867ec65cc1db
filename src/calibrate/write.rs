//! `inquiry calibrate --write`: the proposal goes into the thresholds file for
//! the active model id only, and the change is shown as a unified diff.

use std::collections::BTreeMap;

use crate::retrieval::thresholds::{ModelThresholds, ThresholdsFile};

/// Writes the proposal into the thresholds file for the model id only and
/// returns a unified diff of the file (empty when unchanged).
///
/// # Errors
/// The file cannot be read or written, or the proposal lacks a threshold the
/// keep rule needs (`vectorZ` and `keywordCoverage` without a reranker,
/// `rerank` with one): an incomplete entry would stop `ask` and `eval`, so
/// nothing is written.
pub fn write_proposal(
    path: &std::path::Path,
    model_id: &str,
    proposal: ModelThresholds,
    reranker: bool,
) -> anyhow::Result<String> {
    let missing: Vec<&str> = if reranker {
        [("rerank", proposal.rerank)].iter().filter(|(_, v)| v.is_none()).map(|(k, _)| *k).collect()
    } else {
        [("vectorZ", proposal.vector_z), ("keywordCoverage", proposal.keyword_coverage)]
            .iter()
            .filter(|(_, v)| v.is_none())
            .map(|(k, _)| *k)
            .collect()
    };
    if !missing.is_empty() {
        anyhow::bail!(
            "{}: not written: the proposal for `{model_id}` has no {} threshold (the golden set gives nothing to set it from); the file is unchanged",
            path.display(),
            missing.join(" or ")
        );
    }
    let mut file = if path.exists() {
        ThresholdsFile::load(path)?
    } else {
        ThresholdsFile { path: path.into(), entries: BTreeMap::new() }
    };
    let before = file.entries.get(model_id).copied();
    let old_text = if path.exists() { file.to_json() } else { String::new() };
    file.entries.insert(model_id.to_owned(), proposal);
    let new_text = file.to_json();
    if before == Some(proposal) {
        return Ok(String::new());
    }
    crate::eval::report::write_atomic(path, new_text.as_bytes())?;
    let name = path.display().to_string();
    let diff = similar::TextDiff::from_lines(&old_text, &new_text)
        .unified_diff()
        .context_radius(2)
        .header(&name, &name)
        .to_string();
    Ok(diff)
}
