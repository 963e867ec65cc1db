//! `inquiry view [DIR]…`: browse report sets in a local, read-only viewer.

use std::path::PathBuf;
use std::process::ExitCode;

use super::runtime;

/// Arguments of `inquiry view`.
#[derive(Debug, clap::Args)]
pub struct ViewArgs {
    /// Directories to scan for report sets (default: reports and runs).
    #[arg(value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// Listen address; loopback only.
    #[arg(long, default_value = crate::view::DEFAULT_BIND, value_parser = crate::view::parse_bind)]
    pub bind: std::net::SocketAddr,
}

/// Serves the viewer until Ctrl-C or SIGTERM.
///
/// # Errors
/// A named directory that does not exist, a non-loopback address, or a bind failure.
pub fn run(args: ViewArgs) -> anyhow::Result<ExitCode> {
    for dir in &args.dirs {
        if !dir.is_dir() {
            anyhow::bail!("{}: not a directory; expected a directory holding report sets", dir.display());
        }
    }
    let roots = if args.dirs.is_empty() { vec![PathBuf::from("reports"), PathBuf::from("runs")] } else { args.dirs };
    runtime()?.block_on(async move {
        let shutdown = async {
            let why = super::interrupt_signal().await;
            tracing::info!("view: {why}; shutting down");
        };
        let (addr, task) = crate::view::bind(roots.clone(), args.bind, shutdown).await?;
        let found = crate::view::scan(&roots);
        let dirs: Vec<String> = roots.iter().map(|r| r.display().to_string()).collect();
        eprintln!(
            "inquiry view: {} report set(s) under {}; open http://{addr}/ (Ctrl-C to stop)",
            found.sets.len(),
            dirs.join(", ")
        );
        if !found.without_html.is_empty() {
            eprintln!(
                "  not listed: {} set(s) without report.html (written before report.html existed, or judge-check sets)",
                found.without_html.len()
            );
        }
        if found.sets.is_empty() {
            eprintln!("  no report set yet: run `inquiry eval`; new sets appear without a restart");
        }
        task.await??;
        Ok(ExitCode::SUCCESS)
    })
}
