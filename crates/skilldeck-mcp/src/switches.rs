//! Turning a skill off (or back on) in an agent's own settings, without deleting it: Claude
//! Code's `skillOverrides` in its `settings.json` (each key a skill name, each value `"on"`,
//! `"name-only"`, `"user-invocable-only"` or `"off"`; a skill not named is on —
//! <https://code.claude.com/docs/en/skills#override-skill-visibility-from-settings>), and
//! Codex's `[[skills.config]]` entries in `config.toml`, `name = "…"` with `enabled = false`
//! (`codex-rs/core-skills/src/config_rules.rs` of `openai/codex`: an entry names a skill by
//! `name` or `path`, never both; the last entry for a skill wins).
//!
//! These are the user's files: edited with the same care as the MCP installer's (`install`):
//! only the one entry changes, comments and formatting stay, a file that does not parse is
//! never written, a backup comes first, and the change is planned (and shown) before it is
//! made.

use crate::install::text::Text;
use crate::install::{EditError, InstallError, check_writable, json, read, text_of, write_planned};
use serde::Serialize;
use std::path::{Path, PathBuf};
use toml_edit::{ArrayOfTables, DocumentMut, Item, Table};

/// An agent whose own per-skill switch Skilldeck can write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Agent {
    /// Claude Code (`skillOverrides`).
    ClaudeCode,
    /// Codex (`[[skills.config]]`).
    Codex,
}

impl Agent {
    /// Every such agent.
    pub const ALL: [Agent; 2] = [Agent::ClaudeCode, Agent::Codex];

    /// The agent for an id (`claude-code`, `codex`).
    pub fn parse(id: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|a| a.id() == id)
    }

    /// Its id, as `skilldeck targets` names it.
    pub fn id(self) -> &'static str {
        match self {
            Self::ClaudeCode => "claude-code",
            Self::Codex => "codex",
        }
    }

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            Self::ClaudeCode => "Claude Code",
            Self::Codex => "Codex",
        }
    }
}

/// What a skill is set to in the agent's settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Switch {
    /// Listed as the skill says (the setting taken away).
    On,
    /// Listed by its name only (Claude Code).
    NameOnly,
    /// Kept from the model, still the user's to invoke (Claude Code).
    UserInvocableOnly,
    /// Off: neither listed nor invocable.
    Off,
}

impl Switch {
    /// Claude Code's word for it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::On => "on",
            Self::NameOnly => "name-only",
            Self::UserInvocableOnly => "user-invocable-only",
            Self::Off => "off",
        }
    }

    fn parse(word: &str) -> Option<Self> {
        [Self::On, Self::NameOnly, Self::UserInvocableOnly, Self::Off].into_iter().find(|s| s.as_str() == word)
    }
}

/// Why a switch was not written. Nothing was.
#[derive(Debug, thiserror::Error)]
pub enum SwitchError {
    /// The settings file does not parse.
    #[error("{path} does not parse ({message}); it was not changed. Fix it, or change the setting in {agent} itself")]
    Unparsable {
        /// The file.
        path: PathBuf,
        /// The parser's message.
        message: String,
        /// The agent's name.
        agent: &'static str,
    },
    /// Anything else: a shape Skilldeck will not edit, a read-only file, a file that changed
    /// meanwhile, reading or writing failing.
    #[error(transparent)]
    File(InstallError),
}

impl SwitchError {
    fn of(agent: Agent) -> impl Fn(InstallError) -> Self {
        move |e| match e {
            InstallError::Unparsable { path, message } => Self::Unparsable { path, message, agent: agent.name() },
            other => Self::File(other),
        }
    }
}

/// Claude Code's key in its settings.
const CLAUDE_KEY: &str = "skillOverrides";

/// A change worked out and not yet written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SwitchPlan {
    /// The agent.
    pub agent: Agent,
    /// The skill.
    pub skill: String,
    /// What it is set to.
    pub to: Switch,
    /// The settings file (a symbolic link's target).
    pub path: PathBuf,
    /// Its bytes now (`None`: it does not exist).
    pub before: Option<Vec<u8>>,
    /// Its text afterwards.
    pub after: String,
    /// Whether anything changes.
    pub changed: bool,
}

/// The plan setting `skill` to `to` in `agent`'s settings file `file`. Codex has only on and
/// off. A file that does not parse, or is not shaped as the agent's settings are, is refused.
pub fn plan(agent: Agent, file: &Path, skill: &str, to: Switch) -> Result<SwitchPlan, SwitchError> {
    plan_inner(agent, file, skill, to).map_err(SwitchError::of(agent))
}

