//! The statistical sections of the calibration report: exact intervals at
//! the proposal, the guarantee it carries, the guaranteed threshold when
//! asked for, rank metrics and bootstrap stability per signal, and what to
//! try next.

use std::fmt::Write as _;

use super::bounds::Interval;
use super::guarantee::{Carried, Family, Guaranteed};
use super::Calibration;

/// `46/52 = 88.5% (95% CI 76.6–95.6%)`.
pub(super) fn interval(i: &Interval) -> String {
    format!("{}/{} = {:.1}% (95% CI {:.1}–{:.1}%)", i.k, i.n, i.rate * 100.0, i.lower * 100.0, i.upper * 100.0)
}

fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

fn carried_sentence(c: &Carried) -> String {
    let form = if c.method == "two routes" {
        "The fused rule's two thresholds were set separately, so each route (keyword coverage, vector z) is bounded on its own at half the risk and the two rates are added. "
    } else {
        ""
    };
    let how = if c.exact {
        format!(
            "it lets none of the {} unanswerable questions through, so this holds however the threshold was chosen",
            c.unanswerable
        )
    } else {
        format!(
            "it lets {} of {} unanswerable questions through; the bound assumes the threshold was fixed before looking at them",
            c.admitted, c.unanswerable
        )
    };
    format!(
        "{form}With {:.0}% confidence, at most **{}** of unanswerable questions like these get a passage ({how}; the golden questions must be representative of real ones).",
        c.confidence * 100.0,
        pct(c.max_false_positive_rate)
    )
}

fn style_table(s: &mut String, rows: &[super::StyleFigures]) {
    let _ = writeln!(
        s,
        "| style | recall@5 | unanswerable returning passages | misses | false positives |\n|---|---|---|---|---|"
    );
    let ids = |v: &[String]| {
        if v.is_empty() {
            "—".to_string()
        } else {
            v.iter().map(|i| format!("`{i}`")).collect::<Vec<_>>().join(", ")
        }
    };
    for f in rows {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} |",
            f.style.as_str(),
            interval(&f.recall_at_5),
            interval(&f.false_positives),
            ids(&f.misses),
            ids(&f.false_positive_ids)
        );
    }
    s.push('\n');
}

fn family_words(f: &Family) -> String {
    match f {
        Family::Rerank => "the reranker threshold".into(),
        Family::Fused { keyword_coverage_ref, vector_z_ref } => format!(
            "both fused thresholds scaled together, keyword coverage ≥ λ·{keyword_coverage_ref:.4} or vector z ≥ λ·{vector_z_ref:.4} (the reference values are the answerable questions' medians, so the family does not depend on the unanswerable questions)"
        ),
    }
}

fn guaranteed_section(s: &mut String, g: &Guaranteed) {
    let _ = writeln!(
        s,
        "## Threshold with a guarantee: at most {} false positives at {:.0}% confidence\n",
        pct(g.alpha),
        g.confidence * 100.0
    );
    let _ = writeln!(s, "Chosen by the PAC conformal rule on {}.\n", family_words(&g.family));
    match (&g.thresholds, g.allowance) {
        (Some(t), Some(k)) => {
            let _ = writeln!(
                s,
                "The rule may let {k} of the {} unanswerable questions through. Thresholds:\n\n```json\n{}\n```\n",
                g.unanswerable,
                serde_json::to_string_pretty(t).unwrap_or_default()
            );
            if let Some(r) = &g.recall_at_5 {
                let _ = writeln!(
                    s,
                    "- Recall it leaves: {} answerable questions with an expected chunk in the top 5.",
                    interval(r)
                );
            }
            if let Some(f) = &g.false_positives {
                let _ = writeln!(s, "- Unanswerable questions getting a passage at these thresholds: {}.", interval(f));
            }
        }
        _ => {
            let _ = writeln!(
                s,
                "**Not possible with this golden set.** With {} unanswerable questions no threshold can promise this: even one that lets none of them through only shows a rate of at most {} at this confidence.\n",
                g.unanswerable,
                pct(super::bounds::upper_bound(0, g.unanswerable, g.confidence))
            );
        }
    }
    if let Some(n) = g.unanswerable_needed {
        let _ = writeln!(
            s,
            "- Golden-set size for this guarantee: at least **{n} unanswerable questions**, none of which gets a passage (more if some may)."
        );
    }
    if let Some(n) = g.answerable_needed {
        let _ = writeln!(s, "- Answerable questions to know the recall left to ±5 points (95%): about {n}.");
    }
    s.push('\n');
}

