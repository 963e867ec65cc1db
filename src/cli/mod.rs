//! Command-line interface: the `Command` enum, dispatch, and the one place
//! where errors become exit codes.
//!
//! `main.rs` only calls [`main`]. Each subcommand lives in its own file here
//! (`eval.rs`, `ask.rs`, …): it turns flags into a library call and renders the
//! returned value. Flag groups shared by several commands are in [`args`].
//! Exit codes: 0 ok, 1 a threshold or separation miss, 2 a usage,
//! configuration or data error.
//!
//! A new subcommand is one new file under `src/cli/` (its `Args` struct and a
//! `run` function) and one line in [`Command`] (plus its dispatch arm).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Parser, Subcommand};

pub mod args;
pub mod ask;
pub mod cache;
pub mod calibrate;
pub mod cases;
pub mod check;
pub mod compare;
pub mod compare_retrieval;
pub mod eval;
pub mod history;
pub mod judge_check;
pub mod merge;
pub mod power;
pub mod rescore;
pub mod reviews;
pub mod schema;
pub mod serve;
pub mod serve_mcp;
pub mod tickets;
pub mod tool;
pub mod view;

/// Evaluate and calibrate a tool-using property-inquiry agent.
///
/// Everything runs offline by default: a rule-based demo model, a hashing
/// embedder, BM25 keyword search and a rule judge. Real providers and models are
/// configured, never required.
#[derive(Debug, Parser)]
#[command(name = "inquiry", version, about, long_about = None)]
pub struct Cli {
    /// Run as if started in DIR: relative paths (data/, cases/, thresholds files,
    /// models/, reports/) resolve against it. Useful for MCP clients that start
    /// the server from elsewhere.
    #[arg(short = 'C', long = "dir", global = true, env = "INQUIRY_HOME", value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
// Parsed once per process; boxing the large variants would only add noise.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the 49-case suite and the retrieval golden set, write Markdown/JSON
    /// reports with a trace per case, exit 1 when a metric misses thresholds.json.
    Eval(eval::EvalArgs),
    /// Score the golden set with the active embedder/reranker, show how answerable
    /// and unanswerable questions separate, and propose retrieval thresholds.
    Calibrate(calibrate::CalibrateArgs),
    /// Answer one inquiry and show the reply, citations, tickets and tool trace.
    Ask(ask::AskArgs),
    /// Serve the four tools and the policy pages over MCP (stdio, or Streamable HTTP at /mcp).
    ServeMcp(serve_mcp::ServeArgs),
    /// Serve the inquiry desk over HTTP: live inquiries with their tool calls,
    /// and the hand-off queue kept in SQLite (.inquiry/desk.sqlite).
    Serve(serve::ServeDeskArgs),
    /// List, show and close the desk's hand-off tickets.
    Tickets(tickets::TicketsArgs),
    /// Validate a catalogue (listings.json + policies/*.md) and summarise it.
    Check(check::CheckArgs),
    /// Call one tool directly with JSON arguments and print its JSON result.
    Tool(tool::ToolArgs),
    /// Grade the hand-labelled replies (labels/) with a judge and report its
    /// agreement with the human verdicts: Cohen's κ, false passes and fails.
    JudgeCheck(judge_check::JudgeCheckArgs),
    /// Compare a candidate report with a baseline: flips, paired test,
    /// metric deltas, and gates (--max-drop, --critical-all-runs, …).
    Compare(compare::CompareArgs),
    /// Compare two retrieval configurations (embedder, reranker, thresholds)
    /// on the same golden set: paired differences of recall@1/@5, MRR and
    /// nDCG@5 with bootstrap intervals, and the questions that changed.
    CompareRetrieval(compare_retrieval::CompareRetrievalArgs),
    /// Print an eval history (eval --history FILE.jsonl) and draw its SVG trend.
    History(history::HistoryArgs),
    /// Merge the shard reports of one run (eval --shard i/n) into one report
    /// and apply the thresholds again.
    Merge(merge::MergeArgs),
    /// Browse report sets (report.html) in a local, read-only viewer on loopback.
    View(view::ViewArgs),
    /// What a suite can detect: the minimum detectable drop at 80% power,
    /// and the cases or repeats needed for a target drop.
    Power(power::PowerArgs),
    /// Re-grade a stored report set with the current cases, rubrics and
    /// thresholds (no agent, no tool call) and list every changed verdict.
    Rescore(rescore::RescoreArgs),
    /// Print (or --write) the JSON Schemas of report.json and the case traces.
    Schema(schema::SchemaArgs),
    /// Look after the model-response cache: stats, clear, prune --older-than 14d.
    Cache(cache::CacheArgs),
    /// Add a case draft made from a run's trace (cases add --from-trace).
    Cases(cases::CasesArgs),
    /// Export the review database to the labels/ YAML format, or import labels into it.
    Reviews(reviews::ReviewsArgs),
}

