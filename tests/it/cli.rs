//! The binary: help, exit codes, catalogue errors on the command line.

use crate::support::{inquiry, temp_catalogue, texts};

#[test]
fn help_describes_every_subcommand() {
    let out = inquiry(&["--help"]);
    assert!(out.status.success());
    let (stdout, _) = texts(&out);
    for name in ["eval", "calibrate", "ask", "serve-mcp", "check", "tool"] {
        assert!(stdout.contains(name), "--help lacks {name}:\n{stdout}");
    }
}

#[test]
fn check_summarises_the_bundled_catalogue() {
    let out = inquiry(&["check"]);
    let (stdout, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stdout.contains("12 listings, 8 policy pages"), "{stdout}");
}

#[test]
fn bad_catalogue_exits_2_with_one_message() {
    let dir = temp_catalogue();
    let path = dir.path().join("listings.json");
    let text = std::fs::read_to_string(&path).unwrap().replacen("\"on-request\"", "\"sometimes\"", 1);
    std::fs::write(&path, text).unwrap();
    let out = inquiry(&["check", "--data", dir.path().to_str().unwrap()]);
    let (stdout, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(2));
    assert!(stdout.is_empty());
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("listings.json: listing at index 0 (id \"HH-1001\"), field `petsAllowed`: found \"sometimes\""),
        "{stderr}"
    );
}

#[test]
fn tool_subcommand_prints_json_and_flags_errors() {
    let out = inquiry(&["tool", "get_listing", r#"{"id": "hh-1001"}"#]);
    assert_eq!(out.status.code(), Some(0));
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(value["price"], 1650.0);
    // A rejected argument is a usage error: exit 2, the tool's error JSON on
    // stdout, one line for people on stderr.
    let out = inquiry(&["tool", "get_listing", r#"{"id": "QQ-1"}"#]);
    assert_eq!(out.status.code(), Some(2));
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(value["error"].as_str().is_some_and(|e| !e.is_empty()), "{value}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.starts_with("error: ") && stderr.contains("QQ-1"), "{stderr}");
    let out = inquiry(&["tool", "search_knowledge", r#"{"query": "ab"}"#]);
    assert_eq!(out.status.code(), Some(2));
    let out = inquiry(&["tool", "nope"]);
    assert_eq!(out.status.code(), Some(2));
}
