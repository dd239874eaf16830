//! `skilldeck agent-skill off|on|name-only|list` end to end, on real settings files under a
//! temp HOME: only the one entry changes (comments, odd formatting and the rest byte for
//! byte), `on` gives the file back as it was, a dry run writes nothing, a file that does not
//! parse is left alone with a clear error, and `targets --budget` sees the switch.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_skilldeck");

struct World {
    tmp: tempfile::TempDir,
}

impl World {
    fn new() -> Self {
        let w = Self { tmp: tempfile::tempdir().unwrap() };
        fs::create_dir_all(w.home()).unwrap();
        w
    }
    fn home(&self) -> PathBuf {
        self.tmp.path().join("home")
    }
    fn run(&self, args: &[&str]) -> (i32, String, String) {
        let out = Command::new(BIN)
            .args(args)
            .env("HOME", self.home())
            .env("SKILLDECK_HOME", self.tmp.path().join("sd"))
            .env_remove("CODEX_HOME")
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("SLASH_COMMAND_TOOL_CHAR_BUDGET")
            .output()
            .unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }
    fn ok(&self, args: &[&str]) -> String {
        let (code, out, err) = self.run(args);
        assert_eq!(code, 0, "{args:?}\n{out}\n{err}");
        out
    }
    fn write(&self, rel: &str, text: &str) -> PathBuf {
        let p = self.home().join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(&p, text).unwrap();
        p
    }
    fn skill(&self, folder: &str, name: &str) {
        self.write(
            &format!("{folder}/{name}/SKILL.md"),
            &format!("---\nname: {name}\ndescription: The {name} skill.\n---\nBody.\n"),
        );
    }
}

fn backups(dir: &Path) -> usize {
    fs::read_dir(dir)
        .unwrap()
        .filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().contains(".skilldeck-backup-"))
        .count()
}

fn budget_fate(w: &World, target: &str, name: &str) -> String {
    let all: serde_json::Value = serde_json::from_str(&w.ok(&["targets", "--budget", "--json"])).unwrap();
    let t = all.as_array().unwrap().iter().find(|t| t["target"] == target).unwrap();
    let k = t["skills"].as_array().unwrap().iter().find(|k| k["name"] == name).unwrap();
    k["worst"]["shown"].as_str().unwrap().to_owned()
}

#[test]
fn claude_code_skill_overrides_change_one_key_and_come_back_byte_for_byte() {
    let w = World::new();
    w.skill(".claude/skills", "deploy");
    // Tabs, odd spacing, an inline object: all kept. (An inline `skillOverrides` would be
    // opened onto lines when a key is added; the rest of the file stays as it is.)
    let original = "{\n\t\"model\":   \"opus\",\n\t\"skillOverrides\": {\n\t\t\"legacy\": \"name-only\"\n\t},\n\t\"env\": {\"A\": \"1\"}\n}\n";
    let path = w.write(".claude/settings.json", original);
    assert_eq!(budget_fate(&w, "claude-code", "deploy"), "full");

    // A dry run shows the change and writes nothing.
    let out = w.ok(&["agent-skill", "off", "claude-code", "deploy", "--dry-run"]);
    assert!(out.contains("dry run") && out.contains("+") && out.contains("\"deploy\": \"off\""), "{out}");
    assert_eq!(fs::read_to_string(&path).unwrap(), original);
    assert_eq!(backups(path.parent().unwrap()), 0);

    w.ok(&["agent-skill", "off", "claude-code", "deploy"]);
    let off = fs::read_to_string(&path).unwrap();
    assert_eq!(
        off,
        "{\n\t\"model\":   \"opus\",\n\t\"skillOverrides\": {\n\t\t\"legacy\": \"name-only\",\n\t\t\"deploy\": \"off\"\n\t},\n\t\"env\": {\"A\": \"1\"}\n}\n"
    );
    assert_eq!(backups(path.parent().unwrap()), 1, "a backup first");
    assert_eq!(budget_fate(&w, "claude-code", "deploy"), "hidden");
    let listed = w.ok(&["agent-skill", "list", "claude-code"]);
    assert!(listed.contains("name-only") && listed.contains("legacy") && listed.contains("deploy"), "{listed}");

    let again = w.ok(&["agent-skill", "off", "claude-code", "deploy"]);
    assert!(again.contains("nothing to do"), "{again}");
    w.ok(&["agent-skill", "on", "claude-code", "deploy"]);
    assert_eq!(fs::read_to_string(&path).unwrap(), original);
    w.ok(&["agent-skill", "name-only", "claude-code", "deploy"]);
    assert_eq!(budget_fate(&w, "claude-code", "deploy"), "name-only");
}

