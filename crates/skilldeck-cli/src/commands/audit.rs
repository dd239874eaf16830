//! `skilldeck audit`: the audit of skill folders, archives, `SKILL.md` files, collections and
//! stored skills, as text, JSON or SARIF. Reads; never writes the store.

use crate::context::Ctx;
use crate::output::{self, Outcome};
use rayon::prelude::*;
use serde::Serialize;
use skilldeck_audit::{Finding, Report, RiskLevel, sarif};
use skilldeck_skill::{Scope, UploadLimits};
use skilldeck_store::audits;
use skilldeck_store::import::{self, ImportError, Layout, LoadedSkill, Source, WHOLE};
use skilldeck_store::trust::Trust;
use std::path::Path;

/// How to print the audit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Lines for a person.
    Text,
    /// One entry per skill.
    Json,
    /// SARIF 2.1.0.
    Sarif,
}

/// One audited skill, as `--json` prints it.
#[derive(Debug, Serialize)]
struct Entry {
    /// The path given (for a skill inside a collection, the path and its folder in it).
    #[serde(skip_serializing_if = "Option::is_none")]
    path: Option<String>,
    /// The stored skill's name, when one was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<String>,
    /// Its scope, for a stored skill.
    #[serde(skip_serializing_if = "Option::is_none")]
    scope: Option<Scope>,
    /// The skill's name, as its frontmatter gives it (or its folder).
    skill: Option<String>,
    /// The most serious level found.
    worst: Option<RiskLevel>,
    /// Every finding.
    findings: Vec<Finding>,
    /// Why the skill could not be audited at all.
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<ErrorJson>,
    /// What the findings' paths are relative to (for SARIF).
    #[serde(skip)]
    base: String,
}

/// Why a skill could not be audited: `{code, message}`.
#[derive(Debug, Serialize)]
struct ErrorJson {
    code: &'static str,
    message: String,
}

/// Whether an argument names a path rather than a stored skill: it exists on disk, or looks
/// like one.
fn is_path(arg: &str) -> bool {
    Path::new(arg).exists()
        || arg.contains(['/', '\\'])
        || arg.ends_with(".md")
        || arg.ends_with(".zip")
        || arg.ends_with(".skill")
}

fn entry(path: Option<String>, skill: Option<String>, base: String, report: Report) -> Entry {
    skilldeck_store::audits::log_verdict(skill.as_deref().unwrap_or("?"), &report);
    Entry { path, name: None, scope: None, skill, worst: report.worst(), findings: report.findings, error: None, base }
}

fn failed(path: Option<String>, name: Option<String>, code: &'static str, message: String) -> Entry {
    Entry {
        path,
        name,
        scope: None,
        skill: None,
        worst: None,
        findings: Vec::new(),
        error: Some(ErrorJson { code, message }),
        base: String::new(),
    }
}

/// Every skill in `arg` (one, or each of a collection). The skills of a folder collection are
/// read and audited on every core, each with the one-skill reader's checks and limits; an
/// archive is read one skill at a time.
fn audit_path(arg: &str, out: &mut Vec<Entry>) {
    let path = Path::new(arg);
    let mut source = match Source::open(path) {
        Ok(s) => s,
        Err(e) => return out.push(failed(Some(arg.to_owned()), None, e.code(), e.to_string())),
    };
    let locations: Vec<String> = (0..source.len()).map(|i| source.location(i).to_owned()).collect();
    let shown = |location: &str| {
        if location == WHOLE { arg.to_owned() } else { format!("{}/{location}", arg.trim_end_matches('/')) }
    };
    let audited = |shown: String, loaded: Result<LoadedSkill, ImportError>| match loaded {
        Ok(skill) => {
            let report = audits::audit_with_skipped(&skill.files, &skill.skipped);
            let base = if path.is_dir() { shown.clone() } else { String::new() };
            entry(Some(shown), Some(skill.name.to_string()), base, report)
        }
        Err(e) => failed(Some(shown), None, e.code(), e.to_string()),
    };
    if source.layout() == Layout::Collection && path.is_dir() {
        out.par_extend(locations.par_iter().with_min_len(8).map(|location| {
            let dir = path.join(location);
            // Found as a real folder; refused should it have become a link since.
            let loaded = if std::fs::symlink_metadata(&dir).is_ok_and(|m| m.is_dir()) {
                import::load(&dir, UploadLimits::default(), &mut |_, _| {})
            } else {
                Err(ImportError::Hostile {
                    entry: location.clone(),
                    reason: "it is no longer a folder (a link now?); links are never followed".to_owned(),
                })
            };
            audited(shown(location), loaded)
        }));
        return;
    }
    for (i, location) in locations.iter().enumerate() {
        let loaded = source.load(i, UploadLimits::default(), &mut |_, _| {});
        out.push(audited(shown(location), loaded));
    }
}

