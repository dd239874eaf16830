//! Reading a skill folder once for discovery: its listing, `.version`, `SKILL.md` and, when a
//! digest is asked for, its record. Holds the one-pass reader and where the digest comes from;
//! not whole-revision snapshots (`tree`), the record's format (`record`) or the seal (`seal`).
//!
//! Every read goes through one descriptor of the skill folder, so all of it comes from one
//! folder, that is one revision, even while a writer swaps a new one in; each file is opened
//! once, and a file the listing does not show is never tried. For a skill of `SKILL.md` alone
//! that is the folder's open and listing, `.version` and `SKILL.md`.

use super::error::{Result, StorageError};
use super::record::Record;
use super::seal::{Seal, Stamp};
use super::tree::{Snapshot, Summary};
use crate::safe_read::{self, ReadError, ReadFile};
use rustix::fs::{AtFlags, Dir, FileType, Mode, OFlags};
use rustix::io::Errno;
use skilldeck_skill::digest::Digest;
use skilldeck_skill::files::{RECORD_FILE, SkillFiles, VERSION_FILE, is_sidecar};
use skilldeck_skill::relpath::RelPath;
use skilldeck_skill::scope::Revision;
use std::os::fd::{BorrowedFd, OwnedFd};
use std::path::Path;

use super::seal::SKILL_MD;

/// The largest record read: a seal line per file fits many times over.
const RECORD_LIMIT: u64 = 4 << 20;

/// What a walk of a skill folder found.
#[derive(Debug, Default)]
struct Listing {
    /// Regular files but the sidecars, with their stamps (`SKILL.md`'s comes from its read).
    files: Vec<(RelPath, Option<Stamp>)>,
    /// Entries passed over: links, special files, names that are not valid paths.
    skipped: Vec<String>,
    /// The stamps of the folder (`""`), each folder beneath it and the sidecars, each taken
    /// before that entry was listed or read (see `Summary::stamps`).
    stamps: Vec<(String, Stamp)>,
    /// Which top-level names the folder holds.
    has_version: bool,
    has_record: bool,
    has_skill_md: bool,
}

/// A whole scan: the summary, and the digest or why it could not be had.
pub(crate) struct Scanned {
    /// The summary (its `digest` set when one was had).
    pub summary: Summary,
    /// Why no digest could be had, when one was asked for and none was.
    pub digest_error: Option<StorageError>,
    /// When every file was asked for: each file but the sidecars and the entries passed over,
    /// as [`snapshot`] reads a revision, or why a file could not be read.
    pub files: Option<Result<(SkillFiles, Vec<String>)>>,
}

impl Scanned {
    /// The summary, and the revision read whole as [`snapshot`] gives it: an error when a
    /// file could not be read (or the files were not asked for).
    pub fn split(self) -> (Summary, Result<Snapshot>) {
        let revision = self.summary.revision;
        let snapshot = match self.files {
            Some(read) => read.map(|(files, skipped)| Snapshot { revision, files, skipped }),
            None => Err(StorageError::Io {
                context: "the skill's files were not read".to_owned(),
                source: std::io::Error::other("a scan without its files"),
            }),
        };
        (self.summary, snapshot)
    }
}

/// What a scan reads besides the listing, `.version` and `SKILL.md`.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ScanFor {
    /// The content digest (see [`scan`]).
    pub digest: bool,
    /// Every file's bytes, each read once and shared with the digest (for the audit).
    pub files: bool,
}

/// Opens the folder `dir` itself, never through a link at its last component.
fn open_folder(dir: &Path) -> std::result::Result<OwnedFd, Errno> {
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    rustix::fs::openat(rustix::fs::CWD, dir, flags, Mode::empty())
}

