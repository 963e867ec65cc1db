//! What to review: every reply of one or more stored report sets, grouped by
//! case and reply hash (the same reply graded by several judges, e.g. an
//! `eval` with the rule judge and a `rescore` with the LLM judge, is one
//! entry with each judge's verdict), and drawn into a queue:
//!
//! 1. replies the judges disagree on (any item, or the whole verdict);
//! 2. replies a judge left undecided (no verdict: the rule judge without
//!    match patterns for an item, a judge model error; or an item the rule
//!    judge could not decide: a match only in a sentence grounding flags);
//! 3. a uniform random sample (seeded) of every reply some judge graded —
//!    drawn from all of them, not only the rest, so the reviewed sample is a
//!    simple random sample and the judge-corrected pass rate
//!    ([`crate::stats::ppi`]) may use it. A sampled reply that is also in 1
//!    or 2 is listed once, with both reasons.
//!
//! Cases without rubric items (checked by listings or hand-offs only) have
//! nothing to review and are left out.

use std::collections::BTreeMap;

use serde::Serialize;

use super::store::reply_hash;
use crate::agent::HistoryTurn;
use crate::eval::judge::Verdict;
use crate::eval::labels::EvidenceCall;
use crate::eval::EvalReport;

/// Why a reply is in the queue.
pub const DRAWN_DISAGREEMENT: &str = "disagreement";
/// A judge gave no verdict.
pub const DRAWN_UNDECIDED: &str = "undecided";

/// One judge's view of a reply.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JudgeView {
    /// Judge id (`rules`, `llm:<model>`).
    pub judge: String,
    /// The report set it came from (its name and date).
    pub report: String,
    /// The verdict, `None` when the judge could not grade.
    pub verdict: Option<Verdict>,
    /// Why it could not grade.
    pub error: Option<String>,
}

/// One reply to review.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Entry {
    /// `<case>:<reply hash>`: the entry's id in the page and API.
    pub key: String,
    /// Case id.
    pub case_id: String,
    /// SHA-256 of the reply.
    pub reply_hash: String,
    /// Why it is in the queue (`disagreement`, `undecided`, `sample`).
    pub drawn: Vec<String>,
    /// The customer's message.
    pub inquiry: String,
    /// Earlier exchanges.
    pub history: Vec<HistoryTurn>,
    /// The reply.
    pub reply: String,
    /// Its citations.
    pub citations: Vec<String>,
    /// The tool calls with their results.
    pub evidence: Vec<EvidenceCall>,
    /// `must` item texts.
    pub must: Vec<String>,
    /// `must_not` item texts.
    pub must_not: Vec<String>,
    /// Each judge's view, in report order (one per judge).
    pub judges: Vec<JudgeView>,
    /// The desk ticket whose reply was marked wrong, for a `ticket` entry
    /// (no rubric items: it is there to be read and turned into a case).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ticket: Option<TicketMark>,
}

/// A desk ticket marked "reply was wrong".
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TicketMark {
    /// Ticket id.
    pub ticket_id: String,
    /// The note of the person who marked it.
    pub note: Option<String>,
    /// The command that turns it into a case draft.
    pub to_case: String,
}

/// Why a reply is in the queue: a desk ticket marked "reply was wrong".
pub const DRAWN_TICKET: &str = "ticket";

/// Appends the desk's tickets marked "reply was wrong" (those whose run the
/// desk kept) to the queue, after the judged replies; `db` is the desk
/// database the marks came from (named in the command shown).
pub fn add_tickets(queue: &mut Queue, marks: &[crate::desk::wrong_reply::WrongReply], db: &str) {
    for m in marks {
        let (Some(inquiry), Some(result)) = (&m.inquiry, &m.result) else { continue };
        let hash = reply_hash(&result.reply);
        queue.entries.push(Entry {
            key: format!("{}:{hash}", m.ticket_id),
            case_id: m.ticket_id.clone(),
            reply_hash: hash,
            drawn: vec![DRAWN_TICKET.into()],
            inquiry: inquiry.clone(),
            history: m.history.clone(),
            reply: result.reply.clone(),
            citations: result.citations.clone(),
            evidence: result
                .trace
                .iter()
                .map(|t| EvidenceCall {
                    tool: t.tool.clone(),
                    arguments: t.arguments.clone(),
                    result: Some(t.result.clone()),
                    is_error: t.is_error,
                })
                .collect(),
            must: vec![],
            must_not: vec![],
            judges: vec![],
            ticket: Some(TicketMark {
                ticket_id: m.ticket_id.clone(),
                note: m.note.clone(),
                to_case: format!(
                    "inquiry tickets --db {db} trace {} --out {}.json && inquiry cases add --from-trace {}.json",
                    m.ticket_id, m.ticket_id, m.ticket_id
                ),
            }),
        });
        queue.counts.tickets += 1;
        queue.counts.entries += 1;
    }
}

