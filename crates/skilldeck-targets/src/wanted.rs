//! `Wanted`: a skill chosen for the targets, at the store's current revision, and the set of
//! them by name. Beneath `source`, which chooses them, and `keep`, which keeps edits of them.

use serde::Serialize;
use skilldeck_skill::{Revision, Scope, SkillName};
use std::collections::BTreeMap;

/// A skill chosen for the targets: the store's current revision of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Wanted {
    /// Its name (a valid skill name).
    pub name: SkillName,
    /// The scope it is stored in (user shadows system).
    pub scope: Scope,
    /// Its revision now.
    pub revision: Revision,
    /// Its tags (frontmatter `tags` or `metadata.tags`), for targets that take skills by tag.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// What an agent's listing reads of it, for fitting deliveries to listing budgets.
    #[serde(skip)]
    pub card: Card,
}

/// What an agent's skills listing reads of a skill: its description, `when_to_use` and
/// whether the model may invoke it; and what delivery that must choose weighs it by.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Card {
    /// Its `description`.
    pub description: String,
    /// Its `when_to_use`.
    pub when_to_use: Option<String>,
    /// `disable-model-invocation: true` is not set.
    pub model_invocable: bool,
    /// How many warnings the validator gives it.
    pub warnings: usize,
}

/// The chosen skills, by name.
pub type WantedSet = BTreeMap<String, Wanted>;
