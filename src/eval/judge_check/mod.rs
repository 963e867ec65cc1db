//! `inquiry judge-check`: grade hand-labelled replies with a judge and measure
//! its agreement with the human verdicts, without running the agent.
//!
//! Figures per split and for all labels: agreement per item and per reply,
//! Cohen's κ with both raters' base rates beside it (raw agreement misleads
//! when most items pass), false passes (a wrong reply or item the judge
//! passed) and false fails (a right one it failed), and every disagreement.
//! A label the judge cannot grade (no patterns, a judge model error) is
//! counted apart as unmeasured.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use super::case::LoadedCase;
use super::judge::{Judge, Verdict};
use super::labels::{LabelKind, LoadedLabel};
use super::metrics::{gate, GatedMetric, Metric, Thresholds};
use crate::agent::guards::{self, Evidence, Violation};
use crate::agent::{Outcome, RunResult, TraceEntry};
use crate::grounding::Finding;
use crate::stats::{cohen_kappa, wilson, Interval, Z95};
use crate::tools::Toolbox;

mod render;
use render::{kappa, pct};
pub use render::{render_agreement_md, render_markdown, render_reviewers_md, render_terminal};

/// Schema id of the judge-check JSON report.
pub const JUDGE_CHECK_SCHEMA: &str = "inquiry.judge-check/v1";

/// Agreement figures of one split (or of all labels).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Agreement {
    /// Split name, or `all`.
    pub split: String,
    /// Labelled replies.
    pub replies: usize,
    /// Replies the judge graded (the rest are unmeasured).
    pub replies_graded: usize,
    /// Items (must + must_not) of graded replies.
    pub items: usize,
    /// Items where judge and human agree.
    pub items_agreeing: usize,
    /// Cohen's κ over items; `None` when undefined (one rater gave one label to everything).
    pub item_kappa: Option<f64>,
    /// Items the judge decided (not undecided).
    #[serde(default)]
    pub items_decided: usize,
    /// Cohen's κ over the decided items only.
    #[serde(default)]
    pub decided_kappa: Option<f64>,
    /// 95% bootstrap interval of the item κ, resampling labelled replies.
    #[serde(default)]
    pub item_kappa_interval: Option<Interval>,
    /// Share of items the human passed (conveyed must / absent must_not).
    pub human_pass_rate: Option<f64>,
    /// Share of items the judge passed.
    pub judge_pass_rate: Option<f64>,
    /// Items the judge passed that the human failed.
    pub false_pass_items: usize,
    /// Items the judge failed that the human passed.
    pub false_fail_items: usize,
    /// Replies where the judge's whole verdict equals the human's.
    pub replies_agreeing: usize,
    /// Cohen's κ over replies.
    pub reply_kappa: Option<f64>,
    /// Wrong replies (human) among the graded ones.
    pub wrong_replies: usize,
    /// Wrong replies the judge passed.
    pub false_passes: usize,
    /// `false_passes / wrong_replies`.
    pub false_pass_rate: Option<f64>,
    /// Wilson 95% interval of the false-pass rate.
    pub false_pass_interval: Option<Interval>,
    /// Right replies (human) among the graded ones.
    pub right_replies: usize,
    /// Right replies the judge failed.
    pub false_fails: usize,
    /// `false_fails / right_replies`.
    pub false_fail_rate: Option<f64>,
    /// Wilson 95% interval of the false-fail rate.
    pub false_fail_interval: Option<Interval>,
    /// Wrong replies the judge passed on its item verdicts alone, before
    /// grounding findings count (equal to `false_passes` for judges whose
    /// verdicts grounding does not join).
    #[serde(default)]
    pub false_passes_items_only: usize,
    /// Right replies the judge failed on its item verdicts alone.
    #[serde(default)]
    pub false_fails_items_only: usize,
    /// Per route that decided items (`pattern`, `meaning`, `embedding`, `llm`, and
    /// `undecided` for items no route decided): how many, and how many agree
    /// with the human.
    #[serde(default)]
    pub routes: Vec<RouteAgreement>,
}

