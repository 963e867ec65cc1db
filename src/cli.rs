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
use std::time::Duration;

use anyhow::{bail, Context};
use clap::{Parser, Subcommand};

use crate::agent::{Limits, Outcome, RunResult};
use crate::app::{load_history, model_client_with, ConnectedAgent, Knowledge};
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
    Eval(EvalArgs),
    /// Score the golden set with the active embedder/reranker, show how answerable
    /// and unanswerable questions separate, and propose retrieval thresholds.
    Calibrate(CalibrateArgs),
    /// Answer one inquiry and show the reply, citations, tickets and tool trace.
    Ask(AskArgs),
    /// Serve the four tools and the policy pages over MCP (stdio, or Streamable HTTP at /mcp).
    ServeMcp(ServeArgs),
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

/// Agent limits, overridable per run (SPEC §6 defaults).
#[derive(Debug, Clone, clap::Args)]
pub struct LimitArgs {
    /// Most model calls per inquiry (at least 1).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_model_calls: u32,
    /// Token budget per inquiry (tokens, at least 1).
    #[arg(long, default_value_t = 80_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub token_budget: u64,
    /// Timeout of one model call (seconds, at least 1).
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..))]
    pub model_timeout: u64,
    /// Timeout of one tool call (seconds, at least 1).
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..))]
    pub tool_timeout: u64,
}

impl LimitArgs {
    /// The agent limits these flags describe.
    pub fn limits(&self) -> Limits {
        Limits {
            max_model_calls: self.max_model_calls,
            token_budget: self.token_budget,
            model_timeout: Duration::from_secs(self.model_timeout),
            tool_timeout: Duration::from_secs(self.tool_timeout),
            ..Limits::default()
        }
    }
}

