//! Which agents read which `SKILL.md` frontmatter fields, as data: one row per agent and field,
//! with the value that agent accepts and where its own documentation or source says so.
//! Holds the table and look-ups; the value checks are `agent_values`, their use `agent_rules`.
//!
//! Every row cites its source, as `skilldeck-targets`' `known.rs` does for folders. Sources were
//! read in December 2026:
//! - Claude Code: <https://code.claude.com/docs/en/skills#frontmatter-reference> (the field
//!   table), `model` aliases from <https://code.claude.com/docs/en/model-config#model-aliases>,
//!   the `hooks` shape from <https://code.claude.com/docs/en/hooks#configuration>.
//! - Codex: `codex-rs/core-skills/src/loader.rs` of `openai/codex` (`SkillFrontmatter` reads
//!   `name`, `description` and `metadata.short-description`; every other key is ignored by
//!   serde; `agents/openai.yaml` is `SkillMetadataFile`, checked in `codex_yaml`).
//! - Gemini CLI: `packages/core/src/skills/skillLoader.ts` of `google-gemini/gemini-cli`
//!   (`parseFrontmatter` keeps `name` and `description` only).
//! - GitHub Copilot: `docs/copilot/customization/agent-skills.md` of `microsoft/vscode-docs`
//!   (the "Header" table: `name`, `description`, `argument-hint`, `user-invokable`,
//!   `disable-model-invocation`).
//! - Cursor: <https://cursor.com/docs/context/skills> (frontmatter: `name`, `description`,
//!   `license`, `compatibility`, `metadata`, `disable-model-invocation`).

use std::fmt;

/// An agent whose reading of `SKILL.md` is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Agent {
    /// Anthropic's Claude Code.
    ClaudeCode,
    /// OpenAI's Codex (CLI, IDE extension and app).
    Codex,
    /// Google's Gemini CLI.
    Gemini,
    /// GitHub Copilot (VS Code agent mode, Copilot CLI, the coding agent).
    Copilot,
    /// Cursor's agent.
    Cursor,
}

impl Agent {
    /// Every agent, in the order `--for` lists them.
    pub const ALL: [Agent; 5] = [Agent::ClaudeCode, Agent::Codex, Agent::Gemini, Agent::Copilot, Agent::Cursor];

    /// The id `skilldeck validate --for` takes and diagnostics carry (`read_by`).
    pub fn id(self) -> &'static str {
        match self {
            Self::ClaudeCode => "claude-code",
            Self::Codex => "codex",
            Self::Gemini => "gemini",
            Self::Copilot => "copilot",
            Self::Cursor => "cursor",
        }
    }

    /// Its name as people write it.
    pub fn name(self) -> &'static str {
        match self {
            Self::ClaudeCode => "Claude Code",
            Self::Codex => "Codex",
            Self::Gemini => "Gemini CLI",
            Self::Copilot => "GitHub Copilot",
            Self::Cursor => "Cursor",
        }
    }

    /// Where its reading of the frontmatter is documented (or implemented).
    pub fn source(self) -> &'static str {
        match self {
            Self::ClaudeCode => CLAUDE_SKILLS,
            Self::Codex => CODEX_LOADER,
            Self::Gemini => GEMINI_LOADER,
            Self::Copilot => COPILOT_DOCS,
            Self::Cursor => CURSOR_DOCS,
        }
    }

    /// The agent with this id (`claude-code`, `codex`, `gemini`, `copilot`, `cursor`); a few
    /// spellings people use are accepted too (`claude`, `gemini-cli`, `github-copilot`).
    pub fn parse(id: &str) -> Option<Self> {
        match id.trim().to_ascii_lowercase().as_str() {
            "claude-code" | "claude" | "claudecode" => Some(Self::ClaudeCode),
            "codex" | "openai-codex" => Some(Self::Codex),
            "gemini" | "gemini-cli" => Some(Self::Gemini),
            "copilot" | "github-copilot" | "vscode" => Some(Self::Copilot),
            "cursor" => Some(Self::Cursor),
            _ => None,
        }
    }
}

