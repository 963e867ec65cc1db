//! The cache key of a model call: SHA-256 over what was asked, with the
//! values that change between runs without changing the question masked.

use sha2::{Digest, Sha256};

use super::hex;

/// Version of the key derivation; bump when the key inputs change.
/// 2: volatile fields masked (entries recorded under 1 are misses).
const KEY_VERSION: u32 = 2;

/// JSON fields whose values are masked in the key wherever they occur in the
/// request, including inside tool results that travel as text: the wall-clock
/// creation time of a hand-off ticket. Ticket ids are not volatile (each eval
/// case has its own queue, numbered from `TKT-0001`).
pub const VOLATILE_FIELDS: &[&str] = &["createdAt"];

/// The cache key of one model call: lowercase hex SHA-256 (64 characters).
pub fn key(provider: &str, model: &str, base_url: &str, body: &serde_json::Value, sample: u32) -> String {
    let input = serde_json::json!({
        "v": KEY_VERSION,
        "provider": provider,
        "model": model,
        "base_url": base_url.trim_end_matches('/'),
        "sample": sample,
        "body": masked(body),
    });
    hex(&Sha256::digest(input.to_string().as_bytes()))
}

/// `body` with every [`VOLATILE_FIELDS`] value replaced by a fixed marker:
/// as an object key anywhere in the JSON, and as `"createdAt":"…"` inside
/// strings (tool results are JSON text inside the messages).
fn masked(body: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    static IN_TEXT: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        let names: Vec<String> = VOLATILE_FIELDS.iter().map(|f| regex::escape(f)).collect();
        regex::Regex::new(&format!(r#"("(?:{})"\s*:\s*)"(?:[^"\\]|\\.)*""#, names.join("|"))).expect("static pattern")
    });
    match body {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| {
                    let v = if VOLATILE_FIELDS.contains(&k.as_str()) { Value::from("<volatile>") } else { masked(v) };
                    (k.clone(), v)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(masked).collect()),
        Value::String(s) if VOLATILE_FIELDS.iter().any(|f| s.contains(f)) => {
            Value::String(IN_TEXT.replace_all(s, r#"$1"<volatile>""#).into_owned())
        }
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_differ_by_sample_and_body_and_are_stable() {
        let body = serde_json::json!({"model": "m", "messages": [{"role": "user", "content": "x"}]});
        let a = key("anthropic", "m", "http://h/", &body, 0);
        assert_eq!(a, key("anthropic", "m", "http://h", &body, 0), "a trailing slash is the same server");
        assert_eq!(a.len(), 64);
        assert_ne!(a, key("anthropic", "m", "http://h", &body, 1));
        assert_ne!(a, key("openai", "m", "http://h", &body, 0));
        assert_ne!(a, key("anthropic", "m", "http://h", &serde_json::json!({"model": "m"}), 0));
    }

    #[test]
    fn a_tickets_creation_time_does_not_change_the_key() {
        let at = |t: &str| {
            let result = format!(r#"{{"ticketId":"TKT-0001","createdAt":"{t}","reason":"viewing_request"}}"#);
            serde_json::json!({"messages": [{"role": "user", "content": [{"type": "tool_result", "content": result}]}]})
        };
        let a = key("anthropic", "m", "http://h", &at("2026-12-02T10:00:00Z"), 0);
        assert_eq!(a, key("anthropic", "m", "http://h", &at("2027-01-01T00:00:59Z"), 0));
        // What the model is asked still counts: another ticket id is another request.
        let other = serde_json::json!({"messages": [{"role": "user", "content": [{"type": "tool_result",
            "content": r#"{"ticketId":"TKT-0002","createdAt":"2026-12-02T10:00:00Z","reason":"viewing_request"}"#}]}]});
        assert_ne!(a, key("anthropic", "m", "http://h", &other, 0));
        // As an object key too (e.g. a structured tool result).
        let obj = |t: &str| serde_json::json!({"x": {"createdAt": t, "y": 1}});
        assert_eq!(key("o", "m", "u", &obj("a"), 0), key("o", "m", "u", &obj("b"), 0));
    }
}
