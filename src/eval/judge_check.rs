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
use crate::stats::{cohen_kappa, wilson, Interval, Z95};
use crate::tools::Toolbox;

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
        });
    }
    let mut splits: BTreeMap<String, Vec<(&LoadedLabel, &LabelResult)>> = BTreeMap::new();
    for (l, r) in labels.iter().zip(&results) {
        splits.entry(l.split.clone()).or_default().push((l, r));
    }
    let mut agreement: Vec<Agreement> = splits.iter().map(|(s, v)| figures(s, v)).collect();
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

fn figures(split: &str, rows: &[(&LoadedLabel, &LabelResult)]) -> Agreement {
    let mut item_pairs: Vec<(bool, bool)> = vec![];
    let mut reply_pairs: Vec<(bool, bool)> = vec![];
    // Item pairs per reply (several reviewers' labels of one reply are one
    // unit of the bootstrap: they share the reply and the judge's verdict).
    let mut per_reply: BTreeMap<(&str, &str), Vec<(bool, bool)>> = BTreeMap::new();
    for (l, r) in rows {
        let Some(v) = &r.verdict else { continue };
        let human: Vec<bool> = l.label.conveyed.iter().copied().chain(l.label.stated.iter().map(|s| !s)).collect();
        let judged: Vec<bool> = v.must.iter().chain(&v.must_not).map(|g| g.ok).collect();
        per_reply
            .entry((l.label.case.as_str(), l.label.reply.as_str()))
            .or_default()
            .extend(human.iter().copied().zip(judged.iter().copied()));
        item_pairs.extend(human.iter().copied().zip(judged.iter().copied()));
        reply_pairs.push((human.iter().all(|h| *h), judged.iter().all(|j| *j)));
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
    }
}

fn pct(v: Option<f64>) -> String {
    v.map_or_else(|| "unmeasured".to_owned(), |v| format!("{:.1}%", v * 100.0))
}

fn kappa(v: Option<f64>) -> String {
    v.map_or_else(|| "undefined".to_owned(), |v| format!("{v:.3}"))
}

fn kappa_interval(i: Option<Interval>) -> String {
    i.map_or_else(String::new, |i| format!(" [{:.2}, {:.2}]", i.lo, i.hi))
}

/// The reviewers' agreement with each other, beside the judge's with them (Markdown).
pub fn render_reviewers_md(r: &JudgeCheckReport) -> String {
    let Some(a) = &r.reviewers else { return String::new() };
    let judge = r.agreement.iter().find(|a| a.split == "all");
    format!(
        "## Reviewers against each other and the judge

| raters | items | agreement | κ (95% bootstrap) |
|---|---|---|---|
| reviewers {} with each other ({} κ; {} replies) | {} | {}/{} | {}{} |
| judge `{}` with the labels | {} | {}/{} | {}{} |

The judge's κ is read against the reviewers' own: a judge cannot be held to agree with people better than they agree with each other. Intervals resample replies (2,000 seeded draws).

",
        a.reviewers.join(", "),
        if a.method == "cohen" { "Cohen's" } else { "Fleiss'" },
        a.shared_replies,
        a.items,
        a.items_agreeing,
        a.items,
        kappa(a.kappa),
        kappa_interval(a.kappa_interval),
        r.judge,
        judge.map_or(0, |j| j.items),
        judge.map_or(0, |j| j.items_agreeing),
        judge.map_or(0, |j| j.items),
        kappa(judge.and_then(|j| j.item_kappa)),
        kappa_interval(judge.and_then(|j| j.item_kappa_interval)),
    )
}

fn interval(i: Option<Interval>) -> String {
    i.map_or_else(String::new, |i| format!(" [{:.1}%, {:.1}%]", i.lo * 100.0, i.hi * 100.0))
}

/// The agreement table (one row per split, then all), as Markdown.
pub fn render_agreement_md(r: &JudgeCheckReport) -> String {
    let mut s = String::from(
        "| split | replies (graded) | items | item agreement | item κ | human / judge item pass rate | false pass items | false fail items | reply agreement | reply κ | false passes | false fails |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for a in &r.agreement {
        let agree = |k: usize, n: usize| {
            if n == 0 {
                "n/a".to_owned()
            } else {
                format!("{k}/{n} ({:.1}%)", 100.0 * k as f64 / n as f64)
            }
        };
        s.push_str(&format!(
            "| {} | {} ({}) | {} | {} | {} | {} / {} | {} | {} | {} | {} | {}/{} wrong ({}{}) | {}/{} right ({}{}) |\n",
            a.split,
            a.replies,
            a.replies_graded,
            a.items,
            agree(a.items_agreeing, a.items),
            format!("{}{}", kappa(a.item_kappa), kappa_interval(a.item_kappa_interval)),
            pct(a.human_pass_rate),
            pct(a.judge_pass_rate),
            a.false_pass_items,
            a.false_fail_items,
            agree(a.replies_agreeing, a.replies_graded),
            kappa(a.reply_kappa),
            a.false_passes,
            a.wrong_replies,
            pct(a.false_pass_rate),
            interval(a.false_pass_interval),
            a.false_fails,
            a.right_replies,
            pct(a.false_fail_rate),
            interval(a.false_fail_interval),
        ));
    }
    s
}

