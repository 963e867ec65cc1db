//! Anthropic models on Amazon Bedrock: the runtime API's InvokeModel
//! (`POST {endpoint}/model/{modelId}/invoke`) with the Messages body Bedrock
//! expects (`anthropic_version: bedrock-2023-05-31`, no `model` field: the
//! model is in the path). The body, prompt-cache points, response parsing
//! and token accounting are the Anthropic client's ([`super::anthropic`]);
//! timeouts, retries, body caps and redaction are [`super::http`]'s; the
//! response cache is [`super::cached`]'s, keyed without any credential.
//!
//! Authentication is either a Bedrock API key (`AWS_BEARER_TOKEN_BEDROCK`,
//! sent as `Authorization: Bearer …`) or AWS credentials
//! (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, optional
//! `AWS_SESSION_TOKEN`), each request signed with Signature Version 4 by the
//! `aws-sigv4` crate, afresh for every attempt.

use std::sync::LazyLock;
use std::time::SystemTime;

use regex::Regex;
use serde_json::Value;

use super::anthropic::{messages_body, parse_response};
use super::cached::{self, CacheSettings, CallSite};
use super::http::{HttpClient, HttpConfig, Secret};
use crate::agent::model::{ModelClient, ModelError, ModelRequest, ModelResponse};

/// The `anthropic_version` Bedrock's Messages body carries.
pub const BEDROCK_ANTHROPIC_VERSION: &str = "bedrock-2023-05-31";
/// Region used when neither `--region` nor `AWS_REGION` is set.
pub const DEFAULT_REGION: &str = "eu-central-1";
/// The SigV4 service name of the Bedrock runtime.
pub const SIGNING_SERVICE: &str = "bedrock";

/// `eu-central-1`, `us-gov-west-1`, `ap-southeast-2`, …
static REGION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[a-z]{2}(-[a-z]+)+-[0-9]{1,2}$").expect("region pattern"));
/// `anthropic.claude-…-v1:0`, or a cross-region inference profile
/// `eu.anthropic.claude-…`, `global.anthropic.claude-…`.
static MODEL_ID: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^([a-z]{2,6}\.)?anthropic\.[A-Za-z0-9][A-Za-z0-9._-]*(:[0-9]+)?$").expect("model id pattern")
});
/// An inference-profile or model ARN.
static MODEL_ARN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^arn:aws[a-z-]*:bedrock:[a-z0-9-]+:[0-9]{0,12}:[A-Za-z0-9/._:-]+$").expect("arn"));

/// How requests are authenticated.
#[derive(Debug, Clone)]
pub enum BedrockAuth {
    /// A Bedrock API key, sent as a bearer token.
    Bearer(Secret),
    /// AWS credentials; each request is signed with SigV4.
    SigV4 {
        /// `AWS_ACCESS_KEY_ID`.
        access_key_id: Secret,
        /// `AWS_SECRET_ACCESS_KEY`.
        secret_access_key: Secret,
        /// `AWS_SESSION_TOKEN`, for temporary credentials.
        session_token: Option<Secret>,
    },
}

impl BedrockAuth {
    /// `bearer` or `sigv4`.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Bearer(_) => "bearer",
            Self::SigV4 { .. } => "sigv4",
        }
    }

    fn secrets(&self) -> Vec<Secret> {
        match self {
            Self::Bearer(token) => vec![token.clone()],
            Self::SigV4 { access_key_id, secret_access_key, session_token } => {
                let mut out = vec![access_key_id.clone(), secret_access_key.clone()];
                out.extend(session_token.clone());
                out
            }
        }
    }
}

/// Checks a region name such as `eu-central-1`.
///
/// # Errors
/// A name that is not shaped like an AWS region, with an example.
pub fn check_region(region: &str) -> anyhow::Result<()> {
    if REGION.is_match(region) {
        Ok(())
    } else {
        anyhow::bail!(
            "AWS region {:?} is not a region name; expected e.g. eu-central-1 or us-east-1 (--region or AWS_REGION)",
            crate::text_file::escape_for_terminal(region, 60)
        )
    }
}

/// Checks a Bedrock model id for an Anthropic model.
///
/// # Errors
/// An id that is neither `[<geo>.]anthropic.<name>[:<n>]` nor an ARN.
pub fn check_model_id(model: &str) -> anyhow::Result<()> {
    if MODEL_ID.is_match(model) || MODEL_ARN.is_match(model) {
        Ok(())
    } else {
        anyhow::bail!(
            "bedrock:{}: not an Anthropic model id on Bedrock; expected e.g. bedrock:anthropic.claude-sonnet-4-5-20250929-v1:0, an inference profile such as bedrock:eu.anthropic.claude-sonnet-4-5-20250929-v1:0, or an inference-profile ARN (this harness speaks the Anthropic Messages body only)",
            crate::text_file::escape_for_terminal(model, 120)
        )
    }
}

