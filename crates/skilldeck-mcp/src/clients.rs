//! `skilldeck mcp --config CLIENT`: the snippet that adds Skilldeck to an MCP client's settings,
//! in each client's own format, with the page documenting it. Holds the table; writes no file.

use serde_json::json;

/// A client whose MCP settings format is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Client {
    /// Claude Desktop.
    ClaudeDesktop,
    /// Claude Code (the CLI).
    ClaudeCode,
    /// Cursor.
    Cursor,
    /// OpenAI Codex (CLI, IDE extension and app share one file).
    Codex,
    /// Visual Studio Code (Copilot agent mode).
    VsCode,
    /// Goose.
    Goose,
}

impl Client {
    /// Every client, in the order `--config` lists them.
    pub const ALL: [Client; 6] =
        [Client::ClaudeDesktop, Client::ClaudeCode, Client::Cursor, Client::Codex, Client::VsCode, Client::Goose];

    /// The id `--config` takes.
    pub fn id(self) -> &'static str {
        match self {
            Client::ClaudeDesktop => "claude-desktop",
            Client::ClaudeCode => "claude-code",
            Client::Cursor => "cursor",
            Client::Codex => "codex",
            Client::VsCode => "vscode",
            Client::Goose => "goose",
        }
    }

    /// The client's name as people know it.
    pub fn name(self) -> &'static str {
        match self {
            Client::ClaudeDesktop => "Claude Desktop",
            Client::ClaudeCode => "Claude Code",
            Client::Cursor => "Cursor",
            Client::Codex => "Codex",
            Client::VsCode => "VS Code",
            Client::Goose => "Goose",
        }
    }

    /// The client for an id, or a message listing the ids.
    pub fn parse(id: &str) -> Result<Self, String> {
        Self::ALL.into_iter().find(|c| c.id() == id).ok_or_else(|| {
            let ids: Vec<&str> = Self::ALL.iter().map(|c| c.id()).collect();
            format!("unknown client {id:?}: use one of {}", ids.join(", "))
        })
    }
}

/// What to add, where, and the documentation it follows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snippet {
    /// Where it goes (a file), or where to run it (a command), as a sentence.
    pub location: &'static str,
    /// The text to add.
    pub text: String,
    /// The client's documentation of this format.
    pub doc: &'static str,
}

/// The server entry `skilldeck mcp install` writes under our name into `client`'s user-level
/// settings file: what `--config` prints for the file-based clients, and for Claude Code what
/// `claude mcp add --scope user` itself writes into `~/.claude.json`. VS Code's user profile
/// gets no `--workspace ${workspaceFolder}`: the server follows the roots VS Code sends.
pub fn entry(client: Client, command: &str) -> serde_json::Value {
    match client {
        Client::ClaudeDesktop | Client::Cursor | Client::Codex => json!({"command": command, "args": ["mcp"]}),
        Client::ClaudeCode => json!({"type": "stdio", "command": command, "args": ["mcp"], "env": {}}),
        Client::VsCode => json!({"type": "stdio", "command": command, "args": ["mcp"]}),
        Client::Goose => json!({
            "name": "Skilldeck",
            "type": "stdio",
            "cmd": command,
            "args": ["mcp"],
            "enabled": true,
            "timeout": 300
        }),
    }
}