/// How one route of a judge did on the items it decided.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RouteAgreement {
    /// `pattern`, `meaning`, `embedding`, `llm`, … or `undecided`.
    pub route: String,
    /// Items this route decided (or left undecided).
    pub items: usize,
    /// Of those, items where the judge's verdict equals the human's (an
    /// undecided item counts as not passed).
    pub agreeing: usize,
    /// Items it passed that the human failed.
    pub false_passes: usize,
    /// Items it failed that the human passed.
    pub false_fails: usize,
}

/// One item where the judge and the human disagree.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Disagreement {
    /// Label id.
    pub label: String,
    /// Split.
    pub split: String,
    /// Case id.
    pub case: String,
    /// `must` or `must_not`.
    pub kind: String,
    /// 1-based item number.
    pub item: usize,
    /// The item's text.
    pub text: String,
    /// The human's verdict: the item passes (conveyed / not stated).
    pub human_pass: bool,
    /// The judge's verdict.
    pub judge_pass: bool,
    /// The judge's note (matched pattern and sentence).
    pub judge_note: Option<String>,
    /// The reply.
    pub reply: String,
}

/// The graded view of one label.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LabelResult {
    /// Label id.
    pub label: String,
    /// Split.
    pub split: String,
    /// Case id.
    pub case: String,
    /// Human: right or wrong.
    pub kind: LabelKind,
    /// Wording style.
    pub style: String,
    /// The judge's verdict, or `None` when unmeasured.
    pub verdict: Option<Verdict>,
    /// Why the judge could not grade, if so.
    pub unmeasured: Option<String>,
    /// What the answer guards say about the reply over its stored evidence.
    pub guard_violations: Vec<Violation>,
    /// Grounding findings over the stored evidence (counted against the
    /// reply when the judge is the rule judge: rules + grounding).
    #[serde(default)]
    pub grounding: Vec<Finding>,
    /// Whether the grounding findings count in the reply's verdict.
    #[serde(default)]
    pub grounding_counts: bool,
}

/// The whole judge-check result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JudgeCheckReport {
    /// [`JUDGE_CHECK_SCHEMA`].
    pub schema: String,
    /// RFC 3339 UTC.
    pub date: String,
    /// Judge id.
    pub judge: String,
    /// Per split, then `all`.
    pub agreement: Vec<Agreement>,
    /// `judge_kappa` and `judge_false_pass_rate` (over all labels) with bounds.
    pub metrics: Vec<GatedMetric>,
    /// `PASS` or `FAIL`.
    pub verdict: String,
    /// Every disagreement.
    pub disagreements: Vec<Disagreement>,
    /// Every label's grade.
    pub labels: Vec<LabelResult>,
    /// How the reviewers of reviewed labels agree with each other (labels
    /// with a `reviewer`, at least two reviewers on a reply); the judge's κ
    /// is read against it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reviewers: Option<super::reviewer_agreement::ReviewerAgreement>,
}

impl JudgeCheckReport {
    /// Whether every bounded metric was met.
    pub fn passed(&self) -> bool {
        self.verdict == "PASS"
    }
}

/// Rebuilds the run a label stands for: its reply, its evidence calls as the
/// trace (a call without a stored result is run on `toolbox`), and the
/// guards' evidence from the results and the customer's messages.
pub fn label_run(label: &LoadedLabel, case: &LoadedCase, toolbox: &Toolbox) -> RunResult {
    let mut evidence = Evidence::default();
    evidence.add_user_text(&case.case.inquiry);
    for t in &case.case.history {
        evidence.add_user_text(&t.inquiry);
    }
    let mut trace = vec![];
    let mut handoffs = vec![];
    for call in &label.label.evidence {
        let (result, is_error) = match &call.result {
            Some(r) => (r.clone(), call.is_error),
            None => {
                let r = crate::tools::call_json(toolbox, &call.tool, call.arguments.clone());
                (r.value, r.is_error)
            }
        };
        if !is_error {
            evidence.add_tool_result(&result);
            if call.tool == "hand_off_to_human" {
                if let Ok(t) = serde_json::from_value(result.clone()) {
                    handoffs.push(t);
                }
            }
        }
        trace.push(TraceEntry {
            model_call: 1,
            tool: call.tool.clone(),
            arguments: call.arguments.clone(),
            result,
            is_error,
            duration_ms: 0,
        });
    }
    RunResult {
        citations: guards::citations(&label.label.reply),
        reply: label.label.reply.clone(),
        handoffs,
        trace,
        usage: Default::default(),
        outcome: Outcome::Answered,
        guard_events: vec![],
        first_draft: Some(label.label.reply.clone()),
        model_calls: 1,
        model: "labelled".into(),
        error: None,
        evidence,
        exchanges: vec![],
    }
}

