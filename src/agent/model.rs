//! The model interface: conversation in, text and/or tool calls out.
//!
//! Shaped for real providers (tool use, stop reasons, cache tokens): the
//! Anthropic and OpenAI-compatible clients map their wire formats onto these
//! types; the offline demo model and the scripted test model implement the
//! same trait.

use std::collections::VecDeque;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

/// A tool the model may call, as listed by the MCP server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ToolDefinition {
    /// Tool name, e.g. `search_listings`.
    pub name: String,
    /// What it does.
    pub description: String,
    /// JSON Schema of its arguments.
    pub input_schema: serde_json::Value,
}

/// A tool call requested by the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ToolCall {
    /// Provider-assigned id that the result refers to.
    pub id: String,
    /// Tool name.
    pub name: String,
    /// Arguments object.
    pub arguments: serde_json::Value,
}

/// The outcome of one tool call as the model sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ToolOutput {
    /// The call this answers.
    pub call_id: String,
    /// Tool name.
    pub name: String,
    /// The result JSON wrapped as untrusted data (see [`super::wrap_untrusted`]).
    pub content: String,
    /// True when the call failed; the content then holds `{error, hint}`.
    pub is_error: bool,
}

/// One conversation message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum Message {
    /// Text from the customer (or from the harness, e.g. a repair request).
    User {
        /// The text.
        text: String,
    },
    /// A model turn: optional text and any tool calls.
    Assistant {
        /// Text, if any.
        text: Option<String>,
        /// Requested tool calls.
        tool_calls: Vec<ToolCall>,
    },
    /// Results of the previous turn's tool calls, in call order.
    ToolResults {
        /// One output per call.
        results: Vec<ToolOutput>,
    },
}

/// Why the model stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// Finished its turn.
    EndTurn,
    /// Wants tool results.
    ToolUse,
    /// Hit the output token limit: the text is cut off.
    MaxTokens,
    /// Declined to answer.
    Refusal,
}

/// Token usage of one call or a whole run (tokens).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Usage {
    /// Input tokens billed at the normal rate.
    pub input: u64,
    /// Output tokens.
    pub output: u64,
    /// Input tokens read from the prompt cache.
    pub cache_read: u64,
    /// Input tokens written to the prompt cache.
    pub cache_write: u64,
}

impl Usage {
    /// Adds another usage to this one.
    pub fn add(&mut self, other: Usage) {
        self.input += other.input;
        self.output += other.output;
        self.cache_read += other.cache_read;
        self.cache_write += other.cache_write;
    }

    /// All tokens, the figure the run's token budget is checked against.
    pub fn total(&self) -> u64 {
        self.input + self.output + self.cache_read + self.cache_write
    }
}

/// What the model is asked.
#[derive(Debug, Clone, Copy)]
pub struct ModelRequest<'a> {
    /// System prompt (stable across calls; providers may cache it).
    pub system: &'a str,
    /// The conversation so far.
    pub messages: &'a [Message],
    /// Tools it may call.
    pub tools: &'a [ToolDefinition],
    /// Output token limit for this call.
    pub max_output_tokens: u32,
    /// Sample index (the 0-based repeat of an eval case). It is not sent to
    /// the provider; it is part of the response-cache key so that repeats are
    /// independent samples, not one answer replayed N times.
    pub sample: u32,
}

/// What the model answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ModelResponse {
    /// Text, if any.
    pub text: Option<String>,
    /// Tool calls, if any.
    pub tool_calls: Vec<ToolCall>,
    /// Why it stopped.
    pub stop: StopReason,
    /// Tokens of this call.
    pub usage: Usage,
    /// How the response cache took part, when one was used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<CacheUse>,
}

/// How one model call used the response cache.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CacheUse {
    /// The cache key (hex SHA-256, see `crate::cache::key`).
    pub key: String,
    /// Answered from the cache (true) or by the provider and then stored (false).
    pub hit: bool,
    /// Latency of the original provider call, for a hit (ms).
    pub recorded_latency_ms: Option<u64>,
}

