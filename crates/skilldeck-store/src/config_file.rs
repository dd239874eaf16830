//! `config.toml`'s one writer. Every change to the file — the agent's settings and pins, the
//! targets, the team remotes, the app's Settings — is a read, a change and a write made under one
//! exclusive lock across processes (`config.toml.lock` beside the file), written whole to a
//! temporary file, flushed to disk, renamed over the file, and the folder flushed too. Two
//! `skilldeck pin` loops and a `remote add` running together therefore lose no edit: each reads
//! what the one before it wrote. Holds the locking and the writing; what the file means is each
//! caller's.

use std::fs::{self, File, OpenOptions};
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// Why `config.toml` could not be changed: what was being done, to which file, and the OS's
/// reason.
#[derive(Debug, thiserror::Error)]
#[error("could not {action} {}: {source}", path.display())]
pub struct ConfigFileError {
    /// What was being done (`lock`, `read`, `write`, `replace`).
    pub action: &'static str,
    /// The file it was done to.
    pub path: PathBuf,
    /// The OS's reason.
    #[source]
    pub source: std::io::Error,
}

impl ConfigFileError {
    fn of(action: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> Self {
        let path = path.to_owned();
        move |source| Self { action, path, source }
    }
}

/// The lock file that serialises the writers of `path`.
fn lock_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().map(std::ffi::OsStr::to_os_string).unwrap_or_default();
    name.push(".lock");
    path.with_file_name(name)
}

/// Changes the file at `path` under the writers' lock: `change` gets its text (empty when the
/// file does not exist) and returns the new text, or `None` when nothing is to change. The new
/// text replaces the file whole and durably; a reader never sees half a file, and no other
/// writer runs between this read and this write. Returns whether the file was written.
///
/// `change`'s own error comes back as it is; a failure to lock, read or write comes back
/// through `E`'s `From<ConfigFileError>`.
pub fn edit<E: From<ConfigFileError>>(
    path: &Path,
    change: impl FnOnce(&str) -> Result<Option<String>, E>,
) -> Result<bool, E> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        fs::create_dir_all(dir).map_err(ConfigFileError::of("create the folder of", path))?;
    }
    let lock_at = lock_path(path);
    let lock = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_at)
        .map_err(ConfigFileError::of("open the lock", &lock_at))?;
    lock.lock().map_err(ConfigFileError::of("lock", &lock_at))?;
    let text = match fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(ConfigFileError::of("read", path)(e).into()),
    };
    let Some(new) = change(&text)? else { return Ok(false) };
    if new == text {
        return Ok(false);
    }
    replace(path, &new)?;
    // The lock goes with `lock` (closing the file releases it), after the rename.
    drop(lock);
    Ok(true)
}

/// Writes `text` to a temporary file beside `path`, flushes it, renames it over `path`, and
/// flushes the folder, so the new file survives a crash whole or not at all.
fn replace(path: &Path, text: &str) -> Result<(), ConfigFileError> {
    let mut name = path.file_name().map(std::ffi::OsStr::to_os_string).unwrap_or_default();
    name.push(format!(".{}.tmp", std::process::id()));
    let temp = path.with_file_name(name);
    let written = (|| {
        let mut file = File::create(&temp)?;
        file.write_all(text.as_bytes())?;
        file.sync_all()
    })();
    if let Err(e) = written {
        let _ = fs::remove_file(&temp);
        return Err(ConfigFileError::of("write", &temp)(e));
    }
    if let Err(e) = fs::rename(&temp, path) {
        let _ = fs::remove_file(&temp);
        return Err(ConfigFileError::of("replace", path)(e));
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        // A folder is flushed through a descriptor opened for reading; where the OS refuses
        // that, the rename still stands.
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct E(String);
    impl From<ConfigFileError> for E {
        fn from(e: ConfigFileError) -> Self {
            Self(e.to_string())
        }
    }

    #[test]
    fn edits_are_written_whole_and_none_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        assert!(edit::<E>(&path, |t| Ok(Some(format!("{t}a = 1\n")))).unwrap());
        assert!(!edit::<E>(&path, |_| Ok(None)).unwrap());
        assert!(!edit::<E>(&path, |t| Ok(Some(t.to_owned()))).unwrap());
        assert_eq!(fs::read_to_string(&path).unwrap(), "a = 1\n");
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names.len(), 2, "only the file and its lock: {names:?}");
    }

    #[test]
    fn the_change_error_comes_back_and_nothing_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        fs::write(&path, "x = 1\n").unwrap();
        let e = edit::<E>(&path, |_| Err(E("no".into()))).unwrap_err();
        assert_eq!(e.0, "no");
        assert_eq!(fs::read_to_string(&path).unwrap(), "x = 1\n");
    }

    #[test]
    fn writers_on_many_threads_lose_no_edit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::thread::scope(|s| {
            for t in 0..4 {
                let path = &path;
                s.spawn(move || {
                    for i in 0..25 {
                        edit::<E>(path, |text| Ok(Some(format!("{text}k{t}_{i} = 1\n")))).unwrap();
                    }
                });
            }
        });
        assert_eq!(fs::read_to_string(&path).unwrap().lines().count(), 100);
    }
}
