//! Writer locks: an exclusive OS file lock per skill, and a per-scope lock that batches take.
//! Holds acquiring and releasing; not what is done under them.
//!
//! Every writer of one skill holds the scope's lock shared, then the skill's lock. A batch
//! holds the scope's lock exclusively instead, which keeps every single-skill writer (and
//! recovery) of that scope out for the batch's length with one lock, not one per skill.

use super::error::{Result, StorageError};
use crate::home::SkilldeckHome;
use skilldeck_skill::name::SkillName;
use skilldeck_skill::scope::Scope;
use std::fs::{self, File};
use std::path::Path;

/// An exclusive lock on one skill, released on drop. It holds its scope's lock shared.
#[derive(Debug)]
pub(crate) struct SkillLock {
    _file: File,
    _scope: ScopeLock,
    /// The scope folder and the skill, whose journal files are settled as the lock goes.
    scope_dir: std::path::PathBuf,
    name: String,
}

impl Drop for SkillLock {
    /// Before the lock goes: the journal files of staging entries its writer made and removed.
    fn drop(&mut self) {
        super::journal::settle(&self.scope_dir, Some(&self.name));
    }
}

impl SkillLock {
    /// Blocks until no batch writes the scope and the skill's lock is held.
    pub(crate) fn acquire(home: &SkilldeckHome, scope: Scope, name: &SkillName) -> Result<Self> {
        let scope_lock = ScopeLock::shared(home, scope)?;
        let path = home.lock_path(scope, name);
        let file = open(&path)?;
        file.lock().map_err(StorageError::io("lock", &path))?;
        Ok(Self { _file: file, _scope: scope_lock, scope_dir: home.scope_dir(scope), name: name.to_string() })
    }

    /// Takes the skill's lock only if nobody holds it (nor a batch the scope's).
    pub(crate) fn try_acquire(home: &SkilldeckHome, scope: Scope, name: &SkillName) -> Result<Option<Self>> {
        let Some(scope_lock) = ScopeLock::try_shared(home, scope)? else {
            return Ok(None);
        };
        let path = home.lock_path(scope, name);
        let file = open(&path)?;
        match file.try_lock() {
            Ok(()) => Ok(Some(Self {
                _file: file,
                _scope: scope_lock,
                scope_dir: home.scope_dir(scope),
                name: name.to_string(),
            })),
            Err(fs::TryLockError::WouldBlock) => Ok(None),
            Err(fs::TryLockError::Error(e)) => Err(StorageError::io("lock", &path)(e)),
        }
    }
}

/// The lock of a whole scope, released on drop: shared by single-skill writers, exclusive for
/// a batch.
#[derive(Debug)]
pub(crate) struct ScopeLock {
    _file: File,
    /// For an exclusive lock (a batch): the scope folder whose journal files are settled as
    /// the lock goes.
    exclusive: Option<std::path::PathBuf>,
}

impl Drop for ScopeLock {
    fn drop(&mut self) {
        if let Some(dir) = &self.exclusive {
            super::journal::release(dir);
            super::journal::settle(dir, None);
        }
    }
}

impl ScopeLock {
    /// Blocks until no batch holds the scope; other single-skill writers may hold it too.
    pub(crate) fn shared(home: &SkilldeckHome, scope: Scope) -> Result<Self> {
        let path = home.scope_lock_path(scope);
        let file = open(&path)?;
        file.lock_shared().map_err(StorageError::io("lock", &path))?;
        Ok(Self { _file: file, exclusive: None })
    }

    /// Holds the scope shared only if no batch holds it now.
    pub(crate) fn try_shared(home: &SkilldeckHome, scope: Scope) -> Result<Option<Self>> {
        let path = home.scope_lock_path(scope);
        let file = open(&path)?;
        match file.try_lock_shared() {
            Ok(()) => Ok(Some(Self { _file: file, exclusive: None })),
            Err(fs::TryLockError::WouldBlock) => Ok(None),
            Err(fs::TryLockError::Error(e)) => Err(StorageError::io("lock", &path)(e)),
        }
    }

    /// Blocks until the scope is held alone: no other batch and no single-skill writer in it.
    pub(crate) fn exclusive(home: &SkilldeckHome, scope: Scope) -> Result<Self> {
        let path = home.scope_lock_path(scope);
        let file = open(&path)?;
        file.lock().map_err(StorageError::io("lock", &path))?;
        let dir = home.scope_dir(scope);
        // Whatever this lock's holder stages in the scope, one journal file notes.
        super::journal::hold(&dir);
        Ok(Self { _file: file, exclusive: Some(dir) })
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
