//! `inquiry tool`: call one tool with JSON arguments and print its JSON result.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::bail;

use super::args::RetrievalArgs;
use super::decided;
use crate::knowledge::Knowledge;

/// Arguments of `inquiry tool`.
#[derive(Debug, clap::Args)]
pub struct ToolArgs {
    /// Tool name: search_listings, get_listing, search_knowledge or hand_off_to_human.
    pub name: String,
    /// Arguments as a JSON object, e.g. '{"city": "Hamburg", "maxPrice": 2000}'.
    #[arg(default_value = "{}")]
    pub arguments: String,
    /// Catalogue directory holding listings.json and policies/.
    #[arg(long, default_value = "data", env = "INQUIRY_DATA")]
    pub data: PathBuf,
    /// Overlay catalogue directory whose listings.json is added (e.g. fixtures/injection).
    #[arg(long, value_name = "DIR")]
    pub overlay: Option<PathBuf>,
    /// Retrieval settings for search_knowledge.
    #[command(flatten)]
    pub retrieval: RetrievalArgs,
}

/// Calls the tool; a rejected argument prints the error JSON and exits 2.
///
/// # Errors
/// An unknown tool, arguments that are not JSON, or a catalogue/retrieval load error.
pub fn run(args: ToolArgs) -> anyhow::Result<ExitCode> {
    // Check the cheap things before loading models.
    if !crate::tools::TOOL_NAMES.contains(&args.name.as_str()) {
        bail!("unknown tool \"{}\"; expected one of: {}", args.name, crate::tools::TOOL_NAMES.join(", "));
    }
    // Strict like the catalogue: a repeated key is an error, not the last value.
    let json: serde_json::Value = crate::json_file::from_str(&args.arguments).map_err(|e| {
        anyhow::anyhow!(
            "tool arguments are not valid JSON ({e}): {}",
            crate::text_file::escape_for_terminal(&args.arguments, 200)
        )
    })?;
    // Only search_knowledge needs the retrieval index; building it is most of
    // the start-up time on a large catalogue (10,000 listings: seconds), so
    // the other tools run on the catalogue alone.
    let toolbox = if args.name == "search_knowledge" {
        Knowledge::load(&args.data, args.overlay.as_deref(), &args.retrieval.config())?.toolbox()
    } else {
        let mut catalogue = crate::catalogue::Catalogue::load(&args.data)?;
        if let Some(dir) = &args.overlay {
            catalogue = catalogue.with_overlay(dir)?;
        }
        crate::tools::Toolbox::new(
            std::sync::Arc::new(catalogue),
            std::sync::Arc::new(crate::tools::NoKnowledgeIndex),
            std::sync::Arc::new(crate::handoff::HandoffQueue::new()),
        )
    };
    let result = crate::tools::call_json(&toolbox, &args.name, json);
    // A tool error is the caller's input being rejected: a usage error (2).
    // The error object still goes to stdout, as the tool returned it.
    let code = if result.is_error { 2 } else { 0 };
    decided(code);
    if result.is_error {
        let field = |k: &str| result.value.get(k).and_then(|v| v.as_str()).unwrap_or_default().to_owned();
        let hint = field("hint");
        let text = format!("{}{}", field("error"), if hint.is_empty() { String::new() } else { format!(" ({hint})") });
        eprintln!("error: {}", crate::text_file::escape_for_terminal(&text, 500));
    }
    let mut out = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, &result.value)?;
    writeln!(out)?;
    Ok(ExitCode::from(code))
}
