//! Renders an [`EvalReport`]: Markdown, JSON, one trace file per case, JUnit
//! XML, the GitHub step summary and the terminal table. Rendering never
//! recomputes a metric. Files are written atomically (temp file + rename).

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use super::metrics::GateStatus;
use super::{CaseReport, CaseStatus, EvalReport, RunStatus};

/// Writes `bytes` to `path` atomically: a temp file in the same directory,
/// then a rename, so a reader never sees a half-written report.
///
/// A symlink is followed (its target is replaced, the link stays). An existing
/// file keeps its permissions; a new one gets the usual `0666 & !umask`
/// (a plain temp file would leave every report `0600`).
///
/// # Errors
/// A read-only existing file (left untouched), or I/O errors, naming the path.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let target = match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => std::fs::canonicalize(path)
            .map_err(|e| anyhow::anyhow!("{}: cannot follow the symlink: {e}", path.display()))?,
        _ => path.to_path_buf(),
    };
    let existing = std::fs::metadata(&target).ok().filter(std::fs::Metadata::is_file);
    if existing.as_ref().is_some_and(|m| m.permissions().readonly()) {
        anyhow::bail!("{}: the file is read-only; not overwritten", path.display());
    }
    let dir = target.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| anyhow::anyhow!("{}: cannot create directory: {e}", dir.display()))?;
    let mut builder = tempfile::Builder::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = existing.as_ref().map_or(0o666, |m| m.permissions().mode() & 0o7777);
        builder.permissions(std::fs::Permissions::from_mode(mode));
    }
    let mut tmp = builder
        .tempfile_in(dir)
        .map_err(|e| anyhow::anyhow!("{}: cannot create a temp file next to it: {e}", path.display()))?;
    if let Some(m) = &existing {
        // The umask applied at creation; restore the exact mode.
        tmp.as_file()
            .set_permissions(m.permissions())
            .map_err(|e| anyhow::anyhow!("{}: cannot keep its permissions: {e}", path.display()))?;
    }
    tmp.write_all(bytes).map_err(|e| anyhow::anyhow!("{}: write failed: {e}", path.display()))?;
    tmp.persist(&target).map_err(|e| anyhow::anyhow!("{}: cannot rename into place: {}", path.display(), e.error))?;
    Ok(())
}

/// Trace file of a case, relative to the report set directory: `cases/<case-id>.json`.
pub fn trace_path(case_id: &str) -> String {
    format!("cases/{case_id}.json")
}

/// The files of a written report set.
#[derive(Debug, Clone, PartialEq)]
pub struct Written {
    /// The set directory.
    pub dir: PathBuf,
    /// `<dir>/report.md`.
    pub markdown: PathBuf,
    /// `<dir>/report.json`.
    pub json: PathBuf,
    /// `<dir>/report.html`.
    pub html: PathBuf,
}

/// Writes the report set (Markdown, JSON, every case trace) as a unit: into
/// a staging directory, then swapped in for the old set (see
/// [`super::report_set`]).
///
/// # Errors
/// I/O or serialisation errors, naming the file; the old set is then untouched.
pub fn write_reports(report: &EvalReport, dest: &super::report_set::Destination) -> anyhow::Result<Written> {
    finish_set(super::report_set::Staging::begin(dest, "eval")?, report, None)
}

/// Case traces written into a staged report set while the eval runs (see
/// [`super::TraceSink`]); [`finish_set`] adds the rest and swaps it in.
/// The staging directory is created with the first trace, so an eval that
/// stops on bad input writes nothing.
#[derive(Debug)]
pub struct StagedTraces {
    dest: super::report_set::Destination,
    staging: std::sync::Mutex<Option<super::report_set::Staging>>,
}

impl StagedTraces {
    /// Traces for the set at `dest`.
    pub fn new(dest: &super::report_set::Destination) -> Self {
        Self { dest: dest.clone(), staging: std::sync::Mutex::new(None) }
    }

