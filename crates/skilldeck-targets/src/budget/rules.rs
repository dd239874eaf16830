//! What the budget rules share: one skill as an agent's listing reads it, what the listing does
//! to it, and which agents' rules are known, with their defaults and where each comes from.

use serde::Serialize;
use std::path::PathBuf;

/// Where a skill was found, as the agent ranks its listing (Codex puts repository skills
/// before the user's, and the user's before its own system skills, when it has to leave some
/// out: `scope_rank` in `codex-rs/core-skills/src/loader.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, ts_rs::TS)]
#[serde(rename_all = "kebab-case")]
pub enum Found {
    /// A project's folder.
    Repo,
    /// The user's own folder.
    User,
    /// The agent's own skills, installed by the agent itself (Codex's system skills under
    /// `$CODEX_HOME/skills/.system`).
    System,
    /// A skill of a plugin enabled in the agent (Claude Code's plugins): the agent's own too.
    Plugin,
}

impl Found {
    /// Whether the skill is the agent's own (system or plugin) rather than in a skills folder
    /// Skilldeck delivers to.
    pub fn agent_own(self) -> bool {
        matches!(self, Self::System | Self::Plugin)
    }
}

/// What the agent's own settings say about a skill (Claude Code's `skillOverrides`, Codex's
/// `[[skills.config]]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Override {
    /// Nothing said, or `"on"`: listed as the skill says.
    On,
    /// Listed by name only (Claude Code `"name-only"`).
    NameOnly,
    /// Kept from the model, still the user's to invoke (Claude Code `"user-invocable-only"`).
    UserOnly,
    /// Switched off (Claude Code `"off"`, Codex `enabled = false`).
    Off,
}

/// One skill as an agent's listing reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    /// Its name.
    pub name: String,
    /// Its `description`.
    pub description: String,
    /// Its `when_to_use` (Claude Code lists it with the description).
    pub when_to_use: Option<String>,
    /// `disable-model-invocation: true` is not set.
    pub model_invocable: bool,
    /// Codex's `agents/openai.yaml` does not say `policy.allow_implicit_invocation: false`
    /// (`codex_yaml::implicit_invocation`).
    pub implicit_invocation: bool,
    /// What the agent's settings say about it.
    pub setting: Override,
    /// Where it was found.
    pub found: Found,
    /// Its `SKILL.md`, as the agent names it in the listing (Codex writes the path).
    pub skill_md: PathBuf,
}

/// Why a skill is not in the model's listing at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "kebab-case")]
pub enum HiddenBy {
    /// `disable-model-invocation: true`: only the user invokes it.
    UserInvokedOnly,
    /// Codex's `agents/openai.yaml` says `policy.allow_implicit_invocation: false`: only the
    /// user invokes it (`$name`).
    NoImplicitInvocation,
    /// The agent's settings keep it from the model (`user-invocable-only`).
    SettingUserOnly,
    /// Switched off in the agent's settings.
    SettingOff,
}

/// What the listing does to one skill.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(tag = "shown", rename_all = "kebab-case")]
#[ts(rename = "BudgetShown")]
pub enum Shown {
    /// Its whole description.
    Full,
    /// The first `kept` of its `of` description characters.
    Shortened {
        /// Characters kept.
        kept: usize,
        /// Characters it has.
        of: usize,
    },
    /// Its name, no description: the model has nothing to match a request against.
    NameOnly,
    /// Not listed at all, for lack of room.
    Omitted,
    /// Not listed, on purpose.
    Hidden {
        /// Why.
        by: HiddenBy,
    },
}

impl Shown {
    /// The state's word as shown (`full`, `shortened`, `name-only`, `omitted`, `hidden`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Full => "full",
            Self::Shortened { .. } => "shortened",
            Self::NameOnly => "name-only",
            Self::Omitted => "omitted",
            Self::Hidden { .. } => "hidden",
        }
    }

    /// Whether the model sees less than the skill's whole description (or nothing), for lack
    /// of room rather than on purpose.
    pub fn squeezed(self) -> bool {
        matches!(self, Self::Shortened { .. } | Self::NameOnly | Self::Omitted)
    }
}

/// One skill's fate in one agent's listing. Where the agent decides by use (Claude Code keeps
/// the descriptions of the skills used most), `best` is the skill used most and `worst` used
/// least; otherwise they are the same.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct SkillBudget {
    /// The skill.
    pub name: String,
    /// Its fate when the agent favours it.
    pub best: Shown,
    /// Its fate when the agent favours it least.
    pub worst: Shown,
    /// What its entry costs with its whole description, in the budget's unit.
    pub cost: usize,
    /// What its entry costs as a bare name, in the budget's unit.
    pub name_cost: usize,
    /// Where it was found (`repo`, `user`, or the agent's own: `system`, `plugin`).
    pub found: Found,
}

/// The unit a budget is counted in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "kebab-case")]
pub enum Unit {
    /// Characters.
    Chars,
    /// Estimated tokens (bytes / 4, rounded up).
    Tokens,
}

impl Unit {
    /// The unit's word.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Chars => "chars",
            Self::Tokens => "tokens",
        }
    }
}

/// An agent whose listing rule is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "kebab-case")]
pub enum Rule {
    /// Claude Code (see `claude`).
    ClaudeCode,
    /// Codex (see `codex`).
    Codex,
    /// Gemini CLI (see `gemini`): no cap, every skill listed whole.
    Gemini,
}

impl Rule {
    /// The rule for a known tool's id; `None` for tools whose listing rule is not published.
    pub fn for_target(id: &str) -> Option<Self> {
        match id {
            "claude-code" => Some(Self::ClaudeCode),
            "codex" => Some(Self::Codex),
            "gemini-cli" => Some(Self::Gemini),
            _ => None,
        }
    }

    /// Whether the agent decides by how often each skill is used (so the order is the agent's
    /// and only the best and worst cases can be shown).
    pub fn by_use(self) -> bool {
        matches!(self, Self::ClaudeCode)
    }
}

/// What one agent's rule does to a set of skills.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct Simulated {
    /// The unit everything is counted in.
    pub unit: Unit,
    /// The budget.
    pub budget: usize,
    /// What the listing would cost with every description whole.
    pub full: usize,
    /// What it costs with every listed skill as a bare name.
    pub names_only: usize,
    /// What it costs after the rule, when the agent favours the cheapest skills to keep (the
    /// most room used).
    pub used: usize,
    /// How many skills lose room (shortened, name only or left out): at least, and at most
    /// (they differ only where the agent decides by use).
    pub squeezed: (usize, usize),
    /// Each skill's fate, in the agent's listing order where it has one.
    pub skills: Vec<SkillBudget>,
}
