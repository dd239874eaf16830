//! A stored skill's tree: the file list, and the summary and snapshot types that `scan` fills.
//! Holds directory walking by path and `.version`; reading a whole revision is `scan`'s.

use super::error::{Result, StorageError};
use crate::safe_read::{self, FileId};
use serde::Serialize;
use skilldeck_skill::diagnostic::Diagnostic;
use skilldeck_skill::files::{self, SkillFiles, VERSION_FILE};
use skilldeck_skill::relpath::RelPath;
use skilldeck_skill::scope::Revision;
use std::fs;
use std::path::Path;

/// One file in a skill's tree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TreeEntry {
    /// Its path relative to the skill folder.
    pub path: RelPath,
    /// Its size in bytes.
    pub size: u64,
}

/// One whole revision of a skill, read consistently.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    /// The revision read, when the skill has a `.version`.
    pub revision: Option<Revision>,
    /// Every file but `.version`.
    pub files: SkillFiles,
    /// Entries passed over: symlinks, devices, names that are not valid paths.
    pub skipped: Vec<String>,
}

/// Reads `<dir>/.version`; `None` when missing, not an integer, or not a small regular file
/// (a link or a named pipe put there by hand is never followed or waited on).
pub(crate) fn read_revision(dir: &Path) -> Option<Revision> {
    // A small capped read: an integer and a line end fit in 32 bytes.
    let f = safe_read::read_file(&dir.join(VERSION_FILE), 32).ok()?;
    std::str::from_utf8(&f.bytes).ok()?.trim().parse().ok().map(Revision)
}

/// Walks `dir` and calls `f` for each regular file (never a top-level sidecar).
/// Symlinks and special files are not followed; their paths go to `skipped`.
pub fn walk(
    dir: &Path,
    skipped: &mut Vec<String>,
    f: &mut dyn FnMut(RelPath, &Path, &fs::Metadata) -> Result<()>,
) -> Result<()> {
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = fs::read_dir(&d).map_err(StorageError::io("read the folder", &d))?;
        for entry in entries {
            let entry = entry.map_err(StorageError::io("read the folder", &d))?;
            let path = entry.path();
            let rel = path.strip_prefix(dir).unwrap_or(&path);
            let ft = entry.file_type().map_err(StorageError::io("inspect", &path))?;
            if ft.is_dir() {
                stack.push(path);
                continue;
            }
            let Ok(rel) = RelPath::from_path(rel) else {
                skipped.push(rel.display().to_string());
                continue;
            };
            if !ft.is_file() {
                skipped.push(rel.to_string());
                continue;
            }
            if files::is_sidecar(rel.as_str()) {
                continue;
            }
            // A file deleted between the listing and this look (an editor saving, `git pull`)
            // is simply no longer part of the tree.
            let meta = match entry.metadata() {
                Ok(m) => m,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => return Err(StorageError::io("inspect", &path)(e)),
            };
            f(rel, &path, &meta)?;
        }
    }
    Ok(())
}

/// The sorted file list of the skill at `dir`.
pub(crate) fn list(dir: &Path) -> Result<Vec<TreeEntry>> {
    let mut out = Vec::new();
    let mut skipped = Vec::new();
    walk(dir, &mut skipped, &mut |path, _, meta| {
        out.push(TreeEntry { path, size: meta.len() });
        Ok(())
    })?;
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

/// What discovery needs of a skill: its `SKILL.md`, file count and size, and on request its
/// digest. No other file is read, unless a digest asked for has to be hashed from them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    /// The revision read, when the skill has a `.version`.
    pub revision: Option<Revision>,
    /// The bytes of the top-level `SKILL.md`, if there is one and it could be read safely.
    pub skill_md: Option<Vec<u8>>,
    /// Which version of `SKILL.md` was read, for caching what was parsed from it.
    pub skill_md_id: Option<FileId>,
    /// Why `SKILL.md` was there but not read (a link, a special file, too large).
    pub skill_md_problem: Option<Diagnostic>,
    /// How many files (never counting `.version`).
    pub file_count: usize,
    /// Their total size in bytes.
    pub total_bytes: u64,
    /// The content digest, when it was asked for and could be had: hashed from `SKILL.md` when
    /// it is the only file, else the one recorded for the revision when the files are as
    /// written (see the seal in the storage module), else hashed from every file.
    pub digest: Option<skilldeck_skill::digest::Digest>,
    /// What each entry read looked like, taken before it was listed or read: the folder
    /// (`""`), each folder beneath it, each file and sidecar. While every path still has its
    /// stamp, what was read from them still holds (the persisted parse cache keys on this).
    pub stamps: Vec<(String, super::seal::Stamp)>,
}

impl Summary {
    /// The summary of a skill made of one `SKILL.md` of `total_bytes`, at `revision`, read
    /// from no folder: for building entries in memory (tests and benchmarks) as the registry
    /// builds them from a store.
    pub fn of_skill_md(revision: Option<Revision>, skill_md: Vec<u8>, total_bytes: u64) -> Self {
        Self {
            revision,
            skill_md: Some(skill_md),
            skill_md_id: None,
            skill_md_problem: None,
            file_count: 1,
            total_bytes,
            digest: None,
            stamps: Vec::new(),
        }
    }
}