    /// The staging set (started now if no trace came), to finish with [`finish_set`].
    ///
    /// # Errors
    /// The output directory cannot be created or written.
    pub fn into_staging(self) -> anyhow::Result<super::report_set::Staging> {
        match self.staging.into_inner().unwrap_or_else(|p| p.into_inner()) {
            Some(s) => Ok(s),
            None => super::report_set::Staging::begin(&self.dest, "eval"),
        }
    }
}

impl super::TraceSink for StagedTraces {
    fn store(&self, case: &super::CaseReport) -> anyhow::Result<bool> {
        let bytes = serde_json::to_string_pretty(case)? + "\n";
        let mut guard = self.staging.lock().unwrap_or_else(|p| p.into_inner());
        if guard.is_none() {
            *guard = Some(super::report_set::Staging::begin(&self.dest, "eval")?);
        }
        if let Some(staging) = guard.as_mut() {
            staging.write(&trace_path(&case.id), bytes.as_bytes())?;
        }
        Ok(true)
    }
}

/// Writes what `staging` does not hold yet (case traces not stored during
/// the run, report.json, report.md) and swaps the set in.
///
/// # Errors
/// I/O or serialisation errors, naming the file; the old set is then untouched.
pub fn finish_set(
    mut staging: super::report_set::Staging,
    report: &EvalReport,
    comparison: Option<&super::html::BaselineView>,
) -> anyhow::Result<Written> {
    for case in &report.cases {
        let rel = trace_path(&case.id);
        if !staging.contains(&rel) {
            staging.write(&rel, (serde_json::to_string_pretty(case)? + "\n").as_bytes())?;
        }
    }
    staging.write("report.json", (serde_json::to_string_pretty(&summary_json(report))? + "\n").as_bytes())?;
    staging.write("report.md", render_markdown(report).as_bytes())?;
    let summary = summary_json(report);
    let html = {
        let staged = &staging;
        // Each case with its full runs, read back from its trace file one at a
        // time (the report itself may hold slimmed runs).
        let cases = report.cases.iter().map(|c| -> anyhow::Result<CaseReport> {
            let bytes = staged.read(&trace_path(&c.id))?;
            Ok(serde_json::from_slice(&bytes)?)
        });
        super::html::render(report, &summary, cases, comparison)?
    };
    staging.write("report.html", html.as_bytes())?;
    let dir = staging.commit()?;
    Ok(Written { markdown: dir.join("report.md"), json: dir.join("report.json"), html: dir.join("report.html"), dir })
}

/// The JSON report: the whole [`EvalReport`] except each run's full agent
/// result, which lives in the case's trace file (linked by `trace`).
pub fn summary_json(report: &EvalReport) -> serde_json::Value {
    let mut value = serde_json::to_value(report).unwrap_or_default();
    if let Some(cases) = value.get_mut("cases").and_then(|c| c.as_array_mut()) {
        for case in cases {
            let id = case["id"].as_str().unwrap_or_default().to_owned();
            if let Some(runs) = case.get_mut("runs").and_then(|r| r.as_array_mut()) {
                for run in runs {
                    if let Some(obj) = run.as_object_mut() {
                        let reply = obj.get("result").and_then(|r| r.get("reply")).cloned();
                        obj.remove("result");
                        obj.insert("reply".into(), reply.unwrap_or(serde_json::Value::Null));
                    }
                }
            }
            case["trace"] = serde_json::Value::String(trace_path(&id));
        }
    }
    value
}

pub(crate) fn status_word(s: GateStatus) -> &'static str {
    match s {
        GateStatus::Met => "met",
        GateStatus::Missed => "MISSED",
        GateStatus::Unmeasured => "UNMEASURED",
        GateStatus::Ungated => "",
        GateStatus::NotApplicable => "n/a",
    }
}

pub(crate) fn bounds_text(b: Option<super::metrics::Bounds>, unit: &str) -> String {
    let Some(b) = b else { return String::new() };
    let f = |v: f64| match unit {
        "ratio" => format!("{:.1}%", v * 100.0),
        "USD" => format!("${v}"),
        "ms" => format!("{v} ms"),
        _ => format!("{v}"),
    };
    match (b.min, b.max) {
        (Some(lo), Some(hi)) => format!("{} – {}", f(lo), f(hi)),
        (Some(lo), None) => format!(">= {}", f(lo)),
        (None, Some(hi)) => format!("<= {}", f(hi)),
        (None, None) => String::new(),
    }
}

