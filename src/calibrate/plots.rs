//! Two more panels of the calibration picture: precision, recall and the
//! false-positive share against the threshold (from the sweep of the signal
//! the proposal rests on), and the guarantee curve (the 95% bound on the
//! false-positive rate when none of `n` unanswerable questions gets a
//! passage, against `n`, for one threshold and for the fused rule's two
//! routes). Drawn by hand as SVG, every label inside the picture.

use std::fmt::Write as _;

use super::bounds::upper_bound;
use super::report::nice_ticks;
use super::{Calibration, Signal};

/// Height of each panel, pixels.
pub(super) const PANEL_H: f64 = 250.0;

fn axis_frame(s: &mut String, x0: f64, x1: f64, y0: f64, y1: f64) {
    let _ = writeln!(
        s,
        "<line x1=\"{x0}\" y1=\"{y1}\" x2=\"{x1}\" y2=\"{y1}\" stroke=\"black\"/><line x1=\"{x0}\" y1=\"{y0}\" x2=\"{x0}\" y2=\"{y1}\" stroke=\"black\"/>"
    );
    for (i, v) in [0.0, 0.25, 0.5, 0.75, 1.0].iter().enumerate() {
        let y = y1 - v * (y1 - y0);
        let _ = writeln!(
            s,
            "<line x1=\"{}\" y1=\"{y:.1}\" x2=\"{x0}\" y2=\"{y:.1}\" stroke=\"black\"/><text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{}%</text>",
            x0 - 4.0,
            x0 - 6.0,
            y + 4.0,
            i * 25
        );
    }
}

fn polyline(s: &mut String, points: &[(f64, f64)], colour: &str, dash: &str) {
    let pts: Vec<String> = points.iter().map(|(x, y)| format!("{x:.1},{y:.1}")).collect();
    let _ = writeln!(
        s,
        "<polyline points=\"{}\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\"{dash}/>",
        pts.join(" ")
    );
}

