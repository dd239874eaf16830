//! The agents' own per-skill switches, read from their settings files (never written here):
//! Claude Code's `skillOverrides` in `settings.json` (values `on`, `name-only`,
//! `user-invocable-only`, `off`; a skill not named is `on` —
//! <https://code.claude.com/docs/en/skills#override-skill-visibility-from-settings>), and
//! Codex's `[[skills.config]]` entries in `config.toml`, each with a `name` (or a `path`) and
//! `enabled` (`codex-rs/core-skills/src/config_rules.rs` of `openai/codex`).

use crate::budget::rules::{Override, Unit};
use crate::env::Env;
use crate::known::PathRule;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Claude Code's user settings file: `$CLAUDE_CONFIG_DIR/settings.json`, default
/// `~/.claude/settings.json`.
pub fn claude_settings(env: &Env) -> Option<PathBuf> {
    PathRule::EnvOrHome { var: "CLAUDE_CONFIG_DIR", home_rel: ".claude", sub: "settings.json" }.resolve(env)
}

/// Codex's config file: `$CODEX_HOME/config.toml`, default `~/.codex/config.toml`.
pub fn codex_config(env: &Env) -> Option<PathBuf> {
    PathRule::EnvOrHome { var: "CODEX_HOME", home_rel: ".codex", sub: "config.toml" }.resolve(env)
}

/// A listing budget an agent's own settings set, in place of its share of the context window.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, ts_rs::TS)]
pub struct BudgetSetting {
    /// The budget, in `unit`.
    pub size: usize,
    /// Its unit.
    pub unit: Unit,
    /// The setting, as written (`SLASH_COMMAND_TOOL_CHAR_BUDGET=20000`).
    pub from: String,
}

/// Claude Code's listing budget when `SLASH_COMMAND_TOOL_CHAR_BUDGET` pins it, in characters
/// (<https://code.claude.com/docs/en/skills#skill-descriptions-are-cut-short>); a value that
/// is not a positive whole number is not read.
pub fn claude_budget(env: &Env) -> Option<BudgetSetting> {
    const VAR: &str = "SLASH_COMMAND_TOOL_CHAR_BUDGET";
    let size = env.var_text(VAR)?.trim().parse::<usize>().ok().filter(|n| *n > 0)?;
    Some(BudgetSetting { size, unit: Unit::Chars, from: format!("{VAR}={size}") })
}

/// The most tokens Codex's `[skills] max_context_tokens` may set ("capped at 10,000 tokens
/// when set": `SkillsConfig::max_context_tokens` in `codex-rs/config/src/skills_config.rs`).
pub const CODEX_MAX_CONTEXT_TOKENS: usize = 10_000;

/// The files Claude Code reads `skillOverrides` from, later ones winning: the user's
/// settings, then a project's shared and local settings.
pub fn claude_files(env: &Env, project: Option<&Path>) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = claude_settings(env).into_iter().collect();
    if let Some(p) = project {
        out.push(p.join(".claude/settings.json"));
        out.push(p.join(".claude/settings.local.json"));
    }
    out
}

/// Gemini CLI's settings files: the user's `~/.gemini/settings.json`, then the workspace's
/// `.gemini/settings.json`.
pub fn gemini_files(env: &Env, project: Option<&Path>) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = PathRule::Home(".gemini/settings.json").resolve(env).into_iter().collect();
    if let Some(p) = project {
        out.push(p.join(".gemini/settings.json"));
    }
    out
}

/// What Gemini CLI's settings say of skills: whether they are on at all (`skills.enabled`,
/// the last file saying so winning) and the names `skills.disabled` lists (a union over the
/// files, lower-cased: Gemini CLI compares them in any case). A file that does not parse is
/// an error naming it.
pub fn gemini(files: &[PathBuf]) -> Result<(bool, std::collections::BTreeSet<String>), String> {
    let mut enabled = true;
    let mut disabled = std::collections::BTreeSet::new();
    for path in files {
        let Some(text) = read(path)? else { continue };
        if text.trim().is_empty() {
            continue;
        }
        let doc: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
            format!("{} does not parse as JSON ({e}); its skills settings were not read", path.display())
        })?;
        let skills = doc.get("skills");
        if let Some(on) = skills.and_then(|s| s.get("enabled")).and_then(serde_json::Value::as_bool) {
            enabled = on;
        }
        let names = skills.and_then(|s| s.get("disabled")).and_then(serde_json::Value::as_array);
        disabled.extend(names.into_iter().flatten().filter_map(|n| n.as_str()).map(str::to_lowercase));
    }
    Ok((enabled, disabled))
}

/// The word Claude Code writes for an override.
pub fn claude_word(o: Override) -> &'static str {
    match o {
        Override::On => "on",
        Override::NameOnly => "name-only",
        Override::UserOnly => "user-invocable-only",
        Override::Off => "off",
    }
}

/// The override a Claude Code word stands for.
pub fn claude_override(word: &str) -> Option<Override> {
    match word {
        "on" => Some(Override::On),
        "name-only" => Some(Override::NameOnly),
        "user-invocable-only" => Some(Override::UserOnly),
        "off" => Some(Override::Off),
        _ => None,
    }
}

fn read(path: &Path) -> Result<Option<String>, String> {
    match std::fs::read_to_string(path) {
        Ok(t) => Ok(Some(t)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("could not read {}: {e}", path.display())),
    }
}