#[test]
fn a_missing_claude_settings_file_is_made_and_an_unparsable_one_left_alone() {
    let w = World::new();
    fs::create_dir_all(w.home().join(".claude")).unwrap();
    w.ok(&["agent-skill", "off", "claude-code", "x"]);
    let made = fs::read_to_string(w.home().join(".claude/settings.json")).unwrap();
    assert_eq!(made, "{\n  \"skillOverrides\": {\n    \"x\": \"off\"\n  }\n}\n");

    let broken = "{ \"model\": \"opus\", // a comment is not JSON\n}\n";
    let path = w.write(".claude/settings.json", broken);
    let (code, out, err) = w.run(&["agent-skill", "off", "claude-code", "x"]);
    assert_ne!(code, 0, "{out}");
    assert!(err.contains("does not parse") && err.contains("it was not changed"), "{err}");
    assert_eq!(fs::read_to_string(&path).unwrap(), broken);
    assert_eq!(backups(path.parent().unwrap()), 0);
}

#[test]
fn codex_skills_config_entries_keep_comments_and_come_back_byte_for_byte() {
    let w = World::new();
    w.skill(".codex/skills", "pdf");
    let original =
        "# my codex settings\nmodel = \"gpt-5\"   # the fast one\n\n[mcp_servers.docs]\ncommand = \"docs\" # keep\n";
    let path = w.write(".codex/config.toml", original);
    w.ok(&["agent-skill", "off", "codex", "pdf", "--dry-run"]);
    assert_eq!(fs::read_to_string(&path).unwrap(), original);

    w.ok(&["agent-skill", "off", "codex", "pdf"]);
    let off = fs::read_to_string(&path).unwrap();
    assert_eq!(off, format!("{original}\n[[skills.config]]\nname = \"pdf\"\nenabled = false\n"));
    assert_eq!(budget_fate(&w, "codex", "pdf"), "hidden");
    w.ok(&["agent-skill", "on", "codex", "pdf"]);
    assert_eq!(fs::read_to_string(&path).unwrap(), original);
    assert_eq!(budget_fate(&w, "codex", "pdf"), "full");

    let (code, _, err) = w.run(&["agent-skill", "name-only", "codex", "pdf"]);
    assert_ne!(code, 0);
    assert!(err.contains("only on and off"), "{err}");
    let broken = "[skills\nname = 1\n";
    w.write(".codex/config.toml", broken);
    let (code, _, err) = w.run(&["agent-skill", "off", "codex", "pdf"]);
    assert_ne!(code, 0);
    assert!(err.contains("does not parse"), "{err}");
    assert_eq!(fs::read_to_string(&path).unwrap(), broken);
}