impl fmt::Display for Agent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Claude Code's frontmatter reference.
pub const CLAUDE_SKILLS: &str = "https://code.claude.com/docs/en/skills#frontmatter-reference";
/// Claude Code's model aliases.
pub const CLAUDE_MODELS: &str = "https://code.claude.com/docs/en/model-config#model-aliases";
/// Claude Code's hook configuration.
pub const CLAUDE_HOOKS: &str = "https://code.claude.com/docs/en/hooks#configuration";
/// Codex's skill loader.
pub const CODEX_LOADER: &str = "github.com/openai/codex codex-rs/core-skills/src/loader.rs";
/// Gemini CLI's skill loader.
pub const GEMINI_LOADER: &str = "github.com/google-gemini/gemini-cli packages/core/src/skills/skillLoader.ts";
/// VS Code's Copilot skill documentation.
pub const COPILOT_DOCS: &str = "github.com/microsoft/vscode-docs docs/copilot/customization/agent-skills.md";
/// Cursor's skill documentation.
pub const CURSOR_DOCS: &str = "https://cursor.com/docs/context/skills";

/// What a field's value must be for the agent that reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Accepts {
    /// Text (a number or a list is not).
    Text,
    /// Text of at most this many characters.
    TextMax(usize),
    /// A hint: text, or a list of texts (an unquoted `[file]`, as the agents' own examples write
    /// it, is a YAML list).
    Hint,
    /// `true` or `false`, unquoted.
    Bool,
    /// One of these words.
    OneOf(&'static [&'static str]),
    /// A Claude Code model: an alias or a full model id.
    Model,
    /// Claude Code's hooks: `{Event: [{matcher?, hooks: [{type, command|prompt|url, …}]}]}`.
    Hooks,
    /// Glob patterns: a comma-separated text or a list of texts.
    Globs,
    /// Tool patterns (`Bash(git:*) Read`): a space-separated text or a list of texts.
    Tools,
    /// Argument names: a space-separated text or a list of texts, each a word.
    Names,
    /// A mapping; Codex reads its `short-description` (text, at most 1,024 characters).
    CodexMetadata,
    /// Anything: the agent shows or keeps it without reading it.
    Any,
}

/// One field one agent reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AgentField {
    /// The agent.
    pub agent: Agent,
    /// The frontmatter key.
    pub field: &'static str,
    /// What its value must be.
    pub accepts: Accepts,
    /// What the agent does with it, in a few words.
    pub does: &'static str,
    /// Where that is written (a URL, or a repository and path).
    pub cite: &'static str,
}

/// Claude Code's `effort` levels.
pub const EFFORTS: &[&str] = &["low", "medium", "high", "xhigh", "max"];
/// Claude Code's `model` aliases.
pub const MODEL_ALIASES: &[&str] =
    &["default", "inherit", "best", "sonnet", "opus", "haiku", "opusplan", "sonnet[1m]", "opus[1m]"];
/// Claude Code's hook events.
pub const HOOK_EVENTS: &[&str] = &[
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PermissionRequest",
    "UserPromptSubmit",
    "Notification",
    "Stop",
    "SubagentStart",
    "SubagentStop",
    "PreCompact",
    "SessionStart",
    "SessionEnd",
];
/// Claude Code's hook handler types.
pub const HOOK_TYPES: &[&str] = &["command", "prompt", "agent", "http"];

const fn row(
    agent: Agent,
    field: &'static str,
    accepts: Accepts,
    does: &'static str,
    cite: &'static str,
) -> AgentField {
    AgentField { agent, field, accepts, does, cite }
}

use Accepts as A;
use Agent::{ClaudeCode as CC, Codex as CX, Copilot as CP, Cursor as CU, Gemini as GE};