/// Reads the skill at `dir` once. With `want.digest`, the digest comes from `SKILL.md` when it
/// is the only file, else from the record when its seal holds, else from hashing every file;
/// with `want.files`, every file is read too, and a digest hashed from them reads none twice.
/// `None` when `dir` is not a folder (gone, a link, a file).
pub(crate) fn scan(dir: &Path, limit: u64, want: ScanFor) -> Result<Option<Scanned>> {
    const ATTEMPTS: usize = 16;
    for _ in 0..ATTEMPTS {
        let top = match open_folder(dir) {
            Ok(fd) => fd,
            Err(Errno::NOENT | Errno::NOTDIR | Errno::LOOP) => return Ok(None),
            Err(e) => return Err(StorageError::io("open", dir)(e.into())),
        };
        match scan_folder(dir, top, limit, want)? {
            Some(s) => return Ok(Some(s)),
            // The folder was swapped out and removed while read: read the one there now.
            None => continue,
        }
    }
    Err(StorageError::Io {
        context: format!("could not read {} while it kept changing", dir.display()),
        source: std::io::Error::other("too many concurrent writes"),
    })
}

/// Reads every file of the skill at `dir`, one revision whole; a file over `limit` bytes is
/// an error. The one reader of whole revisions is `scan`'s: everything comes through one
/// descriptor of the folder, so a writer swapping a new revision in never yields a mix, and the
/// listing's own pass serves the audit (see `FsStorage::summary_and_snapshot`).
pub(crate) fn snapshot(dir: &Path, limit: u64) -> Result<Snapshot> {
    let want = ScanFor { digest: false, files: true };
    let scanned = scan(dir, limit, want)?
        .ok_or_else(|| StorageError::io("read the folder", dir)(std::io::ErrorKind::NotFound.into()))?;
    scanned.split().1
}

/// Whether the folder read through `top` is gone from `dir` (swapped out by a writer), so what
/// went missing went with it.
fn moved(dir: &Path, top: BorrowedFd<'_>) -> bool {
    let here = rustix::fs::statat(rustix::fs::CWD, dir, AtFlags::SYMLINK_NOFOLLOW).map(|s| s.st_ino);
    let read = rustix::fs::fstat(top).map(|s| s.st_ino);
    !matches!((here, read), (Ok(a), Ok(b)) if a == b)
}

/// One attempt of `scan` over the opened folder `top`; `None` to try again.
fn scan_folder(dir: &Path, top: OwnedFd, limit: u64, want: ScanFor) -> Result<Option<Scanned>> {
    let mut dir_reader = Dir::new(top).map_err(|e| StorageError::io("read the folder", dir)(e.into()))?;
    let mut listing = Listing::default();
    walk(&mut dir_reader, dir, &mut listing)?;
    let top = dir_reader.fd().map_err(|e| StorageError::io("read the folder", dir)(e.into()))?;
    let revision = if listing.has_version { read_version(top) } else { None };
    let skill_md = match (listing.has_skill_md, RelPath::parse(SKILL_MD)) {
        (true, Ok(rel)) => safe_read::read_at(top, &rel, limit),
        _ => Err(ReadError::NotFound { path: SKILL_MD.to_owned() }),
    };
    if matches!(skill_md, Err(ReadError::NotFound { .. })) && listing.has_skill_md && moved(dir, top) {
        return Ok(None);
    }
    // `SKILL.md`'s stamp from its read; one refused (too large) is still a file of the tree.
    let md_stamp = match &skill_md {
        Ok((_, meta)) => Some(Stamp::of(meta)),
        Err(_) => rustix::fs::statat(top, SKILL_MD, AtFlags::SYMLINK_NOFOLLOW)
            .ok()
            .filter(|st| FileType::from_raw_mode(st.st_mode) == FileType::RegularFile)
            .map(|st| Stamp::of_stat(&st)),
    };
    if let Some(entry) = listing.files.iter_mut().find(|(p, _)| p.is_skill_md()) {
        entry.1 = md_stamp;
    }
    let skill_md = skill_md.map(|(read, _)| read);
    // A `SKILL.md` gone since the listing (an editor saving) is no longer in the tree.
    listing.files.retain(|(_, stamp)| stamp.is_some());
    listing.files.sort_by(|a, b| a.0.cmp(&b.0));
    let file_count = listing.files.len();
    let total_bytes = listing.files.iter().filter_map(|(_, s)| s.map(|s| s.size)).sum();
    // A folder swapped out while its files were read may have lost some to the writer's
    // clean-up: what was read is then no revision whole, so the one there now is read instead.
    let files = match want.files.then(|| read_files(dir, top, &listing, skill_md.as_ref().ok(), limit)) {
        Some(_) if moved(dir, top) => return Ok(None),
        files => files,
    };
    let read = files.as_ref().and_then(|f| f.as_ref().ok()).map(|(f, _)| f);
    let (digest, digest_error) = if want.digest {
        match digest_of(dir, top, &listing, revision, skill_md.as_ref().ok(), read, limit) {
            Ok(d) => (Some(d), None),
            Err(e) if moved(dir, top) => {
                drop(e);
                return Ok(None);
            }
            Err(e) => (None, Some(e)),
        }
    } else {
        (None, None)
    };
    let (skill_md, skill_md_id, skill_md_problem) = match skill_md {
        Ok(f) => (Some(f.bytes), Some(f.id), None),
        Err(e) => (None, None, crate::read_check::read_diagnostic(&e)),
    };
    let mut stamps = listing.stamps;
    stamps.extend(listing.files.iter().filter_map(|(p, s)| Some((p.to_string(), (*s)?))));
    let summary =
        Summary { revision, skill_md, skill_md_id, skill_md_problem, file_count, total_bytes, digest, stamps };
    Ok(Some(Scanned { summary, digest_error, files }))
}

