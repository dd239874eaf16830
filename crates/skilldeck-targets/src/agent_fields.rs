//! For a skill in a target's folder, what that target's agent will ignore or reject of it: the
//! frontmatter fields as `skilldeck validate --for AGENT` judges them (`skilldeck-skill`'s
//! `agents` table and `agent_rules`), and for Codex its `agents/openai.yaml` (`codex_yaml`).
//! Reads only.

use serde::Serialize;
use skilldeck_skill::agents::Agent;
use skilldeck_skill::codex_yaml;
use skilldeck_skill::validate::{ValidateOptions, validate_text_for};
use skilldeck_skill::{DiagCode, Severity};
use std::path::Path;

/// What the agent does with a field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// It does not read the field (or drops the value, or the file holding it).
    Ignored,
    /// It reads the field and the value is not one it accepts.
    Invalid,
}

/// One field the agent will ignore or reject.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct FieldVerdict {
    /// The frontmatter key (`model`), or `agents/openai.yaml: policy.products` for Codex's file.
    pub field: String,
    /// Ignored or invalid.
    pub verdict: Verdict,
    /// Why, in words (the `validate --for` diagnostic's message, citing its source).
    pub why: String,
}

/// The agent a known tool's target is (`claude-code`, `codex`, `gemini-cli`, `github-copilot`,
/// `cursor`); `None` for the others, whose reading of the frontmatter is not in the table, and
/// for the shared `agents` folders, which several agents read.
pub fn agent_for_target(id: &str) -> Option<Agent> {
    match id {
        "claude-code" => Some(Agent::ClaudeCode),
        "codex" => Some(Agent::Codex),
        "gemini-cli" => Some(Agent::Gemini),
        "github-copilot" => Some(Agent::Copilot),
        "cursor" => Some(Agent::Cursor),
        _ => None,
    }
}

/// The fields of the skill in `dir` that `agent` ignores or rejects, in the file's order; none
/// when its `SKILL.md` cannot be read.
pub fn check(agent: Agent, dir: &Path) -> Vec<FieldVerdict> {
    let Ok(text) = std::fs::read_to_string(dir.join("SKILL.md")) else { return Vec::new() };
    let validated = validate_text_for(&text, ValidateOptions::default(), Some(agent));
    let mut out: Vec<FieldVerdict> = validated
        .diagnostics
        .iter()
        // Only what the agent's own rules found: they name the agent or its readers.
        .filter(|d| d.args.get("agent").is_some() || d.args.get("read_by").is_some())
        .filter_map(|d| {
            let field = d.args.get("field")?.to_owned();
            let verdict = if d.severity == Severity::Error { Verdict::Invalid } else { Verdict::Ignored };
            Some(FieldVerdict { field, verdict, why: d.message.clone() })
        })
        .collect();
    if agent == Agent::Codex
        && let Ok(yaml) = std::fs::read_to_string(dir.join(codex_yaml::PATH))
    {
        out.extend(codex_yaml::check(&yaml).into_iter().map(|d| {
            let field = format!("{}: {}", codex_yaml::PATH, d.args.get("field").unwrap_or("the file"));
            let verdict = if d.code == DiagCode::FieldIgnored { Verdict::Ignored } else { Verdict::Invalid };
            FieldVerdict { field, verdict, why: d.message }
        }));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skill(frontmatter: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap_or_else(|e| unreachable!("{e}"));
        let text = format!("---\nname: {}\ndescription: Does a thing.\n{frontmatter}---\nBody.\n", "x");
        std::fs::write(dir.path().join("SKILL.md"), text).ok();
        dir
    }

    fn verdicts(agent: Agent, dir: &Path) -> Vec<(String, Verdict)> {
        check(agent, dir).into_iter().map(|v| (v.field, v.verdict)).collect()
    }

    /// Cases by hand from the table (`skilldeck_skill::agents::FIELDS`): Claude Code reads
    /// `model` and checks it; Codex reads neither `model` nor `when_to_use`; the spec's
    /// informational fields are never reported.
    #[test]
    fn each_agent_ignores_or_rejects_by_its_own_table() {
        let d = skill("model: gpt-9\nwhen_to_use: When asked.\nlicense: MIT\n");
        assert_eq!(verdicts(Agent::ClaudeCode, d.path()), [("model".to_owned(), Verdict::Invalid)]);
        assert_eq!(
            verdicts(Agent::Codex, d.path()),
            [("model".to_owned(), Verdict::Ignored), ("when_to_use".to_owned(), Verdict::Ignored)]
        );
        let d = skill("model: sonnet\n");
        assert!(verdicts(Agent::ClaudeCode, d.path()).is_empty());
        assert_eq!(verdicts(Agent::Gemini, d.path()), [("model".to_owned(), Verdict::Ignored)]);
    }

    #[test]
    fn codex_also_judges_its_openai_yaml() {
        let d = skill("");
        std::fs::create_dir_all(d.path().join("agents")).ok();
        std::fs::write(d.path().join("agents/openai.yaml"), "interface:\n  brand_color: red\nextra: 1\n").ok();
        assert_eq!(
            verdicts(Agent::Codex, d.path()),
            [
                ("agents/openai.yaml: interface.brand_color".to_owned(), Verdict::Invalid),
                ("agents/openai.yaml: extra".to_owned(), Verdict::Ignored)
            ]
        );
        assert!(verdicts(Agent::ClaudeCode, d.path()).is_empty(), "only Codex reads the file");
    }
}