/// How many of each kind the queue holds.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Counts {
    /// Distinct replies with rubric items in the report sets.
    pub replies: usize,
    /// Replies some judge graded (the population the sample is drawn from).
    pub graded: usize,
    /// Replies the judges disagree on.
    pub disagreement: usize,
    /// Replies a judge left undecided.
    pub undecided: usize,
    /// Replies in the random sample.
    pub sampled: usize,
    /// Desk tickets marked "reply was wrong".
    pub tickets: usize,
    /// Entries in the queue (a reply counted in several kinds is one entry).
    pub entries: usize,
}

/// The review queue.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Queue {
    /// Entries: disagreements, then undecided, then the sample.
    pub entries: Vec<Entry>,
    /// The counts the page states.
    pub counts: Counts,
    /// Seed of the sample.
    pub seed: u64,
}

fn disagree(a: &Verdict, b: &Verdict) -> bool {
    let oks = |v: &Verdict| v.must.iter().chain(&v.must_not).map(|g| g.ok).collect::<Vec<bool>>();
    oks(a) != oks(b) || a.passed() != b.passed()
}

/// Builds the queue from `reports` (each with its runs' results filled in,
/// see [`crate::analysis::stored::load_stored`]), sampling `sample` replies
/// with `seed`.
pub fn build(reports: &[EvalReport], sample: usize, seed: u64) -> Queue {
    let mut by_key: BTreeMap<(String, String), Entry> = BTreeMap::new();
    for report in reports {
        let label = format!("{} ({})", report.name, report.date);
        for case in &report.cases {
            if case.items.must.is_empty() && case.items.must_not.is_empty() {
                continue;
            }
            for run in &case.runs {
                let Some(result) = &run.result else { continue };
                let hash = reply_hash(&result.reply);
                let entry = by_key.entry((case.id.clone(), hash.clone())).or_insert_with(|| Entry {
                    key: format!("{}:{hash}", case.id),
                    case_id: case.id.clone(),
                    reply_hash: hash.clone(),
                    drawn: vec![],
                    inquiry: case.inquiry.clone(),
                    history: case.history.clone(),
                    reply: result.reply.clone(),
                    citations: result.citations.clone(),
                    evidence: result
                        .trace
                        .iter()
                        .map(|t| EvidenceCall {
                            tool: t.tool.clone(),
                            arguments: t.arguments.clone(),
                            result: Some(t.result.clone()),
                            is_error: t.is_error,
                        })
                        .collect(),
                    must: case.items.must.clone(),
                    must_not: case.items.must_not.clone(),
                    judges: vec![],
                    ticket: None,
                });
                if entry.judges.iter().any(|j| j.judge == report.judge) {
                    continue;
                }
                entry.judges.push(JudgeView {
                    judge: report.judge.clone(),
                    report: label.clone(),
                    verdict: run.verdict.clone(),
                    error: run
                        .verdict
                        .is_none()
                        .then(|| run.judge_error.clone().unwrap_or_else(|| "no verdict".into())),
                });
            }
        }
    }
    let mut entries: Vec<Entry> = by_key.into_values().collect();
    let mut counts = Counts { replies: entries.len(), ..Counts::default() };
    for e in &mut entries {
        let verdicts: Vec<&Verdict> = e.judges.iter().filter_map(|j| j.verdict.as_ref()).collect();
        if verdicts.iter().enumerate().any(|(i, a)| verdicts[i + 1..].iter().any(|b| disagree(a, b))) {
            e.drawn.push(DRAWN_DISAGREEMENT.into());
            counts.disagreement += 1;
        }
        // No verdict at all, or an item the rule judge could not decide.
        let undecided_item = |v: &Verdict| v.must.iter().chain(&v.must_not).any(|g| g.undecided);
        if e.judges.iter().any(|j| j.verdict.as_ref().is_none_or(undecided_item)) {
            e.drawn.push(DRAWN_UNDECIDED.into());
            counts.undecided += 1;
        }
    }
    // A uniform sample of the graded replies: a seeded partial Fisher–Yates
    // shuffle of their indices (in key order, so the draw is reproducible).
    let graded: Vec<usize> =
        (0..entries.len()).filter(|i| entries[*i].judges.iter().any(|j| j.verdict.is_some())).collect();
    counts.graded = graded.len();
    let mut pool = graded;
    let mut rng = crate::stats::SplitMix64::new(seed);
    let k = sample.min(pool.len());
    for i in 0..k {
        let j = i + rng.below(pool.len() - i);
        pool.swap(i, j);
        entries[pool[i]].drawn.push(super::store::DRAWN_SAMPLE.into());
    }
    counts.sampled = k;
    let rank = |e: &Entry| {
        if e.drawn.iter().any(|d| d == DRAWN_DISAGREEMENT) {
            0
        } else if e.drawn.iter().any(|d| d == DRAWN_UNDECIDED) {
            1
        } else {
            2
        }
    };
    let mut queue: Vec<Entry> = entries.into_iter().filter(|e| !e.drawn.is_empty()).collect();
    queue.sort_by(|a, b| rank(a).cmp(&rank(b)).then(a.case_id.cmp(&b.case_id)).then(a.reply_hash.cmp(&b.reply_hash)));
    counts.entries = queue.len();
    Queue { entries: queue, counts, seed }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::judge::ItemGrade;

    fn verdict(judge: &str, oks: &[bool]) -> Verdict {
        Verdict {
            judge: judge.into(),
            must: oks
                .iter()
                .enumerate()
                .map(|(i, ok)| ItemGrade {
                    item: i + 1,
                    text: format!("m{i}"),
                    ok: *ok,
                    note: None,
                    route: None,
                    undecided: false,
                })
                .collect(),
            must_not: vec![],
            unsupported_claims: vec![],
            language: None,
            language_ok: true,
            expected_language: None,
            usage: Default::default(),
            cache: None,
        }
    }

    #[test]
    fn the_queue_draws_disagreements_undecided_and_a_seeded_sample() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("reports/eval");
        let rules = crate::analysis::stored::load_stored(&dir).unwrap().report;
        // The same replies graded by a second judge that disagrees on one reply
        // and cannot grade another.
        let mut llm = rules.clone();
        llm.judge = "llm:test".into();
        let flip = llm.cases.iter().position(|c| !c.items.must.is_empty()).unwrap();
        llm.cases[flip].runs[0].verdict.as_mut().unwrap().must[0].ok ^= true;
        let gone = llm.cases.iter().rposition(|c| !c.items.must.is_empty()).unwrap();
        llm.cases[gone].runs[0].verdict = None;
        llm.cases[gone].runs[0].judge_error = Some("judge model failed: 500".into());
        let q = build(&[rules.clone(), llm.clone()], 10, 7);
        assert_eq!((q.counts.disagreement, q.counts.undecided, q.counts.sampled), (1, 1, 10));
        assert_eq!(q.counts.replies, q.counts.graded);
        assert_eq!(q.entries[0].case_id, rules.cases[flip].id, "disagreements first");
        assert_eq!(q.entries[0].judges.len(), 2, "one entry, both judges");
        assert_eq!(q.entries[1].case_id, rules.cases[gone].id, "then the undecided");
        let sampled = q.entries.iter().filter(|e| e.drawn.iter().any(|d| d == "sample")).count();
        assert_eq!(sampled, 10);
        assert_eq!(q.counts.entries, q.entries.len());
        assert!(q.entries.len() <= 12 && q.entries.len() >= 10);
        // Seeded: the same draw every time; another seed draws another sample.
        assert_eq!(build(&[rules.clone(), llm.clone()], 10, 7), q);
        let keys = |q: &Queue| {
            q.entries
                .iter()
                .filter(|e| e.drawn.iter().any(|d| d == "sample"))
                .map(|e| e.key.clone())
                .collect::<Vec<_>>()
        };
        assert_ne!(keys(&build(&[rules, llm], 10, 8)), keys(&q));
    }

    #[test]
    fn disagreement_is_per_item() {
        assert!(disagree(&verdict("rules", &[true, false]), &verdict("llm:x", &[false, true])));
        assert!(!disagree(&verdict("rules", &[true, false]), &verdict("llm:x", &[true, false])));
    }
}