/// Claude Code's `skillOverrides` from `files` (missing files skipped), later files winning.
/// A file that does not parse is an error naming it; values it does not know are skipped.
pub fn claude(files: &[PathBuf]) -> Result<BTreeMap<String, Override>, String> {
    let mut out = BTreeMap::new();
    for path in files {
        let Some(text) = read(path)? else { continue };
        if text.trim().is_empty() {
            continue;
        }
        let doc: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
            format!("{} does not parse as JSON ({e}); its skillOverrides were not read", path.display())
        })?;
        if let Some(map) = doc.get("skillOverrides").and_then(serde_json::Value::as_object) {
            for (name, v) in map {
                if let Some(o) = v.as_str().and_then(claude_override) {
                    out.insert(name.clone(), o);
                }
            }
        }
    }
    Ok(out)
}

/// The skill names Codex's `config.toml` switches off (`[[skills.config]]` with a `name` and
/// `enabled = false`; a later entry for the same name wins). Entries naming a `path` are
/// matched by the caller against the skill's `SKILL.md`.
pub fn codex(path: &Path) -> Result<CodexSwitches, String> {
    let Some(text) = read(path)? else { return Ok(CodexSwitches::default()) };
    let doc: toml::Table = toml::from_str(&text).map_err(|e| {
        format!("{} does not parse as TOML ({}); its skills.config was not read", path.display(), e.message())
    })?;
    let mut out = CodexSwitches::default();
    let skills = doc.get("skills");
    out.bundled_off =
        skills.and_then(|s| s.get("bundled")).and_then(|b| b.get("enabled")).and_then(toml::Value::as_bool)
            == Some(false);
    let max = skills.and_then(|s| s.get("max_context_tokens")).and_then(toml::Value::as_integer);
    if let Some(n) = max.and_then(|n| usize::try_from(n).ok()).filter(|n| *n > 0) {
        let size = n.min(CODEX_MAX_CONTEXT_TOKENS);
        out.budget =
            Some(BudgetSetting { size, unit: Unit::Tokens, from: format!("[skills] max_context_tokens = {n}") });
    }
    let entries = skills.and_then(|s| s.get("config")).and_then(toml::Value::as_array);
    for e in entries.into_iter().flatten() {
        let enabled = e.get("enabled").and_then(toml::Value::as_bool).unwrap_or(true);
        match (e.get("name").and_then(toml::Value::as_str), e.get("path").and_then(toml::Value::as_str)) {
            (Some(name), None) => {
                out.names.insert(name.trim().to_owned(), enabled);
            }
            (None, Some(p)) => {
                out.paths.insert(PathBuf::from(p), enabled);
            }
            _ => {}
        }
    }
    Ok(out)
}

/// What Codex's `[skills]` table says: `[[skills.config]]` by skill name and by `SKILL.md`
/// path, whether `[skills.bundled] enabled = false` removes its system skills, and a budget
/// set by `max_context_tokens`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CodexSwitches {
    /// `enabled` by name.
    pub names: BTreeMap<String, bool>,
    /// `enabled` by path.
    pub paths: BTreeMap<PathBuf, bool>,
    /// `[skills.bundled] enabled = false`: no system skills.
    pub bundled_off: bool,
    /// `[skills] max_context_tokens`, capped as Codex caps it.
    pub budget: Option<BudgetSetting>,
}

impl CodexSwitches {
    /// The override for a skill named `name` at `skill_md`: a name entry wins over a path one.
    pub fn get(&self, name: &str, skill_md: &Path) -> Override {
        let enabled = self.names.get(name).or_else(|| self.paths.get(skill_md)).copied().unwrap_or(true);
        if enabled { Override::On } else { Override::Off }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_overrides_are_read_and_later_files_win() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| unreachable!("{e}"));
        let a = dir.path().join("a.json");
        let b = dir.path().join("b.json");
        std::fs::write(&a, r#"{"skillOverrides": {"x": "off", "y": "name-only", "z": "weird"}}"#).ok();
        std::fs::write(&b, r#"{"skillOverrides": {"x": "on"}}"#).ok();
        let got = claude(&[a, b, dir.path().join("missing.json")]).unwrap_or_default();
        assert_eq!(got.get("x"), Some(&Override::On));
        assert_eq!(got.get("y"), Some(&Override::NameOnly));
        assert_eq!(got.get("z"), None);
    }

    #[test]
    fn codex_switches_by_name_and_path() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| unreachable!("{e}"));
        let c = dir.path().join("config.toml");
        let text = "model = \"x\"\n[[skills.config]]\nname = \"pdf\"\nenabled = false\n[[skills.config]]\npath = \"/s/doc/SKILL.md\"\nenabled = false\n";
        std::fs::write(&c, text).ok();
        let got = codex(&c).unwrap_or_default();
        assert_eq!(got.get("pdf", Path::new("/any")), Override::Off);
        assert_eq!(got.get("doc", Path::new("/s/doc/SKILL.md")), Override::Off);
        assert_eq!(got.get("other", Path::new("/s/other/SKILL.md")), Override::On);
        std::fs::write(&c, "[[skills.config\n").ok();
        assert!(codex(&c).is_err());
        std::fs::write(&c, "[skills]\nmax_context_tokens = 50000\n[skills.bundled]\nenabled = false\n").ok();
        let got = codex(&c).unwrap_or_default();
        assert!(got.bundled_off);
        assert_eq!(got.budget.map(|b| (b.size, b.unit)), Some((10_000, Unit::Tokens)), "capped at 10,000");
    }

    #[test]
    fn claude_code_budget_is_the_variable_when_it_is_a_positive_number() {
        let env = Env::with_home("/h");
        assert_eq!(claude_budget(&env), None);
        let set = |v: &str| claude_budget(&env.clone().var_set("SLASH_COMMAND_TOOL_CHAR_BUDGET", v)).map(|b| b.size);
        assert_eq!(set("30000"), Some(30_000));
        assert_eq!(set("0"), None);
        assert_eq!(set("lots"), None);
    }
}