/// The folder name of a skill, for messages.
fn folder_name(dir: &Path) -> String {
    dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

/// The revision in `.version` under `top`: `None` when unreadable or not an integer.
fn read_version(top: BorrowedFd<'_>) -> Option<Revision> {
    let rel = RelPath::parse(VERSION_FILE).ok()?;
    let (f, _) = safe_read::read_at(top, &rel, 32).ok()?;
    std::str::from_utf8(&f.bytes).ok()?.trim().parse().ok().map(Revision)
}

/// The digest of the folder under `top`: `SKILL.md`'s alone when it is the only file, the
/// record's when its seal holds, else hashed from every file, each read once (a file already
/// in `read` is not read again).
fn digest_of(
    dir: &Path,
    top: BorrowedFd<'_>,
    listing: &Listing,
    revision: Option<Revision>,
    skill_md: Option<&ReadFile>,
    read: Option<&SkillFiles>,
    limit: u64,
) -> Result<Digest> {
    if let (Some(md), [(only, _)]) = (skill_md, listing.files.as_slice())
        && only.is_skill_md()
    {
        return Ok(Digest::of([(only, md.bytes.as_slice())]));
    }
    if let (Some(md), true, Some(rev)) = (skill_md, listing.has_record, revision)
        && let Some(d) = sealed_digest(top, listing, rev, &md.bytes)
    {
        return Ok(d);
    }
    let mut files = SkillFiles::new();
    for (rel, _) in &listing.files {
        let bytes = match (rel.is_skill_md(), skill_md, read.and_then(|r| r.get(rel.as_str()))) {
            (true, Some(md), _) => md.bytes.clone(),
            (_, _, Some(bytes)) => bytes.to_vec(),
            _ => match safe_read::read_at(top, rel, limit) {
                Ok((f, _)) => f.bytes,
                Err(ReadError::NotFound { .. } | ReadError::Folder { .. }) => continue,
                Err(e) => return Err(StorageError::read(&folder_name(dir), rel.as_str(), e)),
            },
        };
        files.insert(rel.clone(), bytes);
    }
    Ok(files.digest())
}

/// Every file `listing` found under `top` (the sidecars are not in it), each read once, and the
/// entries passed over, as [`snapshot`] reads a revision for the audit: a file gone since
/// the listing is no longer there, one swapped for a link or a special file is passed over (so
/// is a `SKILL.md` that is one), and one that cannot be read (too large, an I/O error) is an
/// error, so nothing unread passes as audited.
fn read_files(
    dir: &Path,
    top: BorrowedFd<'_>,
    listing: &Listing,
    skill_md: Option<&ReadFile>,
    limit: u64,
) -> Result<(SkillFiles, Vec<String>)> {
    let mut files = SkillFiles::new();
    let mut skipped = listing.skipped.clone();
    let md_is_listed = listing.files.iter().any(|(p, _)| p.is_skill_md());
    if listing.has_skill_md && skill_md.is_none() && !md_is_listed {
        // There, but not a regular file: the listing passed it over without a word.
        match rustix::fs::statat(top, SKILL_MD, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(st) if FileType::from_raw_mode(st.st_mode) != FileType::Directory => skipped.push(SKILL_MD.to_owned()),
            _ => {}
        }
    }
    for (rel, _) in &listing.files {
        let bytes = match (rel.is_skill_md(), skill_md) {
            (true, Some(md)) => md.bytes.clone(),
            _ => match safe_read::read_at(top, rel, limit) {
                Ok((f, _)) => f.bytes,
                Err(ReadError::NotFound { .. } | ReadError::Folder { .. }) => continue,
                Err(ReadError::Symlink { .. } | ReadError::NotRegular { .. }) => {
                    skipped.push(rel.to_string());
                    continue;
                }
                Err(e) => return Err(StorageError::read(&folder_name(dir), rel.as_str(), e)),
            },
        };
        files.insert(rel.clone(), bytes);
    }
    Ok((files, skipped))
}

/// The recorded digest of revision `rev`, when the record under `top` is that revision's and
/// its seal holds for the files as listed.
fn sealed_digest(top: BorrowedFd<'_>, listing: &Listing, rev: Revision, skill_md: &[u8]) -> Option<Digest> {
    let rel = RelPath::parse(RECORD_FILE).ok()?;
    let (f, _) = safe_read::read_at(top, &rel, RECORD_LIMIT).ok()?;
    let record = Record::parse(&f.bytes)?;
    let seal: &Seal = record.seal.as_ref()?;
    if record.line.revision != rev {
        return None;
    }
    let found: Vec<(RelPath, Stamp)> = listing.files.iter().filter_map(|(p, s)| Some((p.clone(), (*s)?))).collect();
    seal.holds(&found, skill_md).then_some(record.line.digest).flatten()
}

/// Lists the folder read by `reader` and every folder beneath it, stamping each regular file
/// but `SKILL.md` (stamped by its read).
fn walk(reader: &mut Dir, dir: &Path, out: &mut Listing) -> Result<()> {
    let mut pending: Vec<RelPath> = Vec::new();
    stamp_folder(reader, String::new(), out);
    list_one(reader, None, dir, out, &mut pending)?;
    while let Some(sub) = pending.pop() {
        let top = reader.fd().map_err(|e| StorageError::io("read the folder", dir)(e.into()))?;
        let fd = match safe_read::open_dir_at(top, &sub) {
            Ok(fd) => fd,
            // Gone since it was listed, or swapped for a link or a file: passed over.
            Err(ReadError::NotFound { .. }) => continue,
            Err(ReadError::Symlink { .. } | ReadError::NotRegular { .. } | ReadError::Folder { .. }) => {
                out.skipped.push(sub.to_string());
                continue;
            }
            Err(e) => return Err(StorageError::read(&folder_name(dir), sub.as_str(), e)),
        };
        let mut sub_reader = Dir::new(fd).map_err(|e| StorageError::io("read the folder", dir)(e.into()))?;
        stamp_folder(&sub_reader, sub.to_string(), out);
        list_one(&mut sub_reader, Some(&sub), dir, out, &mut pending)?;
    }
    Ok(())
}

/// Records the stamp of the folder read by `reader` as `path`, before it is listed: an entry
/// added or removed later changes it.
fn stamp_folder(reader: &Dir, path: String, out: &mut Listing) {
    if let Ok(st) = reader.fd().and_then(rustix::fs::fstat) {
        out.stamps.push((path, Stamp::of_stat(&st)));
    }
}

/// Lists one folder (`prefix` beneath the skill, `None` for its top), adding its folders to
/// `pending`.
fn list_one(
    reader: &mut Dir,
    prefix: Option<&RelPath>,
    dir: &Path,
    out: &mut Listing,
    pending: &mut Vec<RelPath>,
) -> Result<()> {
    let mut entries = Vec::new();
    while let Some(entry) = reader.read() {
        let entry = entry.map_err(|e| StorageError::io("read the folder", dir)(e.into()))?;
        let raw = entry.file_name().to_bytes();
        if raw == b"." || raw == b".." {
            continue;
        }
        entries.push((String::from_utf8_lossy(raw).into_owned(), std::str::from_utf8(raw).is_ok(), entry.file_type()));
    }
    let fd = reader.fd().map_err(|e| StorageError::io("read the folder", dir)(e.into()))?;
    for (name, utf8, file_type) in entries {
        let shown = match prefix {
            Some(p) => format!("{p}/{name}"),
            None => name.clone(),
        };
        let Some(rel) = utf8.then(|| RelPath::parse(&shown).ok()).flatten() else {
            out.skipped.push(shown);
            continue;
        };
        if prefix.is_none() {
            match name.as_str() {
                VERSION_FILE => out.has_version = true,
                RECORD_FILE => out.has_record = true,
                SKILL_MD => out.has_skill_md = true,
                _ => {}
            }
        }
        let mut kind = file_type;
        let mut stamp = None;
        // `SKILL.md` gets its stamp from its read; a sidecar's goes with the folder's stamps.
        if kind == FileType::Unknown || (kind == FileType::RegularFile && !rel.is_skill_md()) {
            match rustix::fs::statat(fd, name.as_str(), AtFlags::SYMLINK_NOFOLLOW) {
                Ok(st) => {
                    kind = FileType::from_raw_mode(st.st_mode);
                    stamp = Some(Stamp::of_stat(&st));
                }
                // Deleted between the listing and this look: no longer part of the tree.
                Err(Errno::NOENT) => continue,
                Err(e) => return Err(StorageError::io("inspect", &dir.join(&shown))(e.into())),
            }
        }
        match kind {
            FileType::Directory => pending.push(rel),
            FileType::RegularFile if prefix.is_none() && is_sidecar(rel.as_str()) => {
                out.stamps.extend(stamp.map(|s| (rel.to_string(), s)));
            }
            // `SKILL.md` gets its stamp from its read; one that cannot be read is not counted.
            FileType::RegularFile => out.files.push((rel, stamp)),
            _ if rel.is_skill_md() => {}
            _ => out.skipped.push(rel.to_string()),
        }
    }
    Ok(())
}

/// The digest of the skill at `dir` as `scan` finds it, or why it could not be had.
pub(crate) fn digest(dir: &Path, limit: u64) -> Result<Option<Digest>> {
    let Some(s) = scan(dir, limit, ScanFor { digest: true, files: false })? else {
        return Ok(None);
    };
    match (s.summary.digest, s.digest_error) {
        (Some(d), _) => Ok(Some(d)),
        (None, Some(e)) => Err(e),
        (None, None) => Ok(None),
    }
}

/// The seal of the revision just written into `dir` (a staging folder nobody else writes):
/// every file's stamp and `SKILL.md`'s hash. `None` when the folder cannot be read whole, and
/// the record is then written without a seal (readers hash the files instead).
pub(crate) fn seal(dir: &Path) -> Option<Seal> {
    let top = open_folder(dir).ok()?;
    let mut reader = Dir::new(top).ok()?;
    let mut listing = Listing::default();
    walk(&mut reader, dir, &mut listing).ok()?;
    if !listing.skipped.is_empty() {
        return None;
    }
    let top = reader.fd().ok()?;
    let rel = RelPath::parse(SKILL_MD).ok()?;
    let (md, meta) = safe_read::read_at(top, &rel, u64::MAX).ok()?;
    let mut files = Vec::with_capacity(listing.files.len());
    for (path, stamp) in &mut listing.files {
        let stamp = if path.is_skill_md() { Stamp::of(&meta) } else { (*stamp)? };
        files.push((path.to_string(), stamp));
    }
    files.sort_by(|a, b| a.0.cmp(&b.0));
    let files = files.into_iter().map(|(path, stamp)| super::seal::SealedFile { path, stamp }).collect();
    Some(Seal { skill_md: super::seal::skill_md_hash(&md.bytes)?, files })
}
