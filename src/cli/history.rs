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
    for l in &lines {
        let rate = l.metric("case_pass_rate");
        table.add_row([
            l.date.clone(),
            l.git_commit.clone().unwrap_or_else(|| "–".into()),
            l.inputs_hash.clone(),
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
    println!("{table}");
    let svg = args.svg.unwrap_or_else(|| args.file.with_extension("svg"));
    crate::eval::report::write_atomic(&svg, render_svg(&lines).as_bytes())?;
    eprintln!("{} runs; trend written to {}", lines.len(), svg.display());
    Ok(ExitCode::SUCCESS)
}
