//! The installer against real files in temp folders, one fixture per format: comments and
//! other servers kept, backups equal to the original, unparsable files untouched, idempotence.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use super::*;
use serde_json::json;
use sha2::{Digest as _, Sha256};
use std::fs;

const CMD: &str = "/opt/skilldeck/bin/skilldeck";

/// Locations under a temp folder: nothing here ever touches the real home.
fn locations(tmp: &Path) -> Locations {
    Locations {
        home: tmp.join("home"),
        xdg_config_home: Some(tmp.join("home/.config")),
        appdata: Some(tmp.join("appdata")),
        codex_home: Some(tmp.join("codex-home")),
        claude_config_dir: None,
    }
}

const VSCODE: &str = r#"// My MCP servers
{
  /* keep this block comment */
  "servers": {
    // the GitHub server
    "github": {
      "type": "http",
      "url": "https://api.githubcopilot.com/mcp/", // trailing comment
    },
  },
  "inputs": [],
}
"#;

const CURSOR: &str = r#"{
    "mcpServers": {
        "other": {
            "command": "npx",
            "args": ["-y", "other-mcp"]
        }
    },
    "unrelated": {"keep": [1, 2.50, true, null]}
}
"#;

/// As Claude Code writes it (two-space JSON), much else beside the servers.
const CLAUDE_CODE: &str = r#"{
  "numStartups": 42,
  "projects": {
    "/home/me/x": {
      "allowedTools": [],
      "history": [
        {
          "display": "hi",
          "pastedContents": {}
        }
      ]
    }
  },
  "mcpServers": {
    "other": {
      "type": "stdio",
      "command": "other",
      "args": [],
      "env": {}
    }
  },
  "userID": "abc"
}"#;

const CODEX: &str = r#"# Codex settings
model = "o3" # the model

[mcp_servers.other]
command = "other"   # aligned comment
args = ["a", "b"]

[profiles.fast]
model = "o4-mini"
"#;

const GOOSE: &str = r#"# Goose config
GOOSE_PROVIDER: openai
extensions:
  # the developer extension
  developer:
    enabled: true
    name: developer
    type: builtin
  other:
    cmd: other   # spaced comment
    args:
    - x
GOOSE_MODEL: gpt-4o
"#;

fn fixtures() -> [(Client, &'static str); 6] {
    [
        (Client::VsCode, VSCODE),
        (Client::Cursor, CURSOR),
        (Client::ClaudeDesktop, CURSOR),
        (Client::ClaudeCode, CLAUDE_CODE),
        (Client::Codex, CODEX),
        (Client::Goose, GOOSE),
    ]
}

/// The file's content as data, without our entry.
fn data_without_ours(format: Format, text: &str) -> Value {
    let (mut v, key) = match format {
        Format::Json { key } | Format::Jsonc { key } => {
            let root = jsonc_parser::cst::CstRootNode::parse(text, &Default::default()).unwrap();
            (root.value().unwrap().to_serde_value().unwrap(), key)
        }
        Format::Toml => {
            (serde_json::to_value(::toml::from_str::<::toml::Table>(text).unwrap()).unwrap(), "mcp_servers")
        }
        Format::Yaml => (serde_yaml_ng::from_str::<Value>(text).unwrap(), "extensions"),
    };
    if let Some(servers) = v.get_mut(key).and_then(|s| s.as_object_mut()) {
        servers.remove(NAME);
    }
    v
}

fn backups(path: &Path) -> Vec<PathBuf> {
    let name = path.file_name().unwrap().to_str().unwrap().to_owned() + ".skilldeck-backup-";
    let mut out: Vec<PathBuf> = fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_str().unwrap().starts_with(&name))
        .collect();
    out.sort();
    out
}

/// Every line of `original` is in `after`, in order (a comma added at a line's end aside).
fn lines_kept(original: &str, after: &str) -> bool {
    let mut after = after.lines().map(|l| l.trim_end().trim_end_matches(','));
    original.lines().map(|l| l.trim_end().trim_end_matches(',')).all(|want| after.any(|got| got == want))
}

