//! `Sandbox`: a workspace folder through which every read and write of an agent's tools goes.
//! Holds path refusal and kernel-checked resolution beneath the root; not what the tools do.

use rustix::fd::{AsFd, OwnedFd};
use rustix::fs::{AtFlags, FileType, Mode, OFlags, ResolveFlags};
use rustix::io::Errno;
use skilldeck_skill::relpath::{PathError, RelPath};
use std::fs::File;
use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};

/// Why the sandbox refused or failed an operation.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// The path is not a plain relative path.
    #[error("refused path {path:?}: {source}")]
    InvalidPath {
        /// The path as given.
        path: String,
        /// Why.
        source: PathError,
    },
    /// The path resolves outside the workspace (through a symlink).
    #[error("{path:?} leads outside the workspace")]
    Escapes {
        /// The path as given.
        path: String,
    },
    /// The workspace folder itself cannot be used.
    #[error("that folder {reason}")]
    NoWorkspace {
        /// The folder as given.
        path: String,
        /// Why: it does not exist, or is not a folder.
        reason: &'static str,
    },
    /// Nothing at the path.
    #[error("{path:?} does not exist in the workspace")]
    NotFound {
        /// The path as given.
        path: String,
    },
    /// Something of the wrong kind is at the path (a file where a folder should be, …).
    #[error("{path:?} is not a {expected}")]
    WrongKind {
        /// The path as given.
        path: String,
        /// What was expected.
        expected: &'static str,
    },
    /// The file is over the size asked for.
    #[error("{path:?} is {size} bytes, over the limit of {limit}")]
    TooLarge {
        /// The path.
        path: String,
        /// Its size.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// Any other I/O failure.
    #[error("could not {what} {path:?}: {source}")]
    Io {
        /// What was being done.
        what: &'static str,
        /// The path.
        path: String,
        /// The error.
        source: std::io::Error,
    },
}

type Result<T> = std::result::Result<T, SandboxError>;

/// What kind of entry a path names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryKind {
    /// A regular file.
    File,
    /// A folder.
    Dir,
    /// Anything else (a symlink seen without following it, a device, …).
    Other,
}

/// One entry of a listed folder.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct DirEntry {
    /// Its name.
    pub name: String,
    /// Its kind (symlinks are not followed).
    pub kind: EntryKind,
    /// Its size in bytes.
    pub size: u64,
}

/// A workspace folder. Every path is relative; absolute paths, `..`, backslashes, NUL and drive
/// prefixes are refused before any I/O, and the kernel resolves each path strictly beneath the
/// root (`openat2` with `RESOLVE_BENEATH`), so no symlink can lead out. Each opened file is
/// checked again after resolution.
#[derive(Debug)]
pub struct Sandbox {
    root: PathBuf,
    root_fd: OwnedFd,
}

fn kind_of(ft: FileType) -> EntryKind {
    match ft {
        FileType::RegularFile => EntryKind::File,
        FileType::Directory => EntryKind::Dir,
        _ => EntryKind::Other,
    }
}

impl Sandbox {
    /// Opens the workspace at `root`, which must be an existing folder.
    pub fn open(root: &Path) -> Result<Self> {
        let shown = root.display().to_string();
        let root = std::fs::canonicalize(root).map_err(|_| SandboxError::NoWorkspace {
            path: shown.clone(),
            reason: "does not exist; create it or choose another folder",
        })?;
        let root_fd = rustix::fs::open(&root, OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC, Mode::empty())
            .map_err(|e| match e {
                Errno::NOTDIR => SandboxError::NoWorkspace {
                    path: shown.clone(),
                    reason: "is a file, not a folder; choose a folder",
                },
                e => SandboxError::Io { what: "open", path: shown.clone(), source: e.into() },
            })?;
        Ok(Self { root, root_fd })
    }

    /// The workspace folder, resolved.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Checks a path before any I/O.
    pub fn check(path: &str) -> Result<RelPath> {
        RelPath::parse(path).map_err(|source| SandboxError::InvalidPath { path: path.to_owned(), source })
    }

    /// Maps an errno from resolving `path` to a sandbox error.
    fn err(what: &'static str, path: &str, e: Errno) -> SandboxError {
        match e {
            Errno::XDEV | Errno::LOOP => SandboxError::Escapes { path: path.to_owned() },
            Errno::NOENT => SandboxError::NotFound { path: path.to_owned() },
            Errno::NOTDIR => SandboxError::WrongKind { path: path.to_owned(), expected: "folder" },
            Errno::ISDIR => SandboxError::WrongKind { path: path.to_owned(), expected: "file" },
            e => SandboxError::Io { what, path: path.to_owned(), source: e.into() },
        }
    }

