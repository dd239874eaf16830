//! The write path: stage a whole new revision beside the skill, then swap it in under the lock.
//! Holds staging, the atomic swap and the crash points tests use; not the public API (`fs`).

use super::error::{Result, StorageError};
use super::history::{self, LogLine, RevisionEvent};
use super::marker::{Marker, staging_path};
use super::record;
use super::scan;
use super::tree::read_revision;
use crate::home::SkilldeckHome;
use serde::Serialize;
use skilldeck_skill::digest::Digest;
use skilldeck_skill::files::{SkillFiles, VERSION_FILE};
use skilldeck_skill::name::SkillName;
use skilldeck_skill::scope::{Revision, Scope};
use std::fs;
use std::path::{Path, PathBuf};

/// The environment variable naming a crash point, for crash-safety tests only.
pub const CRASH_ENV: &str = "SKILLDECK_TEST_CRASH_AT";

/// What a successful write made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WriteOutcome {
    /// The skill written.
    pub name: SkillName,
    /// The scope written to.
    pub scope: Scope,
    /// Its new revision.
    pub revision: Revision,
    /// The new revision's digest.
    pub digest: Digest,
    /// The revision it replaced, now in history.
    pub replaced: Option<Revision>,
    /// Bookkeeping that failed after the new revision went live (moving the replaced one to
    /// history, the log line, pruning). The revision stands and carries its own record; the
    /// next start finishes what is missing. Empty when everything went through.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// Aborts the process at a named point when the crash test asks for it.
pub(crate) fn crash_point(point: &str) {
    if std::env::var(CRASH_ENV).is_ok_and(|v| v == point) {
        std::process::abort();
    }
}

/// Writes `files` into `dir`, then the revision's record, then the `.version` last. The caller
/// flushes the file system before the staged tree is swapped in.
pub(crate) fn stage(dir: &Path, files: &SkillFiles, line: &LogLine) -> Result<()> {
    stage_like(dir, files, line, None)
}

/// [`stage`], for history's copy of a revision: a file whose bytes equal those at its path in
/// `like` (the skill's previous copy in history) is a hard link to it instead of a new copy.
/// Only history's own copies are ever linked, never a live folder, which editors may change
/// in place.
pub(crate) fn stage_like(dir: &Path, files: &SkillFiles, line: &LogLine, like: Option<&Path>) -> Result<()> {
    write_files(dir, files, like)?;
    record::write(dir, line, scan::seal(dir))?;
    write_version(dir, line.revision)?;
    Ok(())
}

/// Whether the file at `path` holds exactly `bytes` (a regular file, never a link).
fn holds(path: &Path, bytes: &[u8]) -> bool {
    fs::symlink_metadata(path).is_ok_and(|m| m.is_file() && m.len() == bytes.len() as u64)
        && fs::read(path).is_ok_and(|b| b == bytes)
}

/// Writes `files` into a new folder `dir` (scripts starting with `#!` made executable); with
/// `like`, files equal to theirs there are linked (see [`stage_like`]).
fn write_files(dir: &Path, files: &SkillFiles, like: Option<&Path>) -> Result<()> {
    fs::create_dir(dir).map_err(StorageError::io("create the staging folder", dir))?;
    let mut made = std::collections::HashSet::new();
    for (rel, bytes) in files.iter() {
        let path = rel.under(dir);
        if let Some(parent) = path.parent()
            && parent != dir
            && made.insert(parent.to_path_buf())
        {
            fs::create_dir_all(parent).map_err(StorageError::io("create", parent))?;
        }
        if let Some(same) = like.map(|l| rel.under(l)).filter(|p| holds(p, bytes))
            && fs::hard_link(&same, &path).is_ok()
        {
            continue;
        }
        fs::write(&path, bytes).map_err(StorageError::io("write", &path))?;
        if bytes.starts_with(b"#!") {
            use std::os::unix::fs::PermissionsExt as _;
            fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).map_err(StorageError::io("chmod", &path))?;
        }
    }
    Ok(())
}

/// Writes `<dir>/.version` in a folder nobody else reads yet (a staging folder).
fn write_version(dir: &Path, revision: Revision) -> Result<()> {
    let path = dir.join(VERSION_FILE);
    fs::write(&path, format!("{revision}\n")).map_err(StorageError::io("write", &path))
}

