//! The HTTP layer both providers share: one JSON POST with a per-attempt
//! timeout, bounded retries with exponential backoff and jitter on 429, 5xx
//! and connection errors (honouring `retry-after`), and error messages that
//! never carry the API key.

use std::fmt;
use std::time::Duration;

use crate::agent::model::ModelError;

/// An API key. Its `Debug` and `Display` never show the value.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a key.
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The key itself, for the one header that needs it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret([redacted])")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[redacted]")
    }
}

/// What replaces a key in text.
pub const REDACTED: &str = "[redacted]";

/// Shortest prefix of a key that is redacted on its own (a body cut
/// mid-key must not leak all but its last characters).
pub const MIN_REDACTED_PREFIX: usize = 8;

/// `text` with every occurrence of `key`, and of any prefix of it at least
/// [`MIN_REDACTED_PREFIX`] bytes long, replaced by `[redacted]`. Callers
/// redact before they cut a text to length. An empty key (a local server
/// without one) leaves the text as it is.
pub fn redact(text: &str, key: Option<&Secret>) -> String {
    let Some(k) = key.map(Secret::expose).filter(|k| !k.is_empty()) else { return text.to_owned() };
    let text = text.replace(k, REDACTED);
    let key = k.as_bytes();
    if key.len() < MIN_REDACTED_PREFIX {
        return text;
    }
    let head = &k[..MIN_REDACTED_PREFIX.min(k.len())];
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while let Some(found) = text[i..].find(head) {
        let start = i + found;
        let mut end = start;
        while end < bytes.len() && end - start < key.len() && bytes[end] == key[end - start] {
            end += 1;
        }
        // The key is ASCII in practice; keep the cut on a char boundary anyway.
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        out.push_str(&text[i..start]);
        out.push_str(REDACTED);
        i = end.max(start + 1);
        while !text.is_char_boundary(i) {
            i += 1;
        }
    }
    out.push_str(&text[i..]);
    redact_base64(&out, key)
}

/// Replaces the key as it appears inside base64 text (a `Basic` header or an
/// encoded blob echoed back): for each of the three byte alignments the key
/// can have in the encoded stream, the run of base64 characters that depends
/// only on the key's bytes, in the standard and the URL-safe alphabet.
fn redact_base64(text: &str, key: &[u8]) -> String {
    use base64::Engine as _;
    let mut out = text.to_owned();
    for offset in 0..3usize {
        let mut padded = vec![0u8; offset];
        padded.extend_from_slice(key);
        for engine in
            [&base64::engine::general_purpose::STANDARD_NO_PAD, &base64::engine::general_purpose::URL_SAFE_NO_PAD]
        {
            let encoded = engine.encode(&padded);
            // Characters mixing the zero padding or the unknown next bytes are dropped.
            let skip = if offset == 0 { 0 } else { (offset * 8).div_ceil(6) };
            let stable_end = (offset + key.len()) * 8 / 6;
            if let Some(core) = encoded.get(skip..stable_end.min(encoded.len())) {
                if core.len() >= MIN_REDACTED_PREFIX && out.contains(core) {
                    out = out.replace(core, REDACTED);
                }
            }
        }
    }
    out
}

/// Largest response body read from a provider (bytes): 8 MiB.
pub const MAX_BODY_BYTES: usize = 8 * 1024 * 1024;

/// Timeouts and retry policy of model calls.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HttpConfig {
    /// Timeout of one attempt, from sending the request to the last body byte.
    pub timeout: Duration,
    /// Attempts in all, the first one included (at least 1).
    pub max_attempts: u32,
    /// Backoff before the second attempt; doubles per attempt, with jitter.
    pub base_backoff: Duration,
    /// Longest wait between attempts, `retry-after` included.
    pub max_backoff: Duration,
}

impl Default for HttpConfig {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(60),
            max_attempts: 3,
            base_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(30),
        }
    }
}

/// A JSON-over-HTTP client for one provider and key.
pub struct HttpClient {
    client: reqwest::Client,
    config: HttpConfig,
    key: Option<Secret>,
    /// Further credentials redacted like the key (an AWS secret key, session token).
    secrets: Vec<Secret>,
    provider: &'static str,
}

impl fmt::Debug for HttpClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpClient")
            .field("provider", &self.provider)
            .field("config", &self.config)
            .field("key", &self.key)
            .finish_non_exhaustive()
    }
}

/// How one attempt failed.
enum Attempt {
    /// Worth another try, after `retry_after` if the server named a wait.
    Retry { message: String, retry_after: Option<Duration> },
    /// Final.
    Fail(ModelError),
}

