//! Writing a settings file safely: a backup of the old bytes first, then the new bytes through
//! a temporary file renamed over the old one, its permissions kept. Knows no format.

use super::locations::with_suffix;
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use time::OffsetDateTime;
use time::macros::format_description;

/// The name of a backup of `path` made now: `<file>.skilldeck-backup-<UTC timestamp>`, with a
/// counter when one of that second already exists.
fn backup_path(path: &Path) -> PathBuf {
    let stamp = OffsetDateTime::now_utc()
        .format(format_description!("[year][month][day]T[hour][minute][second]Z"))
        .unwrap_or_else(|_| "now".into());
    let first = with_suffix(path, &format!(".skilldeck-backup-{stamp}"));
    let mut candidate = first.clone();
    let mut n = 1;
    while candidate.exists() {
        n += 1;
        candidate = with_suffix(&first, &format!("-{n}"));
    }
    candidate
}

/// Copies `old` (the file's current bytes) to a new backup beside `path`, with the file's
/// permissions from its creation on (a settings file often holds other servers' keys), and
/// returns the backup's path. When those cannot be read, the backup is the owner's alone.
pub fn backup(path: &Path, old: &[u8]) -> std::io::Result<PathBuf> {
    use std::os::unix::fs::{OpenOptionsExt as _, PermissionsExt as _};
    let to = backup_path(path);
    let mode = fs::metadata(path).map_or(0o600, |m| m.permissions().mode() & 0o777);
    let mut f = fs::OpenOptions::new().write(true).create_new(true).mode(mode).open(&to)?;
    // The umask may have narrowed `mode` at creation; never widened it.
    f.set_permissions(fs::Permissions::from_mode(mode))?;
    f.write_all(old)?;
    f.sync_all()?;
    Ok(to)
}

/// Replaces `path`'s content with `new` atomically (a reader sees the old file or the new one),
/// keeping its permissions; creates it (and its folder) when missing.
pub fn atomic_write(path: &Path, new: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    fs::create_dir_all(dir)?;
    let mut tmp = tempfile::Builder::new().prefix(".skilldeck-").suffix(".tmp").tempfile_in(dir)?;
    tmp.write_all(new)?;
    tmp.as_file().sync_all()?;
    if let Ok(meta) = fs::metadata(path) {
        fs::set_permissions(tmp.path(), meta.permissions())?;
    }
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}
