//! Real model providers behind [`ModelClient`]: the Anthropic Messages API,
//! Anthropic models on Amazon Bedrock, and OpenAI-compatible chat
//! completions, over one HTTP layer with timeouts,
//! retries and key redaction ([`http`]), configured from the environment and
//! a `.env` file ([`env`]).
//!
//! | variable | meaning |
//! |---|---|
//! | `ANTHROPIC_API_KEY` | key for `anthropic:<id>` (required) |
//! | `ANTHROPIC_BASE_URL` | API root, default `https://api.anthropic.com` |
//! | `AWS_BEARER_TOKEN_BEDROCK` | Bedrock API key for `bedrock:<id>` (sent as a bearer token; wins over the keys below) |
//! | `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN` | AWS credentials for `bedrock:<id>` (SigV4; the token only for temporary credentials) |
//! | `AWS_REGION` | Bedrock region (`--region` wins), default `eu-central-1` |
//! | `AWS_ENDPOINT_URL_BEDROCK_RUNTIME` | Bedrock runtime root, default `https://bedrock-runtime.<region>.amazonaws.com` |
//! | `OPENAI_API_KEY` | key for `openai:<id>` (optional: local servers need none) |
//! | `OPENAI_BASE_URL` | API root, default `https://api.openai.com/v1` |
//! | `INQUIRY_MODEL_TIMEOUT_S` | timeout of one HTTP attempt in seconds (default 60) |
//! | `INQUIRY_MODEL_MAX_ATTEMPTS` | attempts per call, retries included (default 3) |

pub mod anthropic;
pub mod bedrock;
pub mod cached;
pub mod env;
pub mod http;
pub mod openai;

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;

use crate::agent::model::ModelClient;
pub use anthropic::AnthropicClient;
pub use bedrock::{BedrockAuth, BedrockClient};
pub use cached::CacheSettings;
pub use env::Env;
pub use http::{redact, HttpConfig, Secret};
pub use openai::OpenAiClient;

/// Timeouts and retries from `INQUIRY_MODEL_TIMEOUT_S` and `INQUIRY_MODEL_MAX_ATTEMPTS`.
///
/// # Errors
/// A value that is not a positive number.
pub fn http_config(env: &Env) -> anyhow::Result<HttpConfig> {
    let mut config = HttpConfig::default();
    if let Some(v) = env.get("INQUIRY_MODEL_TIMEOUT_S") {
        let secs: f64 =
            v.parse().ok().filter(|s: &f64| s.is_finite() && *s > 0.0 && *s <= 86_400.0).with_context(|| {
                format!("INQUIRY_MODEL_TIMEOUT_S={v}: expected a number of seconds above 0 and at most 86400 (a day)")
            })?;
        config.timeout = Duration::from_secs_f64(secs);
    }
    if let Some(v) = env.get("INQUIRY_MODEL_MAX_ATTEMPTS") {
        config.max_attempts = v
            .parse()
            .ok()
            .filter(|n: &u32| (1..=20).contains(n))
            .with_context(|| format!("INQUIRY_MODEL_MAX_ATTEMPTS={v}: expected a whole number from 1 to 20"))?;
    }
    Ok(config)
}

/// Builds the client for `anthropic:<model-id>`, `bedrock:<model-id>` or
/// `openai:<model-id>` with settings from `env`; `None` for any other spec.
///
/// # Errors
/// An empty model id, a missing `ANTHROPIC_API_KEY`, a bad base URL or
/// timeout setting. No message contains a key.
pub fn client_from_spec(spec: &str, env: &Env) -> Option<anyhow::Result<Arc<dyn ModelClient>>> {
    client_from_spec_cached(spec, env, CacheSettings::off())
}

/// Like [`client_from_spec`], with every call going through `cache`.
pub fn client_from_spec_cached(
    spec: &str,
    env: &Env,
    cache: CacheSettings,
) -> Option<anyhow::Result<Arc<dyn ModelClient>>> {
    let (provider, model) = spec.split_once(':')?;
    if !matches!(provider, "anthropic" | "bedrock" | "openai") {
        return None;
    }
    Some(build(provider, model.trim(), env, cache))
}

