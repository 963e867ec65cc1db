//! Renders a [`Comparison`]: Markdown for a pull-request comment or the
//! GitHub step summary, and the short verdict for the terminal.

use std::fmt::Write as _;

use super::compare::{CaseDelta, Comparison, GateOutcome, Movement, PairedTest};

pub(crate) fn pct(v: Option<f64>) -> String {
    v.map(|v| format!("{:.1}%", v * 100.0)).unwrap_or_else(|| "–".into())
}

pub(crate) fn value(v: Option<f64>, unit: &str) -> String {
    match (v, unit) {
        (None, _) => "–".into(),
        (Some(v), "ratio") => format!("{:.1}%", v * 100.0),
        (Some(v), "USD") => format!("${v:.4}"),
        (Some(v), "ms") => format!("{v:.0} ms"),
        (Some(v), _) => format!("{v}"),
    }
}

pub(crate) fn delta(v: Option<f64>, unit: &str) -> String {
    match (v, unit) {
        (None, _) => "–".into(),
        (Some(v), "ratio") => format!("{:+.1} pts", v * 100.0),
        (Some(v), "USD") => format!("{v:+.4}"),
        (Some(v), "ms") => format!("{v:+.0} ms"),
        (Some(v), _) => format!("{v:+}"),
    }
}

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

fn word(o: GateOutcome) -> &'static str {
    match o {
        GateOutcome::Met => "met",
        GateOutcome::Missed => "MISSED",
        GateOutcome::Unmeasured => "UNMEASURED",
    }
}

/// The one-line verdict, e.g. `FAIL: max_drop missed (case pass rate … )`.
pub fn verdict_line(c: &Comparison) -> String {
    let missed: Vec<String> = c
        .gates
        .iter()
        .filter(|g| g.outcome != GateOutcome::Met)
        .map(|g| format!("{} {}", g.gate, word(g.outcome)))
        .collect();
    let n = |k: &str| c.counts.get(k).copied().unwrap_or(0);
    let moves = format!(
        "{} newly failing, {} newly passing, {} still failing, {} added, {} removed",
        n("newly_failing"),
        n("newly_passing"),
        n("still_failing"),
        n("added"),
        n("removed")
    );
    if c.gates.is_empty() {
        format!("{} (no gate set): {moves}", c.verdict)
    } else if missed.is_empty() {
        format!("{}: every gate met; {moves}", c.verdict)
    } else {
        format!("{}: {}; {moves}", c.verdict, missed.join(", "))
    }
}

pub(crate) fn test_line(t: &PairedTest) -> String {
    match t {
        PairedTest::Mcnemar { b, c, p } => format!(
            "Exact McNemar test on the discordant pairs: b = {b} pass→fail, c = {c} fail→pass, two-sided p = {p:.4}."
        ),
        PairedTest::SignFlip { cases, nonzero, mean_difference, interval, p, method } => format!(
            "Paired sign-flip test on per-case pass-rate differences ({cases} cases, {nonzero} changed, {method}): mean difference {:+.1} points, 95% bootstrap interval {}, two-sided p = {p:.4}.",
            mean_difference * 100.0,
            interval.map(|i| format!("[{:+.1}, {:+.1}]", i.lo * 100.0, i.hi * 100.0)).unwrap_or_else(|| "–".into())
        ),
        PairedTest::None { why } => format!("No paired test: {why}."),
    }
}

fn case_row(s: &mut String, d: &CaseDelta) {
    let link = |label: &str, p: &Option<String>| p.as_ref().map(|p| format!("[{label}]({p})")).unwrap_or_default();
    let failure = d.cand_failure.as_ref().or(d.base_failure.as_ref()).map(|f| cell(f)).unwrap_or_default();
    let _ = writeln!(
        s,
        "| `{}`{} | {} | {} | {} | {} {} |",
        d.id,
        if d.critical { " (critical)" } else { "" },
        pct(d.base_rate),
        pct(d.cand_rate),
        failure,
        link("base", &d.base_trace),
        link("candidate", &d.cand_trace)
    );
}