/// The two panels starting at `top` in a picture `w` wide.
pub(super) fn panels(c: &Calibration, top: f64, w: f64) -> String {
    let mut s = String::new();
    let (x0, x1) = (80.0, w - 30.0);
    // Panel 1: the sweep of the signal the proposal rests on.
    let main = if c.reranker.is_some() { Signal::Rerank } else { Signal::KeywordCoverage };
    if let Some(r) = c.signals.iter().find(|r| r.signal == main).filter(|r| r.sweep.len() > 1) {
        let (y0, y1) = (top + 40.0, top + PANEL_H - 55.0);
        let _ = writeln!(
            s,
            "<text x=\"10\" y=\"{}\" font-weight=\"bold\">{}: recall, precision and false positives against the threshold</text>",
            top + 16.0,
            r.signal.name()
        );
        let lo = r.sweep.first().map_or(0.0, |x| x.threshold);
        let hi = r.sweep.last().map_or(1.0, |x| x.threshold);
        let ticks = nice_ticks(lo, hi.max(lo + 1e-9));
        let (lo, hi) = (ticks[0].min(lo), ticks[ticks.len() - 1].max(hi));
        let x = |v: f64| x0 + (v - lo) / (hi - lo) * (x1 - x0);
        let y = |v: f64| y1 - v * (y1 - y0);
        axis_frame(&mut s, x0, x1, y0, y1);
        for t in &ticks {
            let _ = writeln!(
                s,
                "<line x1=\"{0:.1}\" y1=\"{y1}\" x2=\"{0:.1}\" y2=\"{1}\" stroke=\"black\"/><text x=\"{0:.1}\" y=\"{2}\" text-anchor=\"middle\">{3}</text>",
                x(*t),
                y1 + 4.0,
                y1 + 17.0,
                super::report::tick_label(*t)
            );
        }
        let n_un = r.unanswerable.len().max(1) as f64;
        let recall: Vec<(f64, f64)> = r.sweep.iter().map(|p| (x(p.threshold), y(p.recall_at_5))).collect();
        let precision: Vec<(f64, f64)> = r.sweep.iter().map(|p| (x(p.threshold), y(p.precision))).collect();
        let fp: Vec<(f64, f64)> =
            r.sweep.iter().map(|p| (x(p.threshold), y(p.false_positives as f64 / n_un))).collect();
        polyline(&mut s, &recall, "#1f77b4", "");
        polyline(&mut s, &precision, "#2ca02c", " stroke-dasharray=\"6 3\"");
        polyline(&mut s, &fp, "#d62728", "");
        if let Some(t) = r.applied.filter(|t| *t >= lo && *t <= hi) {
            let _ = writeln!(
                s,
                "<line x1=\"{0:.1}\" y1=\"{y0}\" x2=\"{0:.1}\" y2=\"{y1}\" stroke=\"black\" stroke-dasharray=\"4 3\"/>",
                x(t)
            );
        }
        let legend = [
            ("#1f77b4", "recall@5 (answerable)"),
            ("#2ca02c", "precision"),
            ("#d62728", "unanswerable returning passages"),
            ("black", "threshold in the proposal (dashed)"),
        ];
        for (i, (colour, label)) in legend.iter().enumerate() {
            let lx = x0 + 10.0 + (i % 2) as f64 * 300.0;
            let ly = y1 + 34.0 + (i / 2) as f64 * 14.0;
            let _ = writeln!(
                s,
                "<rect x=\"{lx}\" y=\"{}\" width=\"12\" height=\"4\" fill=\"{colour}\"/><text x=\"{}\" y=\"{ly}\">{label}</text>",
                ly - 5.0,
                lx + 16.0
            );
        }
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\" fill=\"#333\" transform=\"rotate(-90 {:.1} {})\">share of questions</text>",
            18.0,
            (y0 + y1) / 2.0,
            18.0,
            (y0 + y1) / 2.0
        );
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{}\" text-anchor=\"end\" fill=\"#333\">{} threshold</text>",
            x1,
            y0 - 6.0,
            r.signal.name()
        );
    }
    // Panel 2: the guarantee curve.
    let top = top + PANEL_H;
    let (y0, y1) = (top + 40.0, top + PANEL_H - 55.0);
    let n_max = 200u64.max(c.unanswerable as u64 + 20);
    let ticks = nice_ticks(0.0, n_max as f64);
    let hi = ticks[ticks.len() - 1];
    let x = |v: f64| x0 + v / hi * (x1 - x0);
    let y = |v: f64| y1 - v.clamp(0.0, 1.0) * (y1 - y0);
    let _ = writeln!(
        s,
        "<text x=\"10\" y=\"{}\" font-weight=\"bold\">Guarantee: 95% bound on the false-positive rate when no unanswerable question gets a passage</text>",
        top + 16.0
    );
    axis_frame(&mut s, x0, x1, y0, y1);
    for t in &ticks {
        let _ = writeln!(
            s,
            "<line x1=\"{0:.1}\" y1=\"{y1}\" x2=\"{0:.1}\" y2=\"{1}\" stroke=\"black\"/><text x=\"{0:.1}\" y=\"{2}\" text-anchor=\"middle\">{3}</text>",
            x(*t),
            y1 + 4.0,
            y1 + 17.0,
            super::report::tick_label(*t)
        );
    }
    let one: Vec<(f64, f64)> = (1..=hi as u64).map(|n| (x(n as f64), y(upper_bound(0, n, 0.95)))).collect();
    let two: Vec<(f64, f64)> = (1..=hi as u64).map(|n| (x(n as f64), y(2.0 * upper_bound(0, n, 0.975)))).collect();
    polyline(&mut s, &one, "#1f77b4", "");
    polyline(&mut s, &two, "#9467bd", " stroke-dasharray=\"6 3\"");
    let _ = writeln!(
        s,
        "<line x1=\"{x0}\" y1=\"{0:.1}\" x2=\"{x1}\" y2=\"{0:.1}\" stroke=\"#888\" stroke-dasharray=\"2 2\"/><text x=\"{1}\" y=\"{2:.1}\" text-anchor=\"end\" fill=\"#555\">5%</text>",
        y(0.05),
        x1,
        y(0.05) - 4.0
    );
    if let Some(k) = &c.carried {
        let (cx, cy) = (x(k.unanswerable as f64), y(k.max_false_positive_rate));
        let (tx, anchor) = if cx > (x0 + x1) / 2.0 { (cx - 8.0, "end") } else { (cx + 8.0, "start") };
        let _ = writeln!(
            s,
            "<circle cx=\"{cx:.1}\" cy=\"{cy:.1}\" r=\"5\" fill=\"#d62728\"/><text x=\"{tx:.1}\" y=\"{:.1}\" text-anchor=\"{anchor}\">this golden set: n = {}, at most {:.1}%</text>",
            (cy - 6.0).max(y0 + 10.0),
            k.unanswerable,
            k.max_false_positive_rate * 100.0
        );
    }
    let legend = [
        ("#1f77b4", "one threshold (reranker, or --max-false-positive-rate): 1 − 0.05^(1/n)"),
        ("#9467bd", "the fused rule's two routes, each at 97.5%, added (dashed)"),
    ];
    for (i, (colour, label)) in legend.iter().enumerate() {
        let ly = y1 + 34.0 + i as f64 * 14.0;
        let _ = writeln!(
            s,
            "<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"4\" fill=\"{colour}\"/><text x=\"{}\" y=\"{ly}\">{label}</text>",
            x0 + 10.0,
            ly - 5.0,
            x0 + 26.0
        );
    }
    let _ = writeln!(
        s,
        "<text x=\"18\" y=\"{0}\" text-anchor=\"middle\" fill=\"#333\" transform=\"rotate(-90 18 {0})\">false-positive rate bound</text>",
        (y0 + y1) / 2.0
    );
    let _ = writeln!(
        s,
        "<text x=\"{x1}\" y=\"{}\" text-anchor=\"end\" fill=\"#333\">unanswerable golden questions (n)</text>",
        y0 - 6.0
    );
    s
}
