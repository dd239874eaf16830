//! Checking a skill folder's stamps again: whether every entry read for it is as it was then.
//! Holds the re-check and the settling rule; the stamps are taken by `scan`, kept by callers.
//!
//! A skill's stamps (`Summary::stamps`) name its folder, each folder beneath it, each file and
//! sidecar, each stamped before it was listed or read. Adding, removing or renaming an entry
//! changes its folder's stamp; writing a file changes its own (size, modification and
//! status-change times, inode). So while a fresh `stat` of every path gives the same stamps,
//! what was read from the folder still holds, within the limits explained in `seal`. A stamp
//! taken within `SETTLE` of the clock may not have ticked yet for a later write in the same
//! tick (file systems keep times at a clock tick, FAT at 2 s): such a folder is not `settled`,
//! and a caller must read it again next time instead of trusting its stamps.

use super::error::{Result, StorageError};
use super::seal::Stamp;
use rustix::fs::{AtFlags, Mode, OFlags};
use std::os::fd::OwnedFd;
use std::path::Path;

/// How long after its last change a stamp is trusted by default: longer than any file
/// system's tick.
pub const SETTLE: std::time::Duration = std::time::Duration::from_secs(3);

/// An open scope folder, so each re-check resolves paths from it rather than from the root.
#[derive(Debug)]
pub struct ScopeDir(OwnedFd);

impl ScopeDir {
    /// Opens the scope folder at `dir`.
    pub fn open(dir: &Path) -> Result<Self> {
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
        rustix::fs::openat(rustix::fs::CWD, dir, flags, Mode::empty())
            .map(Self)
            .map_err(|e| StorageError::io("open", dir)(e.into()))
    }

    /// Whether the skill in folder `dir_name` still has `stamps`: every path there, none of it
    /// a link, each with the very stamp it had. False when the folder's own stamp (`""`) is
    /// not among them.
    pub fn unchanged(&self, dir_name: &str, stamps: &[(String, Stamp)]) -> bool {
        if !stamps.iter().any(|(p, _)| p.is_empty()) || dir_name.is_empty() || dir_name.contains('/') {
            return false;
        }
        let mut path = String::with_capacity(dir_name.len() + 64);
        stamps.iter().all(|(rel, stamp)| {
            path.clear();
            path.push_str(dir_name);
            if !rel.is_empty() {
                path.push('/');
                path.push_str(rel);
            }
            rustix::fs::statat(&self.0, path.as_str(), AtFlags::SYMLINK_NOFOLLOW)
                .is_ok_and(|st| Stamp::of_stat(&st) == *stamp)
        })
    }
}

/// Whether no stamp changed within `window` before `now_ns` (nanoseconds since the epoch), so
/// a later write cannot share a stamp's time.
pub fn settled(stamps: &[(String, Stamp)], now_ns: i64, window: std::time::Duration) -> bool {
    let limit = now_ns.saturating_sub(i64::try_from(window.as_nanos()).unwrap_or(i64::MAX));
    stamps.iter().all(|(_, s)| s.ctime_ns < limit && s.mtime_ns < limit)
}

/// The current time in nanoseconds since the epoch (0 should the clock be before it).
pub fn now_ns() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
}
