//! `skilldeck outdated`, `update` and `pin-source`: sourced skills checked against where they
//! came from and brought up to date, one new revision each, never over a local edit without
//! asking. The check is `skilldeck-sources`; the write is the folder import.

use super::add::fetch_config;
use super::import::{report_line, skill_progress, summary};
use crate::context::Ctx;
use crate::output::{self, Outcome};
use anyhow::Context as _;
use serde::Serialize;
use skilldeck_skill::{Scope, SkillName};
use skilldeck_sources::apply;
use skilldeck_sources::check::{Check, Checked, Status, check};
use skilldeck_sources::installed::InstalledSkills;
use skilldeck_sources::lock::{self as lockfile, Lock};
use skilldeck_sources::restore::{Restore, restore};
use skilldeck_store::import::{self, ImportRequest, ImportState, Incoming};
use skilldeck_store::trust::Trust;
use skilldeck_targets::diff::{self, FileDiff};
use std::io::{BufRead as _, IsTerminal as _, Write as _};

/// Checks `names` (all sourced skills when empty), after making sure each named one is sourced.
fn run_check(ctx: &Ctx, installed: &InstalledSkills, names: &[String]) -> anyhow::Result<Checked> {
    for name in names {
        if installed.get(name).is_none() {
            let sourced: Vec<&str> = installed.iter().map(|(n, _)| n).collect();
            let hint = if sourced.is_empty() {
                "no skill came from a source yet; `skilldeck add SOURCE` installs one".to_owned()
            } else {
                format!("the skills from sources: {}", sourced.join(", "))
            };
            anyhow::bail!("{name} did not come from a source; {hint}");
        }
    }
    let (_, config) = fetch_config(ctx)?;
    let storage = ctx.storage();
    let current = |name: &str| storage.digest_dir(Scope::User, name).ok();
    let tty = std::io::stderr().is_terminal();
    if tty {
        eprint!("checking {} sourced skills …", if names.is_empty() { installed.len() } else { names.len() });
        let _ = std::io::stderr().flush();
    }
    let checked = check(installed, names, &config, &current);
    if tty {
        eprint!("\r\x1b[2K");
    }
    Ok(checked)
}

/// Records the new source tops of skills whose content did not change, so the next check is
/// one listing again.
fn follow_moved(installed: &mut InstalledSkills, checked: &Checked) -> anyhow::Result<()> {
    if apply::follow_moved(installed, checked) {
        installed.save()?;
    }
    Ok(())
}

/// The short commit or digest (`unknown` for a skill adopted with content its source did not
/// hold, whose commit is not known).
fn short(resolved: &str) -> String {
    if resolved.is_empty() {
        return "unknown".to_owned();
    }
    resolved.strip_prefix("sha256:").unwrap_or(resolved).chars().take(7).collect()
}

fn check_line(c: &Check) -> String {
    let from = c.installed.source.short();
    let pin = match (&c.installed.source.reference, c.installed.source.pinned) {
        (Some(r), true) => format!(" (pinned to {r})"),
        _ => String::new(),
    };
    let here = if c.changed_here { "; changed here since it was installed, so update asks first" } else { "" };
    match &c.status {
        Status::UpToDate => format!("up to date    {} {from}{pin}{here}", c.name),
        Status::Outdated { new, .. } => format!(
            "outdated      {} {} → {}{pin}{here}  ({from})",
            c.name,
            short(&c.installed.source.resolved),
            short(&new.resolved)
        ),
        Status::Gone { reason } => format!("gone upstream {}: {reason}", c.name),
        Status::CouldNotCheck { reason } => format!("not checked   {}: {reason}", c.name),
    }
}

/// The JSON of `outdated`.
#[derive(Debug, Serialize)]
struct OutdatedJson<'a> {
    skills: &'a [Check],
    outdated: usize,
    /// Round trips made to each source.
    asked: &'a std::collections::BTreeMap<String, usize>,
}

