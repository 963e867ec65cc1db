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
    /// SHA-256 (hex, first 16 characters) over every input that can change a
    /// verdict ([`InputParts`]): two runs with the same hash saw the same inputs.
    pub inputs_hash: String,
    /// The hash of each input part (`cases`, `thresholds`, `retrieval_thresholds`, …),
    /// so two lines tell which input changed. Empty in lines written before parts were kept.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub inputs: std::collections::BTreeMap<String, String>,
    /// The working tree had uncommitted changes to tracked files when the run
    /// started (`None`: not a git checkout, or git is not installed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dirty: Option<bool>,
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
            inputs: Default::default(),
            dirty: None,
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

/// Every input of a run that can change a verdict, each hashed on its own.
#[derive(Debug, Clone, Default)]
pub struct InputParts {
    /// Part name → 16 hex characters of SHA-256.
    pub parts: std::collections::BTreeMap<String, String>,
}

impl InputParts {
    /// Hashes the given files and directories (a missing optional file hashes
    /// as absent) and texts under their part names.
    ///
    /// # Errors
    /// A file that exists but cannot be read.
    pub fn collect(files: &[(&str, &Path)], texts: &[(&str, &str)]) -> anyhow::Result<Self> {
        let mut parts = std::collections::BTreeMap::new();
        for (name, path) in files {
            let hash = if path.exists() { inputs_hash(&[path], &[])? } else { "absent".to_owned() };
            parts.insert((*name).to_owned(), hash);
        }
        for (name, text) in texts {
            parts.insert((*name).to_owned(), inputs_hash(&[], &[text])?);
        }
        Ok(Self { parts })
    }

    /// The hash over all parts (names and hashes, in name order), 16 hex characters.
    pub fn combined(&self) -> String {
        let mut h = Sha256::new();
        for (name, hash) in &self.parts {
            h.update(name.as_bytes());
            h.update([0]);
            h.update(hash.as_bytes());
            h.update([0]);
        }
        h.finalize().iter().take(8).map(|b| format!("{b:02x}")).collect()
    }
}

/// Where a run's inputs live, for [`line_for`]: the paths the run read.
#[derive(Debug, Clone)]
pub struct InputPaths<'a> {
    /// Case files.
    pub cases: &'a Path,
    /// Judge rubrics.
    pub rubrics: &'a Path,
    /// Catalogue directory.
    pub catalogue: &'a Path,
    /// Overlay catalogues.
    pub fixtures: &'a Path,
    /// Metric thresholds.
    pub thresholds: &'a Path,
    /// Retrieval thresholds.
    pub retrieval_thresholds: &'a Path,
    /// Golden set.
    pub golden: &'a Path,
    /// Price table.
    pub prices: &'a Path,
}

/// The history line of `report`: every input part hashed (files, the system
/// prompt, the glossary, the model, judge, embedder and reranker ids) and
/// the working tree's state as given.
///
/// # Errors
/// An input file that exists but cannot be read.
pub fn line_for(report: &EvalReport, paths: &InputPaths<'_>, dirty: Option<bool>) -> anyhow::Result<HistoryLine> {
    let ids = format!(
        "model {} · judge {} · embedder {} · reranker {}",
        report.model,
        report.judge,
        report.retrieval.embedder,
        report.retrieval.reranker.as_deref().unwrap_or("none")
    );
    let glossary = crate::retrieval::glossary::fingerprint();
    let parts = InputParts::collect(
        &[
            ("cases", paths.cases),
            ("rubrics", paths.rubrics),
            ("catalogue", paths.catalogue),
            ("fixtures", paths.fixtures),
            ("thresholds", paths.thresholds),
            ("retrieval_thresholds", paths.retrieval_thresholds),
            ("golden", paths.golden),
            ("prices", paths.prices),
        ],
        &[("system_prompt", crate::agent::SYSTEM_PROMPT), ("glossary", &glossary), ("models", &ids)],
    )?;
    let mut line = HistoryLine::of(report, parts.combined());
    line.inputs = parts.parts;
    line.dirty = dirty;
    Ok(line)
}

