//! The journal of staging entries: a file in `<scope>/.journal/` for the hidden staging entries
//! a writer makes beside the skills, noted before an entry exists and removed once it is gone.
//! Holds noting, settling and listing; what recovery does with each note is `recover`'s.
//!
//! Recovery at start reads this small folder instead of the whole scope folder, so opening a
//! store costs the same with 20 skills or 20,000. The rule that keeps it safe: a staging entry
//! never exists without a journal file that notes it. A writer notes the file before it makes
//! the entry (`note`), and removes it only while holding the lock it wrote under, once the entry
//! is gone (`settle`); recovery removes one only under the skill's lock, once the entry is gone.
//! A writer killed at any point leaves its journal file, and the next start finds the entry. A
//! store from before the journal has no `.journal` folder: its first start reads the whole
//! scope folder once, as before, then makes the folder.
//!
//! A single-skill writer notes each entry by a file of the entry's own name. A batch, which
//! holds its scope exclusively (`hold`), notes all of its entries with one file, a *cover*
//! (`.batch-<pid>-<n>`), written before its first entry: an import of 20,000 skills makes one
//! journal file rather than 60,000. A cover names no entry, so recovery finding one reads the
//! scope folder whole for staging entries, as a store from before the journal does: only after
//! a batch was killed.

use super::error::{Result, StorageError};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// The journal's folder inside a scope folder (hidden: never listed as a skill).
pub(crate) const JOURNAL_DIR: &str = ".journal";

/// The prefix of a cover: the one journal file of a batch's staging entries.
pub(crate) const COVER_PREFIX: &str = ".batch-";

/// A staging entry this process noted and has not seen gone yet.
struct Noted {
    scope_dir: PathBuf,
    owner: String,
    file_name: String,
    /// The cover that notes it, or `None` when a journal file of its own name does.
    cover: Option<String>,
}

/// A scope a batch of this process holds, or held: the cover of its entries, once one was
/// needed.
struct Cover {
    scope_dir: PathBuf,
    file_name: Option<String>,
    held: bool,
}

/// What this process's writers noted and hold, until their entries are gone.
struct Journal {
    noted: Vec<Noted>,
    covers: Vec<Cover>,
}

static JOURNAL: Mutex<Journal> = Mutex::new(Journal { noted: Vec::new(), covers: Vec::new() });

/// Notes, before it is made, the staging entry `file_name` of the skill `owner` in `scope_dir`:
/// by the cover of the batch holding the scope (written now if this is its first entry), else
/// by a journal file of the entry's name.
pub(crate) fn note(scope_dir: &Path, owner: &str, file_name: &str) -> Result<()> {
    let mut journal = lock();
    let cover = match journal.covers.iter_mut().find(|c| c.held && c.scope_dir == scope_dir) {
        Some(Cover { file_name: Some(name), .. }) => Some(name.clone()),
        // The batch's first entry: its cover is written now, under the lock, so it has one.
        Some(c) => {
            static COUNTER: AtomicU64 = AtomicU64::new(0);
            let name = format!("{COVER_PREFIX}{}-{}", std::process::id(), COUNTER.fetch_add(1, Ordering::Relaxed));
            write(scope_dir, &name)?;
            c.file_name = Some(name.clone());
            Some(name)
        }
        None => {
            drop(journal);
            write(scope_dir, file_name)?;
            journal = lock();
            None
        }
    };
    journal.noted.push(Noted {
        scope_dir: scope_dir.to_path_buf(),
        owner: owner.to_owned(),
        file_name: file_name.to_owned(),
        cover,
    });
    Ok(())
}

/// The journal's state. A panic while it was held leaves it whole (each change to it is one
/// push, one flag or one `retain`), so a poisoned lock is taken as it is.
fn lock() -> std::sync::MutexGuard<'static, Journal> {
    JOURNAL.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Writes the empty journal file `file_name` in `scope_dir`'s journal, making the folder when