/// Grades every label with `judge` and computes the agreement figures.
/// `toolbox_for` gives the toolbox of a case's catalogue (its overlay).
pub async fn judge_check(
    labels: &[LoadedLabel],
    cases: &HashMap<String, LoadedCase>,
    toolbox_for: &dyn Fn(&LoadedCase) -> Toolbox,
    judge: &dyn Judge,
    thresholds: &Thresholds,
) -> JudgeCheckReport {
    let mut results = vec![];
    let mut disagreements = vec![];
    for label in labels {
        // Loading checked that every label names a known case.
        let Some(case) = cases.get(&label.label.case) else { continue };
        let run = label_run(label, case, &toolbox_for(case));
        let guard_violations = guards::check(&run.reply, &run.evidence);
        let grounding_counts = super::judge::similarity::is_rule_judge(&judge.id());
        let grounding: Vec<Finding> =
            crate::grounding::check(&run.reply, &run.evidence, &case.customer_messages(), run.handoffs.len())
                .findings()
                .cloned()
                .collect();
        let (verdict, unmeasured) = match judge.judge(case, &run).await {
            Ok(v) => (Some(v), None),
            Err(e) => (None, Some(e.to_string())),
        };
        if let Some(v) = &verdict {
            for (kind, grades, human) in [
                ("must", &v.must, label.label.conveyed.clone()),
                ("must_not", &v.must_not, label.label.stated.iter().map(|s| !s).collect::<Vec<bool>>()),
            ] {
                for (g, h) in grades.iter().zip(human) {
                    if g.ok != h {
                        disagreements.push(Disagreement {
                            label: label.label.id.clone(),
                            split: label.split.clone(),
                            case: case.case.id.clone(),
                            kind: kind.into(),
                            item: g.item,
                            text: g.text.clone(),
                            human_pass: h,
                            judge_pass: g.ok,
                            judge_note: g.note.clone(),
                            reply: label.label.reply.clone(),
                        });
                    }
                }
            }
        }
        results.push(LabelResult {
            label: label.label.id.clone(),
            split: label.split.clone(),
            case: case.case.id.clone(),
            kind: label.label.kind,
            style: label.label.style.clone(),
            verdict,
            unmeasured,
            guard_violations,
            grounding,
            grounding_counts,
        });
    }
    let mut splits: BTreeMap<String, Vec<(&LoadedLabel, &LabelResult)>> = BTreeMap::new();
    for (l, r) in labels.iter().zip(&results) {
        splits.entry(l.split.clone()).or_default().push((l, r));
    }
    // Natural order: dev, dev2, …, dev9, dev10.
    let mut order: Vec<(&String, &Vec<(&LoadedLabel, &LabelResult)>)> = splits.iter().collect();
    order.sort_by_key(|(s, _)| split_order(s));
    let mut agreement: Vec<Agreement> = order.into_iter().map(|(s, v)| figures(s, v)).collect();
    let all: Vec<(&LoadedLabel, &LabelResult)> = labels.iter().zip(&results).collect();
    let overall = figures("all", &all);
    let metrics = vec![
        match overall.item_kappa {
            Some(k) => Metric::new(
                "judge_kappa",
                Some(k),
                format!("{} items of {} graded replies", overall.items, overall.replies_graded),
            ),
            None if overall.items == 0 => Metric::new("judge_kappa", None, "unmeasured: no label could be graded"),
            None => {
                Metric::new("judge_kappa", None, "unmeasured: κ is undefined (one rater gave one label to every item)")
            }
        },
        match overall.false_pass_rate {
            Some(_) => {
                let mut m = Metric::ratio("judge_false_pass_rate", overall.false_passes, overall.wrong_replies);
                m.detail = format!("{}/{} wrong replies passed", overall.false_passes, overall.wrong_replies);
                m
            }
            None => Metric::not_applicable("judge_false_pass_rate"),
        },
    ];
    agreement.push(overall);
    let (metrics, ok) = gate(&metrics, thresholds);
    JudgeCheckReport {
        schema: JUDGE_CHECK_SCHEMA.into(),
        date: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        judge: judge.id(),
        agreement,
        metrics,
        verdict: if ok { "PASS".into() } else { "FAIL".into() },
        disagreements,
        labels: results,
        reviewers: super::reviewer_agreement::reviewer_agreement(labels),
    }
}

