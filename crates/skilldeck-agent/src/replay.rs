//! A transcript replayed for a host that reopens a session: what the user saw, in order.
//! Holds the mapping from records to shown items; reading the file is `transcript`'s.

use crate::describe::{ToolOutcome, describe};
use crate::message::{Message, ToolCall};
use crate::transcript::{Record, TurnEnd};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::HashMap;

/// One thing a session showed, as a host shows it again.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ReplayItem {
    /// The user's request.
    User {
        /// Its text.
        text: String,
    },
    /// The model's answer text (a step's text; tool calls come as `Tool` items).
    Assistant {
        /// The text.
        text: String,
    },
    /// A tool call and how it ended, as the live event showed it.
    Tool {
        /// The call's id.
        call_id: String,
        /// The tool.
        name: String,
        /// Its arguments.
        arguments: Value,
        /// How it looked to people.
        #[serde(flatten)]
        outcome: ToolOutcome,
    },
    /// A turn ended.
    TurnEnded {
        /// How.
        end: TurnEnd,
    },
    /// The session was reopened with a provider.
    Resumed {
        /// Who answered from then on.
        provider: String,
    },
}

/// The items of `records`, in order. Tool results show their client view, never a skill's text.
pub fn replay(records: &[Record]) -> Vec<ReplayItem> {
    let mut calls: HashMap<&str, &ToolCall> = HashMap::new();
    let mut out = Vec::new();
    for record in records {
        match record {
            Record::Session { .. } | Record::TurnStarted { .. } | Record::Found { .. } => {}
            Record::Resumed { provider, .. } => out.push(ReplayItem::Resumed { provider: provider.label.clone() }),
            Record::TurnEnded { end, .. } => out.push(ReplayItem::TurnEnded { end: end.clone() }),
            Record::Message { message } => match message {
                Message::User { content } => out.push(ReplayItem::User { text: content.clone() }),
                Message::Assistant { content, tool_calls } => {
                    if !content.is_empty() {
                        out.push(ReplayItem::Assistant { text: content.clone() });
                    }
                    calls.extend(tool_calls.iter().map(|c| (c.id.as_str(), c)));
                }
                Message::Tool { call_id, name, content } => {
                    let fallback;
                    let call = match calls.get(call_id.as_str()) {
                        Some(c) => *c,
                        None => {
                            fallback = ToolCall { id: call_id.clone(), name: name.clone(), arguments: Value::Null };
                            &fallback
                        }
                    };
                    let result = serde_json::from_str(content).unwrap_or_else(|_| Value::String(content.clone()));
                    out.push(ReplayItem::Tool {
                        call_id: call_id.clone(),
                        name: name.clone(),
                        arguments: call.arguments.clone(),
                        outcome: describe(call, &result),
                    });
                }
            },
        }
    }
    out
}
