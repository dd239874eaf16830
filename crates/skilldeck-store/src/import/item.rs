//! What a preview or a report shows of an import: one item per skill found, with what importing
//! it would do to the store. Holds the serializable item types; reads and writes nothing.
//!
//! An item serializes flat, for the app's list with checkboxes and for `--json`:
//!
//! ```json
//! {"source": "/home/me/skills", "location": "skills/pdf",
//!  "skill": {"name": "pdf", "valid": true, "diagnostics": [], "file_count": 3,
//!            "total_bytes": 4096, "digest": "sha256:<64 hex>", "skipped": [], "findings": []},
//!  "state": "update", "revision": 4, "current": 3}
//! ```
//!
//! `state` is `new` (with `revision`), `update` (`revision`, `current`), `identical`
//! (`revision`: the current one, which stays) or `refused` (`error: {code, message}`; `skill`
//! is null when the skill could not be read at all).

use super::error::ImportError;
use super::loaded::LoadedSkill;
use crate::storage::Revision;
use serde::Serialize;
use skilldeck_audit::Finding;
use skilldeck_skill::diagnostic::Diagnostic;
use skilldeck_skill::digest::Digest;
use skilldeck_skill::meta::SkillMeta;
use skilldeck_skill::name::SkillName;

/// What was read of one incoming skill: everything a preview or a report shows of it, without
/// its files.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Incoming {
    /// The name it is stored under: the frontmatter's, else its folder's.
    pub name: SkillName,
    /// Whether validation found no error (an invalid skill is still stored, and shown so).
    pub valid: bool,
    /// Every problem validation found: `{code, severity, message, line}`.
    pub diagnostics: Vec<Diagnostic>,
    /// How many files it holds.
    pub file_count: usize,
    /// Their total size in bytes.
    pub total_bytes: u64,
    /// The digest of its files (`sha256:` and 64 hex digits), as a revision of them would have.
    pub digest: Digest,
    /// Entries passed over (`.git`, `.DS_Store`, …).
    pub skipped: Vec<String>,
    /// What the audit found in its files, most serious first: shown before anything is
    /// written. A high or critical finding means the stored skill is held until approved.
    pub findings: Vec<Finding>,
    /// The frontmatter as read, for grants and approvals; not serialized.
    #[serde(skip)]
    pub meta: SkillMeta,
}

impl Incoming {
    /// What a preview keeps of a loaded skill.
    pub fn of(skill: &LoadedSkill) -> Self {
        Self {
            name: skill.name.clone(),
            valid: skill.validation.is_valid(),
            diagnostics: skill.validation.diagnostics.clone(),
            file_count: skill.files.len(),
            total_bytes: skill.files.total_bytes(),
            digest: skill.files.digest(),
            skipped: skill.skipped.clone(),
            findings: {
                let report = crate::audits::audit_files(&skill.files);
                crate::audits::log_verdict(skill.name.as_str(), &report);
                report.findings
            },
            meta: skill.validation.meta.clone(),
        }
    }
}

/// A refusal as data: the stable code and the message for people.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct ErrorInfo {
    /// The stable snake_case code (`source_hostile`, `name_invalid`, `name_duplicate`, …).
    pub code: String,
    /// What was wrong and what to do.
    pub message: String,
}

impl From<&ImportError> for ErrorInfo {
    fn from(e: &ImportError) -> Self {
        Self { code: e.code().to_owned(), message: e.to_string() }
    }
}

/// What importing one skill would do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum ItemState {
    /// No skill of that name is stored: it would become `revision` (1, or the next after a
    /// deleted one's).
    New {
        /// The revision it would get.
        revision: Revision,
    },
    /// It would replace the current revision `current` as `revision`.
    Update {
        /// The revision it would get.
        revision: Revision,
        /// The revision stored now.
        current: Revision,
    },
    /// Its files equal those of the current revision `revision`: nothing would be written.
    Identical {
        /// The revision stored now, which stays.
        revision: Revision,
    },
    /// It would be refused, and nothing of it written.
    Refused {
        /// Why.
        error: ErrorInfo,
    },
}

/// One skill of a preview.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PreviewItem {
    /// The import path it was found in, as given.
    pub source: String,
    /// Where it is inside that path: `.` for the path itself, else its folder (`skills/pdf`).
    pub location: String,
    /// What was read of it; `None` when it could not be read (then `state` is `refused`).
    pub skill: Option<Incoming>,
    /// What importing it would do.
    #[serde(flatten)]
    pub state: ItemState,
}

/// A path that could not be imported at all: missing, unsupported, no skill in it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PathError {
    /// The path as given.
    pub source: String,
    /// Why.
    pub error: ErrorInfo,
}

/// A preview of importing many paths.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Preview {
    /// One item per skill found, in the order of the paths, then of their locations.
    pub items: Vec<PreviewItem>,
    /// The paths that hold nothing importable, each with why.
    pub errors: Vec<PathError>,
}
