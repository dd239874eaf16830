//! The delete path: moving a skill's live folder to history, and the delete's log line.
//! Holds the delete and its pending-line marker; not the public API (`fs`) nor recovery's loop.

use super::adopt;
use super::error::{Result, StorageError};
use super::history::{self, LogLine, RevisionEvent};
use super::marker::{self, Marker, PENDING_HINT};
use super::record;
use super::tree::read_revision;
use super::write;
use crate::home::SkilldeckHome;
use serde::Serialize;
use skilldeck_skill::name::SkillName;
use skilldeck_skill::scope::{Revision, Scope};
use std::fs;
use std::path::Path;

/// What a delete did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeleteOutcome {
    /// The skill deleted.
    pub name: SkillName,
    /// The scope it was deleted from.
    pub scope: Scope,
    /// The revision moved to history, which `restore` brings back.
    pub revision: Revision,
    /// Bookkeeping that failed after the skill moved to history (its log line). The delete
    /// stands, and the skill shows as deleted: its line waits in a marker beside the store,
    /// written by the next start or the skill's next write. Empty when everything went through.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// Moves the live folder `dir` of `name` to history. The caller holds the skill's lock.
///
/// Everything that can fail the delete happens before the move. The `Delete` line is written
/// into a write marker first (the one writes keep until they are logged), so once the folder
/// has moved, a log that cannot be written only adds a warning: the marker keeps the line.
pub(crate) fn delete_locked(
    home: &SkilldeckHome,
    scope: Scope,
    name: &SkillName,
    dir: &Path,
    max_file_bytes: u64,
) -> Result<DeleteOutcome> {
    let history_dir = home.history_dir(scope, name);
    // An edit made in place and not yet adopted becomes its own revision first, so the delete
    // keeps it and history keeps the revision it replaced.
    // (A read-only scope's folder holds what its store sent, and adopts nothing.)
    let adopted = !scope.is_read_only() && adopt::adopt_locked(home, scope, name, dir, max_file_bytes).is_ok();
    // The revision being deleted gets its own line before the delete's.
    let _ = record::reconcile(&history_dir, dir);
    let revision = read_revision(dir).unwrap_or_else(|| write::next_revision(home, scope, name));
    fs::create_dir_all(&history_dir).map_err(StorageError::io("create", &history_dir))?;
    let kept = history::rev_dir(&history_dir, revision);
    // History holds this revision's own copy (taken as it was written or adopted): the live
    // folder goes and the copy stays. Else the live folder becomes that copy.
    let gone = if adopted && kept.is_dir() {
        Some(marker::staging_path(&home.scope_dir(scope), name)?)
    } else {
        if kept.exists() {
            fs::remove_dir_all(&kept).map_err(StorageError::io("replace", &kept))?;
        }
        None
    };
    write::replace_version(dir, name, revision)?;
    let line = LogLine { revision, digest: None, at: history::now(), event: RevisionEvent::Delete };
    // Best effort: without the hint, the pending line is logged by the next start's recovery.
    let hint = history_dir.join(PENDING_HINT);
    let _ = fs::write(&hint, b"");
    let marker = Marker::holding(&home.scope_dir(scope), name, &line).inspect_err(|_| {
        let _ = fs::remove_file(&hint);
    })?;
    if let Err(e) = fs::rename(dir, gone.as_deref().unwrap_or(&kept)) {
        let _ = fs::remove_file(&hint);
        return Err(marker.fail(StorageError::io("move to history", dir)(e)));
    }
    if let Some(gone) = &gone {
        // Named like staging: should this fail or be cut short, the next start removes it.
        let _ = fs::remove_dir_all(gone);
    }
    let mut warnings = Vec::new();
    match history::append(&history_dir, &line) {
        Ok(()) => {
            marker.done();
            let _ = fs::remove_file(&hint);
        }
        Err(e) => warnings.push(format!(
            "the history log was not updated ({e}); the delete of revision {revision} is kept beside the store \
             and logged on the next start"
        )),
    }
    Ok(DeleteOutcome { name: name.clone(), scope, revision, warnings })
}
