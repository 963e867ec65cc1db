//! `inquiry history FILE.jsonl`: the eval history as a table and an SVG trend.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::analysis::history::{load, render_svg};

/// Arguments of `inquiry history`.
#[derive(Debug, clap::Args)]
pub struct HistoryArgs {
    /// The history file written by `eval --history`.
    #[arg(value_name = "FILE.jsonl")]
    pub file: PathBuf,
    /// Where to write the SVG trend (default: FILE with the extension .svg).
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
}

/// Prints the table on stdout and writes the SVG.
///
/// # Errors
/// An unreadable file or a malformed line (naming it).
pub fn run(args: HistoryArgs) -> anyhow::Result<ExitCode> {
    let svg = args.svg.clone().unwrap_or_else(|| args.file.with_extension("svg"));
    // The trend is an output; it must never replace the history it is drawn from.
    if crate::text_file::same_file(&svg, &args.file) {
        anyhow::bail!(
            "--svg {}: that is the history file itself; name another file for the trend (e.g. --svg trend-{}.svg)",
            svg.display(),
            args.file.file_stem().and_then(|s| s.to_str()).unwrap_or("history")
        );
    }
    crate::eval::report_set::check_writable_file("--svg", &svg)?;
    let lines = load(&args.file)?;
    let mut table = comfy_table::Table::new();
    table.load_style(comfy_table::presets::UTF8_FULL_CONDENSED);
    table.set_header([
        "date",
        "commit",
        "inputs",
        "model",
        "cases",
        "case pass rate",
        "95% interval",
        "cost USD",
        "verdict",
    ]);
    for (i, l) in lines.iter().enumerate() {
        let rate = l.metric("case_pass_rate");
        // What changed since the line before: the input parts whose hashes differ.
        let changed = match i.checked_sub(1).map(|j| &lines[j]) {
            Some(prev) if !prev.inputs.is_empty() && !l.inputs.is_empty() => {
                let parts = crate::analysis::history::changed_parts(prev, l);
                if parts.is_empty() {
                    l.inputs_hash.clone()
                } else {
                    format!("{} ({} changed)", l.inputs_hash, parts.join(", "))
                }
            }
            _ => l.inputs_hash.clone(),
        };
        let commit = l.git_commit.clone().unwrap_or_else(|| "–".into());
        table.add_row([
            l.date.clone(),
            if l.dirty == Some(true) { format!("{commit} (dirty)") } else { commit },
            changed,
            l.model.clone(),
            format!("{} × {}", l.cases, l.repeat),
            rate.and_then(|m| m.value).map(|v| format!("{:.1}%", v * 100.0)).unwrap_or_else(|| "–".into()),
            rate.and_then(|m| m.interval)
                .map(|i| format!("[{:.1}%, {:.1}%]", i.lo * 100.0, i.hi * 100.0))
                .unwrap_or_default(),
            l.cost_usd.map(|c| format!("{c:.4}")).unwrap_or_else(|| "unknown".into()),
            l.verdict.clone(),
        ]);
    }
    crate::cli::print_stdout(&crate::text_file::printable(&format!("{table}\n")))?;
    crate::eval::report::write_atomic(&svg, render_svg(&lines).as_bytes())?;
    eprintln!("{} runs; trend written to {}", lines.len(), svg.display());
    Ok(ExitCode::SUCCESS)
}
