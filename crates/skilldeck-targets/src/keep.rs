//! Keeping an edited copy before `sync --overwrite` replaces it: the copy becomes a revision in
//! the skill's own History, then what the targets get is made current again. Holds that plan
//! and its execution over the store; the sync that calls it is `sync`.
//!
//! A skill of the user scope: the edited copy becomes revision N+1 (event `drift_kept`, naming
//! the target it came from), then revision N+2 restores N, so the store's content is what it
//! was and nothing is lost. A bundled skill (`system`, read-only): the edited copy becomes a
//! revision of a user skill of that name, which is deleted at once — kept in the user scope's
//! History, where `skilldeck restore NAME REV --scope user` makes it yours — so agents keep
//! getting the bundled skill.

use crate::error::TargetError;
use crate::wanted::Wanted;
use serde::Serialize;
use skilldeck_skill::{Digest, Revision, Scope, SkillFiles};
use skilldeck_store::FsStorage;
use skilldeck_store::import;
use skilldeck_store::storage::RevisionEvent;
use std::path::Path;

/// What happens to an edited copy before it is replaced.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(tag = "how", rename_all = "snake_case")]
pub enum Keep {
    /// The edited copy becomes revision `edit` of the skill; then revision `restore` brings back
    /// the content of `from`, the revision the targets get.
    History {
        /// The skill's scope.
        scope: Scope,
        /// The revision holding the edited copy.
        edit: Revision,
        /// The revision restoring `from`, which the target gets.
        restore: Revision,
        /// The revision restored (the store's current one).
        from: Revision,
    },
    /// A bundled or team skill, which cannot be written here: the edited copy becomes revision
    /// `edit` of a user skill of that name, deleted at once (kept in the user scope's History),
    /// so agents keep the bundled or team one.
    UserHistory {
        /// The user-scope revision holding the edited copy.
        edit: Revision,
        /// The skill's own scope: `system` or `team`.
        of: Scope,
    },
    /// Nothing needs keeping: the entry is a link pointed elsewhere (what it points to stays
    /// where it is), or it holds the content of revision `same`, which the History has.
    Nothing {
        /// The revision whose content it holds.
        #[serde(skip_serializing_if = "Option::is_none")]
        same: Option<Revision>,
    },
}

impl Keep {
    /// Whether the edited copy is written to the store.
    pub fn stores(&self) -> bool {
        match self {
            Self::History { .. } | Self::UserHistory { .. } => true,
            Self::Nothing { .. } => false,
        }
    }

    /// A line for people: what happens to the edited copy (`would`: planned, not done yet).
    pub fn describe(&self, would: bool) -> String {
        let w = |planned: &'static str, done: &'static str| if would { planned } else { done };
        match self {
            Self::History { edit, restore, from, .. } => format!(
                "{} the edited copy in History as v:{edit}, {} v:{from} as v:{restore}, {}",
                w("keep", "kept"),
                w("restore", "restored"),
                w("replace", "replaced")
            ),
            Self::UserHistory { edit, of } => {
                let kind = if *of == Scope::Team { "team" } else { "bundled" };
                format!(
                    "a {kind} skill: {} the edited copy as v:{edit} of a user skill, deleted at once so agents keep the {kind} one (`skilldeck restore NAME {edit} --scope user` makes it yours), {}",
                    w("keep", "kept"),
                    w("replace", "replaced")
                )
            }
            Self::Nothing { same: Some(rev) } => {
                format!(
                    "nothing to keep: the edited copy holds v:{rev}, which History has; {}",
                    w("replace", "replaced")
                )
            }
            Self::Nothing { same: None } => {
                format!("nothing to keep: a link, and what it points to stays; {}", w("replace", "replaced"))
            }
        }
    }
}

/// What keeping the edited copy of `want` would do. `edited` is the copy's digest; `link`: the
/// entry is a link pointed elsewhere (a link edited through its export is kept like a copy).
pub fn plan(storage: &FsStorage, want: &Wanted, edited: Option<Digest>, link: bool) -> Keep {
    if link {
        return Keep::Nothing { same: None };
    }
    if let Some(d) = edited
        && let Ok(entries) = storage.history_sync(want.scope, &want.name)
        && let Some(e) = entries.iter().find(|e| e.restorable && e.digest == Some(d))
    {
        return Keep::Nothing { same: Some(e.revision) };
    }
    if matches!(want.scope, Scope::System | Scope::Team) {
        return Keep::UserHistory { edit: storage.next_revision(Scope::User, &want.name), of: want.scope };
    }
    let edit = storage.next_revision(want.scope, &want.name);
    Keep::History { scope: want.scope, edit, restore: Revision(edit.0 + 1), from: want.revision }
}

/// Reads the edited copy at `path` the way `skilldeck import` reads a folder (same limits; no
/// links inside, no devices). Refused: an error saying why, and nothing is changed; so is a
/// copy holding entries the reader passes over (`.git`, sidecars), which would be lost.
pub fn read(storage: &FsStorage, name: &str, path: &Path) -> Result<SkillFiles, TargetError> {
    let refused = |reason: String| TargetError::EditNotKept { name: name.to_owned(), path: path.to_path_buf(), reason };
    let loaded = import::load(path, storage.limits(), &mut |_, _| {}).map_err(|e| refused(e.to_string()))?;
    if !loaded.skipped.is_empty() {
        // What the reader passed over would not be kept, and the replacement would delete it.
        return Err(refused(format!(
            "it holds entries the store does not keep ({}), which replacing it would delete; move them out of that folder first",
            loaded.skipped.join(", ")
        )));
    }
    if loaded.files.skill_md().is_none() {
        return Err(refused("it has no SKILL.md".to_owned()));
    }
    Ok(loaded.files)
}

/// Keeps `files`, the edited copy of `want` found in `target`, as `planned` says; returns what
/// was done, with the revisions made. An invalid skill is kept too (the store keeps invalid
/// revisions with their diagnostics).
pub fn keep(
    storage: &FsStorage,
    want: &Wanted,
    planned: &Keep,
    files: &SkillFiles,
    target: &str,
) -> Result<Keep, TargetError> {
    let event = || RevisionEvent::DriftKept { target: target.to_owned() };
    let name = &want.name;
    match planned {
        Keep::Nothing { .. } => Ok(planned.clone()),
        Keep::History { scope, .. } => {
            // What the targets get is the store's content now (a write since the plan included).
            let from = storage.snapshot(*scope, name)?.revision.unwrap_or(want.revision);
            let edit = storage.write_with_event(*scope, name, files, event())?;
            let restore = storage.restore_sync(*scope, name, from)?;
            Ok(Keep::History { scope: *scope, edit: edit.revision, restore: restore.revision, from })
        }
        Keep::UserHistory { .. } => {
            if storage.skill_dir(Scope::User, name).is_dir() {
                return Err(TargetError::EditNotKept {
                    name: name.to_string(),
                    path: storage.skill_dir(Scope::User, name),
                    reason: "a user skill of that name exists, so the edit of the bundled or team one cannot go to the user scope's History without replacing it".to_owned(),
                });
            }
            let edit = storage.write_with_event(Scope::User, name, files, event())?;
            storage.delete_skill_sync(Scope::User, name)?;
            Ok(Keep::UserHistory { edit: edit.revision, of: want.scope })
        }
    }
}
