//! `SkillFiles`: a skill's whole tree in memory, the unit of every upload, and the upload limits.
//! Holds the tree and its checks; not where it comes from (`import`) or goes (`storage`).

use crate::digest::Digest;
use crate::relpath::RelPath;
use std::collections::BTreeMap;

/// The name of the revision sidecar, never part of a tree.
pub const VERSION_FILE: &str = ".version";

/// The name of the record sidecar beside `.version`: the revision's log line (revision, date,
/// digest, what made it), stored with the revision itself. Never part of a tree either.
pub const RECORD_FILE: &str = ".revision.json";

/// Whether a top-level path is one of the store's sidecars, which no tree, digest or mount holds.
pub fn is_sidecar(path: &str) -> bool {
    path == VERSION_FILE || path == RECORD_FILE
}

/// Limits on one upload. Exceeding any refuses the whole upload and writes nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UploadLimits {
    /// Largest single file, in bytes.
    pub max_file_bytes: u64,
    /// Largest total of all files, in bytes.
    pub max_total_bytes: u64,
    /// Most files.
    pub max_files: usize,
}

impl Default for UploadLimits {
    /// 32 MiB a file, 256 MiB in all, 5,000 files.
    fn default() -> Self {
        Self { max_file_bytes: 32 << 20, max_total_bytes: 256 << 20, max_files: 5000 }
    }
}

/// An upload over the limits.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LimitError {
    /// One file is too large.
    #[error("{path} is {size} bytes; the limit for one file is {limit} bytes")]
    FileTooLarge {
        /// The file.
        path: String,
        /// Its size.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// All files together are too large.
    #[error("the skill holds more than {limit} bytes in all")]
    TotalTooLarge {
        /// The limit.
        limit: u64,
    },
    /// Too many files.
    #[error("the skill holds more than {limit} files")]
    TooManyFiles {
        /// The limit.
        limit: usize,
    },
}

/// Counts files and bytes against the limits as a tree is gathered.
#[derive(Debug, Clone, Copy)]
pub struct LimitMeter {
    limits: UploadLimits,
    files: usize,
    bytes: u64,
}

impl LimitMeter {
    /// A meter at zero.
    pub fn new(limits: UploadLimits) -> Self {
        Self { limits, files: 0, bytes: 0 }
    }

    /// Counts one more file of `size` bytes.
    pub fn add(&mut self, path: &str, size: u64) -> Result<(), LimitError> {
        if size > self.limits.max_file_bytes {
            return Err(LimitError::FileTooLarge { path: path.to_owned(), size, limit: self.limits.max_file_bytes });
        }
        self.files += 1;
        if self.files > self.limits.max_files {
            return Err(LimitError::TooManyFiles { limit: self.limits.max_files });
        }
        self.bytes = self.bytes.saturating_add(size);
        if self.bytes > self.limits.max_total_bytes {
            return Err(LimitError::TotalTooLarge { limit: self.limits.max_total_bytes });
        }
        Ok(())
    }

    /// The limits being applied.
    pub fn limits(&self) -> UploadLimits {
        self.limits
    }
}

/// A skill's files by relative path, sorted. Never holds `.version`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SkillFiles {
    files: BTreeMap<RelPath, Vec<u8>>,
}

impl SkillFiles {
    /// An empty tree.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a file; a top-level sidecar (`.version`, `.revision.json`) is dropped: the store
    /// owns them.
    pub fn insert(&mut self, path: RelPath, bytes: Vec<u8>) {
        if !is_sidecar(path.as_str()) {
            self.files.insert(path, bytes);
        }
    }

    /// When there is no `SKILL.md` but one top-level file is named so in another case
    /// (`skill.md`, common in the wild), stores it as `SKILL.md`; returns the name it had.
    pub fn normalize_skill_md(&mut self) -> Option<String> {
        if self.skill_md().is_some() {
            return None;
        }
        let mut cased = self.files.keys().filter(|p| p.as_str().eq_ignore_ascii_case("SKILL.md"));
        let (Some(found), None) = (cased.next().cloned(), cased.next()) else { return None };
        let bytes = self.files.remove(&found)?;
        self.files.insert(RelPath::parse("SKILL.md").ok()?, bytes);
        Some(found.to_string())
    }

    /// The bytes of one file.
    pub fn get(&self, path: &str) -> Option<&[u8]> {
        self.files.iter().find(|(p, _)| p.as_str() == path).map(|(_, b)| b.as_slice())
    }

    /// The top-level `SKILL.md`, if present.
    pub fn skill_md(&self) -> Option<&[u8]> {
        RelPath::parse("SKILL.md").ok().and_then(|p| self.files.get(&p)).map(Vec::as_slice)
    }

    /// Iterates `(path, bytes)` in path order.
    pub fn iter(&self) -> impl Iterator<Item = (&RelPath, &[u8])> {
        self.files.iter().map(|(p, b)| (p, b.as_slice()))
    }

    /// How many files.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether there are no files.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// The sum of all file sizes.
    pub fn total_bytes(&self) -> u64 {
        self.files.values().map(|b| b.len() as u64).sum()
    }

    /// The content digest of this tree.
    pub fn digest(&self) -> Digest {
        Digest::of(self.iter())
    }

    /// Checks the tree against `limits`.
    pub fn check_limits(&self, limits: UploadLimits) -> Result<(), LimitError> {
        let mut meter = LimitMeter::new(limits);
        self.iter().try_for_each(|(p, b)| meter.add(p.as_str(), b.len() as u64))
    }
}

impl FromIterator<(RelPath, Vec<u8>)> for SkillFiles {
    fn from_iter<I: IntoIterator<Item = (RelPath, Vec<u8>)>>(iter: I) -> Self {
        let mut f = Self::new();
        for (p, b) in iter {
            f.insert(p, b);
        }
        f
    }
}
