//! The four tools of SPEC §4 as plain library functions over typed inputs.
//!
//! One implementation serves the built-in agent and external assistants (the
//! MCP layer derives its schemas from these input types). A failed call is a
//! [`ToolError`] with a hint of what to call instead: a result the model can
//! act on, never a crash.

use std::sync::Arc;

use chrono::{NaiveDate, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::catalogue::{Catalogue, EnergyClass, Listing, OfferType, PetsAllowed, PriceUnit, PropertyType};
use crate::chunk::ChunkSource;
use crate::fold::{fold, fold_city};
use crate::handoff::{HandoffQueue, HandoffReason, NewTicket, Ticket};

/// Names of the four tools, in the stable order they are listed to clients.
pub const TOOL_NAMES: [&str; 4] = ["search_listings", "get_listing", "search_knowledge", "hand_off_to_human"];

/// A tool call that failed in a way the caller can fix.
#[derive(Debug, Clone, PartialEq, Serialize, thiserror::Error)]
#[error("{error} ({hint})")]
pub struct ToolError {
    /// What was wrong with the call.
    pub error: String,
    /// What to do instead (which tool or which argument range).
    pub hint: String,
    /// A machine-readable kind for failures the caller must treat specially
    /// ([`HANDOFF_NOT_STORED`]); absent for ordinary argument errors.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<&'static str>,
}

/// [`ToolError::code`] of a hand-off whose ticket could not be stored: no
/// person has the request, so no reply may say one will be in touch.
pub const HANDOFF_NOT_STORED: &str = "handoff_not_stored";

impl ToolError {
    fn new(error: impl Into<String>, hint: impl Into<String>) -> Self {
        Self { error: error.into(), hint: hint.into(), code: None }
    }
}

/// Input of `search_listings`. All filters are optional and combine with AND.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SearchListingsInput {
    /// City; case, diacritics and common exonyms are folded (`Munich` finds `München`).
    pub city: Option<String>,
    /// `rent` or `sale`.
    pub offer_type: Option<OfferType>,
    /// `apartment`, `house` or `commercial`.
    pub property_type: Option<PropertyType>,
    /// Highest price: EUR per month for rentals, EUR for sales.
    pub max_price: Option<f64>,
    /// Fewest rooms.
    pub min_rooms: Option<f64>,
    /// Smallest living area in square metres.
    pub min_area_sqm: Option<f64>,
    /// Feature tags that must all be present (e.g. `balcony`, `lift`).
    pub features: Option<Vec<String>>,
    /// `true` drops listings whose pet policy is `no`; `on-request` listings stay, with their status visible.
    pub has_pet: Option<bool>,
    /// Latest acceptable availability date (ISO `YYYY-MM-DD`).
    pub available_by: Option<NaiveDate>,
    /// Maximum results, 1–25 (default 10).
    pub limit: Option<u32>,
}

/// A listing without its description, as `search_listings` returns it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct ListingSummary {
    pub id: String,
    pub title: String,
    pub city: String,
    pub district: String,
    pub offer_type: OfferType,
    pub property_type: PropertyType,
    /// EUR per month (rent) or EUR (sale).
    pub price: f64,
    pub price_unit: PriceUnit,
    pub living_area_sqm: f64,
    pub rooms: f64,
    pub floor: Option<i32>,
    pub available_from: NaiveDate,
    pub features: Vec<String>,
    pub pets_allowed: PetsAllowed,
    pub energy_class: EnergyClass,
}

impl From<&Listing> for ListingSummary {
    fn from(l: &Listing) -> Self {
        Self {
            id: l.id.clone(),
            title: l.title.clone(),
            city: l.city.clone(),
            district: l.district.clone(),
            offer_type: l.offer_type,
            property_type: l.property_type,
            price: l.price,
            price_unit: l.price_unit,
            living_area_sqm: l.living_area_sqm,
            rooms: l.rooms,
            floor: l.floor,
            available_from: l.available_from,
            features: l.features.clone(),
            pets_allowed: l.pets_allowed,
            energy_class: l.energy_class,
        }
    }
}

/// Output of `search_listings`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SearchListingsOutput {
    /// Number of listings matching the filters (before `limit`).
    pub total: usize,
    /// Matches sorted by price ascending (ties by id), at most `limit`.
    pub results: Vec<ListingSummary>,
}

/// Input of `get_listing`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetListingInput {
    /// Listing id such as `HH-1001`; trimmed and upper-cased.
    pub id: String,
}

/// Input of `search_knowledge`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SearchKnowledgeInput {
    /// The question, 3–300 characters.
    pub query: String,
    /// Restrict to this listing's sentences plus all policy sections.
    pub listing_id: Option<String>,
    /// Passages to return, 1–10 (default 5).
    pub k: Option<u32>,
}

