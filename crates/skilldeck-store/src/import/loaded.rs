//! A skill as read from its source, before it is stored: `LoadedSkill`, named and validated by
//! `finish`, and the small path tests every reader shares. Reads no source itself.

use super::error::ImportError;
use skilldeck_skill::files::SkillFiles;
use skilldeck_skill::name::SkillName;
use skilldeck_skill::validate::{self, ValidateOptions, Validated};
use std::fs;
use std::path::{Path, PathBuf};

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

/// Reports bytes read so far and the total, for progress bars.
pub type Progress<'a> = &'a mut dyn FnMut(u64, u64);

/// Names and validates a skill read from `path`: the name is the frontmatter's, else the
/// folder's (`fallback_name`); a lowercase `skill.md` is stored as `SKILL.md`, with a warning.
pub(crate) fn finish(
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

/// The path a link the user named leads to, or `DanglingLink`.
pub(crate) fn resolve_link(path: &Path) -> Result<PathBuf, ImportError> {
    fs::canonicalize(path)
        .ok()
        .filter(|t| fs::symlink_metadata(t).is_ok())
        .ok_or_else(|| ImportError::DanglingLink(path.to_path_buf()))
}

/// Whether `p` names a `SKILL.md` (any case).
pub(crate) fn is_skill_md(p: &Path) -> bool {
    p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.eq_ignore_ascii_case("SKILL.md"))
}

/// The last part of `p`, as text (empty when it is not).
pub(crate) fn file_name(p: &Path) -> String {
    p.file_name().and_then(|s| s.to_str()).unwrap_or_default().to_owned()
}

/// Whether `p` ends in `.zip` or `.skill` (any case).
pub(crate) fn has_archive_ext(p: &Path) -> bool {
    p.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("zip") || e.eq_ignore_ascii_case("skill"))
}
