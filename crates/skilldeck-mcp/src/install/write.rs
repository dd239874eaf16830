//! Writing a settings file safely: a backup of the old bytes first (a bounded number kept), then
//! the new bytes through a temporary file renamed over the old one, its permissions kept, or in
//! place for a file with other hard links. Knows no format.

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

/// The start of the names of `path`'s backups.
fn backup_prefix(path: &Path) -> Option<String> {
    Some(format!("{}.skilldeck-backup-", path.file_name()?.to_str()?))
}

/// Where a backup's name sorts among its siblings: its timestamp, then its counter.
fn backup_order(rest: &str) -> (String, u64) {
    match rest.split_once('-') {
        Some((stamp, n)) => (stamp.to_owned(), n.parse().unwrap_or(0)),
        None => (rest.to_owned(), 1),
    }
}

/// Deletes `path`'s backups beyond the newest `keep` (the one named `newest` always kept).
/// Best effort: a backup that cannot be deleted stays.
fn prune_backups(path: &Path, newest: &Path, keep: usize) {
    let (Some(dir), Some(prefix)) = (path.parent(), backup_prefix(path)) else { return };
    let Ok(entries) = fs::read_dir(dir) else { return };
    let mut older: Vec<((String, u64), PathBuf)> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let order = backup_order(name.strip_prefix(&prefix)?);
            Some((order, e.path()))
        })
        .filter(|(_, p)| p != newest)
        .collect();
    older.sort();
    let excess = older.len().saturating_sub(keep.saturating_sub(1));
    for (_, p) in older.into_iter().take(excess) {
        let _ = fs::remove_file(p);
    }
}

/// Copies `old` (the file's current bytes) to a new backup beside `path`, with the file's
/// permissions from its creation on (a settings file often holds other servers' keys), and
/// returns the backup's path. When those cannot be read, the backup is the owner's alone.
/// Only the newest `keep` backups of the file stay.
pub fn backup(path: &Path, old: &[u8], keep: usize) -> std::io::Result<PathBuf> {
    use std::os::unix::fs::{OpenOptionsExt as _, PermissionsExt as _};
    let to = backup_path(path);
    let mode = fs::metadata(path).map_or(0o600, |m| m.permissions().mode() & 0o777);
    let mut f = fs::OpenOptions::new().write(true).create_new(true).mode(mode).open(&to)?;
    // The umask may have narrowed `mode` at creation; never widened it.
    f.set_permissions(fs::Permissions::from_mode(mode))?;
    f.write_all(old)?;
    f.sync_all()?;
    prune_backups(path, &to, keep);
    Ok(to)
}

/// Overwrites `path`'s content with `new` in place, for a file with other hard links: a rename
/// would give `path` a new file and leave its twins with the old one. Not atomic; the backup
/// written first holds the old bytes.
pub fn write_in_place(path: &Path, new: &[u8]) -> std::io::Result<()> {
    let mut f = fs::OpenOptions::new().write(true).truncate(true).open(path)?;
    f.write_all(new)?;
    f.sync_all()
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
