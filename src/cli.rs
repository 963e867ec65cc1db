//! Command-line interface: argument types (clap derive) and dispatch.
//!
//! `main.rs` only calls [`main`]. Each subcommand resolves its arguments and
//! calls into the library; errors come back as `anyhow` values and are mapped to
//! exit codes here, in one place: 0 ok, 1 a threshold or separation miss, 2 a
//! usage, configuration or data error.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{bail, Context};
use clap::{Parser, Subcommand};

use crate::catalogue::Catalogue;
use crate::handoff::HandoffQueue;
use crate::retrieval::thresholds::DEFAULT_THRESHOLDS_FILE;
use crate::retrieval::{EmbedderChoice, RetrievalConfig};
use crate::tools::Toolbox;

/// Evaluate and calibrate a tool-using property-inquiry agent.
///
/// Everything runs offline by default: a rule-based demo model, a hashing
/// embedder, BM25 keyword search and a rule judge. Real providers and models are
/// configured, never required.
#[derive(Debug, Parser)]
#[command(name = "inquiry", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the 49-case suite and the retrieval golden set, write Markdown/JSON
    /// reports with a trace per case, exit 1 when a metric misses thresholds.json.
    Eval,
    /// Score the golden set with the active embedder/reranker, show how answerable
    /// and unanswerable questions separate, and propose retrieval thresholds.
    Calibrate,
    /// Answer one inquiry and show the reply, citations, tickets and tool trace.
    Ask,
    /// Serve the four tools and the policy pages over MCP (stdio, or Streamable HTTP at /mcp).
    ServeMcp,
    /// Validate a catalogue (listings.json + policies/*.md) and summarise it.
    Check(CheckArgs),
    /// Call one tool directly with JSON arguments and print its JSON result.
    Tool(ToolArgs),
}

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

/// Retrieval flags shared by every command that searches knowledge.
#[derive(Debug, Clone, clap::Args)]
pub struct RetrievalArgs {
    /// Embedder: `hashing` (offline default) or `e5` (multilingual-e5-small from --models).
    #[arg(long, default_value = "hashing", value_parser = |s: &str| s.parse::<EmbedderChoice>())]
    pub embedder: EmbedderChoice,
    /// Directory holding model folders (see scripts/fetch-models).
    #[arg(long, default_value = "models", value_name = "DIR")]
    pub models: PathBuf,
    /// Cross-encoder reranker: `none` or a model directory.
    #[arg(long, default_value = "none", value_name = "none|PATH")]
    pub reranker: String,
    /// Retrieval thresholds file (keyed by model id; written by `inquiry calibrate --write`).
    #[arg(long, default_value = DEFAULT_THRESHOLDS_FILE, value_name = "FILE")]
    pub retrieval_thresholds: PathBuf,
    /// Do not read or write the on-disk embedding cache (.cache/embeddings).
    #[arg(long)]
    pub no_cache: bool,
}

impl RetrievalArgs {
    /// The library configuration these flags describe.
    pub fn config(&self) -> RetrievalConfig {
        RetrievalConfig {
            embedder: self.embedder,
            models_dir: self.models.clone(),
            reranker: (self.reranker != "none").then(|| PathBuf::from(&self.reranker)),
            thresholds: self.retrieval_thresholds.clone(),
            cache_dir: (!self.no_cache).then(|| PathBuf::from(".cache/embeddings")),
        }
    }
}

/// Arguments of `inquiry tool`.
#[derive(Debug, clap::Args)]
pub struct ToolArgs {
    /// Tool name: search_listings, get_listing, search_knowledge or hand_off_to_human.
    pub name: String,
    /// Arguments as a JSON object, e.g. '{"city": "Hamburg", "maxPrice": 2000}'.
    #[arg(default_value = "{}")]
    pub arguments: String,
    /// Catalogue directory holding listings.json and policies/.
    #[arg(long, default_value = "data", env = "INQUIRY_DATA")]
    pub data: PathBuf,
    /// Retrieval settings for search_knowledge.
    #[command(flatten)]
    pub retrieval: RetrievalArgs,
}

/// Parses the process arguments, runs the command and maps the result to an exit code.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::from(2)
        }
    }
}

/// Runs a parsed command. `Ok` carries 0 or 1; every `Err` means exit 2.
///
/// # Errors
/// Usage, configuration and data errors, with context naming the file or flag.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Eval => not_yet("eval"),
        Command::Calibrate => not_yet("calibrate"),
        Command::Ask => not_yet("ask"),
        Command::ServeMcp => not_yet("serve-mcp"),
        Command::Check(args) => check(args),
        Command::Tool(args) => tool(args),
    }
}

fn not_yet(name: &str) -> anyhow::Result<ExitCode> {
    bail!("`inquiry {name}` is not yet available in this build")
}

fn check(args: CheckArgs) -> anyhow::Result<ExitCode> {
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

fn tool(args: ToolArgs) -> anyhow::Result<ExitCode> {
    let catalogue = Arc::new(Catalogue::load(&args.data)?);
    let retriever = args.retrieval.config().build(&catalogue)?;
    let toolbox = Toolbox::new(catalogue, Arc::new(retriever), Arc::new(HandoffQueue::new()));
    let json: serde_json::Value = serde_json::from_str(&args.arguments)
        .with_context(|| format!("tool arguments are not valid JSON: {}", args.arguments))?;
    if !crate::tools::TOOL_NAMES.contains(&args.name.as_str()) {
        bail!("unknown tool \"{}\"; expected one of: {}", args.name, crate::tools::TOOL_NAMES.join(", "));
    }
    let result = crate::tools::call_json(&toolbox, &args.name, json);
    let mut out = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, &result.value)?;
    writeln!(out)?;
    Ok(if result.is_error { ExitCode::from(1) } else { ExitCode::SUCCESS })
}
