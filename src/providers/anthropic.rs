//! Anthropic Messages API (`POST {base}/v1/messages`): tool use, prompt
//! caching on the stable prefix (system prompt and tool definitions), and
//! cache token usage.

use serde_json::{json, Value};

use super::cached::{self, CacheSettings, CallSite};
use super::http::{HttpClient, HttpConfig, Secret};
use crate::agent::model::{Message, ModelClient, ModelError, ModelRequest, ModelResponse, StopReason, ToolCall, Usage};

/// Default API root.
pub const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";
/// The `anthropic-version` header sent.
pub const API_VERSION: &str = "2023-06-01";

/// A Claude model over the Messages API.
#[derive(Debug)]
pub struct AnthropicClient {
    id: String,
    model: String,
    url: String,
    base_url: String,
    http: HttpClient,
    cache: CacheSettings,
}

impl AnthropicClient {
    /// A client for `model` (e.g. `claude-sonnet-4-5`) at `base_url` (without
    /// `/v1`) with `key`.
    ///
    /// # Errors
    /// The HTTP client could not be built.
    pub fn new(model: &str, base_url: &str, key: Secret, config: HttpConfig) -> anyhow::Result<Self> {
        Ok(Self {
            id: format!("anthropic:{model}"),
            model: model.to_owned(),
            url: format!("{}/v1/messages", base_url.trim_end_matches('/')),
            base_url: base_url.trim_end_matches('/').to_owned(),
            http: HttpClient::new("anthropic", Some(key), config)?,
            cache: CacheSettings::off(),
        })
    }

    /// This client with a response cache (see [`crate::cache`]).
    pub fn with_cache(mut self, cache: CacheSettings) -> Self {
        self.cache = cache;
        self
    }

    /// The request body for one call.
    pub fn request_body(&self, request: &ModelRequest<'_>) -> Value {
        messages_body(("model", &self.model), request)
    }
}

/// A Messages API body for `request`: the `head` field first (the Anthropic
/// API's `model`; Bedrock's `anthropic_version`, its model being in the URL),
/// then `max_tokens`, `messages`, and the stable prefix with prompt-cache
/// points: `system`, then `tools` with a cache point on the last tool.
pub(crate) fn messages_body(head: (&str, &str), request: &ModelRequest<'_>) -> Value {
    let mut body = json!({
        head.0: head.1,
        "max_tokens": request.max_output_tokens,
        "messages": messages(request.messages),
    });
    if !request.system.is_empty() {
        body["system"] = json!([{
            "type": "text",
            "text": request.system,
            "cache_control": {"type": "ephemeral"},
        }]);
    }
    if !request.tools.is_empty() {
        let mut tools: Vec<Value> = request
            .tools
            .iter()
            .map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.input_schema}))
            .collect();
        if let Some(last) = tools.last_mut() {
            last["cache_control"] = json!({"type": "ephemeral"});
        }
        body["tools"] = Value::Array(tools);
    }
    body
}

