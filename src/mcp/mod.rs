//! MCP adapter (SPEC §4, §9): the four tools and the policy pages served to
//! external assistants over stdio or Streamable HTTP, and an in-process client
//! through which the built-in agent reaches the same server.
//!
//! This is the only module that knows MCP; the domain modules stay free of it.
//! Over stdio, stdout carries nothing but protocol frames: logs go to stderr.

mod client;
mod frames;
mod http;
mod server;

pub use client::{InProcessClient, ToolDefinition};
pub use frames::DUPLICATE_ARGUMENT_META;
pub use http::{bind_http, serve_http, HttpOptions, DEFAULT_ALLOWED_ORIGINS, DEFAULT_BIND, MCP_PATH};
pub use server::{InquiryServer, POLICY_MIME, POLICY_SCHEME};

use anyhow::Context as _;
use rmcp::ServiceExt as _;

use crate::tools::Toolbox;

/// Serves the tools over stdio until the client closes stdin (or the
/// connection fails). stdout carries only MCP frames.
///
/// # Errors
/// The MCP handshake failed (e.g. stdin closed before `initialize`) or the
/// connection broke.
pub async fn serve_stdio(toolbox: Toolbox) -> anyhow::Result<()> {
    tracing::info!("serving MCP over stdio");
    let (stdin, stdout) = rmcp::transport::stdio_pipes();
    let running = InquiryServer::new(toolbox)
        .serve((frames::checked_lines(stdin), stdout))
        .await
        .context("MCP handshake over stdio failed")?;
    let reason = running.waiting().await.context("MCP stdio service failed")?;
    tracing::info!(?reason, "MCP stdio session ended");
    Ok(())
}
