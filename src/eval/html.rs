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

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;
use serde_json::Value;

use super::compare::Comparison;
use super::{CaseReport, CaseRun, EvalReport};

const LAYOUT: &str = include_str!("../../templates/report.html");
const CASE: &str = include_str!("../../templates/case.html");
const CSS: &str = include_str!("../../templates/report.css");
const JS: &str = include_str!("../../templates/report.js");

/// Longest tool result shown in a trace (characters); the full result stays
/// in the case's trace file.
const MAX_RESULT_CHARS: usize = 20_000;

/// The template environment: both templates, auto-escaping HTML.
fn environment() -> minijinja::Environment<'static> {
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
    env.add_template("report.html", LAYOUT).expect("templates/report.html parses");
    env.add_template("case.html", CASE).expect("templates/case.html parses");
    env
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
fn script_hash(script: &str) -> String {
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
    comparison: Option<&Comparison>,
) -> anyhow::Result<String> {
    let env = environment();
    let case_template = env.get_template("case.html")?;
    let mut case_pages = String::new();
    for case in cases {
        let case = case?;
        let view = CaseView::of(&case);
        case_pages.push_str(&case_template.render(minijinja::context! { case => minijinja::Value::from(minijinja::value::Serde(&view)) })?);
    }
    let page = env.get_template("report.html")?.render(minijinja::context! {
        r => minijinja::Value::from(minijinja::value::Serde(RunView::of(report))),
        comparison => comparison.map(|c| minijinja::Value::from(minijinja::value::Serde(ComparisonView::of(c)))),
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

fn word<T: Serialize>(v: &T) -> String {
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
                passes: c.runs.iter().filter(|x| x.status == super::RunStatus::Pass).count(),
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

/// A piece of a reply: plain text, or a citation with the index of its passage.
#[derive(Serialize)]
struct Segment {
    text: String,
    cite: Option<usize>,
}

/// A cited passage as the run's tools returned it.
#[derive(Serialize)]
struct Passage {
    id: String,
    /// False when no tool of the run returned this id (an ungrounded citation).
    found: bool,
    text: String,
    source: String,
}

#[derive(Serialize)]
struct TraceRow {
    model_call: u32,
    tool: String,
    arguments: String,
    result: String,
    is_error: bool,
    ms: u64,
}

#[derive(Serialize)]
struct GuardRow {
    model_call: u32,
    action: String,
    draft: String,
    violations: Vec<String>,
}

#[derive(Serialize)]
struct RunPage {
    attempt: usize,
    status: String,
    unmeasured: Option<String>,
    error: Option<String>,
    failures: Vec<String>,
    latency_ms: u64,
    outcome: String,
    reply: Vec<Segment>,
    passages: Vec<Passage>,
    trace: Vec<TraceRow>,
    tickets: Vec<Value>,
    guard_events: Vec<GuardRow>,
    first_draft: Option<String>,
    verdict: Option<Value>,
    judge_error: Option<String>,
    checks: Option<ChecksView>,
}

/// The code checks of a run, as words.
#[derive(Serialize)]
struct ChecksView {
    created: Vec<String>,
    missing_handoffs: Vec<String>,
    extra_handoffs: Vec<String>,
    missing_listings: Vec<String>,
    final_ungrounded: Vec<String>,
    first_draft_ungrounded: Vec<String>,
}

impl ChecksView {
    fn of(c: &super::checks::CodeChecks) -> Self {
        let reasons = |v: &[crate::handoff::HandoffReason]| v.iter().map(word).collect();
        let figures = |v: &[crate::agent::numbers::Figure]| v.iter().map(|f| f.text.clone()).collect();
        ChecksView {
            created: reasons(&c.created),
            missing_handoffs: reasons(&c.missing_handoffs),
            extra_handoffs: reasons(&c.extra_handoffs),
            missing_listings: c.missing_listings.clone(),
            final_ungrounded: figures(&c.final_ungrounded),
            first_draft_ungrounded: c.first_draft_ungrounded.as_deref().map(figures).unwrap_or_default(),
        }
    }
}

#[derive(Serialize)]
struct CaseView {
    id: String,
    file: String,
    status: String,
    lang: String,
    tags: Vec<String>,
    critical: bool,
    inquiry: String,
    history: Vec<Value>,
    must: Vec<String>,
    must_not: Vec<String>,
    pass_rate: String,
    runs: Vec<RunPage>,
}

impl CaseView {
    fn of(c: &CaseReport) -> Self {
        CaseView {
            id: c.id.clone(),
            file: c.file.clone(),
            status: word(&c.status),
            lang: word(&c.lang),
            tags: c.tags.clone(),
            critical: c.critical,
            inquiry: c.inquiry.clone(),
            history: c.history.iter().filter_map(|h| serde_json::to_value(h).ok()).collect(),
            must: c.items.must.clone(),
            must_not: c.items.must_not.clone(),
            pass_rate: format!("{} of {} measured run(s) passed", passes(c), c.measured_runs),
            runs: c.runs.iter().map(RunPage::of).collect(),
        }
    }
}

fn passes(c: &CaseReport) -> usize {
    c.runs.iter().filter(|r| r.status == super::RunStatus::Pass).count()
}

fn pretty(v: &Value, max: usize) -> String {
    let text = serde_json::to_string_pretty(v).unwrap_or_default();
    if text.chars().count() <= max {
        return text;
    }
    let cut: String = text.chars().take(max).collect();
    format!("{cut}\n… ({} more characters in the trace file)", text.chars().count() - max)
}

impl RunPage {
    fn of(run: &CaseRun) -> Self {
        let result = run.result.as_ref();
        let known = result.map(|r| known_passages(&r.trace)).unwrap_or_default();
        let mut passages: Vec<Passage> = Vec::new();
        let reply = result
            .map(|r| {
                crate::agent::guards::citation_spans(&r.reply)
                    .into_iter()
                    .fold((Vec::new(), 0usize), |(mut segs, at), (range, id)| {
                        if range.start > at {
                            segs.push(Segment { text: r.reply[at..range.start].to_owned(), cite: None });
                        }
                        let index = match passages.iter().position(|p| p.id == id) {
                            Some(i) => i,
                            None => {
                                passages.push(match known.get(&id) {
                                    Some((text, source)) => {
                                        Passage { id: id.clone(), found: true, text: text.clone(), source: source.clone() }
                                    }
                                    None => Passage {
                                        id: id.clone(),
                                        found: false,
                                        text: String::new(),
                                        source: "no tool of this run returned this id".into(),
                                    },
                                });
                                passages.len() - 1
                            }
                        };
                        segs.push(Segment { text: r.reply[range.clone()].to_owned(), cite: Some(index) });
                        (segs, range.end)
                    })
            })
            .map(|(mut segs, at)| {
                if let Some(r) = result {
                    if at < r.reply.len() {
                        segs.push(Segment { text: r.reply[at..].to_owned(), cite: None });
                    }
                }
                segs
            })
            .unwrap_or_default();
        RunPage {
            attempt: run.attempt,
            status: word(&run.status),
            unmeasured: run.unmeasured.clone(),
            error: run.error.clone().or_else(|| result.and_then(|r| r.error.clone())),
            failures: run.failures.clone(),
            latency_ms: run.latency_ms,
            outcome: result
                .map(|r| match r.handoffs.len() {
                    0 => outcome_words(&r.outcome),
                    n => format!("{}, {n} ticket(s) for a person", outcome_words(&r.outcome)),
                })
                .unwrap_or_default(),
            reply,
            passages,
            trace: result
                .map(|r| {
                    r.trace
                        .iter()
                        .map(|t| TraceRow {
                            model_call: t.model_call,
                            tool: t.tool.clone(),
                            arguments: pretty(&t.arguments, MAX_RESULT_CHARS),
                            result: pretty(&t.result, MAX_RESULT_CHARS),
                            is_error: t.is_error,
                            ms: t.duration_ms,
                        })
                        .collect()
                })
                .unwrap_or_default(),
            tickets: result
                .map(|r| r.handoffs.iter().filter_map(|t| serde_json::to_value(t).ok()).collect())
                .unwrap_or_default(),
            guard_events: result
                .map(|r| {
                    r.guard_events
                        .iter()
                        .map(|g| GuardRow {
                            model_call: g.model_call,
                            action: g.action.clone(),
                            draft: g.draft.clone(),
                            violations: g.violations.iter().map(ToString::to_string).collect(),
                        })
                        .collect()
                })
                .unwrap_or_default(),
            first_draft: result.and_then(|r| r.first_draft.clone()).filter(|d| Some(d) != result.map(|r| &r.reply)),
            verdict: run.verdict.as_ref().and_then(|v| serde_json::to_value(v).ok()),
            judge_error: run.judge_error.clone(),
            checks: run.checks.as_ref().map(ChecksView::of),
        }
    }
}

fn outcome_words(o: &crate::agent::Outcome) -> String {
    match serde_json::to_value(o) {
        Ok(Value::Object(m)) => {
            let mut s = m.get("kind").and_then(Value::as_str).unwrap_or("").replace('_', " ");
            if let Some(cause) = m.get("cause") {
                let _ = write!(s, " ({})", word(cause).replace('_', " "));
            }
            s
        }
        _ => String::new(),
    }
}

/// Every passage id the run's tools returned, with its text and a source
/// line: `search_knowledge` hits, the sentences of listings read with
/// `get_listing` (chunked as the catalogue chunks them) and listing ids.
fn known_passages(trace: &[crate::agent::TraceEntry]) -> BTreeMap<String, (String, String)> {
    let mut out = BTreeMap::new();
    let s = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
    for t in trace.iter().filter(|t| !t.is_error) {
        match t.tool.as_str() {
            "search_knowledge" => {
                for hit in t.result.get("results").and_then(Value::as_array).into_iter().flatten() {
                    let id = s(hit, "chunkId");
                    let source = match hit.get("listingId").and_then(Value::as_str) {
                        Some(l) => format!("listing {l}, found by search_knowledge"),
                        None => "agency policy, found by search_knowledge".to_owned(),
                    };
                    out.entry(id).or_insert((s(hit, "text"), source));
                }
            }
            "get_listing" => {
                let id = s(&t.result, "id");
                let title = s(&t.result, "title");
                for (i, sentence) in crate::chunk::split_sentences(&s(&t.result, "description")).into_iter().enumerate()
                {
                    out.entry(format!("{id}#s{}", i + 1))
                        .or_insert((sentence, format!("listing {id} ({title}), sentence {}, read by get_listing", i + 1)));
                }
                out.entry(id.clone()).or_insert((summary(&t.result), format!("listing {id}, read by get_listing")));
            }
            "search_listings" => {
                for l in t.result.get("results").and_then(Value::as_array).into_iter().flatten() {
                    let id = s(l, "id");
                    out.entry(id.clone()).or_insert((summary(l), format!("listing {id}, found by search_listings")));
                }
            }
            _ => {}
        }
    }
    out
}

/// `Title — City, District — 1,650 EUR/month` from a listing record or summary.
fn summary(l: &Value) -> String {
    let s = |k: &str| l.get(k).and_then(Value::as_str).unwrap_or("");
    let price = l.get("price").map(|p| p.to_string()).unwrap_or_default();
    let unit = s("priceUnit");
    format!("{} — {}, {} — {price} {unit}", s("title"), s("city"), s("district")).trim_end().to_owned()
}

#[derive(Serialize)]
struct ChangedCase {
    id: String,
    movement: String,
    critical: bool,
    base: String,
    cand: String,
    failure: String,
}

#[derive(Serialize)]
struct ComparisonView {
    verdict: String,
    /// The paired test, in words.
    test: String,
    base: String,
    counts: Vec<(String, usize)>,
    cases: Vec<ChangedCase>,
    /// `[metric, baseline, now, change]`, formatted.
    metrics: Vec<[String; 4]>,
}

impl ComparisonView {
    fn of(c: &Comparison) -> Self {
        use super::compare_render::{delta, pct, value};
        ComparisonView {
            verdict: super::compare_render::verdict_line(c),
            test: super::compare_render::test_line(&c.test),
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
                .filter(|d| d.movement != super::compare::Movement::StillPassing)
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
