//! `inquiry ask`: answer one inquiry and show the reply, citations, tickets and trace.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::bail;

use super::args::{CacheArgs, LimitArgs, RetrievalArgs};
use super::{decided, runtime};
use crate::agent::render::render_run;
use crate::agent::{ForcedCause, Outcome};
use crate::app::{load_history, ConnectedAgent, Knowledge};

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
    /// Model: `demo` (offline, default), `anthropic:<id>`, `bedrock:<id>` or `openai:<id>`.
    #[arg(long, default_value = "demo")]
    pub model: String,
    /// Provider base URL (overrides ANTHROPIC_BASE_URL / OPENAI_BASE_URL / AWS_ENDPOINT_URL_BEDROCK_RUNTIME), e.g. a local vLLM server.
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// AWS region of a `bedrock:` model (overrides AWS_REGION; default eu-central-1).
    #[arg(long, value_name = "REGION")]
    pub region: Option<String>,
    /// Retrieval settings.
    #[command(flatten)]
    pub retrieval: RetrievalArgs,
    /// Agent limits.
    #[command(flatten)]
    pub limits: LimitArgs,
    /// Response cache (real providers only).
    #[command(flatten)]
    pub cache: CacheArgs,
}

/// Runs the agent once and renders its result (or prints it as JSON).
///
/// # Errors
/// An empty inquiry, a bad history file, model or catalogue configuration errors.
pub fn run(args: AskArgs) -> anyhow::Result<ExitCode> {
    if args.inquiry.trim().is_empty() {
        bail!("the inquiry is empty; expected the customer's message, e.g. inquiry ask \"Is heating included in HH-1001?\"");
    }
    let history = match &args.history {
        Some(path) => load_history(path)?,
        None => vec![],
    };
    // Check the model settings (keys, URLs) before a cache directory is created for them.
    let flags = crate::app::ProviderFlags { base_url: args.base_url.as_deref(), region: args.region.as_deref() };
    crate::app::model_client_for(&args.model, flags, crate::providers::CacheSettings::off())?;
    let cache = args.cache.settings(&[args.model.as_str()])?;
    let model = crate::app::model_client_for(&args.model, flags, cache)?;
    let knowledge = Knowledge::load(&args.data, None, &args.retrieval.config())?;
    let result = runtime()?.block_on(async {
        let connected = ConnectedAgent::connect(model, knowledge.toolbox(), args.limits.limits()).await?;
        let result = connected.agent.run(&args.inquiry, &history).await;
        connected.close().await;
        anyhow::Ok(result?)
    })?;
    // The model could not be reached: the fixed fallback reply is not an
    // answer, so it is not shown as one (with --json the result still is).
    if let Outcome::ForcedHandoff { cause: ForcedCause::ModelError } = result.outcome {
        decided(2);
        if args.json {
            let mut out = std::io::stdout().lock();
            serde_json::to_writer_pretty(&mut out, &result)?;
            writeln!(out)?;
        }
        bail!(
            "the model `{}` could not answer: {}",
            result.model,
            crate::text_file::escape_for_terminal(result.error.as_deref().unwrap_or("unknown provider error"), 500)
        );
    }
    if let Some(e) = &result.error {
        eprintln!("warning: the run ended with an error: {}", crate::text_file::escape_for_terminal(e, 500));
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
