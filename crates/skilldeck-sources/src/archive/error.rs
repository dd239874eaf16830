//! `ArchiveError`: why an archive was refused or could not be unpacked, naming the entry that
//! decided it. Holds the errors and what made an entry hostile; no reading.

use super::kind::ArchiveKind;
use skilldeck_skill::relpath::PathError;
use std::fmt;
use std::path::PathBuf;

/// What makes one entry unsafe to unpack. One such entry refuses the whole archive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hostility {
    /// Its name could land outside the folder or is not a usable path: absolute, `..`, a
    /// backslash, a drive prefix, a control character, too long.
    Name(PathError),
    /// Its name is not UTF-8 text.
    NotUtf8,
    /// A symbolic link, to `target`. Links are never created, wherever they point.
    Symlink {
        /// Where it points, as written in the archive.
        target: String,
    },
    /// A hard link, to `target`. Never created, wherever it points.
    HardLink {
        /// The entry it links to, as written in the archive.
        target: String,
    },
    /// A device, a FIFO or a socket.
    Special {
        /// Which kind.
        kind: &'static str,
    },
    /// An entry type this reader does not unpack (a sparse file, an unknown type).
    Unsupported {
        /// The type as the archive names it.
        kind: String,
    },
    /// The archive holds this name twice, or twice in different case (`SKILL.md` and
    /// `skill.md` clash on macOS and Windows).
    Duplicate {
        /// The other entry's name.
        other: String,
    },
    /// A file of the archive is also used as a folder by this entry.
    FileAsFolder {
        /// The file.
        file: String,
    },
}

impl fmt::Display for Hostility {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Name(e) => write!(f, "has a name that could be unpacked outside its folder or is unusable ({e})"),
            Self::NotUtf8 => f.write_str("has a name that is not UTF-8 text"),
            Self::Symlink { target } => {
                write!(f, "is a symbolic link (to {target:?}); links are never unpacked, wherever they point")
            }
            Self::HardLink { target } => {
                write!(f, "is a hard link (to {target:?}); links are never unpacked, wherever they point")
            }
            Self::Special { kind } => write!(f, "is a {kind}; only files and folders can be part of a skill"),
            Self::Unsupported { kind } => write!(f, "is a {kind} entry, which is not unpacked"),
            Self::Duplicate { other } => write!(f, "clashes with {other:?}: one name twice, or differing only in case"),
            Self::FileAsFolder { file } => write!(f, "is inside {file:?}, which is a file of the archive"),
        }
    }
}

/// Why an archive was refused or could not be unpacked. Nothing of a refused archive is kept.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArchiveError {
    /// One entry makes the archive unsafe.
    #[error(
        "the archive is refused and nothing from it was kept: its entry {entry:?} {reason}. Ask its author for an \
         archive of plain files and folders with relative names"
    )]
    Hostile {
        /// The entry, as named in the archive (lossy UTF-8).
        entry: String,
        /// What is wrong with it.
        reason: Hostility,
    },
    /// One file unpacks past the per-file limit; unpacking stopped there.
    #[error(
        "the archive's entry {entry:?} unpacks to at least {at_least} bytes, more than the limit of {limit} bytes for \
         one file; unpacking stopped there and nothing was kept"
    )]
    FileTooLarge {
        /// The entry.
        entry: String,
        /// Bytes inflated when unpacking stopped.
        at_least: u64,
        /// The limit.
        limit: u64,
    },
    /// All files together unpack past the total limit; unpacking stopped there.
    #[error(
        "the archive unpacks to at least {at_least} bytes (stopped in {entry:?}), more than the limit of {limit} \
         bytes in all; nothing was kept"
    )]
    TotalTooLarge {
        /// The entry being unpacked when the limit was passed.
        entry: String,
        /// Bytes inflated when unpacking stopped.
        at_least: u64,
        /// The limit.
        limit: u64,
    },
    /// More files (or more folders) than the limit.
    #[error("the archive holds more than {limit} files or folders; nothing was kept")]
    TooManyEntries {
        /// The limit.
        limit: usize,
    },
    /// The bytes are not a readable archive of this kind.
    #[error("the archive could not be read as {kind}: {reason}; it may be damaged or not an archive")]
    Corrupt {
        /// The kind it was read as.
        kind: ArchiveKind,
        /// What the reader said.
        reason: String,
    },
    /// The bytes are neither a `.tar.gz` nor a `.zip`.
    #[error(
        "{name} is not an archive Skilldeck unpacks (its bytes are neither gzip nor zip); use a .tar.gz, .tgz, .zip \
         or .skill file"
    )]
    UnknownKind {
        /// The file name or URL it came from.
        name: String,
    },
    /// The folder to unpack into already exists.
    #[error("{} already exists; unpack into a new folder", path.display())]
    DestinationExists {
        /// The folder.
        path: PathBuf,
    },
    /// Writing the unpacked files failed.
    #[error("{}: {reason}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What the system said.
        reason: String,
    },
}

impl ArchiveError {
    /// A stable snake_case code for the UI to switch on.
    pub fn code(&self) -> &'static str {
        match self {
            Self::Hostile { .. } => "archive_hostile",
            Self::FileTooLarge { .. } => "archive_file_too_large",
            Self::TotalTooLarge { .. } => "archive_too_large",
            Self::TooManyEntries { .. } => "archive_too_many_entries",
            Self::Corrupt { .. } => "archive_corrupt",
            Self::UnknownKind { .. } => "archive_unknown_kind",
            Self::DestinationExists { .. } => "archive_destination_exists",
            Self::Io { .. } => "archive_io",
        }
    }

    pub(crate) fn hostile(entry: &str, reason: Hostility) -> Self {
        Self::Hostile { entry: entry.to_owned(), reason }
    }

    pub(crate) fn io(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> Self + '_ {
        move |e| Self::Io { path: path.to_path_buf(), reason: e.to_string() }
    }
}
