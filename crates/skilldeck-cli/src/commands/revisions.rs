//! `skilldeck delete`, `history` and `restore`: a skill's revisions, and undoing a delete.

use crate::context::Ctx;
use crate::output;
use crate::output::Outcome;
use anyhow::Context as _;
use skilldeck_skill::{Revision, Scope, SkillName};
use skilldeck_store::storage::RevisionEvent;

/// Finds `name` among live skills, or among deleted ones (history only) for history/restore.
fn resolve_any(ctx: &Ctx, name: &str, scope: Option<Scope>) -> anyhow::Result<(Scope, SkillName)> {
    match ctx.resolve(name, scope) {
        Ok(found) => Ok(found),
        Err(e) => {
            let parsed = SkillName::parse(name).with_context(|| format!("{name:?} is not a skill name"))?;
            let scopes = scope.map_or_else(|| Scope::ALL.iter().rev().copied().collect(), |s| vec![s]);
            scopes.into_iter().find(|s| ctx.storage().history_sync(*s, &parsed).is_ok()).map(|s| (s, parsed)).ok_or(e)
        }
    }
}

/// Moves a skill to history.
pub fn delete(name: &str, scope: Option<Scope>) -> anyhow::Result<Outcome> {
    let ctx = Ctx::open()?;
    let (scope, name) = ctx.resolve(name, scope)?;
    let out = ctx.registry.delete_skill(scope, &name)?;
    let rev = out.revision;
    crate::output::outln!(
        "Deleted {name} ({scope}, v:{rev}). Undo with: skilldeck restore {name} {rev} --scope {scope}"
    );
    output::print_warnings(&out.warnings);
    super::autosync::print(&super::autosync::after_change())?;
    Ok(Outcome::Ok)
}

/// Lists revisions, newest first.
pub fn history(name: &str, scope: Option<Scope>, json: bool) -> anyhow::Result<Outcome> {
    if scope == Some(Scope::Team) {
        return super::remote::team_history(name, json);
    }
    let ctx = Ctx::open()?;
    let (scope, name) = resolve_any(&ctx, name, scope)?;
    if scope == Scope::Team {
        return super::remote::team_history(name.as_str(), json);
    }
    let entries = ctx.storage().history_sync(scope, &name)?;
    if json {
        output::json(&entries)?;
        return Ok(Outcome::Ok);
    }
    crate::output::outln!("{name} ({scope})");
    for e in &entries {
        let event = match &e.event {
            RevisionEvent::Upload => "upload".to_owned(),
            RevisionEvent::Bundled => "bundled".to_owned(),
            RevisionEvent::External => "edited on disk".to_owned(),
            RevisionEvent::Edit => "edited in Skilldeck".to_owned(),
            RevisionEvent::Restore { from } => format!("restored from v:{from}"),
            RevisionEvent::Delete => "deleted".to_owned(),
            RevisionEvent::Recovered => "recovered".to_owned(),
            RevisionEvent::DriftKept { target } => format!("edited copy kept from {target}"),
            RevisionEvent::Mirrored => "from the team store".to_owned(),
            RevisionEvent::Sourced { source } => format!("from {}", source.short()),
            RevisionEvent::Renamed { from } => format!("renamed from {from}"),
        };
        let digest = e.digest.map(|d| d.short()).unwrap_or_else(|| "-".to_owned());
        let state = if e.current {
            "current"
        } else if e.restorable {
            "kept"
        } else {
            "gone"
        };
        let at = if e.at.is_empty() { "-" } else { e.at.as_str() };
        crate::output::outln!("  v:{:<5} {at:<20}  {digest:<19}  {state:<7}  {event}", e.revision);
    }
    Ok(Outcome::Ok)
}

/// Makes a new revision from an old one.
pub fn restore(name: &str, revision: u64, scope: Option<Scope>, json: bool) -> anyhow::Result<Outcome> {
    let ctx = Ctx::open()?;
    let (scope, name) = resolve_any(&ctx, name, scope)?;
    if scope == Scope::Team {
        return super::remote::team_restore(&ctx, &name, revision, json);
    }
    let out = ctx.registry.restore(scope, &name, Revision(revision))?;
    output::print_warnings(&out.warnings);
    let auto = super::autosync::after_change();
    if json {
        super::autosync::json(
            &serde_json::json!({
                "name": out.name, "scope": scope, "revision": out.revision, "digest": out.digest.short(),
            }),
            &auto,
        )?;
    } else {
        crate::output::outln!("Restored {name} v:{revision} as v:{} ({scope}, {})", out.revision, out.digest);
        super::autosync::print(&auto)?;
    }
    Ok(Outcome::Ok)
}
