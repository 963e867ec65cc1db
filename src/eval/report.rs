//! Renders an [`EvalReport`]: Markdown, JSON, one trace file per case, JUnit
//! XML, the GitHub step summary and the terminal table. Rendering never
//! recomputes a metric. Files are written atomically (temp file + rename).

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use super::metrics::GateStatus;
use super::{CaseReport, EvalReport};

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

/// Trace file of a case, relative to the output directory: `<name>/<case-id>.json`.
pub fn trace_path(name: &str, case_id: &str) -> String {
    format!("{name}/{case_id}.json")
}

/// The files written for a report.
#[derive(Debug, Clone, PartialEq)]
pub struct Written {
    /// `<out>/<name>.md`.
    pub markdown: PathBuf,
    /// `<out>/<name>.json`.
    pub json: PathBuf,
    /// One trace per case.
    pub traces: Vec<PathBuf>,
}

/// Writes the Markdown report, the JSON report and every case trace under `out`.
///
/// # Errors
/// I/O or serialisation errors, naming the file.
pub fn write_reports(report: &EvalReport, out: &Path) -> anyhow::Result<Written> {
    let mut traces = vec![];
    for case in &report.cases {
        let path = out.join(trace_path(&report.name, &case.id));
        write_atomic(&path, (serde_json::to_string_pretty(case)? + "\n").as_bytes())?;
        traces.push(path);
    }
    let json = out.join(format!("{}.json", report.name));
    write_atomic(&json, (serde_json::to_string_pretty(&summary_json(report))? + "\n").as_bytes())?;
    let markdown = out.join(format!("{}.md", report.name));
    write_atomic(&markdown, render_markdown(report).as_bytes())?;
    remove_stale_traces(&out.join(&report.name), &traces);
    Ok(Written { markdown, json, traces })
}

/// Removes `*.json` traces an earlier run left in the trace directory (a
/// narrower `--case` selection, a renamed case), so the directory matches the
/// report. Best effort: a file that cannot be removed is logged, not fatal.
fn remove_stale_traces(dir: &Path, written: &[PathBuf]) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for path in entries.filter_map(Result::ok).map(|e| e.path()) {
        if path.extension().is_some_and(|x| x == "json") && !written.contains(&path) {
            if let Err(e) = std::fs::remove_file(&path) {
                tracing::warn!(path = %path.display(), error = %e, "could not remove a stale trace");
            }
        }
    }
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
            case["trace"] = serde_json::Value::String(trace_path(&report.name, &id));
        }
    }
    value
}

fn status_word(s: GateStatus) -> &'static str {
    match s {
        GateStatus::Met => "met",
        GateStatus::Missed => "MISSED",
        GateStatus::Unmeasured => "UNMEASURED",
        GateStatus::Ungated => "",
        GateStatus::NotApplicable => "n/a",
    }
}

fn bounds_text(b: Option<super::metrics::Bounds>, unit: &str) -> String {
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
    let _ = writeln!(s, "| metric | value | threshold | status | detail |\n|---|---|---|---|---|");
    for m in &report.metrics {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} |",
            m.metric.name,
            m.metric.display(),
            bounds_text(m.bounds, &m.metric.unit),
            status_word(m.status),
            md_escape(&m.metric.detail)
        );
    }
    s
}

/// The full Markdown report.
pub fn render_markdown(r: &EvalReport) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# Eval report: {}\n", r.name);
    let _ = writeln!(s, "- Date: {}", r.date);
    let _ = writeln!(s, "- Git commit: {}", r.git_commit.as_deref().unwrap_or("unknown"));
    let _ = writeln!(s, "- Model: `{}`; judge: `{}`", r.model, r.judge);
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

    let _ = writeln!(s, "\n## Breakdown\n\n| group | runs | passed | pass rate |\n|---|---|---|---|");
    let groups = r
        .by_lang
        .iter()
        .map(|(lang, b)| (format!("lang:{lang}"), b))
        .chain(r.by_tag.iter().map(|(t, b)| (t.clone(), b)));
    for (group, b) in groups {
        let rate = 100.0 * b.passed as f64 / b.runs.max(1) as f64;
        let _ = writeln!(s, "| {group} | {} | {} | {rate:.1}% |", b.runs, b.passed);
    }

    let _ = writeln!(
        s,
        "\n## Cases\n\n| case | lang | tags | result | pass rate | latency | trace |\n|---|---|---|---|---|---|---|"
    );
    for c in &r.cases {
        let result = if c.passed {
            "pass"
        } else if c.flaky {
            "FLAKY"
        } else {
            "FAIL"
        };
        let crit = if c.critical { " (critical)" } else { "" };
        let mean_ms = c.runs.iter().map(|x| x.latency_ms).sum::<u64>() / c.runs.len().max(1) as u64;
        let trace = trace_path(&r.name, &c.id);
        let _ = writeln!(
            s,
            "| `{}`{crit} | {} | {} | {result} | {:.0}% | {mean_ms} ms | [trace]({trace}) |",
            c.id,
            c.lang.as_str(),
            c.tags.join(", "),
            c.pass_rate * 100.0
        );
    }
    let flaky: Vec<&CaseReport> = r.cases.iter().filter(|c| c.flaky).collect();
    if !flaky.is_empty() {
        let _ = writeln!(s, "\n## Flaky cases\n");
        for c in flaky {
            let _ = writeln!(
                s,
                "- `{}`: passed {}/{} runs",
                c.id,
                c.runs.iter().filter(|x| x.passed).count(),
                c.runs.len()
            );
        }
    }
    let failed: Vec<&CaseReport> = r.cases.iter().filter(|c| !c.passed).collect();
    if !failed.is_empty() {
        let _ = writeln!(s, "\n## Failures");
        for c in failed {
            let _ = writeln!(s, "\n### `{}` ({})\n\n**Inquiry:** {}\n", c.id, c.file, md_escape(&c.inquiry));
            for run in c.runs.iter().filter(|x| !x.passed) {
                let reply = run.result.as_ref().map(|x| x.reply.as_str()).unwrap_or("(no reply)");
                let _ = writeln!(s, "Run {}: **Reply:**\n\n> {}\n", run.attempt, reply.replace('\n', "\n> "));
                for f in &run.failures {
                    let _ = writeln!(s, "- {f}");
                }
            }
        }
    }
    s
}