#[test]
fn install_keeps_everything_else_backs_up_first_is_idempotent_and_uninstall_restores() {
    for (client, original) in fixtures() {
        let tmp = tempfile::tempdir().unwrap();
        let file = locations(tmp.path()).config_file(client);
        fs::create_dir_all(file.path.parent().unwrap()).unwrap();
        fs::write(&file.path, original).unwrap();
        let id = client.id();
        assert_eq!(status(&file, CMD).state, State::NotInstalled, "{id}");
        assert!(status(&file, CMD).detected, "{id}");

        let plan = plan_install(&file, CMD).unwrap();
        assert_eq!(plan.action, Action::Add, "{id}");
        assert_eq!(fs::read_to_string(&file.path).unwrap(), original, "{id}: a plan writes nothing");
        let applied = apply(&plan).unwrap();
        let after = fs::read_to_string(&file.path).unwrap();
        // The backup holds the original bytes.
        let backup = applied.backup.clone().unwrap();
        assert_eq!(backups(&file.path), std::slice::from_ref(&backup), "{id}");
        assert_eq!(fs::read_to_string(&backup).unwrap(), original, "{id}");
        // Our entry is there; everything else is the same data and the same lines.
        assert_eq!(read_entry(file.format, &after).unwrap(), Some(entry(client, CMD)), "{id}:\n{after}");
        assert_eq!(data_without_ours(file.format, &after), data_without_ours(file.format, original), "{id}");
        assert!(lines_kept(original, &after), "{id}: a line of the original is gone:\n{after}");
        assert_eq!(status(&file, CMD).state, State::Installed, "{id}");

        // Twice: nothing changes, no new backup.
        let again = plan_install(&file, CMD).unwrap();
        assert_eq!(again.action, Action::Unchanged, "{id}");
        assert_eq!(apply(&again).unwrap().backup, None, "{id}");
        assert_eq!(fs::read_to_string(&file.path).unwrap(), after, "{id}");
        assert_eq!(backups(&file.path).len(), 1, "{id}");

        // Another binary: outdated, then replaced in place.
        assert_eq!(status(&file, "/elsewhere/skilldeck").state, State::Outdated, "{id}");
        let moved = plan_install(&file, "/elsewhere/skilldeck").unwrap();
        assert_eq!(moved.action, Action::Replace, "{id}");
        apply(&moved).unwrap();
        assert_eq!(status(&file, "/elsewhere/skilldeck").state, State::Installed, "{id}");
        apply(&plan_install(&file, CMD).unwrap()).unwrap();

        // Uninstall: our entry gone, the rest as it was.
        let removal = plan_uninstall(&file).unwrap();
        assert_eq!(removal.action, Action::Remove, "{id}");
        apply(&removal).unwrap();
        let restored = fs::read_to_string(&file.path).unwrap();
        assert_eq!(status(&file, CMD).state, State::NotInstalled, "{id}");
        assert_eq!(data_without_ours(file.format, &restored), data_without_ours(file.format, original), "{id}");
        assert_eq!(restored, original, "{id}: install then uninstall gives back the very bytes");
        assert_eq!(plan_uninstall(&file).unwrap().action, Action::Unchanged, "{id}");
    }
}

#[test]
fn comments_outside_our_entry_are_kept_byte_for_byte() {
    let tmp = tempfile::tempdir().unwrap();
    let file = locations(tmp.path()).config_file(Client::VsCode);
    fs::create_dir_all(file.path.parent().unwrap()).unwrap();
    fs::write(&file.path, VSCODE).unwrap();
    apply(&plan_install(&file, CMD).unwrap()).unwrap();
    let after = fs::read_to_string(&file.path).unwrap();
    // Everything before our entry is the original's bytes up to the servers' last member.
    let cut = VSCODE.find("    },\n  },").unwrap() + "    },".len();
    assert!(after.starts_with(&VSCODE[..cut]), "{after}");
    for comment in ["// My MCP servers", "/* keep this block comment */", "// the GitHub server", "// trailing comment"]
    {
        assert_eq!(after.matches(comment).count(), 1, "{comment}:\n{after}");
    }
    let tail = &VSCODE[VSCODE.find("  \"inputs\"").unwrap()..];
    assert!(after.ends_with(tail), "{after}");
}

#[test]
fn an_unparsable_file_is_reported_with_line_and_column_and_never_written() {
    let broken = [
        (Client::VsCode, "{\n  \"servers\": {\n    \"a\": {]\n  }\n}\n", "line 3"),
        (Client::Cursor, "{\n  // comments are not JSON\n  \"mcpServers\": {}\n}\n", "line 2"),
        (Client::ClaudeCode, "{\"mcpServers\": {\"a\": 1,}}", "line 1"),
        (Client::Codex, "model = \"o3\"\n[mcp_servers\n", "line 2"),
        (Client::Goose, "extensions:\n  developer: [unclosed\nother: 1\n", "line"),
    ];
    for (client, text, at) in broken {
        let tmp = tempfile::tempdir().unwrap();
        let file = locations(tmp.path()).config_file(client);
        fs::create_dir_all(file.path.parent().unwrap()).unwrap();
        fs::write(&file.path, text).unwrap();
        let hash = |p: &Path| Sha256::digest(fs::read(p).unwrap());
        let before = hash(&file.path);
        let State::Unreadable { error } = status(&file, CMD).state else { panic!("{}: readable", client.id()) };
        assert!(error.contains(at) && error.contains("column"), "{}: {error}", client.id());
        let err = plan_install(&file, CMD).unwrap_err();
        assert!(matches!(err, InstallError::Unparsable { .. }), "{}: {err}", client.id());
        assert!(err.to_string().contains("was not changed"), "{err}");
        assert!(matches!(plan_uninstall(&file).unwrap_err(), InstallError::Unparsable { .. }));
        assert_eq!(hash(&file.path), before, "{}", client.id());
        assert!(backups(&file.path).is_empty(), "{}", client.id());
    }
}

