//! The eval history: one JSON line per run (`eval --history FILE.jsonl`),
//! only ever appended to, and `inquiry history FILE` to print it as a table
//! and draw the case pass rate (with its 95% interval band) and the cost as
//! an SVG trend.

use std::io::Write as _;
use std::path::Path;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::eval::EvalReport;
use crate::stats::Interval;

/// One metric in a history line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HistoryMetric {
    /// Metric name.
    pub name: String,
    /// Value (`None`: unmeasured or n/a).
    pub value: Option<f64>,
    /// 95% interval of a ratio.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<Interval>,
}

/// One run in the history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HistoryLine {
    /// Run date (RFC 3339 UTC).
    pub date: String,
    /// Git commit, if known.
    pub git_commit: Option<String>,
    /// SHA-256 (hex, first 16 characters) over the cases, rubrics, system
    /// prompt and catalogue files: two runs with the same hash saw the same inputs.
    pub inputs_hash: String,
    /// Report name.
    pub name: String,
    /// Agent model id.
    pub model: String,
    /// Judge id.
    pub judge: String,
    /// Embedder id.
    pub embedder: String,
    /// Reranker id, if any.
    pub reranker: Option<String>,
    /// Runs per case.
    pub repeat: usize,
    /// Cases in the run.
    pub cases: usize,
    /// `PASS` or `FAIL`.
    pub verdict: String,
    /// Every metric with its interval.
    pub metrics: Vec<HistoryMetric>,
    /// Total agent + judge cost (USD), `None` when a price is unknown.
    pub cost_usd: Option<f64>,
    /// Wall time (ms).
    pub wall_ms: u64,
}

impl HistoryLine {
    /// The line for `report`, with `inputs_hash` from [`inputs_hash`].
    pub fn of(report: &EvalReport, inputs_hash: String) -> Self {
        let mut cost = Some(0.0);
        for (_, run) in report.runs() {
            let judge_cost = if run.verdict.as_ref().is_some_and(|v| v.judge.starts_with("llm:")) {
                run.judge_cost_usd
            } else {
                Some(0.0)
            };
            cost = match (cost, run.cost_usd, judge_cost) {
                (Some(c), Some(a), Some(j)) => Some(c + a + j),
                _ => None,
            };
        }
        Self {
            date: report.date.clone(),
            git_commit: report.git_commit.clone(),
            inputs_hash,
            name: report.name.clone(),
            model: report.model.clone(),
            judge: report.judge.clone(),
            embedder: report.retrieval.embedder.clone(),
            reranker: report.retrieval.reranker.clone(),
            repeat: report.repeat,
            cases: report.cases.len(),
            verdict: report.verdict.clone(),
            metrics: report
                .metrics
                .iter()
                .map(|m| HistoryMetric {
                    name: m.metric.name.clone(),
                    value: m.metric.value,
                    interval: m.metric.interval,
                })
                .collect(),
            cost_usd: cost,
            wall_ms: report.wall_ms,
        }
    }

    /// A metric's value and interval.
    pub fn metric(&self, name: &str) -> Option<&HistoryMetric> {
        self.metrics.iter().find(|m| m.name == name)
    }
}

/// SHA-256 over every file under `paths` (sorted by path; directories are
/// walked) and `extra` texts, as 16 hex characters.
///
/// # Errors
/// A file that cannot be read.
pub fn inputs_hash(paths: &[&Path], extra: &[&str]) -> anyhow::Result<String> {
    fn walk(p: &Path, out: &mut Vec<std::path::PathBuf>) -> std::io::Result<()> {
        if p.is_dir() {
            for e in std::fs::read_dir(p)? {
                walk(&e?.path(), out)?;
            }
        } else if p.is_file() {
            out.push(p.to_owned());
        }
        Ok(())
    }
    let mut files = vec![];
    for p in paths {
        walk(p, &mut files).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?;
    }
    files.sort();
    let mut h = Sha256::new();
    for f in files {
        let bytes = std::fs::read(&f).map_err(|e| anyhow::anyhow!("{}: {e}", f.display()))?;
        h.update(f.to_string_lossy().as_bytes());
        h.update([0]);
        h.update(&bytes);
    }
    for t in extra {
        h.update(t.as_bytes());
    }
    Ok(h.finalize().iter().take(8).map(|b| format!("{b:02x}")).collect())
}

/// Appends one line to the history file (created when missing).
///
/// # Errors
/// The file cannot be opened or written.
pub fn append(path: &Path, line: &HistoryLine) -> anyhow::Result<()> {
    let mut text = serde_json::to_string(line)?;
    text.push('\n');
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| anyhow::anyhow!("--history {}: cannot open for appending: {e}", path.display()))?;
    f.write_all(text.as_bytes()).map_err(|e| anyhow::anyhow!("--history {}: {e}", path.display()))?;
    Ok(())
}