fn md_escape(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// The metric table and verdict, as Markdown (also the GitHub step summary).
pub fn render_summary(report: &EvalReport) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "## {} — {}\n", report.verdict, report.name);
    if let Some(line) = incomplete_line(report) {
        let _ = writeln!(s, "**{line}**\n");
    }
    let _ = writeln!(s, "| metric | value | 95% interval | threshold | status | detail |\n|---|---|---|---|---|---|");
    for m in &report.metrics {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} |",
            m.metric.name,
            m.metric.display(),
            m.metric.interval_display(),
            bounds_text(m.bounds, &m.metric.unit),
            status_word(m.status),
            md_escape(&m.metric.detail)
        );
    }
    let unmeasured: usize = report.runs().filter(|(_, r)| r.status == RunStatus::Unmeasured).count();
    if unmeasured > 0 {
        let _ = writeln!(s, "\n{unmeasured} run(s) unmeasured (not in any rate): see the Unmeasured section.");
    }
    let _ = writeln!(s, "\n{}", model_calls_line(report));
    s
}

/// `INCOMPLETE: … (k of n runs finished; unfinished: a, b)`, when the run was interrupted.
pub fn incomplete_line(report: &EvalReport) -> Option<String> {
    let inc = report.incomplete.as_ref()?;
    let mut unfinished = inc.unfinished_cases.iter().take(10).cloned().collect::<Vec<_>>().join(", ");
    if inc.unfinished_cases.len() > 10 {
        unfinished.push_str(&format!(" and {} more", inc.unfinished_cases.len() - 10));
    }
    Some(format!(
        "INCOMPLETE: {}; {} of {} runs finished and are reported; unfinished cases: {}",
        inc.reason, inc.runs_finished, inc.runs_planned, unfinished
    ))
}

/// `Model calls: 147 (agent 147, judge 0); 147 replayed from the response cache.`
pub fn model_calls_line(report: &EvalReport) -> String {
    let n = report.model_calls;
    format!(
        "Model calls: {} (agent {}, judge {}); {} replayed from the response cache.",
        n.total(),
        n.agent,
        n.judge,
        n.from_cache()
    )
}