/// `skilldeck outdated`: every sourced skill against its source; the outdated ones with their
/// old and new commit.
pub fn outdated(json: bool) -> anyhow::Result<Outcome> {
    let ctx = Ctx::open()?;
    let mut installed = InstalledSkills::load(ctx.storage().home())?;
    let checked = run_check(&ctx, &installed, &[])?;
    follow_moved(&mut installed, &checked)?;
    let count = checked.checks.iter().filter(|c| matches!(c.status, Status::Outdated { .. })).count();
    if json {
        output::json(&OutdatedJson { skills: &checked.checks, outdated: count, asked: &checked.asked })?;
        return Ok(Outcome::Ok);
    }
    if checked.checks.is_empty() {
        crate::output::outln!("No skill came from a source; `skilldeck add SOURCE` installs one.");
        return Ok(Outcome::Ok);
    }
    for c in &checked.checks {
        crate::output::outln!("{}", check_line(c));
    }
    let unchecked = checked.checks.iter().filter(|c| matches!(c.status, Status::CouldNotCheck { .. })).count();
    let mut line = format!("{count} of {} sourced skills outdated", checked.checks.len());
    if unchecked > 0 {
        line.push_str(&format!("; {unchecked} could not be checked"));
    }
    if count > 0 {
        line.push_str("; `skilldeck update` brings them up to date (`--dry-run` shows the diffs)");
    }
    crate::output::outln!("{line}");
    Ok(Outcome::Ok)
}

/// What `update` was asked for.
#[derive(Debug, Clone, Default)]
pub struct UpdateArgs {
    /// The skills (all sourced skills when empty).
    pub names: Vec<String>,
    /// Replace skills changed here without asking.
    pub force: bool,
    /// Show the diffs; write nothing.
    pub dry_run: bool,
    /// Print JSON.
    pub json: bool,
}

/// One outdated skill in `update --dry-run --json`.
#[derive(Debug, Serialize)]
struct Planned<'a> {
    name: &'a str,
    from: String,
    to: String,
    changed_here: bool,
    /// Whether it would be updated (a skill changed here is not, without `--force`).
    update: bool,
    files: Vec<FileDiff>,
}

/// `skilldeck update`: the outdated skills brought up to date, one new revision each.
pub fn update(args: &UpdateArgs) -> anyhow::Result<Outcome> {
    let ctx = Ctx::open()?;
    let mut installed = InstalledSkills::load(ctx.storage().home())?;
    let checked = run_check(&ctx, &installed, &args.names)?;
    follow_moved(&mut installed, &checked)?;
    let outdated: Vec<&Check> = checked.checks.iter().filter(|c| matches!(c.status, Status::Outdated { .. })).collect();
    let not_checked: Vec<&Check> = checked
        .checks
        .iter()
        .filter(|c| matches!(c.status, Status::CouldNotCheck { .. } | Status::Gone { .. }))
        .collect();
    let ask = !args.force && !args.dry_run && !args.json && std::io::stdin().is_terminal();
    let apply::Chosen { taken, held } =
        apply::choose(&checked, &[], |c| -> anyhow::Result<bool> { Ok(args.force || (ask && confirm(c)?)) })?;
    if args.dry_run {
        let mut planned = Vec::new();
        for c in &outdated {
            let Status::Outdated { new, dir, .. } = &c.status else { continue };
            let name = SkillName::parse(&c.name)?;
            let files = match ctx.storage().snapshot(Scope::User, &name) {
                Ok(snap) => {
                    let label = snap.revision.map_or("current".to_owned(), |r| format!("v:{r}"));
                    diff::compare(&snap.files, &label, dir, &short(&new.resolved))?
                }
                Err(_) => Vec::new(),
            };
            planned.push(Planned {
                name: &c.name,
                from: c.installed.source.short(),
                to: new.short(),
                changed_here: c.changed_here,
                update: !c.changed_here || args.force,
                files,
            });
        }
        if args.json {
            output::json(&planned)?;
        } else {
            for p in &planned {
                let note = if p.update { "" } else { " (changed here: not without --force)" };
                crate::output::outln!("{}: {} → {}{note}", p.name, p.from, p.to);
                for f in &p.files {
                    match &f.unified {
                        Some(u) => crate::output::outln!("{}", u.trim_end()),
                        None => crate::output::outln!("  {} ({:?}, not text)", f.path, f.change),
                    }
                }
            }
            crate::output::outln!(
                "{} would be updated; nothing was written.",
                planned.iter().filter(|p| p.update).count()
            );
        }
        return Ok(Outcome::Ok);
    }
    // An edit made on disk is kept as a revision of its own first, labelled by its own bytes.
    apply::keep_edits(ctx.storage(), &taken).context("could not keep the local edit before the update")?;
    let requests = apply::requests(&taken);
    let scope = Scope::User;
    let (mut progress, finish) = skill_progress();
    let mut report = import::import_batch(ctx.storage(), scope, &requests, ctx.storage().limits(), &mut progress)
        .context("could not start the update")?;
    finish();
    apply::record(&mut installed, &taken, &report);
    installed.save()?;
    for item in &mut report.items {
        if let Some(Check { status: Status::Outdated { new, .. }, .. }) = apply::taken_for(&taken, &item.source) {
            item.source = new.short();
        }
    }
    let auto = super::autosync::after_change();
    let refused = report.refused() > 0 || !held.is_empty();
    if args.json {
        #[derive(Serialize)]
        struct UpdateJson<'a> {
            items: &'a [import::ImportedItem],
            held_back: Vec<&'a str>,
            not_checked: Vec<&'a Check>,
        }
        super::autosync::json(
            &UpdateJson {
                items: &report.items,
                held_back: held.iter().map(|c| c.name.as_str()).collect(),
                not_checked: not_checked.clone(),
            },
            &auto,
        )?;
        return Ok(if refused { Outcome::Refused } else { Outcome::Ok });
    }
    if outdated.is_empty() {
        crate::output::outln!("Every sourced skill checked is up to date.");
    }
    let trust = Trust::load(ctx.storage().home())?;
    let hold = ctx.registry.hold();
    let risk = |s: &Incoming| super::audit::import_note(&trust, scope, s.name.as_str(), &s.findings, hold);
    for item in &report.items {
        crate::output::outln!("{}", report_line(item, &risk));
    }
    for c in &held {
        crate::output::outln!(
            "held back  {}: changed here since it was installed; `skilldeck update {} --force` replaces the local edit (it stays in history)",
            c.name,
            c.name
        );
    }
    for c in &not_checked {
        crate::output::outln!("{}", check_line(c));
    }
    if !requests.is_empty() {
        crate::output::outln!("{}", summary(&report, scope));
    }
    super::autosync::print(&auto)?;
    Ok(if refused { Outcome::Refused } else { Outcome::Ok })
}

