//! Mounting: copying one revision of a skill into a workspace at `.skills/<name>/`, all or nothing.
//! Holds staging, the swap and the mount record; not which revision to mount (`view_skill`).

use crate::sandbox::{Sandbox, SandboxError, remove_tree_at, write_file_at};
use rustix::fd::OwnedFd;
use rustix::fs::{AtFlags, FileType, Mode, OFlags, RenameFlags};
use rustix::io::Errno;
use serde::{Deserialize, Serialize};
use skilldeck_skill::files::{LimitError, LimitMeter, UploadLimits};
use skilldeck_skill::name::SkillName;
use skilldeck_skill::relpath::RelPath;
use skilldeck_store::storage::{Revision, Scope};
use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// The folder in a workspace that holds mounted skills.
pub const MOUNT_DIR: &str = ".skills";

/// What was mounted, for which turn: kept beside the mount as `.skills/.<name>.mount.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MountRecord {
    /// The turn that mounted it.
    pub turn: String,
    /// The scope it came from.
    pub scope: Scope,
    /// The revision mounted.
    pub revision: Option<Revision>,
    /// The version tag shown for it.
    pub version: Option<String>,
}

/// Why a mount failed. The workspace then holds the previous mount or none, never a part.
#[derive(Debug, thiserror::Error)]
pub enum MountError {
    /// The source folder changed while it was copied; copy again from where the revision is now.
    #[error("the skill changed while it was copied")]
    SourceChanged,
    /// The source folder could not be read.
    #[error("could not read the stored skill: {0}")]
    Source(#[from] skilldeck_store::storage::StorageError),
    /// The stored skill is over the store's upload limits: something outside Skilldeck put a
    /// file there that no upload could, such as a sparse file far larger than its few bytes.
    #[error(
        "the stored skill is over the store's limits ({0}), so it was changed outside Skilldeck and is not copied; \
         ask the user to remove the file from the stored skill or upload the skill again"
    )]
    OverLimit(LimitError),
    /// The sandbox refused or failed.
    #[error(transparent)]
    Sandbox(#[from] SandboxError),
    /// Something that is not a folder stands where the mount goes.
    #[error("{path} exists and is not a folder; move it away and call view_skill again")]
    InTheWay {
        /// The path in the workspace.
        path: String,
    },
    /// A folder Skilldeck did not mount (no mount record beside it: a repository's own
    /// `.skills/<name>/`, the user's files) stands where the mount goes. It is left as it is.
    #[error(
        "{path} holds files Skilldeck did not put there (it has no mount record), so it is left as it is and nothing was mounted; \
         ask the user to move or rename it, then call view_skill again"
    )]
    NotOurs {
        /// The path in the workspace.
        path: String,
    },
    /// Something that is not a plain file of its own stands where the mount record goes. It is
    /// neither followed nor read nor replaced, and nothing is mounted.
    #[error("{path} is {kind} where Skilldeck keeps the mount record; move it away and call view_skill again")]
    RecordInTheWay {
        /// The record's path in the workspace.
        path: String,
        /// What stands there: "a symbolic link", "a named pipe (FIFO)", ….
        kind: &'static str,
    },
    /// The workspace's file system has no space (or quota) left.
    #[error("the workspace is full ({source}) while {doing}; free space and call view_skill again")]
    WorkspaceFull {
        /// What was being done, naming the path.
        doing: String,
        /// The error.
        source: std::io::Error,
    },
    /// Copying failed.
    #[error("could not {what} {path}: {source}")]
    Io {
        /// What was being done.
        what: &'static str,
        /// The path in the workspace.
        path: String,
        /// The error.
        source: std::io::Error,
    },
}

/// Maps a failed write into the workspace at `path`: a full disk says so (and what to do).
fn io(what: &'static str, path: String) -> impl FnOnce(Errno) -> MountError {
    move |e| match e {
        Errno::NOSPC | Errno::DQUOT => {
            MountError::WorkspaceFull { doing: format!("trying to {what} {path}"), source: e.into() }
        }
        e => MountError::Io { what, path, source: e.into() },
    }
}

/// Whether an I/O error says the file system has no space (or quota) left.
fn is_full(e: &std::io::Error) -> bool {
    matches!(Errno::from_io_error(e), Some(Errno::NOSPC | Errno::DQUOT))
}

/// What `.skills/.gitignore` holds: everything in `.skills/`, itself included, is out of Git's
/// view, so a mount never shows as untracked files in the user's repository.
const GITIGNORE: &[u8] = b"# Skilldeck's mounts of skills for this workspace: not part of the project.\n*\n";

