//! Adopting an edit made in place in a live skill folder (an editor, `git pull`, a folder
//! copied in) as the skill's next revision, once, with its own copy in history.
//! Holds the adopt under the caller's lock; not the watching (`watch`) nor the public API (`fs`).

use super::error::{Result, StorageError};
use super::history::{self, LogLine, RevisionEvent};
use super::marker::{self, staging_path};
use super::record;
use super::write;
use super::{scan, tree};
use crate::home::SkilldeckHome;
use skilldeck_skill::name::SkillName;
use skilldeck_skill::scope::{Revision, Scope};
use std::path::Path;

/// Takes the live folder `dir` of `name` as a new revision when its content digest differs
/// from the digest logged for its current revision. Returns the new revision, or `None` when
/// nothing changed. The caller holds the skill's lock.
pub(crate) fn adopt_locked(
    home: &SkilldeckHome,
    scope: Scope,
    name: &SkillName,
    dir: &Path,
    max_file_bytes: u64,
) -> Result<Option<Revision>> {
    let history_dir = home.history_dir(scope, name);
    // Best effort: a revision left unlogged is still read from its record below.
    let _ = record::reconcile(&history_dir, dir);
    let snap = scan::snapshot(dir, max_file_bytes)?;
    if snap.files.skill_md().is_none() {
        return Ok(None);
    }
    let digest = snap.files.digest();
    let logged = snap.revision.and_then(|rev| {
        // The log's last word on it, else its own record (when the log cannot be read).
        let mut lines = record::read(dir).into_iter().chain(history::read_log(&history_dir));
        lines.rfind(|l| l.revision == rev).and_then(|l| l.digest)
    });
    match (snap.revision, logged) {
        (Some(_), Some(d)) if d == digest => Ok(None),
        (Some(rev), None) => {
            // A revision with no digest on record (recovered after a crash): record it.
            let line =
                LogLine { revision: rev, digest: Some(digest), at: history::now(), event: RevisionEvent::Recovered };
            history::append(&history_dir, &line)?;
            Ok(None)
        }
        (Some(_), Some(_)) | (None, _) => {
            let rev = write::next_revision(home, scope, name);
            let line =
                LogLine { revision: rev, digest: Some(digest), at: history::now(), event: RevisionEvent::External };
            let scope_dir = home.scope_dir(scope);
            let marker = marker::Marker::create(&scope_dir, name)?;
            // The edited content's own copy first, staged beside the store, so the revision is
            // kept whole however the live folder changes next.
            let keep = staging_path(&scope_dir, name)?;
            if let Err(e) = write::stage(&keep, &snap.files, &line) {
                let _ = std::fs::remove_dir_all(&keep);
                return Err(marker.fail(e));
            }
            // The record first: once `.version` names the revision, it carries its record.
            if let Err(e) =
                write::replace_record(dir, name, &line).and_then(|()| write::replace_version(dir, name, rev))
            {
                let _ = std::fs::remove_dir_all(&keep);
                return Err(marker.fail(e));
            }
            if write::keep_copy(&history_dir, &keep, rev).is_err() {
                let _ = std::fs::remove_dir_all(&keep);
            }
            // The revision is live now; a log line that cannot be written is put back from
            // its record by the next start (the marker stays for it) or write.
            if history::append(&history_dir, &line).is_ok() {
                marker.done();
            }
            tracing::info!(skill = %name, scope = scope.as_str(), revision = %rev, "edit made outside Skilldeck adopted");
            Ok(Some(rev))
        }
    }
}

/// Gives the current revision of `name` its own copy in history when it has none (a store
/// written before history kept one). A live folder that no longer matches the digest logged for
/// its revision is adopted as a new revision instead, which takes its own copy. Returns whether
/// a copy was made. The caller holds the skill's lock.
pub(crate) fn keep_current_locked(
    home: &SkilldeckHome,
    scope: Scope,
    name: &SkillName,
    dir: &Path,
    max_file_bytes: u64,
) -> Result<bool> {
    let history_dir = home.history_dir(scope, name);
    let Some(rev) = tree::read_revision(dir) else { return Ok(false) };
    if history::rev_dir(&history_dir, rev).is_dir() {
        return Ok(false);
    }
    if adopt_locked(home, scope, name, dir, max_file_bytes)?.is_some() {
        return Ok(true);
    }
    let snap = scan::snapshot(dir, max_file_bytes)?;
    if snap.revision != Some(rev) || snap.files.skill_md().is_none() {
        return Ok(false);
    }
    let line = record::read(dir).unwrap_or(LogLine {
        revision: rev,
        digest: Some(snap.files.digest()),
        at: history::now(),
        event: RevisionEvent::Recovered,
    });
    // Staged inside the skill's own history folder, not beside the live skills: the copy
    // changes nothing a watcher of the store should see (a first start of an older store
    // copies every skill, which would otherwise read as thousands of edits). History lists
    // only numbered folders, so a copy half made by a run killed midway stays unseen and is
    // replaced here next time.
    std::fs::create_dir_all(&history_dir).map_err(StorageError::io("create", &history_dir))?;
    let keep = history_dir.join(format!(".keep-{}", rev.0));
    if keep.exists() {
        std::fs::remove_dir_all(&keep).map_err(StorageError::io("remove", &keep))?;
    }
    if let Err(e) = write::stage(&keep, &snap.files, &line) {
        let _ = std::fs::remove_dir_all(&keep);
        return Err(e);
    }
    write::keep_copy(&history_dir, &keep, rev).inspect_err(|_| {
        let _ = std::fs::remove_dir_all(&keep);
    })?;
    Ok(true)
}
