//! The team scope's two writers: materialising a team store's revision, and removing a skill
//! the team store no longer has. Holds nothing of the store itself (`skilldeck-remote` does).
//!
//! The team scope is an ordinary scope folder, `skills/team/<name>/`, so the registry, the
//! listing, `view_skill` and the sandboxed mount read it like any other, offline too. Its
//! `.version` holds the team store's revision number, not a local count; local writes are
//! refused (`Scope::is_read_only`), so only these calls change it.

use super::delete::DeleteOutcome;
use super::error::{Result, StorageError};
use super::fs::FsStorage;
use super::history::RevisionEvent;
use super::lock::SkillLock;
use super::write::{self, WriteOutcome};
use skilldeck_skill::files::SkillFiles;
use skilldeck_skill::name::SkillName;
use skilldeck_skill::scope::{Revision, Scope};

impl FsStorage {
    /// Stores `files` in the team scope as revision `revision`, the number the team store gave
    /// them, with every guarantee of `write_skill` (staged, flushed, swapped whole; the replaced
    /// revision to history). `None` when the skill already holds that revision with that content.
    pub fn mirror_team_skill(
        &self,
        name: &SkillName,
        files: &SkillFiles,
        revision: Revision,
    ) -> Result<Option<WriteOutcome>> {
        files.check_limits(self.limits())?;
        if files.skill_md().is_none() {
            return Err(StorageError::NoSkillMd);
        }
        let _lock = SkillLock::acquire(self.home(), Scope::Team, name)?;
        if self.revision_sync(Scope::Team, name).ok().flatten() == Some(revision)
            && self.digest_dir(Scope::Team, name.as_str()).ok() == Some(files.digest())
        {
            return Ok(None);
        }
        let staged = write::prepare(self.home(), Scope::Team, name, files, RevisionEvent::Mirrored, Some(revision))?;
        write::flush(&self.home().scope_dir(Scope::Team));
        staged.commit().map(Some)
    }

    /// Removes a skill from the team scope because the team store no longer has it (moved to
    /// the local history like any delete). `None` when it was not there.
    pub fn remove_team_skill(&self, name: &SkillName) -> Result<Option<DeleteOutcome>> {
        let _lock = SkillLock::acquire(self.home(), Scope::Team, name)?;
        let dir = self.skill_dir(Scope::Team, name);
        if !dir.is_dir() {
            return Ok(None);
        }
        super::delete::delete_locked(self.home(), Scope::Team, name, &dir, self.limits().max_file_bytes).map(Some)
    }
}
