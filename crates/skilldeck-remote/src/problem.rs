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
}

/// Whether an error concerns only the object it was about (a damaged or missing manifest or
/// blob), so one skill is skipped and the rest go on; any other error (unreachable, refused,
/// the local cache failing) stops the whole operation.
pub fn is_per_skill(e: &RemoteError) -> bool {
    matches!(e, RemoteError::Corrupt { .. } | RemoteError::NotFound { .. })
}