/// Writes `.skills/.gitignore` when there is none (never replacing one, never through a link).
/// Best effort: a workspace that refuses it still gets its mount.
fn keep_out_of_git(skills: &OwnedFd) {
    let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    if let Ok(fd) = rustix::fs::openat(skills, ".gitignore", flags, Mode::from_raw_mode(0o644)) {
        let _ = rustix::io::write(&fd, GITIGNORE);
    }
}

/// The workspace path of a skill's mount.
pub fn mount_path(name: &SkillName) -> String {
    format!("{MOUNT_DIR}/{name}")
}

fn record_name(name: &SkillName) -> String {
    format!(".{name}.mount.json")
}

/// The largest mount record read back, in bytes.
const MAX_RECORD_BYTES: u64 = 64 * 1024;

/// The record of the current mount of `name`, if any. Only a plain file of its own counts: a
/// symlink is never followed and a FIFO never opened for a blocking read, so nothing planted in
/// the workspace can pass for a mount of this turn.
pub fn read_record(sandbox: &Sandbox, name: &SkillName) -> Option<MountRecord> {
    use std::io::Read as _;
    let skills = sandbox.open_dir(MOUNT_DIR).ok()?;
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
    let fd = rustix::fs::openat(&skills, record_name(name), flags, Mode::empty()).ok()?;
    let st = rustix::fs::fstat(&fd).ok()?;
    if FileType::from_raw_mode(st.st_mode) != FileType::RegularFile || st.st_nlink > 1 {
        return None;
    }
    let mut bytes = Vec::new();
    std::fs::File::from(fd).take(MAX_RECORD_BYTES).read_to_end(&mut bytes).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// Refuses anything but nothing or a plain file of its own where the record of `name` goes.
fn check_record_slot(skills: &OwnedFd, name: &SkillName) -> Result<(), MountError> {
    let path = format!("{MOUNT_DIR}/{}", record_name(name));
    let st = match rustix::fs::statat(skills, record_name(name), AtFlags::SYMLINK_NOFOLLOW) {
        Ok(st) => st,
        Err(Errno::NOENT) => return Ok(()),
        Err(e) => return Err(io("inspect", path)(e)),
    };
    let kind = match FileType::from_raw_mode(st.st_mode) {
        FileType::RegularFile if st.st_nlink > 1 => "a hard link to another file",
        FileType::RegularFile => return Ok(()),
        FileType::Symlink => "a symbolic link",
        FileType::Fifo => "a named pipe (FIFO)",
        FileType::Directory => "a folder",
        FileType::Socket | FileType::CharacterDevice | FileType::BlockDevice | FileType::Unknown => "a special file",
    };
    Err(MountError::RecordInTheWay { path, kind })
}

/// Copies the stored revision in folder `src` to `.skills/<name>/`, file by file in the kernel:
/// staged beside the target, then swapped in, then its record renamed into place. `still_valid`
/// is asked after copying, before the swap, whether the copy succeeded or failed; `false` (a
/// writer replaced a live folder meanwhile) discards the copy with `SourceChanged`, never with
/// the copy's own error. On any failure the staging is removed and the previous mount (or its
/// absence) stands, with its record.
///
/// A stored skill over `limits` is refused, not copied: the store takes no upload over them,
/// so such a file was put there outside Skilldeck. Each file's size is checked from `fstat`
/// before a byte is copied, so a sparse file (1 GiB long, a few bytes written) is refused at
/// once instead of being written out dense into the workspace; a file that grows while it is
/// copied stops at the limit.
pub fn mount(
    sandbox: &Sandbox,
    name: &SkillName,
    src: &Path,
    limits: UploadLimits,
    still_valid: &dyn Fn() -> bool,
    record: &MountRecord,
) -> Result<(), MountError> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let skills = sandbox.create_dir_all(MOUNT_DIR).map_err(|e| match e {
        SandboxError::WrongKind { .. } => MountError::InTheWay { path: MOUNT_DIR.to_owned() },
        SandboxError::Io { source, .. } if is_full(&source) => {
            MountError::WorkspaceFull { doing: format!("trying to create {MOUNT_DIR}"), source }
        }
        e => e.into(),
    })?;
    keep_out_of_git(&skills);
    let target = name.as_str();
    let exists = match rustix::fs::statat(&skills, target, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(st) if FileType::from_raw_mode(st.st_mode) == FileType::Directory => true,
        Ok(_) => return Err(MountError::InTheWay { path: mount_path(name) }),
        Err(Errno::NOENT) => false,
        Err(e) => return Err(io("inspect", mount_path(name))(e)),
    };
    check_record_slot(&skills, name)?;
    // Only a mount of Skilldeck's (its record beside it) is ever replaced: a folder without one
    // holds someone's own files, which the swap would delete.
    if exists && read_record(sandbox, name).is_none() {
        return Err(MountError::NotOurs { path: mount_path(name) });
    }
    let staging = format!(".staging-{name}-{}-{}", std::process::id(), COUNTER.fetch_add(1, Ordering::Relaxed));
    let staged_record = format!("{staging}.record");
    let result = stage(sandbox, &skills, &staging, src, limits, still_valid, name)
        .and_then(|()| write_record(&skills, &staged_record, name, record))
        .and_then(|()| swap(&skills, &staging, target, exists))
        .and_then(|()| {
            // The record last: renaming never follows a symlink planted since the check, and
            // a rename that fails puts the previous mount back, so mount and record agree.
            rustix::fs::renameat(&skills, &staged_record, &skills, record_name(name)).map_err(|e| {
                let _ = unswap(&skills, &staging, target, exists);
                match e {
                    Errno::ISDIR | Errno::NOTEMPTY | Errno::EXIST => MountError::RecordInTheWay {
                        path: format!("{MOUNT_DIR}/{}", record_name(name)),
                        kind: "a folder",
                    },
                    e => io("record the mount in", format!("{MOUNT_DIR}/{}", record_name(name)))(e),
                }
            })
        });
    // After a swap the staging name holds the old mount; either way it goes.
    let _ = remove_tree_at(&skills, &staging);
    let _ = rustix::fs::unlinkat(&skills, &staged_record, AtFlags::empty());
    result
}

