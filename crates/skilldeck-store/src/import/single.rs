//! Importing one skill: reading it from a folder, a `SKILL.md` or an archive (`load`), saying
//! what storing it would do (`preview`) and storing it (`store`).

use super::archive;
use super::error::ImportError;
use super::folder;
use super::loaded::{LoadedSkill, Progress, file_name, finish, has_archive_ext, is_skill_md, resolve_link};
use crate::storage::{FsStorage, Revision, Scope, WriteOutcome};
use serde::Serialize;
use skilldeck_skill::digest::Digest;
use skilldeck_skill::files::UploadLimits;
use skilldeck_skill::name::SkillName;
use std::fs;
use std::path::Path;

/// What an import would do, shown before anything is written.
#[derive(Debug, Clone, Serialize)]
pub struct ImportPreview {
    /// The skill's name.
    pub name: SkillName,
    /// The target scope.
    pub scope: Scope,
    /// How many files.
    pub file_count: usize,
    /// Their total size in bytes.
    pub total_bytes: u64,
    /// Whether validation found no error.
    pub valid: bool,
    /// Every problem found.
    pub diagnostics: Vec<skilldeck_skill::Diagnostic>,
    /// The revision a write of it through `write_skill` would make.
    pub next_revision: Revision,
    /// Whether no skill of that name is stored yet.
    pub is_new: bool,
    /// The stored skill's current revision, when it has one.
    pub current_revision: Option<Revision>,
    /// Whether its files equal the current revision's, so `store` (and `skilldeck import`)
    /// writes nothing and the skill stays at `current_revision`.
    pub identical: bool,
    /// The digest of its files.
    pub digest: Digest,
    /// What its `allowed-tools` asks for, and whether an approval on record already covers it.
    pub grants: crate::trust::GrantsView,
}

/// What storing one skill did: a new revision, or nothing since it was already stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stored {
    /// A new revision was written.
    Written(WriteOutcome),
    /// The skill's current revision holds exactly these files: nothing was written.
    Unchanged {
        /// The skill.
        name: SkillName,
        /// Its scope.
        scope: Scope,
        /// Its current revision, which stays.
        revision: Revision,
        /// The digest shared by the incoming files and the current revision.
        digest: Digest,
    },
}

impl Stored {
    /// The skill's revision now.
    pub fn revision(&self) -> Revision {
        match self {
            Self::Written(w) => w.revision,
            Self::Unchanged { revision, .. } => *revision,
        }
    }

    /// The digest of the skill's files now.
    pub fn digest(&self) -> Digest {
        match self {
            Self::Written(w) => w.digest,
            Self::Unchanged { digest, .. } => *digest,
        }
    }

    /// Whether nothing was written.
    pub fn is_unchanged(&self) -> bool {
        matches!(self, Self::Unchanged { .. })
    }
}

/// Reads a skill from `path`: a folder, a `SKILL.md` inside one, or a `.zip`/`.skill` archive.
/// For a path that may hold many skills, see `Source` and `discover`.
pub fn load(path: &Path, limits: UploadLimits, progress: Progress<'_>) -> Result<LoadedSkill, ImportError> {
    let meta = fs::symlink_metadata(path).map_err(|_| ImportError::NotFound(path.to_path_buf()))?;
    // The path the user named may be a link (`~/skills/current -> v2`): import what it points to.
    // Links inside the skill are never followed.
    if meta.file_type().is_symlink() {
        return load(&resolve_link(path)?, limits, progress);
    }
    let (files, skipped, fallback_name) = if meta.is_dir() {
        let (f, s) = folder::read_folder(path, limits, progress)?;
        (f, s, file_name(path))
    } else if meta.is_file() && is_skill_md(path) {
        let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        let (f, s) = folder::read_folder(dir, limits, progress)?;
        let dir = fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        (f, s, file_name(&dir))
    } else if meta.is_file() && has_archive_ext(path) {
        let (f, s, root) = archive::Archive::open(path)?.read_one_skill(limits, progress)?;
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_owned();
        (f, s, root.unwrap_or(stem))
    } else {
        return Err(ImportError::Unsupported(path.to_path_buf()));
    };
    finish(files, skipped, fallback_name, path)
}

/// What storing `skill` in `scope` would do.
pub fn preview(storage: &FsStorage, scope: Scope, skill: &LoadedSkill) -> ImportPreview {
    let digest = skill.files.digest();
    let current = current_revision(storage, scope, &skill.name);
    let identical = current.is_some_and(|(_, d)| d == digest);
    ImportPreview {
        name: skill.name.clone(),
        scope,
        file_count: skill.files.len(),
        total_bytes: skill.files.total_bytes(),
        valid: skill.validation.is_valid(),
        diagnostics: skill.validation.diagnostics.clone(),
        next_revision: storage.next_revision(scope, &skill.name),
        is_new: !storage.skill_dir(scope, &skill.name).is_dir(),
        current_revision: current.map(|(rev, _)| rev),
        identical,
        digest,
        grants: crate::trust::Trust::load(storage.home()).unwrap_or_default().view(
            scope,
            skill.name.as_str(),
            &skill.validation.meta,
            Some(&digest),
        ),
    }
}

/// Stores a loaded skill as its next revision, unless its files equal the current revision's.
///
/// `write_skill` bumps on every upload, even an identical one (the storage contract); import
/// is where "the same files again" means "nothing to do": it compares the incoming digest with
/// the current revision's before writing, and then writes nothing.
pub fn store(storage: &FsStorage, scope: Scope, skill: &LoadedSkill) -> Result<Stored, ImportError> {
    let digest = skill.files.digest();
    if let Some((revision, current)) = current_revision(storage, scope, &skill.name)
        && current == digest
    {
        tracing::info!(skill = %skill.name, scope = scope.as_str(), revision = %revision, "import unchanged");
        return Ok(Stored::Unchanged { name: skill.name.clone(), scope, revision, digest });
    }
    Ok(Stored::Written(storage.write_skill_sync(scope, &skill.name, &skill.files)?))
}

/// The current revision of a stored skill and the digest of its files as they are on disk;
/// `None` for a skill not stored (or without a revision, which a write should give it).
pub(crate) fn current_revision(storage: &FsStorage, scope: Scope, name: &SkillName) -> Option<(Revision, Digest)> {
    let snap = storage.snapshot(scope, name).ok()?;
    Some((snap.revision?, snap.files.digest()))
}
