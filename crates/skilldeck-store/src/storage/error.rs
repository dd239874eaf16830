//! `StorageError`, why a storage operation failed (each with what to do), and the store's
//! `Result`: the ground every other storage module stands on.

use skilldeck_skill::files::LimitError;
use skilldeck_skill::relpath::PathError;
use skilldeck_skill::scope::{Revision, Scope};

/// Why a storage operation failed. Each says what was wrong and what to do.
#[derive(Debug, thiserror::Error)]
pub enum StorageError {
    /// No such skill in that scope.
    #[error("no skill {name:?} in the {scope} scope; `skilldeck list` shows what is there")]
    SkillNotFound {
        /// The scope searched.
        scope: Scope,
        /// The name asked for.
        name: String,
    },
    /// No such file in the skill.
    #[error("the skill {name:?} has no file {path:?}")]
    FileNotFound {
        /// The skill.
        name: String,
        /// The file asked for.
        path: String,
    },
    /// The revision is not kept.
    #[error("revision {revision} of {name:?} is not kept; `skilldeck history {name}` lists the kept ones")]
    RevisionNotFound {
        /// The skill.
        name: String,
        /// The revision asked for.
        revision: Revision,
    },
    /// An upload without `SKILL.md` at its top.
    #[error("the upload has no SKILL.md at its top level; a skill folder must hold one")]
    NoSkillMd,
    /// A file is not UTF-8 text where text was asked for.
    #[error("{path:?} is not UTF-8 text; read it as raw bytes instead")]
    NotText {
        /// The file.
        path: String,
    },
    /// A path was refused.
    #[error("refused path {path:?}: {source}")]
    InvalidPath {
        /// The path as given.
        path: String,
        /// Why.
        source: PathError,
    },
    /// A stored file that is not safe to read: a symbolic link, a special file, or too large.
    #[error("in the skill {name:?}: {source}")]
    FileRefused {
        /// The skill.
        name: String,
        /// What was wrong with the file.
        source: crate::safe_read::ReadError,
    },
    /// An upload over a limit.
    #[error("upload refused: {0}; nothing was written")]
    Limit(#[from] LimitError),
    /// An I/O error, with what was being done.
    #[error("{context}: {source}")]
    Io {
        /// What was being done, naming the path.
        context: String,
        /// The error.
        source: std::io::Error,
    },
    /// A local write to a read-only scope (the team scope mirrors a team store).
    #[error(
        "the {scope} scope is read-only here: its skills come from the team store; change the skill in the \
         user scope and `skilldeck publish NAME --to team` it instead (nothing was changed)"
    )]
    ReadOnlyScope {
        /// The scope refused.
        scope: Scope,
    },
    /// A rename to a name a live skill of the scope already has.
    #[error(
        "there is already a skill named {name} in the {scope} scope; pick another name or delete it first \
         (nothing was changed)"
    )]
    NameTaken {
        /// The scope.
        scope: Scope,
        /// The name asked for.
        name: String,
    },
    /// A rename to a name with a history of its own: a deleted skill of that name.
    #[error(
        "{name} is the name of a deleted skill in the {scope} scope (its history is kept{}); bring it back with \
         `skilldeck restore {name} {}`, or pick another name (nothing was changed)",
        deleted.map_or_else(String::new, |r| format!(", last at v:{r}")),
        deleted.map_or_else(|| "N".to_owned(), |r| r.to_string())
    )]
    NameHasHistory {
        /// The scope.
        scope: Scope,
        /// The name asked for.
        name: String,
        /// The revision deleted, when the log says.
        deleted: Option<Revision>,
    },
    /// A rename the skill's own content refuses (the same name, a `SKILL.md` that is not text or
    /// whose `name` cannot be rewritten).
    #[error("{from} cannot be renamed to {to}: {reason} (nothing was changed)")]
    RenameRefused {
        /// The skill.
        from: String,
        /// The name asked for.
        to: String,
        /// Why.
        reason: String,
    },
    /// A team store's revision number given for a scope other than `team`.
    #[error("only the team scope takes a revision number from outside; the {scope} scope numbers its own")]
    NotTeamScope {
        /// The scope asked for.
        scope: Scope,
    },
    /// The blocking task running the operation failed.
    #[error("the storage task stopped unexpectedly: {0}")]
    Task(String),
}

impl StorageError {
    /// A stable code for the error, for UIs and scripts.
    pub fn code(&self) -> &'static str {
        match self {
            Self::SkillNotFound { .. } => "skill_not_found",
            Self::FileNotFound { .. } => "file_not_found",
            Self::RevisionNotFound { .. } => "revision_not_found",
            Self::NoSkillMd => "skill_md_missing",
            Self::NotText { .. } => "file_not_text",
            Self::InvalidPath { .. } => "path_invalid",
            Self::FileRefused { source, .. } => source.code(),
            Self::Limit(_) => "upload_too_large",
            Self::Io { .. } => "io_error",
            Self::ReadOnlyScope { .. } => "scope_read_only",
            Self::NameTaken { .. } => "name_taken",
            Self::NameHasHistory { .. } => "name_has_history",
            Self::RenameRefused { .. } => "rename_refused",
            Self::NotTeamScope { .. } | Self::Task(_) => "internal_error",
        }
    }

    /// The error for a refused read of `path` in the skill `name`.
    pub(crate) fn read(name: &str, path: &str, e: crate::safe_read::ReadError) -> Self {
        use crate::safe_read::ReadError;
        match e {
            ReadError::NotFound { .. } | ReadError::Folder { .. } => {
                Self::FileNotFound { name: name.to_owned(), path: path.to_owned() }
            }
            ReadError::Io { path: shown, source } => Self::Io { context: format!("could not read {shown}"), source },
            refused @ (ReadError::Symlink { .. } | ReadError::NotRegular { .. } | ReadError::TooLarge { .. }) => {
                Self::FileRefused { name: name.to_owned(), source: refused }
            }
        }
    }

    /// Wraps an I/O error with what was being done to which path.
    pub(crate) fn io(what: &str, path: &std::path::Path) -> impl FnOnce(std::io::Error) -> Self {
        let context = format!("could not {what} {}", path.display());
        move |source| Self::Io { context, source }
    }
}

/// Result of storage operations.
pub type Result<T, E = StorageError> = std::result::Result<T, E>;
