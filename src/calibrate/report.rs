//! Renders a [`Calibration`]: Markdown with an SVG picture of the two score
//! distributions, JSON, and the terminal table.

use std::fmt::Write as _;

use super::{Calibration, Signal, SignalReport};

fn fmt(v: Option<f64>) -> String {
    v.map(|x| format!("{x:.4}")).unwrap_or_else(|| "—".into())
}

/// The Markdown report; `svg_name` is the picture's file name next to it.
pub fn render_markdown(c: &Calibration, date: &str, svg_name: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# Retrieval calibration, {date}\n");
    let _ = writeln!(
        s,
        "- Embedder: `{}`; reranker: `{}`; thresholds entry: `{}`",
        c.embedder,
        c.reranker.as_deref().unwrap_or("none"),
        c.model_id
    );
    let _ = writeln!(s, "- Questions: {} answerable, {} unanswerable", c.answerable, c.unanswerable);
    if !c.excluded.is_empty() {
        let _ = writeln!(
            s,
            "- Left out: {} answerable questions marked as needing real embeddings (the hashing embedder cannot find paraphrases): {}",
            c.excluded.len(),
            c.excluded.join(", ")
        );
    }
    let _ = writeln!(
        s,
        "- Caveat: the golden set is small and was also used while developing retrieval, so these figures are optimistic; the leave-one-out column shows how much one question moves the proposal.\n"
    );
    let verdict = if c.separates { "SEPARATES" } else { "DOES NOT SEPARATE" };
    let _ = writeln!(
        s,
        "## Proposal: {verdict}\n\n```json\n{}\n```\n\nUnder the proposed rule: {}/{} answerable questions have an expected chunk in the top 5; {}/{} unanswerable questions return passages.\n",
        serde_json::to_string_pretty(&c.proposal).unwrap_or_default(),
        c.combined_recall_hits,
        c.answerable,
        c.combined_false_positives,
        c.unanswerable
    );
    super::report_guarantee::proposal_statistics(&mut s, c);
    if let Some(j) = &c.joint {
        let _ = if j.replaced_proposal {
            writeln!(
                s,
                "This pair is the best of {} (keyword coverage, vector z) pairs searched together; setting the two thresholds one after the other did worse.\n",
                j.pairs
            )
        } else {
            writeln!(
                s,
                "A joint search over {} (keyword coverage, vector z) pairs finds none with more answerable questions in the top 5 at 0 false positives: {}/{} is the most this rule reaches on this golden set.\n",
                j.pairs, j.recall_hits, c.answerable
            )
        };
    }
    let _ = writeln!(s, "![score distributions]({svg_name})\n");
    let _ = writeln!(s, "## Signals\n\n| signal | lowest answerable | highest unanswerable | margin | proposal | leave-one-out changes |\n|---|---|---|---|---|---|");
    for r in &c.signals {
        let lo = r.lowest_answerable.as_deref().unwrap_or("—");
        let hi = r.highest_unanswerable.as_deref().unwrap_or("—");
        let lo_score =
            r.answerable.iter().find(|a| Some(a.id.as_str()) == r.lowest_answerable.as_deref()).and_then(|a| a.score);
        let hi_score = r
            .unanswerable
            .iter()
            .find(|a| Some(a.id.as_str()) == r.highest_unanswerable.as_deref())
            .and_then(|a| a.score);
        let proposal = match (r.separating, &r.keep_recall) {
            (Some(t), _) => format!("{t:.4} (separating midpoint)"),
            (None, Some(k)) => {
                format!("no separation; recall-1 at {:.4} costs {} false positives", k.threshold, k.false_positives)
            }
            (None, None) => r.applied.map_or_else(|| "none".into(), |t| format!("none alone; fused entry {t:.4}")),
        };
        let _ = writeln!(
            s,
            "| {} | {} (`{lo}`) | {} (`{hi}`) | {} | {proposal} | {}/{} |",
            r.signal.name(),
            fmt(lo_score),
            fmt(hi_score),
            fmt(r.margin),
            r.loo_changed,
            r.loo_total
        );
    }
    if let (Some(z), Some(zr)) = (c.proposal.vector_z, c.signals.iter().find(|r| r.signal == Signal::VectorZ)) {
        if zr.separating.is_none() {
            let hi = zr.unanswerable.iter().filter_map(|u| u.score).fold(f64::NEG_INFINITY, f64::max);
            let top = zr.answerable.iter().filter_map(|a| a.score).fold(hi, f64::max);
            let _ = if z > top {
                writeln!(
                    s,
                    "\nThe vector z-score does not separate on its own and would keep no answerable question that keyword coverage misses, so its threshold ({z:.4}) is set above every golden z-score (highest {top:.4}): the vector route only keeps a passage that stands out more than anything measured."
                )
            } else {
                writeln!(
                    s,
                    "\nThe vector z-score does not separate on its own, so its threshold ({z:.4}) is set just above the highest unanswerable z-score ({hi:.4}): the vector route only keeps a passage that scores higher than any unanswerable question did, and never admits one of them."
                )
            };
            let clears = |sig: Signal| {
                c.signals
                    .iter()
                    .find(|r| r.signal == sig)
                    .map_or(0, |r| r.answerable.iter().filter(|a| a.ok_at_proposal == Some(true)).count())
            };
            let n = zr.answerable.len();
            let _ = writeln!(
                s,
                "At these values {}/{n} answerable questions clear the keyword-coverage threshold and {}/{n} the vector threshold.",
                clears(Signal::KeywordCoverage),
                clears(Signal::VectorZ)
            );
        }
    }
    if let Some(cos) = c.signals.iter().find(|r| r.signal == Signal::Cosine) {
        let word = if cos.margin.is_some_and(|m| m > 0.0) { "separates" } else { "does not separate" };
        let _ = writeln!(
            s,
            "\nCosine {word} answerable from unanswerable questions (margin {}); it is shown for comparison only.",
            fmt(cos.margin)
        );
    }
    super::report_guarantee::signal_statistics(&mut s, c);
    for r in &c.signals {
        signal_section(&mut s, r);
    }
    s
}

