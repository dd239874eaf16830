//! Checking a skill folder's stamps again: whether every entry read for it is as it was then.
//! Holds the re-check and the settling rule; the stamps are taken by `scan`, kept by callers.
//!
//! A skill's stamps (`Summary::stamps`) name its folder, each folder beneath it, each file and
//! sidecar, each stamped before it was listed or read. Adding, removing or renaming an entry
//! changes its folder's stamp; writing a file changes its own (size, modification and
//! status-change times, inode). So while a fresh `stat` of every path gives the same stamps,
//! what was read from the folder still holds, within the limits explained in `seal`.
//!
//! A stamp is only as fine as the file system's clock: a write in the same tick as the stamp
//! (a jiffy on ext4 or tmpfs, a second on ext4 with small inodes, 2 s on FAT) can leave it
//! unchanged. So, as Git does for its index's "racily clean" entries, a stamp is trusted only
//! when it is older than the file system's own clock read before it was taken (`fs_clock`):
//! any later write then lands in a later tick and changes it. A folder with a newer stamp is
//! not `settled`, and a caller reads it again next time instead of trusting its stamps. Where
//! that clock cannot be read (a read-only home), `SETTLE` by the system clock stands in.

use super::error::{Result, StorageError};
use super::seal::Stamp;
use rustix::fs::{AtFlags, Mode, OFlags};
use std::os::fd::OwnedFd;
use std::path::Path;

/// How long after its last change a stamp is trusted when the file system's own clock cannot
/// be read: longer than any file system's tick.
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

/// Whether every stamp is older than `limit_ns` (nanoseconds since the epoch, from
/// [`fs_clock`] read before the stamps were taken, or [`settle_limit`]), so a later write
/// cannot share a stamp's time.
pub fn settled(stamps: &[(String, Stamp)], limit_ns: i64) -> bool {
    stamps.iter().all(|(_, s)| s.ctime_ns < limit_ns && s.mtime_ns < limit_ns)
}

/// The limit for [`settled`] by the system clock: `window` before now.
pub fn settle_limit(window: std::time::Duration) -> i64 {
    now_ns().saturating_sub(i64::try_from(window.as_nanos()).unwrap_or(i64::MAX))
}

/// The file system's own clock now, in nanoseconds since the epoch, at its own granularity:
/// the times it gives `probe` (created when missing, its folder too) as it is touched. `None`
/// when `probe` cannot be touched (a read-only home) or is on another file system than
/// `dir`, whose clock may tick otherwise; the caller then falls back to [`settle_limit`].
pub fn fs_clock(probe: &Path, dir: &Path) -> Option<i64> {
    use rustix::fs::{Timespec, Timestamps, UTIME_NOW};
    let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let mode = Mode::from_raw_mode(0o644);
    let fd = rustix::fs::open(probe, flags, mode).ok().or_else(|| {
        std::fs::create_dir_all(probe.parent()?).ok()?;
        rustix::fs::open(probe, flags, mode).ok()
    })?;
    let now = Timespec { tv_sec: 0, tv_nsec: UTIME_NOW };
    rustix::fs::futimens(&fd, &Timestamps { last_access: now, last_modification: now }).ok()?;
    let st = rustix::fs::fstat(&fd).ok()?;
    if rustix::fs::stat(dir).ok()?.st_dev != st.st_dev {
        return None;
    }
    let touched = Stamp::of_stat(&st);
    Some(touched.mtime_ns.min(touched.ctime_ns))
}

/// Waits, at most `max`, until the file system's clock (see [`fs_clock`]) has moved past its
/// reading now, so every stamp of a write made before this call is older than the next
/// listing's reading of it and can be cached. Returns whether it did; a clock that cannot be
/// read, or ticks more slowly than `max` (a second on some file systems), is not waited for.
pub fn wait_for_tick(probe: &Path, dir: &Path, max: std::time::Duration) -> bool {
    let Some(start) = fs_clock(probe, dir) else { return false };
    let deadline = std::time::Instant::now() + max;
    loop {
        match fs_clock(probe, dir) {
            Some(now) if now > start => return true,
            Some(_) if std::time::Instant::now() < deadline => std::thread::sleep(std::time::Duration::from_millis(1)),
            _ => return false,
        }
    }
}

/// The current time in nanoseconds since the epoch (0 should the clock be before it).
pub fn now_ns() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
}