/// The comparison as Markdown.
pub fn render_markdown(c: &Comparison) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "## Compare — {}\n", verdict_line(c));
    let _ = writeln!(s, "| | baseline | candidate |\n|---|---|---|");
    let _ = writeln!(s, "| report | `{}` | `{}` |", cell(&c.base.dir), cell(&c.cand.dir));
    let _ = writeln!(s, "| date | {} | {} |", c.base.date, c.cand.date);
    let commit = |x: &Option<String>| x.clone().unwrap_or_else(|| "unknown".into());
    let _ = writeln!(s, "| commit | {} | {} |", commit(&c.base.git_commit), commit(&c.cand.git_commit));
    let _ = writeln!(s, "| model | `{}` | `{}` |", c.base.model, c.cand.model);
    let _ = writeln!(s, "| runs per case | {} | {} |", c.base.repeat, c.cand.repeat);
    if let Some((x, y)) = c.shared_pass_rate {
        let _ = writeln!(s, "| case pass rate, shared measured cases | {} | {} |", pct(Some(x)), pct(Some(y)));
    }
    let _ = writeln!(s, "\n{}\n", test_line(&c.test));
    if !c.gates.is_empty() {
        let _ = writeln!(s, "### Gates\n\n| gate | result | detail |\n|---|---|---|");
        for g in &c.gates {
            let _ = writeln!(s, "| {} | {} | {} |", g.gate, word(g.outcome), cell(&g.detail));
        }
        let _ = writeln!(s);
    }
    for m in [
        Movement::NewlyFailing,
        Movement::NewlyPassing,
        Movement::StillFailing,
        Movement::Unmeasured,
        Movement::Added,
        Movement::Removed,
    ] {
        let rows: Vec<&CaseDelta> = c.cases.iter().filter(|d| d.movement == m).collect();
        if rows.is_empty() {
            continue;
        }
        let _ = writeln!(
            s,
            "### {} ({})\n\n| case | baseline | candidate | first failure | traces |\n|---|---|---|---|---|",
            m.title(),
            rows.len()
        );
        for d in rows {
            case_row(&mut s, d);
        }
        let _ = writeln!(s);
    }
    let _ = writeln!(
        s,
        "### Metrics\n\n| metric | baseline | 95% interval | candidate | 95% interval | change |\n|---|---|---|---|---|---|"
    );
    let iv = |i: Option<crate::stats::Interval>| {
        i.map(|i| format!("[{:.1}%, {:.1}%]", i.lo * 100.0, i.hi * 100.0)).unwrap_or_default()
    };
    for m in &c.metrics {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} |",
            m.name,
            value(m.base, &m.unit),
            iv(m.base_interval),
            value(m.cand, &m.unit),
            iv(m.cand_interval),
            delta(m.delta, &m.unit)
        );
    }
    s
}

/// The "changed since baseline" view of the candidate's `report.html`.
pub fn baseline_view(c: &Comparison) -> crate::eval::html::BaselineView {
    use crate::eval::html::{word, BaselineView, ChangedCase};
    BaselineView {
        verdict: verdict_line(c),
        test: test_line(&c.test),
        base: format!(
            "{} at {} ({}, commit {})",
            c.base.name,
            c.base.dir,
            c.base.date,
            c.base.git_commit.as_deref().unwrap_or("unknown")
        ),
        counts: c.counts.iter().map(|(k, v)| (k.replace('_', " "), *v)).collect(),
        cases: c
            .cases
            .iter()
            .filter(|d| d.movement != Movement::StillPassing)
            .map(|d| ChangedCase {
                id: d.id.clone(),
                movement: word(&d.movement),
                critical: d.critical,
                base: pct(d.base_rate),
                cand: pct(d.cand_rate),
                failure: d.cand_failure.clone().unwrap_or_default(),
            })
            .collect(),
        metrics: c
            .metrics
            .iter()
            .map(|m| [m.name.clone(), value(m.base, &m.unit), value(m.cand, &m.unit), delta(m.delta, &m.unit)])
            .collect(),
    }
}
