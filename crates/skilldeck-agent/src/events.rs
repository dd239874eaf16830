//! What a running session tells its host (the CLI, the desktop app) and asks of it.
//! Holds the event shapes and the `Host` trait; not how a host shows them.

use crate::describe::ToolOutcome;
use crate::transcript::TurnEnd;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Something that happened in a turn, for the host to show as it happens.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
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
        /// Why a shell command needs no question: the approved grants that cover it
        /// (`skill (pattern)`), or that the user allowed it for the session.
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

/// What the user is asked before a shell command runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct ShellQuestion {
    /// The command, as the model wrote it.
    pub command: String,
    /// Whether it would run in the OS sandbox.
    pub sandboxed: bool,
    /// What confines it, or why nothing does, in one line.
    pub sandbox: String,
    /// The approved grant that covers it, when one does but cannot pre-approve it (no sandbox).
    pub grant: Option<String>,
    /// Why no approved grant covers it, when none does.
    pub not_covered: Option<String>,
}

/// The user's answer to a `ShellQuestion`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum ShellAnswer {
    /// Do not run it.
    Deny,
    /// Run it this time.
    Once,
    /// Run it, and this same command again in this session without asking.
    Session,
}

impl ShellAnswer {
    /// Whether the command runs.
    pub fn allows(self) -> bool {
        match self {
            Self::Deny => false,
            Self::Once | Self::Session => true,
        }
    }
}

/// What the user is asked before `write_file` writes a file that runs code later (a git hook or
/// config, `.envrc`, an editor's tasks, a build file, a shell start-up file, Skilldeck's own).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct WriteQuestion {
    /// The path, relative to the workspace, as the model wrote it.
    pub path: String,
    /// Why this path asks, in one line ("git runs the hooks in .git/hooks …").
    pub reason: String,
    /// How many bytes would be written.
    pub bytes: usize,
}

/// The host of a session: it shows events and answers approval questions.
#[async_trait::async_trait]
pub trait Host: Send + Sync {
    /// Shows an event. Called in order, as things happen.
    fn event(&self, event: &AgentEvent);

    /// Asks the user whether to run a shell command in the workspace.
    async fn approve_shell(&self, question: &ShellQuestion) -> ShellAnswer;

    /// Asks the user whether `write_file` may write a file that runs code later. `Session`
    /// allows writes to the same path for the rest of the session.
    async fn approve_write(&self, question: &WriteQuestion) -> ShellAnswer;
}

/// A host that shows nothing and answers every question with `allow_shell`.
#[derive(Debug, Clone, Copy)]
pub struct QuietHost {
    /// Whether shell commands, and writes that ask, are allowed.
    pub allow_shell: bool,
}

#[async_trait::async_trait]
impl Host for QuietHost {
    fn event(&self, _event: &AgentEvent) {}

    async fn approve_shell(&self, _question: &ShellQuestion) -> ShellAnswer {
        if self.allow_shell { ShellAnswer::Once } else { ShellAnswer::Deny }
    }

    async fn approve_write(&self, _question: &WriteQuestion) -> ShellAnswer {
        if self.allow_shell { ShellAnswer::Once } else { ShellAnswer::Deny }
    }
}
