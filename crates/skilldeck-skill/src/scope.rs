//! Where a skill lives (its scope) and which upload of it this is (its revision): the two
//! plain values every layer above names a stored skill by.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Where a skill lives. On a name in several, `User` shadows `Team`, which shadows `System`
/// (the declaration order is the shadowing order: `Ord` sorts the shadowed scope first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// Skills bundled with Skilldeck, installed from the binary.
    System,
    /// A team store's skills, materialised here by its refresh (see docs/guide/team-store.md) and
    /// read-only to local edits: `write_skill`, `delete_skill` and `restore` refuse it, and
    /// only `FsStorage::mirror_team_skill` / `remove_team_skill` change it.
    Team,
    /// The user's own skills.
    User,
}

impl Scope {
    /// Every scope, in shadowing order (later shadows earlier).
    pub const ALL: [Scope; 3] = [Scope::System, Scope::Team, Scope::User];

    /// `system`, `team` or `user`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::System => "system",
            Self::Team => "team",
            Self::User => "user",
        }
    }

    /// Whether local writes (imports, edits, deletes, restores) are refused in this scope.
    pub fn is_read_only(self) -> bool {
        match self {
            Self::Team => true,
            Self::System | Self::User => false,
        }
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Scope {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "system" => Ok(Self::System),
            "team" => Ok(Self::Team),
            "user" => Ok(Self::User),
            other => Err(format!("unknown scope {other:?}: use `system`, `team` or `user`")),
        }
    }
}

/// A stored skill's revision: 1 for the first upload, +1 for each one after.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(transparent)]
pub struct Revision(pub u64);

impl Revision {
    /// The revision after this one.
    pub fn next(self) -> Self {
        Self(self.0.saturating_add(1))
    }
}

impl fmt::Display for Revision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}
