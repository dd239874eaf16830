//! The audit of skills the store holds or is about to hold: a loaded skill's files in memory,
//! or a stored skill read once from its folder. Holds the reading; the rules and findings are
//! `skilldeck-audit`'s, and whether a finding holds a skill back is the registry's.

use crate::storage::{FsStorage, Scope, StorageError};
use skilldeck_audit::{Auditor, Report};
use skilldeck_skill::files::SkillFiles;

/// The audit of a skill's files, as an import holds them before writing.
pub fn audit_files(files: &SkillFiles) -> Report {
    audit_with_skipped(files, &[])
}

/// The same, with the entries the reader passed over (links, special files) reported as
/// files the audit could not read: never silence.
pub fn audit_with_skipped(files: &SkillFiles, skipped: &[String]) -> Report {
    let mut a = Auditor::new();
    for (path, bytes) in files.iter() {
        let cap = a.cap();
        a.file(path.as_str(), bytes.get(..cap).unwrap_or(bytes), bytes.len() as u64);
    }
    for entry in skipped {
        a.unreadable(entry, "a link or special file: it was not read (links are never followed)");
    }
    a.finish()
}

/// The audit of the stored skill in folder `dir_name` of `scope`, its files read once.
pub fn audit_stored(storage: &FsStorage, scope: Scope, dir_name: &str) -> Result<Report, StorageError> {
    let snapshot = storage.snapshot_dir(scope, dir_name)?;
    Ok(audit_with_skipped(&snapshot.files, &snapshot.skipped))
}
