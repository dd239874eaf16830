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
}

impl SkillProblem {
    /// The problem of `name` revision `revision`.
    pub fn new(name: &str, revision: u64, reason: impl ToString) -> Self {
        Self { name: name.to_owned(), revision, reason: reason.to_string() }
    }

    /// The one line people read: what was skipped, why, and what stays. The reason is escaped
    /// again here: it may quote the bucket, and a terminal must never act on it.
    pub fn line(&self) -> String {
        let reason: String = self
            .reason
            .chars()
            .map(|c| if c.is_control() { c.escape_unicode().to_string() } else { c.to_string() })
            .collect();
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