/// Codex installs its system skills under `$CODEX_HOME/skills/.system` itself and puts them
/// back at each start: they are listed as Codex's own, counted in its budget, and switched
/// off by name in `[[skills.config]]`, which Codex matches against every loaded skill.
#[test]
fn codex_system_skills_are_listed_counted_and_switched_off_by_name() {
    let w = World::new();
    w.skill(".codex/skills/.system", "skill-creator");
    w.skill(".codex/skills", "pdf");
    let original = "# mine
model = \"gpt-5\"\n";
    let path = w.write(".codex/config.toml", original);
    let listed: serde_json::Value = serde_json::from_str(&w.ok(&["agent-skill", "list", "codex", "--json"])).unwrap();
    assert_eq!(listed, serde_json::json!([{"name": "skill-creator", "setting": "on", "own": "system"}]));
    let all: serde_json::Value = serde_json::from_str(&w.ok(&["targets", "--budget", "--json"])).unwrap();
    let codex = all.as_array().unwrap().iter().find(|t| t["target"] == "codex").unwrap();
    let names: Vec<(&str, &str)> = codex["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| (k["name"].as_str().unwrap(), k["found"].as_str().unwrap()))
        .collect();
    assert_eq!(names, [("pdf", "user"), ("skill-creator", "system")], "the user's first, as Codex orders them");
    assert!(codex["folders"].as_array().unwrap().iter().any(|f| f.as_str().unwrap().ends_with(".system")));

    let out = w.ok(&["agent-skill", "off", "codex", "skill-creator"]);
    assert!(out.contains("system skills"), "{out}");
    assert_eq!(
        fs::read_to_string(&path).unwrap(),
        format!("{original}\n[[skills.config]]\nname = \"skill-creator\"\nenabled = false\n")
    );
    assert_eq!(budget_fate(&w, "codex", "skill-creator"), "hidden");
    let text = w.ok(&["agent-skill", "list", "codex"]);
    assert!(text.contains("off") && text.contains("skill-creator  (system)"), "{text}");
    w.ok(&["agent-skill", "on", "codex", "skill-creator"]);
    assert_eq!(fs::read_to_string(&path).unwrap(), original);

    // `[skills.bundled] enabled = false`: Codex removes them, so none is counted.
    w.write(".codex/config.toml", "[skills.bundled]\nenabled = false\n");
    let all: serde_json::Value = serde_json::from_str(&w.ok(&["targets", "--budget", "--json"])).unwrap();
    let codex = all.as_array().unwrap().iter().find(|t| t["target"] == "codex").unwrap();
    assert!(!codex["skills"].as_array().unwrap().iter().any(|k| k["name"] == "skill-creator"), "{codex}");
}

/// Claude Code's plugins' skills: listed as `plugin:folder` by `agent-skill list`, counted in
/// its budget as its own, and switched off through `skillOverrides` like any other.
#[test]
fn claude_code_plugin_skills_are_listed_and_counted() {
    let w = World::new();
    w.skill(".claude/skills", "deploy");
    w.skill(".claude/plugins/cache/mkt/review/1.2.0/skills", "pr");
    let cache = w.home().join(".claude/plugins/cache/mkt/review/1.2.0");
    w.write(
        ".claude/plugins/installed_plugins.json",
        &format!(
            "{{\"version\": 2, \"plugins\": {{\"review@mkt\": [{{\"scope\": \"user\", \"installPath\": \"{}\"}}]}}}}",
            cache.display()
        ),
    );
    // Installed but not enabled: not Claude Code's.
    assert_eq!(w.ok(&["agent-skill", "list", "claude-code", "--json"]).trim(), "[]");
    w.write(".claude/settings.json", "{\"enabledPlugins\": {\"review@mkt\": true}}\n");
    let listed: serde_json::Value =
        serde_json::from_str(&w.ok(&["agent-skill", "list", "claude-code", "--json"])).unwrap();
    assert_eq!(listed, serde_json::json!([{"name": "review:pr", "setting": "on", "own": "review@mkt"}]));
    assert_eq!(budget_fate(&w, "claude-code", "review:pr"), "full");
    w.ok(&["agent-skill", "off", "claude-code", "review:pr"]);
    assert_eq!(budget_fate(&w, "claude-code", "review:pr"), "hidden");
    assert_eq!(budget_fate(&w, "claude-code", "deploy"), "full");
}