/// The committed judge-check set that measured a rule judge:
/// `reports/judge-check` for `rules`, `reports/judge-check-e5` for
/// `rules+multilingual-e5-small`, `reports/judge-check-<model>` otherwise.
pub fn measured_set_name(judge: &str) -> String {
    match judge.strip_prefix("rules+") {
        None => "judge-check".into(),
        Some(crate::retrieval::e5::E5_MODEL_ID) => "judge-check-e5".into(),
        Some(model) => format!("judge-check-{model}"),
    }
}

/// What an eval report says about its judge: for the rule judge, its
/// measured agreement from `measured` (a judge-check `report.json`), and a
/// warning when it grades a model other than the offline demo (on replies
/// worded like a real model's it misses more wrong replies and fails more
/// right ones). Empty for other judges.
pub fn judge_notes(judge: &str, model: &str, measured: &std::path::Path) -> Vec<String> {
    if !super::judge::similarity::is_rule_judge(judge) {
        return vec![];
    }
    let mut notes = vec![];
    match measured_agreement(measured, judge) {
        Some(line) => notes.push(line),
        None => notes.push(format!(
            "judge `{judge}`: no measured agreement found ({} missing or of another judge; run `inquiry judge-check --out reports --name {}`)",
            measured.display(),
            measured_set_name(judge)
        )),
    }
    if !model.starts_with("demo") {
        notes.push(format!(
            "warning: the rule judge grades {model}, a model it was not built for: on replies worded like a real model it misses wrong ones and fails right ones more often than on the demo's (the figures above are from such replies; see `inquiry judge-check`); use --judge rules+llm or --judge llm for a verdict you can rely on"
        ));
    }
    notes
}

