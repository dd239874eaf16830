//! Reading one skill from a folder on disk: every regular file beneath it, links refused.
//! Holds the folder reader; not archives (`archive`) nor finding skills in a tree (`discover`).

use super::error::{ImportError, io_err};
use super::loaded::Progress;
use crate::safe_read::{self, ReadError};
use skilldeck_skill::files::{LimitError, LimitMeter, SkillFiles, UploadLimits};
use skilldeck_skill::relpath::RelPath;
use std::fs;
use std::path::Path;

/// Whether a folder named `name` is never searched for skills: hidden ones (`.git`, `.github`),
/// `node_modules`, and the resource forks macOS puts in archives.
pub(crate) fn passed_over(name: &str) -> bool {
    name.starts_with('.') || name == "node_modules" || name == "__MACOSX"
}

/// Names passed over when importing a folder, wherever they are in it: tool and OS litter and
/// the store's sidecars, never part of a skill (so never in the store).
pub const IGNORED: &[&str] = &[
    ".git",
    ".DS_Store",
    "Thumbs.db",
    "__MACOSX",
    skilldeck_skill::files::VERSION_FILE,
    skilldeck_skill::files::RECORD_FILE,
];

/// Reads a folder: every regular file, refusing links and special files, within the limits.
pub(crate) fn read_folder(
    root: &Path,
    limits: UploadLimits,
    progress: Progress<'_>,
) -> Result<(SkillFiles, Vec<String>), ImportError> {
    let mut meter = LimitMeter::new(limits);
    let mut found: Vec<(RelPath, u64)> = Vec::new();
    let mut skipped = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).map_err(io_err(&dir))? {
            let entry = entry.map_err(io_err(&dir))?;
            let path = entry.path();
            let rel_path = path.strip_prefix(root).unwrap_or(&path);
            let shown = rel_path.display().to_string();
            if entry.file_name().to_str().is_some_and(|n| IGNORED.contains(&n)) {
                skipped.push(shown);
                continue;
            }
            let meta = fs::symlink_metadata(&path).map_err(io_err(&path))?;
            let ft = meta.file_type();
            if ft.is_symlink() {
                return Err(ImportError::Hostile {
                    entry: shown,
                    reason: "symbolic links are refused; copy the file in instead".into(),
                });
            }
            if ft.is_dir() {
                stack.push(path);
                continue;
            }
            if !ft.is_file() {
                return Err(ImportError::Hostile {
                    entry: shown,
                    reason: "only regular files can be part of a skill".into(),
                });
            }
            let rel = RelPath::from_path(rel_path)
                .map_err(|e| ImportError::Hostile { entry: shown.clone(), reason: e.to_string() })?;
            meter.add(rel.as_str(), meta.len())?;
            found.push((rel, meta.len()));
        }
    }
    let total: u64 = found.iter().map(|(_, s)| s).sum();
    let mut done = 0;
    let mut files = SkillFiles::new();
    for (rel, _) in found {
        let bytes = read_entry(root, &rel, limits.max_file_bytes)?;
        done += bytes.len() as u64;
        progress(done, total);
        files.insert(rel, bytes);
    }
    files.check_limits(limits)?;
    Ok((files, skipped))
}

/// Reads one file of a source folder through the one safe reader: no link is followed on the
/// way, only a regular file is read, and never more than `limit` bytes (it may have grown or
/// been swapped since it was listed).
fn read_entry(root: &Path, rel: &RelPath, limit: u64) -> Result<Vec<u8>, ImportError> {
    let hostile = |entry: String, reason: String| ImportError::Hostile { entry, reason };
    match safe_read::read_beneath(root, rel, limit) {
        Ok(f) => Ok(f.bytes),
        Err(ReadError::TooLarge { path, size, limit }) => Err(LimitError::FileTooLarge { path, size, limit }.into()),
        Err(ReadError::Io { path, source }) => Err(ImportError::Io { path: path.into(), source }),
        Err(e @ (ReadError::Symlink { .. } | ReadError::NotRegular { .. })) => {
            Err(hostile(rel.to_string(), e.to_string()))
        }
        Err(e @ (ReadError::NotFound { .. } | ReadError::Folder { .. })) => {
            Err(hostile(rel.to_string(), format!("it changed while it was read ({e})")))
        }
    }
}
