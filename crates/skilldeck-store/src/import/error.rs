//! Why an import was refused: `ImportError`, each with a stable code.
//! Holds the error type only; what raises it is the reading in the sibling modules.

use crate::storage::StorageError;
use skilldeck_skill::files::LimitError;
use std::path::{Path, PathBuf};

/// Why an import was refused. Nothing is written to the store in any of these cases.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// The source path does not exist.
    #[error("{0} does not exist")]
    NotFound(PathBuf),
    /// The source is neither a folder, a `SKILL.md` nor a `.zip`/`.skill` archive.
    #[error("{0} is not a skill folder, a SKILL.md, or a .zip/.skill archive")]
    Unsupported(PathBuf),
    /// The source is a symbolic link to nothing.
    #[error("{0} is a symbolic link that leads nowhere; import the folder or archive by its own path")]
    DanglingLink(PathBuf),
    /// No `SKILL.md` at the top (or under one top folder of an archive), nor in any folder
    /// below it.
    #[error(
        "{0} holds no SKILL.md, at its top nor in any folder below it, so it holds no skill; a skill is a folder with \
         a SKILL.md"
    )]
    NotASkill(PathBuf),
    /// Another skill of the same import has this name already; only the first is imported.
    #[error(
        "another skill in this import is also named {name:?} (at {first}); only that one is imported, so rename one \
         of them or import them separately"
    )]
    Duplicate {
        /// The shared name.
        name: String,
        /// Where the first skill of that name is: its source and location.
        first: String,
    },
    /// An entry that would leave the skill, a link, or a special file.
    #[error("refused {entry:?}: {reason}; nothing was imported")]
    Hostile {
        /// The entry as named in the source.
        entry: String,
        /// Why it is refused.
        reason: String,
    },
    /// Over an upload limit.
    #[error("refused: {0}; nothing was imported")]
    Limit(#[from] LimitError),
    /// The archive could not be read.
    #[error("{path} is not a readable zip archive: {reason}")]
    Archive {
        /// The archive.
        path: PathBuf,
        /// What the zip reader said.
        reason: String,
    },
    /// No usable name in the frontmatter nor in the folder name.
    #[error(
        "cannot tell the skill's name: set `name:` in SKILL.md to lowercase letters, digits and hyphens (found {found:?})"
    )]
    NoName {
        /// The best candidate found.
        found: String,
    },
    /// An I/O error while reading the source.
    #[error("could not read {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// The store refused the write.
    #[error(transparent)]
    Storage(#[from] StorageError),
}

impl ImportError {
    /// A stable code for UIs and scripts.
    pub fn code(&self) -> &'static str {
        match self {
            Self::NotFound(_) => "source_not_found",
            Self::Unsupported(_) => "source_unsupported",
            Self::DanglingLink(_) => "source_not_found",
            Self::NotASkill(_) => "skill_md_missing",
            Self::Duplicate { .. } => "name_duplicate",
            Self::Hostile { .. } => "source_hostile",
            Self::Limit(_) => "upload_too_large",
            Self::Archive { .. } => "archive_invalid",
            Self::NoName { .. } => "name_invalid",
            Self::Io { .. } => "io_error",
            Self::Storage(e) => e.code(),
        }
    }
}

pub(crate) fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> ImportError + '_ {
    move |source| ImportError::Io { path: path.to_path_buf(), source }
}
