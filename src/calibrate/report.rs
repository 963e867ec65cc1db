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

/// An SVG strip plot per thresholded signal: answerable scores on one row,
/// unanswerable on another, the proposed threshold as a vertical line.
pub fn render_svg(c: &Calibration) -> String {
    let panels: Vec<&SignalReport> = c.signals.iter().collect();
    let (w, panel_h, left, head) = (760.0, 175.0, 150.0, 58.0);
    let h = head + panel_h * panels.len() as f64 + 2.0 * super::plots::PANEL_H + 10.0;
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"sans-serif\" font-size=\"12\">\n<title>Calibration of {0}: answerable vs unanswerable golden questions</title>\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n<text x=\"10\" y=\"20\" font-size=\"15\" font-weight=\"bold\">Calibration: {0}{1}</text>\n<text x=\"10\" y=\"34\" fill=\"#555\">One dot per golden question: the best expected passage's score (answerable) or the best score of anything (unanswerable).</text>\n<text x=\"10\" y=\"48\" fill=\"#555\">A number above a dot counts questions at the same score.</text>\n",
        xml_escape(&c.model_id),
        c.reranker.as_deref().map(|r| format!(" + reranker {}", xml_escape(r))).unwrap_or_default()
    );
    for (p, r) in panels.iter().enumerate() {
        let top = head + p as f64 * panel_h;
        let values: Vec<f64> = r.answerable.iter().chain(&r.unanswerable).filter_map(|q| q.score).collect();
        let threshold = match r.signal {
            Signal::Rerank => c.proposal.rerank,
            Signal::VectorZ => c.proposal.vector_z,
            Signal::KeywordCoverage => c.proposal.keyword_coverage,
            Signal::Cosine => None,
        };
        let lo = values.iter().copied().chain(threshold).fold(f64::INFINITY, f64::min);
        let hi = values.iter().copied().chain(threshold).fold(f64::NEG_INFINITY, f64::max);
        let (lo, hi) = if lo.is_finite() && hi > lo { (lo, hi) } else { (0.0, 1.0) };
        let ticks = nice_ticks(lo, hi);
        let (lo, hi) = (ticks[0].min(lo), ticks[ticks.len() - 1].max(hi));
        let x = |v: f64| left + (v - lo) / (hi - lo) * (w - left - 30.0);
        let _ = writeln!(s, "<text x=\"10\" y=\"{}\" font-weight=\"bold\">{}</text>", top + 14.0, r.signal.name());
        let rows = [
            ("answerable", &r.answerable, "#1f77b4", top + 55.0),
            ("unanswerable", &r.unanswerable, "#d62728", top + 100.0),
        ];
        for (label, qs, colour, y) in rows {
            let _ = writeln!(s, "<text x=\"10\" y=\"{}\">{label} ({})</text>", y + 4.0, qs.len());
            let _ = writeln!(s, "<line x1=\"{left}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\" stroke=\"#ddd\"/>", w - 30.0);
            // Questions at the same score (to the plotted pixel) are one dot with a count.
            let mut groups: Vec<(f64, Vec<&str>)> = vec![];
            for q in qs.iter() {
                if let Some(v) = q.score {
                    match groups.iter_mut().find(|(g, _)| (x(*g) - x(v)).abs() < 0.5) {
                        Some((_, ids)) => ids.push(&q.id),
                        None => groups.push((v, vec![&q.id])),
                    }
                }
            }
            for (i, (v, ids)) in groups.iter().enumerate() {
                let jitter = ((i * 7) % 9) as f64 - 4.0;
                let r_dot = if ids.len() > 1 { 5.0 } else { 4.0 };
                let _ = writeln!(
                    s,
                    "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"{r_dot}\" fill=\"{colour}\" fill-opacity=\"0.6\"><title>{}: {v:.4}</title></circle>",
                    x(*v),
                    y + jitter * 2.0,
                    xml_escape(&ids.join(", "))
                );
                if ids.len() > 1 {
                    let _ = writeln!(
                        s,
                        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"10\">{}</text>",
                        x(*v),
                        y + jitter * 2.0 - 8.0,
                        ids.len()
                    );
                }
            }
        }
        let axis_y = top + 125.0;
        let _ =
            writeln!(s, "<line x1=\"{left}\" y1=\"{axis_y}\" x2=\"{}\" y2=\"{axis_y}\" stroke=\"black\"/>", w - 30.0);
        for t in &ticks {
            let _ = writeln!(
                s,
                "<line x1=\"{0:.1}\" y1=\"{axis_y}\" x2=\"{0:.1}\" y2=\"{1}\" stroke=\"black\"/><text x=\"{0:.1}\" y=\"{2}\" text-anchor=\"middle\">{3}</text>",
                x(*t),
                axis_y + 4.0,
                axis_y + 16.0,
                tick_label(*t)
            );
        }
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\" fill=\"#333\">{} ({})</text>",
            (left + w - 30.0) / 2.0,
            axis_y + 32.0,
            r.signal.name(),
            axis_unit(r.signal)
        );
        if let Some(t) = threshold {
            let anchor = if x(t) > w - 120.0 {
                "end"
            } else if x(t) < left + 60.0 {
                "start"
            } else {
                "middle"
            };
            let _ = writeln!(
                s,
                "<line x1=\"{0:.1}\" y1=\"{1}\" x2=\"{0:.1}\" y2=\"{2}\" stroke=\"black\" stroke-dasharray=\"4 3\"/><text x=\"{0:.1}\" y=\"{3}\" text-anchor=\"{anchor}\">threshold {t:.4}</text>",
                x(t),
                top + 30.0,
                axis_y,
                top + 26.0
            );
        }
    }
    s.push_str(&super::plots::panels(c, head + panel_h * panels.len() as f64, w));
    s.push_str("</svg>\n");
    s
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

fn axis_unit(signal: Signal) -> &'static str {
    match signal {
        Signal::Rerank => "sigmoid of the cross-encoder logit, 0..1",
        Signal::VectorZ => "z-score of the cosine among the scoped chunks",
        Signal::KeywordCoverage => "IDF-weighted share of question terms, 0..1",
        Signal::Cosine => "cosine similarity",
    }
}

/// Round tick values (1, 2 or 5 × 10^k steps) covering `[lo, hi]`, 3 to 7 of them.
pub fn nice_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let span = (hi - lo).max(1e-9);
    let raw = span / 5.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * mag).find(|s| span / s <= 6.0).unwrap_or(10.0 * mag);
    let start = (lo / step).floor() * step;
    let mut out = vec![];
    let mut k = (start / step).round();
    // From the step at or below lo to the first step at or above hi.
    loop {
        let t = k * step;
        out.push(t);
        if t >= hi - 1e-9 * step || out.len() >= 12 {
            break;
        }
        k += 1.0;
    }
    out
}

pub(super) fn tick_label(v: f64) -> String {
    let s = format!("{v:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".into()
    } else {
        s.to_owned()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round() {
        let labels = |lo, hi| nice_ticks(lo, hi).into_iter().map(tick_label).collect::<Vec<_>>();
        assert_eq!(labels(0.0, 1.0), ["0", "0.2", "0.4", "0.6", "0.8", "1"]);
        assert_eq!(labels(1.003, 8.7), ["0", "2", "4", "6", "8", "10"]);
        assert_eq!(tick_label(0.30000000000000004), "0.3");
        assert_eq!(tick_label(-0.0), "0");
    }
}
