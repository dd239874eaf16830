//! The tools a session offers: their names, specs and typed errors, and the file and shell tools.
//! Holds what each tool does with its input; the loop decides when to run them and asks approval.

pub mod allowed;
pub mod confine;
pub mod files;
pub mod git_guard;
pub mod host;
pub mod limits;
pub mod sandbox;
pub mod shell;
pub mod write_guard;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use skilldeck_mount::view_skill::{TOOL_NAME, ToolSpec};

/// A tool a session may offer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolKind {
    /// The core's `view_skill`.
    ViewSkill,
    /// The core's `find_skills`: offered only in a turn whose listing does not show every skill.
    FindSkills,
    /// Read a text file in the workspace.
    ReadFile,
    /// Write a text file in the workspace.
    WriteFile,
    /// List a folder of the workspace.
    ListDir,
    /// Run a command in the workspace.
    Shell,
}

impl ToolKind {
    /// Every tool, in the order they are offered.
    pub const ALL: [ToolKind; 6] =
        [Self::ViewSkill, Self::FindSkills, Self::ReadFile, Self::WriteFile, Self::ListDir, Self::Shell];

    /// The name a model calls it by.
    pub fn name(self) -> &'static str {
        match self {
            Self::ViewSkill => TOOL_NAME,
            Self::FindSkills => skilldeck_select::find::TOOL_NAME,
            Self::ReadFile => "read_file",
            Self::WriteFile => "write_file",
            Self::ListDir => "list_dir",
            Self::Shell => "shell",
        }
    }

    /// The tool with that name.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == name)
    }

    /// Its spec. `view_skill`'s is built per turn by the core, so it has none here.
    pub fn spec(self) -> Option<ToolSpec> {
        let (description, parameters) = match self {
            Self::ViewSkill => return None,
            Self::FindSkills => return Some(skilldeck_select::find::tool_spec()),
            Self::ReadFile => (
                "Read a text file in the workspace. `path` is relative to the workspace folder.",
                json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"], "additionalProperties": false}),
            ),
            Self::WriteFile => (
                "Write a text file in the workspace (replacing it, creating parent folders). `path` is relative to the workspace folder. New files are never executable; the user is asked before writing files that run code later (.git/, .envrc, .vscode/, build files such as Makefile or package.json, shell start-up files).",
                json!({"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}}, "required": ["path", "content"], "additionalProperties": false}),
            ),
            Self::ListDir => (
                "List a folder of the workspace: names, kinds and sizes. Omit `path` for the workspace folder itself.",
                json!({"type": "object", "properties": {"path": {"type": "string"}}, "additionalProperties": false}),
            ),
            Self::Shell => (
                "Run a command with `sh -c` in the workspace folder. It has a timeout and its output is cut when long; it runs in a sandbox (it can write only in the workspace and /tmp; no network unless the user allows it), and the user approves each command unless an active skill's approved allowed-tools covers it.",
                json!({"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"], "additionalProperties": false}),
            ),
        };
        Some(ToolSpec { name: self.name().to_owned(), description: description.to_owned(), parameters })
    }
}

/// The stable codes of tool errors other than `view_skill`'s own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolErrorCode {
    /// The arguments are not what the tool takes.
    InvalidArguments,
    /// No tool of that name is offered in this session.
    UnknownTool,
    /// The path is absolute, climbs with `..`, or is otherwise refused.
    PathInvalid,
    /// The path leads outside the workspace.
    PathEscapes,
    /// Nothing at the path.
    NotFound,
    /// A file where a folder should be, or the reverse.
    WrongKind,
    /// Over a size limit.
    TooLarge,
    /// Not text.
    Binary,
    /// The user did not allow the command.
    ShellDenied,
    /// The user did not allow writing a file that runs code later.
    WriteDenied,
    /// Over the calls one reply may make, or the tool output one turn may gather.
    LimitReached,
    /// The user stopped the call.
    Cancelled,
    /// Any other I/O failure.
    Io,
}

/// A tool's failure, returned to the model as data: `{error: {code, message}}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("{message}")]
pub struct ToolError {
    /// The stable code.
    pub code: ToolErrorCode,
    /// What went wrong and what to do, for the model.
    pub message: String,
}

impl ToolError {
    /// An error.
    pub fn new(code: ToolErrorCode, message: impl Into<String>) -> Self {
        Self { code, message: message.into() }
    }

    /// The JSON the model receives.
    pub fn to_json(&self) -> Value {
        json!({"error": {"code": self.code, "message": self.message}})
    }
}
