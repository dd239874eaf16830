//! A revision's seal: what its files looked like on disk when it was written, so a reader can
//! trust the recorded digest without hashing every file. Holds taking and checking a seal; not
//! the record file that carries it (`record`) nor the folder reader (`scan`).
//!
//! A seal holds, for every file of the revision, its path and its stamp (size, inode number,
//! modification and status-change times to the nanosecond), and the hash of `SKILL.md`'s bytes.
//! A reader trusts the recorded digest only when the folder holds exactly the sealed paths,
//! `SKILL.md` hashes the same (it is read for the listing anyway, so it is checked by content and
//! a `touch` of it costs nothing), and every other file's stamp is unchanged. Anything else, and
//! a record without a seal (written before seals existed), hashes every file instead; a read
//! never rewrites the store.
//!
//! Why this is sound, and where it stops:
//! - A write to a file sets its status-change time (ctime) to the current time, and no program
//!   can set ctime back (`touch -r`, `cp -p`, `tar`, `rsync -t` restore the modification time
//!   only). An editor that saves by renaming a new file over the old one changes the inode.
//!   So a same-size edit with the modification time put back is still seen.
//! - The limit is the clock's grain: a file system that stores ctime at the kernel's clock tick
//!   (Linux before 6.13, a few milliseconds) gives an in-place, same-size rewrite of a file
//!   other than `SKILL.md` made within the same tick as the revision's own write the same stamp.
//!   That write happens in a staging folder nobody else sees, so the edit would have to land
//!   within that tick right after the swap. Linux 6.13 and later (multigrain timestamps on
//!   ext4, xfs, btrfs and tmpfs) and APFS give any later change a later ctime. The watcher
//!   (`FsStorage::adopt_external_edit`) always hashes the files, so it still takes such an edit
//!   as a new revision.
//! - A file system with coarse timestamps (FAT's 2 s) widens that window; copying the store
//!   elsewhere (a backup restored) changes every inode and ctime, so every skill is hashed
//!   again until its next write: slower, never wrong.

use serde::{Deserialize, Serialize};
use skilldeck_skill::digest::Digest;
use skilldeck_skill::relpath::RelPath;
use std::os::unix::fs::MetadataExt as _;

/// The name of the file every skill has at its top.
pub(crate) const SKILL_MD: &str = "SKILL.md";

/// What a file looked like on disk: equal stamps mean unchanged bytes, within the limits above.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stamp {
    /// Its size in bytes.
    pub size: u64,
    /// Its inode number.
    pub ino: u64,
    /// Its modification time, nanoseconds since the epoch.
    pub mtime_ns: i64,
    /// Its status-change time, nanoseconds since the epoch.
    pub ctime_ns: i64,
}

impl Stamp {
    /// The stamp of a file from its metadata.
    pub fn of(meta: &std::fs::Metadata) -> Self {
        Self::new(meta.size(), meta.ino(), (meta.mtime(), meta.mtime_nsec()), (meta.ctime(), meta.ctime_nsec()))
    }

    /// The stamp of a file from `rustix`'s `stat`.
    pub fn of_stat(st: &rustix::fs::Stat) -> Self {
        #[allow(clippy::useless_conversion, clippy::unnecessary_cast)]
        Self::new(
            st.st_size as u64,
            st.st_ino as u64,
            (st.st_mtime as i64, st.st_mtime_nsec as i64),
            (st.st_ctime as i64, st.st_ctime_nsec as i64),
        )
    }

    fn new(size: u64, ino: u64, mtime: (i64, i64), ctime: (i64, i64)) -> Self {
        let ns = |(s, n): (i64, i64)| s.saturating_mul(1_000_000_000).saturating_add(n);
        Self { size, ino, mtime_ns: ns(mtime), ctime_ns: ns(ctime) }
    }
}

/// One sealed file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct SealedFile {
    /// Its path in the skill.
    pub path: String,
    /// Its stamp when sealed.
    #[serde(flatten)]
    pub stamp: Stamp,
}

/// The seal of one revision, kept in its record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Seal {
    /// The hash of `SKILL.md` alone, as `Digest::of` gives it for a tree holding only that file.
    pub skill_md: Digest,
    /// Every file but the sidecars, sorted by path.
    pub files: Vec<SealedFile>,
}

/// The hash of `SKILL.md`'s bytes a seal holds.
pub(crate) fn skill_md_hash(bytes: &[u8]) -> Option<Digest> {
    RelPath::parse(SKILL_MD).ok().map(|p| Digest::of([(&p, bytes)]))
}

impl Seal {
    /// Whether the folder as read now is the sealed one: the same paths, `SKILL.md` with the
    /// same hash, every other file with the same stamp. `found` is sorted by path and holds
    /// `SKILL.md`'s stamp too (ignored: it is checked by content).
    pub fn holds(&self, found: &[(RelPath, Stamp)], skill_md: &[u8]) -> bool {
        if found.len() != self.files.len() || skill_md_hash(skill_md) != Some(self.skill_md) {
            return false;
        }
        found.iter().zip(&self.files).all(|((path, stamp), sealed)| {
            path.as_str() == sealed.path && (path.is_skill_md() || *stamp == sealed.stamp)
        })
    }
}