/// The full Markdown report.
pub fn render_markdown(r: &EvalReport) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# Eval report: {}\n", r.name);
    let _ = writeln!(s, "- Date: {}", r.date);
    let _ = writeln!(s, "- Git commit: {}", r.git_commit.as_deref().unwrap_or("unknown"));
    let _ = writeln!(s, "- Model: `{}`; judge: `{}`", r.model, r.judge);
    for note in &r.judge_notes {
        let _ = writeln!(s, "- Judge: {note}");
    }
    let _ = writeln!(
        s,
        "- Retrieval: embedder `{}`, reranker `{}`, {}",
        r.retrieval.embedder,
        r.retrieval.reranker.as_deref().unwrap_or("none"),
        r.retrieval.keep_rule
    );
    let mut sel = vec![];
    if r.selection.subset {
        sel.push("subset".to_owned());
    }
    if !r.selection.case_ids.is_empty() {
        sel.push(format!("cases {}", r.selection.case_ids.join(", ")));
    }
    if !r.selection.tags.is_empty() {
        sel.push(format!("tags {}", r.selection.tags.join(", ")));
    }
    let _ = writeln!(
        s,
        "- Selection: {} ({} cases × {} run(s), {} at once, {} ms wall time)\n",
        if sel.is_empty() { "all cases".to_owned() } else { sel.join("; ") },
        r.cases.len(),
        r.repeat,
        r.concurrency,
        r.wall_ms
    );
    s.push_str(&render_summary(r));

    let _ = writeln!(s, "\n## Hand-offs by reason\n\n| reason | required | created | correct | missed | extra |\n|---|---|---|---|---|---|");
    for row in &r.handoffs_by_reason {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} |",
            row.reason, row.required, row.created, row.correct, row.missed, row.extra
        );
    }

    let g = &r.golden;
    let _ = writeln!(
        s,
        "\n## Retrieval golden set\n\n- recall@5: {}/{} answerable questions ({}/{} of those not marked as needing real embeddings)\n- unanswerable questions that returned passages: {}/{}",
        g.hits, g.answerable, g.keyword_hits, g.keyword_answerable, g.false_positives.len(), g.unanswerable
    );
    if !g.misses.is_empty() {
        let _ = writeln!(s, "\n### Misses\n");
        for m in &g.misses {
            let tag = if m.needs_real_embeddings { " (needs real embeddings)" } else { "" };
            let got = if m.returned.is_empty() { "found: false".to_owned() } else { m.returned.join(", ") };
            let _ = writeln!(s, "- `{}`{tag}: {} — expected {}; got {}", m.id, m.question, m.expected.join(" / "), got);
        }
    }
    if !g.false_positives.is_empty() {
        let _ = writeln!(s, "\n### Unanswerable questions that returned passages\n");
        for f in &g.false_positives {
            let _ = writeln!(s, "- `{}`: {} — returned {}", f.id, f.question, f.returned.join(", "));
        }
    }

    let _ = writeln!(s, "\n## Breakdown\n\n| group | measured runs | passed | pass rate | 95% interval | unmeasured |\n|---|---|---|---|---|---|");
    let groups = r
        .by_lang
        .iter()
        .map(|(lang, b)| (format!("lang:{lang}"), b))
        .chain(r.by_tag.iter().map(|(t, b)| (t.clone(), b)));
    for (group, b) in groups {
        let m = super::metrics::Metric::ratio("case_pass_rate", b.passed, b.runs);
        let _ = writeln!(
            s,
            "| {group} | {} | {} | {} | {} | {} |",
            b.runs,
            b.passed,
            m.display(),
            m.interval_display(),
            b.unmeasured
        );
    }

    let repeat = r.repeat > 1;
    let _ = writeln!(
        s,
        "\n## Cases\n\n| case | lang | tags | result | pass rate | latency | trace |\n|---|---|---|---|---|---|---|"
    );
    for c in &r.cases {
        let crit = if c.critical { " (critical)" } else { "" };
        let mean_ms = c.runs.iter().map(|x| x.latency_ms).sum::<u64>() / c.runs.len().max(1) as u64;
        let rate = if c.measured_runs == 0 {
            "unmeasured".to_owned()
        } else if repeat {
            format!("{:.0}% ({}/{})", c.pass_rate * 100.0, passes(c), c.measured_runs)
        } else {
            format!("{:.0}%", c.pass_rate * 100.0)
        };
        let _ = writeln!(
            s,
            "| `{}`{crit} | {} | {} | {} | {rate} | {mean_ms} ms | [trace]({}) |",
            c.id,
            c.lang.as_str(),
            c.tags.join(", "),
            c.status.word(),
            trace_path(&c.id)
        );
    }
    if repeat {
        render_repeat(&mut s, r);
    }
    let unmeasured: Vec<&CaseReport> =
        r.cases.iter().filter(|c| c.runs.iter().any(|x| x.status == RunStatus::Unmeasured)).collect();
    if !unmeasured.is_empty() {
        let _ = writeln!(
            s,
            "\n## Unmeasured\n\nThese runs could not be run or graded; they count neither as passed nor as failed.\n"
        );
        for c in unmeasured {
            for run in c.runs.iter().filter(|x| x.status == RunStatus::Unmeasured) {
                let _ = writeln!(
                    s,
                    "- `{}` run {}: {}",
                    c.id,
                    run.attempt,
                    md_escape(run.unmeasured.as_deref().unwrap_or(""))
                );
            }
        }
    }
    let failed: Vec<&CaseReport> =
        r.cases.iter().filter(|c| c.runs.iter().any(|x| x.status == RunStatus::Fail)).collect();
    if !failed.is_empty() {
        let _ = writeln!(s, "\n## Failures");
        for c in failed {
            let _ = writeln!(s, "\n### `{}` ({})\n\n**Inquiry:** {}\n", c.id, c.file, md_escape(&c.inquiry));
            // Identical replies of several runs are shown once, with their run numbers.
            let mut shown: Vec<(String, Vec<usize>, Vec<String>)> = vec![];
            for run in c.runs.iter().filter(|x| x.status == RunStatus::Fail) {
                let reply = run.result.as_ref().map(|x| x.reply.clone()).unwrap_or_else(|| "(no reply)".into());
                match shown.iter_mut().find(|(r, _, f)| *r == reply && *f == run.failures) {
                    Some((_, attempts, _)) => attempts.push(run.attempt),
                    None => shown.push((reply, vec![run.attempt], run.failures.clone())),
                }
            }
            for (reply, attempts, failures) in shown {
                let label = if c.runs.len() == 1 {
                    String::new()
                } else {
                    let list: Vec<String> = attempts.iter().map(ToString::to_string).collect();
                    format!("Run{} {}: ", if attempts.len() > 1 { "s" } else { "" }, list.join(", "))
                };
                let _ = writeln!(s, "{label}**Reply:**\n\n> {}\n", reply.replace('\n', "\n> "));
                for f in &failures {
                    let _ = writeln!(s, "- {f}");
                }
                // A blank line ends the list, so the next run's heading is not inside it.
                let _ = writeln!(s);
            }
        }
    }
    s
}