#[test]
fn a_missing_file_is_created_with_only_our_entry_and_its_folder() {
    for client in Client::ALL {
        let tmp = tempfile::tempdir().unwrap();
        let file = locations(tmp.path()).config_file(client);
        assert!(!file.path.parent().unwrap().exists());
        assert!(!status(&file, CMD).detected);
        let plan = plan_install(&file, CMD).unwrap();
        assert_eq!(plan.action, Action::Create);
        let applied = apply(&plan).unwrap();
        assert_eq!(applied.backup, None);
        let text = fs::read_to_string(&file.path).unwrap();
        assert_eq!(read_entry(file.format, &text).unwrap(), Some(entry(client, CMD)), "{text}");
        let mut only = data_without_ours(file.format, &text);
        let key = match file.format {
            Format::Json { key } | Format::Jsonc { key } => key,
            Format::Toml => "mcp_servers",
            Format::Yaml => "extensions",
        };
        only[key] = json!({});
        assert_eq!(only, json!({ key: {} }), "{}: {text}", client.id());
        assert_eq!(status(&file, CMD).state, State::Installed);
    }
}

#[test]
fn a_file_changed_after_the_plan_is_not_overwritten() {
    let tmp = tempfile::tempdir().unwrap();
    let file = locations(tmp.path()).config_file(Client::Cursor);
    fs::create_dir_all(file.path.parent().unwrap()).unwrap();
    fs::write(&file.path, CURSOR).unwrap();
    let plan = plan_install(&file, CMD).unwrap();
    fs::write(&file.path, "{}\n").unwrap();
    assert!(matches!(apply(&plan).unwrap_err(), InstallError::Changed(_)));
    assert_eq!(fs::read_to_string(&file.path).unwrap(), "{}\n");
}

#[cfg(unix)]
#[test]
fn permissions_are_kept_and_a_symlinked_file_is_edited_where_it_lives() {
    use std::os::unix::fs::{PermissionsExt as _, symlink};
    let tmp = tempfile::tempdir().unwrap();
    let file = locations(tmp.path()).config_file(Client::Codex);
    fs::create_dir_all(file.path.parent().unwrap()).unwrap();
    let real = tmp.path().join("dotfiles/codex.toml");
    fs::create_dir_all(real.parent().unwrap()).unwrap();
    fs::write(&real, CODEX).unwrap();
    fs::set_permissions(&real, fs::Permissions::from_mode(0o640)).unwrap();
    symlink(&real, &file.path).unwrap();
    apply(&plan_install(&file, CMD).unwrap()).unwrap();
    assert!(fs::symlink_metadata(&file.path).unwrap().file_type().is_symlink());
    assert_eq!(fs::metadata(&real).unwrap().permissions().mode() & 0o777, 0o640);
    assert_eq!(status(&file, CMD).state, State::Installed);
}

#[test]
fn a_backup_is_never_readable_by_more_people_than_the_file() {
    use std::os::unix::fs::PermissionsExt as _;
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join(".claude.json");
    fs::write(&file, "{\"mcpServers\": {\"other\": {\"env\": {\"KEY\": \"secret\"}}}}").unwrap();
    fs::set_permissions(&file, fs::Permissions::from_mode(0o600)).unwrap();
    let backup = super::write::backup(&file, &fs::read(&file).unwrap(), 3).unwrap();
    assert_eq!(fs::metadata(&backup).unwrap().permissions().mode() & 0o777, 0o600);
    assert_eq!(fs::read(&backup).unwrap(), fs::read(&file).unwrap());
    // A file whose permissions cannot be read (gone meanwhile): the backup is the owner's alone.
    let gone = tmp.path().join("gone.json");
    let backup = super::write::backup(&gone, b"{}", 3).unwrap();
    assert_eq!(fs::metadata(&backup).unwrap().permissions().mode() & 0o777, 0o600);
}

#[test]
fn env_overrides_move_the_files() {
    let tmp = tempfile::tempdir().unwrap();
    let mut at = locations(tmp.path());
    assert_eq!(at.config_file(Client::Codex).path, tmp.path().join("codex-home/config.toml"));
    assert_eq!(at.config_file(Client::ClaudeCode).path, tmp.path().join("home/.claude.json"));
    at.claude_config_dir = Some(tmp.path().join("cc"));
    assert_eq!(at.config_file(Client::ClaudeCode).path, tmp.path().join("cc/.claude.json"));
    at.codex_home = None;
    assert_eq!(at.config_file(Client::Codex).path, tmp.path().join("home/.codex/config.toml"));
    assert_eq!(at.config_file(Client::Cursor).path, tmp.path().join("home/.cursor/mcp.json"));
    if cfg!(target_os = "linux") {
        assert_eq!(at.config_file(Client::VsCode).path, tmp.path().join("home/.config/Code/User/mcp.json"));
        assert_eq!(at.config_file(Client::Goose).path, tmp.path().join("home/.config/goose/config.yaml"));
        assert_eq!(
            at.config_file(Client::ClaudeDesktop).path,
            tmp.path().join("home/.config/Claude/claude_desktop_config.json")
        );
    }
}
