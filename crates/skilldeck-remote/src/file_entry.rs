//! `FileEntry`: one file of a revision as its manifest lists it. Beneath both `manifest`, which
//! builds and reads lists of them, and `untrusted`, which checks a list read from the bucket.

use serde::{Deserialize, Serialize};

/// One file of a revision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileEntry {
    /// Relative path in the skill.
    pub path: String,
    /// SHA-256 of the bytes, 64 hex digits: the blob's key.
    pub sha256: String,
    /// Size in bytes.
    pub size: u64,
}