/// it is missing.
fn write(scope_dir: &Path, file_name: &str) -> Result<()> {
    let dir = scope_dir.join(JOURNAL_DIR);
    let path = dir.join(file_name);
    let written = fs::write(&path, b"").or_else(|e| match e.kind() {
        std::io::ErrorKind::NotFound => fs::create_dir_all(&dir).and_then(|()| fs::write(&path, b"")),
        _ => Err(e),
    });
    written.map_err(StorageError::io("note in the journal", &path))
}

/// From now until [`release`], the staging entries noted in `scope_dir` are a batch's, which
/// holds the scope exclusively: one cover notes them all.
pub(crate) fn hold(scope_dir: &Path) {
    lock().covers.push(Cover { scope_dir: scope_dir.to_path_buf(), file_name: None, held: true });
}

/// The batch holding `scope_dir` is done: entries noted there from now are noted one by one,
/// and its cover goes once every entry it notes is gone (`settle`).
pub(crate) fn release(scope_dir: &Path) {
    lock().covers.iter_mut().filter(|c| c.scope_dir == scope_dir).for_each(|c| c.held = false);
}

/// Removes the journal files this process noted in `scope_dir` for the skill `owner` (every
/// skill when `None`) whose staging entries are gone, and each released cover there none of
/// whose entries is left. The caller holds the lock they were written under (the skill's, or
/// the scope's for a batch), so none of them is about to be made.
pub(crate) fn settle(scope_dir: &Path, owner: Option<&str>) {
    let mut journal = lock();
    journal.noted.retain(|n| {
        let mine = n.scope_dir == scope_dir && owner.is_none_or(|o| o == n.owner);
        let settled =
            mine && gone(scope_dir, &n.file_name) && (n.cover.is_some() || remove(scope_dir, &n.file_name).is_ok());
        !settled
    });
    let Journal { noted, covers } = &mut *journal;
    covers.retain(|c| {
        let done = c.scope_dir == scope_dir
            && !c.held
            && !noted.iter().any(|n| n.cover.is_some() && n.cover == c.file_name)
            && c.file_name.as_deref().is_none_or(|f| remove(scope_dir, f).is_ok());
        !done
    });
}

/// Whether neither the staging entry `file_name` nor the `.old` a two-rename swap makes of it
/// is in `scope_dir`.
pub(crate) fn gone(scope_dir: &Path, file_name: &str) -> bool {
    let absent = |p: PathBuf| matches!(fs::symlink_metadata(p), Err(e) if e.kind() == std::io::ErrorKind::NotFound);
    absent(scope_dir.join(file_name)) && absent(scope_dir.join(format!("{file_name}.old")))
}

/// The id of the process that wrote the cover `cover`: its staging entries hold it too
/// (`marker::staging_path`), so they are the ones the cover may note.
pub(crate) fn cover_pid(cover: &str) -> Option<&str> {
    cover.strip_prefix(COVER_PREFIX)?.split('-').next().filter(|pid| !pid.is_empty())
}

/// Removes the journal file `file_name` (an entry's, or a cover).
pub(crate) fn remove(scope_dir: &Path, file_name: &str) -> Result<()> {
    let path = scope_dir.join(JOURNAL_DIR).join(file_name);
    match fs::remove_file(&path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(StorageError::io("remove from the journal", &path)(e)),
    }
}

/// The journal files of `scope_dir` (entries' names and covers); `None` when it has no journal
/// folder (a store from before the journal, whose scope folder must be read whole once).
pub(crate) fn entries(scope_dir: &Path) -> Result<Option<Vec<String>>> {
    let dir = scope_dir.join(JOURNAL_DIR);
    let read = match fs::read_dir(&dir) {
        Ok(read) => read,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(StorageError::io("read the journal", &dir)(e)),
    };
    Ok(Some(read.filter_map(|e| e.ok()?.file_name().into_string().ok()).collect()))
}

/// Makes `scope_dir`'s journal folder, once the scope folder was read whole.
pub(crate) fn start(scope_dir: &Path) -> Result<()> {
    let dir = scope_dir.join(JOURNAL_DIR);
    fs::create_dir_all(&dir).map_err(StorageError::io("create the journal", &dir))
}
