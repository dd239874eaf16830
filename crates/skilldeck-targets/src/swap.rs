//! Moving skills in and out of a target folder: a new one renamed in, an old one exchanged
//! or set aside and checked for edits made meanwhile, and a killed sync's leftovers. Holds no
//! plan and no record; `sync` decides what to move and records it.

use crate::error::TargetError;
use crate::folder::{Look, TEMP_PREFIX};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// A fresh hidden path in `dir` for `what` (`staging`, `old`, `removing`) of skill `name`.
pub(crate) fn temp_path(dir: &Path, what: &str, name: &str) -> PathBuf {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    dir.join(format!("{TEMP_PREFIX}{what}-{}-{n}-{name}", std::process::id()))
}

/// Removes what a killed sync left in `dir`: entries with Skilldeck's temporary prefix. An old
/// tree set aside by a replacement without exchange (`old-…`) whose name is empty again goes
/// back there instead: it may hold an edit, and the record knows it as the previous write.
/// The caller holds the folder's lock, so no live sync owns them.
pub(crate) fn clean_leftovers(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let file_name = e.file_name();
        let Some(rest) = file_name.to_str().and_then(|n| n.strip_prefix(TEMP_PREFIX)) else { continue };
        let p = e.path();
        if let Some(name) = set_aside_for(rest) {
            let dest = dir.join(name);
            if fs::symlink_metadata(&dest).is_err() && fs::rename(&p, &dest).is_ok() {
                continue;
            }
        }
        let _ = if p.is_dir() && !p.is_symlink() { fs::remove_dir_all(&p) } else { fs::remove_file(&p) };
    }
}

/// The skill name an old tree set aside during a replacement was taken from, given its
/// temporary name without the prefix (`old-PID-N-NAME`, as `temp_path` makes it).
fn set_aside_for(rest: &str) -> Option<&str> {
    let mut parts = rest.strip_prefix("old-")?.splitn(3, '-');
    let (_pid, _n, name) = (parts.next()?, parts.next()?, parts.next()?);
    Some(name).filter(|n| !n.is_empty() && !n.starts_with('.') && !n.contains('/'))
}

/// Renames `staged` to `dest`, never over anything that appeared there meanwhile.
pub(crate) fn place_new(staged: &Path, dest: &Path) -> Result<(), TargetError> {
    let cwd = rustix::fs::CWD;
    match rustix::fs::renameat_with(cwd, staged, cwd, dest, rustix::fs::RenameFlags::NOREPLACE) {
        Ok(()) => Ok(()),
        Err(rustix::io::Errno::INVAL | rustix::io::Errno::NOSYS) => {
            if fs::symlink_metadata(dest).is_ok() {
                return Err(TargetError::Io {
                    context: format!(
                        "could not write {}: something appeared there meanwhile; sync again",
                        dest.display()
                    ),
                    source: std::io::Error::from(std::io::ErrorKind::AlreadyExists),
                });
            }
            fs::rename(staged, dest).map_err(TargetError::io("move into place", dest))
        }
        Err(e) => Err(TargetError::io("move into place", dest)(e.into())),
    }
}

/// What a swap did.
pub(crate) enum Swap {
    /// Carried out.
    Done,
    /// The old entry was edited since it was judged: it was put back, nothing changed.
    PutBack,
}

/// Whether an exchange failed only because the OS or file system cannot exchange (so two
/// renames may do instead); any other failure is reported.
fn cannot_exchange(e: rustix::io::Errno) -> bool {
    use rustix::io::Errno;
    [Errno::INVAL, Errno::NOSYS, Errno::OPNOTSUPP, Errno::NOTSUP].contains(&e)
}

/// Whether the entry at `old`, moved out of its place, differs from how it looked when it was
/// judged (`was`); unreadable counts as different.
fn edited_since(old: &Path, was: Option<&Look>) -> bool {
    was.is_some_and(|was| was.again(old).ok().as_ref() != Some(was))
}