fn build(provider: &str, model: &str, env: &Env, cache: CacheSettings) -> anyhow::Result<Arc<dyn ModelClient>> {
    if model.is_empty() {
        anyhow::bail!("--model {provider}: expected {provider}:<model-id>, e.g. anthropic:claude-sonnet-4-5, bedrock:eu.anthropic.claude-sonnet-4-5-20250929-v1:0 or openai:gpt-4.1-mini");
    }
    let config = http_config(env)?;
    let base_url = |var: &str, default: &str| -> anyhow::Result<String> {
        let url = env.get(var).unwrap_or(default).to_owned();
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            anyhow::bail!("{var}: expected an http:// or https:// URL");
        }
        Ok(url)
    };
    Ok(match provider {
        "anthropic" => {
            let key = env.get("ANTHROPIC_API_KEY").context(
                "anthropic models need ANTHROPIC_API_KEY (set it in the environment or in .env in the working directory)",
            )?;
            let base = base_url("ANTHROPIC_BASE_URL", anthropic::DEFAULT_BASE_URL)?;
            Arc::new(AnthropicClient::new(model, &base, Secret::new(key), config)?.with_cache(cache))
        }
        "bedrock" => {
            let region = env.get("AWS_REGION").unwrap_or(bedrock::DEFAULT_REGION);
            bedrock::check_region(region)?;
            let endpoint = match env.get("AWS_ENDPOINT_URL_BEDROCK_RUNTIME") {
                Some(_) => base_url("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", "")?,
                None => bedrock::default_endpoint(region),
            };
            let auth = bedrock_auth(env)?;
            Arc::new(BedrockClient::new(model, region, &endpoint, auth, config)?.with_cache(cache))
        }
        _ => {
            let key = env.get("OPENAI_API_KEY").map(Secret::new);
            if key.is_none() && env.get("OPENAI_BASE_URL").is_none() {
                // Without either, the only place to call is the public API, which needs a key.
                anyhow::bail!(
                    "openai:{model} needs OPENAI_BASE_URL (a local or gateway server, e.g. http://127.0.0.1:8000/v1, or --base-url) or OPENAI_API_KEY for the public API; neither is set in the environment or in .env"
                );
            }
            let base = base_url("OPENAI_BASE_URL", openai::DEFAULT_BASE_URL)?;
            Arc::new(OpenAiClient::new(model, &base, key, config)?.with_cache(cache))
        }
    })
}