fn passes(c: &CaseReport) -> usize {
    c.runs.iter().filter(|x| x.status == RunStatus::Pass).count()
}

/// The within/between-case variance in words, and what more repeats would do.
pub fn variance_line(v: &crate::stats::power::VarianceComponents) -> String {
    let within = v.within.unwrap_or(0.0);
    let verdict = if v.identical {
        "Repeats were identical: every case gave the same verdict on all its runs (a deterministic model). More repeats add nothing; only more cases narrow the intervals.".to_owned()
    } else {
        let noise = within / v.repeats.max(1.0);
        let share = noise / (noise + v.between).max(1e-12);
        if share > 0.2 {
            format!(
                "Run-to-run noise is {:.0}% of the variance of a case's pass rate: more repeats would pay off.",
                share * 100.0
            )
        } else {
            format!("Run-to-run noise is {:.0}% of the variance of a case's pass rate: more cases pay off more than more repeats.", share * 100.0)
        }
    };
    format!(
        "Variance of the case pass rates over {} cases × {:.1} runs: within a case (one run) {within:.4}, between cases {:.4}. {verdict}",
        v.cases, v.repeats, v.between
    )
}

/// With `--repeat N`: pass@k and pass^k per case and for the suite (unbiased
/// estimators, the case as the unit), and the flaky list.
fn render_repeat(s: &mut String, r: &EvalReport) {
    let n = r.repeat;
    let ks: Vec<usize> = (1..=n).collect();
    let _ = writeln!(
        s,
        "\n## Repeats: pass@k and pass^k\n\npass@k: the chance that at least one of k runs passes; pass^k: that all k pass. Unbiased estimators over each case's measured runs (1 − C(n−c,k)/C(n,k) and C(c,k)/C(n,k)); the suite figure is the mean over cases.\n"
    );
    let header: Vec<String> = ks.iter().flat_map(|k| [format!("pass@{k}"), format!("pass^{k}")]).collect();
    let _ = writeln!(s, "| case | runs | passed | {} |", header.join(" | "));
    let _ = writeln!(s, "|---|---|---|{}", "---|".repeat(header.len()));
    for c in &r.cases {
        let (m, p) = (c.measured_runs, passes(c));
        let mut cells = vec![];
        for k in &ks {
            match (crate::stats::pass_at_k(m, p, *k), crate::stats::pass_hat_k(m, p, *k)) {
                (Some(a), Some(b)) => {
                    cells.push(format!("{a:.2}"));
                    cells.push(format!("{b:.2}"));
                }
                _ => cells.extend(["–".to_owned(), "–".to_owned()]),
            }
        }
        let crit = if c.critical { " (critical)" } else { "" };
        let _ = writeln!(s, "| `{}`{crit} | {m} | {p} | {} |", c.id, cells.join(" | "));
    }
    let cell = |m: f64, se: Option<f64>| match se {
        Some(se) => format!("{m:.3} ± {se:.3}"),
        None => format!("{m:.3}"),
    };
    let suite: Vec<String> = ks
        .iter()
        .flat_map(|k| match r.pass_at_k.iter().find(|p| p.k == *k) {
            Some(p) => [cell(p.pass_at_k, p.pass_at_k_se), cell(p.pass_hat_k, p.pass_hat_k_se)],
            None => ["–".to_owned(), "–".to_owned()],
        })
        .collect();
    let _ = writeln!(s, "| **suite** (mean ± standard error over cases) | | | {} |", suite.join(" | "));
    if let Some(v) = &r.variance {
        let _ = writeln!(s, "\n{}", variance_line(v));
    }
    let flaky: Vec<&CaseReport> = r.cases.iter().filter(|c| c.flaky).collect();
    let _ = writeln!(s, "\n## Flaky cases\n");
    if flaky.is_empty() {
        let _ = writeln!(s, "None: every case passed all or none of its measured runs.");
    }
    for c in flaky {
        let _ = writeln!(s, "- `{}`: passed {}/{} runs", c.id, passes(c), c.measured_runs);
    }
}

