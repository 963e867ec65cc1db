//! The MCP server: the four tools of [`crate::tools`] and the policy pages as
//! `policy://<slug>` resources.
//!
//! Tool handlers take the raw arguments object and decode it with
//! [`crate::tools::call_json`], so a call with invalid arguments is a tool
//! result with `isError: true` and a hint (what the model can act on), not a
//! JSON-RPC error. The advertised input schemas still come from the typed
//! inputs of the library.

use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, Implementation, JsonObject, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ResourceContents, ResourceTemplate, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{tool, tool_handler, tool_router, ErrorData, RoleServer, ServerHandler};
use serde_json::{json, Value};

use crate::catalogue::PolicyPage;
use crate::tools::{
    call_json, GetListingInput, HandOffInput, JsonToolResult, SearchKnowledgeInput, SearchListingsInput, Toolbox,
    TOOL_NAMES,
};

/// URI scheme of the policy page resources: `policy://<slug>`.
pub const POLICY_SCHEME: &str = "policy://";

/// MIME type of the policy page resources.
pub const POLICY_MIME: &str = "text/markdown";

const INSTRUCTIONS: &str = "Tools over a property agency's catalogue. Find listings with search_listings, read one \
with get_listing, look up facts in listing descriptions and agency policies with search_knowledge (cite the returned \
chunkId), and pass viewings, negotiations, contract or legal questions, complaints, personal-data requests and \
unanswerable questions to a person with hand_off_to_human. A ticket is not a booking; petsAllowed \"on-request\" is \
not a yes. Policy pages are also readable as policy://<slug> resources.";

/// The input schema advertised for a tool, derived from its typed input.
fn input_schema<T: schemars::JsonSchema + 'static>() -> Arc<JsonObject> {
    rmcp::handler::server::common::schema_for_input::<T>()
        .unwrap_or_else(|e| panic!("input schema of {}: {e}", std::any::type_name::<T>()))
}

/// An MCP server over one [`Toolbox`]. Clones share the toolbox and with it the
/// ticket queue, so every session of one process writes to the same queue.
#[derive(Clone)]
pub struct InquiryServer {
    toolbox: Toolbox,
    tool_router: ToolRouter<Self>,
}

impl std::fmt::Debug for InquiryServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InquiryServer").finish_non_exhaustive()
    }
}

#[tool_router]
impl InquiryServer {
    /// A server over `toolbox` (which it shares, queue included).
    pub fn new(toolbox: Toolbox) -> Self {
        Self { toolbox, tool_router: Self::tool_router() }
    }

    /// The toolbox the tools run on.
    pub fn toolbox(&self) -> &Toolbox {
        &self.toolbox
    }

