//! The judge-check report as Markdown and as the terminal table.

use super::{JudgeCheckReport, LabelResult};
use crate::stats::Interval;

pub(super) fn pct(v: Option<f64>) -> String {
    v.map_or_else(|| "unmeasured".to_owned(), |v| format!("{:.1}%", v * 100.0))
}

pub(super) fn kappa(v: Option<f64>) -> String {
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
        "| split | replies (graded) | items | item agreement | item κ | items decided (κ on them) | human / judge item pass rate | false pass items | false fail items | reply agreement | reply κ | false passes | false fails |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
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
            "| {} | {} ({}) | {} | {} | {} | {} ({}) | {} / {} | {} | {} | {} | {} | {}/{} wrong ({}{}) | {}/{} right ({}{}) |\n",
            a.split,
            a.replies,
            a.replies_graded,
            a.items,
            agree(a.items_agreeing, a.items),
            format!("{}{}", kappa(a.item_kappa), kappa_interval(a.item_kappa_interval)),
            agree(a.items_decided, a.items),
            kappa(a.decided_kappa),
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
    s.push_str(&render_routes_md(r));
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
        "decided (κ)",
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
            format!("{}/{} ({})", a.items_decided, a.items, kappa(a.decided_kappa)),
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
    let alone: Vec<String> = r
        .agreement
        .iter()
        .filter(|a| a.false_passes != a.false_passes_items_only || a.false_fails != a.false_fails_items_only)
        .map(|a| {
            format!(
                "{}: items alone {}/{} false passes, {}/{} false fails",
                a.split, a.false_passes_items_only, a.wrong_replies, a.false_fails_items_only, a.right_replies
            )
        })
        .collect();
    let alone = if alone.is_empty() { String::new() } else { format!("without grounding: {}\n", alone.join("; ")) };
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
    format!(
        "{table}\n{alone}{reviewers}{} ({}): {} disagreements\n",
        r.verdict,
        gates.join(", "),
        r.disagreements.len()
    )
}

/// The judge alone against the judge with grounding (reply level), and
/// per route the items it decided and how often it agreed with the human.
pub fn render_routes_md(r: &JudgeCheckReport) -> String {
    let mut s = String::from(
        "\n### Items alone and with grounding\n\n| split | false passes: items alone | false passes: items + grounding | false fails: items alone | false fails: items + grounding |\n|---|---|---|---|---|\n",
    );
    for a in &r.agreement {
        s.push_str(&format!(
            "| {} | {}/{} | {}/{} | {}/{} | {}/{} |\n",
            a.split,
            a.false_passes_items_only,
            a.wrong_replies,
            a.false_passes,
            a.wrong_replies,
            a.false_fails_items_only,
            a.right_replies,
            a.false_fails,
            a.right_replies
        ));
    }
    s.push_str("\n### By route\n\nWhich route decided each item, and how often that agreed with the hand label (an undecided item counts as not passed).\n\n| split | route | items | agree | false pass items | false fail items |\n|---|---|---|---|---|---|\n");
    for a in &r.agreement {
        for row in &a.routes {
            s.push_str(&format!(
                "| {} | {} | {} | {}/{} ({:.1}%) | {} | {} |\n",
                a.split,
                row.route,
                row.items,
                row.agreeing,
                row.items,
                if row.items == 0 { 0.0 } else { 100.0 * row.agreeing as f64 / row.items as f64 },
                row.false_passes,
                row.false_fails
            ));
        }
    }
    s
}
