//! What a file-system event means for the store: which skills changed, or a settings file.
//! Holds the path-to-change mapping only; watching and debouncing live beside it.

use super::change::{SkillChange, StoreChange};
use crate::home::SkilldeckHome;
use crate::storage::{STAGING_PREFIX, Scope, staging_owner};
use crate::trust::TRUST_FILE;
use notify::{Event, EventKind};
use skilldeck_skill::name::SkillName;
use std::path::Path;

/// Every scope, each as a whole, and config.toml: what an event that says nothing reliable
/// (the kernel's queue overflowed, a rescan is asked for) may have changed.
pub(crate) fn everything() -> Vec<StoreChange> {
    Scope::ALL
        .into_iter()
        .map(|scope| StoreChange::Skill(SkillChange { scope, name: None }))
        .chain([StoreChange::Config, StoreChange::Trust])
        .collect()
}

/// The changes one event makes. Reads (inotify reports every open) are none; a rename names
/// both of its ends, so an exchange of a skill folder with its staging sibling names the skill.
pub(crate) fn changes_in(home: &SkilldeckHome, event: &Event) -> Vec<StoreChange> {
    if event.need_rescan() {
        return everything();
    }
    if matches!(event.kind, EventKind::Access(_)) {
        return Vec::new();
    }
    event.paths.iter().flat_map(|p| change_for(home, p)).collect()
}

/// Maps a changed path to what it changes: a skill (by its folder, anything inside it, or its
/// staging siblings), a whole scope when the skill cannot be told, or a settings file. Other hidden
/// entries of a scope folder and paths elsewhere map to nothing.
pub fn change_for(home: &SkilldeckHome, path: &Path) -> Vec<StoreChange> {
    if path == home.config_path() {
        return vec![StoreChange::Config];
    }
    if path == home.root().join(TRUST_FILE) {
        return vec![StoreChange::Trust];
    }
    if path == home.root().join("skills") {
        return everything().into_iter().filter(|c| matches!(c, StoreChange::Skill(_))).collect();
    }
    for scope in Scope::ALL {
        let Ok(rest) = path.strip_prefix(home.scope_dir(scope)) else { continue };
        let whole = StoreChange::Skill(SkillChange { scope, name: None });
        let Some(first) = rest.components().next() else { return vec![whole] };
        let Some(entry) = first.as_os_str().to_str() else { return vec![whole] };
        let name = if entry.starts_with('.') {
            // `.staging-<pid>-<n>-<name>`, or `….old` where the OS cannot exchange folders.
            match staging_owner(entry).and_then(|o| o.split('.').next()).filter(|n| SkillName::parse(n).is_ok()) {
                Some(owner) => owner,
                None if entry.starts_with(STAGING_PREFIX) => return vec![whole],
                None => return Vec::new(),
            }
        } else {
            // A folder whose name is no skill name is still listed (as invalid) under it.
            entry
        };
        return vec![StoreChange::Skill(SkillChange { scope, name: Some(name.to_owned()) })];
    }
    Vec::new()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn check(rel: &str, expected: &[StoreChange]) {
        let home = SkilldeckHome::new("/h");
        assert_eq!(change_for(&home, &Path::new("/h").join(rel)), expected, "{rel}");
    }

    fn skill(scope: Scope, name: Option<&str>) -> StoreChange {
        StoreChange::Skill(SkillChange { scope, name: name.map(str::to_owned) })
    }

    #[test]
    fn paths_map_to_what_they_change() {
        let pdf = [skill(Scope::User, Some("pdf"))];
        check("skills/user/pdf", &pdf);
        check("skills/user/pdf/SKILL.md", &pdf);
        check("skills/user/pdf/.version", &pdf);
        check("skills/user/pdf/references/a.md", &pdf);
        check("skills/user/.staging-12-3-pdf", &pdf);
        check("skills/user/.staging-12-3-pdf/SKILL.md", &pdf);
        check("skills/user/.staging-12-3-pdf.old", &pdf);
        check("skills/system/.staging-12-3-multi-word", &[skill(Scope::System, Some("multi-word"))]);
        check("skills/user/Bad_Name", &[skill(Scope::User, Some("Bad_Name"))]);
        check("skills/user/.staging-garbled", &[skill(Scope::User, None)]);
        check("skills/user/.staging-1-2-Bad_Name", &[skill(Scope::User, None)]);
        check("skills/user", &[skill(Scope::User, None)]);
        check("skills", &[skill(Scope::System, None), skill(Scope::Team, None), skill(Scope::User, None)]);
        check("skills/team/pdf/SKILL.md", &[skill(Scope::Team, Some("pdf"))]);
        check("config.toml", &[StoreChange::Config]);
        check("trust.json", &[StoreChange::Trust]);
        check("skills/user/.DS_Store", &[]);
        check("config.toml.123.tmp", &[]);
        check("history/user/pdf/1/SKILL.md", &[]);
        check("sessions/a.jsonl", &[]);
        check("skills/teams/x", &[]);
    }
}
