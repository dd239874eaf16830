//! Catalogue entries from the store: a stored skill's summary parsed and validated into a
//! [`SkillEntry`]. Holds no cache; the registry above keeps one.

use crate::storage::{Scope, Summary};
use skilldeck_skill::entry::{SkillEntry, Stored};
use skilldeck_skill::meta::SkillMeta;
use skilldeck_skill::validate::{self, ValidateOptions, Validated};

/// Parses and validates one skill from its summary.
pub fn from_summary(scope: Scope, dir_name: &str, summary: &Summary, strict: bool) -> SkillEntry {
    from_validated(scope, dir_name, summary, validate_summary(dir_name, summary, strict))
}

/// One skill from its summary and what validating its `SKILL.md` found.
pub fn from_validated(scope: Scope, dir_name: &str, summary: &Summary, v: Validated) -> SkillEntry {
    let stored = Stored {
        revision: summary.revision,
        digest: summary.digest,
        file_count: summary.file_count,
        total_bytes: summary.total_bytes,
        skill_md: summary.skill_md.as_deref(),
    };
    SkillEntry::new(scope, dir_name, v, stored)
}

/// Validates the `SKILL.md` of a summary; one that was there but refused (a link, a pipe, too
/// large) is its diagnostic.
pub fn validate_summary(dir_name: &str, summary: &Summary, strict: bool) -> Validated {
    match &summary.skill_md_problem {
        Some(d) => Validated { meta: SkillMeta::default(), diagnostics: vec![d.clone()] },
        None => validate::validate_bytes(
            summary.skill_md.as_deref(),
            ValidateOptions { strict, dir_name: Some(dir_name), app_version: skilldeck_skill::APP_VERSION },
        ),
    }
}