    /// Opens `rel` beneath `dir` (a folder of this sandbox), never leaving the root.
    pub(crate) fn open_at(
        &self,
        dir: impl AsFd,
        rel: &str,
        flags: OFlags,
        mode: Mode,
    ) -> std::result::Result<OwnedFd, Errno> {
        let flags = flags | OFlags::CLOEXEC;
        match rustix::fs::openat2(&dir, rel, flags, mode, ResolveFlags::BENEATH | ResolveFlags::NO_MAGICLINKS) {
            Err(Errno::NOSYS) => {
                // Kernels before 5.6: walk one component at a time and follow no symlink at all.
                let mut parts = rel.split('/').peekable();
                let mut cur =
                    rustix::fs::openat(&dir, ".", OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC, Mode::empty())?;
                while let Some(part) = parts.next() {
                    let last = parts.peek().is_none();
                    let f = if last { flags } else { OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC };
                    cur = rustix::fs::openat(&cur, part, f | OFlags::NOFOLLOW, mode)?;
                }
                Ok(cur)
            }
            other => other,
        }
    }

    /// Verifies after resolution that an opened descriptor lies inside the root.
    fn verify(&self, fd: &OwnedFd, path: &str) -> Result<()> {
        let proc = format!("/proc/self/fd/{}", rustix::fd::AsRawFd::as_raw_fd(fd));
        match std::fs::read_link(&proc) {
            Ok(real) if real.starts_with(&self.root) => Ok(()),
            Ok(_) => Err(SandboxError::Escapes { path: path.to_owned() }),
            // No /proc (not Linux): openat2 or the no-symlink walk already held the line.
            Err(_) => Ok(()),
        }
    }

    /// Opens an existing folder of the workspace (`""` is the root).
    pub fn open_dir(&self, path: &str) -> Result<OwnedFd> {
        if path.is_empty() {
            return rustix::fs::openat(
                &self.root_fd,
                ".",
                OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
                Mode::empty(),
            )
            .map_err(|e| Self::err("open", path, e));
        }
        let rel = Self::check(path)?;
        let fd = self
            .open_at(&self.root_fd, rel.as_str(), OFlags::RDONLY | OFlags::DIRECTORY, Mode::empty())
            .map_err(|e| Self::err("open", path, e))?;
        self.verify(&fd, path)?;
        Ok(fd)
    }

    /// Reads a whole file, refusing one over `limit` bytes.
    pub fn read(&self, path: &str, limit: u64) -> Result<Vec<u8>> {
        let rel = Self::check(path)?;
        // NONBLOCK: opening a FIFO must not hang the tool; fstat below refuses it.
        let fd = self
            .open_at(&self.root_fd, rel.as_str(), OFlags::RDONLY | OFlags::NONBLOCK, Mode::empty())
            .map_err(|e| Self::err("read", path, e))?;
        self.verify(&fd, path)?;
        let st = rustix::fs::fstat(&fd).map_err(|e| Self::err("read", path, e))?;
        if kind_of(FileType::from_raw_mode(st.st_mode)) != EntryKind::File {
            return Err(SandboxError::WrongKind { path: path.to_owned(), expected: "file" });
        }
        let size = st.st_size as u64;
        if size > limit {
            return Err(SandboxError::TooLarge { path: path.to_owned(), size, limit });
        }
        let mut bytes = Vec::with_capacity(size as usize);
        File::from(fd).take(limit + 1).read_to_end(&mut bytes).map_err(|source| SandboxError::Io {
            what: "read",
            path: path.to_owned(),
            source,
        })?;
        if bytes.len() as u64 > limit {
            return Err(SandboxError::TooLarge { path: path.to_owned(), size: bytes.len() as u64, limit });
        }
        Ok(bytes)
    }

    /// The kind and size of what `path` names, without following a final symlink.
    pub fn stat(&self, path: &str) -> Result<(EntryKind, u64)> {
        let rel = Self::check(path)?;
        let (parent, name) = match rel.as_str().rsplit_once('/') {
            Some((p, n)) => (self.open_dir(p)?, n),
            None => (self.open_dir("")?, rel.as_str()),
        };
        let st =
            rustix::fs::statat(&parent, name, AtFlags::SYMLINK_NOFOLLOW).map_err(|e| Self::err("inspect", path, e))?;
        Ok((kind_of(FileType::from_raw_mode(st.st_mode)), st.st_size as u64))
    }

