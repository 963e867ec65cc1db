//! OpenAI-compatible chat completions (`POST {base}/chat/completions`): the
//! OpenAI API and local or gateway servers that speak it (vLLM, llama.cpp,
//! Ollama, LiteLLM).

use serde_json::{json, Value};

use super::cached::{self, CacheSettings, CallSite};
use super::http::{HttpClient, HttpConfig, Secret};
use crate::agent::model::{Message, ModelClient, ModelError, ModelRequest, ModelResponse, StopReason, ToolCall, Usage};

/// Default API root (includes `/v1`).
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

/// A chat-completions model.
#[derive(Debug)]
pub struct OpenAiClient {
    id: String,
    model: String,
    url: String,
    /// OpenAI itself wants `max_completion_tokens`; compatible servers know `max_tokens`.
    completion_tokens_field: &'static str,
    base_url: String,
    http: HttpClient,
    cache: CacheSettings,
}

impl OpenAiClient {
    /// A client for `model` at `base_url` (the part before `/chat/completions`),
    /// with an optional key (local servers often need none).
    ///
    /// # Errors
    /// The HTTP client could not be built.
    pub fn new(model: &str, base_url: &str, key: Option<Secret>, config: HttpConfig) -> anyhow::Result<Self> {
        let base = base_url.trim_end_matches('/');
        let completion_tokens_field =
            if base.starts_with("https://api.openai.com") { "max_completion_tokens" } else { "max_tokens" };
        Ok(Self {
            id: format!("openai:{model}"),
            model: model.to_owned(),
            url: format!("{base}/chat/completions"),
            completion_tokens_field,
            base_url: base.to_owned(),
            http: HttpClient::new("openai", key, config)?,
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
        let mut messages = vec![];
        if !request.system.is_empty() {
            messages.push(json!({"role": "system", "content": request.system}));
        }
        for message in request.messages {
            match message {
                Message::User { text } => messages.push(json!({"role": "user", "content": text})),
                Message::Assistant { text, tool_calls } => {
                    let mut m = json!({"role": "assistant", "content": text});
                    if !tool_calls.is_empty() {
                        m["tool_calls"] = tool_calls
                            .iter()
                            .map(|c| {
                                json!({
                                    "id": c.id,
                                    "type": "function",
                                    "function": {"name": c.name, "arguments": c.arguments.to_string()},
                                })
                            })
                            .collect();
                    }
                    messages.push(m);
                }
                Message::ToolResults { results } => {
                    for r in results {
                        messages.push(json!({"role": "tool", "tool_call_id": r.call_id, "content": r.content}));
                    }
                }
            }
        }
        let mut body = json!({"model": self.model, "messages": messages});
        body[self.completion_tokens_field] = json!(request.max_output_tokens);
        if !request.tools.is_empty() {
            body["tools"] = request
                .tools
                .iter()
                .map(|t| {
                    json!({
                        "type": "function",
                        "function": {"name": t.name, "description": t.description, "parameters": t.input_schema},
                    })
                })
                .collect();
        }
        body
    }
}

/// Parses a chat-completions response (the first choice).
///
/// # Errors
/// [`ModelError::Malformed`] for a missing choice or message, or tool-call
/// arguments that are not a JSON object; [`ModelError::Provider`] for an
/// `error` object.
pub fn parse_response(v: &Value) -> Result<ModelResponse, ModelError> {
    if let Some(error) = v.get("error").filter(|e| !e.is_null()) {
        let message =
            error.get("message").and_then(Value::as_str).or_else(|| error.as_str()).unwrap_or("unknown error");
        return Err(ModelError::Provider(format!("openai answered an error: {message}")));
    }
    let choice = v
        .get("choices")
        .and_then(Value::as_array)
        .and_then(|c| c.first())
        .ok_or_else(|| ModelError::Malformed("openai response has no `choices[0]`".into()))?;
    let message = choice
        .get("message")
        .filter(|m| m.is_object())
        .ok_or_else(|| ModelError::Malformed("openai response has no `choices[0].message`".into()))?;
    let text = match message.get("content") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        // Some servers send content parts.
        Some(Value::Array(parts)) => {
            Some(parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect::<String>())
        }
        Some(_) => return Err(ModelError::Malformed("openai `message.content` is neither text nor parts".into())),
    }
    .filter(|t| !t.is_empty());
    let mut calls = vec![];
    if let Some(list) = message.get("tool_calls").filter(|t| !t.is_null()) {
        let list =
            list.as_array().ok_or_else(|| ModelError::Malformed("openai `message.tool_calls` is not a list".into()))?;
        for (i, call) in list.iter().enumerate() {
            let name = call
                .pointer("/function/name")
                .and_then(Value::as_str)
                .ok_or_else(|| ModelError::Malformed(format!("openai tool call {i} has no `function.name`")))?;
            let id = call.get("id").and_then(Value::as_str).map(str::to_owned).unwrap_or_else(|| format!("call_{i}"));
            let arguments = match call.pointer("/function/arguments") {
                None | Some(Value::Null) => json!({}),
                Some(Value::String(s)) if s.trim().is_empty() => json!({}),
                Some(Value::String(s)) => serde_json::from_str::<Value>(s).map_err(|e| {
                    ModelError::Malformed(format!("openai tool call {i} ({name}): arguments are not valid JSON: {e}"))
                })?,
                Some(other) => other.clone(),
            };
            if !arguments.is_object() {
                return Err(ModelError::Malformed(format!(
                    "openai tool call {i} ({name}): arguments are not a JSON object"
                )));
            }
            calls.push(ToolCall { id, name: name.to_owned(), arguments });
        }
    }
    let refused = message.get("refusal").and_then(Value::as_str).is_some_and(|r| !r.is_empty());
    let stop = match choice.get("finish_reason").and_then(Value::as_str) {
        _ if refused => StopReason::Refusal,
        Some("length") => StopReason::MaxTokens,
        Some("content_filter") => StopReason::Refusal,
        Some("tool_calls" | "function_call") => StopReason::ToolUse,
        _ if !calls.is_empty() => StopReason::ToolUse,
        _ => StopReason::EndTurn,
    };
    let count = |path: &str| v.pointer(path).and_then(Value::as_u64).unwrap_or(0);
    let prompt = count("/usage/prompt_tokens");
    let cached = count("/usage/prompt_tokens_details/cached_tokens").min(prompt);
    let usage =
        Usage { input: prompt - cached, output: count("/usage/completion_tokens"), cache_read: cached, cache_write: 0 };
    Ok(ModelResponse { text, tool_calls: calls, stop, usage, cache: None })
}

#[async_trait::async_trait]
impl ModelClient for OpenAiClient {
    fn id(&self) -> &str {
        &self.id
    }

