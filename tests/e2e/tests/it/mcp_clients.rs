//! Skilldeck's MCP server on the agents' cards in the real window, over a fake HOME: Add keeps
//! Cursor's other server and VS Code's comments (the files read back), a backup holds the old
//! bytes, Remove gives the file back as it was, and an unparsable file shows its error and is
//! never written.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use serde_json::{Value, json};
use skilldeck_e2e::{Session, enabled, user_home_of};
use std::fs;
use std::path::{Path, PathBuf};

const CURSOR: &str = "{\n  \"mcpServers\": {\n    \"github\": {\n      \"command\": \"npx\",\n      \"args\": [\"-y\", \"@modelcontextprotocol/server-github\"]\n    }\n  }\n}\n";

const VSCODE: &str = r#"{
  // Servers for every workspace.
  "servers": {
    /* the one from the docs */
    "fetch": {"type": "stdio", "command": "uvx", "args": ["mcp-server-fetch"]}, // keep me
  },
}
"#;

const CODEX_BROKEN: &str = "model = \"o3\"\n[mcp_servers.other\ncommand = \"x\"\n";

fn backups(file: &Path) -> Vec<PathBuf> {
    let prefix = format!("{}.skilldeck-backup-", file.file_name().unwrap().to_str().unwrap());
    let mut out: Vec<PathBuf> = fs::read_dir(file.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_str().unwrap().starts_with(&prefix))
        .collect();
    out.sort();
    out
}

/// The `skilldeck` beside the app binary: what the app writes into the clients' settings.
fn cli_beside_app() -> String {
    let app = std::env::var_os("SKILLDECK_APP_BIN")
        .map_or_else(|| skilldeck_e2e::root().join("target/debug/skilldeck-app"), PathBuf::from);
    // The app writes the path it runs from, which has no `..` in it.
    app.with_file_name("skilldeck").canonicalize().unwrap().to_str().unwrap().to_owned()
}

async fn add_or_remove(s: &Session, client: &str, button: &str, file: &Path, expect_backup: bool) {
    let css = format!(".mcp-client[data-client='{client}'] {button}");
    // Centred, clear of the toast the previous change left at the bottom.
    let centre = format!("document.querySelector(\"{css}\").scrollIntoView({{block: 'center'}}); return true;");
    s.wait_until("the button is in view", &centre).await;
    s.click(&css).await;
    s.wait_until("the confirmation opens", "return document.querySelector('#mcp-confirm-dialog').open;").await;
    assert_eq!(s.text_of("#mcp-confirm-file").await, file.to_str().unwrap());
    let backup = s.text_of("#mcp-confirm-backup").await;
    if expect_backup {
        assert!(backup.contains(&format!("{}.skilldeck-backup-", file.display())), "{backup}");
    }
    s.screenshot(&format!("confirm-{client}{button}")).await;
    s.click("#mcp-confirm-ok").await;
    s.wait_until("the confirmation closes", "return !document.querySelector('#mcp-confirm-dialog').open;").await;
}

