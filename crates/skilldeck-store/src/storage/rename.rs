//! The rename path: a skill's last revision written again under a new name, its history moved
//! to that name, and the old live folder gone. Holds the order of those steps under both
//! skills' locks; not the locks themselves (`fs`) nor what follows the skill outside the store.
//!
//! The order keeps a whole skill on disk at every point a crash can cut it:
//! 1. NEW is written as an ordinary revision (stage, flush, swap), numbered after OLD's last
//!    revision and logged `renamed` in NEW's history. A crash before the swap leaves OLD alone
//!    (recovery finishes or drops the staged tree like any write's); after it, OLD and NEW are
//!    both whole, NEW with this one revision.
//! 2. OLD's kept revisions move into NEW's history folder one by one (each a rename within the
//!    history folder), then NEW's log becomes OLD's lines followed by its own (written beside,
//!    renamed over). A crash between leaves every revision's files in one of the two folders;
//!    NEW's history shows a moved one from the record it carries, and its next write logs it.
//! 3. OLD's live folder goes: into NEW's history as the copy of OLD's last revision when that
//!    copy is missing (one rename), else renamed aside into NEW's history folder under a hidden
//!    name and removed. Never through a staging name: recovery would take a staged tree whose
//!    live folder is gone for a swap cut short and put OLD back. No `delete` line is written:
//!    OLD was not deleted, it is NEW. A crash before this leaves OLD's content live beside NEW,
//!    which is whole with all its history.
//! 4. OLD's history folder (now only its log) goes. A crash before leaves a log under OLD with
//!    no files, which only keeps the name OLD from being renamed to (`name_has_history`).

use super::adopt;
use super::error::{Result, StorageError};
use super::history::{self, RevisionEvent};
use super::record;
use super::scan;
use super::write;
use crate::home::SkilldeckHome;
use serde::Serialize;
use skilldeck_skill::digest::Digest;
use skilldeck_skill::files::{SkillFiles, UploadLimits};
use skilldeck_skill::name::SkillName;
use skilldeck_skill::name_field::with_name;
use skilldeck_skill::relpath::RelPath;
use skilldeck_skill::scope::{Revision, Scope};
use skilldeck_skill::validate::{self, ValidateOptions};
use std::fs;
use std::path::Path;

/// What a rename did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RenameOutcome {
    /// The name it had.
    pub from: SkillName,
    /// The name it has now.
    pub name: SkillName,
    /// The scope.
    pub scope: Scope,
    /// OLD's last revision, the one written again under the new name.
    pub from_revision: Revision,
    /// That revision's content digest (before the `name` was rewritten).
    pub from_digest: Digest,
    /// The new revision under the new name.
    pub revision: Revision,
    /// Its digest.
    pub digest: Digest,
    /// How many of OLD's kept revisions moved into the new name's history.
    pub moved: usize,
    /// Bookkeeping that failed once the new name was live (a kept revision or the log not
    /// moved, the old folder not removed). The rename stands; each says what is left.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// Whether `new` may be taken in `scope`: no live folder and no history of its own.
pub(crate) fn check_free(home: &SkilldeckHome, scope: Scope, new: &SkillName) -> Result<()> {
    if fs::symlink_metadata(home.skill_dir(scope, new)).is_ok() {
        return Err(StorageError::NameTaken { scope, name: new.to_string() });
    }
    let hist = home.history_dir(scope, new);
    let log = history::read_log(&hist);
    if !log.is_empty() || history::highest(&hist).is_some() {
        let deleted = log.last().filter(|l| l.event == RevisionEvent::Delete).map(|l| l.revision);
        return Err(StorageError::NameHasHistory { scope, name: new.to_string(), deleted });
    }
    Ok(())
}

/// `files` with `SKILL.md`'s frontmatter `name` set to `new`; refused when it is not text or
/// does not read back with that name.
fn renamed_files(files: &SkillFiles, from: &SkillName, new: &SkillName) -> Result<SkillFiles> {
    let refuse = |reason: &str| StorageError::RenameRefused {
        from: from.to_string(),
        to: new.to_string(),
        reason: reason.to_owned(),
    };
    let text = files
        .skill_md()
        .ok_or(StorageError::NoSkillMd)
        .and_then(|b| std::str::from_utf8(b).map_err(|_| refuse("its SKILL.md is not UTF-8 text")))?;
    let rewritten = with_name(text, new.as_str());
    let found = validate::validate_bytes(Some(rewritten.as_bytes()), ValidateOptions::default()).meta.name;
    if found.as_deref().is_some_and(|n| n != new.as_str()) {
        return Err(refuse("its SKILL.md's frontmatter `name` could not be rewritten; edit it by hand"));
    }
    let mut out = SkillFiles::new();
    for (rel, bytes) in files.iter() {
        out.insert(rel.clone(), bytes.to_vec());
    }
    let skill_md = RelPath::parse("SKILL.md").map_err(|e| StorageError::Task(e.to_string()))?;
    out.insert(skill_md, rewritten.into_bytes());
    Ok(out)
}

