//! Is the candidate better or worse than the baseline? Two eval reports are
//! matched case by case (by id): newly failing, newly passing, still failing,
//! added and removed cases, per-metric deltas, a paired significance test,
//! and optional gates whose results decide the exit code.
//!
//! Statistics (see [`crate::stats`]): the case is the unit throughout
//! (repeats are averaged within a case). The paired difference of case pass
//! rates gets its mean, standard error, 95% interval (studentised with
//! Agresti–Min pseudo-pairs and cluster-robust, `stats::paired`) and the
//! correlation of the two runs, overall, per tag and per language
//! (`breakdown`); the `max_drop` gate is a non-inferiority test on that same
//! interval (`gates`). The significance test is the exact two-sided McNemar
//! test on the discordant pairs with one run per case, and a paired
//! sign-flip test on the per-case differences with `--repeat`. Unmeasured
//! runs are left out, and a case with no measured run on either side is
//! "unmeasured", not a flip.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use serde::Serialize;

use super::breakdown::{by_group, GroupDifference, SharedCase};
pub use super::gates::{GateOutcome, GateResult, Gates};
use super::power::Power;
use super::stored::{first_line, LoadedReport};
use crate::eval::{CaseReport, CaseStatus, RunStatus};
use crate::stats::paired::{paired_difference, PairedDifference};
use crate::stats::{self, Interval, SignFlipMethod};

/// How a shared case moved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Movement {
    /// Passed in the baseline, does not pass now.
    NewlyFailing,
    /// Did not pass in the baseline, passes now.
    NewlyPassing,
    /// Fails (or is flaky) in both.
    StillFailing,
    /// Passes in both.
    StillPassing,
    /// No measured run on one side: not compared.
    Unmeasured,
    /// Only in the candidate.
    Added,
    /// Only in the baseline.
    Removed,
}

impl Movement {
    /// Section heading in the Markdown.
    pub fn title(self) -> &'static str {
        match self {
            Self::NewlyFailing => "Newly failing",
            Self::NewlyPassing => "Newly passing",
            Self::StillFailing => "Still failing",
            Self::StillPassing => "Still passing",
            Self::Unmeasured => "Unmeasured on one side",
            Self::Added => "Added",
            Self::Removed => "Removed",
        }
    }
}

/// One case in the comparison.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CaseDelta {
    /// Case id.
    pub id: String,
    /// How it moved.
    pub movement: Movement,
    /// Critical case.
    pub critical: bool,
    /// Pass rate over measured runs in the baseline (`None`: absent or unmeasured).
    pub base_rate: Option<f64>,
    /// Pass rate over measured runs in the candidate.
    pub cand_rate: Option<f64>,
    /// First failure line in the baseline.
    pub base_failure: Option<String>,
    /// First failure line in the candidate.
    pub cand_failure: Option<String>,
    /// Baseline trace file.
    pub base_trace: Option<String>,
    /// Candidate trace file.
    pub cand_trace: Option<String>,
}

/// One metric in both reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MetricDelta {
    /// Metric name.
    pub name: String,
    /// Unit (`ratio`, `count`, `USD`, `ms`).
    pub unit: String,
    /// Baseline value (`None`: unmeasured or n/a).
    pub base: Option<f64>,
    /// Baseline 95% interval.
    pub base_interval: Option<Interval>,
    /// Candidate value.
    pub cand: Option<f64>,
    /// Candidate 95% interval.
    pub cand_interval: Option<Interval>,
    /// `cand − base` when both are measured.
    pub delta: Option<f64>,
}

/// The paired test on the shared, measured cases.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "test", rename_all = "snake_case")]
pub enum PairedTest {
    /// One run per case: exact McNemar on the discordant pairs.
    Mcnemar {
        /// Pass → fail pairs.
        b: usize,
        /// Fail → pass pairs.
        c: usize,
        /// Two-sided p-value.
        p: f64,
    },
    /// Repeats: sign-flip test on per-case pass-rate differences (cand − base).
    SignFlip {
        /// Cases in the test.
        cases: usize,
        /// Cases whose pass rate changed.
        nonzero: usize,
        /// Mean difference (fraction).
        mean_difference: f64,
        /// 95% interval of the mean difference (the paired difference's:
        /// studentised with Agresti–Min pseudo-pairs, `stats::paired`).
        interval: Option<Interval>,
        /// Two-sided p-value.
        p: f64,
        /// `exact` or `sampled (10,000 seeded draws)`.
        method: String,
    },
    /// Nothing to test.
    None {
        /// Why.
        why: String,
    },
}

