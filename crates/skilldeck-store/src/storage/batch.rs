//! Batched writes: many skills into one scope under one lock, flushed to disk once.
//! Holds `WriteBatch`; each skill's own staging and swap are `write`'s, unchanged.
//!
//! A batch stages every skill beside its live folder, flushes the file system once, then swaps
//! each staged tree in. The guarantees of a single write hold for each skill of a batch: a
//! reader sees the old revision or the new one whole, a crash leaves one of them after the next
//! start, the replaced revision goes to history. What a batch saves is the per-skill lock and
//! `syncfs`, the cost that dominated importing a collection.

use super::error::{Result, StorageError};
use super::fs::FsStorage;
use super::history::RevisionEvent;
use super::lock::ScopeLock;
use super::write::{self, Staged, WriteOutcome};
use skilldeck_skill::files::SkillFiles;
use skilldeck_skill::name::SkillName;
use skilldeck_skill::scope::{Revision, Scope};
use std::collections::HashSet;

/// What a batch did for one skill: its new revision, or why it was not written.
pub type BatchResult = (SkillName, Result<WriteOutcome>);

/// Writes of many skills into one scope, made by `FsStorage::batch`.
///
/// The batch holds the scope's lock exclusively from its start until it is committed or
/// dropped: writers of single skills in that scope (in this process or another) wait, and
/// a recovery started meanwhile leaves the scope to the batch. `stage` writes each skill
/// beside its live folder; `commit` flushes once and swaps every staged skill in. A batch
/// dropped without `commit` removes what it staged and writes nothing.
pub struct WriteBatch<'a> {
    storage: &'a FsStorage,
    scope: Scope,
    event: RevisionEvent,
    pending: Vec<Staged>,
    names: HashSet<SkillName>,
    committed: Vec<BatchResult>,
    _lock: ScopeLock,
}

impl std::fmt::Debug for WriteBatch<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WriteBatch")
            .field("scope", &self.scope)
            .field("event", &self.event)
            .field("staged", &self.pending.len())
            .field("committed", &self.committed.len())
            .finish()
    }
}

impl FsStorage {
    /// Starts a batch of writes into `scope`, each recorded as made by `event`. Blocks until
    /// no other writer holds the scope.
    pub fn batch(&self, scope: Scope, event: RevisionEvent) -> Result<WriteBatch<'_>> {
        let lock = ScopeLock::exclusive(self.home(), scope)?;
        Ok(WriteBatch {
            storage: self,
            scope,
            event,
            pending: Vec::new(),
            names: HashSet::new(),
            committed: Vec::new(),
            _lock: lock,
        })
    }
}

impl WriteBatch<'_> {
    /// The scope written to.
    pub fn scope(&self) -> Scope {
        self.scope
    }

    /// How many skills are staged and not yet committed.
    pub fn staged(&self) -> usize {
        self.pending.len()
    }

    /// Stages `files` as the next revision of `name`, with the checks of `write_skill` (the
    /// upload limits, a `SKILL.md` at the top). Bumps on every call, like `write_skill`: a
    /// caller that must not store an identical tree compares before staging. A skill staged
    /// twice in one batch gets two consecutive revisions: the writes staged so far are
    /// committed before the second is staged. An error leaves nothing of this skill behind.
    pub fn stage(&mut self, name: &SkillName, files: &SkillFiles) -> Result<()> {
        if self.scope.is_read_only() {
            return Err(StorageError::ReadOnlyScope { scope: self.scope });
        }
        self.stage_as(name, files, None)
    }

    /// Stages `files` as the next revision of `name` like `stage`, recorded as made by `event`
    /// rather than the batch's own (each skill of a source import has its own provenance).
    pub fn stage_as_event(&mut self, name: &SkillName, files: &SkillFiles, event: RevisionEvent) -> Result<()> {
        if self.scope.is_read_only() {
            return Err(StorageError::ReadOnlyScope { scope: self.scope });
        }
        let batch_event = std::mem::replace(&mut self.event, event);
        let staged = self.stage_as(name, files, None);
        self.event = batch_event;
        staged
    }

    /// Stages `files` as revision `revision` of `name` in the team scope: the number its team
    /// store gave it, so the local `.version` says what the team sees (see `mirror_team_skill`).
    /// Refused in any other scope, where revisions are only ever the next one.
    pub fn stage_team(&mut self, name: &SkillName, files: &SkillFiles, revision: Revision) -> Result<()> {
        if self.scope != Scope::Team {
            return Err(StorageError::NotTeamScope { scope: self.scope });
        }
        self.stage_as(name, files, Some(revision))
    }

    fn stage_as(&mut self, name: &SkillName, files: &SkillFiles, at: Option<Revision>) -> Result<()> {
        files.check_limits(self.storage.limits())?;
        if files.skill_md().is_none() {
            return Err(StorageError::NoSkillMd);
        }
        if self.names.contains(name) {
            self.commit_pending(&mut |_| {});
        }
        let staged = write::prepare(self.storage.home(), self.scope, name, files, self.event.clone(), at)?;
        self.names.insert(name.clone());
        self.pending.push(staged);
        Ok(())
    }

    /// Flushes the file system once, then swaps every staged skill in. Returns each staged
    /// skill's outcome in the order staged; `progress` is called after each swap with the
    /// number done.
    pub fn commit(mut self, progress: &mut dyn FnMut(usize)) -> Vec<BatchResult> {
        self.commit_pending(progress);
        std::mem::take(&mut self.committed)
    }

    /// Commits what is staged: one flush for all, then the swaps.
    fn commit_pending(&mut self, progress: &mut dyn FnMut(usize)) {
        if self.pending.is_empty() {
            return;
        }
        write::flush(&self.storage.home().scope_dir(self.scope));
        let scope = self.scope.as_str();
        for staged in std::mem::take(&mut self.pending) {
            let name = staged.name().clone();
            let result = staged.commit();
            // Name, scope and revision only: never a file's content.
            match &result {
                Ok(out) => tracing::info!(
                    skill = %name, scope, revision = %out.revision, digest = %out.digest.short(), "skill written"
                ),
                Err(e) => tracing::warn!(skill = %name, scope, error = %e, "skill write failed"),
            }
            self.committed.push((name, result));
            progress(self.committed.len());
        }
        self.names.clear();
    }
}

impl Drop for WriteBatch<'_> {
    /// A batch never committed writes nothing: its staged trees and markers are removed.
    fn drop(&mut self) {
        for staged in self.pending.drain(..) {
            staged.discard();
        }
    }
}
