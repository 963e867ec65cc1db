//! The in-process MCP client of the built-in agent: an [`InquiryServer`] served
//! over an in-memory duplex pipe, with an rmcp client on the other end. The
//! agent thus sees exactly the tools, schemas and results that `serve-mcp`
//! exposes to external assistants.

use anyhow::Context as _;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{RoleClient, RunningService};
use rmcp::ServiceExt as _;
use serde::Serialize;
use serde_json::{json, Value};
use tokio::task::JoinHandle;

use super::InquiryServer;
use crate::tools::{JsonToolResult, Toolbox, TOOL_NAMES};

/// Buffer of the in-memory pipe between client and server.
const PIPE_BYTES: usize = 256 * 1024;

/// A tool as the model sees it: name, description, JSON Schema of the arguments.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolDefinition {
    /// Tool name, e.g. `search_listings`.
    pub name: String,
    /// What the tool does and returns.
    pub description: String,
    /// JSON Schema (2020-12) of the arguments object.
    pub input_schema: Value,
}

/// An MCP client connected in-process to an [`InquiryServer`].
pub struct InProcessClient {
    client: RunningService<RoleClient, ()>,
    server: JoinHandle<()>,
}

impl std::fmt::Debug for InProcessClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InProcessClient").finish_non_exhaustive()
    }
}

impl InProcessClient {
    /// Starts a server over `toolbox` (sharing its ticket queue) and connects to it.
    ///
    /// # Errors
    /// The MCP handshake failed.
    pub async fn connect(toolbox: Toolbox) -> anyhow::Result<Self> {
        let (server_io, client_io) = tokio::io::duplex(PIPE_BYTES);
        let server = tokio::spawn(async move {
            match InquiryServer::new(toolbox).serve(server_io).await {
                Ok(running) => {
                    if let Err(e) = running.waiting().await {
                        tracing::warn!("in-process MCP server stopped abnormally: {e}");
                    }
                }
                Err(e) => tracing::warn!("in-process MCP server handshake failed: {e}"),
            }
        });
        match ().serve(client_io).await {
            Ok(client) => Ok(Self { client, server }),
            Err(e) => {
                server.abort();
                Err(anyhow::Error::new(e).context("connecting the in-process MCP client failed"))
            }
        }
    }

    /// The server's tools in their stable order.
    ///
    /// # Errors
    /// A transport or protocol failure.
    pub async fn list_tools(&self) -> anyhow::Result<Vec<ToolDefinition>> {
        let tools = self.client.list_all_tools().await.context("MCP tools/list failed")?;
        Ok(tools
            .into_iter()
            .map(|t| ToolDefinition {
                name: t.name.to_string(),
                description: t.description.map(|d| d.to_string()).unwrap_or_default(),
                input_schema: Value::Object(t.input_schema.as_ref().clone()),
            })
            .collect())
    }

    /// Calls a tool. A tool failure (invalid arguments, unknown id, unknown
    /// tool name) is `Ok` with `is_error: true` and `{error, hint}`.
    ///
    /// # Errors
    /// A transport or protocol failure.
    pub async fn call_tool(&self, name: &str, arguments: Value) -> anyhow::Result<JsonToolResult> {
        if !TOOL_NAMES.contains(&name) {
            return Ok(tool_error(
                format!("unknown tool \"{}\"", crate::text_file::escape_for_terminal(name, 80)),
                format!("use one of: {}", TOOL_NAMES.join(", ")),
            ));
        }
        let mut params = CallToolRequestParams::new(name.to_owned());
        match arguments {
            Value::Object(args) => params = params.with_arguments(args),
            Value::Null => {}
            other => {
                return Ok(tool_error(
                    format!(
                        "invalid arguments for {name}: expected a JSON object, found {}",
                        crate::json_file::kind(&other)
                    ),
                    format!("call {name} with arguments that match its input schema"),
                ))
            }
        }
        let result = self.client.call_tool(params).await.with_context(|| format!("MCP tools/call {name} failed"))?;
        Ok(to_json_result(result))
    }

    /// Closes the connection and stops the server.
    pub async fn close(self) {
        let Self { client, server } = self;
        if let Err(e) = client.cancel().await {
            tracing::debug!("closing the in-process MCP client: {e}");
        }
        if tokio::time::timeout(std::time::Duration::from_secs(5), server).await.is_err() {
            tracing::debug!("in-process MCP server did not stop within 5 s");
        }
    }
}

fn tool_error(error: String, hint: String) -> JsonToolResult {
    JsonToolResult { value: json!({ "error": error, "hint": hint }), is_error: true }
}

/// Structured content when present, else the text content parsed as JSON
/// (or kept as a string when it is not JSON).
fn to_json_result(result: CallToolResult) -> JsonToolResult {
    let is_error = result.is_error.unwrap_or(false);
    let value = match result.structured_content {
        Some(value) => value,
        None => {
            let text: String = result.content.iter().filter_map(|c| c.as_text()).map(|t| t.text.as_str()).collect();
            serde_json::from_str(&text).unwrap_or(Value::String(text))
        }
    };
    JsonToolResult { value, is_error }
}