    async fn complete(&self, request: ModelRequest<'_>) -> Result<ModelResponse, ModelError> {
        let body = self.request_body(&request);
        let headers: Vec<(&str, String)> =
            self.http.key().map(|k| ("authorization", format!("Bearer {}", k.expose()))).into_iter().collect();
        let site = CallSite { provider: "openai", model: &self.model, base_url: &self.base_url };
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

    #[test]
    fn request_maps_system_tools_calls_and_results() {
        let client = OpenAiClient::new("m", "http://127.0.0.1:1/v1/", None, HttpConfig::default()).unwrap();
        assert_eq!(client.url, "http://127.0.0.1:1/v1/chat/completions");
        let conversation = vec![
            Message::User { text: "q".into() },
            Message::Assistant {
                text: None,
                tool_calls: vec![ToolCall {
                    id: "call_1".into(),
                    name: "get_listing".into(),
                    arguments: json!({"id": "HH-1001"}),
                }],
            },
            Message::ToolResults {
                results: vec![ToolOutput {
                    call_id: "call_1".into(),
                    name: "get_listing".into(),
                    content: "r".into(),
                    is_error: false,
                }],
            },
        ];
        let tools = vec![ToolDefinition {
            name: "get_listing".into(),
            description: "d".into(),
            input_schema: json!({"type": "object"}),
        }];
        let body = client.request_body(&ModelRequest {
            system: "sys",
            messages: &conversation,
            tools: &tools,
            max_output_tokens: 7,
            sample: 0,
        });
        assert_eq!(body["max_tokens"], 7);
        assert_eq!(body["messages"][0]["role"], "system");
        assert_eq!(body["messages"][2]["tool_calls"][0]["function"]["arguments"], r#"{"id":"HH-1001"}"#);
        assert_eq!(body["messages"][3]["role"], "tool");
        assert_eq!(body["messages"][3]["tool_call_id"], "call_1");
        assert_eq!(body["tools"][0]["type"], "function");
        assert_eq!(body["tools"][0]["function"]["parameters"]["type"], "object");
        let official = OpenAiClient::new("m", DEFAULT_BASE_URL, None, HttpConfig::default()).unwrap().request_body(
            &ModelRequest { system: "", messages: &conversation[..1], tools: &[], max_output_tokens: 7, sample: 0 },
        );
        assert_eq!(official["max_completion_tokens"], 7);
        assert!(official.get("tools").is_none());
    }

    #[test]
    fn finish_reasons_and_cached_tokens() {
        for (wire, stop) in [
            ("stop", StopReason::EndTurn),
            ("tool_calls", StopReason::ToolUse),
            ("length", StopReason::MaxTokens),
            ("content_filter", StopReason::Refusal),
        ] {
            let v = json!({"choices": [{"message": {"role": "assistant", "content": "x"}, "finish_reason": wire}]});
            assert_eq!(parse_response(&v).unwrap().stop, stop, "{wire}");
        }
        let v = json!({
            "choices": [{"message": {"content": "x"}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 5, "prompt_tokens_details": {"cached_tokens": 64}}
        });
        assert_eq!(parse_response(&v).unwrap().usage, Usage { input: 36, output: 5, cache_read: 64, cache_write: 0 });
    }

    #[test]
    fn malformed_arguments_are_malformed() {
        let v = json!({"choices": [{"message": {"content": null, "tool_calls": [
            {"id": "c", "type": "function", "function": {"name": "get_listing", "arguments": "{\"id\": \"HH-10"}}
        ]}, "finish_reason": "tool_calls"}]});
        assert!(matches!(parse_response(&v), Err(ModelError::Malformed(m)) if m.contains("get_listing")));
        assert!(matches!(parse_response(&json!({"choices": []})), Err(ModelError::Malformed(_))));
    }
}