/// The table: every field each agent reads, with what it accepts and the source.
pub const FIELDS: &[AgentField] = &[
    row(CC, "name", A::Text, "the /slash-command name; defaults to the folder's", CLAUDE_SKILLS),
    row(CC, "description", A::Text, "what Claude reads to decide when to use the skill", CLAUDE_SKILLS),
    row(CC, "when_to_use", A::Text, "appended to the description in the skill listing", CLAUDE_SKILLS),
    row(CC, "argument-hint", A::Hint, "the hint shown after /name while typing", CLAUDE_SKILLS),
    row(CC, "arguments", A::Names, "named positional arguments for `$name` substitution", CLAUDE_SKILLS),
    row(
        CC,
        "disable-model-invocation",
        A::Bool,
        "`true`: only the user invokes it; Claude never sees it",
        CLAUDE_SKILLS,
    ),
    row(CC, "user-invocable", A::Bool, "`false`: hidden from the / menu; only Claude loads it", CLAUDE_SKILLS),
    row(CC, "allowed-tools", A::Tools, "tools usable without asking while the skill is active", CLAUDE_SKILLS),
    row(CC, "disallowed-tools", A::Tools, "tools removed while the skill is active", CLAUDE_SKILLS),
    row(CC, "model", A::Model, "the model while the skill is active: an alias or a full id", CLAUDE_MODELS),
    row(CC, "effort", A::OneOf(EFFORTS), "the effort level while the skill is active", CLAUDE_SKILLS),
    row(CC, "context", A::OneOf(&["fork"]), "`fork`: run the skill in a forked subagent context", CLAUDE_SKILLS),
    row(CC, "agent", A::Text, "the subagent type when `context: fork` is set", CLAUDE_SKILLS),
    row(CC, "hooks", A::Hooks, "hooks scoped to the skill's lifecycle", CLAUDE_HOOKS),
    row(CC, "paths", A::Globs, "globs: the skill loads automatically only for matching files", CLAUDE_SKILLS),
    row(CC, "shell", A::OneOf(&["bash", "powershell"]), "the shell for !`command` blocks", CLAUDE_SKILLS),
    row(CX, "name", A::TextMax(64), "the skill's name (64 characters at most, else not loaded)", CODEX_LOADER),
    row(CX, "description", A::TextMax(1024), "the description (1,024 characters at most)", CODEX_LOADER),
    row(CX, "metadata", A::CodexMetadata, "`metadata.short-description`, shown in the skill picker", CODEX_LOADER),
    row(GE, "name", A::Text, "the skill's name", GEMINI_LOADER),
    row(GE, "description", A::Text, "the description", GEMINI_LOADER),
    row(CP, "name", A::TextMax(64), "the skill's identifier", COPILOT_DOCS),
    row(CP, "description", A::TextMax(1024), "what Copilot reads to decide when to load it", COPILOT_DOCS),
    row(CP, "argument-hint", A::Hint, "the hint shown when invoked as a slash command", COPILOT_DOCS),
    row(CP, "user-invokable", A::Bool, "`false`: hidden from the / menu", COPILOT_DOCS),
    row(CP, "disable-model-invocation", A::Bool, "`true`: only the / command loads it", COPILOT_DOCS),
    row(CU, "name", A::Text, "the skill's name", CURSOR_DOCS),
    row(CU, "description", A::Text, "what the agent reads to decide when to use it", CURSOR_DOCS),
    row(CU, "license", A::Any, "shown", CURSOR_DOCS),
    row(CU, "compatibility", A::Any, "shown", CURSOR_DOCS),
    row(CU, "metadata", A::Any, "kept", CURSOR_DOCS),
    row(CU, "disable-model-invocation", A::Bool, "`true`: only the / command loads it", CURSOR_DOCS),
];

/// The spec's fields that only inform (a licence, requirements, extra data): an agent that
/// does not read them loses nothing, so `--for` does not warn about them.
pub const INFORMATIONAL: &[&str] = &["license", "compatibility", "metadata"];

/// The row for `field` as `agent` reads it.
pub fn read_by(agent: Agent, field: &str) -> Option<&'static AgentField> {
    FIELDS.iter().find(|r| r.agent == agent && r.field == field)
}

/// Every row for `field`, in agent order.
pub fn readers(field: &str) -> impl Iterator<Item = &'static AgentField> + '_ {
    FIELDS.iter().filter(move |r| r.field == field)
}

/// The ids `--for` takes, `spec` first: `spec, claude-code, codex, gemini, copilot, cursor`.
pub fn valid_targets() -> String {
    std::iter::once("spec").chain(Agent::ALL.iter().map(|a| a.id())).collect::<Vec<_>>().join(", ")
}

/// Names joined for a message: `A`, `A and B`, `A, B and C`.
pub fn names(agents: &[Agent]) -> String {
    match agents {
        [] => String::new(),
        [one] => one.name().to_owned(),
        [rest @ .., last] => {
            format!("{} and {}", rest.iter().map(|a| a.name()).collect::<Vec<_>>().join(", "), last.name())
        }
    }
}