/// Bedrock credentials: `AWS_BEARER_TOKEN_BEDROCK` when set, else
/// `AWS_ACCESS_KEY_ID` with `AWS_SECRET_ACCESS_KEY` (and `AWS_SESSION_TOKEN`).
///
/// # Errors
/// Neither, or only half of a key pair (no message quotes a value).
pub fn bedrock_auth(env: &Env) -> anyhow::Result<BedrockAuth> {
    if let Some(token) = env.get("AWS_BEARER_TOKEN_BEDROCK") {
        return Ok(BedrockAuth::Bearer(Secret::new(token)));
    }
    match (env.get("AWS_ACCESS_KEY_ID"), env.get("AWS_SECRET_ACCESS_KEY")) {
        (Some(id), Some(secret)) => Ok(BedrockAuth::SigV4 {
            access_key_id: Secret::new(id),
            secret_access_key: Secret::new(secret),
            session_token: env.get("AWS_SESSION_TOKEN").map(Secret::new),
        }),
        (Some(_), None) => anyhow::bail!("AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not; bedrock models need both (or AWS_BEARER_TOKEN_BEDROCK)"),
        (None, Some(_)) => anyhow::bail!("AWS_SECRET_ACCESS_KEY is set but AWS_ACCESS_KEY_ID is not; bedrock models need both (or AWS_BEARER_TOKEN_BEDROCK)"),
        (None, None) => anyhow::bail!(
            "bedrock models need AWS_BEARER_TOKEN_BEDROCK (a Bedrock API key) or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (set them in the environment or in .env in the working directory)"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_resolve_with_settings() {
        let env = Env::from_pairs([("ANTHROPIC_API_KEY", "sk-x"), ("INQUIRY_MODEL_TIMEOUT_S", "0.5")]);
        let c = client_from_spec("anthropic:claude-haiku-4-5", &env).unwrap().unwrap();
        assert_eq!(c.id(), "anthropic:claude-haiku-4-5");
        assert_eq!(http_config(&env).unwrap().timeout, Duration::from_millis(500));
        let local = Env::from_pairs([("OPENAI_BASE_URL", "http://127.0.0.1:8000/v1")]);
        let c = client_from_spec("openai:llama3", &local).unwrap().unwrap();
        assert_eq!(c.id(), "openai:llama3");
        assert!(client_from_spec("demo", &env).is_none());
        assert!(client_from_spec("other:x", &env).is_none());
    }

    #[test]
    fn bedrock_specs_pick_their_auth_region_and_endpoint() {
        let model = "bedrock:eu.anthropic.claude-sonnet-4-5-20250929-v1:0";
        let env = Env::from_pairs([("AWS_BEARER_TOKEN_BEDROCK", "tok"), ("AWS_ACCESS_KEY_ID", "AKID")]);
        assert_eq!(bedrock_auth(&env).unwrap().kind(), "bearer", "the Bedrock API key wins");
        let c = client_from_spec(model, &env).unwrap().unwrap();
        assert_eq!(c.id(), model);
        let env = Env::from_pairs([("AWS_ACCESS_KEY_ID", "AKID"), ("AWS_SECRET_ACCESS_KEY", "s")]);
        assert_eq!(bedrock_auth(&env).unwrap().kind(), "sigv4");
        let half = bedrock_auth(&Env::from_pairs([("AWS_ACCESS_KEY_ID", "AKID")])).unwrap_err().to_string();
        assert!(half.contains("AWS_SECRET_ACCESS_KEY") && !half.contains("AKID\""), "{half}");
        let none = client_from_spec(model, &Env::default()).unwrap().err().unwrap().to_string();
        assert!(none.contains("AWS_BEARER_TOKEN_BEDROCK"), "{none}");
        let bad_region = Env::from_pairs([("AWS_BEARER_TOKEN_BEDROCK", "tok"), ("AWS_REGION", "frankfurt")]);
        let e = client_from_spec(model, &bad_region).unwrap().err().unwrap().to_string();
        assert!(e.contains("frankfurt") && e.contains("eu-central-1"), "{e}");
        let e = client_from_spec("bedrock:claude-sonnet", &env).unwrap().err().unwrap().to_string();
        assert!(e.contains("anthropic."), "{e}");
        let bad_url = env.clone().with("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", "ftp://x");
        assert!(client_from_spec(model, &bad_url).unwrap().is_err());
    }

    #[test]
    fn missing_key_and_bad_settings_are_clear_errors() {
        let err = client_from_spec("anthropic:x", &Env::default()).unwrap().err().unwrap().to_string();
        assert!(err.contains("ANTHROPIC_API_KEY"), "{err}");
        let err = client_from_spec("openai:foo", &Env::default()).unwrap().err().unwrap().to_string();
        assert!(err.contains("OPENAI_BASE_URL") && err.contains("OPENAI_API_KEY"), "{err}");
        let err = client_from_spec("openai:", &Env::default()).unwrap().err().unwrap().to_string();
        assert!(err.contains("openai:<model-id>"), "{err}");
        let env = Env::from_pairs([("INQUIRY_MODEL_TIMEOUT_S", "soon"), ("OPENAI_API_KEY", "k")]);
        assert!(client_from_spec("openai:x", &env).unwrap().is_err());
        let env = Env::from_pairs([("OPENAI_BASE_URL", "ftp://x")]);
        assert!(client_from_spec("openai:x", &env).unwrap().is_err());
    }
}