/// Renames the skill `from` (live folder `dir`) to `new` in `scope`. The caller holds both
/// skills' locks and has checked the scope is writable.
pub(crate) fn rename_locked(
    home: &SkilldeckHome,
    scope: Scope,
    from: &SkillName,
    new: &SkillName,
    dir: &Path,
    limits: UploadLimits,
) -> Result<RenameOutcome> {
    if from == new {
        return Err(StorageError::RenameRefused {
            from: from.to_string(),
            to: new.to_string(),
            reason: "that is already its name".to_owned(),
        });
    }
    check_free(home, scope, new)?;
    let old_hist = home.history_dir(scope, from);
    let new_hist = home.history_dir(scope, new);
    // An edit made in place and not yet adopted becomes OLD's own revision first, so history
    // keeps it (as a delete does); best effort: the snapshot below reads the live files anyway.
    let _ = adopt::adopt_locked(home, scope, from, dir, limits.max_file_bytes);
    let _ = record::reconcile(&old_hist, dir);
    let snap = scan::snapshot(dir, limits.max_file_bytes)?;
    let from_digest = snap.files.digest();
    let files = renamed_files(&snap.files, from, new)?;
    files.check_limits(limits)?;
    let revision = write::next_revision(home, scope, from);
    let from_revision = snap.revision.unwrap_or(Revision(revision.0.saturating_sub(1)));

    // 1. NEW, written as an ordinary revision numbered after OLD's.
    let event = RevisionEvent::Renamed { from: from.to_string() };
    let staged = write::prepare(home, scope, new, &files, event, Some(revision))?;
    write::flush(home.scope_dir(scope).as_path());
    let written = staged.commit()?;
    let mut warnings = written.warnings;
    write::crash_point("renamed_written");

    // 2. OLD's kept revisions, then its log, into NEW's history.
    let mut moved = 0;
    for rev in history::stored(&old_hist) {
        let (src, dst) = (history::rev_dir(&old_hist, rev), history::rev_dir(&new_hist, rev));
        if dst.exists() {
            continue;
        }
        match fs::rename(&src, &dst) {
            Ok(()) => moved += 1,
            Err(e) => warnings.push(format!("revision {rev} of {from} stays in {} ({e})", old_hist.display())),
        }
    }
    write::crash_point("renamed_moved");
    let mut lines = history::read_log(&old_hist);
    lines.extend(history::read_log(&new_hist));
    let log_moved = history::replace_log(&new_hist, &lines);
    if let Err(e) = &log_moved {
        warnings.push(format!("{new}'s history log does not list {from}'s revisions yet ({e})"));
    }

    // 3. OLD's live folder: the copy of its last revision when history lacks one, else gone.
    let kept = history::rev_dir(&new_hist, from_revision);
    let gone = new_hist.join(format!(".renamed-{from}-{}", std::process::id()));
    let aside = if kept.exists() { &gone } else { &kept };
    match fs::rename(dir, aside) {
        // A cut removal leaves a hidden folder in NEW's history, which no listing reads.
        Ok(()) if aside == &gone => {
            let _ = fs::remove_dir_all(&gone);
        }
        Ok(()) => {}
        Err(e) => warnings.push(format!("{} was not removed ({e}); delete it by hand", dir.display())),
    }
    write::crash_point("renamed_removed");

    // 4. OLD's history folder, now holding only its log.
    if log_moved.is_ok() && fs::symlink_metadata(dir).is_err() && history::stored(&old_hist).is_empty() {
        let _ = fs::remove_dir_all(&old_hist);
    }
    Ok(RenameOutcome {
        from: from.clone(),
        name: new.clone(),
        scope,
        from_revision,
        from_digest,
        revision: written.revision,
        digest: written.digest,
        moved,
        warnings,
    })
}
