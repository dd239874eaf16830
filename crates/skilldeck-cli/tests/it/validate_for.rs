//! `skilldeck validate --for AGENT`: one agent's reading of a skill through the binary, its exit
//! codes, its JSON, and lenient validation naming the agents that read a field.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_skilldeck");

/// Runs `skilldeck validate ARGS` against a home that must stay untouched; returns the exit
/// code, stdout and stderr.
fn validate(tmp: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(BIN)
        .arg("validate")
        .args(args)
        .env("SKILLDECK_HOME", tmp.join("home"))
        .env_remove("SKILLDECK_TEST_CRASH_AT")
        .output()
        .unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code().unwrap(), text(&out.stdout), text(&out.stderr))
}

fn skill(tmp: &Path, name: &str, front: &str) -> PathBuf {
    let d = tmp.join("src").join(name);
    fs::create_dir_all(&d).unwrap();
    fs::write(d.join("SKILL.md"), format!("---\nname: {name}\ndescription: Extract text.\n{front}---\n\nDo it.\n"))
        .unwrap();
    d
}

fn json(tmp: &Path, args: &[&str], code: i32) -> Value {
    let (got, out, err) = validate(tmp, args);
    assert_eq!(got, code, "{args:?}\n{out}\n{err}");
    serde_json::from_str(&out).unwrap()
}

fn codes(report: &Value) -> Vec<(String, String)> {
    report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["code"].as_str().unwrap().to_owned(), d["args"]["field"].as_str().unwrap_or_default().to_owned()))
        .collect()
}

const CLAUDE: &str = "when_to_use: When a PDF is attached\nargument-hint: [file]\ndisable-model-invocation: true\n\
    model: sonnet\ncontext: fork\npaths: \"**/*.pdf\"\n";

#[test]
fn a_claude_code_skill_passes_for_claude_code_and_only_there() {
    let tmp = tempfile::tempdir().unwrap();
    let s = skill(tmp.path(), "pdf", CLAUDE);
    let path = s.to_str().unwrap();

    let (code, out, _) = validate(tmp.path(), &["--for", "claude-code", path]);
    assert_eq!((code, out.trim()), (0, format!("{path}: ok for Claude Code").as_str()));
    let report = &json(tmp.path(), &["--for", "claude-code", "--json", path], 0)[0];
    assert_eq!(report["for"], "claude-code");
    assert_eq!(report["valid"], true);
    assert_eq!(codes(report), vec![]);

    // `--strict` is `--for spec`: the agentskills.io rules exactly, the same report.
    let strict = json(tmp.path(), &["--strict", "--json", path], 1);
    let spec = json(tmp.path(), &["--for", "spec", "--json", path], 1);
    assert_eq!(strict, spec);
    assert_eq!(strict[0]["for"], "spec");
    assert_eq!(codes(&strict[0]).len(), 6);
    assert!(codes(&strict[0]).iter().all(|(c, _)| c == "field_unknown"));

    // Codex reads none of them: each is a warning naming who does, and the skill is valid there.
    let codex = &json(tmp.path(), &["--for", "codex", "--json", path], 0)[0];
    assert_eq!(codex["for"], "codex");
    let d = &codex["diagnostics"][0];
    assert_eq!((d["code"].as_str(), d["severity"].as_str()), (Some("field_ignored"), Some("warning")));
    assert_eq!(d["args"]["agent"], "codex");
    assert_eq!(d["args"]["read_by"], "claude-code");
    assert_eq!(d["line"], 4);
    assert_eq!(codes(codex).len(), 6);

    // Lenient: Claude Code's fields are named as Claude Code's, not unknown; one Skilldeck
    // honours (`disable-model-invocation`, `when_to_use`) says nothing.
    let lenient = &json(tmp.path(), &["--json", path], 0)[0];
    assert!(lenient.get("for").is_none(), "today's shape by default");
    let said = lenient["diagnostics"].as_array().unwrap();
    assert_eq!(said.len(), 4, "{said:#?}");
    for d in said {
        assert_eq!(d["code"], "field_unknown");
        assert!(d["message"].as_str().unwrap().contains("read by Claude Code"), "{d}");
    }
    assert!(!tmp.path().join("home").exists(), "validate never touches the store");
}

#[test]
fn a_bad_value_is_an_error_for_its_agent_and_a_warning_otherwise() {
    let tmp = tempfile::tempdir().unwrap();
    let s = skill(tmp.path(), "fork", "context: spawn\nmodel: gpt-4o\n");
    let path = s.to_str().unwrap();
    let report = &json(tmp.path(), &["--for", "claude-code", "--json", path], 1)[0];
    assert_eq!(
        codes(report),
        vec![
            ("field_value_invalid".to_owned(), "context".to_owned()),
            ("field_value_invalid".to_owned(), "model".to_owned())
        ]
    );
    assert!(report["diagnostics"][0]["message"].as_str().unwrap().contains("code.claude.com/docs/en/skills"));
    let (code, out, _) = validate(tmp.path(), &["--for", "claude-code", path]);
    assert_eq!(code, 1);
    assert!(out.contains("INVALID for Claude Code") && out.contains("use `fork` or leave it out"), "{out}");
    let lenient = &json(tmp.path(), &["--json", path], 0)[0];
    assert_eq!(lenient["valid"], true);
    assert!(lenient["diagnostics"].as_array().unwrap().iter().all(|d| d["severity"] == "warning"));
}

#[test]
fn codex_checks_agents_openai_yaml_beside_skill_md() {
    let tmp = tempfile::tempdir().unwrap();
    let s = skill(tmp.path(), "brand", "");
    fs::create_dir_all(s.join("agents")).unwrap();
    fs::write(
        s.join("agents/openai.yaml"),
        "interface:\n  brand_color: red\npolicy:\n  allow_implicit_invocation: false\n",
    )
    .unwrap();
    let path = s.to_str().unwrap();
    let report = &json(tmp.path(), &["--for", "codex", "--json", path], 0)[0];
    assert_eq!(codes(report), vec![("field_value_invalid".to_owned(), "interface.brand_color".to_owned())]);
    assert_eq!(report["diagnostics"][0]["args"]["file"], "agents/openai.yaml");
    // Only Codex reads that file.
    assert_eq!(codes(&json(tmp.path(), &["--for", "claude-code", "--json", path], 0)[0]), vec![]);
}

#[test]
fn an_unknown_agent_is_refused_with_the_valid_names() {
    let tmp = tempfile::tempdir().unwrap();
    let s = skill(tmp.path(), "pdf", "");
    let (code, _, err) = validate(tmp.path(), &["--for", "windsurf", s.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(
        err.contains("no agent is called \"windsurf\"; use one of: spec, claude-code, codex, gemini, copilot, cursor"),
        "{err}"
    );
    let (code, _, err) = validate(tmp.path(), &["--for", "codex", "--strict", s.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
}
