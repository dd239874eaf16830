//! Where each client keeps its user-level MCP settings, from its documentation, with the
//! environment overrides each one honours. Holds paths only; reads and writes nothing.

use crate::clients::Client;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The file formats the installer edits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Strict JSON (no comments): servers under `key`.
    Json {
        /// The object holding the servers.
        key: &'static str,
    },
    /// JSON with comments and trailing commas (VS Code's `mcp.json`): servers under `key`.
    Jsonc {
        /// The object holding the servers.
        key: &'static str,
    },
    /// TOML (Codex): servers under `[mcp_servers]`.
    Toml,
    /// YAML (Goose): servers under `extensions:`.
    Yaml,
}

/// The variables the paths depend on, read once from the environment (or given by a test).
#[derive(Debug, Clone, Default)]
pub struct Locations {
    /// `HOME` (`USERPROFILE` on Windows).
    pub home: PathBuf,
    /// `XDG_CONFIG_HOME`, honoured where the client honours it (Linux).
    pub xdg_config_home: Option<PathBuf>,
    /// `APPDATA` (Windows).
    pub appdata: Option<PathBuf>,
    /// `CODEX_HOME`: where Codex keeps `config.toml` instead of `~/.codex`.
    pub codex_home: Option<PathBuf>,
    /// `CLAUDE_CONFIG_DIR`: where Claude Code keeps `.claude.json` instead of the home folder.
    pub claude_config_dir: Option<PathBuf>,
}

/// One client's settings file and how to read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigFile {
    /// The client.
    pub client: Client,
    /// The user-level settings file.
    pub path: PathBuf,
    /// The file's format.
    pub format: Format,
    /// A path whose existence shows the client is installed (its own folder).
    pub marker: PathBuf,
}

impl Locations {
    /// The locations of this process's environment. `None` when no home folder is known.
    pub fn from_env() -> Option<Self> {
        let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
        let home = if cfg!(windows) { var("USERPROFILE") } else { var("HOME") }?;
        Some(Self {
            home,
            xdg_config_home: var("XDG_CONFIG_HOME"),
            appdata: var("APPDATA"),
            codex_home: var("CODEX_HOME"),
            claude_config_dir: var("CLAUDE_CONFIG_DIR"),
        })
    }

    /// The platform's per-user application settings folder, as Electron's `appData` (VS Code,
    /// Claude Desktop) resolves it: `~/Library/Application Support`, `%APPDATA%`, or
    /// `$XDG_CONFIG_HOME` (default `~/.config`).
    fn app_data(&self) -> PathBuf {
        if cfg!(target_os = "macos") {
            self.home.join("Library/Application Support")
        } else if cfg!(windows) {
            self.appdata.clone().unwrap_or_else(|| self.home.join("AppData/Roaming"))
        } else {
            self.xdg_config()
        }
    }

    fn xdg_config(&self) -> PathBuf {
        self.xdg_config_home.clone().unwrap_or_else(|| self.home.join(".config"))
    }

    /// `client`'s user-level settings file.
    pub fn config_file(&self, client: Client) -> ConfigFile {
        let (path, format, marker) = match client {
            // https://modelcontextprotocol.io/quickstart/user: claude_desktop_config.json in
            // ~/Library/Application Support/Claude (macOS) or %APPDATA%\Claude (Windows). There
            // is no official Linux build; the community builds (e.g. claude-desktop-debian)
            // are the same Electron app, whose appData is $XDG_CONFIG_HOME, so we use
            // ~/.config/Claude: the one place a Linux build looks.
            Client::ClaudeDesktop => {
                let dir = self.app_data().join("Claude");
                (dir.join("claude_desktop_config.json"), Format::Json { key: "mcpServers" }, dir)
            }
            // https://docs.anthropic.com/en/docs/claude-code/mcp: user-scoped servers live in
            // ~/.claude.json under "mcpServers"; with CLAUDE_CONFIG_DIR set
            // (https://docs.anthropic.com/en/docs/claude-code/settings) Claude Code keeps that
            // file in that folder. The file holds much other state: only our entry is touched.
            Client::ClaudeCode => match &self.claude_config_dir {
                Some(dir) => (dir.join(".claude.json"), Format::Json { key: "mcpServers" }, dir.clone()),
                None => (self.home.join(".claude.json"), Format::Json { key: "mcpServers" }, self.home.join(".claude")),
            },
            // https://docs.cursor.com/context/model-context-protocol: ~/.cursor/mcp.json for
            // every project, servers under "mcpServers".
            Client::Cursor => {
                let dir = self.home.join(".cursor");
                (dir.join("mcp.json"), Format::Json { key: "mcpServers" }, dir)
            }
            // https://developers.openai.com/codex/mcp and /codex/config-reference:
            // $CODEX_HOME/config.toml (default ~/.codex), servers as [mcp_servers.NAME].
            Client::Codex => {
                let dir = self.codex_home.clone().unwrap_or_else(|| self.home.join(".codex"));
                (dir.join("config.toml"), Format::Toml, dir)
            }
            // https://code.visualstudio.com/docs/copilot/reference/mcp-configuration: the user
            // profile's mcp.json ("MCP: Open User Configuration"), beside settings.json in
            // Code/User under the app data folder
            // (https://code.visualstudio.com/docs/configure/settings#_settings-json-file);
            // JSON with comments, servers under "servers".
            Client::VsCode => {
                let dir = self.app_data().join("Code/User");
                (dir.join("mcp.json"), Format::Jsonc { key: "servers" }, dir)
            }
            // https://block.github.io/goose/docs/guides/config-files: ~/.config/goose/config.yaml
            // (macOS and Linux; the XDG config folder when set) or
            // %APPDATA%\Block\goose\config\config.yaml (Windows), servers under "extensions".
            Client::Goose => {
                let dir = if cfg!(windows) {
                    self.app_data().join("Block/goose/config")
                } else {
                    self.xdg_config().join("goose")
                };
                (dir.join("config.yaml"), Format::Yaml, dir)
            }
        };
        ConfigFile { client, path, format, marker }
    }
}

impl ConfigFile {
    /// Whether the client looks installed: its settings file or its own folder exists.
    pub fn detected(&self) -> bool {
        self.path.exists() || self.marker.exists()
    }
}

/// `path` with its last component suffixed (`config.toml` + `.x` = `config.toml.x`).
pub(crate) fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name: OsString = path.file_name().map(OsString::from).unwrap_or_default();
    name.push(suffix);
    path.with_file_name(name)
}