/// The snippet that runs `command mcp` from `client`.
pub fn snippet(client: Client, command: &str) -> Snippet {
    let server = json!({"command": command, "args": ["mcp"]});
    let pretty = |v: serde_json::Value| serde_json::to_string_pretty(&v).unwrap_or_default();
    match client {
        Client::ClaudeDesktop => Snippet {
            location: "Add to claude_desktop_config.json (Settings > Developer > Edit Config), under \"mcpServers\"",
            text: pretty(json!({"mcpServers": {"skilldeck": server}})),
            doc: "https://modelcontextprotocol.io/quickstart/user",
        },
        Client::ClaudeCode => Snippet {
            location: "Run in your project's folder (or add to .mcp.json at its root, under \"mcpServers\")",
            text: format!("claude mcp add skilldeck -- {} mcp", shell_word(command)),
            doc: "https://docs.anthropic.com/en/docs/claude-code/mcp",
        },
        Client::Cursor => Snippet {
            location: "Add to ~/.cursor/mcp.json (every project) or .cursor/mcp.json (one project), under \"mcpServers\"",
            text: pretty(json!({"mcpServers": {"skilldeck": server}})),
            doc: "https://docs.cursor.com/context/model-context-protocol",
        },
        Client::Codex => {
            let mut table = toml::Table::new();
            table.insert("command".into(), command.into());
            table.insert("args".into(), toml::Value::Array(vec!["mcp".into()]));
            let mut servers = toml::Table::new();
            servers.insert("skilldeck".into(), toml::Value::Table(table));
            let mut root = toml::Table::new();
            root.insert("mcp_servers".into(), toml::Value::Table(servers));
            Snippet {
                location: "Add to ~/.codex/config.toml (or .codex/config.toml in a trusted project)",
                text: toml::to_string(&root).unwrap_or_default(),
                doc: "https://developers.openai.com/codex/mcp",
            }
        }
        Client::VsCode => Snippet {
            location: "Add to .vscode/mcp.json in the workspace (or your user profile's mcp.json), under \"servers\"",
            text: pretty(json!({"servers": {"skilldeck": {
                "type": "stdio",
                "command": command,
                "args": ["mcp", "--workspace", "${workspaceFolder}"]
            }}})),
            doc: "https://code.visualstudio.com/docs/copilot/reference/mcp-configuration",
        },
        Client::Goose => {
            let value = json!({"extensions": {"skilldeck": entry(Client::Goose, command)}});
            Snippet {
                location: "Add to ~/.config/goose/config.yaml, under \"extensions\"",
                text: serde_yaml_ng::to_string(&value).unwrap_or_default(),
                doc: "https://block.github.io/goose/docs/guides/config-files",
            }
        }
    }
}

/// `s` as one word for a POSIX shell.
fn shell_word(s: &str) -> String {
    if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "/._-+:=@%".contains(c)) {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::Value;

    const CMD: &str = "/opt/my tools/skilldeck";

    /// Each snippet parsed back with its format's parser: the server entry it holds.
    fn parsed(client: Client) -> Value {
        let text = snippet(client, CMD).text;
        match client {
            Client::ClaudeDesktop | Client::Cursor => {
                serde_json::from_str::<Value>(&text).unwrap()["mcpServers"]["skilldeck"].clone()
            }
            Client::VsCode => serde_json::from_str::<Value>(&text).unwrap()["servers"]["skilldeck"].clone(),
            Client::Codex => {
                let t: toml::Table = text.parse().unwrap();
                serde_json::to_value(&t["mcp_servers"]["skilldeck"]).unwrap()
            }
            Client::Goose => serde_yaml_ng::from_str::<Value>(&text).unwrap()["extensions"]["skilldeck"].clone(),
            Client::ClaudeCode => Value::String(text),
        }
    }

    #[test]
    fn every_snippet_parses_in_its_format_and_runs_skilldeck_mcp() {
        let expect = [
            (Client::ClaudeDesktop, json!({"command": CMD, "args": ["mcp"]})),
            (Client::Cursor, json!({"command": CMD, "args": ["mcp"]})),
            (Client::Codex, json!({"command": CMD, "args": ["mcp"]})),
            (
                Client::VsCode,
                json!({"type": "stdio", "command": CMD, "args": ["mcp", "--workspace", "${workspaceFolder}"]}),
            ),
            (
                Client::Goose,
                json!({"name": "Skilldeck", "type": "stdio", "cmd": CMD, "args": ["mcp"], "enabled": true, "timeout": 300}),
            ),
            (Client::ClaudeCode, json!("claude mcp add skilldeck -- '/opt/my tools/skilldeck' mcp")),
        ];
        for (client, want) in expect {
            assert_eq!(parsed(client), want, "{}", client.id());
        }
    }

    #[test]
    fn clients_are_named_by_their_ids() {
        for c in Client::ALL {
            assert_eq!(Client::parse(c.id()), Ok(c));
        }
        assert!(Client::parse("emacs").unwrap_err().contains("claude-desktop, claude-code"));
    }
}