impl ModelResponse {
    /// A final text answer.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            text: Some(text.into()),
            tool_calls: vec![],
            stop: StopReason::EndTurn,
            usage: Usage::default(),
            cache: None,
        }
    }

    /// A turn that calls tools.
    pub fn tools(calls: Vec<ToolCall>) -> Self {
        Self { text: None, tool_calls: calls, stop: StopReason::ToolUse, usage: Usage::default(), cache: None }
    }

    /// Sets the usage.
    pub fn with_usage(mut self, usage: Usage) -> Self {
        self.usage = usage;
        self
    }
}

/// Why a model call failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ModelError {
    /// No answer within the call timeout.
    #[error("model call timed out after {0} ms")]
    Timeout(u64),
    /// The provider answered with an error (after retries, if any).
    #[error("model provider error: {0}")]
    Provider(String),
    /// The answer could not be understood.
    #[error("malformed model response: {0}")]
    Malformed(String),
    /// `--cache replay` and no stored answer for this request (the key).
    #[error("no cached response for this request (--cache replay sends nothing); cache key {0}")]
    CacheMiss(String),
}

/// A language model with tool use.
#[async_trait::async_trait]
pub trait ModelClient: Send + Sync {
    /// Model id for reports and the price table, e.g. `demo` or `anthropic:claude-…`.
    fn id(&self) -> &str;
    /// One model call.
    ///
    /// # Errors
    /// [`ModelError`] on timeouts, provider errors and malformed answers.
    async fn complete(&self, request: ModelRequest<'_>) -> Result<ModelResponse, ModelError>;
}

/// A model that stamps every request with one sample index (the eval wraps
/// its model per repeat so the response cache keeps repeats apart).
pub struct WithSample {
    inner: std::sync::Arc<dyn ModelClient>,
    sample: u32,
}

impl WithSample {
    /// `inner`, called with `sample` as the request's sample index.
    pub fn new(inner: std::sync::Arc<dyn ModelClient>, sample: u32) -> Self {
        Self { inner, sample }
    }
}

#[async_trait::async_trait]
impl ModelClient for WithSample {
    fn id(&self) -> &str {
        self.inner.id()
    }

    async fn complete(&self, request: ModelRequest<'_>) -> Result<ModelResponse, ModelError> {
        self.inner.complete(ModelRequest { sample: self.sample, ..request }).await
    }
}

/// One scripted step: a response, an error, or a delay then a response.
#[derive(Debug, Clone)]
pub enum ScriptStep {
    /// Answer with this.
    Respond(ModelResponse),
    /// Fail with this.
    Fail(ModelError),
    /// Sleep this long (ms), then answer.
    Delay(u64, ModelResponse),
}

/// Test model: answers from a queue of canned steps, and records every request
/// it saw. An exhausted queue is a [`ModelError::Provider`] error.
#[derive(Debug, Default)]
pub struct ScriptedModel {
    steps: Mutex<VecDeque<ScriptStep>>,
    seen: Mutex<Vec<Vec<Message>>>,
}

impl ScriptedModel {
    /// A model that will answer with `steps` in order.
    pub fn new(steps: impl IntoIterator<Item = ScriptStep>) -> Self {
        Self { steps: Mutex::new(steps.into_iter().collect()), seen: Mutex::new(vec![]) }
    }

    /// The conversations it was called with, one per call.
    pub fn requests(&self) -> Vec<Vec<Message>> {
        self.seen.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

#[async_trait::async_trait]
impl ModelClient for ScriptedModel {
    fn id(&self) -> &str {
        "scripted"
    }

    async fn complete(&self, request: ModelRequest<'_>) -> Result<ModelResponse, ModelError> {
        self.seen.lock().unwrap_or_else(|p| p.into_inner()).push(request.messages.to_vec());
        let step = self.steps.lock().unwrap_or_else(|p| p.into_inner()).pop_front();
        match step {
            Some(ScriptStep::Respond(r)) => Ok(r),
            Some(ScriptStep::Fail(e)) => Err(e),
            Some(ScriptStep::Delay(ms, r)) => {
                tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
                Ok(r)
            }
            None => Err(ModelError::Provider("scripted model has no more responses".into())),
        }
    }
}
