//! `skilldeck validate`: checks skill folders or `SKILL.md` files without touching the store.

use crate::output::Outcome;
use crate::output::{self, DiagJson};
use anyhow::Context as _;
use serde::Serialize;
use skilldeck_core::UploadLimits;
use skilldeck_core::validate::{self, ValidateOptions};
use skilldeck_core::{DiagCode, Diagnostic};
use std::path::{Path, PathBuf};

#[derive(Debug, Serialize)]
struct Report<'a> {
    path: String,
    name: Option<&'a str>,
    valid: bool,
    diagnostics: Vec<DiagJson<'a>>,
    /// Why the path could not be validated at all (missing, unreadable).
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<PathError>,
}

/// A path that could not be validated: `{code, message}`.
#[derive(Debug, Serialize)]
struct PathError {
    code: &'static str,
    message: String,
}

/// The SKILL.md of `path` and the folder name its `name` must equal.
fn locate(path: &Path) -> anyhow::Result<(PathBuf, Option<String>)> {
    let meta = std::fs::metadata(path).with_context(|| format!("{} does not exist", path.display()))?;
    let (skill_md, dir) = if meta.is_dir() {
        (cased_skill_md(path).unwrap_or_else(|| path.join("SKILL.md")), path.to_path_buf())
    } else {
        let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        (path.to_path_buf(), dir.to_path_buf())
    };
    let dir = std::fs::canonicalize(&dir).unwrap_or(dir);
    Ok((skill_md, dir.file_name().and_then(|n| n.to_str()).map(str::to_owned)))
}

/// The folder's `skill.md` (any case) when it has no `SKILL.md`: common in the wild, and read
/// with a warning rather than called missing.
fn cased_skill_md(dir: &Path) -> Option<PathBuf> {
    if std::fs::symlink_metadata(dir.join("SKILL.md")).is_ok() {
        return None;
    }
    let mut cased = std::fs::read_dir(dir)
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.eq_ignore_ascii_case("SKILL.md")));
    match (cased.next(), cased.next()) {
        (Some(one), None) => Some(one),
        _ => None,
    }
}

/// Validates each path; `Invalid` when any has an error, `Refused` (exit 2) when a path could
/// not be validated at all. One such path never stops the others from being reported.
pub fn run(paths: &[PathBuf], strict: bool, json: bool) -> anyhow::Result<Outcome> {
    let mut results = Vec::new();
    for path in paths {
        let (skill_md, dir_name) = match locate(path) {
            Ok(found) => found,
            Err(e) => {
                results.push((path, Err(PathError { code: "source_not_found", message: output::error_text(&e) })));
                continue;
            }
        };
        let opts = ValidateOptions { strict, dir_name: dir_name.as_deref(), ..ValidateOptions::default() };
        // The store's reader rules: a link, a pipe or an oversized SKILL.md is a diagnostic.
        let limit = UploadLimits::default().max_file_bytes;
        let mut v = validate::validate_file(&skill_md, limit, opts);
        if let Some(name) = skill_md.file_name().and_then(|n| n.to_str()).filter(|n| *n != "SKILL.md") {
            v.diagnostics.insert(
                0,
                Diagnostic::warning(
                    DiagCode::SkillMdRenamed,
                    format!("the file is named {name}; the spec names it SKILL.md (`skilldeck import` stores it so)"),
                ),
            );
        }
        results.push((path, Ok(v)));
    }
    let missing = results.iter().any(|(_, r)| r.is_err());
    let all_valid = results.iter().all(|(_, r)| r.as_ref().is_ok_and(|v| v.is_valid()));
    if json {
        let reports: Vec<Report<'_>> = results
            .iter_mut()
            .map(|(p, r)| match r {
                Ok(v) => Report {
                    path: p.display().to_string(),
                    name: v.meta.name.as_deref(),
                    valid: v.is_valid(),
                    diagnostics: output::diags_json(&v.diagnostics),
                    error: None,
                },
                Err(e) => Report {
                    path: p.display().to_string(),
                    name: None,
                    valid: false,
                    diagnostics: Vec::new(),
                    error: Some(PathError { code: e.code, message: std::mem::take(&mut e.message) }),
                },
            })
            .collect();
        output::json(&reports)?;
    } else {
        for (p, r) in &results {
            let v = match r {
                Ok(v) => v,
                Err(e) => {
                    crate::output::outln!("{}: cannot be validated: {}", p.display(), e.message);
                    continue;
                }
            };
            let verdict = if v.is_valid() { "ok" } else { "INVALID" };
            let warnings = v.diagnostics.iter().filter(|d| !d.is_error()).count();
            let note = if warnings > 0 {
                format!(" ({warnings} warning{})", if warnings == 1 { "" } else { "s" })
            } else {
                String::new()
            };
            crate::output::outln!("{}: {verdict}{note}", p.display());
            output::print_diags(&v.diagnostics, "  ")?;
        }
    }
    Ok(if missing {
        Outcome::Refused
    } else if all_valid {
        Outcome::Ok
    } else {
        Outcome::Invalid
    })
}
