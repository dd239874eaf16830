//! `skilldeck targets --budget` end to end, against a temp HOME holding real Claude Code and
//! Codex folders: what each agent's listing shows, with the agents' own switches, the
//! configured context window, and the advice.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use serde_json::Value;
use std::fs;
use std::path::PathBuf;
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
    fn sd(&self) -> PathBuf {
        self.tmp.path().join("sd")
    }
    fn run(&self, args: &[&str]) -> (i32, String, String) {
        let out = Command::new(BIN)
            .args(args)
            .env("HOME", self.home())
            .env("SKILLDECK_HOME", self.sd())
            .env_remove("CODEX_HOME")
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("XDG_CONFIG_HOME")
            .output()
            .unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }
    fn json(&self, args: &[&str]) -> Value {
        let (code, out, err) = self.run(args);
        assert_eq!(code, 0, "{args:?}\n{out}\n{err}");
        serde_json::from_str(&out).unwrap()
    }
    /// A skill folder under `folder` (relative to HOME) with this frontmatter body.
    fn skill(&self, folder: &str, name: &str, extra: &str, description: &str) {
        let d = self.home().join(folder).join(name);
        fs::create_dir_all(&d).unwrap();
        fs::write(d.join("SKILL.md"), format!("---\nname: {name}\ndescription: {description}\n{extra}---\nBody.\n"))
            .unwrap();
    }
    fn write(&self, rel: &str, text: &str) {
        let p = self.home().join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    }
    fn config(&self, text: &str) {
        fs::create_dir_all(self.sd()).unwrap();
        fs::write(self.sd().join("config.toml"), text).unwrap();
    }
}

fn target<'a>(all: &'a Value, id: &str) -> &'a Value {
    all.as_array().unwrap().iter().find(|t| t["target"] == id).unwrap_or_else(|| panic!("no {id} in {all}"))
}

fn fate<'a>(t: &'a Value, name: &str, case: &str) -> &'a str {
    let k = t["skills"].as_array().unwrap().iter().find(|k| k["name"] == name).unwrap_or_else(|| panic!("{name}"));
    k[case]["shown"].as_str().unwrap()
}

#[test]
fn claude_code_under_budget_hides_manual_skills_and_honours_its_overrides() {
    let w = World::new();
    w.skill(".claude/skills", "pdf", "", "Read and fill PDF forms.");
    w.skill(".claude/skills", "deploy", "disable-model-invocation: true\n", "Deploy to production.");
    w.skill(".claude/skills", "legacy", "", "An old helper.");
    w.write(".claude/settings.json", "{\n  // mine\n  \"skillOverrides\": { \"legacy\": \"name-only\" }\n}\n");
    // settings.json with a comment is not JSON: the switches are not read, and it says so.
    let all = w.json(&["targets", "--budget", "--json"]);
    let c = target(&all, "claude-code");
    assert!(c["settings_error"].as_str().unwrap().contains("settings.json"), "{c}");
    assert_eq!(fate(c, "legacy", "worst"), "full");
    w.write(".claude/settings.json", "{ \"skillOverrides\": { \"legacy\": \"name-only\" } }\n");
    let all = w.json(&["targets", "--budget", "--json"]);
    let c = target(&all, "claude-code");
    assert_eq!(c["budget"], 8000, "1% of the default 200K window at 4 chars a token");
    assert_eq!(c["context_window"], 200000);
    assert_eq!(c["window_configured"], false);
    assert_eq!(fate(c, "pdf", "worst"), "full");
    assert_eq!(fate(c, "deploy", "best"), "hidden");
    assert_eq!(fate(c, "legacy", "best"), "name-only");
    assert!(c["switch_off"].as_array().unwrap().is_empty());
    // Entries: "- pdf: " + 24 + line end = 32; "- legacy" + line end = 9.
    assert_eq!(c["full"], 32 + 9);
    let (code, text, _) = w.run(&["targets", "--budget"]);
    assert_eq!(code, 0);
    assert!(text.contains("Claude Code (claude-code)"), "{text}");
    assert!(text.contains("41 of 8000 chars"), "{text}");
    assert!(text.contains("hidden: deploy"), "{text}");
}

#[test]
fn a_small_configured_window_puts_claude_code_over_and_says_what_to_switch_off() {
    let w = World::new();
    for (name, len) in [("alpha", 40), ("bravo", 40), ("charlie", 300)] {
        w.skill(".claude/skills", name, "", &"x".repeat(len));
    }
    // 2,250 tokens: 90 chars. Entries 8 + 42, 8 + 42, 10 + 302: 412, over by 322; names
    // alone 26, so a 40-character description fits when its skill is used most.
    w.config("[targets.claude-code]\ncontext_window = 2250\n");
    let all = w.json(&["targets", "--budget", "--json"]);
    let c = target(&all, "claude-code");
    assert_eq!((c["budget"].as_u64(), c["full"].as_u64()), (Some(90), Some(412)));
    assert_eq!(c["window_configured"], true);
    assert_eq!((fate(c, "alpha", "best"), fate(c, "alpha", "worst")), ("full", "name-only"));
    assert_eq!(fate(c, "charlie", "best"), "name-only");
    assert_eq!(c["switch_off"], serde_json::json!(["charlie", "alpha"]));
    assert_eq!(c["by_use"], true);
    let (_, text, _) = w.run(&["targets", "--budget"]);
    assert!(text.contains("name-only (worst case): alpha, bravo, charlie"), "{text}");
    assert!(text.contains("Switching off charlie, alpha"), "{text}");
    assert!(text.contains("worst case is shown"), "{text}");
}

#[test]
fn codex_reads_its_own_and_the_shared_folders_its_switches_and_leaves_skills_out() {
    let w = World::new();
    w.skill(".codex/skills", "pdf", "", "Read PDF files.");
    w.skill(".codex/skills", "manual", "disable-model-invocation: true\n", "Codex does not read the flag.");
    w.skill(".agents/skills", "shared", "", "From the shared folder.");
    w.skill(".codex/skills", "noisy", "", "Switched off in Codex.");
    w.write(
        ".codex/config.toml",
        "# mine\nmodel = \"gpt-5\"\n\n[[skills.config]]\nname = \"noisy\"\nenabled = false\n",
    );
    let all = w.json(&["targets", "--budget", "--json"]);
    let c = target(&all, "codex");
    assert_eq!((c["unit"].as_str(), c["budget"].as_u64()), (Some("tokens"), Some(5440)));
    for name in ["pdf", "manual", "shared"] {
        assert_eq!(fate(c, name, "best"), "full", "{name}");
    }
    assert_eq!(fate(c, "noisy", "best"), "hidden");
    // A window of 1,000 tokens: 20 tokens, room for one bare line at most (each 15+).
    w.config("[targets.codex]\ncontext_window = 1000\n");
    let all = w.json(&["targets", "--budget", "--json"]);
    let c = target(&all, "codex");
    let omitted = c["skills"].as_array().unwrap().iter().filter(|k| k["best"]["shown"] == "omitted").count();
    assert!(omitted >= 1, "{c}");
    assert!(c["advice"][0].as_str().unwrap().contains("left out"), "{c}");
    // `0` means unknown: Codex's 8,000 characters.
    w.config("[targets.codex]\ncontext_window = 0\n");
    let c = target(&w.json(&["targets", "--budget", "--json"]), "codex").clone();
    assert_eq!((c["unit"].as_str(), c["budget"].as_u64()), (Some("chars"), Some(8000)));
}
