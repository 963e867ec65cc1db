//! `inquiry check`: validate a catalogue and summarise it.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::catalogue::Catalogue;

/// Arguments of `inquiry check`.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// Catalogue directory holding listings.json and policies/.
    #[arg(long, default_value = "data", env = "INQUIRY_DATA")]
    pub data: PathBuf,
    /// Print every chunk as JSON on stdout instead of a summary.
    #[arg(long)]
    pub json: bool,
}

/// Loads the catalogue and prints a summary (or every chunk as JSON).
///
/// # Errors
/// A catalogue that fails validation, naming the file and field.
pub fn run(args: CheckArgs) -> anyhow::Result<ExitCode> {
    let catalogue = Catalogue::load(&args.data)?;
    let mut out = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &catalogue.chunks)?;
        writeln!(out)?;
    } else {
        writeln!(
            out,
            "{}: {} listings, {} policy pages, {} chunks",
            args.data.display(),
            catalogue.listings.len(),
            catalogue.policies.len(),
            catalogue.chunks.len()
        )?;
    }
    Ok(ExitCode::SUCCESS)
}
