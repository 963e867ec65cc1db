//! The Bedrock provider against a loopback mock of the runtime API
//! (`POST /model/{modelId}/invoke`, Messages bodies with
//! `anthropic_version`): both ways of authenticating (a Bedrock API key as a
//! bearer token; AWS keys with Signature Version 4, checked here by an
//! independent implementation of the signing algorithm), a tool-using run,
//! retries on 429 and 5xx, a 4xx that is not retried, replay from the
//! response cache, and the credentials in no written file.

use std::path::Path;
use std::process::{Command, Output};
use std::sync::Arc;
use std::time::Duration;

use inquiry::agent::model::ModelClient;
use inquiry::agent::{ForcedCause, Limits, Outcome, RunResult};
use inquiry::app::ConnectedAgent;
use inquiry::providers::{BedrockAuth, BedrockClient, HttpConfig, Secret};
use serde_json::{json, Value};
use sha2::Digest as _;
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

use crate::support::{root, toolbox_with_retrieval};

const MODEL: &str = "eu.anthropic.claude-sonnet-4-5-20250929-v1:0";
/// The model id as Bedrock's path carries it (`:` percent-encoded).
const MODEL_PATH: &str = "/model/eu.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke";
const TOKEN: &str = "ABSKQmVkcm9ja0FQSUtleS1TRUNSRVQtdG9rZW4tNzg5";
const ACCESS_KEY: &str = "AKIAEXAMPLESECRET42";
const SECRET_KEY: &str = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYSECRETKEY9";
const SESSION: &str = "IQoJb3JpZ2luX2VjSECRET-session-token";
const REGION: &str = "eu-central-1";
const INQUIRY: &str = "How much is the rent of HH-1001?";

