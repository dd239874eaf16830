//! Mounting: copying one revision of a skill into a workspace at `.skills/<name>/`, all or nothing.
//! Holds staging, the swap and the mount record; not which revision to mount (`view_skill`).

use crate::name::SkillName;
use crate::sandbox::{Sandbox, SandboxError, remove_tree_at, write_file_at};
use crate::storage::{Revision, Scope};
use rustix::fd::OwnedFd;
use rustix::fs::{AtFlags, FileType, Mode, OFlags, RenameFlags};
use rustix::io::Errno;
use serde::{Deserialize, Serialize};
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
    Source(#[from] crate::storage::StorageError),
    /// The sandbox refused or failed.
    #[error(transparent)]
    Sandbox(#[from] SandboxError),
    /// Something that is not a folder stands where the mount goes.
    #[error("{path} exists and is not a folder; move it away and call view_skill again")]
    InTheWay {
        /// The path in the workspace.
        path: String,
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

fn io(what: &'static str, path: String) -> impl FnOnce(Errno) -> MountError {
    move |e| MountError::Io { what, path, source: e.into() }
}

/// The workspace path of a skill's mount.
pub fn mount_path(name: &SkillName) -> String {
    format!("{MOUNT_DIR}/{name}")
}

fn record_name(name: &SkillName) -> String {
    format!(".{name}.mount.json")
}

/// The record of the current mount of `name`, if any.
pub fn read_record(sandbox: &Sandbox, name: &SkillName) -> Option<MountRecord> {
    let bytes = sandbox.read(&format!("{MOUNT_DIR}/{}", record_name(name)), 64 * 1024).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// Copies the stored revision in folder `src` to `.skills/<name>/`, file by file in the kernel:
/// staged beside the target, then swapped in. `still_valid` is asked after copying, before the
/// swap, whether the copy succeeded or failed; `false` (a writer replaced a live folder
/// meanwhile) discards the copy with `SourceChanged`, never with the copy's own error. On any failure the staging is removed and the previous mount (or its
/// absence) stands.
pub fn mount(
    sandbox: &Sandbox,
    name: &SkillName,
    src: &Path,
    still_valid: &dyn Fn() -> bool,
    record: &MountRecord,
) -> Result<(), MountError> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let skills = sandbox.create_dir_all(MOUNT_DIR).map_err(|e| match e {
        SandboxError::WrongKind { .. } => MountError::InTheWay { path: MOUNT_DIR.to_owned() },
        e => e.into(),
    })?;
    let target = name.as_str();
    let exists = match rustix::fs::statat(&skills, target, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(st) if FileType::from_raw_mode(st.st_mode) == FileType::Directory => true,
        Ok(_) => return Err(MountError::InTheWay { path: mount_path(name) }),
        Err(Errno::NOENT) => false,
        Err(e) => return Err(io("inspect", mount_path(name))(e)),
    };
    let staging = format!(".staging-{name}-{}-{}", std::process::id(), COUNTER.fetch_add(1, Ordering::Relaxed));
    let staged = stage(sandbox, &skills, &staging, src, still_valid);
    let swapped = staged.and_then(|()| swap(&skills, &staging, target, exists));
    // After a swap the staging name holds the old mount; either way it goes.
    let _ = remove_tree_at(&skills, &staging);
    swapped?;
    let json = serde_json::to_vec(record).map_err(|e| MountError::Io {
        what: "record",
        path: mount_path(name),
        source: std::io::Error::other(e),
    })?;
    write_file_at(&skills, &record_name(name), &json, Mode::from_raw_mode(0o644))
        .map_err(io("record", mount_path(name)))
}

/// Copies every file into `.skills/<staging>/`, creating folders beneath it only.
fn stage(
    sandbox: &Sandbox,
    skills: &OwnedFd,
    staging: &str,
    src: &Path,
    still_valid: &dyn Fn() -> bool,
) -> Result<(), MountError> {
    let shown = format!("{MOUNT_DIR}/{staging}");
    rustix::fs::mkdirat(skills, staging, Mode::from_raw_mode(0o755)).map_err(io("create", shown.clone()))?;
    let root = sandbox
        .open_at(skills, staging, OFlags::RDONLY | OFlags::DIRECTORY, Mode::empty())
        .map_err(io("open", shown.clone()))?;
    let mut dirs: HashMap<String, OwnedFd> = HashMap::new();
    let mut parent_of = |rel: &str| -> Result<(Option<OwnedFd>, String), MountError> {
        match rel.rsplit_once('/') {
            None => Ok((None, rel.to_owned())),
            Some((p, f)) => {
                let fd = dir_fd(sandbox, &root, &mut dirs, p).map_err(io("create", format!("{shown}/{p}")))?;
                let dup = rustix::io::dup(fd).map_err(io("open", format!("{shown}/{p}")))?;
                Ok((Some(dup), f.to_owned()))
            }
        }
    };
    let copied = crate::storage::tree::walk(src, &mut Vec::new(), &mut |rel, from, meta| {
        let (dir, file) = parent_of(rel.as_str()).map_err(|e| crate::storage::StorageError::Task(e.to_string()))?;
        copy_file(dir.as_ref().unwrap_or(&root), &file, from, meta).map_err(|e| crate::storage::StorageError::Io {
            context: format!("could not copy {rel} into {shown}"),
            source: e,
        })
    });
    // Asked whether the copy failed or not: a writer swapping the live folder mid-copy makes
    // files vanish under the walk (a copy error) or mixes revisions (no error), and both mean
    // the same thing — copy again from where the revision is now.
    if !still_valid() {
        return Err(MountError::SourceChanged);
    }
    Ok(copied?)
}

/// Copies one stored file into `dir` (kernel-side where the OS can), keeping its mode.
fn copy_file(dir: &OwnedFd, name: &str, src: &Path, meta: &std::fs::Metadata) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    let mode = Mode::from_raw_mode(meta.permissions().mode() & 0o777);
    let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let mut to = std::fs::File::from(rustix::fs::openat(dir, name, flags, mode)?);
    // The one safe opener: a file swapped for a link or a pipe since the walk is refused.
    let (mut from, _) = crate::safe_read::open_regular(src).map_err(std::io::Error::other)?;
    std::io::copy(&mut from, &mut to).map(|_| ())
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
        return rustix::fs::renameat_with(skills, staging, skills, target, RenameFlags::NOREPLACE)
            .map_err(io("move into place", shown));
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