/// Sets the `.version` of a live skill folder that readers may be looking at: unchanged when it
/// already says `revision`, else written beside the folder and renamed over the old one, so a
/// reader sees the old sidecar or the new one, never an empty or half-written file.
pub(crate) fn replace_version(dir: &Path, name: &SkillName, revision: Revision) -> Result<()> {
    if read_revision(dir) == Some(revision) {
        return Ok(());
    }
    let temp = sidecar_temp(dir, name)?;
    let target = dir.join(VERSION_FILE);
    fs::write(&temp, format!("{revision}\n")).map_err(StorageError::io("write", &temp))?;
    fs::rename(&temp, &target).map_err(|e| {
        let _ = fs::remove_file(&temp);
        StorageError::io("replace", &target)(e)
    })
}

/// Sets the record of a live skill folder, replacing the old one by rename like `.version`.
pub(crate) fn replace_record(dir: &Path, name: &SkillName, line: &LogLine) -> Result<()> {
    record::replace(dir, &sidecar_temp(dir, name)?, line)
}

/// Where a live folder's new sidecar is written before it is renamed into place: named like a
/// staging folder of the skill, so discovery passes over it and recovery removes a leftover
/// under the skill's lock.
fn sidecar_temp(dir: &Path, name: &SkillName) -> Result<PathBuf> {
    staging_path(dir.parent().unwrap_or(dir), name)
}

/// Flushes the file system holding `dir` so a power cut after the swap finds whole files.
/// One call covers every tree staged on that file system so far, which is what lets a batch
/// flush once for all its skills.
pub(crate) fn flush(dir: &Path) {
    if let Ok(f) = fs::File::open(dir) {
        let _ = rustix::fs::syncfs(&f);
    }
}

/// Swaps `staged` and `current` atomically where the OS can; else moves `current` away first.
/// Afterwards `staged` holds the old tree.
fn swap(staged: &Path, current: &Path) -> Result<()> {
    let cwd = rustix::fs::CWD;
    match rustix::fs::renameat_with(cwd, staged, cwd, current, rustix::fs::RenameFlags::EXCHANGE) {
        Ok(()) => Ok(()),
        Err(_) => {
            // Not supported here: two renames. A crash between them leaves `current` missing and
            // a whole staged tree, which recovery moves into place.
            let aside = staged.with_extension("old");
            fs::rename(current, &aside).map_err(StorageError::io("move aside", current))?;
            fs::rename(staged, current).map_err(StorageError::io("move into place", staged))?;
            fs::rename(&aside, staged).map_err(StorageError::io("move back", &aside))
        }
    }
}

/// The next revision: one past the current one and past any revision the skill ever had.
pub(crate) fn next_revision(home: &SkilldeckHome, scope: Scope, name: &SkillName) -> Revision {
    let current = read_revision(&home.skill_dir(scope, name));
    let past = history::highest(&home.history_dir(scope, name));
    current.max(past).unwrap_or(Revision(0)).next()
}

/// Stores `files` as the next revision: stage, flush, swap. The caller holds the skill's lock.
///
/// Everything that can fail the write happens before the swap: the digest and the revision's
/// record are staged with its files. After the swap the revision is live, so what follows
/// (history, log, pruning) can only add warnings, never turn it into a reported failure.
pub(crate) fn write_locked(
    home: &SkilldeckHome,
    scope: Scope,
    name: &SkillName,
    files: &SkillFiles,
    event: RevisionEvent,
) -> Result<WriteOutcome> {
    let staged = prepare(home, scope, name, files, event, None)?;
    flush(&staged.staged);
    staged.commit()
}

/// A revision staged beside its live folder, with its record and `.version`, waiting for the
/// flush and its swap. Dropped without `commit`, it stays for recovery; `discard` removes it.
pub(crate) struct Staged {
    name: SkillName,
    scope: Scope,
    digest: Digest,
    line: LogLine,
    marker: Marker,
    staged: PathBuf,
    /// The revision's own copy for history, staged beside it: history keeps every revision
    /// from the moment it is written, so an edit made in place in the live folder (an editor,
    /// `git pull`) can never take the revision it replaced with it.
    keep: PathBuf,
    current: PathBuf,
    history_dir: PathBuf,
}

