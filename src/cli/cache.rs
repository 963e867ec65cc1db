//! `inquiry cache stats|clear|prune`: look after the model-response cache.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::cache::{parse_age, ResponseCache, DEFAULT_CACHE_DIR};

/// Arguments of `inquiry cache`.
#[derive(Debug, clap::Args)]
pub struct CacheArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: CacheAction,
    /// Directory of the response cache.
    #[arg(long, default_value = DEFAULT_CACHE_DIR, value_name = "DIR", env = "INQUIRY_CACHE_DIR", global = true)]
    pub cache_dir: PathBuf,
}

/// The cache actions.
#[derive(Debug, clap::Subcommand)]
pub enum CacheAction {
    /// Entries, size, dates and entries per model (`--json` for data).
    Stats {
        /// Print JSON on stdout.
        #[arg(long)]
        json: bool,
    },
    /// Delete every entry.
    Clear,
    /// Delete entries older than an age, e.g. `--older-than 14d` (units d, h, m, s).
    Prune {
        /// Age limit.
        #[arg(long, value_name = "AGE", value_parser = |s: &str| parse_age(s))]
        older_than: std::time::Duration,
    },
}

/// Runs one cache action.
///
/// # Errors
/// No cache in the directory, or a database error.
pub fn run(args: CacheArgs) -> anyhow::Result<ExitCode> {
    let file = args.cache_dir.join(crate::cache::CACHE_FILE);
    if !file.is_file() {
        anyhow::bail!(
            "--cache-dir {}: no response cache here ({} does not exist; evals with real providers create it)",
            args.cache_dir.display(),
            file.display()
        );
    }
    // Stats only read: the file is opened read-only and never changed.
    let cache = match args.action {
        CacheAction::Stats { .. } => ResponseCache::open_read_only(&args.cache_dir)?,
        _ => ResponseCache::open(&args.cache_dir, true)?,
    };
    match args.action {
        CacheAction::Stats { json } => {
            let stats = cache.stats()?;
            let text = if json {
                format!("{}\n", serde_json::to_string_pretty(&stats)?)
            } else {
                let mut t = format!(
                    "cache: {}\nentries: {}\nstored bodies: {:.1} KiB\n",
                    stats.path.display(),
                    stats.entries,
                    stats.body_bytes as f64 / 1024.0
                );
                if let (Some(o), Some(n)) = (&stats.oldest, &stats.newest) {
                    t.push_str(&format!("written: {o} … {n}\n"));
                }
                for (model, n) in &stats.by_model {
                    t.push_str(&format!("  {}: {n}\n", crate::text_file::escape_for_terminal(model, 120)));
                }
                t
            };
            super::print_stdout(&text)?;
        }
        CacheAction::Clear => {
            let n = cache.clear()?;
            eprintln!("deleted {n} entries from {}", cache.path().display());
        }
        CacheAction::Prune { older_than } => {
            let n = cache.prune(older_than)?;
            eprintln!("deleted {n} entries older than {} s from {}", older_than.as_secs(), cache.path().display());
        }
    }
    Ok(ExitCode::SUCCESS)
}
