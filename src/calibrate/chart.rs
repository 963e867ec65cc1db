//! The calibration picture (`report.svg`, inline on `report.html`), drawn
//! with `plotters` (SVG backend). Text is laid out with the metrics of the
//! font the build ships (`assets/fonts/DejaVuSans-subset.ttf`, a Latin
//! subset of DejaVu Sans, registered through plotters' `ab_glyph` backend),
//! and the SVG names that family, so what is measured is what a browser with
//! DejaVu Sans draws.
//!
//! Panels, top to bottom: one strip plot per signal (each golden question's
//! score, answerable and unanswerable on their own rows, the threshold in
//! force as a dashed line); recall@5, precision and the false-positive share
//! against the threshold of the signal the proposal rests on; the guarantee
//! curve (the 95% bound on the false-positive rate when none of `n`
//! unanswerable questions gets a passage, for one threshold and for the fused
//! rule's two routes, with this golden set marked).

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::FontStyle;

use super::bounds::upper_bound;
use super::{Calibration, Signal, SignalReport};

/// The font family the picture is laid out with and names.
pub const FONT: &str = "DejaVu Sans";
static FONT_BYTES: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans-subset.ttf");

const WIDTH: u32 = 900;
const HEAD: u32 = 70;
const STRIP_H: u32 = 210;
const PANEL_H: u32 = 320;
const BLUE: RGBColor = RGBColor(0x1f, 0x77, 0xb4);
const RED: RGBColor = RGBColor(0xd6, 0x27, 0x28);
const GREEN: RGBColor = RGBColor(0x2c, 0xa0, 0x2c);
const PURPLE: RGBColor = RGBColor(0x94, 0x67, 0xbd);
const GREY: RGBColor = RGBColor(0x55, 0x55, 0x55);

/// Drawing the picture failed (the shipped font did not load, or plotters
/// reported an error).
#[derive(Debug, thiserror::Error)]
#[error("drawing the calibration picture: {0}")]
pub struct ChartError(String);

fn err(e: impl std::fmt::Display) -> ChartError {
    ChartError(e.to_string())
}

fn register_font() -> Result<(), ChartError> {
    static DONE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    let ok = *DONE.get_or_init(|| {
        plotters::style::register_font(FONT, FontStyle::Normal, FONT_BYTES).is_ok()
            && plotters::style::register_font(FONT, FontStyle::Bold, FONT_BYTES).is_ok()
    });
    if ok {
        Ok(())
    } else {
        Err(ChartError("the shipped font assets/fonts/DejaVuSans-subset.ttf did not load".into()))
    }
}

/// What a signal's axis measures.
pub fn axis_unit(signal: Signal) -> &'static str {
    match signal {
        Signal::Rerank => "sigmoid of the cross-encoder logit, 0..1",
        Signal::VectorZ => "z-score of the cosine among the scoped chunks",
        Signal::KeywordCoverage => "IDF-weighted share of question terms, 0..1",
        Signal::Cosine => "cosine similarity",
    }
}

fn text(size: u32) -> TextStyle<'static> {
    (FONT, size).into_font().color(&BLACK)
}

fn percent(v: &f64) -> String {
    format!("{:.0}%", v * 100.0)
}

/// The whole picture as an SVG document.
///
/// # Errors
/// [`ChartError`] when the font does not load or plotters fails.
pub fn render_svg(c: &Calibration) -> Result<String, ChartError> {
    register_font()?;
    let strips = c.signals.len() as u32;
    let height = HEAD + STRIP_H * strips + 2 * PANEL_H;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let reranker = c.reranker.as_deref().map(|r| format!(" + reranker {r}")).unwrap_or_default();
        root.draw_text(&format!("Calibration: {}{reranker}", c.model_id), &text(18), (10, 8)).map_err(err)?;
        root.draw_text(
            "One dot per golden question: the best expected passage's score (answerable), or the best score of anything (unanswerable).",
            &text(12).color(&GREY),
            (10, 34),
        )
        .map_err(err)?;
        root.draw_text(
            "A number beside a dot counts the questions at that score; the dashed line is the threshold in the proposal.",
            &text(12).color(&GREY),
            (10, 50),
        )
        .map_err(err)?;
        let (_, body) = root.split_vertically(HEAD);
        let (strip_area, rest) = body.split_vertically(STRIP_H * strips);
        for (area, r) in strip_area.split_evenly((strips as usize, 1)).iter().zip(&c.signals) {
            strip(area, c, r)?;
        }
        let (sweep_area, guarantee_area) = rest.split_vertically(PANEL_H);
        sweep(&sweep_area, c)?;
        guarantee(&guarantee_area, c)?;
        root.present().map_err(err)?;
    }
    // An accessible name for the picture, as the first child of <svg>.
    let title =
        format!("<title>Calibration of {}: answerable vs unanswerable golden questions</title>", escape(&c.model_id));
    if let Some(end) = svg.find('>') {
        svg.insert_str(end + 1, &format!("\n{title}"));
    }
    Ok(svg)
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// The threshold the proposal writes for a signal.
fn threshold(c: &Calibration, signal: Signal) -> Option<f64> {
    match signal {
        Signal::Rerank => c.proposal.rerank,
        Signal::VectorZ => c.proposal.vector_z,
        Signal::KeywordCoverage => c.proposal.keyword_coverage,
        Signal::Cosine => None,
    }
}