/// Longest excerpt of a response body quoted in an error message (characters).
const EXCERPT_CHARS: usize = 300;

impl HttpClient {
    /// A client for `provider` (`anthropic`, `openai`, `bedrock`) sending `key` (redacted
    /// from every error it builds).
    ///
    /// # Errors
    /// The TLS backend could not be set up.
    pub fn new(provider: &'static str, key: Option<Secret>, config: HttpConfig) -> anyhow::Result<Self> {
        let client = reqwest::Client::builder()
            .connect_timeout(config.timeout.min(Duration::from_secs(10)))
            .build()
            .map_err(|e| anyhow::anyhow!("building the HTTP client for {provider}: {e}"))?;
        let config = HttpConfig { max_attempts: config.max_attempts.max(1), ..config };
        Ok(Self { client, config, key, secrets: vec![], provider })
    }

    /// This client, also redacting `secrets` from every error it builds (for
    /// providers with more than one credential, e.g. AWS keys).
    pub fn with_secrets(mut self, secrets: Vec<Secret>) -> Self {
        self.secrets = secrets;
        self
    }

    /// The key, if any.
    pub fn key(&self) -> Option<&Secret> {
        self.key.as_ref()
    }

    /// The retry and timeout policy.
    pub fn config(&self) -> &HttpConfig {
        &self.config
    }

    /// POSTs `body` as JSON to `url` with `headers` and returns the JSON answer,
    /// retrying 429, 5xx and connection errors.
    ///
    /// # Errors
    /// [`ModelError::Timeout`] when an attempt takes longer than the timeout;
    /// [`ModelError::Provider`] for HTTP errors (after retries) and transport
    /// failures; [`ModelError::Malformed`] for a body that is not JSON, has the
    /// wrong content type or was cut off. No message contains the key.
    pub async fn post_json(
        &self,
        url: &str,
        headers: &[(&str, String)],
        body: &serde_json::Value,
    ) -> Result<serde_json::Value, ModelError> {
        let fixed: Vec<(String, String)> = headers.iter().map(|(n, v)| ((*n).to_owned(), v.clone())).collect();
        self.post_json_with(url, body, |_| Ok(fixed.clone())).await
    }

    /// Like [`Self::post_json`], with the headers made for each attempt from
    /// the exact body bytes sent (a request signature with its own time
    /// stamp: a retry is signed afresh).
    ///
    /// # Errors
    /// As [`Self::post_json`], and `headers`' own error (not retried).
    pub async fn post_json_with<F>(
        &self,
        url: &str,
        body: &serde_json::Value,
        headers: F,
    ) -> Result<serde_json::Value, ModelError>
    where
        F: Fn(&[u8]) -> Result<Vec<(String, String)>, ModelError>,
    {
        let bytes = serde_json::to_vec(body).map_err(|e| ModelError::Malformed(format!("request body: {e}")))?;
        let mut attempt = 1;
        loop {
            let headers = headers(&bytes).map_err(|e| self.redact_error(e))?;
            let outcome = match tokio::time::timeout(self.config.timeout, self.attempt(url, &headers, &bytes)).await {
                Err(_) => return Err(ModelError::Timeout(self.config.timeout.as_millis() as u64)),
                Ok(o) => o,
            };
            match outcome {
                Ok(value) => return Ok(value),
                Err(Attempt::Fail(e)) => return Err(e),
                Err(Attempt::Retry { message, retry_after }) => {
                    if attempt >= self.config.max_attempts {
                        let tries = if attempt == 1 { "1 attempt".to_owned() } else { format!("{attempt} attempts") };
                        return Err(ModelError::Provider(format!("{message} (gave up after {tries})")));
                    }
                    let wait = retry_after.unwrap_or_else(|| self.backoff(attempt)).min(self.config.max_backoff);
                    tracing::warn!(
                        provider = self.provider,
                        attempt,
                        wait_ms = wait.as_millis() as u64,
                        "model call failed, retrying: {message}"
                    );
                    tokio::time::sleep(wait).await;
                    attempt += 1;
                }
            }
        }
    }

    /// Exponential backoff before attempt `attempt + 1`, with jitter in
    /// [50 %, 100 %] of the nominal wait.
    fn backoff(&self, attempt: u32) -> Duration {
        let nominal = self.config.base_backoff.saturating_mul(1 << (attempt - 1).min(16));
        let nominal = nominal.min(self.config.max_backoff);
        let fraction = 0.5 + 0.5 * jitter_unit();
        nominal.mul_f64(fraction)
    }