/// The runtime endpoint of `region`.
pub fn default_endpoint(region: &str) -> String {
    format!("https://bedrock-runtime.{region}.amazonaws.com")
}

/// An Anthropic model on Bedrock.
#[derive(Debug)]
pub struct BedrockClient {
    id: String,
    model: String,
    region: String,
    endpoint: String,
    url: String,
    auth: BedrockAuth,
    http: HttpClient,
    cache: CacheSettings,
}

impl BedrockClient {
    /// A client for `model` (a Bedrock model id or inference profile) in
    /// `region`, calling `endpoint` (the region's runtime endpoint, or a
    /// loopback mock in tests).
    ///
    /// # Errors
    /// A bad region or model id, or the HTTP client could not be built.
    pub fn new(
        model: &str,
        region: &str,
        endpoint: &str,
        auth: BedrockAuth,
        config: HttpConfig,
    ) -> anyhow::Result<Self> {
        check_region(region)?;
        check_model_id(model)?;
        let endpoint = endpoint.trim_end_matches('/').to_owned();
        let key = match &auth {
            BedrockAuth::Bearer(token) => Some(token.clone()),
            BedrockAuth::SigV4 { .. } => None,
        };
        Ok(Self {
            id: format!("bedrock:{model}"),
            model: model.to_owned(),
            region: region.to_owned(),
            url: format!("{endpoint}/model/{}/invoke", encode_path_segment(model)),
            endpoint,
            http: HttpClient::new("bedrock", key, config)?.with_secrets(auth.secrets()),
            auth,
            cache: CacheSettings::off(),
        })
    }

    /// This client with a response cache (see [`crate::cache`]).
    pub fn with_cache(mut self, cache: CacheSettings) -> Self {
        self.cache = cache;
        self
    }

    /// The InvokeModel URL.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The region requests are signed for.
    pub fn region(&self) -> &str {
        &self.region
    }

    /// The request body for one call: the Anthropic Messages body with
    /// `anthropic_version` in place of `model`.
    pub fn request_body(&self, request: &ModelRequest<'_>) -> Value {
        messages_body(("anthropic_version", BEDROCK_ANTHROPIC_VERSION), request)
    }

    /// The headers of one attempt for `body` (the exact bytes sent).
    fn headers(&self, body: &[u8]) -> Result<Vec<(String, String)>, ModelError> {
        let mut headers = vec![("accept".to_owned(), "application/json".to_owned())];
        match &self.auth {
            BedrockAuth::Bearer(token) => {
                headers.push(("authorization".to_owned(), format!("Bearer {}", token.expose())));
            }
            BedrockAuth::SigV4 { access_key_id, secret_access_key, session_token } => {
                headers.extend(sign_v4(
                    &self.url,
                    &self.region,
                    body,
                    (access_key_id, secret_access_key, session_token.as_ref()),
                    SystemTime::now(),
                )?);
            }
        }
        Ok(headers)
    }
}

/// The SigV4 headers (`authorization`, `x-amz-date`, and
/// `x-amz-security-token` with a session token) for a JSON POST of `body` to
/// `url`, signed for the Bedrock service in `region` at `time`. The
/// `content-type: application/json` header the HTTP layer sends is signed too.
///
/// # Errors
/// [`ModelError::Provider`] when the request cannot be signed (never with a
/// credential in the message).
pub fn sign_v4(
    url: &str,
    region: &str,
    body: &[u8],
    (access_key_id, secret_access_key, session_token): (&Secret, &Secret, Option<&Secret>),
    time: SystemTime,
) -> Result<Vec<(String, String)>, ModelError> {
    use aws_sigv4::http_request::{sign, SignableBody, SignableRequest, SigningSettings};
    use aws_sigv4::sign::v4;

    let identity = aws_credential_types::Credentials::new(
        access_key_id.expose(),
        secret_access_key.expose(),
        session_token.map(|t| t.expose().to_owned()),
        None,
        "inquiry",
    )
    .into();
    let params = v4::SigningParams::builder()
        .identity(&identity)
        .region(region)
        .name(SIGNING_SERVICE)
        .time(time)
        .settings(SigningSettings::default())
        .build()
        .map_err(|e| ModelError::Provider(format!("bedrock: cannot set up SigV4 signing: {e}")))?
        .into();
    let content_type = [("content-type", "application/json")];
    let request = SignableRequest::new("POST", url, content_type.into_iter(), SignableBody::Bytes(body))
        .map_err(|e| ModelError::Provider(format!("bedrock: cannot sign a request to this URL: {e}")))?;
    let (instructions, _signature) = sign(request, &params)
        .map_err(|e| ModelError::Provider(format!("bedrock: SigV4 signing failed: {e}")))?
        .into_parts();
    let (headers, _query) = instructions.into_parts();
    Ok(headers.into_iter().map(|h| (h.name().to_owned(), h.value().to_owned())).collect())
}