fn plan_inner(agent: Agent, file: &Path, skill: &str, to: Switch) -> Result<SwitchPlan, InstallError> {
    let skill = skill.trim();
    if skill.is_empty() {
        return Err(InstallError::Shape { path: file.to_owned(), message: "no skill name was given".to_owned() });
    }
    if agent == Agent::Codex && !matches!(to, Switch::On | Switch::Off) {
        return Err(InstallError::Shape {
            path: file.to_owned(),
            message: format!("Codex has no `{}` setting for a skill, only on and off", to.as_str()),
        });
    }
    let (path, before) = read(file)?;
    let text = match &before {
        Some(b) => text_of(&path, b)?,
        None => Text::new(String::new()),
    };
    let edited = match agent {
        Agent::ClaudeCode => claude_set(text.body(), skill, to),
        Agent::Codex => codex_set(text.body(), skill, to == Switch::On),
    }
    .map_err(|e| InstallError::edit(&path, e))?;
    let changed = edited != text.body();
    let after = if changed { text.restore(edited) } else { text.into_original() };
    if changed {
        check_writable(&path)?;
    }
    Ok(SwitchPlan { agent, skill: skill.to_owned(), to, path, before, after, changed })
}

/// Writes the plan (a backup of the old file first); nothing when it changes nothing. Returns
/// the backup's path, when one was made. Refuses when the file changed since the plan.
pub fn apply(plan: &SwitchPlan) -> Result<Option<PathBuf>, SwitchError> {
    if !plan.changed {
        return Ok(None);
    }
    write_planned(&plan.path, plan.before.as_deref(), &plan.after).map_err(SwitchError::of(plan.agent))
}

/// Every skill `agent`'s settings file `file` names, with its setting, in the file's order.
pub fn list(agent: Agent, file: &Path) -> Result<Vec<(String, Switch)>, SwitchError> {
    list_inner(agent, file).map_err(SwitchError::of(agent))
}

fn list_inner(agent: Agent, file: &Path) -> Result<Vec<(String, Switch)>, InstallError> {
    let (path, before) = read(file)?;
    let Some(bytes) = before else { return Ok(Vec::new()) };
    let text = text_of(&path, &bytes)?;
    let got = match agent {
        Agent::ClaudeCode => json::read_object(text.body(), CLAUDE_KEY, false).map(|m| {
            m.unwrap_or_default()
                .into_iter()
                .filter_map(|(k, v)| v.as_str().and_then(Switch::parse).map(|s| (k, s)))
                .collect()
        }),
        Agent::Codex => codex_list(text.body()),
    };
    got.map_err(|e| InstallError::edit(&path, e))
}

/// Claude Code: `skillOverrides[skill]` set to the word, or removed for `on`.
fn claude_set(text: &str, skill: &str, to: Switch) -> Result<String, EditError> {
    match to {
        Switch::On => json::remove_member(text, CLAUDE_KEY, skill, false),
        _ => {
            let now = json::read_member(text, CLAUDE_KEY, skill, false)?;
            if now.as_ref().and_then(|v| v.as_str()) == Some(to.as_str()) {
                return Ok(text.to_owned());
            }
            json::set_member(text, CLAUDE_KEY, skill, false, &serde_json::Value::from(to.as_str()))
        }
    }
}

fn parse_toml(text: &str) -> Result<DocumentMut, EditError> {
    text.parse::<DocumentMut>().map_err(|e| EditError::Unparsable(e.to_string().trim_end().to_owned()))
}

/// Codex's `[[skills.config]]` array, when present; a shape it cannot edit is an error.
fn codex_entries(doc: &DocumentMut) -> Result<Option<&ArrayOfTables>, EditError> {
    let Some(skills) = doc.get("skills") else { return Ok(None) };
    let Some(skills) = skills.as_table_like() else {
        return Err(EditError::Shape("`skills` is not a table".to_owned()));
    };
    match skills.get("config") {
        None => Ok(None),
        Some(Item::ArrayOfTables(a)) => Ok(Some(a)),
        Some(_) => Err(EditError::Shape(
            "`skills.config` is not written as [[skills.config]] tables; edit it by hand".to_owned(),
        )),
    }
}

fn entry_name(t: &Table) -> Option<&str> {
    t.get("name").and_then(Item::as_str).map(str::trim)
}

/// Codex: `off` sets `enabled = false` on the skill's entry (made, last, when missing); `on`
/// removes the entries naming it that hold only `name` and `enabled`, and sets `enabled =
/// true` on any other.
fn codex_set(text: &str, skill: &str, on: bool) -> Result<String, EditError> {
    let mut doc = parse_toml(text)?;
    let exists = codex_entries(&doc)?.is_some_and(|a| a.iter().any(|t| entry_name(t) == Some(skill)));
    if on && !exists {
        return Ok(text.to_owned());
    }
    if !exists {
        let skills = doc.entry("skills").or_insert_with(|| {
            let mut t = Table::new();
            t.set_implicit(true);
            Item::Table(t)
        });
        let skills =
            skills.as_table_like_mut().ok_or_else(|| EditError::Shape("`skills` is not a table".to_owned()))?;
        let config = skills.entry("config").or_insert(Item::ArrayOfTables(ArrayOfTables::new()));
        let config =
            config.as_array_of_tables_mut().ok_or_else(|| EditError::Shape("`skills.config` is odd".into()))?;
        let mut t = Table::new();
        t.insert("name", toml_edit::value(skill));
        t.insert("enabled", toml_edit::value(false));
        config.push(t);
        return Ok(doc.to_string());
    }
    let config = doc
        .get_mut("skills")
        .and_then(Item::as_table_like_mut)
        .and_then(|s| s.get_mut("config"))
        .and_then(Item::as_array_of_tables_mut)
        .ok_or_else(|| EditError::Shape("`skills.config` is odd".into()))?;
    if on {
        config.retain(|t| entry_name(t) != Some(skill) || t.iter().any(|(k, _)| k != "name" && k != "enabled"));
    }
    for t in config.iter_mut().filter(|t| entry_name(t) == Some(skill)) {
        if t.get("enabled").and_then(Item::as_bool) != Some(on) {
            t.insert("enabled", toml_edit::value(on));
        }
    }
    Ok(doc.to_string())
}

