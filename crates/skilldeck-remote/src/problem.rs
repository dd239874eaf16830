//! `SkillProblem`: one skill of a team store left at its last good revision because its newest
//! could not be used. Holds the record and which errors are one skill's; not the reporting.

use crate::error::RemoteError;
use serde::{Deserialize, Serialize};

/// A skill skipped by a refresh or a materialise: the revision that could not be used and why.
/// The skill keeps its last good revision meanwhile; the others go on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillProblem {
    /// The skill.
    pub name: String,
    /// The revision skipped.
    pub revision: u64,
    /// What was wrong with it (text from the bucket is escaped).
    pub reason: String,
    /// Set when what was skipped is an object under `skills/` whose key cannot be a
    /// manifest's: `name` is then that key, escaped and quoted, and `revision` 0.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub not_a_manifest: bool,
}

impl SkillProblem {
    /// The problem of `name` revision `revision`.
    pub fn new(name: &str, revision: u64, reason: impl ToString) -> Self {
        Self { name: name.to_owned(), revision, reason: reason.to_string(), not_a_manifest: false }
    }

    /// The problem of the listed object `key` under `skills/`, which cannot be a manifest
    /// (a name that is no skill name, a revision of other than ten digits, a `..` segment).
    pub fn not_a_manifest(key: &str) -> Self {
        Self {
            name: crate::untrusted::escape(key),
            revision: 0,
            reason: "its key is not skills/NAME/rev/NNNNNNNNNN.json with a skill name and ten digits, so it \
                     is no manifest of this store; delete or rename it in the bucket"
                .to_owned(),
            not_a_manifest: true,
        }
    }

    /// The one line people read: what was skipped, why, and what stays. The reason is escaped
    /// again here: it may quote the bucket, and a terminal must never act on it.
    pub fn line(&self) -> String {
        let reason: String = self
            .reason
            .chars()
            .map(|c| if c.is_control() { c.escape_unicode().to_string() } else { c.to_string() })
            .collect();
        if self.not_a_manifest {
            return format!("skipped the object {}: {reason}; no skill is held back by it", self.name);
        }
        format!(
            "skipped {} revision {}: {reason}; it keeps its last good revision until a good one is published",
            self.name, self.revision
        )
    }
}

/// Whether an error concerns only the object it was about (a damaged or missing manifest or
/// blob), so one skill is skipped and the rest go on; any other error (unreachable, refused,
/// the local cache failing) stops the whole operation.
pub fn is_per_skill(e: &RemoteError) -> bool {
    matches!(e, RemoteError::Corrupt { .. } | RemoteError::NotFound { .. })
}