/// A model id as one URL path segment: ids hold `:` (`…-v1:0`) and ARNs
/// hold `/`, which Bedrock expects percent-encoded.
fn encode_path_segment(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    for b in segment.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[async_trait::async_trait]
impl ModelClient for BedrockClient {
    fn id(&self) -> &str {
        &self.id
    }

    async fn complete(&self, request: ModelRequest<'_>) -> Result<ModelResponse, ModelError> {
        let body = self.request_body(&request);
        // The key: provider, model, region's endpoint, body. No credential, no signature.
        let site = CallSite { provider: "bedrock", model: &self.model, base_url: &self.endpoint };
        let fetch = || self.http.post_json_with(&self.url, &body, |bytes| self.headers(bytes));
        cached::call(&self.cache, site, &body, request.sample, fetch, parse_response)
            .await
            .map_err(|e| self.http.redact_error(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::model::Message;

    fn client(auth: BedrockAuth) -> BedrockClient {
        BedrockClient::new(
            "eu.anthropic.claude-sonnet-4-5-20250929-v1:0",
            "eu-central-1",
            "http://127.0.0.1:1/",
            auth,
            HttpConfig::default(),
        )
        .unwrap()
    }

    #[test]
    fn the_body_has_the_bedrock_version_and_no_model() {
        let c = client(BedrockAuth::Bearer(Secret::new("bedrock-api-key-xyz")));
        let conversation = vec![Message::User { text: "hi".into() }];
        let request =
            ModelRequest { system: "sys", messages: &conversation, tools: &[], max_output_tokens: 7, sample: 0 };
        let body = c.request_body(&request);
        assert_eq!(body["anthropic_version"], BEDROCK_ANTHROPIC_VERSION);
        assert!(body.get("model").is_none());
        assert_eq!(body["max_tokens"], 7);
        assert_eq!(body["system"][0]["cache_control"]["type"], "ephemeral");
        assert_eq!(c.url(), "http://127.0.0.1:1/model/eu.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke");
    }

    #[test]
    fn regions_and_model_ids_are_checked() {
        assert!(check_region("eu-central-1").is_ok());
        assert!(check_region("us-gov-west-1").is_ok());
        for bad in ["eu-central", "EU-CENTRAL-1", "frankfurt", "eu_central_1", ""] {
            let e = check_region(bad).unwrap_err().to_string();
            assert!(e.contains("eu-central-1"), "{e}");
        }
        assert!(check_model_id("anthropic.claude-3-5-haiku-20241022-v1:0").is_ok());
        assert!(check_model_id("global.anthropic.claude-sonnet-4-5-20250929-v1:0").is_ok());
        assert!(check_model_id("arn:aws:bedrock:eu-central-1:123456789012:inference-profile/eu.anthropic.x").is_ok());
        for bad in ["claude-sonnet-4-5", "meta.llama3-70b-instruct-v1:0", "anthropic.", "anthropic.x y"] {
            let e = check_model_id(bad).unwrap_err().to_string();
            assert!(e.contains("anthropic.claude"), "{e}");
        }
    }

    /// The AWS SigV4 test suite's `post-header-key-sort`-style fixed inputs:
    /// the same request and time always give the same signature, a different
    /// body or region a different one, and the header names the scope.
    #[test]
    fn sigv4_headers_are_deterministic_and_scoped() {
        let (id, secret) = (Secret::new("AKIDEXAMPLE"), Secret::new("wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"));
        let time = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_440_938_160); // 2015-08-30T12:36:00Z
        let url = "https://bedrock-runtime.eu-central-1.amazonaws.com/model/anthropic.x/invoke";
        let sign = |body: &[u8], region: &str| sign_v4(url, region, body, (&id, &secret, None), time).unwrap();
        let a = sign(b"{}", "eu-central-1");
        let auth = |h: &[(String, String)]| h.iter().find(|(n, _)| n == "authorization").unwrap().1.clone();
        assert_eq!(auth(&a), auth(&sign(b"{}", "eu-central-1")));
        assert_ne!(auth(&a), auth(&sign(b"{ }", "eu-central-1")));
        assert_ne!(auth(&a), auth(&sign(b"{}", "us-east-1")));
        let value = auth(&a);
        assert!(
            value.starts_with("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/eu-central-1/bedrock/aws4_request, SignedHeaders=content-type;host;x-amz-date, Signature="),
            "{value}"
        );
        assert!(!value.contains(secret.expose()));
        assert!(a.iter().any(|(n, v)| n == "x-amz-date" && v == "20150830T123600Z"), "{a:?}");
        let with_token =
            sign_v4(url, "eu-central-1", b"{}", (&id, &secret, Some(&Secret::new("session-token-abc"))), time).unwrap();
        assert!(with_token.iter().any(|(n, v)| n == "x-amz-security-token" && v == "session-token-abc"));
        assert!(auth(&with_token).contains("x-amz-security-token"));
    }
}