/// Scores of one hit; each is present when the active configuration computed it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HitScores {
    /// Raw BM25 score (unbounded).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bm25: Option<f64>,
    /// IDF-weighted share of the question's terms present in the chunk, 0..1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coverage: Option<f64>,
    /// Cosine similarity of question and passage embeddings, -1..1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cosine: Option<f64>,
    /// z-score of the cosine among all scoped chunks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cosine_z: Option<f64>,
    /// Reranker relevance, sigmoid of the cross-encoder logit, 0..1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rerank: Option<f64>,
}

/// One retrieved passage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct KnowledgeHit {
    /// Chunk id to cite, e.g. `HH-1001#s5`.
    pub chunk_id: String,
    /// `listing` or `policy`.
    pub source: ChunkSource,
    /// Owning listing for listing chunks.
    pub listing_id: Option<String>,
    /// The passage text.
    pub text: String,
    /// Retrieval scores.
    pub scores: HitScores,
}

/// Output of `search_knowledge`: passages, or `found: false` with a reason.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SearchKnowledgeOutput {
    /// Whether any passage cleared the relevance threshold.
    pub found: bool,
    /// Passages, own-listing chunks first when scoped; empty when `found` is false.
    pub results: Vec<KnowledgeHit>,
    /// Why nothing was found (only when `found` is false).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// Input of `hand_off_to_human`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HandOffInput {
    /// One of the six hand-off reasons.
    pub reason: HandoffReason,
    /// Listing the ticket is about, or null.
    #[serde(default)]
    pub listing_id: Option<String>,
    /// What the person should do, 10–500 characters.
    pub summary: String,
    /// Inquirer's e-mail address, or null.
    #[serde(default)]
    pub contact_email: Option<String>,
}

/// Knowledge search behind `search_knowledge` (the retrieval pipeline implements
/// it). Inputs are already validated: `scope` is a known listing id, `k` in 1–10.
pub trait KnowledgeSearch: Send + Sync {
    /// Returns passages that clear the relevance threshold, or `found: false`.
    ///
    /// # Errors
    /// A retrieval failure (e.g. the embedding model failed), as a message.
    fn search(&self, query: &str, scope: Option<&str>, k: usize) -> Result<SearchKnowledgeOutput, String>;
}

/// A knowledge search with no index: always `found: false`. Used where no
/// retrieval pipeline is configured (e.g. catalogue-only tests).
#[derive(Debug, Default)]
pub struct NoKnowledgeIndex;

impl KnowledgeSearch for NoKnowledgeIndex {
    fn search(&self, _query: &str, _scope: Option<&str>, _k: usize) -> Result<SearchKnowledgeOutput, String> {
        Ok(SearchKnowledgeOutput {
            found: false,
            results: vec![],
            reason: Some("no knowledge index is configured".into()),
        })
    }
}

/// The four tools over one catalogue, one knowledge search and one ticket queue.
#[derive(Clone)]
pub struct Toolbox {
    catalogue: Arc<Catalogue>,
    knowledge: Arc<dyn KnowledgeSearch>,
    handoffs: Arc<HandoffQueue>,
}

impl Toolbox {
    /// A toolbox over the given parts; clones share the queue.
    pub fn new(catalogue: Arc<Catalogue>, knowledge: Arc<dyn KnowledgeSearch>, handoffs: Arc<HandoffQueue>) -> Self {
        Self { catalogue, knowledge, handoffs }
    }

    /// The catalogue the tools read.
    pub fn catalogue(&self) -> &Arc<Catalogue> {
        &self.catalogue
    }

    /// The ticket queue `hand_off_to_human` writes to.
    pub fn handoffs(&self) -> &Arc<HandoffQueue> {
        &self.handoffs
    }

