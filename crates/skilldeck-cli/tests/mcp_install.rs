//! `skilldeck mcp install|uninstall|clients` against a fake home: every override variable points
//! into a temp folder, so no real client's settings are read or written.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use serde_json::{Value, json};
use std::fs;
use std::path::Path;
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_skilldeck");

fn skilldeck(home: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("CODEX_HOME", home.join(".codex"))
        .env_remove("CLAUDE_CONFIG_DIR")
        .env("SKILLDECK_HOME", home.join("store"))
        .output()
        .unwrap()
}

fn ok(home: &Path, args: &[&str]) -> String {
    let out = skilldeck(home, args);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn state_of(home: &Path, id: &str) -> Value {
    let all: Value = serde_json::from_str(&ok(home, &["mcp", "clients", "--json"])).unwrap();
    all.as_array().unwrap().iter().find(|c| c["id"] == id).unwrap().clone()
}

const CODEX: &str = "# mine\nmodel = \"o3\"\n\n[mcp_servers.other]\ncommand = \"other\" # keep\n";

#[test]
fn install_dry_run_uninstall_and_clients_over_a_codex_config() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let config = home.join(".codex/config.toml");
    fs::create_dir_all(config.parent().unwrap()).unwrap();
    fs::write(&config, CODEX).unwrap();
    let exe = fs::canonicalize(BIN).unwrap();

    let codex = state_of(home, "codex");
    assert_eq!(
        codex,
        json!({"id": "codex", "name": "Codex", "detected": true, "path": config, "exists": true, "state": "not_installed"})
    );
    assert_eq!(state_of(home, "cursor")["detected"], false);

    // A dry run shows the lines it would add and writes nothing.
    let dry = ok(home, &["mcp", "install", "codex", "--dry-run"]);
    assert!(dry.contains("+[mcp_servers.skilldeck]") && dry.contains("nothing written"), "{dry}");
    assert_eq!(fs::read_to_string(&config).unwrap(), CODEX);

    let done = ok(home, &["mcp", "install", "codex"]);
    assert!(done.contains("the old file is kept as"), "{done}");
    let text = fs::read_to_string(&config).unwrap();
    assert!(text.starts_with(CODEX), "{text}");
    let table: toml::Table = text.parse().unwrap();
    assert_eq!(
        serde_json::to_value(&table["mcp_servers"]["skilldeck"]).unwrap(),
        json!({"command": exe, "args": ["mcp"]})
    );
    assert_eq!(state_of(home, "codex")["state"], "installed");
    let backups = || {
        fs::read_dir(home.join(".codex"))
            .unwrap()
            .filter(|e| e.as_ref().unwrap().file_name().to_str().unwrap().contains(".skilldeck-backup-"))
            .count()
    };
    assert_eq!(backups(), 1);
    assert!(ok(home, &["mcp", "install", "codex"]).contains("nothing to do"));
    assert_eq!(backups(), 1, "installing twice writes no second backup");

    ok(home, &["mcp", "uninstall", "codex"]);
    assert_eq!(fs::read_to_string(&config).unwrap(), CODEX);
    assert_eq!(state_of(home, "codex")["state"], "not_installed");
}

#[test]
fn an_unparsable_file_is_named_with_the_parser_position_and_left_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let mcp = home.join(".cursor/mcp.json");
    fs::create_dir_all(mcp.parent().unwrap()).unwrap();
    fs::write(&mcp, "{\n  \"mcpServers\": {,}\n}\n").unwrap();
    let out = skilldeck(home, &["mcp", "install", "cursor"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("line 2 column") && err.contains("was not changed") && err.contains("\"mcpServers\""),
        "{err}"
    );
    assert_eq!(fs::read_to_string(&mcp).unwrap(), "{\n  \"mcpServers\": {,}\n}\n");
    let state = state_of(home, "cursor");
    assert_eq!(state["state"], "unreadable");
    assert!(state["error"].as_str().unwrap().contains("line 2"), "{state}");
}

#[test]
fn a_missing_file_is_created_with_its_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    ok(home, &["mcp", "install", "vscode"]);
    let text = fs::read_to_string(home.join(".config/Code/User/mcp.json")).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["servers"].as_object().unwrap().keys().collect::<Vec<_>>(), ["skilldeck"]);
    assert_eq!(state_of(home, "vscode")["state"], "installed");
    let bad = skilldeck(home, &["mcp", "install", "emacs"]);
    assert_eq!(bad.status.code(), Some(2));
}