/// Audits each argument: a path (folder, archive, `SKILL.md`, collection) or a stored
/// skill's name. `Invalid` (exit 1) when any skill has a high or critical finding, `Refused`
/// (exit 2) when an argument could not be audited at all.
pub fn run(args: &[String], format: Format) -> anyhow::Result<Outcome> {
    let mut entries = Vec::new();
    let mut ctx = None;
    for arg in args {
        if is_path(arg) {
            audit_path(arg, &mut entries);
            continue;
        }
        if ctx.is_none() {
            ctx = Some(Ctx::open()?);
        }
        let Some(ctx) = ctx.as_ref() else { continue };
        match ctx.resolve(arg, None) {
            Ok((scope, name)) => match audits::audit_stored(ctx.storage(), scope, name.as_str()) {
                Ok(report) => {
                    let dir = ctx.storage().skill_dir(scope, &name).display().to_string();
                    let mut e = entry(None, Some(name.to_string()), dir, report);
                    e.name = Some(name.to_string());
                    e.scope = Some(scope);
                    entries.push(e);
                }
                Err(err) => entries.push(failed(None, Some(arg.clone()), err.code(), err.to_string())),
            },
            Err(err) => entries.push(failed(None, Some(arg.clone()), "skill_not_found", output::error_text(&err))),
        }
    }
    match format {
        Format::Json => output::json(&entries)?,
        Format::Sarif => output::json(&sarif::log(entries.iter().map(|e| (e.base.as_str(), e.findings.as_slice()))))?,
        Format::Text => print_text(&entries)?,
    }
    Ok(if entries.iter().any(|e| e.error.is_some()) {
        Outcome::Refused
    } else if entries.iter().any(|e| e.worst >= Some(RiskLevel::High)) {
        Outcome::Invalid
    } else {
        Outcome::Ok
    })
}

fn print_text(entries: &[Entry]) -> anyhow::Result<()> {
    for e in entries {
        let label = e.path.as_deref().or(e.name.as_deref()).unwrap_or_default();
        if let Some(err) = &e.error {
            crate::output::outln!("{label}: could not audit: {}", err.message);
            continue;
        }
        let skill = e.skill.as_deref().map(|s| format!(" ({s})")).unwrap_or_default();
        if e.findings.is_empty() {
            crate::output::outln!("{label}{skill}: no findings");
            continue;
        }
        let counts: Vec<String> = RiskLevel::ALL
            .iter()
            .rev()
            .filter_map(|l| {
                let n = e.findings.iter().filter(|f| f.severity == *l).count();
                (n > 0).then(|| format!("{n} {l}"))
            })
            .collect();
        crate::output::outln!("{label}{skill}: {}", counts.join(", "));
        print_findings(&e.findings, "  ")?;
    }
    Ok(())
}

/// Prints findings for a person: level, rule, place and title, then the evidence, any hidden
/// text, and why it matters.
pub fn print_findings(findings: &[Finding], indent: &str) -> anyhow::Result<()> {
    for f in findings {
        let at = f.line.map(|l| format!("{}:{l}", f.file)).unwrap_or_else(|| f.file.clone());
        crate::output::outln!("{indent}{:<8} {}  {at}  {}", f.severity.as_str().to_uppercase(), f.rule, f.title);
        crate::output::outln!("{indent}         {}", f.evidence);
        if let Some(h) = &f.hidden {
            crate::output::outln!("{indent}         hidden text: {h}");
        }
        crate::output::outln!("{indent}         {}", f.why);
    }
    Ok(())
}

/// What an import says of a skill's audit: `, audit: 1 critical, 2 high; HELD until you run
/// `skilldeck trust NAME`` (held when an unapproved finding is at `hold` or above), or nothing
/// when the audit found nothing at medium or above.
pub fn import_note(trust: &Trust, scope: Scope, name: &str, findings: &[Finding], hold: Option<RiskLevel>) -> String {
    let report = Report { findings: findings.to_vec(), ..Report::default() };
    let summary = report.summary();
    if summary.marks.is_empty() {
        return String::new();
    }
    let counts: Vec<String> = [RiskLevel::Critical, RiskLevel::High, RiskLevel::Medium]
        .iter()
        .filter(|l| summary.count(**l) > 0)
        .map(|l| format!("{} {l}", summary.count(*l)))
        .collect();
    let held = hold.is_some_and(|h| !trust.unapproved(scope, name, &summary, h).is_empty());
    let what = if held {
        format!(
            "; HELD: models, MCP clients and agents' folders get it only after `skilldeck audit {name}` and `skilldeck trust {name}`"
        )
    } else {
        format!("; see `skilldeck audit {name}`")
    };
    format!(", audit: {}{what}", counts.join(", "))
}
