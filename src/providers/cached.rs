//! The response cache in front of a provider call (see [`crate::cache`]):
//! look the request up, replay a hit, call the provider on a miss and store
//! the answer only when it parsed. Both wire formats go through [`call`].

use std::future::Future;
use std::sync::Arc;
use std::time::Instant;

use serde_json::Value;

use crate::agent::model::{CacheUse, ModelError, ModelResponse};
use crate::cache::{CacheMode, ResponseCache};

/// Which cache a client uses and how.
#[derive(Debug, Clone, Default)]
pub struct CacheSettings {
    /// The open cache; `None` means no cache (the same as `--cache off`).
    pub cache: Option<Arc<ResponseCache>>,
    /// `use`, `off` or `replay`.
    pub mode: CacheMode,
    /// The model revision (`--model-revision`), added to every key.
    pub revision: Option<String>,
}

impl CacheSettings {
    /// No cache.
    pub fn off() -> Self {
        Self { cache: None, mode: CacheMode::Off, revision: None }
    }
}

/// Identity of the client making the call: part of the key.
pub struct CallSite<'a> {
    /// `anthropic` or `openai`.
    pub provider: &'a str,
    /// The provider's model id (without the `provider:` prefix).
    pub model: &'a str,
    /// API root the request goes to.
    pub base_url: &'a str,
}

/// Answers `body` from the cache or from `fetch`, parsing the raw JSON with
/// `parse`. A hit that no longer parses is ignored (and refetched unless
/// replaying). The response carries a [`CacheUse`] with the key.
///
/// # Errors
/// [`ModelError::CacheMiss`] on a miss in replay mode; otherwise `fetch`'s
/// and `parse`'s errors. A failed cache write is a warning, not an error.
pub async fn call<F, Fut>(
    settings: &CacheSettings,
    site: CallSite<'_>,
    body: &Value,
    sample: u32,
    fetch: F,
    parse: fn(&Value) -> Result<ModelResponse, ModelError>,
) -> Result<ModelResponse, ModelError>
where
    F: FnOnce() -> Fut,
    Fut: Future<Output = Result<Value, ModelError>>,
{
    let cache = settings.cache.as_ref().filter(|_| settings.mode != CacheMode::Off);
    let Some(cache) = cache else {
        return parse(&fetch().await?);
    };
    let model = match &settings.revision {
        Some(rev) => format!("{}@{rev}", site.model),
        None => site.model.to_owned(),
    };
    let key = crate::cache::key(site.provider, &model, site.base_url, body, sample);
    if let Some(hit) = cache.get(&key) {
        match parse(&hit.raw) {
            Ok(mut response) => {
                response.cache = Some(CacheUse { key, hit: true, recorded_latency_ms: Some(hit.latency_ms) });
                return Ok(response);
            }
            Err(e) => tracing::warn!(key, "cached response no longer parses, ignored: {e}"),
        }
    }
    if settings.mode == CacheMode::Replay {
        return Err(ModelError::CacheMiss(key));
    }
    let started = Instant::now();
    let raw = fetch().await?;
    let latency_ms = started.elapsed().as_millis() as u64;
    let mut response = parse(&raw)?;
    if let Err(e) = cache.put(&key, site.provider, site.model, &raw, response.usage, latency_ms) {
        static WARNED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
        tracing::warn!("{e:#}");
        if !WARNED.swap(true, std::sync::atomic::Ordering::Relaxed) {
            eprintln!(
                "warning: {e:#} (the run goes on; answers that cannot be stored will be requested again next time)"
            );
        }
    }
    response.cache = Some(CacheUse { key, hit: false, recorded_latency_ms: None });
    Ok(response)
}
