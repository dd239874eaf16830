//! Import: reading skills from a folder, a `SKILL.md`, a `.zip`/`.skill` archive, or a
//! collection of many skills in one folder or archive, safely; and storing them.
//! Holds the one-skill reader and store here, errors in `error`, sources in `folder`/`archive`,
//! finding skills in a collection in `discover`, the preview in `preview`, batches in `batch`.
//! The store's own write is `storage`.

mod archive;
mod batch;
mod discover;
mod error;
mod folder;
mod item;
mod preview;

pub use batch::{BatchProgress, BatchReport, ImportRequest, ImportState, ImportedItem, import_batch};
pub use discover::{Discovered, Found, Layout, Source, WHOLE, discover};
pub use error::ImportError;
pub use folder::IGNORED;
pub use item::{ErrorInfo, Incoming, ItemState, PathError, Preview, PreviewItem};
pub use preview::preview_all;

use crate::storage::{FsStorage, Revision, Scope, WriteOutcome};
use serde::Serialize;
use skilldeck_skill::digest::Digest;
use skilldeck_skill::files::{SkillFiles, UploadLimits};
use skilldeck_skill::name::SkillName;
use skilldeck_skill::validate::{self, ValidateOptions, Validated};
use std::fs;
use std::path::Path;

/// A skill read from a source, not yet stored.
#[derive(Debug, Clone)]
pub struct LoadedSkill {
    /// The name it will be stored under.
    pub name: SkillName,
    /// Its files.
    pub files: SkillFiles,
    /// What validation found.
    pub validation: Validated,
    /// Entries passed over (`.git`, `.DS_Store`, …).
    pub skipped: Vec<String>,
}

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

/// Reports bytes read so far and the total, for progress bars.
pub type Progress<'a> = &'a mut dyn FnMut(u64, u64);

/// Reads a skill from `path`: a folder, a `SKILL.md` inside one, or a `.zip`/`.skill` archive.
/// For a path that may hold many skills, see `Source` and `discover`.
pub fn load(path: &Path, limits: UploadLimits, progress: Progress<'_>) -> Result<LoadedSkill, ImportError> {
    let meta = fs::symlink_metadata(path).map_err(|_| ImportError::NotFound(path.to_path_buf()))?;
    // The path the user named may be a link (`~/skills/current -> v2`): import what it points to.
    // Links inside the skill are never followed.
    if meta.file_type().is_symlink() {
        return load(&discover::resolve_link(path)?, limits, progress);
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

/// Names and validates a skill read from `path`: the name is the frontmatter's, else the
/// folder's (`fallback_name`); a lowercase `skill.md` is stored as `SKILL.md`, with a warning.
fn finish(
    mut files: SkillFiles,
    skipped: Vec<String>,
    fallback_name: String,
    path: &Path,
) -> Result<LoadedSkill, ImportError> {
    let renamed = files.normalize_skill_md();
    let Some(skill_md) = files.skill_md() else {
        return Err(ImportError::NotASkill(path.to_path_buf()));
    };
    let probe = validate::validate_bytes(Some(skill_md), ValidateOptions::default());
    let name = probe
        .meta
        .name
        .as_deref()
        .and_then(|n| SkillName::parse(n).ok())
        .or_else(|| SkillName::parse(&fallback_name).ok())
        .ok_or_else(|| ImportError::NoName { found: probe.meta.name.clone().unwrap_or(fallback_name) })?;
    let mut validation = validate::validate_bytes(
        Some(skill_md),
        ValidateOptions { dir_name: Some(name.as_str()), ..ValidateOptions::default() },
    );
    if let Some(was) = renamed {
        validation.diagnostics.insert(
            0,
            skilldeck_skill::Diagnostic::warning(
                skilldeck_skill::DiagCode::SkillMdRenamed,
                format!("the file is named {was}; the spec names it SKILL.md, so it is stored as SKILL.md"),
            ),
        );
    }
    Ok(LoadedSkill { name, files, validation, skipped })
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

fn is_skill_md(p: &Path) -> bool {
    p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.eq_ignore_ascii_case("SKILL.md"))
}

fn file_name(p: &Path) -> String {
    p.file_name().and_then(|s| s.to_str()).unwrap_or_default().to_owned()
}

fn has_archive_ext(p: &Path) -> bool {
    p.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("zip") || e.eq_ignore_ascii_case("skill"))
}