/// Arguments of `inquiry ask`.
#[derive(Debug, clap::Args)]
pub struct AskArgs {
    /// The customer's inquiry.
    pub inquiry: String,
    /// Earlier exchanges: a JSON array of {"inquiry", "reply"} objects, oldest first (at most 5).
    #[arg(long, value_name = "FILE")]
    pub history: Option<PathBuf>,
    /// Catalogue directory holding listings.json and policies/.
    #[arg(long, default_value = "data", env = "INQUIRY_DATA")]
    pub data: PathBuf,
    /// Show a table of the tool calls (turn, tool, arguments, result, ms).
    #[arg(long)]
    pub trace: bool,
    /// Print the full structured result as JSON on stdout.
    #[arg(long, conflicts_with = "trace")]
    pub json: bool,
    /// Model: `demo` (offline, default), `anthropic:<id>` or `openai:<id>`.
    #[arg(long, default_value = "demo")]
    pub model: String,
    /// Provider base URL (overrides ANTHROPIC_BASE_URL / OPENAI_BASE_URL), e.g. a local vLLM server.
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// Retrieval settings.
    #[command(flatten)]
    pub retrieval: RetrievalArgs,
    /// Agent limits.
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// Arguments of `inquiry eval`.
#[derive(Debug, clap::Args)]
pub struct EvalArgs {
    /// Run only the cases marked `subset`.
    #[arg(long)]
    pub subset: bool,
    /// Run only this case (repeatable).
    #[arg(long = "case", value_name = "ID")]
    pub cases_selected: Vec<String>,
    /// Run only cases with this tag (repeatable).
    #[arg(long = "tag", value_name = "TAG")]
    pub tags: Vec<String>,
    /// Catalogue directory.
    #[arg(long, default_value = "data", env = "INQUIRY_DATA")]
    pub data: PathBuf,
    /// Case directory (*.yaml).
    #[arg(long = "cases", default_value = "cases", value_name = "DIR")]
    pub cases_dir: PathBuf,
    /// Retrieval golden set.
    #[arg(long, default_value = "golden/golden.yaml", value_name = "FILE")]
    pub golden: PathBuf,
    /// Directory of overlay catalogues used by cases (`fixtures:`).
    #[arg(long, default_value = "fixtures", value_name = "DIR")]
    pub fixtures: PathBuf,
    /// Metric thresholds.
    #[arg(long, default_value = "thresholds.json", value_name = "FILE")]
    pub thresholds: PathBuf,
    /// Price table (USD per million tokens by model id).
    #[arg(long, default_value = "prices.json", value_name = "FILE")]
    pub prices: PathBuf,
    /// Report name: files <out>/<name>.md, <name>.json, <name>/<case-id>.json.
    #[arg(long, default_value = "eval")]
    pub name: String,
    /// Output directory.
    #[arg(long, default_value = "reports", value_name = "DIR")]
    pub out: PathBuf,
    /// Judge: `rules` (offline, default), `llm` (needs --judge-model) or `none`.
    #[arg(long, default_value = "rules", value_parser = ["rules", "llm", "none"])]
    pub judge: String,
    /// Model of the LLM judge: `anthropic:<id>` or `openai:<id>`.
    #[arg(long, value_name = "MODEL")]
    pub judge_model: Option<String>,
    /// Judge rubric templates.
    #[arg(long, default_value = "rubrics", value_name = "DIR")]
    pub rubrics: PathBuf,
    /// Agent model: `demo` (offline, default), `anthropic:<id>` or `openai:<id>`.
    #[arg(long, default_value = "demo")]
    pub model: String,
    /// Base URL of the agent model's provider (overrides ANTHROPIC_BASE_URL / OPENAI_BASE_URL).
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// Base URL of the judge model's provider.
    #[arg(long, value_name = "URL")]
    pub judge_base_url: Option<String>,
    /// Runs per case (pass rate per case, pass^N for critical cases, flaky list).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub repeat: u32,
    /// Cases run at once.
    #[arg(short = 'j', long = "jobs", default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub jobs: u32,
    /// Also write a JUnit XML file (one test case per eval case).
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Print the JSON report on stdout.
    #[arg(long)]
    pub json: bool,
    /// Retrieval settings.
    #[command(flatten)]
    pub retrieval: RetrievalArgs,
    /// Agent limits.
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// Arguments of `inquiry calibrate`.
#[derive(Debug, clap::Args)]
pub struct CalibrateArgs {
    /// Retrieval golden set.
    #[arg(long, default_value = "golden/golden.yaml", value_name = "FILE")]
    pub golden: PathBuf,
    /// Catalogue directory.
    #[arg(long, default_value = "data", env = "INQUIRY_DATA")]
    pub data: PathBuf,
    /// Output directory for calibration-<date>.md/.json/.svg.
    #[arg(long, default_value = "reports", value_name = "DIR")]
    pub out: PathBuf,
    /// Report file stem instead of calibration-<date> (e.g. to keep one report per model).
    #[arg(long, value_name = "STEM")]
    pub name: Option<String>,
    /// Write the proposal into the thresholds file (only the active model's entry) and print the diff.
    #[arg(long)]
    pub write: bool,
    /// Print the JSON report on stdout.
    #[arg(long)]
    pub json: bool,
    /// Retrieval settings (the thresholds file is only read with --write).
    #[command(flatten)]
    pub retrieval: RetrievalArgs,
}

/// Arguments of `inquiry serve-mcp`.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// Serve Streamable HTTP at http://<bind>/mcp instead of stdio.
    #[arg(long)]
    pub http: bool,
    /// HTTP listen address (loopback by default).
    #[arg(long, default_value = crate::mcp::DEFAULT_BIND, requires = "http")]
    pub bind: std::net::SocketAddr,
    /// Allow binding to a non-loopback address. The server has no authentication.
    #[arg(long, requires = "http")]
    pub allow_remote: bool,
    /// Extra allowed browser Origin (scheme://host[:port], or :* for any port); repeatable.
    #[arg(long = "allowed-origin", value_name = "URL", requires = "http")]
    pub allowed_origins: Vec<String>,
    /// Extra allowed Host header value; repeatable.
    #[arg(long = "allowed-host", value_name = "HOST", requires = "http")]
    pub allowed_hosts: Vec<String>,
    /// Catalogue directory holding listings.json and policies/.
    #[arg(long, default_value = "data", env = "INQUIRY_DATA")]
    pub data: PathBuf,
    /// Retrieval settings for search_knowledge.
    #[command(flatten)]
    pub retrieval: RetrievalArgs,
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

fn decided(code: u8) {
    LAST_CODE.with(|c| c.set(code));
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
        Command::Eval(args) => eval(args),
        Command::Calibrate(args) => calibrate(args),
        Command::Ask(args) => ask(args),
        Command::ServeMcp(args) => serve_mcp(args),
        Command::Check(args) => check(args),
        Command::Tool(args) => tool(args),
    }
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
    // Check the cheap things before loading models.
    if !crate::tools::TOOL_NAMES.contains(&args.name.as_str()) {
        bail!("unknown tool \"{}\"; expected one of: {}", args.name, crate::tools::TOOL_NAMES.join(", "));
    }
    let json: serde_json::Value = serde_json::from_str(&args.arguments)
        .with_context(|| format!("tool arguments are not valid JSON: {}", args.arguments))?;
    let catalogue = Arc::new(Catalogue::load(&args.data)?);
    let retriever = args.retrieval.config().build(&catalogue)?;
    let toolbox = Toolbox::new(catalogue, Arc::new(retriever), Arc::new(HandoffQueue::new()));
    let result = crate::tools::call_json(&toolbox, &args.name, json);
    // A tool error is the caller's input being rejected: a usage error (2).
    // The error object still goes to stdout, as the tool returned it.
    let code = if result.is_error { 2 } else { 0 };
    decided(code);
    if result.is_error {
        let field = |k: &str| result.value.get(k).and_then(|v| v.as_str()).unwrap_or_default().to_owned();
        let hint = field("hint");
        eprintln!("error: {}{}", field("error"), if hint.is_empty() { String::new() } else { format!(" ({hint})") });
    }
    let mut out = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, &result.value)?;
    writeln!(out)?;
    Ok(ExitCode::from(code))
}

