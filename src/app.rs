//! Wiring: builds catalogues, retrievers, toolboxes, MCP clients and agents
//! from resolved settings. Commands (`ask`, `eval`, `serve-mcp`) call these so
//! they assemble the product the same way.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context as _;

use crate::agent::model::{ModelClient, ToolDefinition};
use crate::agent::{Agent, AgentRunner, HistoryTurn, Limits, ToolTransport, MAX_HISTORY};
use crate::mcp::InProcessClient;
use crate::tools::{JsonToolResult, Toolbox};

pub use crate::knowledge::Knowledge;

#[async_trait::async_trait]
impl ToolTransport for InProcessClient {
    async fn list_tools(&self) -> Result<Vec<ToolDefinition>, String> {
        let tools = InProcessClient::list_tools(self).await.map_err(|e| format!("{e:#}"))?;
        Ok(tools
            .into_iter()
            .map(|t| ToolDefinition { name: t.name, description: t.description, input_schema: t.input_schema })
            .collect())
    }

    async fn call_tool(&self, name: &str, arguments: serde_json::Value) -> Result<JsonToolResult, String> {
        InProcessClient::call_tool(self, name, arguments).await.map_err(|e| format!("{e:#}"))
    }
}

/// An agent connected over in-process MCP to a toolbox. Keep it alive for the
/// run; [`ConnectedAgent::close`] shuts the MCP session down.
pub struct ConnectedAgent {
    /// The agent.
    pub agent: Agent,
    client: Arc<InProcessClient>,
}

impl ConnectedAgent {
    /// Connects an in-process MCP client to `toolbox` and builds an agent on it.
    ///
    /// # Errors
    /// The MCP handshake failed.
    pub async fn connect(model: Arc<dyn ModelClient>, toolbox: Toolbox, limits: Limits) -> anyhow::Result<Self> {
        let client = Arc::new(InProcessClient::connect(toolbox).await.context("connecting the in-process MCP client")?);
        let agent = Agent::new(model, client.clone(), limits);
        Ok(Self { agent, client })
    }

    /// Closes the MCP session.
    pub async fn close(self) {
        drop(self.agent);
        if let Ok(client) = Arc::try_unwrap(self.client) {
            client.close().await;
        }
    }
}

/// Runs each inquiry through a fresh in-process MCP connection to the
/// toolbox it is given (the eval's way of reaching the agent).
#[derive(Debug, Default, Clone, Copy)]
pub struct McpAgentRunner;

#[async_trait::async_trait]
impl AgentRunner for McpAgentRunner {
    async fn run(
        &self,
        model: Arc<dyn ModelClient>,
        toolbox: Toolbox,
        limits: Limits,
        inquiry: &str,
        history: &[HistoryTurn],
    ) -> anyhow::Result<crate::agent::RunResult> {
        let connected = ConnectedAgent::connect(model, toolbox, limits).await?;
        let result = connected.agent.run(inquiry, history).await;
        connected.close().await;
        Ok(result?)
    }
}

/// Reads a history file: a JSON array of `{"inquiry", "reply"}` objects, oldest first.
///
/// # Errors
/// Unreadable file, invalid JSON (with line and column), unknown or missing
/// keys, more than [`MAX_HISTORY`] entries.
pub fn load_history(path: &PathBuf) -> anyhow::Result<Vec<HistoryTurn>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("{}: cannot read", path.display()))?;
    let turns: Vec<HistoryTurn> = crate::json_file::from_str(&text).map_err(|e| {
        anyhow::anyhow!(
            "{}: {e}; expected a JSON array of {{\"inquiry\": \"…\", \"reply\": \"…\"}} objects",
            path.display()
        )
    })?;
    if turns.len() > MAX_HISTORY {
        anyhow::bail!(
            "{}: {} earlier turns; at most {MAX_HISTORY} are allowed (older turns are not dropped silently)",
            path.display(),
            turns.len()
        );
    }
    Ok(turns)
}

/// Resolves `--model`: `demo` (default, offline), `anthropic:<id>`,
/// `bedrock:<id>` or `openai:<id>` (keys, base URLs, region and timeouts from the environment over a
/// `.env` file in the working directory; see [`crate::providers`]).
///
/// # Errors
/// An unknown model, a missing key, or a bad provider setting.
pub fn model_client(spec: &str) -> anyhow::Result<Arc<dyn ModelClient>> {
    model_client_with(spec, None)
}

/// Like [`model_client`], with a base URL from the command line that wins
/// over `ANTHROPIC_BASE_URL` / `OPENAI_BASE_URL` from the environment or `.env`.
///
/// # Errors
/// An unknown provider, or a provider whose settings are missing (e.g. no key).
pub fn model_client_with(spec: &str, base_url: Option<&str>) -> anyhow::Result<Arc<dyn ModelClient>> {
    model_client_cached(spec, base_url, crate::providers::CacheSettings::off())
}

/// Like [`model_client_with`], with every provider call going through the
/// response cache `cache` (the demo model needs none and ignores it).
///
/// # Errors
/// An unknown provider, or a provider whose settings are missing (e.g. no key).
pub fn model_client_cached(
    spec: &str,
    base_url: Option<&str>,
    cache: crate::providers::CacheSettings,
) -> anyhow::Result<Arc<dyn ModelClient>> {
    model_client_for(spec, ProviderFlags { base_url, region: None }, cache)
}

/// Provider settings given on the command line; they win over the
/// environment and `.env`.
#[derive(Debug, Clone, Copy, Default)]
pub struct ProviderFlags<'a> {
    /// `--base-url`: `ANTHROPIC_BASE_URL`, `OPENAI_BASE_URL` or (for Bedrock)
    /// `AWS_ENDPOINT_URL_BEDROCK_RUNTIME`.
    pub base_url: Option<&'a str>,
    /// `--region`: `AWS_REGION` (Bedrock only).
    pub region: Option<&'a str>,
}

/// Resolves `--model` with command-line provider settings and a response cache.
///
/// # Errors
/// An unknown provider, or a provider whose settings are missing or malformed
/// (no key, a bad region or Bedrock model id).
pub fn model_client_for(
    spec: &str,
    flags: ProviderFlags<'_>,
    cache: crate::providers::CacheSettings,
) -> anyhow::Result<Arc<dyn ModelClient>> {
    match spec {
        "demo" => Ok(Arc::new(crate::agent::demo::DemoModel)),
        other if ["anthropic:", "bedrock:", "openai:"].iter().any(|p| other.starts_with(p)) => {
            let mut env = crate::providers::Env::load(Path::new("."))?;
            if let Some(url) = flags.base_url {
                let name = match other.split(':').next() {
                    Some("anthropic") => "ANTHROPIC_BASE_URL",
                    Some("bedrock") => "AWS_ENDPOINT_URL_BEDROCK_RUNTIME",
                    _ => "OPENAI_BASE_URL",
                };
                env = env.with(name, url);
            }
            if let Some(region) = flags.region {
                env = env.with("AWS_REGION", region);
            }
            crate::providers::client_from_spec_cached(other, &env, cache)
                .unwrap_or_else(|| Err(anyhow::anyhow!("unknown model provider in `{other}`")))
        }
        other => anyhow::bail!(
            "unknown model `{other}`; expected demo, anthropic:<model-id>, bedrock:<model-id> or openai:<model-id>"
        ),
    }
}