    async fn attempt(
        &self,
        url: &str,
        headers: &[(String, String)],
        body: &[u8],
    ) -> Result<serde_json::Value, Attempt> {
        let mut request =
            self.client.post(url).header(reqwest::header::CONTENT_TYPE, "application/json").body(body.to_vec());
        for (name, value) in headers {
            request = request.header(name.as_str(), value.as_str());
        }
        let response = match request.send().await {
            Ok(r) => r,
            Err(e) if e.is_timeout() => {
                return Err(Attempt::Fail(ModelError::Timeout(self.config.timeout.as_millis() as u64)))
            }
            Err(e) if e.is_connect() || e.is_request() => {
                return Err(Attempt::Retry {
                    message: self.redact(&format!("{} unreachable: {}", self.provider, error_chain(&e))),
                    retry_after: None,
                })
            }
            Err(e) => {
                return Err(Attempt::Fail(ModelError::Provider(self.redact(&format!(
                    "{} request failed: {}",
                    self.provider,
                    error_chain(&e)
                )))))
            }
        };
        let status = response.status();
        let retry_after = response
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<f64>().ok())
            .filter(|s| s.is_finite() && *s >= 0.0)
            .map(Duration::from_secs_f64);
        let content_type = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned();
        if response.content_length().is_some_and(|n| n > MAX_BODY_BYTES as u64) {
            return Err(Attempt::Fail(ModelError::Malformed(format!(
                "{} response body (HTTP {}) is {} bytes; at most {MAX_BODY_BYTES} are read",
                self.provider,
                status.as_u16(),
                response.content_length().unwrap_or_default()
            ))));
        }
        let mut response = response;
        let mut bytes: Vec<u8> = Vec::new();
        loop {
            match response.chunk().await {
                Ok(Some(chunk)) => {
                    if bytes.len() + chunk.len() > MAX_BODY_BYTES {
                        return Err(Attempt::Fail(ModelError::Malformed(format!(
                            "{} response body (HTTP {}) is larger than {MAX_BODY_BYTES} bytes; not read further",
                            self.provider,
                            status.as_u16()
                        ))));
                    }
                    bytes.extend_from_slice(&chunk);
                }
                Ok(None) => break,
                Err(e) if e.is_timeout() => {
                    return Err(Attempt::Fail(ModelError::Timeout(self.config.timeout.as_millis() as u64)))
                }
                Err(e) => {
                    return Err(Attempt::Fail(ModelError::Malformed(self.redact(&format!(
                        "{} response body (HTTP {}) was cut off or unreadable: {}",
                        self.provider,
                        status.as_u16(),
                        error_chain(&e)
                    )))))
                }
            }
        }
        // Redact the whole body before any excerpt is cut from it.
        let text = self.redact(&String::from_utf8_lossy(&bytes));
        if !status.is_success() {
            let message =
                self.redact(&format!("{} answered HTTP {}: {}", self.provider, status.as_u16(), error_detail(&text)));
            if status.as_u16() == 429 || status.is_server_error() {
                return Err(Attempt::Retry { message, retry_after });
            }
            return Err(Attempt::Fail(ModelError::Provider(message)));
        }
        if !is_json_content_type(&content_type) {
            let shown = if content_type.is_empty() { "none".to_owned() } else { content_type };
            return Err(Attempt::Fail(ModelError::Malformed(self.redact(&format!(
                "{} answered with content type {shown}, expected application/json; body starts: {}",
                self.provider,
                excerpt(&text)
            )))));
        }
        // A successful answer is parsed from the redacted text too: a provider
        // (or a proxy) that echoes the request headers must not carry the key
        // into the cache, the traces or the reports.
        serde_json::from_str(&text).map_err(|e| {
            Attempt::Fail(ModelError::Malformed(self.redact(&format!(
                "{} answered invalid JSON ({e}); body starts: {}",
                self.provider,
                excerpt(&text)
            ))))
        })
    }

    /// Redacts this client's key and other secrets from `text`.
    pub fn redact(&self, text: &str) -> String {
        let mut out = redact(text, self.key.as_ref());
        for secret in &self.secrets {
            out = redact(&out, Some(secret));
        }
        out
    }

    /// The same error with the key removed from its message (parse errors may
    /// quote a response body that echoes the key).
    pub fn redact_error(&self, error: ModelError) -> ModelError {
        match error {
            ModelError::Provider(m) => ModelError::Provider(self.redact(&m)),
            ModelError::Malformed(m) => ModelError::Malformed(self.redact(&m)),
            other => other,
        }
    }
}

