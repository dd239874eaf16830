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

/// `~/.cursor/mcp.json`, its folder made.
fn cursor_file(home: &Path) -> std::path::PathBuf {
    let mcp = home.join(".cursor/mcp.json");
    fs::create_dir_all(mcp.parent().unwrap()).unwrap();
    mcp
}

fn fails(home: &Path, args: &[&str]) -> String {
    let out = skilldeck(home, args);
    assert!(!out.status.success(), "{args:?} should fail: {}", String::from_utf8_lossy(&out.stdout));
    String::from_utf8(out.stderr).unwrap()
}

#[test]
fn a_dangling_symlink_is_followed_and_stays_a_link() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let mcp = cursor_file(home);
    // A dotfiles link made before its file: the file is created where the link points.
    fs::create_dir_all(home.join("dotfiles")).unwrap();
    std::os::unix::fs::symlink("../dotfiles/cursor.json", &mcp).unwrap();
    ok(home, &["mcp", "install", "cursor"]);
    assert!(fs::symlink_metadata(&mcp).unwrap().file_type().is_symlink(), "the link is never replaced");
    let v: Value = serde_json::from_str(&fs::read_to_string(home.join("dotfiles/cursor.json")).unwrap()).unwrap();
    assert!(v["mcpServers"]["skilldeck"].is_object(), "{v}");
    assert_eq!(state_of(home, "cursor")["state"], "installed");

    // A link into a folder that does not exist either: refused with the reason, link untouched.
    fs::remove_file(&mcp).unwrap();
    std::os::unix::fs::symlink("../nowhere/cursor.json", &mcp).unwrap();
    let err = fails(home, &["mcp", "install", "cursor"]);
    assert!(err.contains("symbolic link") && err.contains("nowhere/cursor.json"), "{err}");
    assert!(fs::symlink_metadata(&mcp).unwrap().file_type().is_symlink());
    assert!(!home.join("nowhere").exists());
}

#[test]
fn a_read_only_file_is_left_alone_with_the_reason() {
    use std::os::unix::fs::PermissionsExt as _;
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let mcp = cursor_file(home);
    fs::write(&mcp, "{\"mcpServers\": {}}\n").unwrap();
    fs::set_permissions(&mcp, fs::Permissions::from_mode(0o444)).unwrap();
    for args in [&["mcp", "install", "cursor"][..], &["mcp", "install", "cursor", "--dry-run"]] {
        let err = fails(home, args);
        assert!(err.contains("read-only (mode 444)") && err.contains("chmod u+w"), "{err}");
    }
    assert_eq!(fs::read_to_string(&mcp).unwrap(), "{\"mcpServers\": {}}\n");
    assert_eq!(fs::metadata(&mcp).unwrap().permissions().mode() & 0o777, 0o444);
    assert_eq!(fs::read_dir(mcp.parent().unwrap()).unwrap().count(), 1, "no backup, no temporary file");
}

#[test]
fn a_hard_linked_file_is_written_in_place_so_its_twin_follows() {
    use std::os::unix::fs::MetadataExt as _;
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let mcp = cursor_file(home);
    fs::write(&mcp, "{\"mcpServers\": {}}\n").unwrap();
    let twin = home.join("cursor-twin.json");
    fs::hard_link(&mcp, &twin).unwrap();
    ok(home, &["mcp", "install", "cursor"]);
    assert_eq!(fs::metadata(&mcp).unwrap().ino(), fs::metadata(&twin).unwrap().ino(), "still one file");
    let v: Value = serde_json::from_str(&fs::read_to_string(&twin).unwrap()).unwrap();
    assert!(v["mcpServers"]["skilldeck"].is_object(), "{v}");
}

#[test]
fn crlf_line_endings_and_a_bom_are_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let config = home.join(".codex/config.toml");
    fs::create_dir_all(config.parent().unwrap()).unwrap();
    let crlf = CODEX.replace('\n', "\r\n");
    fs::write(&config, &crlf).unwrap();
    ok(home, &["mcp", "install", "codex"]);
    let text = fs::read_to_string(&config).unwrap();
    assert!(text.starts_with(&crlf), "{text:?}");
    assert_eq!(text.matches('\n').count(), text.matches("\r\n").count(), "every line still ends in CRLF: {text:?}");
    assert_eq!(state_of(home, "codex")["state"], "installed");
    ok(home, &["mcp", "uninstall", "codex"]);
    assert_eq!(fs::read_to_string(&config).unwrap(), crlf, "byte for byte");

    // A JSON file a Windows editor saved with a byte order mark.
    let mcp = cursor_file(home);
    let with_bom = "\u{feff}{\n  \"mcpServers\": {\n    \"other\": {\"command\": \"x\"}\n  }\n}\n";
    fs::write(&mcp, with_bom).unwrap();
    assert_eq!(state_of(home, "cursor")["state"], "not_installed");
    ok(home, &["mcp", "install", "cursor"]);
    let text = fs::read_to_string(&mcp).unwrap();
    let body = text.strip_prefix('\u{feff}').expect("the BOM is kept");
    let v: Value = serde_json::from_str(body).unwrap();
    assert!(v["mcpServers"]["skilldeck"].is_object() && v["mcpServers"]["other"].is_object(), "{v}");
    ok(home, &["mcp", "uninstall", "cursor"]);
    assert_eq!(fs::read_to_string(&mcp).unwrap(), with_bom);
}

#[test]
fn only_the_newest_three_backups_are_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let mcp = cursor_file(home);
    fs::write(&mcp, "{\"mcpServers\": {}}\n").unwrap();
    let backups = || {
        let mut names: Vec<String> = fs::read_dir(mcp.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n.contains(".skilldeck-backup-"))
            .collect();
        names.sort();
        names
    };
    let mut last_before = Vec::new();
    for round in 0..6 {
        last_before = fs::read(&mcp).unwrap();
        let action = if round % 2 == 0 { "install" } else { "uninstall" };
        ok(home, &["mcp", action, "cursor"]);
    }
    let kept = backups();
    assert_eq!(kept.len(), 3, "{kept:?}");
    let newest = kept.iter().map(|n| fs::read(mcp.parent().unwrap().join(n)).unwrap()).collect::<Vec<_>>();
    assert!(newest.contains(&last_before), "the newest backup holds the file before the last change");
}
