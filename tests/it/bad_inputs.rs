//! A table of corrupt inputs (#13), each run through the binary: the exit
//! code is 2, stderr names the file, line, field or flag, and nothing panics.
//! Covers the catalogue, policy pages, case files, thresholds, prices, the
//! golden set, tool arguments, history files, stored reports and flags.

use std::path::Path;

use serde_json::Value;
use std::process::Command;

use crate::support::root;

/// One bad input: a file to write (relative to a fresh temp dir, `None` for
/// none), the command (with `{dir}` for the temp dir), and what stderr must name.
struct Bad {
    name: &'static str,
    file: Option<(&'static str, Vec<u8>)>,
    args: Vec<String>,
    expect: Vec<&'static str>,
    /// Copy the bundled catalogue to `{dir}/data` first.
    catalogue: bool,
}

fn args(s: &str) -> Vec<String> {
    s.split(' ').map(str::to_owned).collect()
}

fn listings() -> String {
    std::fs::read_to_string(root().join("data/listings.json")).unwrap()
}

fn replaced(from: &str, to: &str) -> Vec<u8> {
    let text = listings();
    assert!(text.contains(from), "listings.json has no `{from}`");
    text.replacen(from, to, 1).into_bytes()
}

fn catalogue(name: &'static str, content: Vec<u8>, expect: Vec<&'static str>) -> Bad {
    Bad {
        name,
        file: Some(("data/listings.json", content)),
        args: args("check --data {dir}/data"),
        expect,
        catalogue: true,
    }
}

fn policy(name: &'static str, content: &str, expect: Vec<&'static str>) -> Bad {
    Bad {
        name,
        file: Some(("data/policies/deposit.md", content.as_bytes().to_vec())),
        args: args("check --data {dir}/data"),
        expect,
        catalogue: true,
    }
}

const CASE: &str = "- id: heat\n  lang: en\n  inquiry: \"Is heating included for HH-1001?\"\n  listings: [HH-1001]\n  must:\n    - text: \"Heating is included\"\n      patterns: ['heating']\n";

fn case(name: &'static str, content: String, expect: Vec<&'static str>) -> Bad {
    Bad {
        name,
        file: Some(("c.yaml", content.into_bytes())),
        args: args("eval --no-cache --cases {dir}/c.yaml --out {dir}/out"),
        expect,
        catalogue: false,
    }
}

fn case_edit(name: &'static str, from: &str, to: &str, expect: Vec<&'static str>) -> Bad {
    assert!(CASE.contains(from), "{from}");
    case(name, CASE.replacen(from, to, 1), expect)
}

fn thresholds(name: &'static str, content: &str, expect: Vec<&'static str>) -> Bad {
    Bad {
        name,
        file: Some(("t.json", content.as_bytes().to_vec())),
        args: args("eval --no-cache --subset --thresholds {dir}/t.json --out {dir}/out"),
        expect,
        catalogue: false,
    }
}

fn prices(name: &'static str, content: &str, expect: Vec<&'static str>) -> Bad {
    Bad {
        name,
        file: Some(("p.json", content.as_bytes().to_vec())),
        args: args("eval --no-cache --subset --prices {dir}/p.json --out {dir}/out"),
        expect,
        catalogue: false,
    }
}

const GOLDEN: &str = "answerable:\n  - id: heat\n    lang: en\n    question: \"Is heating included for HH-1001?\"\n    listing: HH-1001\n    expected: [\"HH-1001#s5\"]\n    needs_real_embeddings: false\nunanswerable:\n  - id: tax\n    lang: en\n    question: \"Can you do my tax return?\"\n";

fn golden(name: &'static str, content: String, expect: Vec<&'static str>) -> Bad {
    Bad {
        name,
        file: Some(("g.yaml", content.into_bytes())),
        args: args("calibrate --no-cache --golden {dir}/g.yaml --out {dir}/out"),
        expect,
        catalogue: false,
    }
}

fn golden_edit(name: &'static str, from: &str, to: &str, expect: Vec<&'static str>) -> Bad {
    assert!(GOLDEN.contains(from), "{from}");
    golden(name, GOLDEN.replacen(from, to, 1), expect)
}

fn tool(name: &'static str, tool: &str, json: &str, expect: Vec<&'static str>) -> Bad {
    Bad {
        name,
        file: None,
        args: vec!["tool".into(), tool.into(), json.into(), "--no-cache".into()],
        expect,
        catalogue: false,
    }
}

fn history(name: &'static str, content: &str, expect: Vec<&'static str>) -> Bad {
    Bad {
        name,
        file: Some(("h.jsonl", content.as_bytes().to_vec())),
        args: args("history {dir}/h.jsonl --svg {dir}/h.svg"),
        expect,
        catalogue: false,
    }
}

fn command(name: &'static str, line: &str, expect: Vec<&'static str>) -> Bad {
    Bad { name, file: None, args: args(line), expect, catalogue: false }
}

fn table() -> Vec<Bad> {
    let deep = format!("{}{}", "[".repeat(5000), "]".repeat(5000));
    let half = listings().as_bytes()[..listings().len() / 2].to_vec();
    let mut bom = b"\xEF\xBB\xBF".to_vec();
    bom.extend(listings().replacen("\"price\": 1650", "\"price\": \"a lot\"", 1).into_bytes());
    let bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n";
    let deep_yaml = format!("{}x{}", "[".repeat(2000), "]".repeat(2000));
    let long_id = format!("id: {}", "a".repeat(300));
    let six_turns = "  history:\n".to_owned() + &"    - {inquiry: \"hi\", reply: \"hello\"}\n".repeat(6);
    vec![
        // --- listings.json
        catalogue("listings: empty file", vec![], vec!["listings.json"]),
        catalogue("listings: open bracket", b"[".to_vec(), vec!["listings.json", "line 1"]),
        catalogue("listings: object, not array", b"{}".to_vec(), vec!["listings.json"]),
        catalogue("listings: empty array", b"[]".to_vec(), vec!["listings.json"]),
        catalogue("listings: trailing bracket", format!("{}]", listings()).into_bytes(), vec!["listings.json"]),
        catalogue("listings: second document", format!("{}\n[]", listings()).into_bytes(), vec!["listings.json"]),
        catalogue("listings: duplicate key", replaced("\"price\": 1650", "\"price\": 1650, \"price\": 9999"), vec!["listings.json", "price"]),
        catalogue("listings: missing id", replaced("\"id\": \"HH-1001\",\n", ""), vec!["listings.json", "id"]),
        catalogue("listings: null id", replaced("\"id\": \"HH-1001\"", "\"id\": null"), vec!["listings.json"]),
        catalogue("listings: numeric id", replaced("\"id\": \"HH-1001\"", "\"id\": 1001"), vec!["listings.json"]),
        catalogue("listings: empty id", replaced("\"id\": \"HH-1001\"", "\"id\": \"\""), vec!["listings.json"]),
        catalogue("listings: path in id", replaced("\"id\": \"HH-1001\"", "\"id\": \"../HH-1001\""), vec!["listings.json"]),
        catalogue("listings: duplicate listing id", replaced("\"id\": \"HH-1002\"", "\"id\": \"HH-1001\""), vec!["listings.json", "HH-1001"]),
        catalogue("listings: price as text", replaced("\"price\": 1650", "\"price\": \"1650\""), vec!["listings.json", "price"]),
        catalogue("listings: negative price", replaced("\"price\": 1650", "\"price\": -1650"), vec!["listings.json", "price"]),
        catalogue("listings: price out of range", replaced("\"price\": 1650", "\"price\": 1e400"), vec!["listings.json"]),
        catalogue("listings: unknown offer type", replaced("\"offerType\": \"rent\"", "\"offerType\": \"swap\""), vec!["listings.json", "offerType"]),
        // Extra keys are ignored by design (SPEC §3 catalogues load unchanged); a misspelt required one is not.
        catalogue("listings: misspelt required field", replaced("\"price\": 1650", "\"pirce\": 1650"), vec!["listings.json", "price"]),
        catalogue("listings: byte-order mark and a bad price", bom, vec!["listings.json", "price"]),
        catalogue("listings: NUL bytes", b"\x00\x01\x02".to_vec(), vec!["listings.json"]),
        catalogue("listings: invalid UTF-8", b"[{\"id\": \"\xff\xfe\"}]".to_vec(), vec!["listings.json"]),
        catalogue("listings: null title", replaced("\"title\": \"Bright", "\"title\": null, \"x\": \"Bright"), vec!["listings.json"]),
        catalogue("listings: missing city", replaced("\"city\": \"Hamburg\",\n", ""), vec!["listings.json", "city"]),
        catalogue("listings: truncated", half, vec!["listings.json"]),
        catalogue("listings: deep nesting", deep.into_bytes(), vec!["listings.json"]),
        catalogue("listings: comment", format!("// listings\n{}", listings()).into_bytes(), vec!["listings.json", "line 1"]),
        catalogue("listings: single quotes", b"[{'id': 'HH-1001'}]".to_vec(), vec!["listings.json"]),
        catalogue("listings: trailing comma", replaced("\"price\": 1650,", "\"price\": 1650,,"), vec!["listings.json"]),
        // --- policy pages
        policy("policy: empty page", "", vec!["deposit.md"]),
        policy("policy: no heading", "Just text without a title.\n", vec!["deposit.md"]),
        policy("policy: empty section", "# Deposit\n\nIntro.\n\n## Amount\n\n## Return\n\nText.\n", vec!["deposit.md"]),
        policy("policy: duplicate sections", "# Deposit\n\nIntro.\n\n## Amount\n\nA.\n\n## Amount\n\nB.\n", vec!["deposit.md", "Amount"]),
        // --- case files
        case("case: empty file", String::new(), vec!["c.yaml"]),
        case("case: a mapping, not a list", "id: heat\nlang: en\n".into(), vec!["c.yaml"]),
        case("case: YAML syntax error", "- id: [heat\n".into(), vec!["c.yaml", "line"]),
        case_edit("case: missing lang", "  lang: en\n", "", vec!["c.yaml", "lang"]),
        case_edit("case: unknown lang", "lang: en", "lang: fr", vec!["c.yaml", "lang"]),
        case_edit("case: null inquiry", "inquiry: \"Is heating included for HH-1001?\"", "inquiry: null", vec!["c.yaml", "line 1", "`inquiry`: expected a string, found null"]),
        case_edit("case: tilde inquiry", "inquiry: \"Is heating included for HH-1001?\"", "inquiry: ~", vec!["c.yaml", "line 1", "`inquiry`: expected a string, found null"]),
        case_edit("case: empty inquiry", "inquiry: \"Is heating included for HH-1001?\"", "inquiry: \"\"", vec!["c.yaml", "inquiry"]),
        case_edit("case: path in id", "id: heat", "id: ../../escape", vec!["c.yaml", "id"]),
        case_edit("case: slash in id", "id: heat", "id: a/b", vec!["c.yaml", "id"]),
        case_edit("case: upper-case id", "id: heat", "id: Heat", vec!["c.yaml", "id"]),
        case_edit("case: id too long", "id: heat", &long_id, vec!["c.yaml", "id"]),
        case("case: duplicate id", format!("{CASE}{CASE}"), vec!["c.yaml", "heat"]),
        case_edit("case: unknown field", "  lang: en\n", "  lang: en\n  colour: red\n", vec!["c.yaml", "colour"]),
        case_edit("case: unknown listing", "listings: [HH-1001]", "listings: [HH-9999]", vec!["c.yaml", "HH-9999"]),
        case_edit("case: bad regex", "patterns: ['heating']", "patterns: ['(']", vec!["c.yaml", "pattern"]),
        case_edit("case: null item text", "text: \"Heating is included\"", "text: null", vec!["c.yaml", "line 6", "must[0]", "`text`: expected a string, found null"]),
        case_edit("case: null id", "id: heat", "id: ~", vec!["c.yaml", "`id`: expected a string, found null"]),
        case_edit("case: null history reply", "  lang: en\n", "  lang: en\n  history:\n    - inquiry: \"Hi\"\n      reply: ~\n", vec!["c.yaml", "history[0]", "`reply`: expected a string, found null"]),
        case_edit("case: unknown overlay", "  lang: en\n", "  lang: en\n  fixtures: nope\n", vec!["c.yaml", "nope"]),
        case("case: alias bomb", bomb.into(), vec!["c.yaml"]),
        case("case: deep nesting", deep_yaml, vec!["c.yaml"]),
        case_edit("case: tags not a list", "  lang: en\n", "  lang: en\n  tags: 5\n", vec!["c.yaml", "tags"]),
        case_edit("case: subset as text", "  lang: en\n", "  lang: en\n  subset: maybe\n", vec!["c.yaml", "subset"]),
        case_edit("case: critical as number", "  lang: en\n", "  lang: en\n  critical: 2\n", vec!["c.yaml", "critical"]),
        case_edit("case: six history turns", "  listings: [HH-1001]\n", &format!("  listings: [HH-1001]\n{six_turns}"), vec!["c.yaml", "history"]),
        case_edit("case: history with unknown field", "  listings: [HH-1001]\n", "  listings: [HH-1001]\n  history:\n    - {inquiry: \"hi\", reply: \"x\", mood: happy}\n", vec!["c.yaml", "mood"]),
        case("case: tab indentation", CASE.replace("  lang", "\tlang"), vec!["c.yaml"]),
        case("case: no checks", "- id: heat\n  lang: en\n  inquiry: \"Is heating included?\"\n".into(), vec!["c.yaml", "heat"]),
        case_edit("case: patterns not a list", "patterns: ['heating']", "patterns: 7", vec!["c.yaml", "patterns"]),
        // --- thresholds
        thresholds("thresholds: empty", "", vec!["t.json"]),
        thresholds("thresholds: open brace", "{", vec!["t.json"]),
        thresholds("thresholds: unknown metric", "{\"case_pass_ratio\": {\"min\": 0.7}}", vec!["t.json", "case_pass_ratio"]),
        thresholds("thresholds: text bound", "{\"case_pass_rate\": {\"min\": \"high\"}}", vec!["t.json", "case_pass_rate"]),
        thresholds("thresholds: duplicate key", "{\"case_pass_rate\": {\"min\": 0.7}, \"case_pass_rate\": {\"min\": 0.1}}", vec!["t.json", "case_pass_rate"]),
        thresholds("thresholds: unknown bound", "{\"case_pass_rate\": {\"minimum\": 0.7}}", vec!["t.json", "minimum"]),
        thresholds("thresholds: array", "[]", vec!["t.json"]),
        thresholds("thresholds: percentage for a ratio", "{\"case_pass_rate\": {\"min\": 75}}", vec!["t.json", "case_pass_rate"]),
        thresholds("thresholds: min above max", "{\"case_pass_rate\": {\"min\": 0.9, \"max\": 0.5}}", vec!["t.json", "case_pass_rate"]),
        // --- prices
        prices("prices: empty", "", vec!["p.json"]),
        prices("prices: negative", "{\"m\": {\"input\": -1, \"output\": 1, \"cacheRead\": 0, \"cacheWrite\": 0}}", vec!["p.json"]),
        prices("prices: unknown key", "{\"m\": {\"input\": 1, \"output\": 1, \"cacheRead\": 0, \"cacheWrite\": 0, \"tax\": 1}}", vec!["p.json", "tax"]),
        prices("prices: text value", "{\"m\": {\"input\": \"cheap\", \"output\": 1, \"cacheRead\": 0, \"cacheWrite\": 0}}", vec!["p.json"]),
        prices("prices: duplicate model", "{\"m\": {\"input\": 1, \"output\": 1, \"cacheRead\": 0, \"cacheWrite\": 0}, \"m\": {\"input\": 2, \"output\": 1, \"cacheRead\": 0, \"cacheWrite\": 0}}", vec!["p.json"]),
        command("prices: missing named file", "eval --no-cache --subset --prices {dir}/nope.json --out {dir}/out", vec!["nope.json"]),
        // --- golden set
        golden("golden: empty", String::new(), vec!["g.yaml"]),
        golden("golden: a list", "- a\n- b\n".into(), vec!["g.yaml"]),
        golden_edit("golden: unknown field", "    lang: en\n", "    lang: en\n    colour: red\n", vec!["g.yaml", "colour"]),
        golden_edit("golden: unknown chunk", "[\"HH-1001#s5\"]", "[\"HH-1001#s99\"]", vec!["g.yaml", "HH-1001#s99"]),
        golden_edit("golden: unknown listing", "listing: HH-1001", "listing: HH-9999", vec!["g.yaml", "HH-9999"]),
        golden_edit("golden: bad lang", "    lang: en\n    question: \"Is", "    lang: xx\n    question: \"Is", vec!["g.yaml", "lang"]),
        golden_edit("golden: no unanswerable", "unanswerable:\n  - id: tax\n    lang: en\n    question: \"Can you do my tax return?\"\n", "", vec!["g.yaml"]),
        golden(
            "golden: duplicate id",
            GOLDEN.replace("  - id: tax", "  - id: heat"),
            vec!["g.yaml", "heat"],
        ),
        // --- tool arguments
        tool("tool: invalid JSON", "get_listing", "{", vec!["JSON"]),
        tool("tool: unknown tool", "book_viewing", "{}", vec!["book_viewing"]),
        tool("tool: missing id", "get_listing", "{}", vec!["id"]),
        tool("tool: numeric id", "get_listing", "{\"id\": 1001}", vec!["id"]),
        tool("tool: text price", "search_listings", "{\"maxPrice\": \"cheap\"}", vec!["maxPrice"]),
        tool("tool: negative price", "search_listings", "{\"maxPrice\": -5}", vec!["maxPrice"]),
        tool("tool: unknown argument", "search_listings", "{\"colour\": \"red\"}", vec!["colour"]),
        tool("tool: duplicate key", "get_listing", "{\"id\": \"HH-1001\", \"id\": \"HH-1002\"}", vec!["id"]),
        tool("tool: unknown reason", "hand_off_to_human", "{\"reason\": \"teleport\", \"summary\": \"Customer wants something else.\"}", vec!["reason"]),
        tool("tool: empty query", "search_knowledge", "{\"query\": \"\"}", vec!["query"]),
        tool("tool: arguments array", "get_listing", "[]", vec!["JSON object"]),
        tool("tool: huge limit", "search_listings", "{\"limit\": 1000000000}", vec!["limit"]),
        // --- history files
        history("history: garbage line", "not json\n", vec!["h.jsonl:1"]),
        history("history: empty object", "{}\n", vec!["h.jsonl:1"]),
        command("history: missing file", "history {dir}/none.jsonl", vec!["none.jsonl"]),
        // --- stored reports
        command("compare: missing reports", "compare {dir}/a {dir}/b", vec!["/a: cannot read"]),
        Bad {
            name: "compare: not a report",
            file: Some(("r/report.json", b"{\"schema\": \"other\"}".to_vec())),
            args: args("compare {dir}/r {dir}/r"),
            expect: vec!["report.json", "inquiry.eval.report/v1"],
            catalogue: false,
        },
        Bad {
            name: "rescore: trace missing",
            file: Some(("r/report.json", br#"{"schema": "inquiry.eval.report/v1", "cases": [{"id": "x"}]}"#.to_vec())),
            args: args("rescore {dir}/r --out {dir}/out"),
            expect: vec!["report.json"],
            catalogue: false,
        },
        command("merge: missing report", "merge {dir}/nothing --out {dir}/out", vec!["/nothing: cannot read"]),
        // --- flags
        command("flag: shard 0/3", "eval --shard 0/3", vec!["--shard"]),
        command("flag: shard 4/3", "eval --shard 4/3", vec!["--shard"]),
        command("flag: shard text", "eval --shard half", vec!["--shard"]),
        command("flag: max-drop as a percentage", "compare a b --max-drop 2", vec!["--max-drop"]),
        command("flag: alpha 1", "compare a b --alpha 1", vec!["--alpha"]),
        command("flag: unknown cache mode", "eval --cache sometimes", vec!["--cache"]),
        command("flag: repeat 0", "eval --repeat 0", vec!["--repeat"]),
        command("flag: prune age", "cache prune --older-than 2w --cache-dir {dir}", vec!["--older-than"]),
        command("flag: cache stats without a cache", "cache stats --cache-dir {dir}/none", vec!["--cache-dir"]),
        Bad {
            name: "flag: --out is a file",
            file: Some(("out-file", b"x".to_vec())),
            args: args("eval --no-cache --subset --out {dir}/out-file"),
            expect: vec!["--out"],
            catalogue: false,
        },
        command("flag: unknown judge", "eval --judge magic", vec!["--judge"]),
        command("flag: llm judge without a model", "eval --no-cache --subset --judge llm --out {dir}/out", vec!["--judge-model"]),
        command("flag: unknown model", "ask hello --model mystery", vec!["mystery"]),
        command("flag: max-model-calls 0", "ask hello --max-model-calls 0", vec!["--max-model-calls"]),
    ]
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

#[test]
fn at_least_a_hundred_bad_inputs_exit_2_naming_what_is_wrong() {
    let table = table();
    assert!(table.len() >= 100, "only {} bad inputs", table.len());
    let mut problems = vec![];
    for bad in &table {
        let dir = tempfile::tempdir().unwrap();
        if bad.catalogue {
            copy_dir(&root().join("data"), &dir.path().join("data"));
        }
        if let Some((rel, bytes)) = &bad.file {
            let path = dir.path().join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, bytes).unwrap();
        }
        let d = dir.path().to_str().unwrap();
        let argv: Vec<String> = bad.args.iter().map(|a| a.replace("{dir}", d)).collect();
        let out = Command::new(env!("CARGO_BIN_EXE_inquiry"))
            .args(&argv)
            .current_dir(root())
            .env("NO_COLOR", "1")
            .env("INQUIRY_CACHE_DIR", dir.path().join("cache"))
            .env_remove("INQUIRY_HOME")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        let missing: Vec<&&str> = bad.expect.iter().filter(|e| !err.contains(**e)).collect();
        if out.status.code() != Some(2) || !missing.is_empty() || err.contains("panicked") {
            problems.push(format!(
                "{}: exit {:?}, missing {:?} in stderr:\n{}",
                bad.name,
                out.status.code(),
                missing,
                err.chars().take(600).collect::<String>()
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "{} of {} bad inputs misbehaved:\n\n{}",
        problems.len(),
        table.len(),
        problems.join("\n\n")
    );
}

mod properties {
    use proptest::prelude::*;
    use serde_json::Value;

    /// Arbitrary JSON, a few levels deep.
    fn json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
            ".{0,40}".prop_map(Value::String),
            prop_oneof![Just("HH-1001"), Just("viewing_request"), Just("Hamburg"), Just("")].prop_map(Value::from),
        ];
        leaf.prop_recursive(3, 24, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::btree_map(
                    prop_oneof![
                        Just("id".to_owned()),
                        Just("query".to_owned()),
                        Just("maxPrice".to_owned()),
                        Just("city".to_owned()),
                        Just("reason".to_owned()),
                        Just("summary".to_owned()),
                        Just("listingId".to_owned()),
                        Just("limit".to_owned()),
                        "[a-zA-Z]{1,8}",
                    ],
                    inner,
                    0..5
                )
                .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

        /// Any arguments to any tool give a JSON object back: a result, or `{error, hint}`.
        #[test]
        fn random_tool_arguments_never_panic(
            tool in prop_oneof![Just("search_listings"), Just("get_listing"), Just("search_knowledge"), Just("hand_off_to_human"), Just("other")],
            args in json(),
        ) {
            let toolbox = crate::support::toolbox();
            let result = inquiry::tools::call_json(&toolbox, tool, args);
            prop_assert!(result.value.is_object(), "{}", result.value);
            if result.is_error {
                prop_assert!(result.value["error"].is_string() && result.value["hint"].is_string(), "{}", result.value);
            }
        }
    }
}

/// Random frames on the MCP stdio stream (seeded, 300 of them): the server
/// never dies, every stdout line is a JSON-RPC message, and a well-formed
/// request after the noise is still answered.
#[test]
fn random_mcp_frames_get_well_formed_replies() {
    use std::io::{BufRead, BufReader, Write};
    let mut rng = inquiry::stats::SplitMix64::new(7);
    let mut frames = vec![
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"fuzz","version":"0"}}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_owned(),
    ];
    let pieces = [
        "{",
        "}",
        "[",
        "]",
        "\"jsonrpc\":\"2.0\"",
        "\"id\":",
        "\"method\":\"tools/call\"",
        "\"params\":",
        "{\"name\":\"get_listing\",\"arguments\":{\"id\":",
        "\"HH-1001\"",
        "null",
        "12",
        "-1",
        "1e999",
        ",",
        ":",
        "\"tools/list\"",
        "\"\\u0000\"",
        "\"ä\"",
        "true",
    ];
    for i in 0..300 {
        let mut f = String::new();
        for _ in 0..(1 + rng.below(12)) {
            f.push_str(pieces[rng.below(pieces.len())]);
        }
        if i % 3 == 0 {
            // Shaped like a request, so it reaches the tool layer.
            f = format!(
                r#"{{"jsonrpc":"2.0","id":{},"method":"tools/call","params":{{"name":"{}","arguments":{{"id":{},"maxPrice":{}}}}}}}"#,
                1000 + i,
                ["get_listing", "search_listings", "nope", "hand_off_to_human"][rng.below(4)],
                ["\"HH-1001\"", "5", "null", "[]", "\"x\""][rng.below(5)],
                ["1", "-3", "\"cheap\"", "null"][rng.below(4)],
            );
        }
        frames.push(f);
    }
    frames.push(r#"{"jsonrpc":"2.0","id":99999,"method":"tools/list"}"#.to_owned());
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_inquiry"))
        .args(["serve-mcp", "--no-cache"])
        .current_dir(root())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut lines = vec![];
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let done = line.contains("\"id\":99999");
            lines.push(line);
            if done {
                break;
            }
        }
        lines
    });
    for f in &frames {
        // A write fails only if the server died; the assertion below says so.
        let _ = writeln!(stdin, "{f}");
    }
    let _ = stdin.flush();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(reader.join());
    });
    let lines =
        rx.recv_timeout(std::time::Duration::from_secs(60)).expect("the server answers the last request").unwrap();
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        lines.last().is_some_and(|l| l.contains("\"id\":99999") && l.contains("get_listing")),
        "{:?}",
        lines.last()
    );
    for line in &lines {
        let v: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
        assert_eq!(v["jsonrpc"], "2.0", "{line}");
    }
}