fn figures(split: &str, rows: &[(&LoadedLabel, &LabelResult)]) -> Agreement {
    let mut item_pairs: Vec<(bool, bool)> = vec![];
    let mut decided_pairs: Vec<(bool, bool)> = vec![];
    let mut reply_pairs: Vec<(bool, bool)> = vec![];
    let mut items_only_pairs: Vec<(bool, bool)> = vec![];
    let mut routes: BTreeMap<String, RouteAgreement> = BTreeMap::new();
    // Item pairs per reply (several reviewers' labels of one reply are one
    // unit of the bootstrap: they share the reply and the judge's verdict).
    let mut per_reply: BTreeMap<(&str, &str), Vec<(bool, bool)>> = BTreeMap::new();
    for (l, r) in rows {
        let Some(v) = &r.verdict else { continue };
        let human: Vec<bool> = l.label.conveyed.iter().copied().chain(l.label.stated.iter().map(|s| !s)).collect();
        let grades: Vec<&super::judge::ItemGrade> = v.must.iter().chain(&v.must_not).collect();
        let judged: Vec<bool> = grades.iter().map(|g| g.ok).collect();
        per_reply
            .entry((l.label.case.as_str(), l.label.reply.as_str()))
            .or_default()
            .extend(human.iter().copied().zip(judged.iter().copied()));
        item_pairs.extend(human.iter().copied().zip(judged.iter().copied()));
        decided_pairs.extend(human.iter().zip(&grades).filter(|(_, g)| !g.undecided).map(|(h, g)| (*h, g.ok)));
        let grounded = !r.grounding_counts || r.grounding.is_empty();
        reply_pairs.push((human.iter().all(|h| *h), judged.iter().all(|j| *j) && grounded));
        items_only_pairs.push((human.iter().all(|h| *h), judged.iter().all(|j| *j)));
        for (h, g) in human.iter().zip(&grades) {
            let route =
                if g.undecided { "undecided".to_owned() } else { g.route.clone().unwrap_or_else(|| v.judge.clone()) };
            let row = routes.entry(route.clone()).or_insert_with(|| RouteAgreement { route, ..Default::default() });
            row.items += 1;
            row.agreeing += usize::from(*h == g.ok);
            row.false_passes += usize::from(!*h && g.ok);
            row.false_fails += usize::from(*h && !g.ok);
        }
    }
    let n = item_pairs.len();
    let rate = |k: usize, n: usize| (n > 0).then(|| k as f64 / n as f64);
    let wrong = reply_pairs.iter().filter(|(h, _)| !h).count();
    let false_passes = reply_pairs.iter().filter(|(h, j)| !h && *j).count();
    let right = reply_pairs.iter().filter(|(h, _)| *h).count();
    let false_fails = reply_pairs.iter().filter(|(h, j)| *h && !j).count();
    Agreement {
        split: split.into(),
        replies: rows.len(),
        replies_graded: reply_pairs.len(),
        items: n,
        items_agreeing: item_pairs.iter().filter(|(h, j)| h == j).count(),
        item_kappa: cohen_kappa(&item_pairs),
        items_decided: decided_pairs.len(),
        decided_kappa: cohen_kappa(&decided_pairs),
        item_kappa_interval: super::reviewer_agreement::judge_kappa_interval(
            &per_reply.into_values().collect::<Vec<_>>(),
        ),
        human_pass_rate: rate(item_pairs.iter().filter(|(h, _)| *h).count(), n),
        judge_pass_rate: rate(item_pairs.iter().filter(|(_, j)| *j).count(), n),
        false_pass_items: item_pairs.iter().filter(|(h, j)| !h && *j).count(),
        false_fail_items: item_pairs.iter().filter(|(h, j)| *h && !j).count(),
        replies_agreeing: reply_pairs.iter().filter(|(h, j)| h == j).count(),
        reply_kappa: cohen_kappa(&reply_pairs),
        wrong_replies: wrong,
        false_passes,
        false_pass_rate: rate(false_passes, wrong),
        false_pass_interval: wilson(false_passes, wrong, Z95),
        right_replies: right,
        false_fails,
        false_fail_rate: rate(false_fails, right),
        false_fail_interval: wilson(false_fails, right, Z95),
        false_passes_items_only: items_only_pairs.iter().filter(|(h, j)| !h && *j).count(),
        false_fails_items_only: items_only_pairs.iter().filter(|(h, j)| *h && !j).count(),
        routes: routes.into_values().collect(),
    }
}

/// The judge's measured agreement from a judge-check report (`report.json`
/// of `inquiry judge-check`, committed in `reports/judge-check/`), as one
/// line: κ and false-pass rate over all labels, with the date measured.
/// `None` when the file is missing, unreadable, or measured another judge.
pub fn measured_agreement(report_json: &std::path::Path, judge: &str) -> Option<String> {
    let text = std::fs::read_to_string(report_json).ok()?;
    let r: JudgeCheckReport = serde_json::from_str(&text).ok()?;
    if r.judge != judge {
        return None;
    }
    let all = r.agreement.iter().find(|a| a.split == "all")?;
    Some(format!(
        "judge `{}` measured on the hand labels ({}): item κ {}, false passes {}/{} wrong replies ({}), false fails {}/{} right replies",
        r.judge,
        r.date,
        kappa(all.item_kappa),
        all.false_passes,
        all.wrong_replies,
        pct(all.false_pass_rate),
        all.false_fails,
        all.right_replies
    ))
}

/// A split's place in reports: its name without trailing digits, then the
/// number they make ("dev" is 1), so `dev10` follows `dev9`.
fn split_order(split: &str) -> (String, u64) {
    let stem = split.trim_end_matches(|c: char| c.is_ascii_digit());
    (stem.to_owned(), split[stem.len()..].parse().unwrap_or(1))
}