    /// `search_listings`: filter, sort by price ascending (then id), truncate to `limit`.
    ///
    /// # Errors
    /// `limit` outside 1–25, or a negative / non-finite numeric filter.
    pub fn search_listings(&self, input: &SearchListingsInput) -> Result<SearchListingsOutput, ToolError> {
        let limit = input.limit.unwrap_or(10);
        if !(1..=25).contains(&limit) {
            return Err(ToolError::new(
                format!("limit {limit} is out of range"),
                "use a limit from 1 to 25, or omit it for 10",
            ));
        }
        for (name, value) in
            [("maxPrice", input.max_price), ("minRooms", input.min_rooms), ("minAreaSqm", input.min_area_sqm)]
        {
            if let Some(v) = value {
                if !v.is_finite() || v < 0.0 {
                    return Err(ToolError::new(
                        format!("{name} {v} is invalid"),
                        format!("give {name} as a number >= 0, or omit it"),
                    ));
                }
            }
        }
        let city = input.city.as_deref().map(fold_city).filter(|c| !c.is_empty());
        let wanted: Vec<String> = input.features.iter().flatten().map(|f| fold(f.trim())).collect();
        let mut matches: Vec<&Listing> = self
            .catalogue
            .listings
            .iter()
            .filter(|l| city.as_ref().is_none_or(|c| fold_city(&l.city) == *c))
            .filter(|l| input.offer_type.is_none_or(|t| l.offer_type == t))
            .filter(|l| input.property_type.is_none_or(|t| l.property_type == t))
            .filter(|l| input.max_price.is_none_or(|p| l.price <= p))
            .filter(|l| input.min_rooms.is_none_or(|r| l.rooms >= r))
            .filter(|l| input.min_area_sqm.is_none_or(|a| l.living_area_sqm >= a))
            .filter(|l| wanted.iter().all(|w| l.features.iter().any(|f| fold(f) == *w)))
            .filter(|l| input.has_pet != Some(true) || l.pets_allowed != PetsAllowed::No)
            .filter(|l| input.available_by.is_none_or(|d| l.available_from <= d))
            .collect();
        matches.sort_by(|a, b| a.price.total_cmp(&b.price).then_with(|| a.id.cmp(&b.id)));
        Ok(SearchListingsOutput {
            total: matches.len(),
            results: matches.into_iter().take(limit as usize).map(ListingSummary::from).collect(),
        })
    }

    /// `get_listing`: the full record of one listing.
    ///
    /// # Errors
    /// Unknown id (after trimming and upper-casing), with a hint to use `search_listings`.
    pub fn get_listing(&self, input: &GetListingInput) -> Result<Listing, ToolError> {
        let id = self.known_listing_id(&input.id)?;
        self.catalogue.listing(&id).cloned().ok_or_else(|| {
            ToolError::new(format!("unknown listing id \"{id}\""), "use search_listings to find valid listing ids")
        })
    }

    /// `search_knowledge`: passages from listing descriptions and policy pages.
    ///
    /// # Errors
    /// `query` outside 3–300 characters, `k` outside 1–10, unknown `listingId`.
    pub fn search_knowledge(&self, input: &SearchKnowledgeInput) -> Result<SearchKnowledgeOutput, ToolError> {
        let query = input.query.trim();
        let len = query.chars().count();
        if !(3..=300).contains(&len) {
            return Err(ToolError::new(format!("query has {len} characters"), "ask a question of 3 to 300 characters"));
        }
        let k = input.k.unwrap_or(5);
        if !(1..=10).contains(&k) {
            return Err(ToolError::new(format!("k {k} is out of range"), "use k from 1 to 10, or omit it for 5"));
        }
        let scope = match input.listing_id.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
            Some(id) => Some(self.known_listing_id(id)?),
            None => None,
        };
        self.knowledge.search(query, scope.as_deref(), k as usize).map_err(|e| {
            ToolError::new(
                format!("knowledge search failed: {e}"),
                "hand the question off with not_answerable_from_listing",
            )
        })
    }

    /// `hand_off_to_human`: creates a ticket in the queue. Nothing is booked.
    ///
    /// # Errors
    /// Unknown listing id, summary outside 10–500 characters, an e-mail address
    /// without the `local@domain` shape.
    pub fn hand_off_to_human(&self, input: &HandOffInput) -> Result<Ticket, ToolError> {
        let listing_id = match input.listing_id.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
            Some(id) => Some(self.known_listing_id(id)?),
            None => None,
        };
        let summary = input.summary.trim();
        let len = summary.chars().count();
        if !(10..=500).contains(&len) {
            return Err(ToolError::new(
                format!("summary has {len} characters"),
                "write a summary of 10 to 500 characters saying what the person should do",
            ));
        }
        let email = input.contact_email.as_deref().map(str::trim).filter(|s| !s.is_empty());
        if let Some(email) = email {
            if !looks_like_email(email) {
                return Err(ToolError::new(
                    format!("contactEmail \"{}\" is not an e-mail address", echo(email)),
                    "give an address like name@example.org, or null",
                ));
            }
        }
        let new = NewTicket {
            reason: input.reason,
            listing_id,
            summary: summary.to_owned(),
            contact_email: email.map(str::to_owned),
            now: Utc::now(),
        };
        self.handoffs.push(new).map_err(|e| ToolError {
            error: format!("the ticket could not be stored, so no person has this request: {e}"),
            hint: "do not tell the customer that a colleague will be in touch; say that the request could not be \
                   recorded right now and ask them to contact the agency directly or to try again later"
                .into(),
            code: Some(HANDOFF_NOT_STORED),
        })
    }

    /// Normalises an id (trim, upper-case) and checks that the catalogue has it.
    fn known_listing_id(&self, raw: &str) -> Result<String, ToolError> {
        let id = raw.trim().to_uppercase();
        if self.catalogue.listing(&id).is_some() {
            Ok(id)
        } else {
            // "HH1001" or "hh 1001": the customer dropped the hyphen.
            let compact: String = id.chars().filter(|c| c.is_ascii_alphanumeric()).collect();
            let split = compact.find(|c: char| c.is_ascii_digit()).unwrap_or(compact.len());
            let guess = format!("{}-{}", &compact[..split], &compact[split..]);
            let hint = if guess != id && self.catalogue.listing(&guess).is_some() {
                format!(
                    "did you mean {guess}? Listing ids have a hyphen; use search_listings to find valid listing ids"
                )
            } else {
                "use search_listings to find valid listing ids".to_owned()
            };
            let shown = crate::text_file::escape_for_terminal(raw.trim(), 80);
            Err(ToolError::new(format!("unknown listing id \"{shown}\""), hint))
        }
    }
}