/// Stages `files` as the next revision of `name` (or as `at`, the number a team store gave it),
/// without flushing: the first half of a write. The caller holds the skill's lock (or the
/// scope's, for a batch) until `commit`.
pub(crate) fn prepare(
    home: &SkilldeckHome,
    scope: Scope,
    name: &SkillName,
    files: &SkillFiles,
    event: RevisionEvent,
    at: Option<Revision>,
) -> Result<Staged> {
    let scope_dir = home.scope_dir(scope);
    fs::create_dir_all(&scope_dir).map_err(StorageError::io("create", &scope_dir))?;
    let current = home.skill_dir(scope, name);
    let history_dir = home.history_dir(scope, name);
    // A revision an earlier writer left unlogged gets its line now. Should that fail, the
    // revision still shows from its record, and pruning keeps it until it is logged.
    let _ = record::reconcile(&history_dir, &current);
    let revision = at.unwrap_or_else(|| next_revision(home, scope, name));
    let digest = files.digest();
    let line = LogLine { revision, digest: Some(digest), at: history::now(), event };
    // Until its log line is written, the write keeps a marker that sends the next start's
    // recovery to this skill, whether the writer is killed or the log cannot be written.
    let marker = Marker::create(&scope_dir, name)?;
    let staged = match staging_path(&scope_dir, name) {
        Ok(p) => p,
        Err(e) => return Err(marker.fail(e)),
    };
    if let Err(e) = stage(&staged, files, &line) {
        let _ = fs::remove_dir_all(&staged);
        return Err(marker.fail(e));
    }
    let like = history::stored(&history_dir).last().map(|r| history::rev_dir(&history_dir, *r));
    let keep = match staging_path(&scope_dir, name)
        .and_then(|keep| stage_like(&keep, files, &line, like.as_deref()).map(|()| keep))
    {
        Ok(keep) => keep,
        Err(e) => {
            let _ = fs::remove_dir_all(&staged);
            return Err(marker.fail(e));
        }
    };
    Ok(Staged { name: name.clone(), scope, digest, line, marker, staged, keep, current, history_dir })
}

impl Staged {
    /// The skill staged.
    pub(crate) fn name(&self) -> &SkillName {
        &self.name
    }

    /// Removes the staged tree and its marker: the write does not happen.
    pub(crate) fn discard(self) {
        let _ = fs::remove_dir_all(&self.staged);
        let _ = fs::remove_dir_all(&self.keep);
        self.marker.done();
    }

    /// Swaps the staged tree in and does the bookkeeping: the second half of a write. The file
    /// system must have been flushed since the tree was staged.
    pub(crate) fn commit(self) -> Result<WriteOutcome> {
        let Self { name, scope, digest, line, marker, staged, keep, current, history_dir } = self;
        let revision = line.revision;
        crash_point("staged");
        let mut warnings = Vec::new();
        let replaced = if current.is_dir() {
            let old = read_revision(&current).unwrap_or(Revision(revision.0.saturating_sub(1)));
            // The old tree must carry its revision so recovery can tell it from a new one.
            if let Err(e) = replace_version(&current, &name, old) {
                let _ = fs::remove_dir_all(&staged);
                let _ = fs::remove_dir_all(&keep);
                return Err(marker.fail(e));
            }
            // A swap cut halfway (two renames where the OS cannot exchange) is finished by
            // recovery, which the staging left behind (and the marker) send to this skill.
            swap(&staged, &current)?;
            crash_point("swapped");
            // History holds the old revision's own copy when it was written by this version;
            // else the tree the swap left is that copy.
            if let Err(e) = keep_copy(&history_dir, &staged, old) {
                warnings
                    .push(format!("the replaced revision {old} is not in history yet ({e}); the next start moves it"));
            }
            Some(old)
        } else {
            if let Err(e) = fs::rename(&staged, &current) {
                let _ = fs::remove_dir_all(&staged);
                let _ = fs::remove_dir_all(&keep);
                return Err(marker.fail(StorageError::io("move into place", &staged)(e)));
            }
            None
        };
        if let Err(e) = keep_copy(&history_dir, &keep, revision) {
            let _ = fs::remove_dir_all(&keep);
            warnings.push(format!("revision {revision} has no copy in history yet ({e})"));
        }
        match history::append(&history_dir, &line) {
            Ok(()) => marker.done(),
            Err(e) => warnings.push(format!(
                "the history log was not updated ({e}); revision {revision} keeps its own record, logged on the next \
                 start"
            )),
        }
        if let Err(e) = history::prune(&history_dir) {
            warnings.push(format!("old revisions were not pruned: {e}"));
        }
        Ok(WriteOutcome { name, scope, revision, digest, replaced, warnings })
    }
}

/// Moves the copy of revision `rev` at `keep` into history; when history already holds one
/// (taken as the revision was written), that stays and `keep` is removed.
pub(crate) fn keep_copy(history_dir: &Path, keep: &Path, rev: Revision) -> Result<()> {
    fs::create_dir_all(history_dir).map_err(StorageError::io("create", history_dir))?;
    let kept = history::rev_dir(history_dir, rev);
    if kept.exists() {
        return fs::remove_dir_all(keep).map_err(StorageError::io("remove", keep));
    }
    fs::rename(keep, &kept).map_err(StorageError::io("move to history", keep))
}
