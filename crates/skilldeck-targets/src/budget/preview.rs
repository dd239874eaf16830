//! What one skill's entry becomes in each agent's listing, alone and at the agent's default
//! budget: the live preview an author sees while writing the description.

use crate::budget::rules::{Found, Listed, Override, Shown};
use crate::budget::{claude, codex, gemini};
use serde::Serialize;

/// One agent's listing entry for the skill.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct AgentLine {
    /// The agent's id (`claude-code`, `codex`, `gemini`).
    pub agent: &'static str,
    /// Its name as people know it.
    pub label: &'static str,
    /// The entry as the agent would list it (estimated where the agent does not publish it).
    pub line: String,
    /// Whether the description is cut (or left out) in it.
    pub cut: bool,
    /// The characters of description kept, when cut.
    #[ts(type = "number | null")]
    pub limit: Option<usize>,
    /// `full`, `shortened`, `name-only`, `omitted` or `hidden`.
    pub shown: &'static str,
}

/// The entry of the skill `name` with `description` (and Claude Code's `when_to_use`) in
/// Claude Code's, Codex's and Gemini CLI's listings, each with only this skill in it.
pub fn alone(name: &str, description: &str, when_to_use: Option<&str>, model_invocable: bool) -> Vec<AgentLine> {
    let listed = Listed {
        name: name.to_owned(),
        description: description.to_owned(),
        when_to_use: when_to_use.map(str::to_owned),
        model_invocable,
        implicit_invocation: true,
        setting: Override::On,
        found: Found::User,
        skill_md: std::path::PathBuf::from(format!("~/.agents/skills/{name}/SKILL.md")),
    };
    let one = std::slice::from_ref(&listed);
    let (unit, budget) = codex::budget(Some(codex::DEFAULT_WINDOW));
    let fates = [
        ("claude-code", "Claude Code", claude::simulate(one, claude::budget_chars(claude::DEFAULT_WINDOW))),
        ("codex", "Codex", codex::simulate(one, unit, budget)),
        ("gemini", "Gemini CLI", gemini::simulate(one)),
    ];
    let text = match when_to_use.map(str::trim).filter(|w| !w.is_empty()) {
        Some(w) => format!("{} {w}", description.trim()),
        None => description.trim().to_owned(),
    };
    fates
        .into_iter()
        .map(|(agent, label, sim)| {
            let shown = sim.skills.first().map_or(Shown::Omitted, |s| s.worst);
            // Only Claude Code lists `when_to_use`.
            let own = if agent == "claude-code" { text.as_str() } else { description.trim() };
            let (line, cut, limit) = match shown {
                Shown::Full => (format!("- {name}: {own}"), false, None),
                Shown::Shortened { kept, .. } => {
                    (format!("- {name}: {}…", own.chars().take(kept).collect::<String>()), true, Some(kept))
                }
                Shown::NameOnly => (format!("- {name}"), true, Some(0)),
                Shown::Omitted | Shown::Hidden { .. } => (String::new(), true, Some(0)),
            };
            AgentLine { agent, label, line, cut, limit, shown: shown.as_str() }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_description_is_cut_where_claude_code_cuts_it() {
        let long = "x".repeat(2000);
        let lines = alone("pdf", &long, None, true);
        let claude = lines.iter().find(|l| l.agent == "claude-code").unwrap();
        assert!(claude.cut && claude.limit == Some(claude::MAX_DESCRIPTION), "{claude:?}");
        let short = alone("pdf", "Reads PDFs.", Some("When a PDF is named."), true);
        assert!(short.iter().all(|l| !l.cut), "{short:?}");
        assert_eq!(short[0].line, "- pdf: Reads PDFs. When a PDF is named.");
        let hidden = alone("pdf", "Reads PDFs.", None, false);
        assert!(hidden[0].cut && hidden[0].line.is_empty(), "{hidden:?}");
    }
}
