//! The per-skill writer lock: an exclusive OS file lock that holds across threads and processes.
//! Holds acquiring and releasing; not what is done under it.

use super::{Result, StorageError};
use std::fs::{self, File};
use std::path::Path;

/// An exclusive lock on one skill, released on drop.
#[derive(Debug)]
pub(crate) struct SkillLock {
    _file: File,
}

impl SkillLock {
    /// Blocks until the lock at `path` is held.
    pub(crate) fn acquire(path: &Path) -> Result<Self> {
        let file = open(path)?;
        file.lock().map_err(StorageError::io("lock", path))?;
        Ok(Self { _file: file })
    }

    /// Takes the lock only if nobody holds it.
    pub(crate) fn try_acquire(path: &Path) -> Result<Option<Self>> {
        let file = open(path)?;
        match file.try_lock() {
            Ok(()) => Ok(Some(Self { _file: file })),
            Err(fs::TryLockError::WouldBlock) => Ok(None),
            Err(fs::TryLockError::Error(e)) => Err(StorageError::io("lock", path)(e)),
        }
    }
}

fn open(path: &Path) -> Result<File> {
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).map_err(StorageError::io("create the lock folder", dir))?;
    }
    fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(StorageError::io("open the lock file", path))
}