/// Maps the conversation onto Messages API turns. Consecutive messages of one
/// role are merged into one turn (the API wants alternating roles).
fn messages(conversation: &[Message]) -> Vec<Value> {
    let mut out: Vec<(&'static str, Vec<Value>)> = vec![];
    for message in conversation {
        let (role, blocks) = match message {
            Message::User { text } => ("user", vec![json!({"type": "text", "text": text})]),
            Message::Assistant { text, tool_calls } => {
                let mut blocks = vec![];
                if let Some(t) = text.as_deref().filter(|t| !t.trim().is_empty()) {
                    blocks.push(json!({"type": "text", "text": t}));
                }
                for call in tool_calls {
                    let input = if call.arguments.is_object() { call.arguments.clone() } else { json!({}) };
                    blocks.push(json!({"type": "tool_use", "id": call.id, "name": call.name, "input": input}));
                }
                if blocks.is_empty() {
                    // The API rejects empty turns and empty text blocks.
                    blocks.push(json!({"type": "text", "text": "(no reply)"}));
                }
                ("assistant", blocks)
            }
            Message::ToolResults { results } => (
                "user",
                results
                    .iter()
                    .map(|r| {
                        json!({"type": "tool_result", "tool_use_id": r.call_id, "content": r.content, "is_error": r.is_error})
                    })
                    .collect(),
            ),
        };
        match out.last_mut() {
            Some((last_role, last_blocks)) if *last_role == role => last_blocks.extend(blocks),
            _ => out.push((role, blocks)),
        }
    }
    out.into_iter().map(|(role, content)| json!({"role": role, "content": content})).collect()
}

/// Parses a Messages API response.
///
/// # Errors
/// [`ModelError::Malformed`] when `content` is missing or a block is not shaped
/// as documented; [`ModelError::Provider`] for an `error` object.
pub fn parse_response(v: &Value) -> Result<ModelResponse, ModelError> {
    if v.get("type").and_then(Value::as_str) == Some("error") {
        let message = v.pointer("/error/message").and_then(Value::as_str).unwrap_or("unknown error");
        return Err(ModelError::Provider(format!("anthropic answered an error: {message}")));
    }
    let content = v
        .get("content")
        .and_then(Value::as_array)
        .ok_or_else(|| ModelError::Malformed("anthropic response has no `content` array".into()))?;
    let mut text = String::new();
    let mut calls = vec![];
    for (i, block) in content.iter().enumerate() {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => {
                let t = block.get("text").and_then(Value::as_str).ok_or_else(|| {
                    ModelError::Malformed(format!("anthropic content block {i}: text block without `text`"))
                })?;
                text.push_str(t);
            }
            Some("tool_use") => {
                let field = |name: &str| {
                    block.get(name).and_then(Value::as_str).map(str::to_owned).ok_or_else(|| {
                        ModelError::Malformed(format!("anthropic content block {i}: tool_use without `{name}`"))
                    })
                };
                let input = block.get("input").cloned().unwrap_or_else(|| json!({}));
                if !input.is_object() {
                    return Err(ModelError::Malformed(format!(
                        "anthropic content block {i}: tool_use `input` is not an object"
                    )));
                }
                calls.push(ToolCall { id: field("id")?, name: field("name")?, arguments: input });
            }
            // Thinking and other block types carry nothing the loop uses.
            Some(_) => {}
            None => return Err(ModelError::Malformed(format!("anthropic content block {i} has no `type`"))),
        }
    }
    let stop = match v.get("stop_reason").and_then(Value::as_str) {
        Some("tool_use") => StopReason::ToolUse,
        Some("max_tokens" | "model_context_window_exceeded") => StopReason::MaxTokens,
        Some("refusal") => StopReason::Refusal,
        Some("end_turn" | "stop_sequence" | "pause_turn") => StopReason::EndTurn,
        _ if !calls.is_empty() => StopReason::ToolUse,
        _ => StopReason::EndTurn,
    };
    let count = |name: &str| v.pointer(&format!("/usage/{name}")).and_then(Value::as_u64).unwrap_or(0);
    let usage = Usage {
        input: count("input_tokens"),
        output: count("output_tokens"),
        cache_read: count("cache_read_input_tokens"),
        cache_write: count("cache_creation_input_tokens"),
    };
    Ok(ModelResponse { text: (!text.is_empty()).then_some(text), tool_calls: calls, stop, usage, cache: None })
}

#[async_trait::async_trait]
impl ModelClient for AnthropicClient {
    fn id(&self) -> &str {
        &self.id
    }

