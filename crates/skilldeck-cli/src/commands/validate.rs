//! `skilldeck validate`: checks skill folders or `SKILL.md` files without touching the store.

use crate::output::Outcome;
use crate::output::{self, DiagJson};
use anyhow::Context as _;
use serde::Serialize;
use skilldeck_skill::agents::{self, Agent};
use skilldeck_skill::validate::{self, ValidateOptions, Validated};
use skilldeck_skill::{DiagCode, Diagnostic, SkillMeta, UploadLimits, codex_yaml};
use skilldeck_store::{read_check, safe_read};
use std::path::{Path, PathBuf};

/// Whose rules `--for` names: the agentskills.io specification's exactly, or one agent's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// The spec exactly, as `--strict`.
    Spec,
    /// What one agent reads.
    Agent(Agent),
}

impl Target {
    /// The name `--for` took and JSON reports carry.
    fn id(self) -> &'static str {
        match self {
            Self::Spec => "spec",
            Self::Agent(a) => a.id(),
        }
    }

    fn label(self) -> &'static str {
        match self {
            Self::Spec => "the agentskills.io specification",
            Self::Agent(a) => a.name(),
        }
    }
}

/// Reads `--for`'s value; an unknown one names the valid ones.
pub fn parse_target(s: &str) -> Result<Target, String> {
    if s.eq_ignore_ascii_case("spec") {
        return Ok(Target::Spec);
    }
    Agent::parse(s)
        .map(Target::Agent)
        .ok_or_else(|| format!("no agent is called {s:?}; use one of: {}", agents::valid_targets()))
}

#[derive(Debug, Serialize)]
struct Report<'a> {
    path: String,
    /// Whose rules were applied (`--for`, or `spec` for `--strict`); left out by default.
    #[serde(rename = "for", skip_serializing_if = "Option::is_none")]
    target: Option<&'static str>,
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
pub fn run(paths: &[PathBuf], strict: bool, target: Option<Target>, json: bool) -> anyhow::Result<Outcome> {
    let target = target.or(strict.then_some(Target::Spec));
    let strict = target == Some(Target::Spec);
    let agent = match target {
        Some(Target::Agent(a)) => Some(a),
        Some(Target::Spec) | None => None,
    };
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
        let mut v = validate_file(&skill_md, limit, opts, agent);
        if agent == Some(Agent::Codex) {
            v.diagnostics.extend(codex_metadata(&skill_md, limit));
        }
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
                    target: target.map(Target::id),
                    name: v.meta.name.as_deref(),
                    valid: v.is_valid(),
                    diagnostics: output::diags_json(&v.diagnostics),
                    error: None,
                },
                Err(e) => Report {
                    path: p.display().to_string(),
                    target: target.map(Target::id),
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
            let whose = target.map(|t| format!(" for {}", t.label())).unwrap_or_default();
            crate::output::outln!("{}: {verdict}{whose}{note}", p.display());
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

/// `SKILL.md` read through the store's safe reader (a link, a pipe or an oversized file is a
/// diagnostic) and validated as `agent` reads it, or by `opts` alone.
fn validate_file(path: &Path, limit: u64, opts: ValidateOptions<'_>, agent: Option<Agent>) -> Validated {
    if agent.is_none() {
        return read_check::validate_file(path, limit, opts);
    }
    match safe_read::read_file(path, limit) {
        Ok(f) => validate::validate_bytes_for(Some(&f.bytes), opts, agent),
        Err(e) => match read_check::read_diagnostic(&e) {
            None => validate::validate_bytes(None, opts),
            Some(d) => Validated { meta: SkillMeta::default(), diagnostics: vec![d] },
        },
    }
}

/// Codex's `agents/openai.yaml` beside `SKILL.md`, when there is one, checked as Codex reads it.
fn codex_metadata(skill_md: &Path, limit: u64) -> Vec<Diagnostic> {
    let Some(path) = skill_md.parent().map(|dir| dir.join(codex_yaml::PATH)) else { return Vec::new() };
    match safe_read::read_file(&path, limit) {
        Ok(f) => match std::str::from_utf8(&f.bytes) {
            Ok(text) => codex_yaml::check(text),
            Err(_) => vec![
                Diagnostic::warning(
                    DiagCode::FieldValueInvalid,
                    format!("{} is not UTF-8 text, so Codex ignores it", codex_yaml::PATH),
                )
                .arg("file", codex_yaml::PATH),
            ],
        },
        Err(e) => read_check::read_diagnostic(&e)
            .map(|d| {
                Diagnostic::warning(d.code, format!("{}: {}", codex_yaml::PATH, d.message))
                    .arg("file", codex_yaml::PATH)
            })
            .into_iter()
            .collect(),
    }
}