    #[tool(
        description = "Search the agency's listings with structured filters; all are optional and combine with AND. \
Returns {total, results}: total is the number of matches, results are listing summaries (no description) sorted by \
price ascending, at most `limit` (1-25, default 10). price is EUR per month for rentals and EUR for sales. City \
matching ignores case and accents and knows exonyms (Munich finds München, Cologne finds Köln). hasPet: true drops \
only listings whose petsAllowed is \"no\"; listings with \"on-request\" stay in the results, and on-request is not a \
yes: the landlord decides case by case. Use get_listing for the full record and search_knowledge for facts written \
in descriptions or agency policies.",
        input_schema = input_schema::<SearchListingsInput>(),
        annotations(
            title = "Search listings",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn search_listings(
        &self,
        Parameters(args): Parameters<JsonObject>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(self.run("search_listings", args, &ctx))
    }

    #[tool(
        description = "Get the full record of one listing by id (for example HH-1001; trimmed and upper-cased): \
title, city, district, description, offer and property type, price and unit, living area, rooms, floor, year built, \
availability date, features, pet policy (yes / no / on-request, where on-request is not a yes) and energy class. An \
unknown id is an error result with a hint to find ids with search_listings.",
        input_schema = input_schema::<GetListingInput>(),
        annotations(
            title = "Get listing",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn get_listing(
        &self,
        Parameters(args): Parameters<JsonObject>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(self.run("get_listing", args, &ctx))
    }

    #[tool(
        description = "Search listing descriptions and the agency's policy pages for passages that answer a \
question (query of 3-300 characters). Returns {found: true, results} where each hit has chunkId (cite it, e.g. \
HH-1001#s5 or policy:deposit#amount), source (listing or policy), listingId, text and retrieval scores; or \
{found: false, results: [], reason} when nothing is relevant enough. Then do not guess: hand the question off with \
reason not_answerable_from_listing. listingId restricts listing passages to that listing (policy sections are always \
searched); k is the number of passages, 1-10 (default 5). An unknown listingId is an error result.",
        input_schema = input_schema::<SearchKnowledgeInput>(),
        annotations(
            title = "Search knowledge",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn search_knowledge(
        &self,
        Parameters(args): Parameters<JsonObject>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        if let Some(refused) = duplicate_argument("search_knowledge", &ctx) {
            return Ok(refused);
        }
        // Retrieval is synchronous CPU work (embedding, reranking): keep it off the async workers.
        let toolbox = self.toolbox.clone();
        let result = tokio::task::spawn_blocking(move || call_json(&toolbox, "search_knowledge", Value::Object(args)))
            .await
            .unwrap_or_else(|e| JsonToolResult {
                value: json!({
                    "error": format!("knowledge search failed: {e}"),
                    "hint": "hand the question off with not_answerable_from_listing",
                }),
                is_error: true,
            });
        Ok(to_call_tool_result(result))
    }

    #[tool(
        description = "Create a hand-off ticket so a person at the agency takes over. Use it for viewing requests, \
price negotiation, contract or legal questions, complaints, personal-data requests (access, correction, deletion) \
and questions the records do not answer (reason not_answerable_from_listing). summary (10-500 characters) says what \
the person should do; listingId and contactEmail may be null. Returns the ticket {ticketId, createdAt, reason, \
listingId, summary, contactEmail}. A ticket is not a booking: nothing is reserved, scheduled or confirmed; tell the \
inquirer that a person will follow up. An unknown listingId is an error result.",
        input_schema = input_schema::<HandOffInput>(),
        annotations(
            title = "Hand off to a person",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn hand_off_to_human(
        &self,
        Parameters(args): Parameters<JsonObject>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        if let Some(refused) = duplicate_argument("hand_off_to_human", &ctx) {
            return Ok(refused);
        }
        // A stored ticket is an SQLite write that may wait for another
        // process's lock: keep it off the async workers too.
        let toolbox = self.toolbox.clone();
        let result = tokio::task::spawn_blocking(move || call_json(&toolbox, "hand_off_to_human", Value::Object(args)))
            .await
            .unwrap_or_else(|e| JsonToolResult {
                value: json!({
                    "error": format!("the ticket could not be stored, so no person has this request: {e}"),
                    "hint": "do not tell the customer that a colleague will be in touch",
                    "code": crate::tools::HANDOFF_NOT_STORED,
                }),
                is_error: true,
            });
        Ok(to_call_tool_result(result))
    }
}

impl InquiryServer {
    fn run(&self, name: &str, args: JsonObject, ctx: &RequestContext<RoleServer>) -> CallToolResult {
        duplicate_argument(name, ctx)
            .unwrap_or_else(|| to_call_tool_result(call_json(&self.toolbox, name, Value::Object(args))))
    }

    fn policy_resource(page: &PolicyPage) -> Resource {
        Resource::new(format!("{POLICY_SCHEME}{}", page.slug), page.slug.clone())
            .with_title(page.title.clone())
            .with_description(format!("Agency policy page \"{}\" (Markdown).", page.title))
            .with_mime_type(POLICY_MIME)
            .with_size(page.markdown.len() as u64)
    }
}

/// Success → structured content plus a text copy; failure → the same with `isError: true`.
/// The error result for a call whose arguments repeated a key (noted by
/// [`super::frames`] before rmcp kept the last value), or `None`.
fn duplicate_argument(name: &str, ctx: &RequestContext<RoleServer>) -> Option<CallToolResult> {
    let note = ctx.meta.0 .0.get(super::frames::DUPLICATE_ARGUMENT_META)?.as_str()?;
    Some(CallToolResult::structured_error(json!({
        "error": format!("invalid arguments for {name}: {}", crate::tools::echo(note)),
        "hint": format!("call {name} with each argument given once"),
    })))
}

fn to_call_tool_result(result: JsonToolResult) -> CallToolResult {
    if result.is_error {
        CallToolResult::structured_error(result.value)
    } else {
        CallToolResult::structured(result.value)
    }
}

#[tool_handler]
impl ServerHandler for InquiryServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().enable_resources().build())
            .with_server_info(
                Implementation::new("inquiry", env!("CARGO_PKG_VERSION"))
                    .with_title("inquiry property catalogue")
                    .with_description(
                        "Listings, knowledge search, hand-off tickets and policy pages of a property agency",
                    ),
            )
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        // The router sorts by name; clients get the stable order of TOOL_NAMES.
        let mut tools = self.tool_router.list_all();
        tools.sort_by_key(|t| TOOL_NAMES.iter().position(|n| *n == t.name).unwrap_or(usize::MAX));
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let resources = self.toolbox.catalogue().policies.iter().map(Self::policy_resource).collect();
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let template = ResourceTemplate::new(format!("{POLICY_SCHEME}{{slug}}"), "policy")
            .with_title("Agency policy page")
            .with_description("A policy page by slug (e.g. deposit, pets, viewings); resources/list names them all.")
            .with_mime_type(POLICY_MIME);
        Ok(ListResourceTemplatesResult::with_all_items(vec![template]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri;
        let page = uri.strip_prefix(POLICY_SCHEME).and_then(|slug| self.toolbox.catalogue().policy(slug));
        match page {
            Some(page) => {
                let contents = ResourceContents::text(page.markdown.clone(), uri.clone()).with_mime_type(POLICY_MIME);
                Ok(ReadResourceResult::new(vec![contents]).into())
            }
            None => Err(ErrorData::resource_not_found(
                format!("resource not found: {uri}; resources/list names the policy://<slug> pages"),
                Some(json!({ "uri": uri })),
            )),
        }
    }
}
