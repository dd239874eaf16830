//! `skilldeck scan`: every skill in the agent tools' folders, identical copies grouped, each
//! group's validity and relation to the store, and the source the `skills` CLI's lockfiles give
//! for it. Reads only (the lockfiles too; their sources are fetched by `adopt`).

use crate::commands::targets::{level, project_dir, resolve, wanted};
use crate::context::Ctx;
use crate::output::Outcome;
use serde::Serialize;
use skilldeck_skill::Severity;
use skilldeck_sources::skills_cli::{LockEntry, SkillsCliLocks};
use skilldeck_targets::record::Records;
use skilldeck_targets::scan::{self, CopyGroup, Relation, ScanReport};
use std::path::Path;

/// Says on stderr which of the `skills` CLI's lockfiles could not be read, and that `what`
/// goes on without them.
pub(crate) fn warn_unreadable(locks: &SkillsCliLocks, what: &str) {
    for u in &locks.unreadable {
        eprintln!("note: {}; {what} goes on without the sources it names", u.error);
    }
}

/// Where the `skills` CLI says a skill came from, in words.
pub(crate) fn entry_text(e: &LockEntry) -> String {
    let mut text = format!("installed by the skills CLI from {}", e.source);
    if let Some(path) = e.path.as_deref().filter(|p| *p != ".") {
        text.push_str(&format!(", {path}"));
    }
    if let Some(r) = &e.reference {
        text.push_str(&format!(" at {r}"));
    }
    text.push_str(&format!(" ({})", e.lockfile.display()));
    text
}

/// The JSON of `scan`: the scan, and what the `skills` CLI's lockfiles say.
#[derive(Serialize)]
struct ScanJson<'a> {
    #[serde(flatten)]
    report: &'a ScanReport,
    skills_cli: &'a SkillsCliLocks,
}

/// Scans every existing folder of every tool and configured target (user level, and the
/// project's when given).
pub(crate) fn report(ctx: &Ctx, project: Option<&Path>) -> anyhow::Result<ScanReport> {
    let project = project_dir(project)?;
    let targets = resolve(ctx, project.as_deref())?;
    let wanted = wanted(ctx)?;
    let folders = scan::inputs(&targets, &wanted);
    let records = Records::new(ctx.storage().home().root());
    Ok(scan::scan(ctx.storage(), &records, &folders))
}

/// The relation in words.
pub(crate) fn relation_text(r: &Relation) -> String {
    match r {
        Relation::NotInStore => "not in the store".to_owned(),
        Relation::Same { scope, revision } => format!("same content as v:{revision} ({scope})"),
        Relation::StoreOlder { scope, revision } => {
            format!("edited here since v:{revision} was delivered: newer than the store ({scope})")
        }
        Relation::StoreNewer { scope, revision, copy_revision } => {
            format!("an older revision, v:{copy_revision}; the store is at v:{revision} ({scope})")
        }
        Relation::Different { scope, revision } => format!("differs from the store's v:{revision} ({scope})"),
    }
}

fn validity(g: &CopyGroup) -> String {
    let errors = g.diagnostics.iter().filter(|d| d.severity == Severity::Error).count();
    if g.valid { "valid".to_owned() } else { format!("INVALID ({errors} errors)") }
}

/// Prints the scan.
pub fn run(project: Option<&Path>, json: bool) -> anyhow::Result<Outcome> {
    let ctx = Ctx::open()?;
    let report = report(&ctx, project)?;
    let locks = SkillsCliLocks::read(project_dir(project)?.as_deref());
    if json {
        crate::output::json(&ScanJson { report: &report, skills_cli: &locks })?;
        return Ok(Outcome::Ok);
    }
    warn_unreadable(&locks, "the scan");
    if report.folders.is_empty() {
        crate::output::outln!(
            "No agent tool's skill folder exists here; `skilldeck targets` lists where they would be."
        );
        return Ok(Outcome::Ok);
    }
    for f in &report.folders {
        let what = match (&f.same_as, &f.error) {
            (Some(first), _) => format!("same folder as {first}"),
            (None, Some(e)) => format!("error: {e}"),
            (None, None) => format!("{} skills", f.skills),
        };
        crate::output::outln!("{} [{}] {}: {what}", f.target, level(f.level), f.path.display());
    }
    for s in &report.skills {
        let note =
            if s.copies.len() > 1 { format!(" — {} different contents", s.copies.len()) } else { String::new() };
        crate::output::outln!("\n{}{note}", s.name);
        if let Some(e) = locks.entry(&s.name) {
            crate::output::outln!("  {}", entry_text(e));
        }
        for g in &s.copies {
            crate::output::outln!("  {} {}, {}", g.digest.short(), validity(g), relation_text(&g.relation));
            for p in &g.places {
                let link = if p.link { ", a link" } else { "" };
                crate::output::outln!(
                    "    {} [{}] {} ({}{link})",
                    p.target,
                    level(p.level),
                    p.path.display(),
                    p.state.as_str()
                );
            }
        }
    }
    for u in &report.unreadable {
        crate::output::outln!("\nnot a readable skill: {} ({}): {}", u.path.display(), u.target, u.error);
    }
    let copies: usize = report.skills.iter().flat_map(|s| &s.copies).map(|g| g.places.len()).sum();
    crate::output::outln!(
        "\n{} skills ({copies} copies) in {} folders; `skilldeck adopt --all` brings them into Skilldeck.",
        report.skills.len(),
        report.folders.iter().filter(|f| f.same_as.is_none()).count()
    );
    Ok(Outcome::Ok)
}
