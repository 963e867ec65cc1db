//! The case page's view: each run's reply split at its citations, the
//! passages those citations point to (as the run's tools returned them), the
//! tool trace, tickets, guard events, judge grades and code checks.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;
use serde_json::Value;

use super::word;
use crate::eval::{CaseReport, CaseRun};

/// Longest tool result shown in a trace (characters); the full result stays
/// in the case's trace file.
const MAX_RESULT_CHARS: usize = 20_000;

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
    grounding: Vec<crate::grounding::SentenceCheck>,
}

impl ChecksView {
    fn of(c: &crate::eval::checks::CodeChecks) -> Self {
        let reasons = |v: &[crate::handoff::HandoffReason]| v.iter().map(word).collect();
        let figures = |v: &[crate::agent::numbers::Figure]| v.iter().map(|f| f.text.clone()).collect();
        ChecksView {
            created: reasons(&c.created),
            missing_handoffs: reasons(&c.missing_handoffs),
            extra_handoffs: reasons(&c.extra_handoffs),
            missing_listings: c.missing_listings.clone(),
            final_ungrounded: figures(&c.final_ungrounded),
            first_draft_ungrounded: c.first_draft_ungrounded.as_deref().map(figures).unwrap_or_default(),
            grounding: c.grounding.as_ref().map(|g| g.sentences.clone()).unwrap_or_default(),
        }
    }
}

#[derive(Serialize)]
pub(super) struct CaseView {
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
    pub(super) fn of(c: &CaseReport) -> Self {
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

/// Runs of the case that passed.
pub(super) fn passes(c: &CaseReport) -> usize {
    c.runs.iter().filter(|r| r.status == crate::eval::RunStatus::Pass).count()
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
                crate::agent::guards::citation_spans(&r.reply).into_iter().fold(
                    (Vec::new(), 0usize),
                    |(mut segs, at), (range, id)| {
                        if range.start > at {
                            segs.push(Segment { text: r.reply[at..range.start].to_owned(), cite: None });
                        }
                        let index = match passages.iter().position(|p| p.id == id) {
                            Some(i) => i,
                            None => {
                                passages.push(match known.get(&id) {
                                    Some((text, source)) => Passage {
                                        id: id.clone(),
                                        found: true,
                                        text: text.clone(),
                                        source: source.clone(),
                                    },
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
                    },
                )
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
                    out.entry(format!("{id}#s{}", i + 1)).or_insert((
                        sentence,
                        format!("listing {id} ({title}), sentence {}, read by get_listing", i + 1),
                    ));
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