impl PairedTest {
    /// The p-value and whether the candidate is worse, when a test ran.
    pub fn regression(&self) -> Option<(f64, bool)> {
        match self {
            Self::Mcnemar { b, c, p } => Some((*p, b > c)),
            Self::SignFlip { mean_difference, p, .. } => Some((*p, *mean_difference < 0.0)),
            Self::None { .. } => None,
        }
    }
}

/// The comparison.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    /// Baseline name, date and commit.
    pub base: Side,
    /// Candidate name, date and commit.
    pub cand: Side,
    /// Every case of both reports, ordered by movement then id.
    pub cases: Vec<CaseDelta>,
    /// Count per movement.
    pub counts: BTreeMap<String, usize>,
    /// Mean case pass rate on the shared measured cases: (base, cand).
    pub shared_pass_rate: Option<(f64, f64)>,
    /// Metrics present in either report.
    pub metrics: Vec<MetricDelta>,
    /// The paired test.
    pub test: PairedTest,
    /// The paired difference of case pass rates (cand − base) on the shared
    /// measured cases: mean, standard error, interval, correlation.
    pub paired: Option<PairedDifference>,
    /// The same overall (`all`), per tag and per language, with p-values
    /// adjusted by Benjamini–Hochberg.
    pub breakdown: Vec<GroupDifference>,
    /// What this suite can detect (minimum detectable drop at 80% power).
    pub power: Option<Power>,
    /// Why the baseline or the candidate is INCOMPLETE (empty when neither is).
    pub incomplete: Vec<String>,
    /// Gates that were asked for.
    pub gates: Vec<GateResult>,
    /// `PASS`, `FAIL` (a gate missed), `INCONCLUSIVE` (a gate cannot be
    /// decided by this suite), `UNMEASURED` (a gate could not be measured) or
    /// `INCOMPLETE` (a report is incomplete).
    pub verdict: String,
    /// Whether INCONCLUSIVE exits 1 (`--inconclusive fail`) rather than 0.
    pub inconclusive_fails: bool,
    /// The `--max-drop` margin, if that gate was asked for.
    pub max_drop: Option<f64>,
}

impl Comparison {
    /// Exit code: 0 PASS, 1 FAIL, 0 INCONCLUSIVE (1 with `--inconclusive
    /// fail`), 2 UNMEASURED or INCOMPLETE.
    pub fn exit_code(&self) -> u8 {
        super::gates::exit_code(&self.verdict, self.inconclusive_fails)
    }
}

/// Identity of one side.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Side {
    /// Report name.
    pub name: String,
    /// Report set directory.
    pub dir: String,
    /// Run date.
    pub date: String,
    /// Commit, if known.
    pub git_commit: Option<String>,
    /// Agent model.
    pub model: String,
    /// Runs per case.
    pub repeat: usize,
}

/// Why two reports cannot be compared (exit 2).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Incomparable {
    /// Fewer than half of the cases are shared.
    #[error("the reports come from different suites: {shared} of {union} case ids are shared; only in the baseline: {only_base}; only in the candidate: {only_cand}")]
    DifferentSuites {
        /// Shared ids.
        shared: usize,
        /// All ids.
        union: usize,
        /// Ids only in the baseline (first 20).
        only_base: String,
        /// Ids only in the candidate (first 20).
        only_cand: String,
    },
    /// The case selections differ (subset, tags, ids or shard).
    #[error(
        "the reports select different cases: baseline {base}, candidate {cand}; compare runs of the same selection"
    )]
    DifferentSelection {
        /// Baseline selection, in words.
        base: String,
        /// Candidate selection, in words.
        cand: String,
    },
}

fn list(ids: &[&str]) -> String {
    if ids.is_empty() {
        return "none".into();
    }
    let mut s = ids.iter().take(20).copied().collect::<Vec<_>>().join(", ");
    if ids.len() > 20 {
        s.push_str(&format!(" and {} more", ids.len() - 20));
    }
    s
}

