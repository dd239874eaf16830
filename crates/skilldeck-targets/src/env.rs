//! `Env`: the home folder and the environment variables the agent tools honour, read once so
//! resolving paths is a pure function (and tests give a fake HOME).

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The variables a known tool honours for where its folders are.
pub const VARS: [&str; 3] = ["CODEX_HOME", "CLAUDE_CONFIG_DIR", "XDG_CONFIG_HOME"];

/// The variables an agent honours for the size of its skills listing (Claude Code's
/// `SLASH_COMMAND_TOOL_CHAR_BUDGET`, see `budget::claude`).
pub const BUDGET_VARS: [&str; 1] = ["SLASH_COMMAND_TOOL_CHAR_BUDGET"];

/// The home folder and the variables in `VARS` that are set and non-empty.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Env {
    home: Option<PathBuf>,
    vars: BTreeMap<String, OsString>,
}

impl Env {
    /// `$HOME` (else the platform's idea of home) and the variables in `VARS` and
    /// `BUDGET_VARS`.
    pub fn from_process() -> Self {
        let set = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
        let home = set("HOME").map(PathBuf::from).or_else(dirs::home_dir);
        let vars = VARS.iter().chain(&BUDGET_VARS).filter_map(|k| set(k).map(|v| ((*k).to_owned(), v))).collect();
        Self { home, vars }
    }

    /// An environment with `home` and no variables.
    pub fn with_home(home: impl Into<PathBuf>) -> Self {
        Self { home: Some(home.into()), vars: BTreeMap::new() }
    }

    /// The same with `name` set to `value`.
    pub fn var_set(mut self, name: &str, value: impl Into<OsString>) -> Self {
        self.vars.insert(name.to_owned(), value.into());
        self
    }

    /// The home folder.
    pub fn home(&self) -> Option<&Path> {
        self.home.as_deref()
    }

    /// A variable's value as a path, when set and non-empty.
    pub fn var(&self, name: &str) -> Option<PathBuf> {
        self.vars.get(name).map(PathBuf::from)
    }

    /// A variable's value as text, when set, non-empty and valid UTF-8.
    pub fn var_text(&self, name: &str) -> Option<String> {
        self.vars.get(name).and_then(|v| v.to_str()).map(str::to_owned)
    }

    /// `~` and `~/…` made absolute under home; anything else unchanged.
    pub fn expand(&self, path: &Path) -> PathBuf {
        match (path.strip_prefix("~"), self.home()) {
            (Ok(rest), Some(home)) => home.join(rest),
            _ => path.to_path_buf(),
        }
    }
}
