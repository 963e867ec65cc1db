//! `inquiry schema`: print or write the JSON Schemas of the eval's files.

use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `inquiry schema`.
#[derive(Debug, clap::Args)]
pub struct SchemaArgs {
    /// Which schema to print: `report` (report.json) or `case-trace` (cases/<id>.json).
    #[arg(default_value = "report", value_parser = ["report", "case-trace"])]
    pub which: String,
    /// Write every schema file into DIR instead (e.g. docs/schema).
    #[arg(long, value_name = "DIR")]
    pub write: Option<PathBuf>,
}

/// Prints one schema on stdout, or writes them all.
///
/// # Errors
/// A file that cannot be written.
pub fn run(args: SchemaArgs) -> anyhow::Result<ExitCode> {
    use crate::eval::schema;
    if let Some(dir) = &args.write {
        schema::write(dir)?;
        eprintln!("wrote {} schema files to {}", schema::all().len(), dir.display());
        return Ok(ExitCode::SUCCESS);
    }
    let value = if args.which == "report" { schema::report() } else { schema::case_trace() };
    super::print_stdout(&format!("{}\n", serde_json::to_string_pretty(&value)?))?;
    Ok(ExitCode::SUCCESS)
}
