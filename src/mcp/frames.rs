//! Duplicate keys in `tools/call` arguments, caught before rmcp parses the
//! frame (its `serde_json::Map` keeps the last value of a repeated key, so
//! `{"limit": 1, "limit": 25}` would silently run with 25).
//!
//! A frame whose `params.arguments` repeats a key is passed on with a note in
//! `params._meta` under [`DUPLICATE_ARGUMENT_META`]; the tool handler turns
//! the note into an error result naming the argument, like every other
//! invalid argument. Every other frame passes through unchanged, so rmcp
//! still answers malformed JSON-RPC the way it always does.

use serde_json::Value;
use tokio::io::{AsyncBufReadExt as _, AsyncRead, AsyncWriteExt as _, BufReader, DuplexStream};

/// `_meta` key of the note a frame with a repeated argument key carries:
/// a string such as "duplicate key `limit`".
pub const DUPLICATE_ARGUMENT_META: &str = "io.inquiry/duplicateArgument";

/// The frame with a [`DUPLICATE_ARGUMENT_META`] note when it is a single
/// JSON-RPC message whose `params.arguments` object repeats a key (at any
/// depth); `None` for every other frame (no duplicate, a duplicate elsewhere,
/// not JSON at all).
pub fn mark_duplicate_arguments(frame: &str) -> Option<String> {
    let (path, message) = crate::json_file::duplicate_key(frame)?;
    let within = path.strip_prefix("params.arguments")?;
    if !(within.is_empty() || within.starts_with('.') || within.starts_with('[')) {
        return None;
    }
    let mut value: Value = serde_json::from_str(frame).ok()?;
    let params = value.get_mut("params")?.as_object_mut()?;
    let note = if within.is_empty() { message } else { format!("{}: {message}", &within[1..]) };
    let meta = params.entry("_meta").or_insert_with(|| Value::Object(Default::default()));
    meta.as_object_mut()?.insert(DUPLICATE_ARGUMENT_META.into(), Value::String(note));
    serde_json::to_string(&value).ok()
}

/// Copies newline-delimited frames from `input` to the returned stream,
/// marking those with repeated argument keys. The copy ends when `input`
/// ends or the reader is dropped.
pub fn checked_lines(input: impl AsyncRead + Unpin + Send + 'static) -> DuplexStream {
    let (mut to_server, from_input) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        let mut input = BufReader::new(input);
        let mut line = Vec::new();
        loop {
            line.clear();
            match input.read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            let marked = std::str::from_utf8(&line).ok().and_then(|l| mark_duplicate_arguments(l.trim_end()));
            let written = match marked {
                Some(frame) => to_server.write_all(format!("{frame}\n").as_bytes()).await,
                None => to_server.write_all(&line).await,
            };
            if written.is_err() {
                break;
            }
        }
        let _ = to_server.shutdown().await;
    });
    from_input
}

#[cfg(test)]
mod tests {
    use super::*;

    fn note(frame: &str) -> Option<String> {
        let marked: Value = serde_json::from_str(&mark_duplicate_arguments(frame)?).unwrap();
        Some(marked["params"]["_meta"][DUPLICATE_ARGUMENT_META].as_str().unwrap().to_owned())
    }

    #[test]
    fn repeated_argument_keys_are_noted() {
        let call = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_listings","arguments":{"limit":1,"limit":25}}}"#;
        assert_eq!(note(call).unwrap(), "duplicate key `limit`");
        let nested = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":{"b":1,"b":2}},"_meta":{"k":1}}}"#;
        assert_eq!(note(nested).unwrap(), "a: duplicate key `b`");
        let kept: Value = serde_json::from_str(&mark_duplicate_arguments(nested).unwrap()).unwrap();
        assert_eq!(kept["params"]["_meta"]["k"], 1);
    }

    #[test]
    fn other_frames_pass_unchanged() {
        for frame in [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"limit":1}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","argumentsX":{"a":1,"a":2}}}"#,
            "not json",
            "",
        ] {
            assert_eq!(mark_duplicate_arguments(frame), None, "{frame}");
        }
    }
}
