//! The lock of one target folder: an exclusive OS file lock, so two syncs of one folder (the
//! app's and a terminal's, or two terminals') never interleave. The lock file lives in
//! Skilldeck's home, never in the target folder.

use crate::error::TargetError;
use std::fs::{self, File};
use std::path::Path;

/// Held while a folder is planned and written; released on drop (or when the process ends).
#[derive(Debug)]
pub struct FolderLock {
    _file: File,
}

impl FolderLock {
    /// Blocks until the lock at `path` is held.
    pub fn acquire(path: &Path) -> Result<Self, TargetError> {
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir).map_err(TargetError::io("create the lock folder", dir))?;
        }
        let file = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)
            .map_err(TargetError::io("open the lock file", path))?;
        file.lock().map_err(TargetError::io("lock", path))?;
        Ok(Self { _file: file })
    }
}
