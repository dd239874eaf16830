//! The one reader of files that skills hold: regular files only, no symbolic links, a size cap.
//! Holds opening (never blocking, never following a link) and capped reading; not what the bytes mean.

use rustix::fs::{Mode, OFlags};
use rustix::io::Errno;
use skilldeck_skill::relpath::RelPath;
use std::fs::File;
use std::io::Read as _;
use std::os::fd::{AsFd as _, BorrowedFd, OwnedFd};
use std::os::unix::fs::{FileTypeExt as _, MetadataExt as _};
use std::path::Path;

/// Why a file was not read. Each message says what was wrong and what to do.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// Nothing at that path (or a part of the path is not a folder).
    #[error("{path} does not exist")]
    NotFound {
        /// The path as shown to people.
        path: String,
    },
    /// A folder where a file was expected.
    #[error("{path} is a folder, not a file; name a file inside it")]
    Folder {
        /// The path as shown to people.
        path: String,
    },
    /// The path, or a folder on the way to it, is a symbolic link.
    #[error(
        "{path} is a symbolic link, and Skilldeck never follows links inside a skill; put a copy of the file it points to in its place"
    )]
    Symlink {
        /// The link, as shown to people.
        path: String,
    },
    /// A named pipe, socket, device or folder where a file was expected.
    #[error("{path} is a {kind}, not a regular file; a skill holds only regular files, so replace it with one")]
    NotRegular {
        /// The path as shown to people.
        path: String,
        /// What it is instead.
        kind: &'static str,
    },
    /// Larger than the limit; reading stopped one byte past it.
    #[error(
        "{path} is {size} bytes; the limit for one file is {limit} bytes, so shrink it or move it out of the skill"
    )]
    TooLarge {
        /// The path as shown to people.
        path: String,
        /// Its size (at least the limit plus one).
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// Any other I/O error.
    #[error("could not read {path}: {source}")]
    Io {
        /// The path as shown to people.
        path: String,
        /// The error.
        source: std::io::Error,
    },
}

impl ReadError {
    /// A stable code for UIs and scripts.
    pub fn code(&self) -> &'static str {
        match self {
            Self::NotFound { .. } | Self::Folder { .. } => "file_not_found",
            Self::Symlink { .. } => "file_is_symlink",
            Self::NotRegular { .. } => "file_not_regular",
            Self::TooLarge { .. } => "file_too_large",
            Self::Io { .. } => "io_error",
        }
    }
}

/// Which version of a file was read: equal ids mean the same bytes, short of a write that
/// keeps size and modification time to the nanosecond.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FileId {
    /// The device holding it.
    pub dev: u64,
    /// Its inode.
    pub ino: u64,
    /// Its size in bytes.
    pub size: u64,
    /// Its modification time, in nanoseconds since the epoch.
    pub mtime_ns: i128,
}

impl FileId {
    fn of(meta: &std::fs::Metadata) -> Self {
        Self {
            dev: meta.dev(),
            ino: meta.ino(),
            size: meta.size(),
            mtime_ns: i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
        }
    }
}

/// The bytes of a file and which version of it they are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadFile {
    /// The bytes.
    pub bytes: Vec<u8>,
    /// The file they came from.
    pub id: FileId,
}

/// Flags for every open: read-only, never the terminal, never inherited by children, and
/// non-blocking so that opening a named pipe returns at once instead of waiting for a writer.
fn flags() -> OFlags {
    OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC | OFlags::NOCTTY
}

/// Maps an open error of `shown`.
fn open_error(shown: &str, e: Errno) -> ReadError {
    let path = shown.to_owned();
    match e {
        Errno::NOENT | Errno::NOTDIR => ReadError::NotFound { path },
        // O_NOFOLLOW on a link: ELOOP on Linux and macOS, EMLINK on FreeBSD.
        Errno::LOOP | Errno::MLINK => ReadError::Symlink { path },
        other => ReadError::Io { path, source: other.into() },
    }
}

