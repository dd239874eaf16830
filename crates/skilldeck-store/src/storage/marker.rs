//! Markers beside the store: the staging entries a write or a delete keeps in the scope folder
//! until its revision is logged, and the delete lines they hold until the log takes them.
//! Holds their names, making and finishing them; not the writes and deletes that leave them.

use super::error::{Result, StorageError};
use super::history::{self, LogLine, RevisionEvent};
use skilldeck_skill::name::SkillName;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// The prefix of staging folders inside a scope folder.
pub(crate) const STAGING_PREFIX: &str = ".staging-";

/// A fresh staging entry path for `name` in `scope_dir`, noted in the journal before the
/// caller makes it (see `journal`).
pub(crate) fn staging_path(scope_dir: &Path, name: &SkillName) -> Result<PathBuf> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let file_name = format!("{STAGING_PREFIX}{}-{n}-{name}", std::process::id());
    super::journal::note(scope_dir, name.as_str(), &file_name)?;
    Ok(scope_dir.join(file_name))
}

/// The skill name a staging folder belongs to.
pub(crate) fn staging_owner(file_name: &str) -> Option<&str> {
    let rest = file_name.strip_prefix(STAGING_PREFIX)?;
    let mut parts = rest.splitn(3, '-');
    parts.next()?;
    parts.next()?;
    parts.next()
}

/// The empty staging entry a write keeps until its revision is logged. A writer that stops
/// before (killed, or the log cannot be written) leaves it, and recovery then logs the revision
/// from its record.
pub(crate) struct Marker(PathBuf);

impl Marker {
    /// Creates a marker for a write of `name` in the scope folder `scope_dir`.
    pub(crate) fn create(scope_dir: &Path, name: &SkillName) -> Result<Self> {
        let path = staging_path(scope_dir, name)?;
        fs::write(&path, b"").map_err(StorageError::io("create the write marker", &path))?;
        Ok(Self(path))
    }

    /// A marker that also holds `line`, a log line still to be written (a delete's): should the
    /// log not take it, recovery or the skill's next write appends it from here.
    pub(crate) fn holding(scope_dir: &Path, name: &SkillName, line: &LogLine) -> Result<Self> {
        let path = staging_path(scope_dir, name)?;
        let json = serde_json::to_vec(line).map_err(|e| StorageError::Task(e.to_string()))?;
        fs::write(&path, json).map_err(StorageError::io("create the write marker", &path))?;
        Ok(Self(path))
    }

    /// The revision is logged: the marker goes.
    pub(crate) fn done(self) {
        let _ = fs::remove_file(&self.0);
    }

    /// The write failed before its revision went live: the marker goes, and `e` is returned.
    pub(crate) fn fail(self, e: StorageError) -> StorageError {
        self.done();
        e
    }
}

/// The deletes in the scope folder `scope_dir` whose log line is not written yet, oldest first:
/// each skill's name, its marker and the line.
pub(crate) fn pending(scope_dir: &Path) -> Vec<(SkillName, PathBuf, LogLine)> {
    let Ok(entries) = fs::read_dir(scope_dir) else {
        return Vec::new();
    };
    let mut out: Vec<(SkillName, PathBuf, LogLine)> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|e| {
            let file_name = e.file_name().into_string().ok()?;
            let name = SkillName::parse(staging_owner(&file_name)?).ok()?;
            // Markers of writes are empty; a sidecar being replaced holds no delete.
            let line: LogLine = serde_json::from_slice(&fs::read(e.path()).ok()?).ok()?;
            (line.event == RevisionEvent::Delete).then_some((name, e.path(), line))
        })
        .collect();
    out.sort_by_key(|(_, _, line)| line.revision);
    out
}

/// The file a delete leaves in the skill's history folder while its line may wait in a marker
/// beside the store. A write looks for it (one lookup) before it reads the whole scope folder
/// for markers: that read, once per write, made each write cost more the more skills there were.
pub(crate) const PENDING_HINT: &str = ".delete-pending";

/// Writes the pending delete lines of the skill whose live folder is `live` to its log, and
/// removes their markers, when a delete left the hint that one may be pending (recovery, which
/// starts from the markers themselves, finishes any other). The caller holds the skill's lock.
pub(crate) fn finish_pending(history_dir: &Path, live: &Path) -> Result<()> {
    let hint = history_dir.join(PENDING_HINT);
    if fs::symlink_metadata(&hint).is_err() {
        return Ok(());
    }
    finish_pending_scan(history_dir, live)
}

/// `finish_pending` without the hint: reads the scope folder for markers. For recovery, and
/// for markers a version without hints left.
pub(crate) fn finish_pending_scan(history_dir: &Path, live: &Path) -> Result<()> {
    let (Some(scope_dir), Some(name)) = (live.parent(), live.file_name().and_then(|n| n.to_str())) else {
        return Ok(());
    };
    let done = history::read_log(history_dir);
    for (_, marker, line) in pending(scope_dir).into_iter().filter(|(n, _, _)| n.as_str() == name) {
        if !done.iter().any(|l| l.event == RevisionEvent::Delete && l.revision == line.revision) {
            history::append(history_dir, &line)?;
        }
        fs::remove_file(&marker).map_err(StorageError::io("remove leftover", &marker))?;
    }
    let _ = fs::remove_file(history_dir.join(PENDING_HINT));
    Ok(())
}
