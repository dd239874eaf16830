//! `SkilldeckHome`: where Skilldeck keeps its data, and the path of each thing in it.
//! Holds path arithmetic only; nothing here reads or writes files.

use skilldeck_skill::name::SkillName;
use skilldeck_skill::scope::Scope;
use std::path::{Path, PathBuf};

/// The environment variable that overrides the data folder.
pub const HOME_ENV: &str = "SKILLDECK_HOME";

/// No data folder could be found.
#[derive(Debug, thiserror::Error)]
#[error("no data folder: set SKILLDECK_HOME to a folder Skilldeck may write to")]
pub struct NoHomeError;

/// The root of Skilldeck's data (`$SKILLDECK_HOME`, or the platform data dir).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkilldeckHome {
    root: PathBuf,
}

impl SkilldeckHome {
    /// A home at `root`.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    /// `$SKILLDECK_HOME` when set and non-empty, else `<platform data dir>/skilldeck`.
    pub fn from_env() -> Result<Self, NoHomeError> {
        match std::env::var_os(HOME_ENV) {
            Some(v) if !v.is_empty() => Ok(Self::new(v)),
            _ => dirs::data_dir().map(|d| Self::new(d.join("skilldeck"))).ok_or(NoHomeError),
        }
    }

    /// The root folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `skills/<scope>/`.
    pub fn scope_dir(&self, scope: Scope) -> PathBuf {
        self.root.join("skills").join(scope.as_str())
    }

    /// `skills/<scope>/<name>/`.
    pub fn skill_dir(&self, scope: Scope, name: &SkillName) -> PathBuf {
        self.scope_dir(scope).join(name.as_str())
    }

    /// `history/<scope>/<name>/`: replaced revisions and the revision log.
    pub fn history_dir(&self, scope: Scope, name: &SkillName) -> PathBuf {
        self.root.join("history").join(scope.as_str()).join(name.as_str())
    }

    /// `locks/<scope>/<name>.lock`: the per-skill writer lock.
    pub fn lock_path(&self, scope: Scope, name: &SkillName) -> PathBuf {
        self.root.join("locks").join(scope.as_str()).join(format!("{name}.lock"))
    }

    /// `locks/<scope>.lock`: the scope's lock, held shared by each writer of one skill and
    /// exclusively by a batch of writes.
    pub fn scope_lock_path(&self, scope: Scope) -> PathBuf {
        self.root.join("locks").join(format!("{}.lock", scope.as_str()))
    }

    /// `sessions/`: agent transcripts.
    pub fn sessions_dir(&self) -> PathBuf {
        self.root.join("sessions")
    }

    /// `config.toml`.
    pub fn config_path(&self) -> PathBuf {
        self.root.join("config.toml")
    }

    /// `logs/`: the desktop app's daily log files (`skilldeck.log.YYYY-MM-DD`).
    pub fn logs_dir(&self) -> PathBuf {
        self.root.join("logs")
    }
}