/// The error of opening `name` in `dir`, told apart: with `O_DIRECTORY`, a link is refused as
/// "not a folder" (`ENOTDIR`), which would hide that it is a link.
fn link_or(dir: BorrowedFd<'_>, name: &str, e: Errno) -> Errno {
    let is_link = || {
        rustix::fs::statat(dir, name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW)
            .is_ok_and(|st| rustix::fs::FileType::from_raw_mode(st.st_mode) == rustix::fs::FileType::Symlink)
    };
    if e == Errno::NOTDIR && is_link() { Errno::LOOP } else { e }
}

/// A word for what a non-regular file is.
fn kind_of(ft: std::fs::FileType) -> &'static str {
    if ft.is_fifo() {
        "named pipe (FIFO)"
    } else if ft.is_socket() {
        "socket"
    } else if ft.is_char_device() || ft.is_block_device() {
        "device"
    } else if ft.is_symlink() {
        "symbolic link"
    } else {
        "special file"
    }
}

/// Checks that an opened descriptor is a regular file.
fn regular(fd: OwnedFd, shown: &str) -> Result<(File, FileId), ReadError> {
    regular_meta(fd, shown).map(|(file, meta)| (file, FileId::of(&meta)))
}

/// Checks that an opened descriptor is a regular file; returns it with its metadata.
fn regular_meta(fd: OwnedFd, shown: &str) -> Result<(File, std::fs::Metadata), ReadError> {
    let file = File::from(fd);
    let meta = file.metadata().map_err(|source| ReadError::Io { path: shown.to_owned(), source })?;
    if meta.is_dir() {
        return Err(ReadError::Folder { path: shown.to_owned() });
    }
    if !meta.file_type().is_file() {
        return Err(ReadError::NotRegular { path: shown.to_owned(), kind: kind_of(meta.file_type()) });
    }
    Ok((file, meta))
}

/// Opens `path` for reading if it is a regular file. Its last component must not be a
/// symbolic link (the folders above it are the caller's). Never blocks on a named pipe.
pub fn open_regular(path: &Path) -> Result<(File, FileId), ReadError> {
    let shown = path.display().to_string();
    let fd = rustix::fs::openat(rustix::fs::CWD, path, flags(), Mode::empty()).map_err(|e| open_error(&shown, e))?;
    regular(fd, &shown)
}

/// Opens `rel` inside the folder `root` if it is a regular file, following no symbolic link on
/// the way: `etcdir/passwd` with `etcdir -> /etc` is refused at `etcdir`. `root` itself is the
/// caller's to trust.
pub fn open_beneath(root: &Path, rel: &RelPath) -> Result<(File, FileId), ReadError> {
    let open_root = rustix::fs::openat(rustix::fs::CWD, root, OFlags::RDONLY | OFlags::DIRECTORY, Mode::empty());
    let dir = open_root.map_err(|e| open_error(&root.display().to_string(), e))?;
    let (file, meta) = open_at(dir.as_fd(), rel)?;
    Ok((file, FileId::of(&meta)))
}

/// Opens `rel` beneath the opened folder `dir` if it is a regular file, following no symbolic
/// link on the way; returns it with its metadata. A top-level name costs one `openat`.
pub(crate) fn open_at(dir: BorrowedFd<'_>, rel: &RelPath) -> Result<(File, std::fs::Metadata), ReadError> {
    let (parent, last, shown) = open_parent(dir, rel)?;
    let at = parent.as_ref().map_or(dir, |p| p.as_fd());
    let fd =
        rustix::fs::openat(at, last, flags(), Mode::empty()).map_err(|e| open_error(&shown, link_or(at, last, e)))?;
    regular_meta(fd, &shown)
}

