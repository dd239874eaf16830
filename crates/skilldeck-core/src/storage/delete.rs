//! The delete path: moving a skill's live folder to history, and the delete's log line.
//! Holds the delete and its pending-line marker; not the public API (`fs`) nor recovery's loop.

use super::history::{self, LogLine, RevisionEvent};
use super::record;
use super::tree::read_revision;
use super::write::{self, Marker, staging_owner};
use super::{Result, Revision, Scope, StorageError};
use crate::home::SkilldeckHome;
use crate::name::SkillName;
use serde::Serialize;
use std::fs;
use std::path::{Path, PathBuf};

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
pub(crate) fn delete_locked(home: &SkilldeckHome, scope: Scope, name: &SkillName, dir: &Path) -> Result<DeleteOutcome> {
    let history_dir = home.history_dir(scope, name);
    // The revision being deleted gets its own line before the delete's.
    let _ = record::reconcile(&history_dir, dir);
    let revision = read_revision(dir).unwrap_or_else(|| write::next_revision(home, scope, name));
    fs::create_dir_all(&history_dir).map_err(StorageError::io("create", &history_dir))?;
    let kept = history::rev_dir(&history_dir, revision);
    if kept.exists() {
        fs::remove_dir_all(&kept).map_err(StorageError::io("replace", &kept))?;
    }
    write::replace_version(dir, name, revision)?;
    let line = LogLine { revision, digest: None, at: history::now(), event: RevisionEvent::Delete };
    // Best effort: without the hint, the pending line is logged by the next start's recovery.
    let hint = history_dir.join(PENDING_HINT);
    let _ = fs::write(&hint, b"");
    let marker = Marker::holding(&home.scope_dir(scope), name, &line).inspect_err(|_| {
        let _ = fs::remove_file(&hint);
    })?;
    if let Err(e) = fs::rename(dir, &kept) {
        let _ = fs::remove_file(&hint);
        return Err(marker.fail(StorageError::io("move to history", dir)(e)));
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

/// The deletes in the scope folder `scope_dir` whose log line is not written yet, oldest first:
/// each skill's name, its marker and the line.
pub(crate) fn pending(scope_dir: &Path) -> Vec<(SkillName, PathBuf, LogLine)> {
    let Ok(entries) = fs::read_dir(scope_dir) else {
        return Vec::new();
    };
    let mut out: Vec<(SkillName, PathBuf, LogLine)> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|e| {
            let file_name = e.file_name().into_string().ok()?;
            let name = SkillName::parse(staging_owner(&file_name)?).ok()?;
            // Markers of writes are empty; a sidecar being replaced holds no delete.
            let line: LogLine = serde_json::from_slice(&fs::read(e.path()).ok()?).ok()?;
            (line.event == RevisionEvent::Delete).then_some((name, e.path(), line))
        })
        .collect();
    out.sort_by_key(|(_, _, line)| line.revision);
    out
}

/// The file a delete leaves in the skill's history folder while its line may wait in a marker
/// beside the store. A write looks for it (one lookup) before it reads the whole scope folder
/// for markers: that read, once per write, made each write cost more the more skills there were.
const PENDING_HINT: &str = ".delete-pending";

/// Writes the pending delete lines of the skill whose live folder is `live` to its log, and
/// removes their markers, when a delete left the hint that one may be pending (recovery, which
/// starts from the markers themselves, finishes any other). The caller holds the skill's lock.
pub(crate) fn finish_pending(history_dir: &Path, live: &Path) -> Result<()> {
    let hint = history_dir.join(PENDING_HINT);
    if fs::symlink_metadata(&hint).is_err() {
        return Ok(());
    }
    finish_pending_scan(history_dir, live)
}

/// `finish_pending` without the hint: reads the scope folder for markers. For recovery, and
/// for markers a version without hints left.
pub(crate) fn finish_pending_scan(history_dir: &Path, live: &Path) -> Result<()> {
    let (Some(scope_dir), Some(name)) = (live.parent(), live.file_name().and_then(|n| n.to_str())) else {
        return Ok(());
    };
    let done = history::read_log(history_dir);
    for (_, marker, line) in pending(scope_dir).into_iter().filter(|(n, _, _)| n.as_str() == name) {
        if !done.iter().any(|l| l.event == RevisionEvent::Delete && l.revision == line.revision) {
            history::append(history_dir, &line)?;
        }
        fs::remove_file(&marker).map_err(StorageError::io("remove leftover", &marker))?;
    }
    let _ = fs::remove_file(history_dir.join(PENDING_HINT));
    Ok(())
}
