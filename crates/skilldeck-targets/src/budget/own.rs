//! The agents' own skills: in no folder Skilldeck delivers to, yet in the agent's listing all
//! the same, so they count against its budget and can be switched off in its settings.
//!
//! - Codex installs its system skills itself, from its binary, into `$CODEX_HOME/skills/.system`
//!   on every start (`install_system_skills` / `system_cache_root_dir` in
//!   `codex-rs/skills/src/lib.rs` of `openai/codex`), and reads them as a root of their own
//!   with `SkillScope::System`, after the repository's and the user's skills
//!   (`skill_roots_from_layer_stack_inner` and `scope_rank` in
//!   `codex-rs/core-skills/src/loader.rs`; hidden folders such as `.system` are skipped when
//!   `$CODEX_HOME/skills` itself is read). `[skills.bundled] enabled = false` in `config.toml`
//!   removes them (`BundledSkillsConfig`, `codex-rs/config/src/skills_config.rs`); deleting
//!   them does not, as the next start puts them back.
//! - Claude Code loads the skills of each enabled plugin: a plugin `name@marketplace` is
//!   installed under `~/.claude/plugins` (the record `plugins/installed_plugins.json`, each
//!   install with its `scope`, a `projectPath` for project installs, and its `installPath`
//!   in `plugins/cache/`) and enabled by `"enabledPlugins": {"name@marketplace": true}` in the
//!   user's, the project's or the local settings, later ones winning
//!   (<https://code.claude.com/docs/en/plugins/loading>). Its skills are
//!   `skills/<folder>/SKILL.md` in the plugin, named `plugin:folder`
//!   (<https://code.claude.com/docs/en/skills>, "Plugin `skills/` subdirectory: directory
//!   name, namespaced by plugin").

use crate::budget::overrides;
use crate::budget::rules::Found;
use crate::env::Env;
use crate::known::PathRule;
use skilldeck_skill::validate::{ValidateOptions, validate_text};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One of an agent's own skills.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnSkill {
    /// Its folder's name, namespaced as the agent lists it (`plugin:folder` for a plugin's).
    pub name: String,
    /// Its `SKILL.md`.
    pub skill_md: PathBuf,
    /// `System` (Codex) or `Plugin` (Claude Code).
    pub found: Found,
    /// Where it comes from: `system`, or the plugin's id (`name@marketplace`).
    pub from: String,
}

/// Codex's system skills folder: `$CODEX_HOME/skills/.system`, default `~/.codex/skills/.system`.
pub fn codex_system_root(env: &Env) -> Option<PathBuf> {
    PathRule::EnvOrHome { var: "CODEX_HOME", home_rel: ".codex", sub: "skills/.system" }.resolve(env)
}

/// Claude Code's plugins folder: `$CLAUDE_CONFIG_DIR/plugins`, default `~/.claude/plugins`.
pub fn claude_plugins_root(env: &Env) -> Option<PathBuf> {
    PathRule::EnvOrHome { var: "CLAUDE_CONFIG_DIR", home_rel: ".claude", sub: "plugins" }.resolve(env)
}

/// The skill folders in `dir` (not hidden, holding a `SKILL.md`), by name.
fn skill_dirs(dir: &Path) -> Vec<(String, PathBuf)> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut out: Vec<(String, PathBuf)> = entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().to_str()?.to_owned();
            let skill_md = e.path().join("SKILL.md");
            (!name.starts_with('.') && skill_md.is_file()).then_some((name, skill_md))
        })
        .collect();
    out.sort();
    out
}

/// Codex's system skills, when Codex has installed them and `[skills.bundled]` does not
/// switch them off (`bundled`: what config.toml says, `true` when silent). Each is named as
/// Codex names it: its frontmatter's `name`, else its folder's (`parse_skill_file`).
pub fn codex_system(env: &Env, bundled: bool) -> Vec<OwnSkill> {
    let Some(root) = codex_system_root(env).filter(|_| bundled) else { return Vec::new() };
    skill_dirs(&root)
        .into_iter()
        .map(|(folder, skill_md)| {
            let name = std::fs::read_to_string(&skill_md)
                .ok()
                .and_then(|t| validate_text(&t, ValidateOptions::default()).meta.name)
                .filter(|n| !n.trim().is_empty())
                .unwrap_or(folder);
            OwnSkill { name, skill_md, found: Found::System, from: "system".to_owned() }
        })
        .collect()
}

/// The plugin ids the settings `files` enable (`enabledPlugins`, later files winning; a value
/// other than `true` leaves the plugin off). A file that does not parse is an error naming it.
pub fn claude_enabled_plugins(files: &[PathBuf]) -> Result<Vec<String>, String> {
    let mut on: BTreeMap<String, bool> = BTreeMap::new();
    for path in files {
        let Some(doc) = read_json(path)? else { continue };
        if let Some(map) = doc.get("enabledPlugins").and_then(serde_json::Value::as_object) {
            for (id, v) in map {
                on.insert(id.clone(), v.as_bool() == Some(true));
            }
        }
    }
    Ok(on.into_iter().filter(|(_, v)| *v).map(|(k, _)| k).collect())
}

fn read_json(path: &Path) -> Result<Option<serde_json::Value>, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) if t.trim().is_empty() => return Ok(None),
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("could not read {}: {e}", path.display())),
    };
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| format!("{} does not parse as JSON ({e}); its plugins were not read", path.display()))
}