fn measured_rate(c: &CaseReport) -> Option<f64> {
    (c.measured_runs > 0)
        .then(|| c.runs.iter().filter(|r| r.status == RunStatus::Pass).count() as f64 / c.measured_runs as f64)
}

fn first_failure(c: &CaseReport) -> Option<String> {
    first_line(c)
}

fn side(r: &LoadedReport) -> Side {
    Side {
        name: r.report.name.clone(),
        dir: r.dir.display().to_string(),
        date: r.report.date.clone(),
        git_commit: r.report.git_commit.clone(),
        model: r.report.model.clone(),
        repeat: r.report.repeat,
    }
}

/// Compares `cand` with `base` and applies `gates`.
///
/// # Errors
/// [`Incomparable`] when the selections differ or fewer than half of the
/// case ids are shared.
pub fn compare(base: &LoadedReport, cand: &LoadedReport, gates: Gates) -> Result<Comparison, Incomparable> {
    let (b, c) = (&base.report, &cand.report);
    if b.selection != c.selection {
        return Err(Incomparable::DifferentSelection {
            base: crate::eval::selection_words(&b.selection),
            cand: crate::eval::selection_words(&c.selection),
        });
    }
    let base_by: HashMap<&str, &CaseReport> = b.cases.iter().map(|x| (x.id.as_str(), x)).collect();
    let cand_by: HashMap<&str, &CaseReport> = c.cases.iter().map(|x| (x.id.as_str(), x)).collect();
    let only_base: Vec<&str> = b.cases.iter().map(|x| x.id.as_str()).filter(|id| !cand_by.contains_key(id)).collect();
    let only_cand: Vec<&str> = c.cases.iter().map(|x| x.id.as_str()).filter(|id| !base_by.contains_key(id)).collect();
    let shared = b.cases.len() - only_base.len();
    let union = shared + only_base.len() + only_cand.len();
    if union > 0 && shared * 2 < union {
        return Err(Incomparable::DifferentSuites {
            shared,
            union,
            only_base: list(&only_base),
            only_cand: list(&only_cand),
        });
    }
    let trace = |dir: &Path, id: &str| dir.join(crate::eval::report::trace_path(id)).display().to_string();
    let mut cases = vec![];
    let mut pairs: Vec<(bool, bool)> = vec![];
    let mut diffs: Vec<f64> = vec![];
    let mut shared_cases: Vec<SharedCase> = vec![];
    let (mut base_sum, mut cand_sum) = (0.0, 0.0);
    for bc in &b.cases {
        let Some(cc) = cand_by.get(bc.id.as_str()) else { continue };
        let (br, cr) = (measured_rate(bc), measured_rate(cc));
        let movement = match (br, cr) {
            (Some(_), Some(_)) => {
                let (bp, cp) = (bc.status == CaseStatus::Pass, cc.status == CaseStatus::Pass);
                match (bp, cp) {
                    (true, false) => Movement::NewlyFailing,
                    (false, true) => Movement::NewlyPassing,
                    (false, false) => Movement::StillFailing,
                    (true, true) => Movement::StillPassing,
                }
            }
            _ => Movement::Unmeasured,
        };
        if let (Some(x), Some(y)) = (br, cr) {
            pairs.push((bc.status == CaseStatus::Pass, cc.status == CaseStatus::Pass));
            diffs.push(y - x);
            shared_cases.push(SharedCase { base: x, cand: y, case: bc });
            base_sum += x;
            cand_sum += y;
        }
        cases.push(CaseDelta {
            id: bc.id.clone(),
            movement,
            critical: cc.critical,
            base_rate: br,
            cand_rate: cr,
            base_failure: first_failure(bc),
            cand_failure: first_failure(cc),
            base_trace: Some(trace(&base.dir, &bc.id)),
            cand_trace: Some(trace(&cand.dir, &cc.id)),
        });
    }
    for id in &only_base {
        let bc = base_by[id];
        cases.push(CaseDelta {
            id: bc.id.clone(),
            movement: Movement::Removed,
            critical: bc.critical,
            base_rate: measured_rate(bc),
            cand_rate: None,
            base_failure: first_failure(bc),
            cand_failure: None,
            base_trace: Some(trace(&base.dir, id)),
            cand_trace: None,
        });
    }
    for id in &only_cand {
        let cc = cand_by[id];
        cases.push(CaseDelta {
            id: cc.id.clone(),
            movement: Movement::Added,
            critical: cc.critical,
            base_rate: None,
            cand_rate: measured_rate(cc),
            base_failure: None,
            cand_failure: first_failure(cc),
            base_trace: None,
            cand_trace: Some(trace(&cand.dir, id)),
        });
    }
    cases.sort_by(|x, y| x.movement.cmp(&y.movement).then_with(|| x.id.cmp(&y.id)));
    let mut counts = BTreeMap::new();
    for m in [
        Movement::NewlyFailing,
        Movement::NewlyPassing,
        Movement::StillFailing,
        Movement::StillPassing,
        Movement::Unmeasured,
        Movement::Added,
        Movement::Removed,
    ] {
        let key = serde_json::to_value(m).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default();
        counts.insert(key, cases.iter().filter(|x| x.movement == m).count());
    }
    let n = diffs.len();
    let shared_pass_rate = (n > 0).then(|| (base_sum / n as f64, cand_sum / n as f64));

    let paired = paired_difference(shared_cases.iter().map(|s| (s.base, s.cand, s.case.cluster_key())));
    let breakdown = by_group(&shared_cases);
    let power = super::power::of_pair(b, c, &shared_cases);
    let repeated = b.repeat > 1 || c.repeat > 1;
    let test = if n == 0 {
        PairedTest::None { why: "no shared case is measured in both reports".into() }
    } else if !repeated {
        let bb = pairs.iter().filter(|(x, y)| *x && !*y).count();
        let cc = pairs.iter().filter(|(x, y)| !*x && *y).count();
        PairedTest::Mcnemar { b: bb, c: cc, p: stats::mcnemar_exact(bb, cc) }
    } else {
        let (p, method) = stats::sign_flip_test(&diffs);
        PairedTest::SignFlip {
            cases: n,
            nonzero: diffs.iter().filter(|d| **d != 0.0).count(),
            mean_difference: diffs.iter().sum::<f64>() / n as f64,
            interval: paired.map(|d| d.interval),
            p,
            method: match method {
                SignFlipMethod::Exact => "exact".into(),
                SignFlipMethod::Sampled => "sampled (10,000 seeded draws)".into(),
            },
        }
    };

    let mut results = vec![];
    if let Some(margin) = gates.max_drop {
        results.push(super::gates::max_drop(paired.as_ref(), margin));
    }
    if gates.critical_all_runs {
        results.push(super::gates::critical_all_runs(c));
    }
    if let Some(alpha) = gates.significant_regression_alpha {
        results.push(super::gates::significant_regression(&test, alpha));
    }
    if let Some(t) = &gates.thresholds {
        results.push(super::gates::thresholds(c, t));
    }
    let incomplete = super::gates::incomplete(b, c);
    let verdict = super::gates::verdict(&results, !incomplete.is_empty());

    let mut names: Vec<&str> = b.metrics.iter().map(|m| m.metric.name.as_str()).collect();
    for m in &c.metrics {
        if !names.contains(&m.metric.name.as_str()) {
            names.push(&m.metric.name);
        }
    }
    let metrics = names
        .into_iter()
        .map(|name| {
            let bm = b.metrics.iter().find(|m| m.metric.name == name).map(|m| &m.metric);
            let cm = c.metrics.iter().find(|m| m.metric.name == name).map(|m| &m.metric);
            let (bv, cv) = (bm.and_then(|m| m.value), cm.and_then(|m| m.value));
            MetricDelta {
                name: name.to_owned(),
                unit: bm.or(cm).map(|m| m.unit.clone()).unwrap_or_default(),
                base: bv,
                base_interval: bm.and_then(|m| m.interval),
                cand: cv,
                cand_interval: cm.and_then(|m| m.interval),
                delta: bv.zip(cv).map(|(x, y)| y - x),
            }
        })
        .collect();
    Ok(Comparison {
        base: side(base),
        cand: side(cand),
        cases,
        counts,
        shared_pass_rate,
        metrics,
        test,
        paired,
        breakdown,
        power,
        incomplete,
        gates: results,
        verdict: verdict.into(),
        inconclusive_fails: gates.inconclusive_fails,
        max_drop: gates.max_drop,
    })
}