fn fixture(name: &str) -> Value {
    let path = root().join("tests/fixtures/providers").join(name);
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

fn fast() -> HttpConfig {
    HttpConfig {
        timeout: Duration::from_secs(10),
        max_attempts: 3,
        base_backoff: Duration::from_millis(20),
        max_backoff: Duration::from_secs(5),
    }
}

fn sigv4() -> BedrockAuth {
    BedrockAuth::SigV4 {
        access_key_id: Secret::new(ACCESS_KEY),
        secret_access_key: Secret::new(SECRET_KEY),
        session_token: Some(Secret::new(SESSION)),
    }
}

fn client(endpoint: &str, auth: BedrockAuth) -> Arc<dyn ModelClient> {
    Arc::new(BedrockClient::new(MODEL, REGION, endpoint, auth, fast()).unwrap())
}

async fn run(model: Arc<dyn ModelClient>) -> RunResult {
    let connected = ConnectedAgent::connect(model, toolbox_with_retrieval(), Limits::default()).await.unwrap();
    let result = connected.agent.run(INQUIRY, &[]).await.unwrap();
    connected.close().await;
    result
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// HMAC-SHA256 (RFC 2104) over SHA-256, written out here so the check does
/// not share code with the signer under test.
fn hmac(key: &[u8], message: &[u8]) -> Vec<u8> {
    let mut block = [0u8; 64];
    if key.len() > 64 {
        block[..32].copy_from_slice(&sha2::Sha256::digest(key));
    } else {
        block[..key.len()].copy_from_slice(key);
    }
    let pad = |byte: u8| block.iter().map(|b| b ^ byte).collect::<Vec<u8>>();
    let mut inner = sha2::Sha256::new();
    inner.update(pad(0x36));
    inner.update(message);
    let mut outer = sha2::Sha256::new();
    outer.update(pad(0x5c));
    outer.update(inner.finalize());
    outer.finalize().to_vec()
}

/// Percent-encodes every byte but unreserved ones and `/` (the canonical
/// URI of SigV4 for services other than S3 encodes the already-encoded path
/// once more).
fn uri_encode(path: &str) -> String {
    path.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// Checks a request's SigV4 `Authorization` header as AWS does: shape,
/// scope (date, region, service), signed headers, and the signature over
/// the canonical request. `Err` names what is wrong.
fn verify_sigv4(request: &Request) -> Result<(), String> {
    let get = |name: &str| request.headers.get(name).and_then(|v| v.to_str().ok()).map(str::to_owned);
    let auth = get("authorization").ok_or("no authorization header")?;
    let rest = auth.strip_prefix("AWS4-HMAC-SHA256 ").ok_or_else(|| format!("not SigV4: {auth}"))?;
    let mut fields = std::collections::HashMap::new();
    for part in rest.split(", ") {
        let (k, v) = part.split_once('=').ok_or_else(|| format!("bad part {part}"))?;
        fields.insert(k, v);
    }
    let credential = fields.get("Credential").ok_or("no Credential")?;
    let scope: Vec<&str> = credential.split('/').collect();
    if scope.len() != 5
        || scope[0] != ACCESS_KEY
        || scope[2] != REGION
        || scope[3] != "bedrock"
        || scope[4] != "aws4_request"
    {
        return Err(format!("bad credential scope {credential}"));
    }
    let amz_date = get("x-amz-date").ok_or("no x-amz-date")?;
    if !amz_date.starts_with(scope[1]) || amz_date.len() != 16 {
        return Err(format!("x-amz-date {amz_date} does not match the scope date {}", scope[1]));
    }
    if get("x-amz-security-token").as_deref() != Some(SESSION) {
        return Err("the session token is not sent".into());
    }
    let signed: Vec<&str> = fields.get("SignedHeaders").ok_or("no SignedHeaders")?.split(';').collect();
    for needed in ["content-type", "host", "x-amz-date", "x-amz-security-token"] {
        if !signed.contains(&needed) {
            return Err(format!("{needed} is not signed: {signed:?}"));
        }
    }
    let mut canonical = format!("POST\n{}\n\n", uri_encode(request.url.path()));
    for name in &signed {
        canonical.push_str(&format!("{name}:{}\n", get(name).ok_or_else(|| format!("signed {name} missing"))?.trim()));
    }
    canonical.push_str(&format!("\n{}\n{}", signed.join(";"), hex(&sha2::Sha256::digest(&request.body))));
    let scope_text = scope[1..].join("/");
    let to_sign = format!("AWS4-HMAC-SHA256\n{amz_date}\n{scope_text}\n{}", hex(&sha2::Sha256::digest(canonical)));
    let mut key = hmac(format!("AWS4{SECRET_KEY}").as_bytes(), scope[1].as_bytes());
    for part in [REGION, "bedrock", "aws4_request"] {
        key = hmac(&key, part.as_bytes());
    }
    let expected = hex(&hmac(&key, to_sign.as_bytes()));
    match fields.get("Signature") {
        Some(s) if *s == expected => Ok(()),
        other => Err(format!("signature {other:?} != {expected}")),
    }
}

/// Bedrock's answer to a request it cannot authenticate.
fn signature_mismatch(why: &str) -> ResponseTemplate {
    ResponseTemplate::new(403)
        .insert_header("x-amzn-ErrorType", "InvalidSignatureException")
        .set_body_json(json!({"message": format!("The request signature we calculated does not match the signature you provided. ({why})")}))
}

/// A mock that answers like Bedrock after `check` passes: a 429, a 503, then
/// the tool-use turn, then the final answer.
async fn bedrock_mock(check: fn(&Request) -> Result<(), String>) -> MockServer {
    let server = MockServer::start().await;
    let answers = Arc::new(std::sync::Mutex::new(0usize));
    Mock::given(method("POST"))
        .and(path(MODEL_PATH))
        .respond_with(move |request: &Request| {
            if let Err(why) = check(request) {
                return signature_mismatch(&why);
            }
            let mut n = answers.lock().unwrap();
            *n += 1;
            match *n {
                1 => ResponseTemplate::new(429)
                    .insert_header("x-amzn-ErrorType", "ThrottlingException")
                    .insert_header("retry-after", "0")
                    .set_body_json(json!({"message": "Too many requests, please wait before trying again."})),
                // A proxy that quotes the request's credentials back, as some do.
                2 => {
                    let quote =
                        |name: &str| request.headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
                    let message = format!(
                        "Service is temporarily unavailable. (request authorization: {}; token: {})",
                        quote("authorization"),
                        quote("x-amz-security-token")
                    );
                    ResponseTemplate::new(503)
                        .insert_header("x-amzn-ErrorType", "ServiceUnavailableException")
                        .set_body_json(json!({ "message": message }))
                }
                3 => ResponseTemplate::new(200).set_body_json(fixture("anthropic_tool_use.json")),
                _ => ResponseTemplate::new(200).set_body_json(fixture("anthropic_final.json")),
            }
        })
        .mount(&server)
        .await;
    server
}

fn bearer_check(request: &Request) -> Result<(), String> {
    match request.headers.get("authorization").and_then(|v| v.to_str().ok()) {
        Some(v) if v == format!("Bearer {TOKEN}") => Ok(()),
        other => Err(format!("bearer token expected, got {other:?}")),
    }
}

/// What every successful run through the mock must show.
async fn assert_tool_run(server: &MockServer, result: &RunResult) {
    assert_eq!(result.outcome, Outcome::Answered, "{result:#?}");
    assert_eq!(result.reply, "The cold rent of HH-1001 is 1,650 EUR per month [HH-1001].");
    assert_eq!(result.model, format!("bedrock:{MODEL}"));
    assert_eq!(result.trace.len(), 1);
    assert_eq!(result.trace[0].tool, "get_listing");
    assert_eq!(result.usage.cache_read, 2100, "prompt-cache tokens are counted: {:?}", result.usage);
    let requests = server.received_requests().await.unwrap();
    assert_eq!(requests.len(), 4, "429 and 503 retried, then two model calls");
    for r in &requests {
        let body: Value = serde_json::from_slice(&r.body).unwrap();
        assert_eq!(body["anthropic_version"], "bedrock-2023-05-31");
        assert!(body.get("model").is_none(), "the model is in the path, not the body");
        assert_eq!(body["system"][0]["cache_control"], json!({"type": "ephemeral"}));
        assert_eq!(r.headers.get("content-type").unwrap(), "application/json");
    }
    let last: Value = serde_json::from_slice(&requests[3].body).unwrap();
    assert_eq!(last["messages"][2]["content"][0]["type"], "tool_result");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bearer_token_tool_run_with_retries_on_429_and_503() {
    let server = bedrock_mock(bearer_check).await;
    let result = run(client(&server.uri(), BedrockAuth::Bearer(Secret::new(TOKEN)))).await;
    assert_tool_run(&server, &result).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigv4_signed_tool_run_with_retries_each_attempt_signed() {
    let server = bedrock_mock(verify_sigv4).await;
    let result = run(client(&server.uri(), sigv4())).await;
    assert_tool_run(&server, &result).await;
    // Wrong keys are refused by the same check: the verifier is not a rubber stamp.
    let wrong = BedrockAuth::SigV4 {
        access_key_id: Secret::new(ACCESS_KEY),
        secret_access_key: Secret::new("not-the-secret-key-at-all"),
        session_token: Some(Secret::new(SESSION)),
    };
    let refused = run(client(&server.uri(), wrong)).await;
    assert_eq!(refused.outcome, Outcome::ForcedHandoff { cause: ForcedCause::ModelError });
    let error = refused.error.unwrap();
    assert!(error.contains("HTTP 403") && error.contains("signature"), "{error}");
    assert!(!error.contains(SECRET_KEY) && !error.contains(ACCESS_KEY), "{error}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_4xx_such_as_an_unknown_model_is_not_retried() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(header("authorization", format!("Bearer {TOKEN}").as_str()))
        .respond_with(
            ResponseTemplate::new(400)
                .insert_header("x-amzn-ErrorType", "ValidationException")
                .set_body_json(json!({"message": "The provided model identifier is invalid."})),
        )
        .mount(&server)
        .await;
    let result = run(client(&server.uri(), BedrockAuth::Bearer(Secret::new(TOKEN)))).await;
    assert_eq!(result.outcome, Outcome::ForcedHandoff { cause: ForcedCause::ModelError });
    let error = result.error.unwrap();
    assert!(error.contains("bedrock answered HTTP 400") && error.contains("model identifier is invalid"), "{error}");
    assert_eq!(server.received_requests().await.unwrap().len(), 1, "a 400 is final");
}

/// Runs `inquiry ask --json` in the repository root with only `env` as provider settings.
fn ask(args: &[&str], env: &[(&str, String)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_inquiry"));
    command.arg("ask").args(args).arg("--no-cache").current_dir(root());
    for name in [
        "AWS_BEARER_TOKEN_BEDROCK",
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN",
        "AWS_REGION",
        "AWS_ENDPOINT_URL_BEDROCK_RUNTIME",
        "INQUIRY_CACHE_DIR",
        "RUST_LOG",
    ] {
        command.env_remove(name);
    }
    command.env("NO_COLOR", "1").env("INQUIRY_MODEL_MAX_ATTEMPTS", "3").env("RUST_LOG", "debug");
    for (k, v) in env {
        command.env(k, v);
    }
    command.output().unwrap()
}

fn files_under(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = vec![];
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(files_under(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// Through the CLI with AWS keys from the environment and `--region`: the
/// run is answered and cached, replayed with the mock gone, and neither the
/// cache, the JSON result nor the logs hold a credential, although the mock's
/// 503 quotes the request's authorization header and session token.
#[test]
fn the_cli_signs_caches_replays_and_writes_no_credential() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let server = runtime.block_on(bedrock_mock(verify_sigv4));
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let model = format!("bedrock:{MODEL}");
    let env = [
        ("AWS_ACCESS_KEY_ID", ACCESS_KEY.to_owned()),
        ("AWS_SECRET_ACCESS_KEY", SECRET_KEY.to_owned()),
        ("AWS_SESSION_TOKEN", SESSION.to_owned()),
    ];
    let base = ["--model", &model, "--region", REGION, "--json", "--cache-dir", cache.to_str().unwrap()];
    let first = ask(&[&base[..], &["--base-url", &server.uri(), "--cache", "use", INQUIRY]].concat(), &env);
    let (stdout, stderr) = (String::from_utf8_lossy(&first.stdout), String::from_utf8_lossy(&first.stderr));
    assert_eq!(first.status.code(), Some(0), "stdout:\n{stdout}\nstderr:\n{stderr}");
    let answered: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(answered["reply"], "The cold rent of HH-1001 is 1,650 EUR per month [HH-1001].");
    assert_eq!(runtime.block_on(server.received_requests()).unwrap().len(), 4);
    let uri = server.uri();
    drop(server);

    // Replay: the mock is gone (nothing listens there now), the answer comes from the cache.
    let replay = ask(&[&base[..], &["--base-url", &uri, "--cache", "replay", INQUIRY]].concat(), &env);
    let (r_out, r_err) = (String::from_utf8_lossy(&replay.stdout), String::from_utf8_lossy(&replay.stderr));
    assert_eq!(replay.status.code(), Some(0), "stdout:\n{r_out}\nstderr:\n{r_err}");
    let replayed: Value = serde_json::from_str(&r_out).unwrap();
    assert_eq!(replayed["reply"], answered["reply"]);
    assert!(replayed["exchanges"].as_array().unwrap().iter().all(|e| e["from_cache"] == true), "{replayed:#}");

    let files = files_under(dir.path());
    assert!(!files.is_empty(), "the cache was written");
    let written = files
        .iter()
        .map(|f| (f.display().to_string(), String::from_utf8_lossy(&std::fs::read(f).unwrap()).into_owned()));
    for (name, text) in written
        .chain([("stdout".to_owned(), format!("{stdout}{r_out}")), ("stderr".to_owned(), format!("{stderr}{r_err}"))])
    {
        for secret in [ACCESS_KEY, SECRET_KEY, SESSION, "SECRET"] {
            assert!(!text.contains(secret), "{name} contains {secret}");
        }
    }
}

/// A bearer token quoted back by the service is redacted from the error the
/// CLI prints, and a Bedrock that rejects the model id is exit 2.
#[test]
fn an_unknown_model_answered_by_bedrock_is_exit_2_without_the_token() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let server = runtime.block_on(async {
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .respond_with(|request: &Request| {
                let auth = request.headers.get("authorization").and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
                ResponseTemplate::new(400).set_body_json(
                    json!({"message": format!("The provided model identifier is invalid. (request had {auth})")}),
                )
            })
            .mount(&server)
            .await;
        server
    });
    let model = format!("bedrock:{MODEL}");
    let out = ask(
        &["--model", &model, "--cache", "off", INQUIRY],
        &[
            ("AWS_BEARER_TOKEN_BEDROCK", TOKEN.to_owned()),
            ("AWS_REGION", "eu-west-3".to_owned()),
            ("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", server.uri()),
        ],
    );
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(2), "stdout:\n{stdout}\nstderr:\n{stderr}");
    assert!(stderr.contains("model identifier is invalid"), "{stderr}");
    assert!(stderr.contains("[redacted]"), "the echoed token is replaced: {stderr}");
    assert!(!stderr.contains(TOKEN) && !stdout.contains(TOKEN), "{stderr}");
    assert_eq!(runtime.block_on(server.received_requests()).unwrap().len(), 1);
}

/// Settings the client can reject before any call: each exit 2 with a message naming the fix.
#[test]
fn bad_region_model_id_or_missing_credentials_are_exit_2() {
    let token = [("AWS_BEARER_TOKEN_BEDROCK", TOKEN.to_owned())];
    // (arguments, environment, what the message must name)
    type Case<'a> = (Vec<&'a str>, &'a [(&'a str, String)], &'a str);
    let cases: [Case; 3] = [
        (vec!["--model", "bedrock:claude-sonnet-4-5", INQUIRY], &token, "anthropic.claude"),
        (vec!["--model", "bedrock:anthropic.claude-x-v1:0", "--region", "frankfurt", INQUIRY], &token, "eu-central-1"),
        (vec!["--model", "bedrock:anthropic.claude-x-v1:0", INQUIRY], &[], "AWS_BEARER_TOKEN_BEDROCK"),
    ];
    for (args, env, needle) in cases {
        let out = ask(&args, env);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
        assert!(!stderr.contains(TOKEN));
    }
}

/// The LLM judge on Bedrock, resolved from a spec and the environment the
/// way `--judge llm --judge-model bedrock:<id>` does (bearer token, region,
/// endpoint override): the verdict comes back as Messages text.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_llm_judge_grades_through_bedrock() {
    use inquiry::eval::judge::{Judge as _, LlmJudge};
    let server = MockServer::start().await;
    let verdict = json!({
        "must": [{"item": 1, "met": true, "note": "states 1,650 EUR cold rent"}, {"item": 2, "met": true, "note": "cites HH-1001"}],
        "must_not": [{"item": 1, "violated": false, "note": null}],
        "unsupported_claims": [],
        "language": "en",
    });
    let mut answer = fixture("anthropic_final.json");
    answer["content"][0]["text"] = json!(verdict.to_string());
    let judge_path = "/model/anthropic.claude-haiku-4-5-20251001-v1%3A0/invoke";
    Mock::given(method("POST"))
        .and(path(judge_path))
        .and(header("authorization", format!("Bearer {TOKEN}").as_str()))
        .respond_with(ResponseTemplate::new(200).set_body_json(answer))
        .mount(&server)
        .await;
    let env = inquiry::providers::Env::from_pairs([
        ("AWS_BEARER_TOKEN_BEDROCK", TOKEN.to_owned()),
        ("AWS_REGION", "eu-west-1".to_owned()),
        ("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", server.uri()),
    ]);
    let model = inquiry::providers::client_from_spec("bedrock:anthropic.claude-haiku-4-5-20251001-v1:0", &env)
        .unwrap()
        .unwrap();
    let judge = LlmJudge::load(model, &root().join("rubrics")).unwrap();
    let graded = judge.judge(&crate::providers::rent_case(), &crate::providers::answered_result()).await.unwrap();
    assert_eq!(graded.judge, "llm:bedrock:anthropic.claude-haiku-4-5-20251001-v1:0");
    assert!(graded.passed(), "{graded:#?}");
    assert_eq!(graded.usage.input, 300);
    let requests = server.received_requests().await.unwrap();
    assert_eq!(requests.len(), 1);
    let body: Value = serde_json::from_slice(&requests[0].body).unwrap();
    assert_eq!(body["anthropic_version"], "bedrock-2023-05-31");
    assert!(body.get("tools").is_none(), "the judge offers no tools");
}
