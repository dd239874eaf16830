//! What each agent's own skills listing does to the skills in its folders: which keep their
//! full description, which are shortened, which reach the model as bare names, and which are
//! left out, by that agent's published rule and its context window. Reads only.
//!
//! `rules` holds what is shared (a skill as the listing reads it, its fate, the agents whose
//! rule is known and where each rule comes from), `claude`, `codex` and `gemini` the agents' rules,
//! `overrides` what the agents' own settings switch off (and budgets they set), `own` the
//! agents' own skills (Codex's system skills, Claude Code's plugins' skills), `per_target` gathers a target's
//! skills from its folders and runs its rule, `usage` reads which skills each agent's user uses,
//! and `fit` chooses what a sync delivers so that each agent stays within its budget.

pub mod claude;
pub mod codex;
pub mod fit;
pub mod gemini;
pub mod overrides;
pub mod own;
pub mod per_target;
pub mod preview;
pub mod rules;
pub mod usage;

pub use per_target::{TargetBudget, budgets};
pub use rules::{Listed, Rule, Shown, SkillBudget, Unit};