/// The error when an entry edited during the sync could not be put back: where it is now.
fn not_put_back(dest: &Path, now: &Path, e: std::io::Error) -> TargetError {
    TargetError::Io {
        context: format!(
            "{} was edited during the sync and could not be put back; the edited copy is at {}: move it back by hand",
            dest.display(),
            now.display()
        ),
        source: e,
    }
}

/// Moves the edited entry at `old` out of Skilldeck's temporary names (which the next sync
/// cleans up) to a hidden name beside `dest`, when it could not be put back.
fn rescue(old: &Path, dest: &Path, dir: &Path, e: std::io::Error) -> TargetError {
    let name = dest.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let safe = dir.join(format!(".{name}.edited-during-sync-{}", std::process::id()));
    match fs::rename(old, &safe) {
        Ok(()) => not_put_back(dest, &safe, e),
        Err(_) => not_put_back(dest, old, e),
    }
}

/// Swaps `staged` in for `dest` (atomically where the OS can), then removes the old tree; when
/// the old tree was edited since it was judged (`was`), swaps it back instead.
pub(crate) fn replace(staged: &Path, dest: &Path, dir: &Path, was: Option<&Look>) -> Result<Swap, TargetError> {
    let cwd = rustix::fs::CWD;
    let name = dest.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    match rustix::fs::renameat_with(cwd, staged, cwd, dest, rustix::fs::RenameFlags::EXCHANGE) {
        Ok(()) => {
            if edited_since(staged, was) {
                return match rustix::fs::renameat_with(cwd, staged, cwd, dest, rustix::fs::RenameFlags::EXCHANGE) {
                    Ok(()) => Ok(Swap::PutBack),
                    Err(e) => Err(rescue(staged, dest, dir, e.into())),
                };
            }
            let _ = fs::remove_dir_all(staged);
            Ok(Swap::Done)
        }
        Err(e) if cannot_exchange(e) => {
            // Two renames where the OS cannot exchange: the name is missing for a moment, and a
            // crash between them leaves the old tree aside, which the next sync puts back.
            let aside = temp_path(dir, "old", &name);
            fs::rename(dest, &aside).map_err(TargetError::io("move aside", dest))?;
            if edited_since(&aside, was) {
                return match fs::rename(&aside, dest) {
                    Ok(()) => Ok(Swap::PutBack),
                    Err(e) => Err(rescue(&aside, dest, dir, e)),
                };
            }
            if let Err(e) = fs::rename(staged, dest) {
                let _ = fs::rename(&aside, dest);
                return Err(TargetError::io("move into place", dest)(e));
            }
            let _ = fs::remove_dir_all(&aside);
            Ok(Swap::Done)
        }
        Err(e) => Err(TargetError::io("replace", dest)(e.into())),
    }
}

/// Renames `dest` out of sight first (so it vanishes whole), then deletes it; when it was
/// edited since it was judged (`was`), puts it back instead.
pub(crate) fn remove(dest: &Path, dir: &Path, was: Option<&Look>) -> Result<Swap, TargetError> {
    let name = dest.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let aside = temp_path(dir, "removing", &name);
    fs::rename(dest, &aside).map_err(TargetError::io("remove", dest))?;
    if edited_since(&aside, was) {
        let cwd = rustix::fs::CWD;
        return match rustix::fs::renameat_with(cwd, &aside, cwd, dest, rustix::fs::RenameFlags::NOREPLACE) {
            Ok(()) => Ok(Swap::PutBack),
            Err(e) if cannot_exchange(e) && fs::symlink_metadata(dest).is_err() => {
                fs::rename(&aside, dest).map(|()| Swap::PutBack).map_err(|e| rescue(&aside, dest, dir, e))
            }
            Err(e) => Err(rescue(&aside, dest, dir, e.into())),
        };
    }
    let _ = fs::remove_dir_all(&aside);
    Ok(Swap::Done)
}