/// Where plugin `id` is installed for `project` (a user install, or a project or local one
/// made in that project), from `installed_plugins.json`'s `plugins` entry for it: a list of
/// installs (version 2) or one install.
fn install_path(entry: &serde_json::Value, project: Option<&Path>, env: &Env) -> Option<PathBuf> {
    let installs: Vec<&serde_json::Value> = match entry {
        serde_json::Value::Array(a) => a.iter().collect(),
        other => vec![other],
    };
    installs.into_iter().find_map(|i| {
        let scope = i.get("scope").and_then(serde_json::Value::as_str).unwrap_or("user");
        let here = match scope {
            "user" | "managed" => true,
            _ => {
                let at = i.get("projectPath").and_then(serde_json::Value::as_str).map(PathBuf::from);
                matches!((at, project), (Some(a), Some(p)) if a == p)
            }
        };
        let path = i.get("installPath").and_then(serde_json::Value::as_str)?;
        here.then(|| env.expand(Path::new(path)))
    })
}

/// The skills of the plugins Claude Code has enabled (user settings, then `project`'s),
/// each named `plugin:folder`. Missing files mean no plugins; a file that does not parse is
/// an error naming it.
pub fn claude_plugin_skills(env: &Env, project: Option<&Path>) -> Result<Vec<OwnSkill>, String> {
    let enabled = claude_enabled_plugins(&overrides::claude_files(env, project))?;
    if enabled.is_empty() {
        return Ok(Vec::new());
    }
    let Some(root) = claude_plugins_root(env) else { return Ok(Vec::new()) };
    let Some(record) = read_json(&root.join("installed_plugins.json"))? else { return Ok(Vec::new()) };
    let plugins = record.get("plugins").and_then(serde_json::Value::as_object);
    let mut out = Vec::new();
    for id in enabled {
        let Some(dir) = plugins.and_then(|p| p.get(&id)).and_then(|e| install_path(e, project, env)) else {
            continue;
        };
        let plugin = id.split('@').next().unwrap_or(&id).to_owned();
        for (folder, skill_md) in skill_dirs(&dir.join("skills")) {
            out.push(OwnSkill { name: format!("{plugin}:{folder}"), skill_md, found: Found::Plugin, from: id.clone() });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        if let Some(d) = path.parent() {
            std::fs::create_dir_all(d).ok();
        }
        std::fs::write(path, text).ok();
    }

    #[test]
    fn codex_system_skills_are_read_unless_bundled_skills_are_off() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| unreachable!("{e}"));
        let env = Env::with_home(dir.path());
        let sys = dir.path().join(".codex/skills/.system");
        write(&sys.join("skill-creator/SKILL.md"), "---\nname: skill-creator\ndescription: d\n---\n");
        write(&sys.join("installer/SKILL.md"), "---\nname: skill-installer\ndescription: d\n---\n");
        write(&sys.join(".codex-system-skills.marker"), "x");
        write(&sys.join("notes/README.md"), "not a skill");
        let got: Vec<String> = codex_system(&env, true).into_iter().map(|s| s.name).collect();
        // In folder order, each named by its frontmatter (the folder `installer` holds
        // `skill-installer`), as Codex names it.
        assert_eq!(got, ["skill-installer", "skill-creator"]);
        assert!(codex_system(&env, false).is_empty());
    }

    #[test]
    fn claude_plugin_skills_come_from_enabled_plugins_installed_here() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| unreachable!("{e}"));
        let home = dir.path();
        let env = Env::with_home(home);
        let project = home.join("proj");
        let cache = home.join(".claude/plugins/cache/mkt");
        write(&cache.join("review/1.0.0/skills/pr/SKILL.md"), "---\nname: pr\ndescription: d\n---\n");
        write(&cache.join("off/1.0.0/skills/x/SKILL.md"), "---\nname: x\ndescription: d\n---\n");
        write(&cache.join("elsewhere/1.0.0/skills/y/SKILL.md"), "---\nname: y\ndescription: d\n---\n");
        let record = format!(
            r#"{{"version": 2, "plugins": {{
                "review@mkt": [{{"scope": "user", "installPath": "{c}/review/1.0.0"}}],
                "off@mkt": [{{"scope": "user", "installPath": "{c}/off/1.0.0"}}],
                "elsewhere@mkt": [{{"scope": "project", "projectPath": "/other", "installPath": "{c}/elsewhere/1.0.0"}}]
            }}}}"#,
            c = cache.display()
        );
        write(&home.join(".claude/plugins/installed_plugins.json"), &record);
        write(
            &home.join(".claude/settings.json"),
            r#"{"enabledPlugins": {"review@mkt": true, "off@mkt": true, "elsewhere@mkt": true}}"#,
        );
        // The project's local settings switch one off again.
        write(&project.join(".claude/settings.local.json"), r#"{"enabledPlugins": {"off@mkt": false}}"#);
        let got = claude_plugin_skills(&env, Some(&project)).unwrap_or_default();
        let names: Vec<&str> = got.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["review:pr"]);
        assert_eq!((got[0].found, got[0].from.as_str()), (Found::Plugin, "review@mkt"));
        write(&home.join(".claude/plugins/installed_plugins.json"), "{ nope");
        assert!(claude_plugin_skills(&env, None).is_err_and(|e| e.contains("installed_plugins.json")));
    }
}
