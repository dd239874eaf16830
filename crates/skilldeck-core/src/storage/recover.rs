//! Recovery at start: finishing or undoing writes that a crash cut short, and logging revisions
//! their writer stopped before logging. Holds those rules; the write path that leaves them is in `write`.

use super::history;
use super::lock::{ScopeLock, SkillLock};
use super::record;
use super::tree::read_revision;
use super::write::{STAGING_PREFIX, staging_owner};
use super::{Result, Scope, StorageError};
use crate::home::SkilldeckHome;
use crate::name::SkillName;
use std::fs;
use std::path::Path;

/// Cleans up every scope. A writer leaves a staging entry (its staged or replaced tree, or the
/// empty marker it keeps until its log line is written) whenever it stops before logging, so
/// each skill with one also gets its unlogged revisions logged from their records. A skill
/// locked by a live writer is left alone: that writer finishes it, and so is a whole scope that
/// a live batch holds.
pub(crate) fn recover(home: &SkilldeckHome) -> Result<()> {
    for scope in Scope::ALL {
        if ScopeLock::try_shared(home, scope)?.is_none() {
            continue;
        }
        let dir = home.scope_dir(scope);
        let Ok(entries) = fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            let file_name = entry.file_name();
            let Some(file_name) = file_name.to_str() else { continue };
            if !file_name.starts_with(STAGING_PREFIX) {
                continue;
            }
            let path = entry.path();
            match staging_owner(file_name).and_then(|n| SkillName::parse(n.trim_end_matches(".old")).ok()) {
                Some(name) => recover_one(home, scope, &name, &path)?,
                None => remove(&path)?,
            }
        }
    }
    Ok(())
}

fn recover_one(home: &SkilldeckHome, scope: Scope, name: &SkillName, staged: &Path) -> Result<()> {
    let Some(_lock) = SkillLock::try_acquire(home, scope, name)? else {
        return Ok(());
    };
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
    let reconciled = record::reconcile(&history_dir, &current)
        .and_then(|()| super::delete::finish_pending_scan(&history_dir, &current));
    if reconciled.is_ok() && staged.is_file() {
        remove(staged)?;
    }
    Ok(())
}

fn remove(path: &Path) -> Result<()> {
    let r = if path.is_dir() { fs::remove_dir_all(path) } else { fs::remove_file(path) };
    r.map_err(StorageError::io("remove leftover", path))
}