/// `[lo, hi]` of some values with a 5% pad, `[0, 1]` when they do not spread.
fn range(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(v), b.max(v)));
    if lo.is_finite() && hi > lo {
        let pad = (hi - lo) * 0.05;
        (lo - pad, hi + pad)
    } else if lo.is_finite() {
        (lo - 0.5, lo + 0.5)
    } else {
        (0.0, 1.0)
    }
}

type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;

/// A labelled line: legend text, colour, points.
type Line<'a> = (&'a str, RGBColor, Vec<(f64, f64)>);

fn strip(area: &Area<'_>, c: &Calibration, r: &SignalReport) -> Result<(), ChartError> {
    let t = threshold(c, r.signal);
    let (lo, hi) = range(r.answerable.iter().chain(&r.unanswerable).filter_map(|q| q.score).chain(t));
    let (na, nu) = (r.answerable.len(), r.unanswerable.len());
    let mut chart = ChartBuilder::on(area)
        .caption(format!("{}: each question's score", r.signal.name()), text(14))
        .margin(8)
        .margin_right(24)
        .x_label_area_size(44)
        .y_label_area_size(150)
        .build_cartesian_2d(lo..hi, 0.0..3.0)
        .map_err(err)?;
    let row = move |v: &f64| {
        if (v - 2.0).abs() < 1e-9 {
            format!("answerable ({na})")
        } else if (v - 1.0).abs() < 1e-9 {
            format!("unanswerable ({nu})")
        } else {
            String::new()
        }
    };
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(7)
        .y_label_formatter(&row)
        .x_labels(8)
        .x_desc(format!("{} ({})", r.signal.name(), axis_unit(r.signal)))
        .y_desc("golden question")
        .label_style(text(12))
        .axis_desc_style(text(12))
        .draw()
        .map_err(err)?;
    let x_of = |v: f64| (v - lo) / (hi - lo) * f64::from(WIDTH);
    for (qs, y, colour) in [(&r.answerable, 2.0, BLUE), (&r.unanswerable, 1.0, RED)] {
        // Questions at the same score (to the pixel) are one dot with a count.
        let mut groups: Vec<(f64, usize)> = vec![];
        for v in qs.iter().filter_map(|q| q.score) {
            match groups.iter_mut().find(|(g, _)| (x_of(*g) - x_of(v)).abs() < 1.0) {
                Some((_, n)) => *n += 1,
                None => groups.push((v, 1)),
            }
        }
        let jitter = |i: usize| ((i * 7) % 9) as f64 / 8.0 * 0.5 - 0.25;
        chart
            .draw_series(
                groups
                    .iter()
                    .enumerate()
                    .map(|(i, (v, _))| Circle::new((*v, y + jitter(i)), 4, colour.mix(0.6).filled())),
            )
            .map_err(err)?;
        chart
            .draw_series(groups.iter().enumerate().filter(|(_, (_, n))| *n > 1).map(|(i, (v, n))| {
                Text::new(n.to_string(), (*v, y + jitter(i) + 0.32), text(10).pos(Pos::new(HPos::Center, VPos::Bottom)))
            }))
            .map_err(err)?;
    }
    if let Some(t) = t {
        chart.draw_series(DashedLineSeries::new([(t, 0.2), (t, 2.8)], 5, 4, BLACK.stroke_width(1))).map_err(err)?;
        let right = t > lo + (hi - lo) * 0.7;
        let anchor = if right { HPos::Right } else { HPos::Left };
        let dx = if right { -0.004 } else { 0.004 } * (hi - lo);
        chart
            .draw_series(std::iter::once(Text::new(
                format!("threshold {t:.4}"),
                (t + dx, 2.75),
                text(11).pos(Pos::new(anchor, VPos::Top)),
            )))
            .map_err(err)?;
    }
    Ok(())
}

