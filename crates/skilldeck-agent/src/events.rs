//! What a running session tells its host (the CLI, the desktop app) and asks of it.
//! Holds the event shapes and the `Host` trait; not how a host shows them.

use crate::describe::ToolOutcome;
use crate::transcript::TurnEnd;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Something that happened in a turn, for the host to show as it happens.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AgentEvent {
    /// A turn began.
    TurnStarted {
        /// The turn's id.
        turn: String,
        /// How many skills its listing shows.
        listed: usize,
        /// Who answers (`offline (no language model)` for the router).
        provider: String,
    },
    /// More of the model's answer.
    TextDelta {
        /// The new text.
        text: String,
    },
    /// The model called a tool; it is about to run.
    ToolStarted {
        /// The call's id.
        call_id: String,
        /// The tool.
        name: String,
        /// Its arguments.
        arguments: Value,
        /// Why a shell command needs no question, when an active skill pre-approves it.
        preapproved_by: Option<String>,
    },
    /// A tool finished.
    ToolFinished {
        /// The call's id.
        call_id: String,
        /// The tool.
        name: String,
        /// How it looks to people: ok, the display line, the client view, the version loaded.
        #[serde(flatten)]
        outcome: ToolOutcome,
    },
    /// Older tool results were compacted to fit the context window.
    Compacted {
        /// How many.
        results: usize,
    },
    /// The turn ended.
    TurnEnded {
        /// The turn's id.
        turn: String,
        /// How.
        end: TurnEnd,
    },
}

/// The host of a session: it shows events and answers approval questions.
#[async_trait::async_trait]
pub trait Host: Send + Sync {
    /// Shows an event. Called in order, as things happen.
    fn event(&self, event: &AgentEvent);

    /// Asks the user whether to run `command` in the workspace. `false` refuses it.
    async fn approve_shell(&self, command: &str) -> bool;
}

/// A host that shows nothing and answers every question with `allow`.
#[derive(Debug, Clone, Copy)]
pub struct QuietHost {
    /// Whether shell commands are allowed.
    pub allow_shell: bool,
}

#[async_trait::async_trait]
impl Host for QuietHost {
    fn event(&self, _event: &AgentEvent) {}

    async fn approve_shell(&self, _command: &str) -> bool {
        self.allow_shell
    }
}