    /// Creates `path` and its parents as folders (existing ones are fine) and opens it.
    pub fn create_dir_all(&self, path: &str) -> Result<OwnedFd> {
        let rel = Self::check(path)?;
        let dir_flags = OFlags::RDONLY | OFlags::DIRECTORY;
        // Each parent is resolved from the root, as a read of the same path would be, so a
        // symlink that climbs to a sibling folder inside the workspace works here too.
        let mut done = 0;
        for part in rel.as_str().split('/') {
            let parent = match &rel.as_str()[..done] {
                "" => self.open_dir("")?,
                p => self
                    .open_at(&self.root_fd, p.trim_end_matches('/'), dir_flags, Mode::empty())
                    .map_err(|e| Self::err("open", path, e))?,
            };
            match rustix::fs::mkdirat(&parent, part, Mode::from_raw_mode(0o755)) {
                Ok(()) | Err(Errno::EXIST) => {}
                Err(e) => return Err(Self::err("create", path, e)),
            }
            done += part.len() + 1;
        }
        let dir = self
            .open_at(&self.root_fd, rel.as_str(), dir_flags, Mode::empty())
            .map_err(|e| Self::err("open", path, e))?;
        self.verify(&dir, path)?;
        Ok(dir)
    }

    /// Writes a whole file, creating its parent folders; never writes through a symlink. A new
    /// file is never executable (`0644`, whatever it holds): a script the model wrote must not be
    /// one the user's tools later run by name (a `.git/hooks/pre-commit`). A file that exists keeps
    /// its mode.
    pub fn write(&self, path: &str, bytes: &[u8]) -> Result<()> {
        let rel = Self::check(path)?;
        let (dir, name) = match rel.as_str().rsplit_once('/') {
            Some((p, n)) => (self.create_dir_all(p)?, n),
            None => (self.open_dir("")?, rel.as_str()),
        };
        write_file_at(&dir, name, bytes, Mode::from_raw_mode(0o644)).map_err(|e| Self::err("write", path, e))
    }

    /// The entries of a folder, sorted by name; symlinks are listed, not followed.
    pub fn list_dir(&self, path: &str) -> Result<Vec<DirEntry>> {
        let fd = self.open_dir(path)?;
        let dir = rustix::fs::Dir::read_from(&fd).map_err(|e| Self::err("list", path, e))?;
        let mut out = Vec::new();
        for entry in dir {
            let entry = entry.map_err(|e| Self::err("list", path, e))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if name == "." || name == ".." {
                continue;
            }
            let st = rustix::fs::statat(&fd, entry.file_name(), AtFlags::SYMLINK_NOFOLLOW);
            let (kind, size) =
                st.map_or((EntryKind::Other, 0), |s| (kind_of(FileType::from_raw_mode(s.st_mode)), s.st_size as u64));
            out.push(DirEntry { name, kind, size });
        }
        out.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(out)
    }
}

/// Creates (or truncates) `name` in `dir` without following a symlink, and writes `bytes`.
pub(crate) fn write_file_at(dir: &impl AsFd, name: &str, bytes: &[u8], mode: Mode) -> std::result::Result<(), Errno> {
    // No O_TRUNC yet: first make sure this is a regular file with one name. NONBLOCK keeps a
    // FIFO from hanging the open (it fails with ENXIO instead); a hard link could be the
    // same file as one outside the workspace, so it is refused rather than overwritten.
    let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
    let fd = rustix::fs::openat(dir, name, flags, mode).map_err(|e| if e == Errno::NXIO { Errno::ISDIR } else { e })?;
    let st = rustix::fs::fstat(&fd)?;
    if FileType::from_raw_mode(st.st_mode) != FileType::RegularFile {
        return Err(Errno::ISDIR);
    }
    if st.st_nlink > 1 {
        return Err(Errno::MLINK);
    }
    rustix::fs::ftruncate(&fd, 0)?;
    let mut f = File::from(fd);
    f.write_all(bytes).map_err(|e| Errno::from_io_error(&e).unwrap_or(Errno::IO))
}

/// Removes `name` in `dir` and everything below it, never following a symlink.
pub(crate) fn remove_tree_at(dir: &impl AsFd, name: &str) -> std::result::Result<(), Errno> {
    let st = rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW)?;
    if FileType::from_raw_mode(st.st_mode) != FileType::Directory {
        return rustix::fs::unlinkat(dir, name, AtFlags::empty());
    }
    let sub = rustix::fs::openat(
        dir,
        name,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    let mut names = Vec::new();
    for entry in rustix::fs::Dir::read_from(&sub)? {
        let entry = entry?;
        let n = entry.file_name().to_string_lossy().into_owned();
        if n != "." && n != ".." {
            names.push(n);
        }
    }
    for n in names {
        remove_tree_at(&sub, &n)?;
    }
    rustix::fs::unlinkat(dir, name, AtFlags::REMOVEDIR)
}