/// Opens the folder `rel` beneath the opened folder `dir`, following no symbolic link.
pub(crate) fn open_dir_at(dir: BorrowedFd<'_>, rel: &RelPath) -> Result<OwnedFd, ReadError> {
    let (parent, last, shown) = open_parent(dir, rel)?;
    let at = parent.as_ref().map_or(dir, |p| p.as_fd());
    rustix::fs::openat(at, last, flags() | OFlags::DIRECTORY, Mode::empty())
        .map_err(|e| open_error(&shown, link_or(at, last, e)))
}

/// Opens the folders on the way to `rel`'s last component (none for a top-level name) and
/// returns the innermost, that last component and the whole path as shown to people.
fn open_parent<'r>(dir: BorrowedFd<'_>, rel: &'r RelPath) -> Result<(Option<OwnedFd>, &'r str, String), ReadError> {
    let (folders, last) = match rel.as_str().rsplit_once('/') {
        Some((folders, last)) => (Some(folders), last),
        None => (None, rel.as_str()),
    };
    let mut shown = String::new();
    let mut parent: Option<OwnedFd> = None;
    for part in folders.into_iter().flat_map(|f| f.split('/')) {
        if !shown.is_empty() {
            shown.push('/');
        }
        shown.push_str(part);
        let at = parent.as_ref().map_or(dir, |p| p.as_fd());
        let fd = rustix::fs::openat(at, part, flags() | OFlags::DIRECTORY, Mode::empty())
            .map_err(|e| open_error(&shown, link_or(at, part, e)))?;
        parent = Some(fd);
    }
    Ok((parent, last, rel.to_string()))
}

/// Reads at most `limit` bytes from an opened regular file; one byte more means it is too large.
///
/// A read that returns fewer bytes than asked for is the end of a regular file, so a file that
/// fits its size from `fstat` takes one `read`, not a second one that returns nothing.
fn read_capped(mut file: File, id: FileId, limit: u64, shown: impl Fn() -> String) -> Result<ReadFile, ReadError> {
    let cap = id.size.min(limit).saturating_add(1);
    let mut bytes = Vec::with_capacity(usize::try_from(cap).unwrap_or(0));
    let io = |source| ReadError::Io { path: shown(), source };
    let mut len = 0usize;
    bytes.resize(bytes.capacity().max(1), 0);
    loop {
        if len == bytes.len() {
            if len as u64 > limit {
                break;
            }
            // Grown since `fstat`: read on, in steps, up to one byte past the limit.
            let more = usize::try_from(limit.saturating_add(1) - len as u64).unwrap_or(usize::MAX).min(len.max(8192));
            bytes.resize(len + more, 0);
        }
        let asked = bytes.len() - len;
        match file.read(&mut bytes[len..]) {
            Ok(0) => break,
            Ok(n) => {
                len += n;
                if n < asked {
                    break;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(io(e)),
        }
    }
    bytes.truncate(len);
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge { path: shown(), size: id.size.max(bytes.len() as u64), limit });
    }
    Ok(ReadFile { bytes, id })
}

/// Reads the regular file `path` (last component not a link), at most `limit` bytes.
pub fn read_file(path: &Path, limit: u64) -> Result<ReadFile, ReadError> {
    let (file, id) = open_regular(path)?;
    read_capped(file, id, limit, || path.display().to_string())
}

/// Reads the regular file `rel` beneath the opened folder `dir`, following no link, at most
/// `limit` bytes; returns its metadata too.
pub(crate) fn read_at(
    dir: BorrowedFd<'_>,
    rel: &RelPath,
    limit: u64,
) -> Result<(ReadFile, std::fs::Metadata), ReadError> {
    let (file, meta) = open_at(dir, rel)?;
    let read = read_capped(file, FileId::of(&meta), limit, || rel.to_string())?;
    Ok((read, meta))
}

/// Reads the regular file `rel` inside `root`, following no link, at most `limit` bytes.
pub fn read_beneath(root: &Path, rel: &RelPath, limit: u64) -> Result<ReadFile, ReadError> {
    let (file, id) = open_beneath(root, rel)?;
    read_capped(file, id, limit, || rel.to_string())
}
