//! Agreement among the people who labelled the same replies (labels with a
//! `reviewer`, exported from the review database), reported by `judge-check`
//! beside the judge's agreement with them: a judge cannot be expected to
//! agree with people better than they agree with each other.
//!
//! Two reviewers: Cohen's κ over the items both graded. More: Fleiss' κ over
//! the items of replies every reviewer graded (Fleiss' κ needs the same
//! number of raters per item). Each κ comes with a 95% percentile bootstrap
//! interval that resamples replies (the items of one reply are not
//! independent), see [`crate::stats::agreement::bootstrap_interval`].

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::labels::LoadedLabel;
use crate::stats::agreement::{bootstrap_interval, fleiss_kappa};
use crate::stats::{cohen_kappa, Interval};

/// How reviewers agree with each other.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReviewerAgreement {
    /// Every reviewer named on a label, sorted.
    pub reviewers: Vec<String>,
    /// Replies labelled by at least two reviewers.
    pub shared_replies: usize,
    /// Items in the κ (graded by both, or by every reviewer).
    pub items: usize,
    /// Items on which every reviewer gave the same verdict.
    pub items_agreeing: usize,
    /// `cohen` (two reviewers) or `fleiss` (more).
    pub method: String,
    /// κ; `None` when undefined (too few shared items, or one verdict for everything).
    pub kappa: Option<f64>,
    /// 95% bootstrap interval of κ over replies.
    pub kappa_interval: Option<Interval>,
}

/// One reply's items as each reviewer graded them (`true`: the item passes).
type Shared = Vec<BTreeMap<String, Vec<bool>>>;

fn item_passes(l: &LoadedLabel) -> Vec<bool> {
    l.label.conveyed.iter().copied().chain(l.label.stated.iter().map(|s| !s)).collect()
}

/// The agreement of the reviewers of `labels`; `None` when fewer than two
/// reviewers are named or no reply has two of them.
pub fn reviewer_agreement(labels: &[LoadedLabel]) -> Option<ReviewerAgreement> {
    let mut by_reply: BTreeMap<(String, String), BTreeMap<String, Vec<bool>>> = BTreeMap::new();
    for l in labels {
        let Some(r) = &l.label.reviewer else { continue };
        by_reply.entry((l.label.case.clone(), l.label.reply.clone())).or_default().insert(r.clone(), item_passes(l));
    }
    let reviewers: BTreeSet<String> = by_reply.values().flat_map(|m| m.keys().cloned()).collect();
    let shared: Shared = by_reply.into_values().filter(|m| m.len() >= 2).collect();
    if reviewers.len() < 2 || shared.is_empty() {
        return None;
    }
    let reviewers: Vec<String> = reviewers.into_iter().collect();
    let two = reviewers.len() == 2;
    // The rating rows (one per item, a verdict per reviewer) of some replies.
    let rows = |replies: &[&BTreeMap<String, Vec<bool>>]| -> Vec<Vec<bool>> {
        let mut out = vec![];
        for m in replies {
            if m.len() != reviewers.len() {
                continue;
            }
            let n = m.values().map(Vec::len).min().unwrap_or(0);
            for i in 0..n {
                out.push(reviewers.iter().map(|r| m[r][i]).collect());
            }
        }
        out
    };
    let kappa = |replies: &[&BTreeMap<String, Vec<bool>>]| -> Option<f64> {
        let rows = rows(replies);
        if two {
            cohen_kappa(&rows.iter().map(|r| (r[0], r[1])).collect::<Vec<_>>())
        } else {
            fleiss_kappa(&rows)
        }
    };
    let all: Vec<&BTreeMap<String, Vec<bool>>> = shared.iter().collect();
    let items = rows(&all);
    Some(ReviewerAgreement {
        shared_replies: shared.len(),
        items: items.len(),
        items_agreeing: items.iter().filter(|r| r.iter().all(|v| *v == r[0])).count(),
        method: if two { "cohen" } else { "fleiss" }.into(),
        kappa: kappa(&all),
        kappa_interval: bootstrap_interval(&shared, |draw| kappa(draw)),
        reviewers,
    })
}

/// The 95% bootstrap interval (over replies) of the judge's item κ against
/// the human verdicts: `pairs[i]` holds the (human, judge) item pairs of one
/// reply (every label of it, one per reviewer).
pub fn judge_kappa_interval(pairs: &[Vec<(bool, bool)>]) -> Option<Interval> {
    bootstrap_interval(pairs, |draw| cohen_kappa(&draw.iter().flat_map(|p| p.iter().copied()).collect::<Vec<_>>()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::labels::{Label, LabelKind};

    fn label(reviewer: &str, reply: &str, conveyed: &[bool]) -> LoadedLabel {
        LoadedLabel {
            label: Label {
                id: format!("{reviewer}-{reply}"),
                case: "c".into(),
                kind: if conveyed.iter().all(|c| *c) { LabelKind::Correct } else { LabelKind::Wrong },
                style: "review".into(),
                reply: reply.into(),
                conveyed: conveyed.to_vec(),
                stated: vec![],
                evidence: vec![],
                note: None,
                reviewer: Some(reviewer.into()),
            },
            split: "reviews".into(),
            file: "reviews.yaml".into(),
            line: 1,
        }
    }

    /// The ten rows of `scripts/review_vectors.py` (`FLEISS_TABLE`) as five
    /// replies of two items, each graded by the reviewers of its columns.
    fn table_labels(raters: usize) -> Vec<LoadedLabel> {
        let t = crate::stats::agreement::tests::fleiss_table();
        let mut out = vec![];
        for reply in 0..5 {
            for r in 0..raters {
                out.push(label(&format!("r{r}"), &format!("reply {reply}"), &[t[2 * reply][r], t[2 * reply + 1][r]]));
            }
        }
        out
    }

    #[test]
    fn cohen_for_two_fleiss_for_three() {
        let two = reviewer_agreement(&table_labels(2)).unwrap();
        assert_eq!((two.method.as_str(), two.items, two.shared_replies), ("cohen", 10, 5));
        // scripts/review_vectors.py: Cohen's κ of the first two columns.
        assert!((two.kappa.unwrap() - 0.5833333333333334).abs() < 1e-9, "{two:?}");
        let three = reviewer_agreement(&table_labels(3)).unwrap();
        assert_eq!((three.method.as_str(), three.items, three.items_agreeing), ("fleiss", 10, 6));
        assert!((three.kappa.unwrap() - 0.4444444444444443).abs() < 1e-9, "{three:?}");
        let i = three.kappa_interval.unwrap();
        assert!(i.lo <= 0.4444 && 0.4444 <= i.hi, "{i:?}");
        // One reviewer, or hand-written labels only: nothing to compare.
        assert_eq!(reviewer_agreement(&table_labels(1)), None);
    }
}
