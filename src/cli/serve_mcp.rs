//! `inquiry serve-mcp`: the four tools and the policy pages over MCP.

use std::path::PathBuf;
use std::process::ExitCode;

use super::args::RetrievalArgs;
use super::runtime;
use crate::app::Knowledge;

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
    /// Also store every hand_off_to_human ticket in this desk database
    /// (the queue `inquiry serve` shows), e.g. .inquiry/desk.sqlite.
    #[arg(long, value_name = "DB")]
    pub tickets: Option<PathBuf>,
    /// Catalogue directory holding listings.json and policies/.
    #[arg(long, default_value = "data", env = "INQUIRY_DATA")]
    pub data: PathBuf,
    /// Retrieval settings for search_knowledge.
    #[command(flatten)]
    pub retrieval: RetrievalArgs,
}

/// Serves over stdio, or Streamable HTTP with `--http`, until the client leaves or Ctrl-C.
///
/// # Errors
/// Catalogue/retrieval load errors, a bind failure, or a refused non-loopback address.
pub fn run(args: ServeArgs) -> anyhow::Result<ExitCode> {
    let store = match &args.tickets {
        Some(db) => Some(std::sync::Arc::new(crate::desk::TicketStore::open(db)?)),
        None => None,
    };
    let knowledge = Knowledge::load(&args.data, None, &args.retrieval.config())?;
    let toolbox = match store {
        Some(store) => {
            knowledge.toolbox_with_sink(std::sync::Arc::new(crate::desk::StoreSink { store, source: "mcp" }))
        }
        None => knowledge.toolbox(),
    };
    runtime()?.block_on(async move {
        if args.http {
            let options = crate::mcp::HttpOptions {
                bind: args.bind,
                allow_non_loopback: args.allow_remote,
                allowed_origins: args.allowed_origins,
                allowed_hosts: args.allowed_hosts,
                ..crate::mcp::HttpOptions::default()
            };
            // Ctrl-C or SIGTERM: stop accepting, let open requests finish.
            let shutdown = async {
                let why = super::interrupt_signal().await;
                tracing::info!("serve-mcp: {why}; shutting down");
            };
            crate::mcp::serve_http(toolbox, options, shutdown).await
        } else {
            crate::mcp::serve_stdio(toolbox).await
        }
    })?;
    Ok(ExitCode::SUCCESS)
}