    async fn complete(&self, request: ModelRequest<'_>) -> Result<ModelResponse, ModelError> {
        let body = self.request_body(&request);
        let key = self.http.key().map(|k| k.expose().to_owned()).unwrap_or_default();
        let headers = [("x-api-key", key), ("anthropic-version", API_VERSION.to_owned())];
        let site = CallSite { provider: "anthropic", model: &self.model, base_url: &self.base_url };
        let fetch = || self.http.post_json(&self.url, &headers, &body);
        cached::call(&self.cache, site, &body, request.sample, fetch, parse_response)
            .await
            .map_err(|e| self.http.redact_error(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::model::{ToolDefinition, ToolOutput};

    fn client() -> AnthropicClient {
        AnthropicClient::new("claude-x", "http://127.0.0.1:1/", Secret::new("k"), HttpConfig::default()).unwrap()
    }

    #[test]
    fn request_maps_roles_blocks_and_cache_points() {
        let conversation = vec![
            Message::User { text: "rent of HH-1001?".into() },
            Message::Assistant {
                text: Some("Let me check.".into()),
                tool_calls: vec![ToolCall {
                    id: "toolu_1".into(),
                    name: "get_listing".into(),
                    arguments: json!({"id": "HH-1001"}),
                }],
            },
            Message::ToolResults {
                results: vec![ToolOutput {
                    call_id: "toolu_1".into(),
                    name: "get_listing".into(),
                    content: "{}".into(),
                    is_error: true,
                }],
            },
            Message::User { text: "repair".into() },
        ];
        let tools = vec![
            ToolDefinition { name: "a".into(), description: "A".into(), input_schema: json!({"type": "object"}) },
            ToolDefinition { name: "b".into(), description: "B".into(), input_schema: json!({"type": "object"}) },
        ];
        let request =
            ModelRequest { system: "sys", messages: &conversation, tools: &tools, max_output_tokens: 99, sample: 0 };
        let body = client().request_body(&request);
        assert_eq!(client().url, "http://127.0.0.1:1/v1/messages");
        assert_eq!(body["max_tokens"], 99);
        assert_eq!(body["system"][0]["cache_control"]["type"], "ephemeral");
        assert!(body["tools"][0].get("cache_control").is_none());
        assert_eq!(body["tools"][1]["cache_control"]["type"], "ephemeral");
        let messages = body["messages"].as_array().unwrap();
        assert_eq!(messages.len(), 3, "tool results and the next user text merge: {messages:#?}");
        assert_eq!(messages[1]["content"][1]["type"], "tool_use");
        assert_eq!(messages[1]["content"][1]["input"]["id"], "HH-1001");
        assert_eq!(messages[2]["content"][0]["type"], "tool_result");
        assert_eq!(messages[2]["content"][0]["tool_use_id"], "toolu_1");
        assert_eq!(messages[2]["content"][0]["is_error"], true);
        assert_eq!(messages[2]["content"][1]["text"], "repair");
    }

    #[test]
    fn no_tools_means_no_tools_field() {
        let conversation = vec![Message::User { text: "x".into() }];
        let request = ModelRequest { system: "", messages: &conversation, tools: &[], max_output_tokens: 5, sample: 0 };
        let body = client().request_body(&request);
        assert!(body.get("tools").is_none());
        assert!(body.get("system").is_none());
    }

    #[test]
    fn stop_reasons_map() {
        for (wire, stop) in [
            ("end_turn", StopReason::EndTurn),
            ("stop_sequence", StopReason::EndTurn),
            ("tool_use", StopReason::ToolUse),
            ("max_tokens", StopReason::MaxTokens),
            ("refusal", StopReason::Refusal),
        ] {
            let v = json!({"type": "message", "content": [{"type": "text", "text": "x"}], "stop_reason": wire, "usage": {"input_tokens": 1, "output_tokens": 2}});
            assert_eq!(parse_response(&v).unwrap().stop, stop, "{wire}");
        }
    }

    #[test]
    fn malformed_blocks_are_errors() {
        assert!(matches!(parse_response(&json!({"id": "x"})), Err(ModelError::Malformed(_))));
        let v = json!({"content": [{"type": "tool_use", "name": "get_listing", "input": {}}]});
        assert!(matches!(parse_response(&v), Err(ModelError::Malformed(m)) if m.contains("`id`")));
    }
}
