//! `skilldeck rename OLD NEW`: a skill renamed in the store (history, draft and approvals with
//! it, `skilldeck_core::rename`), then what Skilldeck keeps about it by name outside the store:
//! `[listing]` pins and switches, `[targets.NAME]` lists, `sources.json` and
//! `sources-check.json`. Deliveries follow by the next sync, which the ownership records let
//! remove the old name's copies and write the new one's.

use crate::context::Ctx;
use crate::output::{self, Outcome};
use anyhow::Context as _;
use serde::Serialize;
use skilldeck_agent::config_edit::{self, ListingFollowed};
use skilldeck_core::rename::{self, Renamed};
use skilldeck_skill::{Scope, SkillName};
use skilldeck_sources::installed::InstalledSkills;
use skilldeck_sources::last_check::LastCheck;
use skilldeck_targets::record::Records;

/// What followed the skill outside the store.
#[derive(Debug, Default, Serialize)]
struct Followed {
    /// `[listing]`: pinned, switched off.
    listing: ListingFollowed,
    /// The `[targets.NAME]` tables whose `skills` or `exclude` named it.
    targets: Vec<String>,
    /// Whether its `sources.json` record (and last check) moved.
    source: bool,
    /// The target folders holding a copy Skilldeck delivered under the old name.
    delivered: usize,
}

/// Renames skill `old` to `new`.
pub fn run(old: &str, new: &str, scope: Option<Scope>, json: bool) -> anyhow::Result<Outcome> {
    let ctx = Ctx::open()?;
    let (scope, from) = ctx.resolve(old, scope)?;
    let to = SkillName::parse(new).with_context(|| format!("{new:?} is not a skill name"))?;
    let done = rename::rename_skill(&ctx.registry, scope, &from, &to)?;
    let mut warnings = done.outcome.warnings.clone();
    let followed = follow(&ctx, &done, &mut warnings);
    let auto = super::autosync::after_change();
    if json {
        super::autosync::json(
            &serde_json::json!({ "renamed": done, "followed": followed, "warnings": warnings }),
            &auto,
        )?;
        return Ok(Outcome::Ok);
    }
    let o = &done.outcome;
    let mut what = vec!["history"];
    if followed.listing.pinned {
        what.push("pin");
    }
    if followed.listing.disabled {
        what.push("switch");
    }
    if done.approvals {
        what.push("approval");
    }
    if done.draft {
        what.push("draft");
    }
    if !followed.targets.is_empty() {
        what.push("target lists");
    }
    if followed.source {
        what.push("source");
    }
    let what = match what.split_last() {
        Some((last, [])) => (*last).to_owned(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    };
    let mut line = format!("Renamed {from} to {to} ({scope}, v:{}); {what} followed.", o.revision);
    if followed.delivered > 0 {
        line.push_str(&format!(" The next sync replaces {from} in the agents' folders."));
    }
    output::outln!("{line}");
    output::print_warnings(&warnings);
    super::autosync::print(&auto)?;
    Ok(Outcome::Ok)
}

/// Follows the renamed skill in the files outside the store. The rename stands whatever
/// happens here: a file that cannot be changed becomes a warning saying what to do.
fn follow(ctx: &Ctx, done: &Renamed, warnings: &mut Vec<String>) -> Followed {
    let o = &done.outcome;
    let (from, to) = (o.from.as_str(), o.name.as_str());
    let home = ctx.storage().home();
    let config = home.config_path();
    let mut followed = Followed::default();
    // Pins and switches name skills bare: another scope's skill of the old name keeps them.
    let keep_old = Scope::ALL.iter().any(|s| ctx.storage().skill_dir(*s, &o.from).is_dir());
    match config_edit::rename_skill(&config, from, to, keep_old) {
        Ok(l) => followed.listing = l,
        Err(e) => warnings
            .push(format!("[listing] in {} still names {from} ({e}); pin or switch {to} again", config.display())),
    }
    match skilldeck_targets::config_edit::rename_skill(&config, from, to) {
        Ok(t) => followed.targets = t,
        Err(e) => {
            warnings.push(format!("[targets] in {} still name {from} ({e}); edit them by hand", config.display()))
        }
    }
    if o.scope == Scope::User {
        let moved = InstalledSkills::load(home).map_err(|e| e.to_string()).and_then(|mut installed| {
            let moved = installed.rename(from, to, o.from_digest, o.digest);
            if moved {
                installed.save().map_err(|e| e.to_string())?;
            }
            Ok(moved)
        });
        match moved {
            Ok(moved) => followed.source = moved,
            Err(e) => warnings.push(format!(
                "sources.json still records {from} ({e}); `skilldeck update {to}` may not find its source"
            )),
        }
        let mut last = LastCheck::load(home);
        if last.rename(from, to, o.from_digest, o.digest) && last.save().is_err() {
            // A cache: the next check writes it again.
            warnings.push("sources-check.json was not updated; the next check for updates writes it again".to_owned());
        }
    }
    if let Err(e) = skilldeck_agent::eval::follow_rename_records(home, o.scope, from, to) {
        warnings.push(format!("the eval results of {from} stay under its old name ({e})"));
    }
    followed.delivered = Records::new(home.root())
        .all()
        .iter()
        .filter(|r| r.skills.get(from).is_some_and(|owned| owned.scope == o.scope))
        .count();
    followed
}
