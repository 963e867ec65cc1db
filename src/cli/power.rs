//! `inquiry power [REPORT]`: what a suite of this size, with these repeats
//! and the run-to-run noise REPORT shows, can detect.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::analysis::power::{of_report, Power};
use crate::analysis::stored::load_report;

/// Arguments of `inquiry power`.
#[derive(Debug, clap::Args)]
pub struct PowerArgs {
    /// A report set directory or its report.json (its cases, repeats and
    /// observed variance are the basis).
    #[arg(value_name = "REPORT", default_value = "reports/eval")]
    pub report: PathBuf,
    /// Runs per case to plan for (default: the report's own).
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub repeat: Option<u32>,
    /// Drop to plan for, as a fraction (0.02 = two points): the cases and
    /// repeats needed to detect it.
    #[arg(long, value_name = "FRACTION", default_value_t = 0.02, value_parser = parse_drop)]
    pub target_drop: f64,
    /// Print the figures as JSON.
    #[arg(long)]
    pub json: bool,
}

fn parse_drop(s: &str) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|_| format!("`{s}`: expected a fraction such as 0.02"))?;
    if !(v > 0.0 && v <= 1.0) {
        return Err(format!("`{s}`: expected a fraction above 0 and at most 1 (0.02 = two points)"));
    }
    Ok(v)
}

fn pts(v: Option<f64>) -> String {
    v.map(|m| format!("{:.1} points", m * 100.0)).unwrap_or_else(|| "none (too few cases)".into())
}

/// The figures as text.
pub fn render(p: &Power) -> String {
    let mut s = String::new();
    let within = p.components.within.map(|w| format!("{w:.4}")).unwrap_or_else(|| "unknown (one run per case)".into());
    s.push_str(&format!(
        "cases: {} in {} clusters (design effect {:.2})\nruns per case in the report: {:.1}\nwithin-case variance of one run: {within}\nbetween-case variance of case pass rates: {:.4}\n",
        p.cases, p.clusters, p.design_effect, p.components.repeats, p.components.between
    ));
    s.push_str(&format!(
        "minimum detectable drop (80% power, α = 0.05, two-sided): {} at K = {}, {} at K = 1\n",
        pts(p.minimum_detectable_drop),
        p.repeats,
        pts(p.minimum_detectable_drop_k1)
    ));
    if let Some(t) = p.target {
        let decidable = p.minimum_detectable_drop.is_some_and(|m| m <= t);
        s.push_str(&format!(
            "target drop {:.1} points: {}; cases needed at K = {}: {}; runs per case needed with {} cases: {}\n",
            t * 100.0,
            if decidable { "decidable with this suite" } else { "NOT decidable with this suite" },
            p.repeats,
            p.cases_needed.map(|n| n.to_string()).unwrap_or_else(|| "–".into()),
            p.cases,
            p.repeats_needed.map(|k| k.to_string()).unwrap_or_else(|| "none suffices (add cases)".into())
        ));
    }
    for n in &p.notes {
        s.push_str(&format!("note: {n}\n"));
    }
    s
}

/// Prints the power figures of a report on stdout.
///
/// # Errors
/// An unreadable report, or one without a measured case (exit 2).
pub fn run(args: PowerArgs) -> anyhow::Result<ExitCode> {
    let loaded = load_report(&args.report)?;
    let Some(p) = of_report(&loaded.report, args.repeat.map(|k| k as usize), Some(args.target_drop)) else {
        anyhow::bail!("{}: no case has a measured run", args.report.display());
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&p)?);
    } else {
        print!("{}", render(&p));
    }
    Ok(ExitCode::SUCCESS)
}
