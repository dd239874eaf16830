//! What the watcher reports: a changed skill or scope, config.toml or trust.json, as values.

use crate::storage::Scope;

/// One changed skill, or a whole scope when the name is unknown.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub struct SkillChange {
    /// The scope.
    pub scope: Scope,
    /// The skill's folder name; `None` when the change is to the scope itself.
    pub name: Option<String>,
}

/// Something in the store that changed on disk.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum StoreChange {
    /// A skill, or a whole scope.
    Skill(SkillChange),
    /// `config.toml` (the per-skill switches, listing options, providers).
    Config,
    /// `trust.json` (the approvals of skills' requested tools).
    Trust,
}
