//! The journal of staging entries: an empty file in `<scope>/.journal/` for each hidden staging
//! entry a writer makes beside the skills, noted before the entry exists and removed once it is
//! gone. Holds noting, settling and listing; what recovery does with each entry is `recover`'s.
//!
//! Recovery at start reads this small folder instead of the whole scope folder, so opening a
//! store costs the same with 20 skills or 20,000. The rule that keeps it safe: a staging entry
//! never exists without its journal file. A writer notes the file before it makes the entry
//! (`note`), and removes it only while holding the lock it wrote under, once the entry is gone
//! (`settle`); recovery removes one only under the skill's lock, once the entry is gone. A
//! writer killed at any point leaves its journal file, and the next start finds the entry. A
//! store from before the journal has no `.journal` folder: its first start reads the whole
//! scope folder once, as before, then makes the folder.

use super::error::{Result, StorageError};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The journal's folder inside a scope folder (hidden: never listed as a skill).
pub(crate) const JOURNAL_DIR: &str = ".journal";

/// A journal file this process wrote and has not removed yet.
struct Noted {
    scope_dir: PathBuf,
    owner: String,
    file_name: String,
}

/// The journal files of this process's writers, until their entries are gone.
static NOTED: Mutex<Vec<Noted>> = Mutex::new(Vec::new());

/// Notes, before it is made, the staging entry `file_name` of the skill `owner` in `scope_dir`.
pub(crate) fn note(scope_dir: &Path, owner: &str, file_name: &str) -> Result<()> {
    let dir = scope_dir.join(JOURNAL_DIR);
    let path = dir.join(file_name);
    let written = fs::write(&path, b"").or_else(|e| match e.kind() {
        std::io::ErrorKind::NotFound => fs::create_dir_all(&dir).and_then(|()| fs::write(&path, b"")),
        _ => Err(e),
    });
    written.map_err(StorageError::io("note in the journal", &path))?;
    if let Ok(mut noted) = NOTED.lock() {
        noted.push(Noted {
            scope_dir: scope_dir.to_path_buf(),
            owner: owner.to_owned(),
            file_name: file_name.to_owned(),
        });
    }
    Ok(())
}

/// Removes the journal files this process noted in `scope_dir` for the skill `owner` (every
/// skill when `None`) whose staging entries are gone. The caller holds the lock they were
/// written under (the skill's, or the scope's for a batch), so none of them is about to be made.
pub(crate) fn settle(scope_dir: &Path, owner: Option<&str>) {
    let Ok(mut noted) = NOTED.lock() else { return };
    noted.retain(|n| {
        let mine = n.scope_dir == scope_dir && owner.is_none_or(|o| o == n.owner);
        !(mine && gone(scope_dir, &n.file_name) && remove(scope_dir, &n.file_name).is_ok())
    });
}

/// Whether neither the staging entry `file_name` nor the `.old` a two-rename swap makes of it
/// is in `scope_dir`.
pub(crate) fn gone(scope_dir: &Path, file_name: &str) -> bool {
    let absent = |p: PathBuf| matches!(fs::symlink_metadata(p), Err(e) if e.kind() == std::io::ErrorKind::NotFound);
    absent(scope_dir.join(file_name)) && absent(scope_dir.join(format!("{file_name}.old")))
}

/// Removes the journal file of the staging entry `file_name`.
pub(crate) fn remove(scope_dir: &Path, file_name: &str) -> Result<()> {
    let path = scope_dir.join(JOURNAL_DIR).join(file_name);
    match fs::remove_file(&path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(StorageError::io("remove from the journal", &path)(e)),
    }
}

/// The staging entries noted in `scope_dir`'s journal; `None` when it has no journal folder
/// (a store from before the journal, whose scope folder must be read whole once).
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