/// Writes the mount record to `file`, a fresh name beside the staging, before the swap: a
/// workspace too full for it fails the mount before the previous one is touched.
fn write_record(skills: &OwnedFd, file: &str, name: &SkillName, record: &MountRecord) -> Result<(), MountError> {
    let json = serde_json::to_vec(record).map_err(|e| MountError::Io {
        what: "record",
        path: mount_path(name),
        source: std::io::Error::other(e),
    })?;
    write_file_at(skills, file, &json, Mode::from_raw_mode(0o644))
        .map_err(io("write the mount record", format!("{MOUNT_DIR}/{}", record_name(name))))
}

/// Copies every file into `.skills/<staging>/`, creating folders beneath it only.
fn stage(
    sandbox: &Sandbox,
    skills: &OwnedFd,
    staging: &str,
    src: &Path,
    limits: UploadLimits,
    still_valid: &dyn Fn() -> bool,
    name: &SkillName,
) -> Result<(), MountError> {
    let shown = format!("{MOUNT_DIR}/{staging}");
    rustix::fs::mkdirat(skills, staging, Mode::from_raw_mode(0o755)).map_err(io("create", shown.clone()))?;
    let root = sandbox
        .open_at(skills, staging, OFlags::RDONLY | OFlags::DIRECTORY, Mode::empty())
        .map_err(io("open", shown.clone()))?;
    let mut dirs: HashMap<String, OwnedFd> = HashMap::new();
    let mut meter = LimitMeter::new(limits);
    // The walk's callback can only return a storage error: a mount error is kept here, and
    // the walk is stopped with a placeholder that is never shown.
    let mut failed: Option<MountError> = None;
    let copied = skilldeck_store::storage::tree::walk(src, &mut Vec::new(), &mut |rel, from, _| {
        let (parent, file) = match rel.as_str().rsplit_once('/') {
            None => (None, rel.as_str()),
            Some((p, f)) => (Some(p), f),
        };
        let dir = match parent {
            None => Ok(&root),
            Some(p) => dir_fd(sandbox, &root, &mut dirs, p).map_err(io("create", format!("{shown}/{p}"))),
        };
        let done = dir.and_then(|dir| copy_file(dir, file, &rel, from, &mut meter, name));
        done.map_err(|e| {
            failed = Some(e);
            skilldeck_store::storage::StorageError::Task("mount stopped".to_owned())
        })
    });
    // Asked whether the copy failed or not: a writer swapping the live folder mid-copy makes
    // files vanish under the walk (a copy error) or mixes revisions (no error), and both mean
    // the same thing — copy again from where the revision is now.
    if !still_valid() {
        return Err(MountError::SourceChanged);
    }
    match failed {
        Some(e) => Err(e),
        None => Ok(copied?),
    }
}

