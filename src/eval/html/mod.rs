//! The HTML report: one self-contained `report.html` per report set, with the
//! run page (header, metrics, hand-offs, retrieval misses, a filterable case
//! list), one page per case (the conversation with clickable citations, the
//! tool trace, the tickets, then guard events, the judge's grades and every
//! run) and, when a baseline was given, what changed since it.
//!
//! Rendered with minijinja from `templates/` (compiled into the binary), with
//! HTML auto-escaping on: catalogue, case, model and tool text is data and is
//! shown literally. Inline CSS and JS only; the page makes no network request
//! (its Content-Security-Policy forbids any). The summary JSON (what
//! `report.json` holds) is embedded in a `<script type="application/json">`
//! with `<`, `>` and `&` escaped, so no text can end that element.

mod case;

use serde::Serialize;
use serde_json::Value;

use super::{CaseReport, EvalReport};
use case::CaseView;

const LAYOUT: &str = include_str!("../../../templates/report.html");
const CASE: &str = include_str!("../../../templates/case.html");
const CSS: &str = include_str!("../../../templates/report.css");
const JS: &str = include_str!("../../../templates/report.js");

/// The template environment: both templates, auto-escaping HTML.
///
/// # Errors
/// A template that does not parse (a defect of `templates/`, with its line).
fn environment() -> Result<minijinja::Environment<'static>, minijinja::Error> {
    let mut env = minijinja::Environment::new();
    env.set_auto_escape_callback(|_| minijinja::AutoEscape::Html);
    env.set_undefined_behavior(minijinja::UndefinedBehavior::Strict);
    env.add_filter("truncate", |s: String, max: usize| -> String {
        if s.chars().count() <= max {
            s
        } else {
            s.chars().take(max).collect::<String>() + "…"
        }
    });
    env.add_template("report.html", LAYOUT)?;
    env.add_template("case.html", CASE)?;
    Ok(env)
}

/// JSON made safe inside `<script type="application/json">`: `<`, `>`, `&`
/// and the JS line separators are written as `\u` escapes (still the same JSON).
pub fn json_for_script(value: &Value) -> String {
    let text = value.to_string();
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

/// The Content-Security-Policy source that allows exactly this inline
/// script: `sha256-<base64 of its SHA-256>`.
pub(crate) fn script_hash(script: &str) -> String {
    use base64::Engine as _;
    use sha2::Digest as _;
    format!("sha256-{}", base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(script.as_bytes())))
}

/// The whole page.
///
/// `cases` yields each case with its full runs (the trace files), in report
/// order; `summary` is the report.json value; `comparison` adds the
/// "changed since baseline" view.
///
/// # Errors
/// A template error (a defect of the templates, reported with its line) or
/// an error from `cases`.
pub fn render(
    report: &EvalReport,
    summary: &Value,
    cases: impl Iterator<Item = anyhow::Result<CaseReport>>,
    comparison: Option<&BaselineView>,
) -> anyhow::Result<String> {
    let env = environment()?;
    let case_template = env.get_template("case.html")?;
    let mut case_pages = String::new();
    for case in cases {
        let case = case?;
        let view = CaseView::of(&case);
        case_pages.push_str(
            &case_template
                .render(minijinja::context! { case => minijinja::Value::from(minijinja::value::Serde(&view)) })?,
        );
    }
    let page = env.get_template("report.html")?.render(minijinja::context! {
        r => minijinja::Value::from(minijinja::value::Serde(RunView::of(report))),
        comparison => comparison.map(|c| minijinja::Value::from(minijinja::value::Serde(c))),
        case_pages => minijinja::Value::from_safe_string(case_pages),
        css => minijinja::Value::from_safe_string(CSS.to_owned()),
        js => minijinja::Value::from_safe_string(JS.to_owned()),
        data => minijinja::Value::from_safe_string(json_for_script(summary)),
        script_hash => script_hash(JS),
    })?;
    Ok(page)
}

#[derive(Serialize)]
struct MetricRow {
    name: String,
    value: String,
    interval: String,
    bounds: String,
    status: &'static str,
    detail: String,
}

#[derive(Serialize)]
struct CaseRow {
    id: String,
    status: String,
    lang: String,
    tags: Vec<String>,
    critical: bool,
    inquiry: String,
    runs: usize,
    passes: usize,
    first_failure: String,
}

#[derive(Serialize)]
struct RunView {
    name: String,
    date: String,
    commit: String,
    model: String,
    judge: String,
    judge_notes: Vec<String>,
    embedder: String,
    reranker: String,
    keep_rule: String,
    selection: String,
    repeat: usize,
    concurrency: usize,
    wall_ms: u64,
    verdict: String,
    passed: bool,
    incomplete: Option<String>,
    model_calls: String,
    metrics: Vec<MetricRow>,
    pass_at_k: Vec<Value>,
    handoffs: Vec<Value>,
    golden: Value,
    golden_ran: bool,
    cases: Vec<CaseRow>,
    /// Ids of cases that failed (fail or flaky), then of unmeasured ones.
    failing: Vec<String>,
    unmeasured: Vec<String>,
    tags: Vec<String>,
    langs: Vec<String>,
    statuses: Vec<String>,
}

