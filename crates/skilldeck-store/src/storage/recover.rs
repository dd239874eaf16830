//! Recovery at start: finishing or undoing writes that a crash cut short, and logging revisions
//! their writer stopped before logging. Holds those rules; the write path that leaves them is in
//! `write`, and the journal that says where to look is `journal`.

use super::error::{Result, StorageError};
use super::history;
use super::journal;
use super::lock::{ScopeLock, SkillLock};
use super::marker::{self, STAGING_PREFIX, staging_owner};
use super::record;
use super::tree::read_revision;
use crate::home::SkilldeckHome;
use skilldeck_skill::name::SkillName;
use skilldeck_skill::scope::Scope;
use std::fs;
use std::path::Path;

/// Cleans up every scope. A writer leaves a staging entry (its staged or replaced tree, or the
/// empty marker it keeps until its log line is written) whenever it stops before logging, so
/// each skill with one also gets its unlogged revisions logged from their records. A skill
/// locked by a live writer is left alone: that writer finishes it, and so is a whole scope that
/// a live batch holds.
pub(crate) fn recover(home: &SkilldeckHome) -> Result<()> {
    for scope in Scope::ALL {
        let Some(_scope_lock) = ScopeLock::try_shared(home, scope)? else {
            continue;
        };
        let dir = home.scope_dir(scope);
        match journal::entries(&dir)? {
            Some(noted) => {
                for file_name in noted {
                    recover_noted(home, scope, &dir, &file_name)?;
                }
            }
            // A store from before the journal: its scope folder read whole, once.
            None => {
                recover_scan(home, scope, &dir)?;
                journal::start(&dir)?;
            }
        }
    }
    Ok(())
}

/// Recovers the staging entry the journal file `file_name` notes (and the `.old` a two-rename
/// swap makes of it), then removes the journal file once they are gone; all under the skill's
/// lock, so no live writer is between noting the entry and making it.
fn recover_noted(home: &SkilldeckHome, scope: Scope, dir: &Path, file_name: &str) -> Result<()> {
    if file_name.starts_with(journal::COVER_PREFIX) {
        return recover_covered(home, scope, dir, file_name);
    }
    let Some(name) = staging_owner(file_name).and_then(|n| SkillName::parse(n).ok()) else {
        // No writer notes such a name: whatever it names is not a skill's.
        for stray in [dir.join(file_name), dir.join(format!("{file_name}.old"))] {
            if fs::symlink_metadata(&stray).is_ok() && file_name.starts_with(STAGING_PREFIX) {
                remove(&stray)?;
            }
        }
        return journal::remove(dir, file_name);
    };
    let Some(_lock) = SkillLock::try_acquire(home, scope, &name)? else {
        return Ok(());
    };
    // The staged tree first: after a two-rename swap cut short it is the new revision, to be
    // moved into place before the `.old` tree beside it goes to history.
    for staged in [dir.join(file_name), dir.join(format!("{file_name}.old"))] {
        if fs::symlink_metadata(&staged).is_ok() {
            recover_locked(home, scope, &name, &staged)?;
        }
    }
    if journal::gone(dir, file_name) {
        journal::remove(dir, file_name)?;
    }
    Ok(())
}

/// Recovers the staging entries a batch's cover `cover` notes (found by reading the scope
/// folder: a cover names none), then removes the cover once none of them is left.
fn recover_covered(home: &SkilldeckHome, scope: Scope, dir: &Path, cover: &str) -> Result<()> {
    let Some(pid) = journal::cover_pid(cover) else { return journal::remove(dir, cover) };
    // The staging entries of the process that wrote the cover.
    let prefix = format!("{STAGING_PREFIX}{pid}-");
    for file_name in staging_entries(dir, &prefix)? {
        recover_found(home, scope, dir, &file_name)?;
    }
    if staging_entries(dir, &prefix)?.is_empty() {
        journal::remove(dir, cover)?;
    }
    Ok(())
}

/// Recovers every staging entry found by reading the scope folder `dir` whole.
fn recover_scan(home: &SkilldeckHome, scope: Scope, dir: &Path) -> Result<()> {
    let Ok(entries) = staging_entries(dir, STAGING_PREFIX) else { return Ok(()) };
    for file_name in entries {
        recover_found(home, scope, dir, &file_name)?;
    }
    Ok(())
}

/// The names in the scope folder `dir` that begin with `prefix` (a staging prefix).
fn staging_entries(dir: &Path, prefix: &str) -> Result<Vec<String>> {
    let read = fs::read_dir(dir).map_err(StorageError::io("read", dir))?;
    Ok(read.filter_map(|e| e.ok()?.file_name().into_string().ok()).filter(|n| n.starts_with(prefix)).collect())
}

/// Recovers the staging entry `file_name` found in `dir` by reading it; one that names no
/// skill is not a writer's, and is removed.
fn recover_found(home: &SkilldeckHome, scope: Scope, dir: &Path, file_name: &str) -> Result<()> {
    let path = dir.join(file_name);
    match staging_owner(file_name).and_then(|n| SkillName::parse(n.trim_end_matches(".old")).ok()) {
        Some(name) => recover_one(home, scope, &name, &path),
        None => remove(&path),
    }
}

fn recover_one(home: &SkilldeckHome, scope: Scope, name: &SkillName, staged: &Path) -> Result<()> {
    let Some(_lock) = SkillLock::try_acquire(home, scope, name)? else {
        return Ok(());
    };
    recover_locked(home, scope, name, staged)
}

/// Finishes or undoes what the staging entry `staged` of `name` holds; the caller holds the
/// skill's lock.
fn recover_locked(home: &SkilldeckHome, scope: Scope, name: &SkillName, staged: &Path) -> Result<()> {
    if !staged.exists() {
        return Ok(());
    }
    let current = home.skill_dir(scope, name);
    let history_dir = home.history_dir(scope, name);
    let staged_rev = read_revision(staged);
    let current_rev = read_revision(&current);
    match (staged_rev, current.exists()) {
        // A whole new tree whose swap was cut between two renames: finish it.
        (Some(_), false) => {
            fs::rename(staged, &current).map_err(StorageError::io("move into place", staged))?;
        }
        // The old tree left after a swap: keep it in history.
        (Some(rev), true) if current_rev.is_some_and(|c| rev < c) => {
            let kept = history::rev_dir(&history_dir, rev);
            if kept.exists() {
                remove(staged)?;
            } else {
                fs::create_dir_all(&history_dir).map_err(StorageError::io("create", &history_dir))?;
                fs::rename(staged, &kept).map_err(StorageError::io("move to history", staged))?;
            }
        }
        // A new tree never swapped in, or a partial one: the old revision stands.
        _ if staged.is_dir() => remove(staged)?,
        // A writer's marker (or a sidecar it was replacing): dealt with once the log is complete.
        _ => {}
    }
    // A log that cannot be written yet stops nothing: the revisions show from their records and
    // pruning keeps them; a marker stays for the next start, and the skill's next write logs them.
    let reconciled =
        record::reconcile(&history_dir, &current).and_then(|()| marker::finish_pending_scan(&history_dir, &current));
    if reconciled.is_ok() && staged.is_file() {
        remove(staged)?;
    }
    Ok(())
}

fn remove(path: &Path) -> Result<()> {
    let r = if path.is_dir() { fs::remove_dir_all(path) } else { fs::remove_file(path) };
    r.map_err(StorageError::io("remove leftover", path))
}