/// `application/json`, `application/problem+json`, … (a missing type is not JSON).
fn is_json_content_type(content_type: &str) -> bool {
    let essence = content_type.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    essence == "application/json" || (essence.starts_with("application/") && essence.ends_with("+json"))
}

/// The provider's own error message when the body is a JSON error object
/// (`{"error": {"message": …}}`, `{"error": "…"}`, `{"message": …}`), else an
/// excerpt of the body.
fn error_detail(body: &str) -> String {
    if let Ok(v) = serde_json::from_str::<serde_json::Value>(body) {
        let message = v
            .pointer("/error/message")
            .or_else(|| v.get("error").filter(|e| e.is_string()))
            .or_else(|| v.get("message"))
            .and_then(|m| m.as_str());
        if let Some(m) = message {
            let kind = v.pointer("/error/type").and_then(|t| t.as_str());
            return match kind {
                Some(k) => format!("{k}: {}", excerpt(m)),
                None => excerpt(m),
            };
        }
    }
    if body.trim().is_empty() {
        "(empty body)".into()
    } else {
        excerpt(body)
    }
}

/// The first [`EXCERPT_CHARS`] characters of `text` on one line.
fn excerpt(text: &str) -> String {
    let one_line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out: String = one_line.chars().take(EXCERPT_CHARS).collect();
    if one_line.chars().count() > EXCERPT_CHARS {
        out.push('…');
    }
    out
}

/// An error and its sources, joined by `: ` (reqwest hides the cause otherwise).
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let text = s.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        source = s.source();
    }
    out
}

/// A number in [0, 1) from the standard library's randomly seeded hasher.
fn jitter_unit() -> f64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_nanos());
    (h.finish() >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_never_prints_its_value() {
        let s = Secret::new("sk-abc-123");
        assert_eq!(format!("{s}"), "[redacted]");
        assert!(!format!("{s:?}").contains("sk-abc"));
        assert!(!format!("{:?}", Some(s)).contains("sk-abc"));
    }

    #[test]
    fn redaction_covers_a_key_cut_at_the_end_of_an_excerpt() {
        let k = Secret::new("sk-test-SECRET-456");
        assert_eq!(redact("key sk-test-SECRET-45", Some(&k)), "key [redacted]");
        assert_eq!(redact("key sk-test-S…", Some(&k)), "key [redacted]…");
        assert_eq!(redact("sk-test is fine", Some(&k)), "sk-test is fine", "7 bytes are no key");
    }

    #[test]
    fn redaction_covers_the_key_in_base64_at_every_alignment() {
        use base64::Engine as _;
        let key = Secret::new("sk-ant-api03-very-secret-key-value".to_owned());
        for prefix in ["", "u:", "us:", "user:"] {
            for engine in [&base64::engine::general_purpose::STANDARD, &base64::engine::general_purpose::URL_SAFE] {
                let encoded = engine.encode(format!("{prefix}{}", key.expose()));
                let text = format!("Authorization: Basic {encoded} and more");
                let red = redact(&text, Some(&key));
                let left: String = red.chars().filter(char::is_ascii_alphanumeric).collect();
                // At most a few boundary characters of the encoding remain.
                assert!(red.contains(REDACTED), "{prefix:?}: {red}");
                assert!(left.len() < "Authorization Basic and more".len() + 16, "{prefix:?}: {red}");
            }
        }
    }

    #[test]
    fn redact_replaces_every_occurrence_and_ignores_empty_keys() {
        let k = Secret::new("sk-abc");
        assert_eq!(redact("a sk-abc b sk-abc", Some(&k)), "a [redacted] b [redacted]");
        assert_eq!(redact("plain", Some(&Secret::new(""))), "plain");
        assert_eq!(redact("plain", None), "plain");
    }

    #[test]
    fn json_content_types() {
        assert!(is_json_content_type("application/json"));
        assert!(is_json_content_type("application/json; charset=utf-8"));
        assert!(is_json_content_type("application/problem+json"));
        assert!(!is_json_content_type("text/html; charset=utf-8"));
        assert!(!is_json_content_type(""));
    }

    #[test]
    fn error_detail_prefers_the_providers_message() {
        assert_eq!(
            error_detail(r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#),
            "overloaded_error: Overloaded"
        );
        assert_eq!(error_detail(r#"{"error":"bad"}"#), "bad");
        assert_eq!(error_detail(""), "(empty body)");
        assert!(error_detail(&"x".repeat(1000)).ends_with('…'));
    }

    #[test]
    fn jitter_stays_in_range() {
        for _ in 0..100 {
            let j = jitter_unit();
            assert!((0.0..1.0).contains(&j));
        }
    }
}
