//! What follows a renamed skill outside the store in the app, as `skilldeck rename` does it:
//! `[listing]` pins and switches, `[targets.NAME]` lists, `sources.json` and
//! `sources-check.json`, the eval results. Deliveries follow by the next sync (the ownership records name the old
//! copies, which it removes, and the new name is written). Holds that glue; not the rename in
//! the store (`skilldeck_core::rename`).

use skilldeck_core::rename::Renamed;
use skilldeck_skill::Scope;
use skilldeck_sources::installed::InstalledSkills;
use skilldeck_sources::last_check::LastCheck;
use skilldeck_store::FsStorage;

/// Follows the renamed skill in the files outside the store; returns what could not be
/// followed, in words (the rename stands whatever happens here).
pub fn follow(storage: &FsStorage, done: &Renamed) -> Vec<String> {
    let o = &done.outcome;
    let (from, to) = (o.from.as_str(), o.name.as_str());
    let home = storage.home();
    let config = home.config_path();
    let mut warnings = Vec::new();
    // Pins and switches name skills bare: another scope's skill of the old name keeps them.
    let keep_old = Scope::ALL.iter().any(|s| storage.skill_dir(*s, &o.from).is_dir());
    if let Err(e) = skilldeck_agent::config_edit::rename_skill(&config, from, to, keep_old) {
        warnings.push(format!("[listing] still names {from} ({e}); pin or switch {to} again"));
    }
    if let Err(e) = skilldeck_targets::config_edit::rename_skill(&config, from, to) {
        warnings.push(format!("[targets] still name {from} ({e}); edit config.toml by hand"));
    }
    if o.scope == Scope::User {
        let moved = InstalledSkills::load(home).map_err(|e| e.to_string()).and_then(|mut installed| {
            if installed.rename(from, to, o.from_digest, o.digest) {
                installed.save().map_err(|e| e.to_string())?;
            }
            Ok(())
        });
        if let Err(e) = moved {
            warnings.push(format!("sources.json still records {from} ({e})"));
        }
        let mut last = LastCheck::load(home);
        if last.rename(from, to, o.from_digest, o.digest) && last.save().is_err() {
            warnings.push("sources-check.json was not updated; the next check writes it again".to_owned());
        }
    }
    if let Err(e) = skilldeck_agent::eval::follow_rename_records(home, o.scope, from, to) {
        warnings.push(format!("the eval results of {from} stay under its old name ({e})"));
    }
    warnings
}