/// Whether the git working tree in the current directory has uncommitted
/// changes to tracked files; `None` outside a checkout or without git.
pub fn working_tree_dirty() -> Option<bool> {
    let out = std::process::Command::new("git")
        .args(["status", "--porcelain", "--untracked-files=no"])
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    out.status.success().then(|| !out.stdout.is_empty())
}

/// The input parts whose hashes differ between two lines (both must have parts).
pub fn changed_parts(before: &HistoryLine, after: &HistoryLine) -> Vec<String> {
    let names: std::collections::BTreeSet<&String> = before.inputs.keys().chain(after.inputs.keys()).collect();
    names.into_iter().filter(|n| before.inputs.get(*n) != after.inputs.get(*n)).cloned().collect()
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

/// Appends one line to the history file (created when missing): the whole
/// line or nothing. A failed write (a full disk) is cut back to the file's
/// length before it; a file whose last line was cut by an earlier failure
/// gets a line break first, so the new line starts a line of its own.
///
/// # Errors
/// The file cannot be opened or written (naming it).
pub fn append(path: &Path, line: &HistoryLine) -> anyhow::Result<()> {
    use std::io::{Read as _, Seek as _};
    let mut text = serde_json::to_string(line)?;
    text.push('\n');
    check_appendable(path)?;
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .read(true)
        .append(true)
        .open(path)
        .map_err(|e| anyhow::anyhow!("--history {}: cannot open for appending: {e}", path.display()))?;
    let before = f.metadata().map(|m| m.len()).unwrap_or(0);
    if before > 0 {
        let mut last = [0u8; 1];
        let ends_whole = f
            .seek(std::io::SeekFrom::Start(before - 1))
            .and_then(|_| f.read_exact(&mut last))
            .map(|()| last[0] == b'\n')
            .unwrap_or(true);
        if !ends_whole {
            text.insert(0, '\n');
        }
    }
    if let Err(e) = f.write_all(text.as_bytes()).and_then(|()| f.sync_data()) {
        let _ = f.set_len(before);
        anyhow::bail!("--history {}: {e}; nothing was appended", path.display());
    }
    Ok(())
}

/// Checks before a run that `path` can take an appended line: a regular file
/// (or none yet, in an existing directory), not a FIFO or device, writable.
///
/// # Errors
/// What is wrong, naming `--history` and the path.
pub fn check_appendable(path: &Path) -> anyhow::Result<()> {
    match std::fs::metadata(path) {
        Ok(meta) if !meta.is_file() => {
            anyhow::bail!("--history {}: not a regular file; expected a JSON Lines file", path.display())
        }
        Ok(_) => {
            std::fs::OpenOptions::new()
                .append(true)
                .open(path)
                .map_err(|e| anyhow::anyhow!("--history {}: cannot open for appending: {e}", path.display()))?;
        }
        Err(_) => {
            let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
            if !dir.is_dir() {
                anyhow::bail!("--history {}: the directory {} does not exist", path.display(), dir.display());
            }
            tempfile::Builder::new().prefix(".inquiry-probe").tempfile_in(dir).map_err(|e| {
                anyhow::anyhow!("--history {}: cannot create a file in {}: {e}", path.display(), dir.display())
            })?;
        }
    }
    Ok(())
}

/// Reads a history file. A last line cut short by an interrupted write
/// (truncated JSON) is skipped with a warning; any other malformed line is an error.
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
        let mut de = serde_json::Deserializer::from_str(line);
        let parsed: HistoryLine = match serde_path_to_error::deserialize(&mut de) {
            Ok(parsed) => parsed,
            Err(e) if e.inner().classify() == serde_json::error::Category::Eof => {
                tracing::warn!("{}:{}: an incomplete line (an interrupted write); skipped", path.display(), i + 1);
                eprintln!("warning: {}:{}: an incomplete line (an interrupted write); skipped", path.display(), i + 1);
                continue;
            }
            Err(e) => {
                let field = e.path().to_string();
                let at = if field == "." { String::new() } else { format!("field `{field}`: ") };
                return Err(anyhow::anyhow!(
                    "{}:{}: not a history line ({at}{}); expected one JSON object per line as `eval --history` writes",
                    path.display(),
                    i + 1,
                    e.inner()
                ));
            }
        };
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