#[tokio::test(flavor = "current_thread")]
async fn the_agents_cards_add_and_remove_only_our_mcp_entry_and_never_write_a_broken_file() {
    if !enabled("the_agents_cards_add_and_remove_only_our_mcp_entry_and_never_write_a_broken_file") {
        return;
    }
    let s = Session::start_with("mcp-clients", |home| {
        let user = user_home_of(home);
        for (rel, text) in
            [(".cursor/mcp.json", CURSOR), (".config/Code/User/mcp.json", VSCODE), (".codex/config.toml", CODEX_BROKEN)]
        {
            let p = user.join(rel);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, text).unwrap();
        }
    })
    .await;
    let user = s.user_home();
    let cursor = user.join(".cursor/mcp.json");
    let vscode = user.join(".config/Code/User/mcp.json");
    let codex = user.join(".codex/config.toml");

    s.click("#tab-agents").await;
    s.wait_for(".mcp-client[data-client='cursor'][data-state='not_installed']").await;
    s.wait_for(".mcp-client[data-client='vscode'][data-state='not_installed']").await;
    // The broken file: its parser error shown, no Add, the snippet offered instead.
    s.wait_for(".mcp-client[data-client='codex'][data-state='unreadable']").await;
    let error = s.text_of(".mcp-client[data-client='codex'] .mcp-error").await;
    assert!(error.contains("line 2") && error.contains("column"), "{error}");
    let add_enabled = s
        .client
        .execute("return !document.querySelector(\".mcp-client[data-client='codex'] .mcp-add\").disabled;", vec![])
        .await
        .unwrap();
    assert_eq!(add_enabled, json!(false));
    // Its folders are what to see to first (found, on, nothing delivered yet).
    let codex_next = s.text_of(".tool-card[data-tool='codex'] .next-step").await;
    assert_eq!(codex_next, "4 skills chosen for Codex are not in its folders yet: sync now");
    s.open_agent_card("codex").await;
    s.wait_text(".mcp-details[data-client='codex'] .mcp-snippet pre", 10, |t| t.contains("[mcp_servers.skilldeck]"))
        .await;
    // Claude Desktop's folder does not exist: listed, not detected, and it has no skill folders.
    let desktop = s.text_of(".tool-card[data-tool='claude-desktop']").await;
    assert!(desktop.contains("not detected"), "{desktop}");
    // VS Code's Copilot is GitHub Copilot's card: its MCP settings are VS Code's.
    let copilot = s.text_of(".tool-card[data-tool='github-copilot'] .mcp-client").await;
    assert!(copilot.contains("in VS Code's settings"), "{copilot}");
    s.screenshot("clients").await;

    // Add to Cursor: the other server stays, ours runs the skilldeck beside the app.
    add_or_remove(&s, "cursor", ".mcp-add", &cursor, true).await;
    s.wait_for(".mcp-client[data-client='cursor'][data-state='installed']").await;
    let v: Value = serde_json::from_str(&fs::read_to_string(&cursor).unwrap()).unwrap();
    let want_github = serde_json::from_str::<Value>(CURSOR).unwrap()["mcpServers"]["github"].clone();
    assert_eq!(v["mcpServers"]["github"], want_github);
    assert_eq!(v["mcpServers"]["skilldeck"], json!({"command": cli_beside_app(), "args": ["mcp"]}));
    let b = backups(&cursor);
    assert_eq!(b.len(), 1);
    assert_eq!(fs::read_to_string(&b[0]).unwrap(), CURSOR);

    // Add to VS Code: every comment kept where it was.
    add_or_remove(&s, "vscode", ".mcp-add", &vscode, true).await;
    s.wait_for(".mcp-client[data-client='vscode'][data-state='installed']").await;
    let text = fs::read_to_string(&vscode).unwrap();
    for comment in ["// Servers for every workspace.", "/* the one from the docs */", "// keep me"] {
        assert!(text.contains(comment), "{comment} lost:\n{text}");
    }
    assert!(text.starts_with(&VSCODE[..VSCODE.find("// keep me").unwrap()]), "{text}");
    assert!(text.contains("\"skilldeck\": {"), "{text}");
    assert_eq!(fs::read_to_string(&backups(&vscode)[0]).unwrap(), VSCODE);
    s.screenshot("added").await;

    // Remove from Cursor: the file is as it was before Add.
    add_or_remove(&s, "cursor", ".mcp-remove", &cursor, true).await;
    s.wait_for(".mcp-client[data-client='cursor'][data-state='not_installed']").await;
    assert_eq!(fs::read_to_string(&cursor).unwrap(), CURSOR);
    assert_eq!(backups(&cursor).len(), 2, "Remove backs up first too");

    // The broken file was never written, nor backed up.
    assert_eq!(fs::read_to_string(&codex).unwrap(), CODEX_BROKEN);
    assert!(backups(&codex).is_empty());
    s.screenshot("removed").await;
    s.finish().await;
}
