//! Paired differences in full: overall, per tag and per language, each with
//! its mean difference, standard error, interval and the correlation of the
//! two runs' per-case scores ([`crate::stats::paired`]), and a p-value per
//! group from the exact sign-flip test (with one run per case this is the
//! exact McNemar test), adjusted for the number of groups by
//! Benjamini–Hochberg.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::eval::CaseReport;
use crate::stats::paired::{benjamini_hochberg, paired_difference, PairedDifference};
use crate::stats::sign_flip_test;

/// One shared case measured in both reports.
#[derive(Debug, Clone, Copy)]
pub struct SharedCase<'a> {
    /// Baseline pass rate (repeats averaged).
    pub base: f64,
    /// Candidate pass rate.
    pub cand: f64,
    /// The baseline's case report (tags, language, cluster).
    pub case: &'a CaseReport,
}

/// The paired difference of one group of cases.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GroupDifference {
    /// `all`, `tag:<tag>` or `lang:<lang>`.
    pub group: String,
    /// The difference with its interval and correlation.
    pub difference: PairedDifference,
    /// Two-sided p-value of the exact sign-flip test (sampled above 20 changed cases).
    pub p: f64,
    /// Benjamini–Hochberg adjusted p over the tag and language groups
    /// (`None` for `all`, which is not one of the family).
    pub p_adjusted: Option<f64>,
}

fn group(name: String, cases: &[&SharedCase]) -> Option<GroupDifference> {
    let difference = paired_difference(cases.iter().map(|c| (c.base, c.cand, c.case.cluster_key())))?;
    let diffs: Vec<f64> = cases.iter().map(|c| c.cand - c.base).collect();
    Some(GroupDifference { group: name, difference, p: sign_flip_test(&diffs).0, p_adjusted: None })
}

/// `all` first, then every tag and language in name order, with the
/// tag/language p-values adjusted together.
pub fn by_group(shared: &[SharedCase]) -> Vec<GroupDifference> {
    let all: Vec<&SharedCase> = shared.iter().collect();
    let mut groups: BTreeMap<String, Vec<&SharedCase>> = BTreeMap::new();
    for c in shared {
        for t in &c.case.tags {
            groups.entry(format!("tag:{t}")).or_default().push(c);
        }
        let lang =
            serde_json::to_value(c.case.lang).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default();
        groups.entry(format!("lang:{lang}")).or_default().push(c);
    }
    let mut rows: Vec<GroupDifference> = groups.into_iter().filter_map(|(k, v)| group(k, &v)).collect();
    let adjusted = benjamini_hochberg(&rows.iter().map(|r| r.p).collect::<Vec<_>>());
    for (r, a) in rows.iter_mut().zip(adjusted) {
        r.p_adjusted = Some(a);
    }
    group("all".into(), &all).into_iter().chain(rows).collect()
}