fn codex_list(text: &str) -> Result<Vec<(String, Switch)>, EditError> {
    let doc = parse_toml(text)?;
    let mut out: Vec<(String, Switch)> = Vec::new();
    for t in codex_entries(&doc)?.into_iter().flat_map(ArrayOfTables::iter) {
        let Some(name) = entry_name(t) else { continue };
        let on = t.get("enabled").and_then(Item::as_bool).unwrap_or(true);
        out.retain(|(n, _)| n != name);
        out.push((name.to_owned(), if on { Switch::On } else { Switch::Off }));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_overrides_change_one_key_and_keep_the_rest_byte_for_byte() {
        let text = "{\n    \"model\": \"opus\",\n    \"skillOverrides\": {\n        \"keep\": \"name-only\"\n    },\n    \"env\": {}\n}\n";
        let off = claude_set(text, "deploy", Switch::Off).unwrap_or_default();
        assert!(off.contains("\"deploy\": \"off\""), "{off}");
        assert!(
            off.starts_with("{\n    \"model\": \"opus\",\n    \"skillOverrides\": {\n        \"keep\": \"name-only\",")
        );
        assert!(off.ends_with("\n    },\n    \"env\": {}\n}\n"), "{off}");
        assert_eq!(claude_set(&off, "deploy", Switch::On).unwrap_or_default(), text);
        assert_eq!(claude_set(text, "keep", Switch::NameOnly).unwrap_or_default(), text, "already so");
        assert!(matches!(claude_set("{ // no\n}", "x", Switch::Off), Err(EditError::Unparsable(_))));
        assert!(matches!(claude_set("{\"skillOverrides\": []}", "x", Switch::Off), Err(EditError::Shape(_))));
        let fresh = claude_set("", "x", Switch::Off).unwrap_or_default();
        assert_eq!(fresh, "{\n  \"skillOverrides\": {\n    \"x\": \"off\"\n  }\n}\n");
    }

    #[test]
    fn a_settings_file_with_a_key_twice_is_refused_naming_the_line() {
        // Claude Code reads the last `skillOverrides`; editing the first would change nothing it
        // reads and still report success.
        let text = "{\n  \"skillOverrides\": {\"a\": \"off\"},\n  \"model\": \"x\",\n  \"skillOverrides\": {}\n}\n";
        let err = claude_set(text, "deploy", Switch::Off).unwrap_err().to_string();
        assert!(err.contains("\"skillOverrides\" appears twice") && err.contains("line 4"), "{err}");
        let nested = "{\"skillOverrides\": {\"deploy\": \"off\",\n \"deploy\": \"on\"}}";
        let err = claude_set(nested, "deploy", Switch::On).unwrap_err().to_string();
        assert!(err.contains("\"deploy\" appears twice") && err.contains("line 2"), "{err}");
    }

    #[test]
    fn codex_entries_are_added_and_taken_back_keeping_comments() {
        let text = "# my codex\nmodel = \"gpt-5\" # fast\n\n[mcp_servers.x]\ncommand = \"x\"\n";
        let off = codex_set(text, "pdf", false).unwrap_or_default();
        assert!(off.starts_with(text), "{off}");
        assert!(off.ends_with("[[skills.config]]\nname = \"pdf\"\nenabled = false\n"), "{off}");
        assert_eq!(codex_list(&off).unwrap_or_default(), vec![("pdf".to_owned(), Switch::Off)]);
        assert_eq!(codex_set(&off, "pdf", false).unwrap_or_default(), off, "already off");
        let on = codex_set(&off, "pdf", true).unwrap_or_default();
        assert_eq!(codex_list(&on).unwrap_or_default(), vec![]);
        assert!(on.starts_with(text));
        // An entry with more than a name keeps them, switched on.
        let other = "[[skills.config]]\nname = \"pdf\"\nenabled = false\nnote = \"mine\"\n";
        let on = codex_set(other, "pdf", true).unwrap_or_default();
        assert_eq!(on, "[[skills.config]]\nname = \"pdf\"\nenabled = true\nnote = \"mine\"\n");
        assert!(matches!(codex_set("[skills\n", "pdf", false), Err(EditError::Unparsable(_))));
        assert!(matches!(codex_set("skills = 1\n", "pdf", false), Err(EditError::Shape(_))));
    }
}