/// The terminal summary (comfy-table) for stderr: the metric table, the
/// verdict line, then each failing case with its first failure line.
pub fn render_terminal(r: &EvalReport) -> String {
    let mut table = comfy_table::Table::new();
    table.load_style(comfy_table::presets::UTF8_FULL_CONDENSED);
    table.set_header(["metric", "value", "95% interval", "threshold", "status"]);
    for m in &r.metrics {
        table.add_row([
            m.metric.name.clone(),
            m.metric.display(),
            m.metric.interval_display(),
            bounds_text(m.bounds, &m.metric.unit),
            status_word(m.status).to_owned(),
        ]);
    }
    let passed = r.cases.iter().filter(|c| c.passed).count();
    let unmeasured = r.cases.iter().filter(|c| c.status == CaseStatus::Unmeasured).count();
    let failing: Vec<String> = r
        .metrics
        .iter()
        .filter(|m| matches!(m.status, GateStatus::Missed | GateStatus::Unmeasured))
        .map(|m| format!("{} {}", m.metric.name, if m.status == GateStatus::Missed { "missed" } else { "unmeasured" }))
        .collect();
    let why = if failing.is_empty() { String::new() } else { format!(" ({})", failing.join(", ")) };
    let runs: usize = r.cases.iter().map(|c| c.runs.len()).sum();
    let runs = if runs == r.cases.len() { String::new() } else { format!(" over {runs} runs") };
    let unm = if unmeasured > 0 { format!(", {unmeasured} unmeasured") } else { String::new() };
    // When nothing was learnt about the agent the verdict is not FAIL (exit 2 follows).
    let verdict = if r.infrastructure_failure().is_some() { "UNMEASURED" } else { r.verdict.as_str() };
    let mut s =
        format!("{table}\n{verdict}{why}: {passed}/{} cases passed{unm}{runs}; {} ms\n", r.cases.len(), r.wall_ms);
    if let Some(v) = &r.variance {
        s.push_str(&variance_line(v));
        s.push('\n');
    }
    if let Some(line) = incomplete_line(r) {
        s.push_str(&line);
        s.push('\n');
    }
    if r.model_calls.total() > 0 {
        s.push_str(&model_calls_line(r));
        s.push('\n');
    }
    for c in r.cases.iter().filter(|c| !c.passed) {
        let first = c
            .runs
            .iter()
            .find_map(|x| {
                x.failures.first().cloned().or_else(|| x.unmeasured.clone().map(|u| format!("unmeasured: {u}")))
            })
            .unwrap_or_default();
        s.push_str(&format!(
            "  {} {}: {}\n",
            c.status.word(),
            c.id,
            crate::text_file::escape_for_terminal(&first, 200)
        ));
    }
    s
}

#[cfg(all(test, unix))]
#[path = "report_tests.rs"]
mod tests;