/// The statistics right after the proposal.
pub(super) fn proposal_statistics(s: &mut String, c: &Calibration) {
    if let (Some(r), Some(f)) = (&c.recall_interval, &c.false_positive_interval) {
        let _ = writeln!(
            s,
            "Exact (Clopper–Pearson) 95% intervals under the proposed rule:\n\n- recall@5 on answerable questions: {}\n- unanswerable questions returning passages: {}\n",
            interval(r),
            interval(f)
        );
    }
    if c.per_style.len() > 1 {
        let _ = writeln!(s, "By question style, under the proposed rule:\n");
        style_table(s, &c.per_style);
        if let Some(p) = &c.in_force {
            let _ = writeln!(
                s,
                "By question style, at the thresholds in force when this ran (`{}`):\n",
                serde_json::to_string(p).unwrap_or_default()
            );
            style_table(s, &c.per_style_in_force);
        }
    }
    if let Some(carried) = &c.carried {
        let _ = writeln!(s, "**Guarantee.** {}", carried_sentence(carried));
        if let Some(n) = c.unanswerable_needed_5_95 {
            let _ = writeln!(
                s,
                "To show \"at most 5% false positives at 95% confidence\" for a rule of this form, the golden set needs at least **{n} unanswerable questions** with none getting a passage (it has {}). A single threshold chosen by `inquiry calibrate --max-false-positive-rate 0.05 --confidence 0.95` needs {}.\n",
                c.unanswerable,
                super::bounds::questions_needed(0.05, 0.05, 0).unwrap_or(59)
            );
        }
    }
    if let Some(g) = &c.guaranteed {
        guaranteed_section(s, g);
    }
    if !c.next_steps.is_empty() {
        let _ = writeln!(s, "## What to try next\n");
        for step in &c.next_steps {
            let _ = writeln!(s, "- {step}");
        }
        s.push('\n');
    }
}

/// The per-signal rank metrics and stability table.
pub(super) fn signal_statistics(s: &mut String, c: &Calibration) {
    let _ = writeln!(
        s,
        "\n## Rank metrics and stability\n\nRanks are by each signal alone over a question's candidates, before any threshold. recall@k with exact 95% intervals; MRR and nDCG@5 with percentile-bootstrap 95% intervals (2,000 draws). Stability: the signal's own threshold over 2,000 stratified bootstrap draws of the golden set; the margin in units of its standard deviation.\n\n| signal | recall@1 | recall@5 | MRR | nDCG@5 | threshold (bootstrap 95%) | margin / sd | draws separating |\n|---|---|---|---|---|---|---|---|"
    );
    for r in &c.signals {
        let Some(m) = &r.rank else { continue };
        let est = |e: &super::rank::Estimate| format!("{:.3} ({:.3}–{:.3})", e.value, e.lower, e.upper);
        let cp = |i: &Interval| format!("{}/{} ({:.0}–{:.0}%)", i.k, i.n, i.lower * 100.0, i.upper * 100.0);
        let (stab, margin, share) = match &r.stability {
            Some(st) => (
                format!("{:.4} ({:.4}–{:.4})", st.median, st.lower, st.upper),
                st.margin_in_sd.map_or_else(|| "—".into(), |x| format!("{x:.2}")),
                pct(st.separated_share),
            ),
            None => ("—".into(), "—".into(), "—".into()),
        };
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {stab} | {margin} | {share} |",
            r.signal.name(),
            cp(&m.recall_at_1),
            cp(&m.recall_at_5),
            est(&m.mrr),
            est(&m.ndcg_at_5)
        );
    }
}

/// The lines `calibrate` prints on stderr after the table.
pub(super) fn terminal_lines(c: &Calibration) -> String {
    let mut s = String::new();
    if let (Some(r), Some(f)) = (&c.recall_interval, &c.false_positive_interval) {
        let _ = writeln!(s, "recall@5 {}; false positives {}", interval(r), interval(f));
    }
    if c.per_style.len() > 1 {
        for f in &c.per_style_in_force {
            let _ = writeln!(
                s,
                "{} (thresholds in force): recall@5 {}; false positives {}",
                f.style.as_str(),
                interval(&f.recall_at_5),
                interval(&f.false_positives)
            );
        }
        for f in &c.per_style {
            let _ = writeln!(
                s,
                "{}: recall@5 {}; false positives {}",
                f.style.as_str(),
                interval(&f.recall_at_5),
                interval(&f.false_positives)
            );
        }
    }
    if let Some(k) = &c.carried {
        let _ = writeln!(
            s,
            "guarantee: with {:.0}% confidence at most {} of unanswerable questions get a passage{}; \"≤ 5% at 95%\" needs {} unanswerable questions (have {})",
            k.confidence * 100.0,
            pct(k.max_false_positive_rate),
            if k.exact { "" } else { " (if the threshold was fixed in advance)" },
            c.unanswerable_needed_5_95.unwrap_or(0),
            c.unanswerable
        );
    }
    if let Some(g) = &c.guaranteed {
        match &g.thresholds {
            Some(t) => {
                let _ = writeln!(
                    s,
                    "guaranteed (≤ {} at {:.0}%): {} — recall@5 {}",
                    pct(g.alpha),
                    g.confidence * 100.0,
                    serde_json::to_string(t).unwrap_or_default(),
                    g.recall_at_5.as_ref().map(interval).unwrap_or_default()
                );
            }
            None => {
                let _ = writeln!(
                    s,
                    "guaranteed (≤ {} at {:.0}%): not possible with {} unanswerable questions; needs at least {}",
                    pct(g.alpha),
                    g.confidence * 100.0,
                    g.unanswerable,
                    g.unanswerable_needed.map_or_else(|| "?".into(), |n| n.to_string())
                );
            }
        }
    }
    for step in &c.next_steps {
        let _ = writeln!(s, "try next: {step}");
    }
    s
}
