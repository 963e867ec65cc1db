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
    o.word()
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
    if !c.incomplete.is_empty() {
        format!("{}: {}; no gate is decided on part of a suite; {moves}", c.verdict, c.incomplete.join("; "))
    } else if c.gates.is_empty() {
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
            "Paired sign-flip test on per-case pass-rate differences ({cases} cases, {nonzero} changed, {method}): mean difference {:+.1} points, 95% interval {}, two-sided p = {p:.4}.",
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

fn paired_table(s: &mut String, c: &Comparison) {
    if c.breakdown.is_empty() {
        return;
    }
    let _ = writeln!(
        s,
        "### Paired difference of case pass rates (candidate − baseline)\n\n| group | cases | clusters | baseline | candidate | difference | SE | 95% interval | r | p | p (BH) |\n|---|---|---|---|---|---|---|---|---|---|---|"
    );
    for g in &c.breakdown {
        let d = &g.difference;
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {:+.1} pts | {:.1} | [{:+.1}, {:+.1}] | {} | {:.4} | {} |",
            cell(&g.group),
            d.cases,
            d.clusters,
            pct(Some(d.base_mean)),
            pct(Some(d.cand_mean)),
            d.mean * 100.0,
            d.se * 100.0,
            d.interval.lo * 100.0,
            d.interval.hi * 100.0,
            d.correlation.map(|r| format!("{r:.2}")).unwrap_or_else(|| "–".into()),
            g.p,
            g.p_adjusted.map(|p| format!("{p:.4}")).unwrap_or_else(|| "–".into())
        );
    }
    let family = c.breakdown.iter().filter(|g| g.p_adjusted.is_some()).count();
    let _ = writeln!(
        s,
        "\nThe case is the unit (repeats averaged within a case); intervals are studentised (t with clusters − 1 degrees of freedom) with Agresti–Min pseudo-pairs and cluster-robust standard errors; r is the correlation of the two runs' per-case scores. p: exact sign-flip test per group (McNemar with one run per case); p (BH): Benjamini–Hochberg adjusted over the {family} tag and language groups.\n"
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
    for line in &c.incomplete {
        let _ = writeln!(s, "**INCOMPLETE**: {line}; exit 2.\n");
    }
    if let Some(p) = &c.power {
        let _ = writeln!(s, "{}\n", super::power::line(p, c.max_drop));
        for note in &p.notes {
            let _ = writeln!(s, "- {note}");
        }
        let _ = writeln!(s);
    }
    paired_table(&mut s, c);
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

/// The gates as a JUnit test suite named after the verdict: a met gate
/// passes, a missed one is a `failure`, an inconclusive one is `skipped` (a
/// `failure` with `--inconclusive fail`), an unmeasured one and an
/// incomplete report are `error`s; every message starts with the verdict word.
pub fn junit_suite(c: &Comparison) -> quick_junit::TestSuite {
    use quick_junit::{NonSuccessKind, TestCase, TestCaseStatus, TestSuite};
    let mut suite = TestSuite::new(format!("inquiry-compare {}", c.verdict));
    for line in &c.incomplete {
        let mut st = TestCaseStatus::non_success(NonSuccessKind::Error);
        st.set_message(format!("INCOMPLETE: {line}"));
        let mut tc = TestCase::new("compare-incomplete", st);
        tc.set_classname("inquiry.compare");
        suite.add_test_case(tc);
    }
    for g in &c.gates {
        let message = format!("{}: {}", g.outcome.word(), g.detail);
        let status = match g.outcome {
            GateOutcome::Met => TestCaseStatus::success(),
            GateOutcome::Missed => TestCaseStatus::non_success(NonSuccessKind::Failure),
            GateOutcome::Inconclusive if c.inconclusive_fails => TestCaseStatus::non_success(NonSuccessKind::Failure),
            GateOutcome::Inconclusive => TestCaseStatus::skipped(),
            GateOutcome::Unmeasured => TestCaseStatus::non_success(NonSuccessKind::Error),
        };
        let mut status = status;
        if g.outcome != GateOutcome::Met {
            status.set_message(message);
        }
        let mut tc = TestCase::new(format!("gate {}", g.gate), status);
        tc.set_classname("inquiry.compare");
        suite.add_test_case(tc);
    }
    suite
}

/// The comparison as a JUnit XML document (`compare --junit FILE`).
///
/// # Errors
/// Serialisation failure.
pub fn render_junit(c: &Comparison) -> anyhow::Result<String> {
    let mut report = quick_junit::Report::new(format!("inquiry compare {}", c.verdict));
    report.add_test_suite(junit_suite(c));
    Ok(report.to_string()?)
}