/// Parses the process arguments, runs the command and maps the result to an exit code.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging();
    match run(cli) {
        Ok(code) => code,
        // A reader that closed stdout early (`inquiry eval --json | head`) is
        // not an error of ours; the verdict already went to stderr.
        Err(err) if is_broken_pipe(&err) => LAST_CODE.with(|c| ExitCode::from(c.get())),
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::from(2)
        }
    }
}

thread_local! {
    /// The exit code a command decided before writing its stdout data (kept
    /// when a closed pipe interrupts that write).
    static LAST_CODE: std::cell::Cell<u8> = const { std::cell::Cell::new(0) };
}

/// Records the exit code a command decided before it writes its stdout data.
pub(crate) fn decided(code: u8) {
    LAST_CODE.with(|c| c.set(code));
}

/// Writes data to stdout; a reader that closed the pipe early comes back as
/// an error (`main` ends quietly with the decided exit code), never a panic
/// as `println!` would.
///
/// # Errors
/// The write failed (a closed pipe included).
pub(crate) fn print_stdout(text: &str) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            || e.downcast_ref::<serde_json::Error>().and_then(|j| j.io_error_kind())
                == Some(std::io::ErrorKind::BrokenPipe)
    })
}

/// Runs a parsed command. `Ok` carries 0 or 1; every `Err` means exit 2.
///
/// # Errors
/// Usage, configuration and data errors, with context naming the file or flag.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    if let Some(dir) = &cli.dir {
        std::env::set_current_dir(dir)
            .with_context(|| format!("-C {}: cannot change into this directory", dir.display()))?;
    }
    match cli.command {
        Command::Eval(args) => eval::run(args),
        Command::Calibrate(args) => calibrate::run(args),
        Command::Ask(args) => ask::run(args),
        Command::ServeMcp(args) => serve_mcp::run(args),
        Command::Serve(args) => serve::run(args),
        Command::Tickets(args) => tickets::run(args),
        Command::Cases(args) => cases::run(args),
        Command::Reviews(args) => reviews::run(args),
        Command::Check(args) => check::run(args),
        Command::Tool(args) => tool::run(args),
        Command::JudgeCheck(args) => judge_check::run(args),
        Command::Cache(args) => cache::run(args),
        Command::Rescore(args) => rescore::run(args),
        Command::Compare(args) => compare::run(args),
        Command::CompareRetrieval(args) => compare_retrieval::run(args),
        Command::History(args) => history::run(args),
        Command::Merge(args) => merge::run(args),
        Command::Power(args) => power::run(args),
        Command::View(args) => view::run(args),
        Command::Schema(args) => schema::run(args),
    }
}

/// Resolves on the first Ctrl-C (SIGINT) or SIGTERM, naming it; a second
/// Ctrl-C is left to the default handler only after this returns.
pub(crate) fn interrupt_signal() -> crate::eval::Interrupt {
    Box::pin(async {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{signal, SignalKind};
            match signal(SignalKind::terminate()) {
                Ok(mut term) => tokio::select! {
                    _ = tokio::signal::ctrl_c() => "interrupted by SIGINT (Ctrl-C)".to_owned(),
                    _ = term.recv() => "interrupted by SIGTERM".to_owned(),
                },
                Err(_) => {
                    let _ = tokio::signal::ctrl_c().await;
                    "interrupted by SIGINT (Ctrl-C)".to_owned()
                }
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
            "interrupted by Ctrl-C".to_owned()
        }
    })
}

/// A multi-threaded tokio runtime for the async library calls.
pub(crate) fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread().enable_all().build().context("starting the async runtime")
}

/// Logs go to stderr (never stdout: it carries data and MCP frames), at
/// `RUST_LOG` level (default `warn`), without colour when `NO_COLOR` is set or
/// stderr is not a terminal.
fn init_logging() {
    use std::io::IsTerminal;
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let ansi = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let _ = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).with_ansi(ansi).try_init();
}

/// The loud line on stderr for an INCONCLUSIVE comparison.
pub(crate) fn warn_inconclusive(c: &crate::analysis::compare::Comparison) {
    if c.verdict == "INCONCLUSIVE" {
        eprintln!(
            "INCONCLUSIVE: this suite cannot decide {} (see the interval and the power line); exit {}{}",
            c.gates
                .iter()
                .filter(|g| g.outcome == crate::analysis::compare::GateOutcome::Inconclusive)
                .map(|g| g.gate.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            c.exit_code(),
            if c.inconclusive_fails { " (--inconclusive fail)" } else { "; --inconclusive fail makes it exit 1" }
        );
    }
}
