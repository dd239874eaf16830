//! `skilldeck rename`: a pinned, approved skill renamed, and what followed it (config.toml,
//! trust.json, history, the listing); a clash refused with exit 2 and nothing changed.

use serde_json::{Value, json};
use std::fs;
use std::path::PathBuf;
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_skilldeck");

struct Env {
    tmp: tempfile::TempDir,
}

impl Env {
    fn new() -> Self {
        Self { tmp: tempfile::tempdir().unwrap() }
    }

    fn home(&self) -> PathBuf {
        self.tmp.path().join("home")
    }

    fn run(&self, args: &[&str]) -> Output {
        Command::new(BIN)
            .args(args)
            .env("SKILLDECK_HOME", self.home())
            .env_remove("SKILLDECK_TEST_CRASH_AT")
            .output()
            .unwrap()
    }

    /// Runs and expects `code`; returns stdout.
    fn expect(&self, args: &[&str], code: i32) -> String {
        let out = self.run(args);
        let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert_eq!(out.status.code(), Some(code), "{args:?}\nstdout: {stdout}\nstderr: {stderr}");
        stdout.into_owned()
    }

    fn json(&self, args: &[&str]) -> Value {
        serde_json::from_str(&self.expect(args, 0)).unwrap()
    }

    /// Imports `pdf` with `body` (asking for `git`).
    fn import_pdf(&self, body: &str) {
        let dir = self.tmp.path().join("src/pdf");
        fs::create_dir_all(&dir).unwrap();
        fs::write(
            dir.join("SKILL.md"),
            format!("---\nname: pdf\ndescription: PDFs.\nallowed-tools: Bash(git:*)\n---\n{body}\n"),
        )
        .unwrap();
        self.expect(&["import", dir.to_str().unwrap()], 0);
    }
}

#[test]
fn a_pinned_approved_skill_renamed_keeps_its_pin_approval_and_history() {
    let env = Env::new();
    env.import_pdf("one");
    env.import_pdf("two");
    env.expect(&["pin", "pdf"], 0);
    env.expect(&["trust", "pdf"], 0);
    // An eval result of v:2, as `skilldeck eval` keeps it for History.
    let log = env.home().join("evals/user/pdf.jsonl");
    fs::create_dir_all(log.parent().unwrap()).unwrap();
    let record = r#"{"kind":"triggers","revision":2,"at":"2026-12-07T10:00:00Z","provider":{"kind":"openai","model":"m","label":"m"},"runs":3,"passed":9,"total":10}"#;
    fs::write(&log, format!("{record}\n")).unwrap();

    let out = env.expect(&["rename", "pdf", "pdf-tools"], 0);
    assert!(out.contains("Renamed pdf to pdf-tools (user, v:3); history, pin and approval followed."), "{out}");

    let config = fs::read_to_string(env.home().join("config.toml")).unwrap();
    assert!(config.contains("pinned = [\"pdf-tools\"]"), "{config}");
    assert!(!log.exists(), "the eval results follow the skill");
    assert_eq!(fs::read_to_string(env.home().join("evals/user/pdf-tools.jsonl")).unwrap().trim(), record);
    let trust: Value = serde_json::from_str(&fs::read_to_string(env.home().join("trust.json")).unwrap()).unwrap();
    let keys: Vec<&String> = trust["skills"].as_object().unwrap().keys().collect();
    assert_eq!(keys, vec!["user/pdf-tools"]);
    let shown = env.json(&["show", "pdf-tools", "--json"]);
    assert_eq!(shown["grants"]["state"], "trusted", "the approval is in force for the renamed files");
    assert_eq!(shown["meta"]["name"], "pdf-tools");

    let history = env.json(&["history", "pdf-tools", "--json"]);
    let rows: Vec<(u64, Value, bool)> = history
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["revision"].as_u64().unwrap(), e["event"].clone(), e["restorable"].as_bool().unwrap()))
        .collect();
    assert_eq!(
        rows,
        vec![
            (3, json!({"kind": "renamed", "from": "pdf"}), true),
            (2, json!({"kind": "upload"}), true),
            (1, json!({"kind": "upload"}), true),
        ]
    );
    let text = env.expect(&["history", "pdf-tools"], 0);
    assert!(text.contains("renamed from pdf"), "{text}");

    let list = env.json(&["list", "--json"]);
    let user: Vec<(&str, u64)> = list
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["scope"] == "user")
        .map(|s| (s["name"].as_str().unwrap(), s["revision"].as_u64().unwrap_or(0)))
        .collect();
    assert_eq!(user, vec![("pdf-tools", 3)]);
    let gone = env.run(&["history", "pdf"]);
    assert_eq!(gone.status.code(), Some(2), "the old name has no history left");

    // v:1 comes back under the new name.
    assert_eq!(env.json(&["restore", "pdf-tools", "1", "--json"])["revision"], 4);
}

#[test]
fn a_clash_exits_2_with_what_to_do_and_changes_nothing() {
    let env = Env::new();
    env.import_pdf("one");
    env.expect(&["pin", "pdf"], 0);
    let dir = env.tmp.path().join("src/docs");
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("SKILL.md"), "---\nname: docs\ndescription: Docs.\n---\nb\n").unwrap();
    env.expect(&["import", dir.to_str().unwrap()], 0);
    let config = fs::read_to_string(env.home().join("config.toml")).unwrap();

    let out = env.run(&["rename", "pdf", "docs"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("there is already a skill named docs") && err.contains("pick another name"), "{err}");

    env.expect(&["delete", "docs"], 0);
    let out = env.run(&["rename", "pdf", "docs"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("deleted skill") && err.contains("skilldeck restore docs 1"), "{err}");

    assert_eq!(fs::read_to_string(env.home().join("config.toml")).unwrap(), config);
    assert_eq!(env.json(&["show", "pdf", "--json"])["revision"], 1);
}
