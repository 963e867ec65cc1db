//! The offline demo model: rule-based, German and English, answering only from
//! tool results.
//!
//! It reads the conversation like a model would: the customer's latest
//! inquiry, earlier exchanges (for a listing id a follow-up relies on) and the
//! tool results so far. Each call it either requests the tool calls its plan
//! still needs or writes a reply built from those results: passages quoted
//! verbatim with their chunk ids (so qualifications survive and no figure is
//! computed), listing fields with the listing id, and one sentence per ticket.
//! It knows intents, cities and price phrases, never any particular question.

//!
//! Files, one concept each: [`conversation`] (what the model reads from the
//! messages), [`intents`] (what an inquiry asks for: listing ids, search
//! criteria, hand-off reasons, fact questions), [`language`] (German or
//! English), [`plan`] (which tool calls to make, and the reply built from their
//! results), [`compose`] (listing fields and figures written as the record gives them).

mod compose;
mod conversation;
mod intents;
mod language;
mod plan;
mod words;

pub use language::detect_language;

use super::model::{Message, ModelClient, ModelError, ModelRequest, ModelResponse, ToolCall, Usage};
use conversation::Conversation;
use plan::Plan;

/// The rule-based offline model (`--model demo`).
#[derive(Debug, Default, Clone)]
pub struct DemoModel;

#[async_trait::async_trait]
impl ModelClient for DemoModel {
    fn id(&self) -> &str {
        "demo"
    }

    async fn complete(&self, request: ModelRequest<'_>) -> Result<ModelResponse, ModelError> {
        let conversation = Conversation::read(request.messages);
        let plan = Plan::for_inquiry(&conversation);
        let pending: Vec<ToolCall> = plan
            .calls(&conversation)
            .into_iter()
            .filter(|(name, args)| !conversation.made(name, args))
            .enumerate()
            .map(|(i, (name, arguments))| ToolCall {
                id: format!("demo-{}-{}", conversation.results.len(), i),
                name: name.to_owned(),
                arguments,
            })
            .collect();
        let input_chars: usize = request.system.len() + request.messages.iter().map(message_chars).sum::<usize>();
        let response = if pending.is_empty() {
            ModelResponse::text(plan.reply(&conversation))
        } else {
            ModelResponse::tools(pending)
        };
        let output_chars = response.text.as_deref().map_or(0, str::len)
            + response.tool_calls.iter().map(|c| c.arguments.to_string().len() + c.name.len()).sum::<usize>();
        // A rule-based model bills nothing; usage is estimated at four
        // characters per token so budgets and reports behave as with a real model.
        Ok(response.with_usage(Usage {
            input: (input_chars / 4) as u64,
            output: (output_chars / 4) as u64,
            ..Usage::default()
        }))
    }
}

fn message_chars(m: &Message) -> usize {
    match m {
        Message::User { text } => text.len(),
        Message::Assistant { text, tool_calls } => {
            text.as_deref().map_or(0, str::len)
                + tool_calls.iter().map(|c| c.arguments.to_string().len()).sum::<usize>()
        }
        Message::ToolResults { results } => results.iter().map(|r| r.content.len()).sum(),
    }
}
