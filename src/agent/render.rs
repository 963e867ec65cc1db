//! Terminal rendering of a run: reply, citations, tickets, outcome, usage and
//! the tool-call table. Shared by `ask` and anything else that prints a run.

use super::{Outcome, RunResult};

/// Human-readable rendering of a run: reply, citations, tickets, outcome,
/// usage, and optionally the tool-call table.
pub fn render_run(result: &RunResult, trace: bool) -> String {
    let mut s = format!("{}\n\n", result.reply.trim_end());
    let cites = if result.citations.is_empty() { "none".to_owned() } else { result.citations.join(", ") };
    s.push_str(&format!("Citations: {cites}\n"));
    if result.handoffs.is_empty() {
        s.push_str("Tickets:   none\n");
    } else {
        for (i, t) in result.handoffs.iter().enumerate() {
            let label = if i == 0 { "Tickets:  " } else { "          " };
            let listing = t.listing_id.as_deref().unwrap_or("-");
            s.push_str(&format!("{label} {} {} (listing {listing})\n", t.ticket_id, t.reason));
        }
    }
    let outcome = match result.outcome {
        Outcome::Answered => "answered".to_owned(),
        Outcome::ForcedHandoff { cause } => format!("forced hand-off ({})", cause.as_str()),
    };
    s.push_str(&format!("Outcome:   {outcome}\n"));
    s.push_str(&format!(
        "Usage:     {} model calls, {} input / {} output tokens\n",
        result.model_calls, result.usage.input, result.usage.output
    ));
    if let Some(e) = &result.error {
        s.push_str(&format!("Error:     {e}\n"));
    }
    if trace {
        let mut table = comfy_table::Table::new();
        table.load_style(comfy_table::presets::UTF8_FULL_CONDENSED);
        table.set_header(["turn", "tool", "arguments", "result", "ms"]);
        for e in &result.trace {
            table.add_row([
                e.model_call.to_string(),
                e.tool.clone(),
                one_line(&e.arguments.to_string(), 60),
                one_line(&summarise_result(&e.tool, &e.result, e.is_error), 70),
                e.duration_ms.to_string(),
            ]);
        }
        s.push_str(&format!("\n{table}\n"));
        for g in &result.guard_events {
            s.push_str(&format!(
                "Guard ({}, call {}): {}\n",
                g.action,
                g.model_call,
                g.violations.iter().map(|v| v.to_string()).collect::<Vec<_>>().join("; ")
            ));
        }
    }
    s
}

fn summarise_result(tool: &str, v: &serde_json::Value, is_error: bool) -> String {
    if is_error {
        return format!("error: {}", v["error"].as_str().unwrap_or(""));
    }
    match tool {
        "search_listings" => {
            let ids: Vec<&str> = v["results"]
                .as_array()
                .map(|r| r.iter().filter_map(|l| l["id"].as_str()).collect())
                .unwrap_or_default();
            format!("{} found: {}", v["total"], ids.join(", "))
        }
        "get_listing" => format!("{} {}", v["id"].as_str().unwrap_or(""), v["title"].as_str().unwrap_or("")),
        "search_knowledge" if v["found"] == serde_json::json!(false) => {
            format!("found: false ({})", v["reason"].as_str().unwrap_or(""))
        }
        "search_knowledge" => {
            let ids: Vec<&str> = v["results"]
                .as_array()
                .map(|r| r.iter().filter_map(|h| h["chunkId"].as_str()).collect())
                .unwrap_or_default();
            format!("found: {}", ids.join(", "))
        }
        "hand_off_to_human" => {
            format!("{} {}", v["ticketId"].as_str().unwrap_or(""), v["reason"].as_str().unwrap_or(""))
        }
        _ => v.to_string(),
    }
}

fn one_line(s: &str, max: usize) -> String {
    let flat: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() > max {
        flat.chars().take(max.saturating_sub(1)).collect::<String>() + "…"
    } else {
        flat
    }
}
