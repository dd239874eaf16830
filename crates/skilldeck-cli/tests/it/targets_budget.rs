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
        self.run_with(args, &[])
    }
    fn run_with(&self, args: &[&str], vars: &[(&str, &str)]) -> (i32, String, String) {
        let out = Command::new(BIN)
            .args(args)
            .env("HOME", self.home())
            .env("SKILLDECK_HOME", self.sd())
            .env_remove("CODEX_HOME")
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("SLASH_COMMAND_TOOL_CHAR_BUDGET")
            .envs(vars.iter().copied())
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

/// `agents/openai.yaml` with `policy.allow_implicit_invocation: false`: Codex keeps the skill
/// out of the model's list (`allowed_skills_for_implicit_invocation`), so it costs nothing and
/// is shown as user-invoked only; Claude Code does not read the file.
#[test]
fn codex_leaves_out_a_skill_its_openai_yaml_keeps_from_the_model() {
    let w = World::new();
    w.skill(".agents/skills", "release", "", "Cut a release.");
    w.write(".agents/skills/release/agents/openai.yaml", "policy:\n  allow_implicit_invocation: false\n");
    w.skill(".agents/skills", "notes", "", "Write notes.");
    w.skill(".claude/skills", "release", "", "Cut a release.");
    w.write(".claude/skills/release/agents/openai.yaml", "policy:\n  allow_implicit_invocation: false\n");
    fs::create_dir_all(w.home().join(".codex")).unwrap();
    let all = w.json(&["targets", "--budget", "--json"]);
    let c = target(&all, "codex");
    let k = c["skills"].as_array().unwrap().iter().find(|k| k["name"] == "release").unwrap();
    assert_eq!(k["best"], serde_json::json!({"shown": "hidden", "by": "no-implicit-invocation"}));
    assert_eq!(k["cost"], 0);
    assert_eq!(fate(c, "notes", "best"), "full");
    assert_eq!(fate(target(&all, "claude-code"), "release", "best"), "full");
    let (_, text, _) = w.run(&["targets", "--budget"]);
    assert!(text.contains("release (user-invoked only: agents/openai.yaml"), "{text}");
}

/// `SLASH_COMMAND_TOOL_CHAR_BUDGET` pins Claude Code's budget in characters; Codex's `[skills]
/// max_context_tokens` pins its own, capped at 10,000 tokens.
#[test]
fn the_agents_own_budget_settings_replace_the_share_of_the_window() {
    let w = World::new();
    w.skill(".claude/skills", "alpha", "", &"x".repeat(40));
    w.write(".codex/config.toml", "[skills]\nmax_context_tokens = 3000\n");
    let (code, out, err) = w.run_with(&["targets", "--budget", "--json"], &[("SLASH_COMMAND_TOOL_CHAR_BUDGET", "20")]);
    assert_eq!(code, 0, "{err}");
    let all: Value = serde_json::from_str(&out).unwrap();
    let c = target(&all, "claude-code");
    assert_eq!(c["budget"], 20);
    assert_eq!(c["budget_setting"]["from"], "SLASH_COMMAND_TOOL_CHAR_BUDGET=20");
    // "- alpha: " + 40 + line end = 50 > 20; the bare name (8) fits.
    assert_eq!(fate(c, "alpha", "worst"), "name-only");
    let x = target(&all, "codex");
    assert_eq!((x["unit"].as_str(), x["budget"].as_u64()), (Some("tokens"), Some(3000)));
    let (_, text, _) = w.run_with(&["targets", "--budget"], &[("SLASH_COMMAND_TOOL_CHAR_BUDGET", "20")]);
    assert!(text.contains("budget set by SLASH_COMMAND_TOOL_CHAR_BUDGET=20"), "{text}");
    w.write(".codex/config.toml", "[skills]\nmax_context_tokens = 99999\n");
    assert_eq!(target(&w.json(&["targets", "--budget", "--json"]), "codex")["budget"], 10000);
}

/// `targets window TARGET TOKENS|default` writes `[targets.TARGET] context_window` in
/// config.toml, keeping the user's comments, and `default` gives the file back byte for byte.
#[test]
fn targets_window_sets_the_window_keeping_comments_and_takes_it_back() {
    let w = World::new();
    w.skill(".codex/skills", "pdf", "", "Read PDF files.");
    let original = "# my skilldeck\n[listing]\nbudget_tokens = 900 # small\n\n[targets.codex] # the CLI\nauto = true\n";
    w.config(original);
    let (code, out, err) = w.run(&["targets", "window", "codex", "1_000_000"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("1000000-token window") && out.contains("20000 tokens"), "{out}");
    let text = fs::read_to_string(w.sd().join("config.toml")).unwrap();
    assert_eq!(text, format!("{original}context_window = 1000000\n"));
    let c = target(&w.json(&["targets", "--budget", "--json"]), "codex").clone();
    assert_eq!((c["context_window"].as_u64(), c["window_configured"].as_bool()), (Some(1_000_000), Some(true)));
    assert_eq!(c["budget"], 20000);
    let (_, out, _) = w.run(&["targets", "window", "codex"]);
    assert!(out.contains("1000000-token window"), "{out}");

    let (code, _, err) = w.run(&["targets", "window", "codex", "default"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(fs::read_to_string(w.sd().join("config.toml")).unwrap(), original);
    let (_, out, _) = w.run(&["targets", "window", "claude-code"]);
    assert!(out.contains("default, a 200000-token window"), "{out}");

    // Refused, nothing written: a word that is not a number, a target that is not known.
    let (code, _, err) = w.run(&["targets", "window", "codex", "lots"]);
    assert_ne!(code, 0);
    assert!(err.contains("not a number of tokens"), "{err}");
    let (code, _, _) = w.run(&["targets", "window", "no-such-tool", "1000"]);
    assert_ne!(code, 0);
    assert_eq!(fs::read_to_string(w.sd().join("config.toml")).unwrap(), original);
}

/// `skilldeck targets` names, per skill in an agent's folder, the fields that agent ignores or
/// rejects (the `validate --for` table), and warns when two folders one agent reads hold the
/// same skill (Copilot reads `~/.claude/skills` and `~/.agents/skills` besides its own).
#[test]
fn targets_report_the_fields_each_agent_ignores_and_skills_it_meets_twice() {
    let w = World::new();
    w.skill(".codex/skills", "pdf", "when_to_use: For PDFs.\nmodel: sonnet\n", "Read PDF files.");
    w.write(".codex/skills/pdf/agents/openai.yaml", "interface:\n  brand_color: red\n");
    w.skill(".claude/skills", "pdf", "model: gpt-9\n", "Read PDF files.");
    w.skill(".claude/skills", "clean", "model: sonnet\n", "Tidy up.");
    w.skill(".agents/skills", "pdf", "", "Read PDF files.");
    let all = w.json(&["targets", "--json"]);
    let skill = |id: &str, name: &str| {
        let t = all.as_array().unwrap().iter().find(|t| t["id"] == id).unwrap();
        t["folders"][0]["skills"].as_array().unwrap().iter().find(|s| s["name"] == name).unwrap().clone()
    };
    let fields = |s: &Value| -> Vec<(String, String)> {
        s["agent_fields"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|f| (f["field"].as_str().unwrap().to_owned(), f["verdict"].as_str().unwrap().to_owned()))
                    .collect()
            })
            .unwrap_or_default()
    };
    assert_eq!(
        fields(&skill("codex", "pdf")),
        [
            ("when_to_use".to_owned(), "ignored".to_owned()),
            ("model".to_owned(), "ignored".to_owned()),
            ("agents/openai.yaml: interface.brand_color".to_owned(), "invalid".to_owned())
        ]
    );
    assert_eq!(fields(&skill("claude-code", "pdf")), [("model".to_owned(), "invalid".to_owned())]);
    assert!(skill("claude-code", "clean").get("agent_fields").is_none(), "nothing to say: left out");
    assert!(skill("claude-code", "pdf")["agent_fields"][0]["why"].as_str().unwrap().contains("code.claude.com"));

    let dups = |id: &str| all.as_array().unwrap().iter().find(|t| t["id"] == id).unwrap()["duplicates"].clone();
    let copilot = dups("github-copilot");
    assert_eq!(copilot.as_array().unwrap().len(), 1, "{copilot}");
    assert_eq!(copilot[0]["name"], "pdf");
    let folders: Vec<&str> = copilot[0]["folders"].as_array().unwrap().iter().map(|f| f.as_str().unwrap()).collect();
    assert!(folders[0].ends_with(".claude/skills") && folders[1].ends_with(".agents/skills"), "{folders:?}");
    assert!(dups("claude-code").is_null(), "Claude Code reads no .agents/skills");
    // Codex reads ~/.codex/skills and ~/.agents/skills: pdf in both.
    assert_eq!(dups("codex")[0]["name"], "pdf");
    let (_, text, _) = w.run(&["targets"]);
    assert!(text.contains("ignored: `when_to_use` is not read by Codex"), "{text}");
    assert!(text.contains("warning: pdf is in") && text.contains("each read by GitHub Copilot"), "{text}");
}

/// Gemini CLI lists every skill whole, with no cap (`renderAgentSkills`): its budget shows
/// what the listing costs, reads `.agents/skills` too, and honours `skills.disabled`.
#[test]
fn gemini_cli_lists_every_skill_whole_and_says_what_it_costs() {
    let w = World::new();
    w.skill(".gemini/skills", "pdf", "", "Read PDFs.");
    w.skill(".agents/skills", "notes", "", "Write notes.");
    w.skill(".gemini/skills", "old", "", "Not wanted.");
    w.write(".gemini/settings.json", "{\"skills\": {\"disabled\": [\"OLD\"]}}\n");
    let all = w.json(&["targets", "--budget", "--json"]);
    let g = target(&all, "gemini-cli");
    assert_eq!(g["rule"], "gemini");
    assert_eq!(g["context_window"], 1_048_576);
    assert_eq!((fate(g, "pdf", "best"), fate(g, "notes", "best")), ("full", "full"));
    assert_eq!(fate(g, "old", "best"), "hidden");
    assert_eq!(g["budget"], g["full"], "no cap: the listing is what it costs");
    let advice = g["advice"][0].as_str().unwrap();
    assert!(advice.contains("no cap") && advice.contains(" characters (about "), "{advice}");
    assert!(!advice.contains("  "), "one space between words: {advice}");
    let (_, text, _) = w.run(&["targets", "--budget"]);
    assert!(text.contains("Gemini CLI (gemini-cli)") && text.contains("no cap, nothing shortened"), "{text}");
}
