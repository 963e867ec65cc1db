//! #26: the bad-input table for the newer command-line surfaces (tickets,
//! serve and view start-up, cache, `--cache replay`, compare, merge, rescore,
//! history and their outputs), each run through the binary. Every input
//! asserts the exit code, that stderr names the file, line, field, flag or
//! variable at fault, that nothing panics or hangs, and that nothing outside
//! the declared outputs changed: the temp dir (inputs, working directory,
//! HOME) is hashed before and after. The HTTP inputs are in
//! `bad_inputs_servers.rs`.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::support::root;

/// Something to create in the temp dir before the command runs.
pub enum Put {
    File(&'static str, Vec<u8>),
    Dir(&'static str),
    Fifo(&'static str),
    /// A symbolic link at the path pointing at the target (`{dir}` replaced).
    Link(&'static str, &'static str),
    /// A sparse file of this many bytes.
    Sparse(&'static str, u64),
    /// A copy of the committed report set `reports/eval`, its report.json edited.
    Set(&'static str, fn(&mut Value)),
    /// An SQLite file made by this SQL.
    Sqlite(&'static str, &'static str),
    /// A desk database with one ticket (TKT-0001), then this SQL.
    Desk(&'static str, &'static str),
    /// A file of the set written earlier in the list, removed.
    Remove(&'static str),
}

/// One bad input: what to create, the command (`{dir}`: the temp dir,
/// `{root}`: the repository), the expected exit code and stderr fragments.
pub struct Bad {
    name: &'static str,
    put: Vec<Put>,
    args: Vec<String>,
    env: Vec<(&'static str, &'static str)>,
    code: i32,
    expect: Vec<&'static str>,
    /// Must appear in neither stdout nor stderr (raw terminal escapes).
    reject: Vec<&'static str>,
    /// Paths (relative to the temp dir) the command may create or change.
    outputs: Vec<&'static str>,
}

fn bad(name: &'static str, put: Vec<Put>, line: &str, expect: Vec<&'static str>) -> Bad {
    Bad {
        name,
        put,
        args: line.split(' ').map(str::to_owned).collect(),
        env: vec![],
        code: 2,
        expect,
        reject: vec![],
        outputs: vec![],
    }
}

impl Bad {
    fn out(mut self, paths: &[&'static str]) -> Self {
        self.outputs.extend(paths);
        self
    }
    fn env(mut self, key: &'static str, value: &'static str) -> Self {
        self.env.push((key, value));
        self
    }
    fn code(mut self, code: i32) -> Self {
        self.code = code;
        self
    }
    fn reject(mut self, text: &'static str) -> Self {
        self.reject.push(text);
        self
    }
    /// Replaces one argument (for values with spaces or control characters).
    fn arg(mut self, i: usize, value: &str) -> Self {
        self.args[i] = value.to_owned();
        self
    }
}

const FOREIGN: &str =
    "CREATE TABLE accounts (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO accounts VALUES (1, 'ana');";
const OTHER_APP: &str = "PRAGMA application_id = 1234; CREATE TABLE notes (x TEXT); INSERT INTO notes VALUES ('keep');";
const OWN_TICKETS: &str =
    "CREATE TABLE tickets (id INTEGER PRIMARY KEY, title TEXT); INSERT INTO tickets VALUES (1, 'a helpdesk ticket');";
const NEWER: &str = "INSERT INTO schema_version (version, applied_at) VALUES (99, '2030-01-01T00:00:00Z');";
const ESC_SUMMARY: &str = "UPDATE tickets SET summary = 'Call back about HH-1001 ' || char(27) || ']0;pwned' || char(7) || char(27) || '[2J now';";
const BAD_REASON: &str = "UPDATE tickets SET reason = 'teleport';";
const CACHE_ROWS: &str = "CREATE TABLE responses (key TEXT PRIMARY KEY, body TEXT);";

fn keep(_: &mut Value) {}

fn history_line(model: &str) -> String {
    json!({"date": "2026-12-01T10:00:00Z", "git_commit": "abc1234", "inputs_hash": "h1", "name": "eval",
        "model": model, "judge": "rules", "embedder": "hashing", "reranker": null, "repeat": 1, "cases": 49,
        "verdict": "PASS", "metrics": [{"name": "case_pass_rate", "value": 0.98, "interval": {"lo": 0.89, "hi": 0.99}}],
        "cost_usd": 0.0, "wall_ms": 1200})
    .to_string()
}

fn history(name: &'static str, content: String, line: &str, expect: Vec<&'static str>) -> Bad {
    bad(name, vec![Put::File("h.jsonl", content.into_bytes())], line, expect)
}

fn table() -> Vec<Bad> {
    let good = history_line("demo");
    let half = &good[..good.len() / 2];
    let esc = history_line("demo\u{1b}]0;pwned\u{7}\u{1b}[2J");
    let compare = "compare {dir}/a {dir}/b";
    let set = |at| Put::Set(at, keep);
    let note = "x".repeat(2001);
    vec![
        // --- tickets: the database is another application's, not a database, or not there
        bad("tickets list: missing database", vec![], "tickets list --db {dir}/none.sqlite", vec!["--db", "none.sqlite"]),
        bad("tickets list: foreign SQLite", vec![Put::Sqlite("o.sqlite", FOREIGN)], "tickets list --db {dir}/o.sqlite", vec!["--db", "o.sqlite", "not an inquiry desk database"]),
        bad("tickets list: other application id", vec![Put::Sqlite("o.sqlite", OTHER_APP)], "tickets list --db {dir}/o.sqlite", vec!["--db", "o.sqlite", "application id"]),
        bad("tickets list: another app's tickets table", vec![Put::Sqlite("o.sqlite", OWN_TICKETS)], "tickets list --db {dir}/o.sqlite", vec!["--db", "o.sqlite"]),
        bad("tickets list: text file", vec![Put::File("t.sqlite", b"not a database\n".to_vec())], "tickets list --db {dir}/t.sqlite", vec!["--db", "t.sqlite"]),
        bad("tickets list: empty file", vec![Put::File("e.sqlite", vec![])], "tickets list --db {dir}/e.sqlite", vec!["--db", "e.sqlite"]),
        bad("tickets list: directory", vec![Put::Dir("d.sqlite")], "tickets list --db {dir}/d.sqlite", vec!["--db", "d.sqlite"]),
        bad("tickets list: FIFO", vec![Put::Fifo("f.sqlite")], "tickets list --db {dir}/f.sqlite", vec!["--db", "f.sqlite"]),
        bad("tickets list: newer schema", vec![Put::Desk("n.sqlite", NEWER)], "tickets list --db {dir}/n.sqlite", vec!["--db", "n.sqlite", "99"]),
        bad("tickets list: unknown status", vec![Put::Desk("k.sqlite", "")], "tickets list --status closed --db {dir}/k.sqlite", vec!["--status", "closed"]),
        bad("tickets list: a row with an unknown reason is skipped, not fatal", vec![Put::Desk("k.sqlite", BAD_REASON)], "tickets list --db {dir}/k.sqlite", vec!["TKT-0001"]).code(0),
        bad("tickets list: escapes in a summary are not printed raw", vec![Put::Desk("k.sqlite", ESC_SUMMARY)], "tickets list --db {dir}/k.sqlite", vec!["1 ticket(s)"]).code(0).reject("\u{1b}"),
        bad("tickets list: INQUIRY_DESK_DB is a directory", vec![Put::Dir("dbdir")], "tickets list", vec!["dbdir"]).env("INQUIRY_DESK_DB", "{dir}/dbdir"),
        bad("tickets show: unknown id", vec![Put::Desk("k.sqlite", "")], "tickets show TKT-9999 --db {dir}/k.sqlite", vec!["no ticket TKT-9999"]),
        bad("tickets show: empty id", vec![Put::Desk("k.sqlite", "")], "tickets show X --db {dir}/k.sqlite", vec!["no ticket"]).arg(2, ""),
        bad("tickets show: SQL in the id", vec![Put::Desk("k.sqlite", "")], "tickets show X --db {dir}/k.sqlite", vec!["no ticket"]).arg(2, "TKT-0001' OR '1'='1"),
        bad("tickets show: path in the id", vec![Put::Desk("k.sqlite", "")], "tickets show ../../etc/passwd --db {dir}/k.sqlite", vec!["no ticket"]),
        bad("tickets show: escapes in the id", vec![Put::Desk("k.sqlite", "")], "tickets show X --db {dir}/k.sqlite", vec!["no ticket"]).arg(2, "TKT-\u{1b}[31m9").reject("\u{1b}"),
        bad("tickets show: escapes in a summary are not printed raw", vec![Put::Desk("k.sqlite", ESC_SUMMARY)], "tickets show TKT-0001 --db {dir}/k.sqlite", vec![]).code(0).reject("\u{1b}"),
        bad("tickets show: foreign SQLite", vec![Put::Sqlite("o.sqlite", FOREIGN)], "tickets show TKT-0001 --db {dir}/o.sqlite", vec!["--db", "o.sqlite"]),
        bad("tickets close: unknown id", vec![Put::Desk("k.sqlite", "")], "tickets close TKT-9999 --db {dir}/k.sqlite", vec!["no ticket TKT-9999"]).out(&["k.sqlite"]),
        bad("tickets close: note too long", vec![Put::Desk("k.sqlite", "")], "tickets close TKT-0001 --note X --db {dir}/k.sqlite", vec!["note", "2000"]).arg(4, &note).out(&["k.sqlite"]),
        bad("tickets close: missing database", vec![], "tickets close TKT-0001 --db {dir}/none.sqlite", vec!["--db", "none.sqlite"]),
        bad("tickets close: foreign SQLite", vec![Put::Sqlite("o.sqlite", FOREIGN)], "tickets close TKT-0001 --db {dir}/o.sqlite", vec!["--db", "o.sqlite", "not an inquiry desk database"]),
        bad("tickets close: other application id", vec![Put::Sqlite("o.sqlite", OTHER_APP)], "tickets close TKT-0001 --db {dir}/o.sqlite", vec!["--db", "o.sqlite"]),
        bad("tickets close: newer schema", vec![Put::Desk("n.sqlite", NEWER)], "tickets close TKT-0001 --db {dir}/n.sqlite", vec!["--db", "n.sqlite", "newer"]),
        bad("tickets close: text file", vec![Put::File("t.sqlite", b"ticket 1: call back\n".to_vec())], "tickets close TKT-0001 --db {dir}/t.sqlite", vec!["--db", "t.sqlite"]),
        // --- serve: refused before it listens, and before it writes
        bad("serve: --db is a directory", vec![Put::Dir("d.sqlite")], "serve --bind 127.0.0.1:0 --db {dir}/d.sqlite", vec!["--db", "d.sqlite", "directory"]),
        bad("serve: foreign SQLite", vec![Put::Sqlite("o.sqlite", FOREIGN)], "serve --bind 127.0.0.1:0 --db {dir}/o.sqlite", vec!["--db", "o.sqlite", "not an inquiry desk database"]),
        bad("serve: other application id", vec![Put::Sqlite("o.sqlite", OTHER_APP)], "serve --bind 127.0.0.1:0 --db {dir}/o.sqlite", vec!["--db", "o.sqlite"]),
        bad("serve: another app's tickets table", vec![Put::Sqlite("o.sqlite", OWN_TICKETS)], "serve --bind 127.0.0.1:0 --db {dir}/o.sqlite", vec!["--db", "o.sqlite"]),
        bad("serve: text file", vec![Put::File("t.sqlite", b"hello\n".to_vec())], "serve --bind 127.0.0.1:0 --db {dir}/t.sqlite", vec!["--db", "t.sqlite"]),
        bad("serve: FIFO", vec![Put::Fifo("f.sqlite")], "serve --bind 127.0.0.1:0 --db {dir}/f.sqlite", vec!["--db", "f.sqlite"]),
        bad("serve: newer schema", vec![Put::Desk("n.sqlite", NEWER)], "serve --bind 127.0.0.1:0 --db {dir}/n.sqlite", vec!["--db", "n.sqlite", "newer"]),
        bad("serve: --db under a file", vec![Put::File("plain", b"x".to_vec())], "serve --bind 127.0.0.1:0 --db {dir}/plain/desk.sqlite", vec!["--db", "plain"]),
        bad("serve: whitespace --token", vec![], "serve --bind 127.0.0.1:0 --db {dir}/new.sqlite --token X", vec!["--token", "whitespace"]).arg(6, "   "),
        bad("serve: whitespace INQUIRY_DESK_TOKEN", vec![], "serve --bind 127.0.0.1:0 --db {dir}/new.sqlite", vec!["INQUIRY_DESK_TOKEN"]).env("INQUIRY_DESK_TOKEN", " \t "),
        bad("serve: --allow-remote with a blank token", vec![], "serve --allow-remote --bind 0.0.0.0:0 --db {dir}/new.sqlite --token X", vec!["--token"]).arg(7, " "),
        bad("serve: rate limit 0", vec![], "serve --rate-limit 0 --db {dir}/new.sqlite", vec!["--rate-limit"]),
        bad("serve: --bind without a port", vec![], "serve --bind 127.0.0.1 --db {dir}/new.sqlite", vec!["--bind"]),
        bad("serve: unknown model", vec![], "serve --bind 127.0.0.1:0 --model mystery --db {dir}/new.sqlite", vec!["mystery"]),
        bad("serve: missing catalogue", vec![], "serve --bind 127.0.0.1:0 --data {dir}/nodata --db {dir}/new.sqlite", vec!["nodata"]).out(&["new.sqlite"]),
        // --- view: roots that are not directories, addresses that are not loopback
        bad("view: root is a file", vec![Put::File("r.txt", b"x".to_vec())], "view --bind 127.0.0.1:0 {dir}/r.txt", vec!["r.txt", "not a directory"]),
        bad("view: root is missing", vec![], "view --bind 127.0.0.1:0 {dir}/nothing", vec!["nothing"]),
        bad("view: root is a FIFO", vec![Put::Fifo("p")], "view --bind 127.0.0.1:0 {dir}/p", vec!["p:"]),
        bad("view: not loopback", vec![], "view --bind 0.0.0.0:0", vec!["loopback"]),
        bad("view: --bind without a port", vec![], "view --bind localhost", vec!["--bind"]),
        bad("view: --bind a host name", vec![], "view --bind example.com:80", vec!["--bind"]),
        // --- cache: the file is not a response cache, or not there
        bad("cache stats: missing directory", vec![], "cache stats --cache-dir {dir}/none", vec!["--cache-dir", "none"]),
        bad("cache stats: a desk database", vec![Put::Desk("c/cache.sqlite", "")], "cache stats --cache-dir {dir}/c", vec!["cache.sqlite", "not an inquiry response cache"]),
        bad("cache stats: foreign SQLite", vec![Put::Sqlite("c/cache.sqlite", FOREIGN)], "cache stats --cache-dir {dir}/c", vec!["cache.sqlite", "not an inquiry response cache"]),
        bad("cache stats: look-alike responses table", vec![Put::Sqlite("c/cache.sqlite", CACHE_ROWS)], "cache stats --cache-dir {dir}/c", vec!["cache.sqlite"]),
        bad("cache stats: text file", vec![Put::File("c/cache.sqlite", b"cache\n".to_vec())], "cache stats --cache-dir {dir}/c", vec!["cache.sqlite"]),
        bad("cache stats: empty file", vec![Put::File("c/cache.sqlite", vec![])], "cache stats --cache-dir {dir}/c", vec!["cache.sqlite"]),
        bad("cache stats: cache.sqlite is a directory", vec![Put::Dir("c/cache.sqlite")], "cache stats --cache-dir {dir}/c", vec!["--cache-dir"]),
        bad("cache stats: cache.sqlite is a FIFO", vec![Put::Fifo("c/cache.sqlite")], "cache stats --cache-dir {dir}/c", vec!["--cache-dir"]),
        bad("cache stats: --cache-dir is a file", vec![Put::File("c", b"x".to_vec())], "cache stats --cache-dir {dir}/c", vec!["--cache-dir"]),
        bad("cache stats: INQUIRY_CACHE_DIR missing", vec![], "cache stats", vec!["gone"]).env("INQUIRY_CACHE_DIR", "{dir}/gone"),
        bad("cache clear: a desk database", vec![Put::Desk("c/cache.sqlite", "")], "cache clear --cache-dir {dir}/c", vec!["cache.sqlite", "not an inquiry response cache"]),
        bad("cache clear: missing directory", vec![], "cache clear --cache-dir {dir}/none", vec!["--cache-dir"]),
        bad("cache prune: foreign SQLite", vec![Put::Sqlite("c/cache.sqlite", FOREIGN)], "cache prune --older-than 1d --cache-dir {dir}/c", vec!["cache.sqlite"]),
        bad("cache prune: negative age", vec![], "cache prune --older-than -1d --cache-dir {dir}", vec!["--older-than"]),
        bad("cache prune: no age", vec![], "cache prune --cache-dir {dir}", vec!["--older-than"]),
        bad("cache prune: age overflow", vec![], "cache prune --older-than 99999999999999999999d --cache-dir {dir}", vec!["--older-than"]),
        // --- --cache replay: nothing to replay, or not a cache
        bad("replay: no cache", vec![], "-C {root} ask hello --model openai:m --cache replay --cache-dir {dir}/none", vec!["--cache replay", "none"]).env("OPENAI_BASE_URL", "http://127.0.0.1:9/v1"),
        bad("replay: foreign SQLite", vec![Put::Sqlite("c/cache.sqlite", FOREIGN)], "-C {root} ask hello --model openai:m --cache replay --cache-dir {dir}/c", vec!["cache.sqlite"]).env("OPENAI_BASE_URL", "http://127.0.0.1:9/v1"),
        bad("replay: text file is not moved aside", vec![Put::File("c/cache.sqlite", b"x".to_vec())], "-C {root} ask hello --model openai:m --cache replay --cache-dir {dir}/c", vec!["cache.sqlite"]).env("OPENAI_BASE_URL", "http://127.0.0.1:9/v1"),
        bad("replay: a desk database", vec![Put::Desk("c/cache.sqlite", "")], "-C {root} ask hello --model openai:m --cache replay --cache-dir {dir}/c", vec!["cache.sqlite"]).env("OPENAI_BASE_URL", "http://127.0.0.1:9/v1"),
        bad("replay: eval with no cache", vec![], "-C {root} eval --case heating-hh-1001 --model openai:m --cache replay --cache-dir {dir}/none --out {dir}/out", vec!["--cache replay"]).env("OPENAI_BASE_URL", "http://127.0.0.1:9/v1"),
        bad("ask: unreachable model creates no cache", vec![], "-C {root} ask hello --model openai:m --base-url http://127.0.0.1:9/v1 --cache-dir {dir}/c", vec!["127.0.0.1:9"]).env("INQUIRY_MODEL_MAX_ATTEMPTS", "1"),
        // --- compare: not reports, damaged reports, outputs that are inputs
        bad("compare: empty directories", vec![Put::Dir("a"), Put::Dir("b")], compare, vec!["report.json"]),
        bad("compare: a text file", vec![Put::File("a", b"x".to_vec()), set("b")], compare, vec!["a:"]),
        bad("compare: report.json is a FIFO", vec![Put::Dir("a"), Put::Fifo("a/report.json"), set("b")], compare, vec!["report.json", "regular file"]),
        bad("compare: report.json is a directory", vec![Put::Dir("a/report.json"), set("b")], compare, vec!["report.json"]),
        bad("compare: report.json is huge", vec![Put::Dir("a"), Put::Sparse("a/report.json", 65 << 20), set("b")], compare, vec!["report.json", "bytes"]),
        bad("compare: report.json links to a non-report", vec![Put::Dir("a"), Put::File("x.json", b"{}".to_vec()), Put::Link("a/report.json", "{dir}/x.json"), set("b")], compare, vec!["report.json", "schema"]),
        bad("compare: report.json links to itself", vec![Put::Dir("a"), Put::Link("a/report.json", "report.json"), set("b")], compare, vec!["report.json"]),
        bad("compare: truncated report.json", vec![Put::Set("a", |r| *r = json!({"schema": r["schema"].clone(), "cases": [r["cases"][0].clone()]})), set("b")], compare, vec!["report.json", "field"]),
        bad("compare: negative repeat", vec![set("a"), Put::Set("b", |r| r["repeat"] = json!(-1))], compare, vec!["report.json", "repeat"]),
        bad("compare: repeat past u64", vec![set("a"), Put::Set("b", |r| r["repeat"] = json!(1e30))], compare, vec!["report.json", "repeat"]),
        bad("compare: negative latency", vec![set("a"), Put::Set("b", |r| r["cases"][0]["runs"][0]["latency_ms"] = json!(-5))], compare, vec!["report.json", "latency_ms"]),
        bad("compare: wall time out of range", vec![Put::Set("a", |r| r["wall_ms"] = json!(1e300)), set("b")], compare, vec!["report.json", "wall_ms"]),
        bad("compare: cases not a list", vec![set("a"), Put::Set("b", |r| r["cases"] = json!({}))], compare, vec!["report.json", "cases"]),
        bad("compare: another schema", vec![set("a"), Put::Set("b", |r| r["schema"] = json!("inquiry.eval.report/v9"))], compare, vec!["report.json", "v9"]),
        bad("compare: duplicate case ids", vec![set("a"), Put::Set("b", |r| { let c = r["cases"][0].clone(); r["cases"].as_array_mut().unwrap().push(c) })], compare, vec!["heating-hh-1001", "twice"]),
        bad("compare: duplicate key", vec![set("a"), set("b"), Put::File("b/report.json", br#"{"schema": "inquiry.eval.report/v1", "schema": "x"}"#.to_vec())], compare, vec!["report.json", "schema"]),
        bad("compare: --html is the candidate's page", vec![set("a"), set("b")], "compare {dir}/a {dir}/b --html {dir}/b/report.html", vec!["--html", "input"]),
        bad("compare: --html is a report.json", vec![set("a"), set("b")], "compare {dir}/a {dir}/b --html {dir}/a/report.json", vec!["--html"]),
        bad("compare: --summary-md is the report.md", vec![set("a"), set("b")], "compare {dir}/a {dir}/b --summary-md {dir}/b/report.md", vec!["--summary-md", "input"]),
        bad("compare: --summary-md through ..", vec![set("a"), set("b")], "compare {dir}/a {dir}/b --summary-md {dir}/b/../a/report.md", vec!["--summary-md"]),
        bad("compare: --summary-md in a missing directory", vec![set("a"), set("b")], "compare {dir}/a {dir}/b --summary-md {dir}/no/s.md", vec!["--summary-md"]),
        bad("compare: --summary-md is a FIFO", vec![set("a"), set("b"), Put::Fifo("s.md")], "compare {dir}/a {dir}/b --summary-md {dir}/s.md", vec!["--summary-md"]),
        bad("compare: --html is a directory", vec![set("a"), set("b")], "compare {dir}/a {dir}/b --html {dir}/a", vec!["--html"]),
        bad("compare: GITHUB_STEP_SUMMARY is a FIFO", vec![set("a"), set("b"), Put::Fifo("summary")], compare, vec!["GITHUB_STEP_SUMMARY"]).env("GITHUB_STEP_SUMMARY", "{dir}/summary"),
        bad("compare: GITHUB_STEP_SUMMARY is a directory", vec![set("a"), set("b"), Put::Dir("summary")], compare, vec!["GITHUB_STEP_SUMMARY"]).env("GITHUB_STEP_SUMMARY", "{dir}/summary"),
        bad("compare: GITHUB_STEP_SUMMARY in a missing directory", vec![set("a"), set("b")], compare, vec!["GITHUB_STEP_SUMMARY"]).env("GITHUB_STEP_SUMMARY", "{dir}/no/summary.md"),
        bad("compare: GITHUB_STEP_SUMMARY is /dev/full", vec![set("a"), set("b")], compare, vec!["GITHUB_STEP_SUMMARY"]).env("GITHUB_STEP_SUMMARY", "/dev/full"),
        bad("compare: escapes in report fields are not printed raw", vec![set("a"), Put::Set("b", |r| {
            r["name"] = json!("cand\u{1b}]0;pwned\u{7}");
            let c = &mut r["cases"][0];
            (c["passed"], c["status"], c["pass_rate"]) = (json!(false), json!("fail"), json!(0.0));
            (c["runs"][0]["passed"], c["runs"][0]["status"]) = (json!(false), json!("fail"));
            c["runs"][0]["failures"] = json!(["\u{1b}[2J\u{1b}]0;pwned\u{7} reply lacks the fact"]);
        })], compare, vec![]).code(0).reject("\u{1b}"),
        // --- merge
        bad("merge: not a report set", vec![Put::Dir("a")], "-C {root} merge {dir}/a --out {dir}/out", vec!["report.json"]),
        bad("merge: INCOMPLETE shard", vec![Put::Set("a", |r| { r["verdict"] = json!("INCOMPLETE"); r["incomplete"] = json!({"reason": "interrupted by SIGINT", "runs_finished": 49, "runs_planned": 49, "unfinished_cases": []}) })], "-C {root} merge {dir}/a --out {dir}/out", vec!["INCOMPLETE"]),
        bad("merge: a set twice", vec![set("a")], "-C {root} merge {dir}/a {dir}/a --out {dir}/out", vec!["heating-hh-1001"]),
        bad("merge: duplicate case ids", vec![Put::Set("a", |r| { let c = r["cases"][0].clone(); r["cases"].as_array_mut().unwrap().push(c) })], "-C {root} merge {dir}/a --out {dir}/out", vec!["heating-hh-1001"]),
        bad("merge: missing trace", vec![set("a"), Put::Remove("a/cases/heating-hh-1001.json")], "-C {root} merge {dir}/a --out {dir}/out", vec!["heating-hh-1001.json"]),
        bad("merge: unsafe case id", vec![Put::Set("a", |r| r["cases"][0]["id"] = json!("../../escape"))], "-C {root} merge {dir}/a --out {dir}/out", vec!["report.json", "escape"]),
        bad("merge: shards do not add up", vec![Put::Set("a", |r| r["selection"]["shard"] = json!({"index": 1, "count": 3}))], "-C {root} merge {dir}/a --out {dir}/out", vec!["1/3"]),
        bad("merge: --out holds files it did not write", vec![set("a"), Put::File("o/all/keep.txt", b"mine".to_vec())], "-C {root} merge {dir}/a --out {dir}/o", vec!["o/all"]),
        bad("merge: --out is a file", vec![set("a"), Put::File("o", b"x".to_vec())], "-C {root} merge {dir}/a --out {dir}/o", vec!["--out"]),
        bad("merge: --name with a path", vec![set("a")], "-C {root} merge {dir}/a --out {dir}/out --name ../x", vec!["--name"]),
        bad("merge: missing cases", vec![set("a")], "-C {root} merge {dir}/a --out {dir}/out --cases {dir}/nocases", vec!["nocases"]),
        bad("merge: an empty shard is a valid shard", vec![Put::Set("a", |r| r["selection"]["shard"] = json!({"index": 1, "count": 2})), Put::Set("b", |r| { r["selection"]["shard"] = json!({"index": 2, "count": 2}); r["cases"] = json!([]) })], "-C {root} merge {dir}/a {dir}/b --out {dir}/out", vec!["merged 2 reports"]).code(0),
        // --- rescore
        bad("rescore: not a report set", vec![Put::Dir("a")], "-C {root} rescore {dir}/a --out {dir}/out", vec!["report.json"]),
        bad("rescore: truncated trace", vec![set("a"), Put::File("a/cases/heating-hh-1001.json", b"{\"id\": \"heating-hh-1001\", \"runs\": [".to_vec())], "-C {root} rescore {dir}/a --out {dir}/out", vec!["heating-hh-1001.json"]),
        bad("rescore: trace is a FIFO", vec![set("a"), Put::Remove("a/cases/heating-hh-1001.json"), Put::Fifo("a/cases/heating-hh-1001.json")], "-C {root} rescore {dir}/a --out {dir}/out", vec!["heating-hh-1001.json"]),
        bad("rescore: trace of another case", vec![set("a"), Put::Remove("a/cases/heating-hh-1001.json"), Put::Link("a/cases/heating-hh-1001.json", "deposit-instalments.json")], "-C {root} rescore {dir}/a --out {dir}/out", vec!["heating-hh-1001"]),
        bad("rescore: case id with a path", vec![Put::Set("a", |r| r["cases"][0]["id"] = json!("../../../etc/passwd"))], "-C {root} rescore {dir}/a --out {dir}/out", vec!["report.json", "passwd"]),
        bad("rescore: out-of-range integer", vec![Put::Set("a", |r| r["cases"][0]["runs"][0]["attempt"] = json!(-3))], "-C {root} rescore {dir}/a --out {dir}/out", vec!["report.json", "attempt"]),
        bad("rescore: output replaces its input", vec![Put::Dir("sets"), set("sets/r")], "-C {root} rescore {dir}/sets/r --out {dir}/sets --name r", vec!["--out"]),
        bad("rescore: llm judge without a model", vec![set("a")], "-C {root} rescore {dir}/a --judge llm --out {dir}/out", vec!["--judge-model"]),
        bad("rescore: missing prices", vec![set("a")], "-C {root} rescore {dir}/a --prices {dir}/p.json --out {dir}/out", vec!["p.json"]),
        bad("rescore: --cache replay for the llm judge, no cache", vec![set("a")], "-C {root} rescore {dir}/a --judge llm --judge-model openai:j --cache replay --cache-dir {dir}/none --out {dir}/out", vec!["--cache replay"]).env("OPENAI_BASE_URL", "http://127.0.0.1:9/v1"),
        // --- history: files that are not histories, outputs that are inputs
        history("history: --svg is the history", good.clone(), "history {dir}/h.jsonl --svg {dir}/h.jsonl", vec!["--svg", "h.jsonl"]),
        history("history: --svg is the history through ./", good.clone(), "history {dir}/h.jsonl --svg {dir}/./h.jsonl", vec!["--svg"]),
        bad("history: --svg links to the history", vec![Put::File("h.jsonl", good.clone().into_bytes()), Put::Link("s.svg", "h.jsonl")], "history {dir}/h.jsonl --svg {dir}/s.svg", vec!["--svg"]),
        bad("history: a history named .svg is not its own trend", vec![Put::File("trend.svg", good.clone().into_bytes())], "history {dir}/trend.svg", vec!["trend.svg"]),
        history("history: half a line in the middle is skipped", format!("{good}\n{half}\n{good}\n"), "history {dir}/h.jsonl --svg {dir}/o.svg", vec!["h.jsonl:2"]).code(0).out(&["o.svg"]),
        history("history: an append after a cut, on the same line", format!("{good}\n{half}{good}\n"), "history {dir}/h.jsonl --svg {dir}/o.svg", vec!["h.jsonl:2"]),
        history("history: half a last line is skipped", format!("{good}\n{half}"), "history {dir}/h.jsonl --svg {dir}/o.svg", vec!["h.jsonl:2"]).code(0).out(&["o.svg"]),
        history("history: negative case count", good.replace("\"cases\":49", "\"cases\":-49"), "history {dir}/h.jsonl --svg {dir}/o.svg", vec!["h.jsonl:1", "cases"]),
        history("history: NUL bytes", format!("{good}\n\0\0\0\n"), "history {dir}/h.jsonl --svg {dir}/o.svg", vec!["h.jsonl"]),
        bad("history: invalid UTF-8", vec![Put::File("h.jsonl", b"{\"date\": \"\xff\xfe\"}\n".to_vec())], "history {dir}/h.jsonl --svg {dir}/o.svg", vec!["h.jsonl", "UTF-8"]),
        bad("history: a directory", vec![Put::Dir("h.jsonl")], "history {dir}/h.jsonl --svg {dir}/o.svg", vec!["h.jsonl", "regular file"]),
        bad("history: a FIFO", vec![Put::Fifo("h.jsonl")], "history {dir}/h.jsonl --svg {dir}/o.svg", vec!["h.jsonl", "regular file"]),
        bad("history: huge", vec![Put::Sparse("h.jsonl", 65 << 20)], "history {dir}/h.jsonl --svg {dir}/o.svg", vec!["h.jsonl", "bytes"]),
        history("history: --svg under a file", good.clone(), "history {dir}/h.jsonl --svg {dir}/h.jsonl/o.svg", vec!["--svg"]),
        bad("history: --svg is a FIFO", vec![Put::File("h.jsonl", good.clone().into_bytes()), Put::Fifo("o.svg")], "history {dir}/h.jsonl --svg {dir}/o.svg", vec!["--svg"]),
        history("history: --svg is a directory", good.clone(), "history {dir}/h.jsonl --svg {dir}", vec!["--svg"]),
        history("history: escapes in fields are not printed raw", format!("{esc}\n"), "history {dir}/h.jsonl --svg {dir}/o.svg", vec!["1 runs"]).code(0).out(&["o.svg"]).reject("\u{1b}"),
        bad("eval --history: a FIFO", vec![Put::Fifo("h.jsonl")], "-C {root} eval --case heating-hh-1001 --history {dir}/h.jsonl --out {dir}/out", vec!["--history"]),
        bad("eval --history: a directory", vec![Put::Dir("h.jsonl")], "-C {root} eval --case heating-hh-1001 --history {dir}/h.jsonl --out {dir}/out", vec!["--history"]),
        bad("eval --history: missing directory", vec![], "-C {root} eval --case heating-hh-1001 --history {dir}/no/h.jsonl --out {dir}/out", vec!["--history"]),
        bad("eval: GITHUB_STEP_SUMMARY is a FIFO", vec![Put::Fifo("summary")], "-C {root} eval --case heating-hh-1001 --out {dir}/out", vec!["GITHUB_STEP_SUMMARY"]).env("GITHUB_STEP_SUMMARY", "{dir}/summary"),
        bad("eval: an empty shard is a valid shard", vec![], "-C {root} eval --subset --shard 64/64 --out {dir}/out", vec![]).code(0),
        bad("eval: subset against a full baseline is refused first", vec![set("base")], "-C {root} eval --subset --baseline {dir}/base --out {dir}/out", vec!["selection"]),
    ]
    .into_iter()
    .map(|mut b| {
        // `--out {dir}/out` names the output directory.
        if b.args.iter().any(|a| a == "{dir}/out") {
            b.outputs.push("out");
        }
        b
    })
    .collect()
}

/// `{dir}` and `{root}` in a table string.
pub fn fill(s: &str, dir: &Path) -> String {
    s.replace("{dir}", &dir.display().to_string()).replace("{root}", &root().display().to_string())
}

pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

/// Makes a FIFO; `Err` (a reason to skip) where `mkfifo` is not available.
pub fn mkfifo(path: &Path) -> Result<(), String> {
    match Command::new("mkfifo").arg(path).status() {
        Ok(s) if s.success() => Ok(()),
        other => Err(format!("mkfifo {} failed: {other:?}", path.display())),
    }
}

/// A desk database with ticket TKT-0001 (a viewing request for HH-1001), then `sql`.
pub fn desk_db(path: &Path, sql: &str) {
    let store = inquiry::desk::TicketStore::open(path).unwrap();
    let new = inquiry::handoff::NewTicket {
        reason: inquiry::handoff::HandoffReason::ViewingRequest,
        listing_id: Some("HH-1001".into()),
        summary: "Customer wants to view HH-1001 on Saturday at 11:00".into(),
        contact_email: Some("ana@example.org".into()),
        now: chrono::Utc::now(),
    };
    store.create(&new, "cli").unwrap();
    drop(store);
    if !sql.is_empty() {
        rusqlite::Connection::open(path).unwrap().execute_batch(sql).unwrap();
    }
}

fn put(p: &Put, dir: &Path) -> Result<(), String> {
    let at = |rel: &str| {
        let path = dir.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        path
    };
    match p {
        Put::File(rel, bytes) => std::fs::write(at(rel), bytes).unwrap(),
        Put::Dir(rel) => std::fs::create_dir_all(at(rel)).unwrap(),
        Put::Fifo(rel) => mkfifo(&at(rel))?,
        Put::Link(rel, target) => std::os::unix::fs::symlink(fill(target, dir), at(rel)).unwrap(),
        Put::Sparse(rel, len) => std::fs::File::create(at(rel)).unwrap().set_len(*len).unwrap(),
        Put::Set(rel, edit) => {
            copy_dir(&root().join("reports/eval"), &at(rel));
            let json = at(rel).join("report.json");
            let mut report: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
            edit(&mut report);
            std::fs::write(&json, serde_json::to_string_pretty(&report).unwrap()).unwrap();
        }
        Put::Sqlite(rel, sql) => rusqlite::Connection::open(at(rel)).unwrap().execute_batch(sql).unwrap(),
        Put::Desk(rel, sql) => desk_db(&at(rel), sql),
        Put::Remove(rel) => std::fs::remove_file(dir.join(rel)).unwrap(),
    }
    Ok(())
}

/// Every path under `dir` with its type, mode and (regular files) size,
/// modification time and SHA-256; links are recorded, never followed.
pub fn snapshot(dir: &Path) -> BTreeMap<String, String> {
    use sha2::Digest as _;
    use std::os::unix::fs::{FileTypeExt as _, MetadataExt as _};
    fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<String, String>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for e in entries.flatten() {
            let path = e.path();
            let rel = path.strip_prefix(base).unwrap().display().to_string();
            let Ok(m) = std::fs::symlink_metadata(&path) else { continue };
            let t = m.file_type();
            let what = if t.is_symlink() {
                format!("link -> {:?}", std::fs::read_link(&path).ok())
            } else if t.is_dir() {
                walk(base, &path, out);
                format!("dir {:o}", m.mode())
            } else if t.is_file() {
                let hash = if m.len() <= 16 << 20 {
                    format!("{:x}", sha2::Sha256::digest(std::fs::read(&path).unwrap_or_default()))
                } else {
                    "large".into()
                };
                format!("file {:o} {} bytes, mtime {}.{}, sha256 {hash}", m.mode(), m.len(), m.mtime(), m.mtime_nsec())
            } else {
                format!("special (fifo {}) {:o}", t.is_fifo(), m.mode())
            };
            out.insert(rel, what);
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// Paths that were created, removed or changed, outside `outputs` (path prefixes).
pub fn touched(before: &BTreeMap<String, String>, after: &BTreeMap<String, String>, outputs: &[&str]) -> Vec<String> {
    let keys: std::collections::BTreeSet<&String> = before.keys().chain(after.keys()).collect();
    keys.into_iter()
        .filter(|k| before.get(*k) != after.get(*k))
        .filter(|k| !outputs.iter().any(|o| k.starts_with(o)))
        .map(|k| match (before.get(k), after.get(k)) {
            (None, Some(_)) => format!("created {k}"),
            (Some(_), None) => format!("removed {k}"),
            (b, a) => format!("changed {k}: {b:?} -> {a:?}"),
        })
        .collect()
}

/// `X-wal` and `X-shm` created beside an unchanged WAL-mode SQLite file `X`
/// (a desk database): SQLite's own shared-memory files of a reader, not a write.
fn sidecars(dir: &Path, before: &BTreeMap<String, String>, after: &BTreeMap<String, String>) -> Vec<&'static str> {
    let mut out = vec![];
    for k in after.keys().filter(|k| !before.contains_key(*k)) {
        let Some(main) = k.strip_suffix("-wal").or_else(|| k.strip_suffix("-shm")) else { continue };
        let header = std::fs::read(dir.join(main)).unwrap_or_default();
        if before.get(main) == after.get(main) && header.get(18..20) == Some(&[2, 2]) {
            out.push(&*Box::leak(k.clone().into_boxed_str()));
        }
    }
    out
}

/// Runs one input; `Ok(None)` when it behaves, `Ok(Some(problem))`, `Err(why)` to skip.
fn check(b: &Bad) -> Result<Option<String>, String> {
    let tmp = tempfile::tempdir().unwrap();
    let logs = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    for d in ["cwd", "home"] {
        std::fs::create_dir(dir.join(d)).unwrap();
    }
    for p in &b.put {
        put(p, dir)?;
    }
    let before = snapshot(dir);
    let argv: Vec<String> = b.args.iter().map(|a| fill(a, dir)).collect();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_inquiry"));
    cmd.args(&argv)
        .current_dir(dir.join("cwd"))
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", dir.join("home"))
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(logs.path().join("out")).unwrap())
        .stderr(std::fs::File::create(logs.path().join("err")).unwrap());
    for (k, v) in &b.env {
        cmd.env(k, fill(v, dir));
    }
    let mut child = cmd.spawn().unwrap();
    let limit = Duration::from_secs(if argv.iter().any(|a| a == "eval") { 120 } else { 30 });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let err = std::fs::read_to_string(logs.path().join("err")).unwrap_or_default();
    let out = String::from_utf8_lossy(&std::fs::read(logs.path().join("out")).unwrap_or_default()).into_owned();
    let mut wrong = vec![];
    match status.map(|s| s.code()) {
        None => wrong.push(format!("still running after {} s (killed)", limit.as_secs())),
        Some(code) if code != Some(b.code) => wrong.push(format!("exit {code:?}, expected {}", b.code)),
        _ => {}
    }
    if err.contains("panicked") {
        wrong.push("panicked".into());
    }
    let missing: Vec<&&str> = b.expect.iter().filter(|e| !err.contains(**e)).collect();
    if !missing.is_empty() {
        wrong.push(format!("stderr lacks {missing:?}"));
    }
    for r in &b.reject {
        if out.contains(r) || err.contains(r) {
            wrong.push(format!("output contains {r:?}"));
        }
    }
    let after = snapshot(dir);
    let mut allowed = b.outputs.clone();
    allowed.extend(sidecars(dir, &before, &after));
    wrong.extend(touched(&before, &after, &allowed));
    if wrong.is_empty() {
        return Ok(None);
    }
    let cut = |s: &str| s.chars().take(700).collect::<String>().escape_debug().to_string();
    Ok(Some(format!(
        "{}: {}\n  $ inquiry {}\n  stderr: {}\n  stdout: {}",
        b.name,
        wrong.join("; "),
        argv.join(" "),
        cut(&err),
        cut(&out)
    )))
}

#[test]
fn bad_inputs_of_the_new_surfaces_exit_with_a_named_error_and_touch_nothing() {
    let table = table();
    assert!(table.len() >= 100, "only {} inputs", table.len());
    let mut names = std::collections::HashSet::new();
    for b in &table {
        assert!(names.insert(b.name), "two inputs named {}", b.name);
    }
    let (mut problems, mut skipped) = (vec![], 0);
    for b in &table {
        match check(b) {
            Ok(None) => {}
            Ok(Some(problem)) => problems.push(problem),
            Err(why) => {
                skipped += 1;
                eprintln!("skipped: {}: {why}", b.name);
            }
        }
    }
    eprintln!(
        "{} inputs: {} behaved, {} misbehaved, {skipped} skipped",
        table.len(),
        table.len() - problems.len() - skipped,
        problems.len()
    );
    assert!(
        problems.is_empty(),
        "{} of {} inputs misbehaved:\n\n{}",
        problems.len(),
        table.len(),
        problems.join("\n\n")
    );
}