/// A value's serde name (`pass`, `viewing_request`), for display.
pub(crate) fn word<T: Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(Value::String(s)) => s,
        Ok(other) => other.to_string(),
        Err(_) => String::new(),
    }
}

impl RunView {
    fn of(r: &EvalReport) -> Self {
        let cases: Vec<CaseRow> = r
            .cases
            .iter()
            .map(|c| CaseRow {
                id: c.id.clone(),
                status: word(&c.status),
                lang: word(&c.lang),
                tags: c.tags.clone(),
                critical: c.critical,
                inquiry: c.inquiry.clone(),
                runs: c.runs.len(),
                passes: case::passes(c),
                first_failure: c
                    .runs
                    .iter()
                    .find_map(|x| x.failures.first().cloned().or_else(|| x.unmeasured.clone()))
                    .unwrap_or_default(),
            })
            .collect();
        let mut tags: Vec<String> = cases.iter().flat_map(|c| c.tags.clone()).collect();
        tags.sort();
        tags.dedup();
        let mut langs: Vec<String> = cases.iter().map(|c| c.lang.clone()).collect();
        langs.sort();
        langs.dedup();
        let mut statuses: Vec<String> = cases.iter().map(|c| c.status.clone()).collect();
        statuses.sort();
        statuses.dedup();
        let to_values = |v: Vec<Value>| v;
        let with_status = |wanted: &[&str]| -> Vec<String> {
            cases.iter().filter(|c| wanted.contains(&c.status.as_str())).map(|c| c.id.clone()).collect()
        };
        let failing = with_status(&["fail", "flaky"]);
        let unmeasured = with_status(&["unmeasured"]);
        RunView {
            name: r.name.clone(),
            date: r.date.clone(),
            commit: r.git_commit.clone().unwrap_or_else(|| "unknown".into()),
            model: r.model.clone(),
            judge: r.judge.clone(),
            judge_notes: r.judge_notes.clone(),
            embedder: r.retrieval.embedder.clone(),
            reranker: r.retrieval.reranker.clone().unwrap_or_else(|| "none".into()),
            keep_rule: r.retrieval.keep_rule.clone(),
            selection: super::selection::selection_words(&r.selection),
            repeat: r.repeat,
            concurrency: r.concurrency,
            wall_ms: r.wall_ms,
            verdict: r.verdict.clone(),
            passed: r.passed(),
            incomplete: super::report::incomplete_line(r),
            model_calls: super::report::model_calls_line(r).trim_start_matches("Model calls: ").to_owned(),
            metrics: r
                .metrics
                .iter()
                .map(|m| MetricRow {
                    name: m.metric.name.clone(),
                    value: m.metric.display(),
                    interval: m.metric.interval_display(),
                    bounds: super::report::bounds_text(m.bounds, &m.metric.unit),
                    status: super::report::status_word(m.status),
                    detail: m.metric.detail.clone(),
                })
                .collect(),
            pass_at_k: to_values(r.pass_at_k.iter().filter_map(|p| serde_json::to_value(p).ok()).collect()),
            handoffs: r.handoffs_by_reason.iter().filter_map(|h| serde_json::to_value(h).ok()).collect(),
            golden: serde_json::to_value(&r.golden).unwrap_or(Value::Null),
            golden_ran: r.golden.answerable + r.golden.unanswerable > 0,
            cases,
            failing,
            unmeasured,
            tags,
            langs,
            statuses,
        }
    }
}

/// One case of the "changed since baseline" table, formatted.
#[derive(Debug, Clone, Serialize)]
pub struct ChangedCase {
    /// Case id.
    pub id: String,
    /// How it moved, in words (`newly_failing`, …).
    pub movement: String,
    /// Critical case.
    pub critical: bool,
    /// Baseline pass rate, formatted.
    pub base: String,
    /// Candidate pass rate, formatted.
    pub cand: String,
    /// The candidate's first failure line.
    pub failure: String,
}

/// The "changed since baseline" view of the run page, already formatted
/// (built by `analysis::compare_render::baseline_view`; `eval` does not know
/// how a comparison is made).
#[derive(Debug, Clone, Serialize)]
pub struct BaselineView {
    /// The verdict line.
    pub verdict: String,
    /// The paired test, in words.
    pub test: String,
    /// The baseline: name, directory, date, commit.
    pub base: String,
    /// Count per movement.
    pub counts: Vec<(String, usize)>,
    /// Cases that did not pass in both.
    pub cases: Vec<ChangedCase>,
    /// `[metric, baseline, now, change]`, formatted.
    pub metrics: Vec<[String; 4]>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_json_cannot_close_its_element() {
        let v = serde_json::json!({"t": "</script><img src=x onerror=alert(1)> & \u{2028}"});
        let s = json_for_script(&v);
        assert!(!s.contains('<') && !s.contains('>') && !s.contains('&'), "{s}");
        assert_eq!(serde_json::from_str::<Value>(&s).unwrap(), v, "still the same JSON");
    }
}
