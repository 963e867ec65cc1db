//! Reviews to and from the `labels/` YAML format ([`crate::eval::labels`]),
//! so reviewed replies stay readable and diffable in git and `judge-check`
//! reads them like the hand-written labels.
//!
//! Export writes one label per reviewer and reply whose every item of the
//! case, as the case reads now, has that reviewer's verdict (an item whose
//! text changed since is not reviewed); the label carries `reviewer`. Import
//! stores each label's verdicts under its reply's hash.

use std::collections::BTreeMap;
use std::path::Path;

use super::store::{reply_hash, ItemKind, Review, ReviewStore, StoredReply};
use crate::eval::labels::{Label, LabelKind};

/// The current item texts of a case: `(must, must_not)`, `None` for an unknown case.
pub type CaseTexts<'a> = &'a dyn Fn(&str) -> Option<(Vec<String>, Vec<String>)>;

/// What an export produced.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Export {
    /// One label per complete (reviewer, reply).
    pub labels: Vec<Label>,
    /// Reviewer and reply pairs left out: some item unreviewed, its text
    /// changed since, or the case is gone (`reviewer`, `case`, why).
    pub skipped: Vec<(String, String, String)>,
}

/// The label id of a reviewer's verdicts on a reply: `rv-<16 hex of the hash>-<reviewer>`.
pub fn label_id(hash: &str, reviewer: &str) -> String {
    format!("rv-{}-{reviewer}", &hash[..hash.len().min(16)])
}

/// Builds the labels of every complete (reviewer, reply) in `store`.
///
/// # Errors
/// A read error of the database.
pub fn export(store: &ReviewStore, texts: CaseTexts<'_>) -> anyhow::Result<Export> {
    let mut groups: BTreeMap<(String, String, String), Vec<Review>> = BTreeMap::new();
    for r in store.all()? {
        groups.entry((r.case_id.clone(), r.reply_hash.clone(), r.reviewer.clone())).or_default().push(r);
    }
    let mut out = Export::default();
    for ((case, hash, reviewer), rows) in groups {
        let Some((must, must_not)) = texts(&case) else {
            out.skipped.push((reviewer, case, "the case is not in the suite".into()));
            continue;
        };
        let verdict = |kind: ItemKind, i: usize, text: &str| {
            rows.iter().find(|r| r.kind == kind && r.item == i + 1 && r.item_text == text).map(|r| r.verdict)
        };
        let conveyed: Option<Vec<bool>> = must.iter().enumerate().map(|(i, t)| verdict(ItemKind::Must, i, t)).collect();
        let stated: Option<Vec<bool>> =
            must_not.iter().enumerate().map(|(i, t)| verdict(ItemKind::MustNot, i, t)).collect();
        let (Some(conveyed), Some(stated)) = (conveyed, stated) else {
            out.skipped.push((reviewer, case, "not every item has a verdict on its current text".into()));
            continue;
        };
        let Some(reply) = store.reply(&case, &hash)? else {
            out.skipped.push((reviewer, case, "the reply is not stored".into()));
            continue;
        };
        let right = conveyed.iter().all(|c| *c) && !stated.iter().any(|s| *s);
        let notes: Vec<String> = rows.iter().filter_map(|r| r.note.clone()).filter(|n| !n.trim().is_empty()).collect();
        let mut notes = notes;
        notes.dedup();
        out.labels.push(Label {
            id: label_id(&hash, &reviewer),
            case: case.clone(),
            kind: if right { LabelKind::Correct } else { LabelKind::Wrong },
            style: "review".into(),
            reply: reply.reply,
            conveyed,
            stated,
            evidence: reply.evidence,
            note: (!notes.is_empty()).then(|| notes.join(" / ")),
            reviewer: Some(reviewer),
        });
    }
    Ok(out)
}

/// Writes `labels` as a `labels/` YAML file at `path`, which must not exist
/// (an export never overwrites; name a new file). Written atomically.
///
/// # Errors
/// The file exists, or cannot be written.
pub fn write_yaml(labels: &[Label], path: &Path) -> anyhow::Result<()> {
    if std::fs::symlink_metadata(path).is_ok() {
        anyhow::bail!("{}: exists; an export never overwrites a file (name a new one)", path.display());
    }
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let body = yaml_serde::to_string(labels)?;
    let text = format!(
        "# Reviewed replies exported by `inquiry reviews export` (one label per reviewer and reply).\n# See labels/README.md for the format.\n{body}"
    );
    let mut tmp = tempfile::NamedTempFile::new_in(dir)
        .map_err(|e| anyhow::anyhow!("{}: cannot write here: {e}", dir.display()))?;
    std::io::Write::write_all(&mut tmp, text.as_bytes())?;
    tmp.persist_noclobber(path).map_err(|e| anyhow::anyhow!("{}: {}", path.display(), e.error))?;
    Ok(())
}

/// Stores the verdicts of `labels` (loaded and checked by
/// [`crate::eval::labels::load_labels`]); a label without `reviewer` is
/// stored under `default_reviewer`. Returns the number of verdicts stored.
///
/// # Errors
/// A label without a reviewer and no default, a bad reviewer name, a case
/// not in the suite, or a write error.
pub fn import(
    store: &ReviewStore,
    labels: &[crate::eval::labels::LoadedLabel],
    texts: CaseTexts<'_>,
    default_reviewer: Option<&str>,
) -> anyhow::Result<usize> {
    let mut n = 0;
    for l in labels {
        let at = format!("{}:{}: label `{}`", l.file.display(), l.line, l.label.id);
        let reviewer = l.label.reviewer.as_deref().or(default_reviewer).ok_or_else(|| {
            anyhow::anyhow!("{at}: field `reviewer` is absent; give --reviewer NAME for hand-written labels")
        })?;
        super::store::check_reviewer(reviewer).map_err(|e| anyhow::anyhow!("{at}: field `reviewer`: {e}"))?;
        let (must, must_not) = texts(&l.label.case)
            .ok_or_else(|| anyhow::anyhow!("{at}: field `case`: unknown case `{}`", l.label.case))?;
        let hash = store.put_reply(&StoredReply {
            case_id: l.label.case.clone(),
            reply: l.label.reply.clone(),
            evidence: l.label.evidence.clone(),
        })?;
        debug_assert_eq!(hash, reply_hash(&l.label.reply));
        let rows: Vec<Review> = must
            .iter()
            .zip(&l.label.conveyed)
            .enumerate()
            .map(|(i, (t, v))| (ItemKind::Must, i, t, *v))
            .chain(must_not.iter().zip(&l.label.stated).enumerate().map(|(i, (t, v))| (ItemKind::MustNot, i, t, *v)))
            .map(|(kind, i, text, verdict)| Review {
                reviewer: reviewer.to_owned(),
                case_id: l.label.case.clone(),
                reply_hash: hash.clone(),
                kind,
                item: i + 1,
                item_text: text.clone(),
                verdict,
                note: l.label.note.clone(),
                drawn: "import".into(),
                reviewed_at: String::new(),
            })
            .collect();
        n += rows.len();
        store.record(&rows)?;
    }
    Ok(n)
}