/// JUnit XML: one test case per eval case; a failing case's message holds its
/// failure lines.
///
/// # Errors
/// Serialisation failure.
pub fn render_junit(r: &EvalReport) -> anyhow::Result<String> {
    use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};
    let mut report = Report::new(format!("inquiry eval {}", r.name));
    let mut suite = TestSuite::new("inquiry-eval");
    for c in &r.cases {
        let status = if c.passed {
            TestCaseStatus::success()
        } else {
            let mut st = TestCaseStatus::non_success(NonSuccessKind::Failure);
            let lines: Vec<String> = c
                .runs
                .iter()
                .filter(|x| !x.passed)
                .flat_map(|x| x.failures.iter().map(move |f| format!("run {}: {f}", x.attempt)))
                .collect();
            st.set_message(lines.join("\n"));
            st
        };
        let mut tc = TestCase::new(c.id.clone(), status);
        tc.set_classname(format!("inquiry.{}", c.lang.as_str()));
        let ms = c.runs.iter().map(|x| x.latency_ms).sum::<u64>();
        tc.set_time(std::time::Duration::from_millis(ms));
        suite.add_test_case(tc);
    }
    report.add_test_suite(suite);
    Ok(report.to_string()?)
}

/// The terminal summary (comfy-table) for stderr.
pub fn render_terminal(r: &EvalReport) -> String {
    let mut table = comfy_table::Table::new();
    table.load_style(comfy_table::presets::UTF8_FULL_CONDENSED);
    table.set_header(["metric", "value", "threshold", "status"]);
    for m in &r.metrics {
        table.add_row([
            m.metric.name.clone(),
            m.metric.display(),
            bounds_text(m.bounds, &m.metric.unit),
            status_word(m.status).to_owned(),
        ]);
    }
    let passed = r.cases.iter().filter(|c| c.passed).count();
    let failing: Vec<String> = r
        .metrics
        .iter()
        .filter(|m| matches!(m.status, GateStatus::Missed | GateStatus::Unmeasured))
        .map(|m| format!("{} {}", m.metric.name, if m.status == GateStatus::Missed { "missed" } else { "unmeasured" }))
        .collect();
    let why = if failing.is_empty() { String::new() } else { format!(" ({})", failing.join(", ")) };
    let runs: usize = r.cases.iter().map(|c| c.runs.len()).sum();
    let runs = if runs == r.cases.len() { String::new() } else { format!(" over {runs} runs") };
    format!("{table}\n{}{why}: {passed}/{} cases passed{runs}; {} ms\n", r.verdict, r.cases.len(), r.wall_ms)
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::PermissionsExt as _;

    use super::*;

    fn mode(p: &Path) -> u32 {
        std::fs::metadata(p).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn keeps_permissions_follows_symlinks_and_refuses_read_only_files() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("t.json");
        std::fs::write(&file, "old").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o640)).unwrap();
        write_atomic(&file, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "new");
        assert_eq!(mode(&file), 0o640, "existing mode kept");

        let fresh = dir.path().join("sub/report.md");
        write_atomic(&fresh, b"x").unwrap();
        assert_ne!(mode(&fresh), 0o600, "a new report is not private to the writer");

        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        write_atomic(&link, b"via link").unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "the link stays");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "via link");

        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o444)).unwrap();
        let e = write_atomic(&file, b"lost").unwrap_err().to_string();
        assert!(e.contains("read-only"), "{e}");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "via link", "left untouched");
    }
}