/// Copies one stored file `rel` (at `src`) into `dir` as `file`, kernel-side where the OS can,
/// keeping its mode. The source is opened without following a symlink or blocking on a FIFO,
/// and its size is counted against the limits from `fstat` before anything is copied.
fn copy_file(
    dir: &OwnedFd,
    file: &str,
    rel: &RelPath,
    src: &Path,
    meter: &mut LimitMeter,
    name: &SkillName,
) -> Result<(), MountError> {
    use std::io::Read as _;
    use std::os::unix::fs::PermissionsExt as _;
    let stored = |e: std::io::Error| {
        MountError::Source(skilldeck_store::storage::StorageError::Io {
            context: format!("could not read {rel} in the store"),
            source: e,
        })
    };
    // The one safe opener: never a link, never blocking on a pipe; a file replaced by something
    // else since the walk saw it (a writer at work) is refused.
    let (from, id) = skilldeck_store::safe_read::open_regular(src).map_err(|e| stored(std::io::Error::other(e)))?;
    meter.add(rel.as_str(), id.size).map_err(MountError::OverLimit)?;
    let into = format!("{}/{rel}", mount_path(name));
    let mode = Mode::from_raw_mode(from.metadata().map_err(stored)?.permissions().mode() & 0o777);
    let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let mut to = std::fs::File::from(rustix::fs::openat(dir, file, flags, mode).map_err(io("create", into.clone()))?);
    let limit = meter.limits().max_file_bytes;
    let mut from = from.take(limit.saturating_add(1));
    let copied = std::io::copy(&mut from, &mut to).map_err(|e| {
        if is_full(&e) {
            MountError::WorkspaceFull { doing: format!("copying {into}"), source: e }
        } else {
            MountError::Io { what: "copy", path: into.clone(), source: e }
        }
    })?;
    if copied > limit {
        return Err(MountError::OverLimit(LimitError::FileTooLarge { path: rel.to_string(), size: copied, limit }));
    }
    Ok(())
}

/// The descriptor of folder `rel` inside the staging root, made (parents first) if needed.
fn dir_fd<'a>(
    sandbox: &Sandbox,
    root: &OwnedFd,
    dirs: &'a mut HashMap<String, OwnedFd>,
    rel: &str,
) -> Result<&'a OwnedFd, Errno> {
    if !dirs.contains_key(rel) {
        let (parent_rel, name) = match rel.rsplit_once('/') {
            Some((p, n)) => (Some(p), n),
            None => (None, rel),
        };
        let fd = {
            let parent: &OwnedFd = match parent_rel {
                None => root,
                Some(p) => dir_fd(sandbox, root, dirs, p)?,
            };
            match rustix::fs::mkdirat(parent, name, Mode::from_raw_mode(0o755)) {
                Ok(()) | Err(Errno::EXIST) => {}
                Err(e) => return Err(e),
            }
            sandbox.open_at(parent, name, OFlags::RDONLY | OFlags::DIRECTORY, Mode::empty())?
        };
        dirs.insert(rel.to_owned(), fd);
    }
    dirs.get(rel).ok_or(Errno::NOENT)
}

/// Puts `staging` in place of `target`: an atomic exchange where there is an old mount.
fn swap(skills: &OwnedFd, staging: &str, target: &str, exists: bool) -> Result<(), MountError> {
    let shown = format!("{MOUNT_DIR}/{target}");
    if !exists {
        return match rustix::fs::renameat_with(skills, staging, skills, target, RenameFlags::NOREPLACE) {
            // Another session (a second client on this workspace) mounted it since we looked:
            // exchange with that mount, as with any previous one; the staging name then holds it.
            Err(Errno::EXIST | Errno::NOTEMPTY) => swap(skills, staging, target, true),
            r => r.map_err(io("move into place", shown)),
        };
    }
    match rustix::fs::renameat_with(skills, staging, skills, target, RenameFlags::EXCHANGE) {
        Ok(()) => Ok(()),
        Err(Errno::INVAL | Errno::NOSYS) => {
            // No atomic exchange on this file system: move the old mount aside first.
            let aside = format!("{staging}.old");
            rustix::fs::renameat(skills, target, skills, &aside).map_err(io("move aside", shown.clone()))?;
            if let Err(e) = rustix::fs::renameat(skills, staging, skills, target) {
                let _ = rustix::fs::renameat(skills, &aside, skills, target);
                return Err(io("move into place", shown)(e));
            }
            rustix::fs::renameat(skills, &aside, skills, staging).map_err(io("clean up", shown))
        }
        Err(e) => Err(io("swap in", shown)(e)),
    }
}

/// Undoes a `swap` whose record could not follow: the previous mount goes back in place (an
/// exchange again), or a first mount is moved back to the staging name, which is then removed.
fn unswap(skills: &OwnedFd, staging: &str, target: &str, exists: bool) -> Result<(), MountError> {
    if exists { swap(skills, staging, target, true) } else { swap(skills, target, staging, false) }
}
