//! Validating a `SKILL.md` on disk: read through the one safe reader, so a link, a pipe or an
//! oversized file is a diagnostic, never a hang.

use crate::safe_read::{self, ReadError};
use skilldeck_skill::diagnostic::{DiagCode, Diagnostic};
use skilldeck_skill::meta::SkillMeta;
use skilldeck_skill::validate::{ValidateOptions, Validated, validate_bytes};
use std::path::Path;

/// Reads the `SKILL.md` at `path` through the one safe reader and validates it: a symbolic
/// link, a named pipe or device, or a file over `limit` bytes is a diagnostic, never a hang.
/// A missing file is `skill_md_missing`.
pub fn validate_file(path: &Path, limit: u64, opts: ValidateOptions<'_>) -> Validated {
    match safe_read::read_file(path, limit) {
        Ok(f) => validate_bytes(Some(&f.bytes), opts),
        Err(e) => match read_diagnostic(&e) {
            None => validate_bytes(None, opts),
            Some(d) => Validated { meta: SkillMeta::default(), diagnostics: vec![d] },
        },
    }
}

/// The diagnostic for a `SKILL.md` the safe reader refused; `None` when there is none.
pub fn read_diagnostic(e: &ReadError) -> Option<Diagnostic> {
    let code = match e {
        ReadError::NotFound { .. } => return None,
        ReadError::Folder { .. } | ReadError::Symlink { .. } | ReadError::NotRegular { .. } => {
            DiagCode::SkillMdNotRegular
        }
        ReadError::TooLarge { .. } => DiagCode::SkillMdTooLarge,
        ReadError::Io { .. } => DiagCode::SkillUnreadable,
    };
    Some(Diagnostic::error(code, e.to_string()))
}
