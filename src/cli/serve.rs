//! `inquiry serve`: the inquiry desk over HTTP (live inquiries, the hand-off queue).

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use super::args::{CacheArgs, LimitArgs, RetrievalArgs};
use super::runtime;
use crate::app::Knowledge;
use crate::desk::{Desk, DeskOptions, TicketStore};

/// Arguments of `inquiry serve`.
#[derive(Debug, clap::Args)]
pub struct ServeDeskArgs {
    /// Listen address (loopback by default; see --allow-remote).
    #[arg(long, default_value = crate::desk::DEFAULT_BIND, value_parser = crate::view::parse_bind)]
    pub bind: std::net::SocketAddr,
    /// Ticket database (SQLite; created with its directory when missing).
    #[arg(long, default_value = crate::desk::DEFAULT_DB, value_name = "FILE", env = "INQUIRY_DESK_DB")]
    pub db: PathBuf,
    /// Serve on a non-loopback address; requires --token.
    #[arg(long)]
    pub allow_remote: bool,
    /// Bearer token every /api request must carry (Authorization: Bearer <token>).
    /// The desk page takes it once from its URL: http://HOST:PORT/#token=<token>.
    #[arg(long, env = "INQUIRY_DESK_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// Inquiries one client address may start per minute (and in one burst).
    #[arg(long, default_value_t = 30, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub rate_limit: u32,
    /// Catalogue directory holding listings.json and policies/.
    #[arg(long, default_value = "data", env = "INQUIRY_DATA")]
    pub data: PathBuf,
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
    /// Agent limits of each inquiry.
    #[command(flatten)]
    pub limits: LimitArgs,
    /// Response cache (real providers only).
    #[command(flatten)]
    pub cache: CacheArgs,
}

/// Serves the desk until Ctrl-C or SIGTERM.
///
/// # Errors
/// Model, catalogue or database errors; a non-loopback address without
/// --allow-remote, or --allow-remote without --token; a bind failure.
pub fn run(args: ServeDeskArgs) -> anyhow::Result<ExitCode> {
    if let Some(t) = &args.token {
        if !t.is_empty() && t.trim().is_empty() {
            anyhow::bail!("--token (or INQUIRY_DESK_TOKEN) is only whitespace; give a real secret, or leave it unset");
        }
    }
    let flags = crate::app::ProviderFlags { base_url: args.base_url.as_deref(), region: args.region.as_deref() };
    crate::app::model_client_for(&args.model, flags, crate::providers::CacheSettings::off())?;
    let cache = args.cache.settings(&[args.model.as_str()])?;
    let model = crate::app::model_client_for(&args.model, flags, cache)?;
    let store = Arc::new(TicketStore::open(&args.db)?);
    let knowledge = Knowledge::load(&args.data, None, &args.retrieval.config())?;
    let desk = Desk { catalogue: knowledge.catalogue, retriever: knowledge.retriever, model, store: store.clone() };
    let options = DeskOptions {
        bind: args.bind,
        allow_remote: args.allow_remote,
        token: args.token.as_deref().map(str::trim).filter(|t| !t.is_empty()).map(str::to_owned),
        inquiries_per_minute: args.rate_limit,
        limits: args.limits.limits(),
    };
    let token_note = if options.token.is_some() { "#token=<your token>" } else { "" };
    runtime()?.block_on(async move {
        let shutdown = async {
            let why = super::interrupt_signal().await;
            tracing::info!("serve: {why}; shutting down");
        };
        let (addr, task) = crate::desk::bind(desk, options, shutdown).await?;
        let open = store.counts()?.iter().find(|(s, _)| *s == crate::desk::TicketStatus::Open).map_or(0, |(_, n)| *n);
        eprintln!(
            "inquiry desk: open http://{addr}/{token_note} (Ctrl-C to stop); tickets in {} ({open} open)",
            store.path().display()
        );
        task.await??;
        anyhow::Ok(())
    })?;
    Ok(ExitCode::SUCCESS)
}