fn signal_section(s: &mut String, r: &SignalReport) {
    let _ = writeln!(s, "\n## {}\n", r.signal.name());
    if let (Some(f), None) = (&r.best_f1, r.separating) {
        let _ = writeln!(
            s,
            "For comparison only, not proposed: the best-F1 threshold {:.4} keeps recall@5 at {:.1}% but lets {} of {} unanswerable questions through (precision {:.1}%, F1 {:.3}).\n",
            f.threshold,
            f.recall_at_5 * 100.0,
            f.false_positives,
            r.unanswerable.len(),
            f.precision * 100.0,
            f.f1
        );
    }
    let at = r.applied.map_or_else(|| "threshold".to_string(), |t| format!("{t:.4}"));
    let _ = writeln!(s, "### Answerable questions\n\n| question | best expected chunk | score | rank | clears {at} |\n|---|---|---|---|---|");
    for a in &r.answerable {
        let ok = match a.ok_at_proposal {
            Some(true) => "yes",
            Some(false) => "NO",
            None => "—",
        };
        let _ = writeln!(
            s,
            "| `{}` | {} | {} | {} | {ok} |",
            a.id,
            a.chunk.as_deref().unwrap_or("not a candidate"),
            fmt(a.score),
            a.rank.map(|r| r.to_string()).unwrap_or_else(|| "—".into())
        );
    }
    let _ = writeln!(s, "\n### Unanswerable questions\n\n| question | highest-scoring chunk | score | rejected at {at} |\n|---|---|---|---|");
    for u in &r.unanswerable {
        let ok = match u.ok_at_proposal {
            Some(true) => "yes",
            Some(false) => "NO",
            None => "—",
        };
        let _ = writeln!(s, "| `{}` | {} | {} | {ok} |", u.id, u.chunk.as_deref().unwrap_or("—"), fmt(u.score));
    }
    let _ = writeln!(
        s,
        "\n### Sweep\n\nrecall@5: answerable questions with an expected chunk kept and in the top 5. Precision: questions answered with an expected chunk among all questions that return anything, so it stays below 100% at 0 false positives when an answerable question returns passages that do not answer it.\n\n| threshold | recall@5 | false positives | precision | F1 |\n|---|---|---|---|---|"
    );
    let step = (r.sweep.len() / 25).max(1);
    for (i, row) in r.sweep.iter().enumerate() {
        let key = r.separating.is_some_and(|t| (t - row.threshold).abs() < 1e-9)
            || r.keep_recall.as_ref().is_some_and(|k| k == row);
        if i % step == 0 || key || i + 1 == r.sweep.len() {
            let _ = writeln!(
                s,
                "| {:.4} | {:.1}% | {} | {:.1}% | {:.3} |",
                row.threshold,
                row.recall_at_5 * 100.0,
                row.false_positives,
                row.precision * 100.0,
                row.f1
            );
        }
    }
}

/// The terminal table for stderr.
pub fn render_terminal(c: &Calibration) -> String {
    let mut table = comfy_table::Table::new();
    table.load_style(comfy_table::presets::UTF8_FULL_CONDENSED);
    table.set_header(["signal", "lowest answerable", "highest unanswerable", "margin", "proposal"]);
    for r in &c.signals {
        let lo = r.answerable.iter().filter_map(|a| a.score).fold(f64::INFINITY, f64::min);
        let hi = r.unanswerable.iter().filter_map(|a| a.score).fold(f64::NEG_INFINITY, f64::max);
        table.add_row([
            r.signal.name().to_owned(),
            if lo.is_finite() { format!("{lo:.4}") } else { "—".into() },
            if hi.is_finite() { format!("{hi:.4}") } else { "—".into() },
            fmt(r.margin),
            r.separating.map(|t| format!("{t:.4}")).unwrap_or_else(|| "no separation".into()),
        ]);
    }
    // A signal that does not separate may still get a value in the proposal:
    // one above every golden score, which turns that route of the keep rule off.
    let mut notes = String::new();
    for r in &c.signals {
        let proposed = match r.signal {
            Signal::VectorZ => c.proposal.vector_z,
            Signal::KeywordCoverage => c.proposal.keyword_coverage,
            Signal::Rerank => c.proposal.rerank,
            Signal::Cosine => None,
        };
        let top = r.answerable.iter().chain(&r.unanswerable).filter_map(|q| q.score).fold(f64::NEG_INFINITY, f64::max);
        if let Some(p) = proposed {
            if top.is_finite() && p > top {
                notes.push_str(&format!(
                    "{}: proposed {p:.4}, above every golden score ({top:.4}), so this route keeps nothing on its own (it is off)\n",
                    r.signal.name()
                ));
            }
        }
    }
    let verdict = if c.separates { "separates" } else { "does NOT separate" };
    format!(
        "{table}\n{notes}proposal for `{}`: {} — {verdict} ({}/{} answerable in top 5, {}/{} unanswerable returning passages)\n{}",
        c.model_id,
        serde_json::to_string(&c.proposal).unwrap_or_default(),
        c.combined_recall_hits,
        c.answerable,
        c.combined_false_positives,
        c.unanswerable,
        super::report_guarantee::terminal_lines(c)
    )
}