/// Reads a history file.
///
/// # Errors
/// An unreadable file, or a malformed line (naming its number).
pub fn load(path: &Path) -> anyhow::Result<Vec<HistoryLine>> {
    let text = crate::text_file::read(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let mut out = vec![];
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let parsed: HistoryLine = serde_json::from_str(line).map_err(|e| {
            anyhow::anyhow!(
                "{}:{}: not a history line ({e}); expected one JSON object per line as `eval --history` writes",
                path.display(),
                i + 1
            )
        })?;
        out.push(parsed);
    }
    Ok(out)
}

/// An SVG trend: the case pass rate with its 95% interval band (left axis)
/// and the cost per run (right axis, when known), one point per line.
pub fn render_svg(lines: &[HistoryLine]) -> String {
    let (w, h, left, right, top, bottom) = (720.0, 320.0, 60.0, 70.0, 40.0, 60.0);
    let pw = w - left - right;
    let ph = h - top - bottom;
    let n = lines.len().max(1);
    let x = |i: usize| if n == 1 { left + pw / 2.0 } else { left + pw * i as f64 / (n - 1) as f64 };
    let y = |v: f64| top + ph * (1.0 - v.clamp(0.0, 1.0));
    let mut s = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="12">
<title>Eval history: case pass rate with 95% interval, and cost per run</title>
<rect width="100%" height="100%" fill="white"/>
<text x="{}" y="20" text-anchor="middle" font-size="14">Case pass rate (95% interval band) and cost per run</text>
"#,
        w / 2.0
    );
    for t in 0..=4 {
        let v = t as f64 / 4.0;
        s.push_str(&format!(
            "<line x1=\"{left}\" x2=\"{}\" y1=\"{y:.1}\" y2=\"{y:.1}\" stroke=\"#ddd\"/><text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{:.0}%</text>\n",
            left + pw,
            left - 6.0,
            y(v) + 4.0,
            v * 100.0,
            y = y(v)
        ));
    }
    let rate: Vec<(usize, &HistoryMetric)> =
        lines.iter().enumerate().filter_map(|(i, l)| l.metric("case_pass_rate").map(|m| (i, m))).collect();
    let band: Vec<(f64, f64, f64)> =
        rate.iter().filter_map(|(i, m)| m.interval.map(|iv| (x(*i), y(iv.lo), y(iv.hi)))).collect();
    if !band.is_empty() {
        let mut pts: Vec<String> = band.iter().map(|(px, _, hi)| format!("{px:.1},{hi:.1}")).collect();
        pts.extend(band.iter().rev().map(|(px, lo, _)| format!("{px:.1},{lo:.1}")));
        s.push_str(&format!("<polygon points=\"{}\" fill=\"#4a7bd0\" fill-opacity=\"0.2\"/>\n", pts.join(" ")));
    }
    let line: Vec<String> =
        rate.iter().filter_map(|(i, m)| m.value.map(|v| format!("{:.1},{:.1}", x(*i), y(v)))).collect();
    if !line.is_empty() {
        s.push_str(&format!(
            "<polyline points=\"{}\" fill=\"none\" stroke=\"#1f4e9c\" stroke-width=\"2\"/>\n",
            line.join(" ")
        ));
        for (i, m) in &rate {
            if let Some(v) = m.value {
                s.push_str(&format!("<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"#1f4e9c\"/>\n", x(*i), y(v)));
            }
        }
    }
    let costs: Vec<(usize, f64)> = lines.iter().enumerate().filter_map(|(i, l)| l.cost_usd.map(|c| (i, c))).collect();
    let max_cost = costs.iter().map(|(_, c)| *c).fold(0.0, f64::max);
    if max_cost > 0.0 {
        let yc = |c: f64| top + ph * (1.0 - c / max_cost);
        let pts: Vec<String> = costs.iter().map(|(i, c)| format!("{:.1},{:.1}", x(*i), yc(*c))).collect();
        s.push_str(&format!(
            "<polyline points=\"{}\" fill=\"none\" stroke=\"#c0504d\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\"/>\n",
            pts.join(" ")
        ));
        s.push_str(&format!(
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"start\" fill=\"#c0504d\">${max_cost:.4}</text><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"start\" fill=\"#c0504d\">$0</text>\n",
            left + pw + 6.0,
            top + 4.0,
            left + pw + 6.0,
            top + ph + 4.0
        ));
    }
    for (i, l) in lines.iter().enumerate() {
        let label = l.git_commit.clone().unwrap_or_else(|| l.date.get(..10).unwrap_or("").to_owned());
        s.push_str(&format!(
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"10\">{}</text>\n",
            x(i),
            top + ph + 16.0,
            xml_escape(&label)
        ));
    }
    s.push_str(&format!(
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">run (commit)</text>\n<text x=\"16\" y=\"{:.1}\" text-anchor=\"middle\" transform=\"rotate(-90 16 {:.1})\">case pass rate</text>\n",
        left + pw / 2.0,
        h - 16.0,
        top + ph / 2.0,
        top + ph / 2.0
    ));
    if max_cost > 0.0 {
        s.push_str(&format!(
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"#c0504d\" transform=\"rotate(90 {:.1} {:.1})\">cost per run (USD, dashed)</text>\n",
            w - 14.0,
            top + ph / 2.0,
            w - 14.0,
            top + ph / 2.0
        ));
    }
    s.push_str("</svg>\n");
    s
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}
