//! Why a discovery index was refused whole (`WellKnownError`) or one of its entries was
//! (`EntryRefusal`). Holds the errors; no fetching.

use crate::archive::ArchiveError;
use crate::http::{HttpError, Sha256Digest};
use std::path::PathBuf;

/// Why the index as a whole could not be used. Nothing from it is fetched.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WellKnownError {
    /// The address given is not one an index can be found from.
    #[error("{base:?} is not an address to find a skills index at: {reason}")]
    BadBase {
        /// The address as given (credentials and query removed when it parsed).
        base: String,
        /// Why.
        reason: String,
    },
    /// Fetching the index failed.
    #[error("the skills index could not be fetched: {0}")]
    Http(#[from] HttpError),
    /// The index is not a JSON object.
    #[error("the skills index at {url} is not valid JSON ({reason}); ask its publisher to fix it")]
    NotJson {
        /// The index URL as shown.
        url: String,
        /// What the parser said.
        reason: String,
    },
    /// `$schema` is absent or names a schema this version does not know.
    #[error(
        "the skills index at {url} {}; Skilldeck knows only {known}, so it stops here rather than guess at the format, \
         as the discovery spec says. Update Skilldeck, or ask the publisher which schema the index follows",
        found.as_ref().map_or_else(|| "declares no `$schema`".to_owned(), |f| format!("declares `$schema` {f:?}"))
    )]
    UnknownSchema {
        /// The index URL as shown.
        url: String,
        /// The `$schema` found, when there was one (a string or any other JSON value, as text).
        found: Option<String>,
        /// The schema URIs this version reads.
        known: String,
    },
    /// The index has no `skills` array.
    #[error("the skills index at {url} is malformed: {reason}; ask its publisher to fix it")]
    Malformed {
        /// The index URL as shown.
        url: String,
        /// What is wrong.
        reason: String,
    },
    /// The scratch folder could not be made.
    #[error("{}: {reason}", path.display())]
    Scratch {
        /// The folder.
        path: PathBuf,
        /// What the system said.
        reason: String,
    },
}

impl WellKnownError {
    /// A stable snake_case code for the UI to switch on.
    pub fn code(&self) -> &'static str {
        match self {
            Self::BadBase { .. } => "index_bad_address",
            Self::Http(e) => e.code(),
            Self::NotJson { .. } => "index_not_json",
            Self::UnknownSchema { .. } => "index_unknown_schema",
            Self::Malformed { .. } => "index_malformed",
            Self::Scratch { .. } => "index_scratch",
        }
    }
}

/// Why one entry of an index was not taken. The others still come in.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EntryRefusal {
    /// A required field is missing or malformed.
    #[error("the index entry is invalid: {reason}")]
    Invalid {
        /// Which field and how.
        reason: String,
    },
    /// `type` is neither `skill-md` nor `archive`.
    #[error("its type {found:?} is unknown (only \"skill-md\" and \"archive\" are), so it is skipped as the spec says")]
    UnknownType {
        /// The type found.
        found: String,
    },
    /// Two entries carry this name; neither is taken, since which one is meant is unknown.
    #[error("the index lists this name more than once; none of them is taken")]
    DuplicateName,
    /// The name was asked for but the index does not list it.
    #[error("the index does not list a skill of this name")]
    NotInIndex,
    /// Fetching the artifact failed.
    #[error("{0}")]
    Fetch(HttpError),
    /// The artifact's SHA-256 differs from the index's digest: corrupted or tampered with, and
    /// never used.
    #[error(
        "its content does not match the index's digest (expected {expected}, got {got}); it may be corrupted or \
         tampered with, so nothing of it was used. Try again later, or tell the publisher"
    )]
    DigestMismatch {
        /// The digest the index lists.
        expected: Sha256Digest,
        /// The digest of what was downloaded.
        got: Sha256Digest,
    },
    /// The archive is not `.tar.gz` or `.zip` by its bytes, header or name.
    #[error("its archive is neither a .tar.gz nor a .zip")]
    NotAnArchive,
    /// The archive was refused or could not be unpacked.
    #[error("{0}")]
    Archive(ArchiveError),
    /// The archive holds no `SKILL.md` at its top (nor in one top folder).
    #[error("its archive holds no SKILL.md at the top, so it is not a skill; nothing of it was kept")]
    NoSkillMd,
    /// Writing the skill folder failed.
    #[error("{}: {reason}", path.display())]
    Write {
        /// The file or folder.
        path: PathBuf,
        /// What the system said.
        reason: String,
    },
}

impl EntryRefusal {
    /// A stable code for scripts: `index_digest_mismatch`, `index_entry_invalid`, … or the
    /// download's or the archive's own.
    pub fn code(&self) -> &'static str {
        match self {
            Self::Invalid { .. } => "index_entry_invalid",
            Self::UnknownType { .. } => "index_entry_unknown_type",
            Self::DuplicateName => "index_entry_duplicate",
            Self::NotInIndex => "index_entry_not_listed",
            Self::Fetch(e) => e.code(),
            Self::DigestMismatch { .. } => "index_digest_mismatch",
            Self::NotAnArchive => "index_entry_not_an_archive",
            Self::Archive(e) => e.code(),
            Self::NoSkillMd => "index_entry_no_skill_md",
            Self::Write { .. } => "index_entry_write_failed",
        }
    }

    /// What would let the entry in.
    pub fn fix(&self) -> String {
        let publisher = "It comes in once the site's publisher fixes the entry in its index";
        match self {
            Self::Invalid { .. } | Self::DuplicateName | Self::NotAnArchive | Self::NoSkillMd => publisher.to_owned(),
            Self::UnknownType { .. } => {
                format!("{publisher}: Skilldeck takes entries of type \"skill-md\" and \"archive\"")
            }
            Self::NotInIndex => "Choose one of the names the index lists".to_owned(),
            Self::Fetch(HttpError::TooBig { .. }) => format!(
                "Raise `{}` under [sources] in config.toml, if it is below what Skilldeck keeps of one skill",
                crate::config::MAX_SKILL_BYTES
            ),
            Self::Fetch(_) => "Try again later; if it keeps failing, tell the site's publisher".to_owned(),
            Self::DigestMismatch { .. } => {
                "Try again later; if it keeps failing, tell the site's publisher that the entry's digest is wrong"
                    .to_owned()
            }
            Self::Archive(_) => format!("{publisher}: its archive is refused as it stands"),
            Self::Write { .. } => {
                "Check that the temporary folder has room and can be written, then try again".to_owned()
            }
        }
    }
}

/// An entry not taken, by the name it carries (or `#<index>` when it has no usable name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    /// The entry's name.
    pub name: String,
    /// Why.
    pub reason: EntryRefusal,
}
