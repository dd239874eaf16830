//! The message model every provider translates to and from: messages, tool calls, stream events.
//! Holds plain data shared by the loop, the providers and the transcript; no wire format.

use serde::{Deserialize, Serialize};
use skilldeck_mount::view_skill::ToolSpec;

/// One tool call the model asked for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The provider's id for the call, echoed back with its result.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments: a JSON object when the model sent valid JSON, else the raw text as a
    /// JSON string (the loop then answers with an error the model can act on).
    pub arguments: serde_json::Value,
}

impl ToolCall {
    /// The arguments as the JSON text a wire format carries.
    pub fn arguments_text(&self) -> String {
        match &self.arguments {
            serde_json::Value::String(raw) => raw.clone(),
            other => other.to_string(),
        }
    }
}

/// One message of a conversation. The system prompt is not a message: it is rebuilt every turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum Message {
    /// What the user said.
    User {
        /// The text.
        content: String,
    },
    /// What the model said, and the tools it called.
    Assistant {
        /// The text (may be empty when the model only called tools).
        content: String,
        /// The calls, in order.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ToolCall>,
    },
    /// The result of one tool call, as the model receives it.
    Tool {
        /// The call it answers.
        call_id: String,
        /// The tool's name.
        name: String,
        /// The result: JSON text.
        content: String,
    },
}

impl Message {
    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        Self::User { content: content.into() }
    }

    /// The text this message costs, for token estimates.
    pub fn text_len(&self) -> usize {
        match self {
            Self::User { content } => content.len(),
            Self::Assistant { content, tool_calls } => {
                content.len() + tool_calls.iter().map(|c| c.name.len() + c.arguments_text().len() + 16).sum::<usize>()
            }
            Self::Tool { content, name, .. } => content.len() + name.len() + 16,
        }
    }
}

/// Why the model stopped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// It finished its answer.
    EndTurn,
    /// It wants tool results.
    ToolUse,
    /// It hit the output limit.
    MaxTokens,
    /// Anything else the provider reported, as it reported it.
    Other(String),
}

/// One event of a streamed reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum StreamEvent {
    /// More text.
    TextDelta {
        /// The new text.
        text: String,
    },
    /// A complete tool call (its argument fragments already gathered and parsed).
    ToolCall {
        /// The call.
        call: ToolCall,
    },
    /// What the call cost, as the provider counted it (sent before `Finish` by providers that
    /// report it).
    Usage {
        /// Tokens of the request.
        input_tokens: u64,
        /// Tokens of the reply.
        output_tokens: u64,
    },
    /// The end of the reply.
    Finish {
        /// Why it stopped.
        stop: StopReason,
    },
}

/// What the loop asks a provider for: one model call.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelRequest {
    /// The system prompt, rebuilt this turn.
    pub system: String,
    /// The conversation so far.
    pub messages: Vec<Message>,
    /// The tools offered, with this turn's `view_skill` spec.
    pub tools: Vec<ToolSpec>,
}