/// Asks on the terminal whether to replace a skill changed here.
fn confirm(c: &Check) -> anyhow::Result<bool> {
    crate::output::err!(
        "{} was changed here since it was installed from {}; replace it with the source's content (the edit stays in history)? [y/N] ",
        c.name,
        c.installed.source.short()
    );
    let _ = std::io::stderr().flush();
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line)?;
    Ok(matches!(line.trim(), "y" | "Y" | "yes"))
}

/// `skilldeck pin-source NAME [REF]`: updates of `name` keep to `reference` (a tag, branch or
/// commit); without one (`--unpin`), they follow the source's default branch again.
pub fn pin_source(name: &str, reference: Option<&str>) -> anyhow::Result<Outcome> {
    let ctx = Ctx::open()?;
    let mut installed = InstalledSkills::load(ctx.storage().home())?;
    let Some(rec) = installed.get(name).cloned() else {
        anyhow::bail!(
            "{name} did not come from a source, so it has no source to pin; `skilldeck outdated` lists those that did"
        );
    };
    let mut source = rec.source.clone();
    source.reference = reference.map(str::to_owned);
    source.pinned = reference.is_some();
    installed.record(name, source, rec.digest);
    installed.save()?;
    match reference {
        Some(r) => crate::output::outln!("{name} now keeps to {r}; `skilldeck update {name}` takes it there"),
        None => crate::output::outln!(
            "{name} follows its source's default branch again; `skilldeck update {name}` brings it up to date"
        ),
    }
    Ok(Outcome::Ok)
}

/// The lockfile named, else `skilldeck.lock` beside the project's `.skilldeck.toml` (the
/// current folder's or the nearest above it), else in the current folder.
fn lock_path_or_default(given: Option<&std::path::Path>) -> anyhow::Result<std::path::PathBuf> {
    match given {
        Some(path) => Ok(path.to_path_buf()),
        None => {
            let cwd = std::env::current_dir().context("could not read the current folder")?;
            Ok(lockfile::default_path(&cwd))
        }
    }
}