fn sweep(area: &Area<'_>, c: &Calibration) -> Result<(), ChartError> {
    let main = if c.reranker.is_some() { Signal::Rerank } else { Signal::KeywordCoverage };
    let Some(r) = c.signals.iter().find(|r| r.signal == main).filter(|r| r.sweep.len() > 1) else {
        area.draw_text("Threshold sweep: fewer than two distinct scores, nothing to draw.", &text(13), (10, 10))
            .map_err(err)?;
        return Ok(());
    };
    let (lo, hi) = range(r.sweep.iter().map(|p| p.threshold).chain(r.applied));
    let n_un = r.unanswerable.len().max(1) as f64;
    let mut chart = ChartBuilder::on(area)
        .caption(format!("{}: recall, precision and false positives against the threshold", r.signal.name()), text(14))
        .margin(8)
        .margin_right(24)
        .x_label_area_size(44)
        .y_label_area_size(70)
        .build_cartesian_2d(lo..hi, 0.0..1.05)
        .map_err(err)?;
    chart
        .configure_mesh()
        .y_label_formatter(&percent)
        .x_desc(format!("{} threshold ({})", r.signal.name(), axis_unit(r.signal)))
        .y_desc("share of questions")
        .label_style(text(12))
        .axis_desc_style(text(12))
        .draw()
        .map_err(err)?;
    let series: [Line<'_>; 3] = [
        ("recall@5 (answerable questions)", BLUE, r.sweep.iter().map(|p| (p.threshold, p.recall_at_5)).collect()),
        ("precision", GREEN, r.sweep.iter().map(|p| (p.threshold, p.precision)).collect()),
        (
            "unanswerable questions returning passages",
            RED,
            r.sweep.iter().map(|p| (p.threshold, p.false_positives as f64 / n_un)).collect(),
        ),
    ];
    for (label, colour, points) in series {
        chart
            .draw_series(LineSeries::new(points, colour.stroke_width(2)))
            .map_err(err)?
            .label(label)
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 16, y)], colour.stroke_width(2)));
    }
    if let Some(t) = r.applied {
        chart
            .draw_series(DashedLineSeries::new([(t, 0.0), (t, 1.05)], 5, 4, BLACK.stroke_width(1)))
            .map_err(err)?
            .label(format!("threshold in the proposal ({t:.4})"))
            .legend(|(x, y)| PathElement::new([(x, y), (x + 16, y)], BLACK.stroke_width(1)));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::MiddleRight)
        .background_style(WHITE.mix(0.85))
        .border_style(GREY)
        .label_font(text(11))
        .draw()
        .map_err(err)?;
    Ok(())
}

fn guarantee(area: &Area<'_>, c: &Calibration) -> Result<(), ChartError> {
    let n_max = 200u64.max(c.unanswerable as u64 + 20);
    let mut chart = ChartBuilder::on(area)
        .caption(
            "Guarantee: 95% bound on the false-positive rate when no unanswerable question gets a passage",
            text(14),
        )
        .margin(8)
        .margin_right(24)
        .x_label_area_size(44)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..n_max as f64, 0.0..1.0)
        .map_err(err)?;
    chart
        .configure_mesh()
        .y_label_formatter(&percent)
        .x_label_formatter(&|v| format!("{v:.0}"))
        .x_desc("unanswerable golden questions (n)")
        .y_desc("false-positive rate bound")
        .label_style(text(12))
        .axis_desc_style(text(12))
        .draw()
        .map_err(err)?;
    let one: Vec<(f64, f64)> = (1..=n_max).map(|n| (n as f64, upper_bound(0, n, 0.95))).collect();
    let two: Vec<(f64, f64)> = (1..=n_max).map(|n| (n as f64, (2.0 * upper_bound(0, n, 0.975)).min(1.0))).collect();
    chart
        .draw_series(LineSeries::new(one, BLUE.stroke_width(2)))
        .map_err(err)?
        .label("one threshold (reranker, or --max-false-positive-rate): 1 − 0.05^(1/n)")
        .legend(|(x, y)| PathElement::new([(x, y), (x + 16, y)], BLUE.stroke_width(2)));
    chart
        .draw_series(LineSeries::new(two, PURPLE.stroke_width(2)))
        .map_err(err)?
        .label("the fused rule's two routes, each bounded at 97.5%, added")
        .legend(|(x, y)| PathElement::new([(x, y), (x + 16, y)], PURPLE.stroke_width(2)));
    chart
        .draw_series(DashedLineSeries::new([(0.0, 0.05), (n_max as f64, 0.05)], 3, 3, GREY.stroke_width(1)))
        .map_err(err)?
        .label("5%")
        .legend(|(x, y)| PathElement::new([(x, y), (x + 16, y)], GREY.stroke_width(1)));
    if let Some(k) = &c.carried {
        let (x, y) = (k.unanswerable as f64, k.max_false_positive_rate.min(1.0));
        let right = x > n_max as f64 * 0.6;
        let anchor = if right { HPos::Right } else { HPos::Left };
        let dx = if right { -4.0 } else { 4.0 };
        chart.draw_series(std::iter::once(Circle::new((x, y), 5, RED.filled()))).map_err(err)?;
        chart
            .draw_series(std::iter::once(Text::new(
                format!("this golden set: n = {}, at most {:.1}%", k.unanswerable, k.max_false_positive_rate * 100.0),
                (x + dx, (y + 0.04).min(0.97)),
                text(11).pos(Pos::new(anchor, VPos::Bottom)),
            )))
            .map_err(err)?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(GREY)
        .label_font(text(11))
        .draw()
        .map_err(err)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_shipped_font_loads_and_measures_text() {
        super::register_font().unwrap();
        let font = plotters::style::FontDesc::new(
            plotters::style::FontFamily::Name(super::FONT),
            12.0,
            plotters::style::FontStyle::Normal,
        );
        let (w, h) = font.box_size("recall@5 ≥ 95%").unwrap();
        // Real metrics: DejaVu Sans at 12 px is wider than a fixed guess of 6 px per character would say.
        assert!(w > 80 && w < 140 && h > 8, "{w}×{h}");
    }
}
