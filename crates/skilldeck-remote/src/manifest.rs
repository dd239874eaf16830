//! `Manifest`: the JSON record of one revision of a skill in the team store.
//! Holds its fields, building one from files and checking one read back; not its storage.

use crate::error::{RemoteError, Result};
use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};
use skilldeck_core::{Digest, RelPath, SkillFiles, SkillName};

/// Why a revision was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Event {
    /// New content published.
    Publish,
    /// An older revision's files published again.
    Restore,
}

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

/// One revision of a skill.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// The skill.
    pub name: String,
    /// The revision, from 1.
    pub revision: u64,
    /// The files, sorted by path.
    pub files: Vec<FileEntry>,
    /// `sha256:<64 hex>`, as `skilldeck_core::Digest` computes it.
    pub digest: String,
    /// When it was published (RFC 3339, UTC).
    pub published_at: String,
    /// Who published it.
    pub publisher: String,
    /// Why it was written.
    pub event: Event,
    /// For a restore: the revision brought back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restored_from: Option<u64>,
}

/// The SHA-256 of `bytes` in hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    Sha256::digest(bytes).iter().fold(String::with_capacity(64), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// Who publishes from this machine: `$SKILLDECK_PUBLISHER`, else the user name.
pub fn publisher() -> String {
    ["SKILLDECK_PUBLISHER", "USER", "USERNAME"]
        .iter()
        .find_map(|v| std::env::var(v).ok().filter(|s| !s.is_empty()))
        .unwrap_or_else(|| "unknown".to_owned())
}

impl Manifest {
    /// The manifest of `files` as revision `revision` (the time is now).
    pub fn new(name: &SkillName, revision: u64, files: &SkillFiles, event: Event, restored_from: Option<u64>) -> Self {
        let published_at =
            time::OffsetDateTime::now_utc().format(&time::format_description::well_known::Rfc3339).unwrap_or_default();
        Self {
            name: name.to_string(),
            revision,
            files: files
                .iter()
                .map(|(p, b)| FileEntry { path: p.as_str().to_owned(), sha256: sha256_hex(b), size: b.len() as u64 })
                .collect(),
            digest: files.digest().long(),
            published_at,
            publisher: publisher(),
            event,
            restored_from,
        }
    }

    /// Parses a manifest read from `key`, checking it names the skill and revision of its key.
    pub fn parse(bytes: &[u8], key: &str, name: &str, revision: u64) -> Result<Self> {
        let corrupt = |reason: String| RemoteError::Corrupt { key: key.to_owned(), reason };
        let m: Self = serde_json::from_slice(bytes).map_err(|e| corrupt(format!("not a manifest: {e}")))?;
        if m.name != name || m.revision != revision {
            return Err(corrupt(format!("it says {} revision {}", m.name, m.revision)));
        }
        let hex_ok = |h: &str| h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase());
        if let Some(f) = m.files.iter().find(|f| !hex_ok(&f.sha256) || RelPath::parse(&f.path).is_err()) {
            return Err(corrupt(format!("bad file entry {:?}", f.path)));
        }
        Ok(m)
    }

    /// The short digest shown to people (`sha256:` and 12 hex digits).
    pub fn short_digest(&self) -> String {
        Digest::parse_long(&self.digest).map(|d| d.short()).unwrap_or_else(|| self.digest.clone())
    }

    /// Total bytes of the files.
    pub fn total_bytes(&self) -> u64 {
        self.files.iter().map(|f| f.size).sum()
    }
}