/// `skilldeck lock`: every sourced skill at its installed content, written to `out` (default
/// `skilldeck.lock` beside the project's `.skilldeck.toml`, else in the current folder).
pub fn lock(out: Option<&std::path::Path>, json: bool) -> anyhow::Result<Outcome> {
    let ctx = Ctx::open()?;
    let installed = InstalledSkills::load(ctx.storage().home())?;
    let lock = Lock::of(&installed);
    let path = lock_path_or_default(out)?;
    lock.write(&path)?;
    let changed: Vec<&str> = lock
        .skills
        .iter()
        .filter(|s| ctx.storage().digest_dir(Scope::User, &s.name).ok().is_some_and(|d| d != s.digest))
        .map(|s| s.name.as_str())
        .collect();
    if json {
        #[derive(Serialize)]
        struct LockJson<'a> {
            path: String,
            skills: &'a [skilldeck_sources::lock::LockedSkill],
            changed_here: &'a [&'a str],
        }
        output::json(&LockJson { path: path.display().to_string(), skills: &lock.skills, changed_here: &changed })?;
        return Ok(Outcome::Ok);
    }
    crate::output::outln!("Locked {} skills from sources in {}", lock.skills.len(), path.display());
    for name in &changed {
        crate::output::outln!(
            "  {name} was changed here since it was installed: the lock holds the source's content, not the edit"
        );
    }
    Ok(Outcome::Ok)
}

/// `skilldeck install`: the store made to hold exactly the lockfile's skills at exactly their
/// content, fetched by commit; nothing is done for a skill already in place.
/// An MCP server the lock names as a program is started only with `run_servers`.
pub fn install(lock_path: Option<&std::path::Path>, run_servers: bool, json: bool) -> anyhow::Result<Outcome> {
    let ctx = Ctx::open()?;
    let path = lock_path_or_default(lock_path)?;
    let lock = Lock::read(&path)?;
    let (hosts, config) = fetch_config(&ctx)?;
    let storage = ctx.storage();
    let current = |name: &str| storage.digest_dir(Scope::User, name).ok();
    let restored = restore(&lock, &hosts, &config, &current, run_servers);
    let requests: Vec<ImportRequest> = restored
        .skills
        .iter()
        .filter_map(|(skill, state)| match state {
            Restore::Ready { dir } => {
                Some(ImportRequest { path: dir.clone(), only: None, origin: Some(skill.source.clone()) })
            }
            _ => None,
        })
        .collect();
    let (mut progress, finish) = skill_progress();
    let report = import::import_batch(storage, Scope::User, &requests, storage.limits(), &mut progress)
        .context("could not start the install")?;
    finish();
    let mut installed = InstalledSkills::load(storage.home())?;
    for (skill, state) in &restored.skills {
        // Recorded under the name the skill was stored as (its frontmatter's), not the name the
        // lockfile gives it: a lock cannot file one skill's content under another's name.
        let stored: Option<String> = match state {
            Restore::InPlace => Some(skill.name.clone()),
            Restore::Ready { dir } => report.items.iter().find_map(|i| {
                let kept = matches!(i.state, ImportState::Imported { .. } | ImportState::Unchanged { .. });
                let s = i.skill.as_ref().filter(|_| kept && i.source == dir.display().to_string())?;
                Some(s.name.as_str().to_owned())
            }),
            Restore::Failed { .. } => None,
        };
        if let Some(name) = stored {
            installed.record_as(&name, skill.source.clone(), skill.digest, skill.upstream_name.clone());
        }
    }
    installed.save()?;
    let failed = restored.skills.iter().filter(|(_, s)| matches!(s, Restore::Failed { .. })).count() + report.refused();
    if json {
        #[derive(Serialize)]
        struct InstallJson<'a> {
            skills: Vec<serde_json::Value>,
            items: &'a [import::ImportedItem],
        }
        let skills = restored
            .skills
            .iter()
            .map(|(s, state)| serde_json::json!({ "name": s.name, "source": s.source, "restore": state }))
            .collect();
        super::autosync::json(&InstallJson { skills, items: &report.items }, &super::autosync::after_change())?;
        return Ok(if failed > 0 { Outcome::Refused } else { Outcome::Ok });
    }
    let mut in_place = 0;
    for (skill, state) in &restored.skills {
        match state {
            Restore::InPlace => in_place += 1,
            Restore::Ready { .. } => {
                crate::output::outln!("installed  {} from {}", skill.name, skill.source.short())
            }
            Restore::Failed { reason } => crate::output::outln!("failed     {}: {reason}", skill.name),
        }
    }
    crate::output::outln!(
        "{}: {} installed, {in_place} already in place, {failed} failed",
        path.display(),
        requests.len().saturating_sub(report.refused())
    );
    super::autosync::print(&super::autosync::after_change())?;
    Ok(if failed > 0 { Outcome::Refused } else { Outcome::Ok })
}