/// Fails before any work when `--out` names something that is not a directory
/// (it is created later when missing).
fn check_out_dir(out: &std::path::Path) -> anyhow::Result<()> {
    if out.exists() && !out.is_dir() {
        bail!("--out {}: is a file; expected a directory for the reports", out.display());
    }
    Ok(())
}

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread().enable_all().build().context("starting the async runtime")
}

fn ask(args: AskArgs) -> anyhow::Result<ExitCode> {
    if args.inquiry.trim().is_empty() {
        bail!("the inquiry is empty; expected the customer's message, e.g. inquiry ask \"Is heating included in HH-1001?\"");
    }
    let history = match &args.history {
        Some(path) => load_history(path)?,
        None => vec![],
    };
    let model = model_client_with(&args.model, args.base_url.as_deref())?;
    let knowledge = Knowledge::load(&args.data, None, &args.retrieval.config())?;
    let result = runtime()?.block_on(async {
        let connected = ConnectedAgent::connect(model, knowledge.toolbox(), args.limits.limits()).await?;
        let result = connected.agent.run(&args.inquiry, &history).await;
        connected.close().await;
        anyhow::Ok(result?)
    })?;
    if let Some(e) = &result.error {
        eprintln!("warning: the run ended with an error: {e}");
    }
    let mut out = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &result)?;
        writeln!(out)?;
    } else {
        write!(out, "{}", render_run(&result, args.trace))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Human-readable rendering of a run: reply, citations, tickets, outcome,
/// usage, and optionally the tool-call table.
pub fn render_run(result: &RunResult, trace: bool) -> String {
    let mut s = format!("{}\n\n", result.reply.trim_end());
    let cites = if result.citations.is_empty() { "none".to_owned() } else { result.citations.join(", ") };
    s.push_str(&format!("Citations: {cites}\n"));
    if result.handoffs.is_empty() {
        s.push_str("Tickets:   none\n");
    } else {
        for (i, t) in result.handoffs.iter().enumerate() {
            let label = if i == 0 { "Tickets:  " } else { "          " };
            let listing = t.listing_id.as_deref().unwrap_or("-");
            s.push_str(&format!("{label} {} {} (listing {listing})\n", t.ticket_id, t.reason));
        }
    }
    let outcome = match result.outcome {
        Outcome::Answered => "answered".to_owned(),
        Outcome::ForcedHandoff { cause } => format!("forced hand-off ({})", cause.as_str()),
    };
    s.push_str(&format!("Outcome:   {outcome}\n"));
    s.push_str(&format!(
        "Usage:     {} model calls, {} input / {} output tokens\n",
        result.model_calls, result.usage.input, result.usage.output
    ));
    if let Some(e) = &result.error {
        s.push_str(&format!("Error:     {e}\n"));
    }
    if trace {
        let mut table = comfy_table::Table::new();
        table.load_style(comfy_table::presets::UTF8_FULL_CONDENSED);
        table.set_header(["turn", "tool", "arguments", "result", "ms"]);
        for e in &result.trace {
            table.add_row([
                e.model_call.to_string(),
                e.tool.clone(),
                one_line(&e.arguments.to_string(), 60),
                one_line(&summarise_result(&e.tool, &e.result, e.is_error), 70),
                e.duration_ms.to_string(),
            ]);
        }
        s.push_str(&format!("\n{table}\n"));
        for g in &result.guard_events {
            s.push_str(&format!(
                "Guard ({}, call {}): {}\n",
                g.action,
                g.model_call,
                g.violations.iter().map(|v| v.to_string()).collect::<Vec<_>>().join("; ")
            ));
        }
    }
    s
}

fn summarise_result(tool: &str, v: &serde_json::Value, is_error: bool) -> String {
    if is_error {
        return format!("error: {}", v["error"].as_str().unwrap_or(""));
    }
    match tool {
        "search_listings" => {
            let ids: Vec<&str> = v["results"]
                .as_array()
                .map(|r| r.iter().filter_map(|l| l["id"].as_str()).collect())
                .unwrap_or_default();
            format!("{} found: {}", v["total"], ids.join(", "))
        }
        "get_listing" => format!("{} {}", v["id"].as_str().unwrap_or(""), v["title"].as_str().unwrap_or("")),
        "search_knowledge" if v["found"] == serde_json::json!(false) => {
            format!("found: false ({})", v["reason"].as_str().unwrap_or(""))
        }
        "search_knowledge" => {
            let ids: Vec<&str> = v["results"]
                .as_array()
                .map(|r| r.iter().filter_map(|h| h["chunkId"].as_str()).collect())
                .unwrap_or_default();
            format!("found: {}", ids.join(", "))
        }
        "hand_off_to_human" => {
            format!("{} {}", v["ticketId"].as_str().unwrap_or(""), v["reason"].as_str().unwrap_or(""))
        }
        _ => v.to_string(),
    }
}

fn one_line(s: &str, max: usize) -> String {
    let flat: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() > max {
        flat.chars().take(max.saturating_sub(1)).collect::<String>() + "…"
    } else {
        flat
    }
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

fn serve_mcp(args: ServeArgs) -> anyhow::Result<ExitCode> {
    let knowledge = Knowledge::load(&args.data, None, &args.retrieval.config())?;
    let toolbox = knowledge.toolbox();
    runtime()?.block_on(async move {
        if args.http {
            let options = crate::mcp::HttpOptions {
                bind: args.bind,
                allow_non_loopback: args.allow_remote,
                allowed_origins: args.allowed_origins,
                allowed_hosts: args.allowed_hosts,
            };
            let shutdown = async {
                let _ = tokio::signal::ctrl_c().await;
            };
            crate::mcp::serve_http(toolbox, options, shutdown).await
        } else {
            crate::mcp::serve_stdio(toolbox).await
        }
    })?;
    Ok(ExitCode::SUCCESS)
}

/// Progress on stderr: a bar on a terminal, plain lines otherwise.
struct EvalProgress {
    bar: Option<indicatif::ProgressBar>,
    total: std::sync::atomic::AtomicUsize,
    count: std::sync::atomic::AtomicUsize,
}

impl EvalProgress {
    fn new() -> Self {
        use std::io::IsTerminal;
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = indicatif::ProgressBar::with_draw_target(Some(0), indicatif::ProgressDrawTarget::stderr());
            if let Ok(style) = indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} cases {msg}") {
                bar.set_style(style);
            }
            bar
        });
        Self { bar, total: 0.into(), count: 0.into() }
    }
}