/// The whole judge-check report as Markdown: agreement, gate, unmeasured
/// labels and every disagreement with its reply.
pub fn render_markdown(r: &JudgeCheckReport) -> String {
    let mut s = format!("# Judge check: `{}`\n\n- Date: {}\n- Verdict: **{}**\n\n", r.judge, r.date, r.verdict);
    s.push_str("## Agreement with the hand labels\n\n");
    s.push_str(&render_agreement_md(r));
    if r.reviewers.is_some() {
        s.push('\n');
        s.push_str(&render_reviewers_md(r));
    }
    s.push_str("\nκ is Cohen's kappa (agreement beyond chance, from each rater's own pass rate); raw agreement is high whenever most items pass, so read it with the base rates beside it. A false pass is a wrong reply (or item) the judge passed; a false fail is a right one it failed. Intervals are Wilson 95%.\n\n## Gate\n\n| metric | value | bound | status |\n|---|---|---|---|\n");
    for m in &r.metrics {
        let bound = m.bounds.map(|b| match (b.min, b.max) {
            (Some(lo), _) => format!(">= {lo}"),
            (_, Some(hi)) => format!("<= {hi}"),
            _ => String::new(),
        });
        s.push_str(&format!(
            "| {} | {} | {} | {:?} |\n",
            m.metric.name,
            if m.metric.unit == "ratio" {
                m.metric.display()
            } else {
                m.metric.value.map_or("unmeasured".into(), |v| format!("{v:.3}"))
            },
            bound.unwrap_or_default(),
            m.status
        ));
    }
    let unmeasured: Vec<&LabelResult> = r.labels.iter().filter(|l| l.unmeasured.is_some()).collect();
    if !unmeasured.is_empty() {
        s.push_str("\n## Unmeasured labels\n\n");
        for l in unmeasured {
            s.push_str(&format!("- `{}` ({}): {}\n", l.label, l.split, l.unmeasured.as_deref().unwrap_or("")));
        }
    }
    s.push_str(&format!("\n## Disagreements ({})\n", r.disagreements.len()));
    for d in &r.disagreements {
        let what = match (d.kind.as_str(), d.judge_pass) {
            ("must", true) => "judge: conveyed; human: not conveyed (false pass)",
            ("must", false) => "judge: not conveyed; human: conveyed (false fail)",
            (_, true) => "judge: not stated; human: stated (false pass)",
            (_, false) => "judge: stated; human: not stated (false fail)",
        };
        s.push_str(&format!(
            "\n### `{}` ({}) — {} {}: {}\n\n{what}{}\n\n> {}\n",
            d.label,
            d.split,
            d.kind,
            d.item,
            d.text.replace('\n', " "),
            d.judge_note.as_deref().map(|n| format!(" — {n}")).unwrap_or_default(),
            d.reply.replace('\n', "\n> ")
        ));
    }
    s
}

/// The terminal summary for stderr.
pub fn render_terminal(r: &JudgeCheckReport) -> String {
    let mut table = comfy_table::Table::new();
    table.load_style(comfy_table::presets::UTF8_FULL_CONDENSED);
    table.set_header([
        "split",
        "replies",
        "items",
        "item κ",
        "human/judge pass",
        "false pass",
        "false fail",
        "reply κ",
    ]);
    for a in &r.agreement {
        table.add_row([
            a.split.clone(),
            format!("{} ({} graded)", a.replies, a.replies_graded),
            format!("{} ({} agree)", a.items, a.items_agreeing),
            kappa(a.item_kappa),
            format!("{} / {}", pct(a.human_pass_rate), pct(a.judge_pass_rate)),
            format!("{}/{} replies, {} items", a.false_passes, a.wrong_replies, a.false_pass_items),
            format!("{}/{} replies, {} items", a.false_fails, a.right_replies, a.false_fail_items),
            kappa(a.reply_kappa),
        ]);
    }
    let gates: Vec<String> = r
        .metrics
        .iter()
        .filter(|m| m.bounds.is_some())
        .map(|m| format!("{} {:?}", m.metric.name, m.status).to_lowercase())
        .collect();
    let reviewers = r.reviewers.as_ref().map_or_else(String::new, |a| {
        format!(
            "reviewers ({}): {} κ {}{} over {} items of {} replies\n",
            a.reviewers.join(", "),
            a.method,
            kappa(a.kappa),
            kappa_interval(a.kappa_interval),
            a.items,
            a.shared_replies
        )
    });
    format!("{table}\n{reviewers}{} ({}): {} disagreements\n", r.verdict, gates.join(", "), r.disagreements.len())
}
