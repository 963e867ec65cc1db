//! What the demo model reads from the messages: the current inquiry, earlier
//! exchanges, and the tool calls made in this run with their results.

use serde_json::Value;

use crate::agent::model::Message;

use crate::agent::{unwrap_untrusted, REPAIR_PREFIX};

/// A tool call made in this run with its decoded result.
#[derive(Debug, Clone)]
pub(super) struct Made {
    pub(super) name: String,
    pub(super) args: Value,
    pub(super) result: Value,
    pub(super) is_error: bool,
}

/// What the demo model reads from the messages.
#[derive(Debug, Default)]
pub(super) struct Conversation {
    pub(super) inquiry: String,
    pub(super) history_inquiries: Vec<String>,
    pub(super) history_replies: Vec<String>,
    pub(super) results: Vec<Made>,
    pub(super) repair_requested: bool,
}

impl Conversation {
    pub(super) fn read(messages: &[Message]) -> Self {
        // The current inquiry is the last customer message that is not a repair
        // request; everything before it is history.
        let current = messages
            .iter()
            .rposition(|m| matches!(m, Message::User { text } if !text.starts_with(REPAIR_PREFIX)))
            .unwrap_or(0);
        let mut c = Conversation::default();
        for (i, m) in messages.iter().enumerate() {
            match m {
                Message::User { text } if i < current => c.history_inquiries.push(text.clone()),
                Message::User { text } if i == current => c.inquiry = text.clone(),
                Message::User { text } => c.repair_requested |= text.starts_with(REPAIR_PREFIX),
                Message::Assistant { text: Some(t), tool_calls } if i < current && tool_calls.is_empty() => {
                    c.history_replies.push(t.clone())
                }
                _ => {}
            }
        }
        let mut calls: Vec<(String, String, Value)> = vec![];
        for m in &messages[current.min(messages.len())..] {
            match m {
                Message::Assistant { tool_calls, .. } => {
                    calls.extend(tool_calls.iter().map(|t| (t.id.clone(), t.name.clone(), t.arguments.clone())))
                }
                Message::ToolResults { results } => {
                    for r in results {
                        if let Some((_, name, args)) = calls.iter().find(|(id, _, _)| *id == r.call_id) {
                            c.results.push(Made {
                                name: name.clone(),
                                args: args.clone(),
                                result: unwrap_untrusted(&r.content).unwrap_or(Value::Null),
                                is_error: r.is_error,
                            });
                        }
                    }
                }
                Message::User { .. } => {}
            }
        }
        c
    }

    pub(super) fn made(&self, name: &str, args: &Value) -> bool {
        self.results.iter().any(|m| m.name == name && m.args == *args)
    }

    pub(super) fn result(&self, name: &str, args: &Value) -> Option<&Made> {
        self.results.iter().find(|m| m.name == name && m.args == *args)
    }
}