impl crate::eval::Progress for EvalProgress {
    fn start(&self, total: usize) {
        self.total.store(total, std::sync::atomic::Ordering::SeqCst);
        if let Some(bar) = &self.bar {
            bar.set_length(total as u64);
        }
    }
    fn done(&self, case_id: &str, passed: bool, latency_ms: u64) {
        let n = self.count.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
        let word = if passed { "pass" } else { "FAIL" };
        match &self.bar {
            Some(bar) => {
                bar.set_message(format!("{case_id} {word}"));
                bar.inc(1);
            }
            None => eprintln!(
                "[{n}/{}] {word} {case_id} ({latency_ms} ms)",
                self.total.load(std::sync::atomic::Ordering::SeqCst)
            ),
        }
    }
    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

fn eval(args: EvalArgs) -> anyhow::Result<ExitCode> {
    use crate::eval::{report, run_eval, EvalSetup, ModelFactory, Selection};
    check_out_dir(&args.out)?;
    let thresholds = crate::eval::metrics::Thresholds::load(&args.thresholds)?;
    let prices = crate::eval::prices::PriceTable::load(&args.prices)?;
    let model = model_client_with(&args.model, args.base_url.as_deref())?;
    let judge: Option<Arc<dyn crate::eval::judge::Judge>> = match args.judge.as_str() {
        "none" => None,
        "rules" => Some(Arc::new(crate::eval::judge::RuleJudge)),
        _ => {
            let spec =
                args.judge_model.as_deref().context("--judge llm needs --judge-model anthropic:<id> or openai:<id>")?;
            let judge_model = model_client_with(spec, args.judge_base_url.as_deref())?;
            Some(Arc::new(crate::eval::judge::LlmJudge::load(judge_model, &args.rubrics)?))
        }
    };
    if args.name.is_empty() || args.name.contains(['/', '\\']) || args.name.starts_with('.') {
        bail!("--name {:?}: expected a plain file name without slashes", args.name);
    }
    let setup = EvalSetup {
        data: args.data.clone(),
        cases_dir: args.cases_dir.clone(),
        golden: args.golden.clone(),
        fixtures: args.fixtures.clone(),
        retrieval: args.retrieval.config(),
        thresholds,
        selection: Selection { subset: args.subset, case_ids: args.cases_selected.clone(), tags: args.tags.clone() },
        concurrency: args.jobs as usize,
        repeat: args.repeat as usize,
        limits: args.limits.limits(),
        prices,
        name: args.name.clone(),
    };
    let model_id = model.id().to_owned();
    let factory: ModelFactory = Arc::new(move |_, _| model.clone());
    let progress = EvalProgress::new();
    let result = runtime()?.block_on(run_eval(
        &setup,
        Arc::new(crate::app::McpAgentRunner),
        &model_id,
        factory,
        judge,
        &progress,
    ))?;
    let written = report::write_reports(&result, &args.out)?;
    if let Some(path) = &args.junit {
        report::write_atomic(path, report::render_junit(&result)?.as_bytes())?;
    }
    if let Some(summary) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|s| !s.is_empty()) {
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&summary)
            .with_context(|| format!("GITHUB_STEP_SUMMARY {}: cannot open", PathBuf::from(&summary).display()))?;
        f.write_all(report::render_summary(&result).as_bytes())?;
    }
    eprint!("{}", report::render_terminal(&result));
    eprintln!("report: {} (traces in {})", written.markdown.display(), args.out.join(&args.name).display());
    let errors: Vec<String> = result
        .cases
        .iter()
        .flat_map(|c| c.runs.iter().map(move |r| (c, r)))
        .filter_map(|(c, r)| {
            r.error
                .clone()
                .or_else(|| r.result.as_ref().and_then(|x| x.error.clone()))
                .map(|e| format!("{}: {e}", c.id))
        })
        .collect();
    if !errors.is_empty() {
        eprintln!("warning: {} run(s) ended with an agent or provider error; first: {}", errors.len(), errors[0]);
    }
    decided(if result.passed() { 0 } else { 1 });
    if args.json {
        let mut out = std::io::stdout().lock();
        serde_json::to_writer_pretty(&mut out, &report::summary_json(&result))?;
        writeln!(out)?;
    }
    Ok(if result.passed() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

fn calibrate(args: CalibrateArgs) -> anyhow::Result<ExitCode> {
    use crate::calibrate::{calibrate, report, write_proposal};
    use crate::retrieval::{KeepRule, RetrievalSettings, Retriever};
    let config = args.retrieval.config();
    let date = chrono::Utc::now().format("%Y-%m-%d").to_string();
    let stem = args.name.clone().unwrap_or_else(|| format!("calibration-{date}"));
    if stem.is_empty() || stem.starts_with('.') || stem.contains(['/', '\\']) {
        bail!("--name {stem:?}: expected a plain file name without slashes or a leading dot");
    }
    check_out_dir(&args.out)?;
    let catalogue = Catalogue::load(&args.data)?;
    let golden = crate::golden::GoldenSet::load(&args.golden, &catalogue)?;
    if golden.answerable.is_empty() || golden.unanswerable.is_empty() {
        bail!(
            "{}: calibration needs answerable and unanswerable questions (found {} and {}): a threshold sits between the two",
            args.golden.display(),
            golden.answerable.len(),
            golden.unanswerable.len()
        );
    }
    let (embedder, reranker) = config.models()?;
    // Calibration measures raw signals: the keep rule is irrelevant here, so
    // a missing thresholds entry is not an error (that is what this command fixes).
    let keep = KeepRule::Fused { vector_z: f64::INFINITY, keyword_coverage: f64::INFINITY };
    let retriever = Retriever::build(
        &catalogue,
        RetrievalSettings { embedder, reranker, keep, cache_dir: config.cache_dir.clone() },
    )?;
    let result = calibrate(&golden, &retriever)?;
    if result.answerable == 0 {
        bail!(
            "{}: every answerable question is marked needs_real_embeddings, so none is measured with {}; calibrate with --embedder e5",
            args.golden.display(),
            result.embedder
        );
    }
    let svg_name = format!("{stem}.svg");
    crate::eval::report::write_atomic(&args.out.join(&svg_name), report::render_svg(&result).as_bytes())?;
    crate::eval::report::write_atomic(
        &args.out.join(format!("{stem}.md")),
        report::render_markdown(&result, &date, &svg_name).as_bytes(),
    )?;
    let json = serde_json::to_string_pretty(&result)? + "\n";
    crate::eval::report::write_atomic(&args.out.join(format!("{stem}.json")), json.as_bytes())?;
    eprint!("{}", report::render_terminal(&result));
    eprintln!("report: {}", args.out.join(format!("{stem}.md")).display());
    if args.write {
        let diff = write_proposal(&config.thresholds, &result.model_id, result.proposal, result.reranker.is_some())?;
        if diff.is_empty() {
            eprintln!("{}: entry `{}` already equals the proposal", config.thresholds.display(), result.model_id);
        } else {
            eprint!("{diff}");
        }
    }
    decided(if result.separates { 0 } else { 1 });
    if args.json {
        std::io::stdout().lock().write_all(json.as_bytes())?;
    }
    Ok(if result.separates { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
