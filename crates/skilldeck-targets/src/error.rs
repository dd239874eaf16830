//! `TargetError`: why a target could not be read or synced. Each says what was wrong and what
//! to do.

use std::path::{Path, PathBuf};

/// Why a target operation failed.
#[derive(Debug, thiserror::Error)]
pub enum TargetError {
    /// config.toml's `[targets]` table is not of the expected shape.
    #[error(
        "{path}: [targets] is not valid: {message}; see docs/guide/agents.md (\"Choosing what goes where\") for its shape"
    )]
    Config {
        /// The file.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// A target named on the command line is neither a known tool nor a configured target.
    #[error("no target named {name:?}; known: {known} (`skilldeck targets` lists them)")]
    UnknownTarget {
        /// The name given.
        name: String,
        /// The names there are.
        known: String,
    },
    /// There is a file (or something else) where the target's folder should be.
    #[error("{} is not a folder; move it away, or remove this target from config.toml", path.display())]
    NotAFolder {
        /// The path.
        path: PathBuf,
    },
    /// A project's folder leads out of the project (it, or a folder above it, is a link).
    #[error("{} leads out of the project {} (to {}); Skilldeck does not go there through a project: make it a real folder inside the project, or sync that folder as its own target", path.display(), project.display(), resolved.display())]
    OutsideProject {
        /// The project folder, as named.
        path: PathBuf,
        /// Where it leads.
        resolved: PathBuf,
        /// The project, links resolved.
        project: PathBuf,
    },
    /// The target folder cannot be written.
    #[error("{} cannot be written ({source}); make it writable, or leave this target out (`skilldeck sync NAME…`)", path.display())]
    ReadOnly {
        /// The folder.
        path: PathBuf,
        /// The OS's reason.
        source: std::io::Error,
    },
    /// No home folder is known, so the tools' user-level folders cannot be found.
    #[error("no home folder: set HOME so the agent tools' folders can be found")]
    NoHome,
    /// `--overwrite`: the edited copy cannot be kept in the skill's History, so it is not
    /// replaced.
    #[error("the edited copy of {name:?} in {} cannot be kept in its History ({reason}); nothing was changed: fix or move that folder, or `skilldeck adopt {name} --from TARGET` after fixing it", path.display())]
    EditNotKept {
        /// The skill.
        name: String,
        /// The edited copy.
        path: PathBuf,
        /// Why it cannot be kept.
        reason: String,
    },
    /// Reading the skill from the store failed.
    #[error(transparent)]
    Store(#[from] skilldeck_store::StorageError),
    /// An I/O error, with what was being done.
    #[error("{context}: {source}")]
    Io {
        /// What was being done, naming the path.
        context: String,
        /// The error.
        source: std::io::Error,
    },
}

impl TargetError {
    /// Wraps an I/O error with what was being done to which path; a permission or read-only
    /// file-system error becomes `ReadOnly`.
    pub fn io(what: &str, path: &Path) -> impl FnOnce(std::io::Error) -> Self {
        let context = format!("could not {what} {}", path.display());
        let path = path.to_path_buf();
        move |source| match source.kind() {
            std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem => {
                Self::ReadOnly { path, source }
            }
            _ if source.raw_os_error() == Some(rustix::io::Errno::PERM.raw_os_error()) => {
                Self::ReadOnly { path, source }
            }
            _ => Self::Io { context, source },
        }
    }

    /// A stable code for scripts and UIs.
    pub fn code(&self) -> &'static str {
        match self {
            Self::Config { .. } => "targets_config_invalid",
            Self::UnknownTarget { .. } => "target_unknown",
            Self::NotAFolder { .. } => "target_not_a_folder",
            Self::OutsideProject { .. } => "target_outside_project",
            Self::ReadOnly { .. } => "target_read_only",
            Self::NoHome => "no_home",
            Self::EditNotKept { .. } => "target_edit_not_kept",
            Self::Store(e) => e.code(),
            Self::Io { .. } => "io_error",
        }
    }
}