fn looks_like_email(s: &str) -> bool {
    match s.split_once('@') {
        Some((local, domain)) => {
            !local.is_empty()
                && domain.contains('.')
                && !domain.starts_with('.')
                && !domain.ends_with('.')
                && !domain.contains('@')
                && !s.chars().any(char::is_whitespace)
        }
        None => false,
    }
}

/// A tool result as JSON, as a transport would carry it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct JsonToolResult {
    /// The output object on success; `{error, hint}` on failure.
    pub value: serde_json::Value,
    /// True when the call failed (unknown tool, invalid arguments, tool error).
    pub is_error: bool,
}

impl JsonToolResult {
    fn ok<T: Serialize>(value: &T) -> Self {
        let value = serde_json::to_value(value).unwrap_or_else(|e| serde_json::json!({"error": e.to_string()}));
        Self { value, is_error: false }
    }

    fn err(e: &ToolError) -> Self {
        let mut value = serde_json::json!({"error": e.error, "hint": e.hint});
        if let Some(code) = e.code {
            value["code"] = serde_json::json!(code);
        }
        Self { value, is_error: true }
    }
}

/// A caller's value as quoted back in an error: control characters escaped,
/// at most 80 characters (a 1 MB id must not come back as a 2 MB reply).
pub fn echo(s: &str) -> String {
    crate::text_file::escape_for_terminal(s, 80)
}

fn kind(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}

/// Calls a tool by name with JSON arguments: decode, run, encode. Invalid
/// arguments and unknown tool names are error results with a hint, like any
/// other tool failure.
pub fn call_json(toolbox: &Toolbox, name: &str, arguments: serde_json::Value) -> JsonToolResult {
    fn decode<T: serde::de::DeserializeOwned>(name: &str, args: serde_json::Value) -> Result<T, ToolError> {
        let args = if args.is_null() { serde_json::json!({}) } else { args };
        if !args.is_object() {
            return Err(ToolError::new(
                format!("invalid arguments for {name}: expected a JSON object of named arguments, got {}", kind(&args)),
                format!("call {name} with an object such as {{\"id\": \"HH-1001\"}}"),
            ));
        }
        // The path names the argument at fault (`maxPrice: invalid type …`).
        serde_path_to_error::deserialize(args).map_err(|e| {
            let at = e.path().to_string();
            let at = if at == "." { String::new() } else { format!("{at}: ") };
            ToolError::new(
                // serde quotes the offending value in full: cap it like every echo.
                format!(
                    "invalid arguments for {name}: {}{}",
                    echo(&at),
                    crate::text_file::escape_for_terminal(&e.inner().to_string(), 300)
                ),
                format!("call {name} with arguments that match its input schema"),
            )
        })
    }
    let result = match name {
        "search_listings" => {
            decode(name, arguments).and_then(|i| toolbox.search_listings(&i)).map(|o| JsonToolResult::ok(&o))
        }
        "get_listing" => decode(name, arguments).and_then(|i| toolbox.get_listing(&i)).map(|o| JsonToolResult::ok(&o)),
        "search_knowledge" => {
            decode(name, arguments).and_then(|i| toolbox.search_knowledge(&i)).map(|o| JsonToolResult::ok(&o))
        }
        "hand_off_to_human" => {
            decode(name, arguments).and_then(|i| toolbox.hand_off_to_human(&i)).map(|o| JsonToolResult::ok(&o))
        }
        other => Err(ToolError::new(
            format!("unknown tool \"{}\"", echo(other)),
            format!("use one of: {}", TOOL_NAMES.join(", ")),
        )),
    };
    result.unwrap_or_else(|e| JsonToolResult::err(&e))
}
