//! `FsStorage`: the file-system skill store of the desktop and the CLI.
//! Holds the public operations and their sync forms; staging, history and recovery are siblings.

use super::adopt;
use super::contract::SkillStorage;
use super::delete::{self, DeleteOutcome};
use super::error::{Result, StorageError};
use super::history::{self, HistoryEntry, RevisionEvent};
use super::lock::SkillLock;
use super::marker;
use super::record;
use super::rename::{self, RenameOutcome};
use super::scan;
use super::tree::{self, Snapshot, TreeEntry, read_revision};
use super::write::{self, WriteOutcome};
use crate::home::SkilldeckHome;
use skilldeck_skill::digest::Digest;
use skilldeck_skill::files::{SkillFiles, UploadLimits};
use skilldeck_skill::frontmatter;
use skilldeck_skill::name::SkillName;
use skilldeck_skill::relpath::RelPath;
use skilldeck_skill::scope::{Revision, Scope};
use std::fs;
use std::path::PathBuf;

/// The file-system store under a `SkilldeckHome`. Cheap to clone.
#[derive(Debug, Clone)]
pub struct FsStorage {
    home: SkilldeckHome,
    limits: UploadLimits,
}

impl FsStorage {
    /// Opens the store at `home`, creating its folders and recovering from any crash.
    pub fn open(home: SkilldeckHome) -> Result<Self> {
        for scope in Scope::ALL {
            let dir = home.scope_dir(scope);
            fs::create_dir_all(&dir).map_err(StorageError::io("create", &dir))?;
        }
        super::recover::recover(&home)?;
        Ok(Self { home, limits: UploadLimits::default() })
    }

    /// The same store with other upload limits.
    pub fn with_limits(mut self, limits: UploadLimits) -> Self {
        self.limits = limits;
        self
    }

    /// The home this store lives in.
    pub fn home(&self) -> &SkilldeckHome {
        &self.home
    }

    /// The upload limits in force.
    pub fn limits(&self) -> UploadLimits {
        self.limits
    }

    /// The folder of a stored skill (which may not exist).
    pub fn skill_dir(&self, scope: Scope, name: &SkillName) -> PathBuf {
        self.home.skill_dir(scope, name)
    }

    /// The folder names of the skills in `scope`, sorted; hidden entries are passed over.
    pub fn list_skills_sync(&self, scope: Scope) -> Result<Vec<String>> {
        let dir = self.home.scope_dir(scope);
        let rd = match fs::read_dir(&dir) {
            Ok(rd) => rd,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(StorageError::io("read", &dir)(e)),
        };
        let mut names: Vec<String> = rd
            .filter_map(|e| e.ok())
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|n| !n.starts_with('.'))
            .collect();
        names.sort();
        Ok(names)
    }

    /// The folder of an existing skill, or `SkillNotFound`. A symbolic link in the scope folder
    /// is no skill, as in `list_skills`: reading through it would leave the store.
    fn existing(&self, scope: Scope, dir_name: &str) -> Result<PathBuf> {
        let dir = self.home.scope_dir(scope).join(dir_name);
        let is_dir = fs::symlink_metadata(&dir).is_ok_and(|m| m.is_dir());
        if dir_name.starts_with('.') || dir_name.contains(['/', '\\']) || !is_dir {
            return Err(StorageError::SkillNotFound { scope, name: dir_name.to_owned() });
        }
        Ok(dir)
    }

    /// The current revision of a skill, if it has a `.version`.
    pub fn revision_sync(&self, scope: Scope, name: &SkillName) -> Result<Option<Revision>> {
        Ok(read_revision(&self.existing(scope, name.as_str())?))
    }

    /// The revision the next upload of `name` will get.
    pub fn next_revision(&self, scope: Scope, name: &SkillName) -> Revision {
        write::next_revision(&self.home, scope, name)
    }

    /// The sorted file list of a skill, never `.version`.
    pub fn read_tree_sync(&self, scope: Scope, name: &SkillName) -> Result<Vec<TreeEntry>> {
        tree::list(&self.existing(scope, name.as_str())?)
    }

    /// One whole revision of the skill in folder `dir_name` (which need not be a valid name).
    pub fn snapshot_dir(&self, scope: Scope, dir_name: &str) -> Result<Snapshot> {
        scan::snapshot(&self.existing(scope, dir_name)?, self.limits.max_file_bytes)
    }

    /// What discovery needs of the skill in folder `dir_name`: `SKILL.md`, file count and size.
    pub fn summary_dir(&self, scope: Scope, dir_name: &str) -> Result<super::tree::Summary> {
        self.summary_dir_with(scope, dir_name, false)
    }

    /// `summary_dir`, with the content digest when `digest` is set: from `SKILL.md` when it is
    /// the only file, from the revision's record when its files are as written, else hashed
    /// from every file. Each file is opened once, through one descriptor of the skill folder.
    pub fn summary_dir_with(&self, scope: Scope, dir_name: &str, digest: bool) -> Result<super::tree::Summary> {
        let want = scan::ScanFor { digest, files: false };
        Ok(self.scan(scope, dir_name, want)?.summary)
    }

    /// `summary_dir_with`, and from the same pass every file of the skill as `snapshot_dir`
    /// reads it, or why one could not be read: for a listing that audits what it lists, each
    /// file read once for the digest and the audit.
    pub fn summary_and_snapshot(
        &self,
        scope: Scope,
        dir_name: &str,
        digest: bool,
    ) -> Result<(super::tree::Summary, Result<Snapshot>)> {
        Ok(self.scan(scope, dir_name, scan::ScanFor { digest, files: true })?.split())
    }

    fn scan(&self, scope: Scope, dir_name: &str, want: scan::ScanFor) -> Result<scan::Scanned> {
        let dir = self.skill_path(scope, dir_name)?;
        scan::scan(&dir, self.limits.max_file_bytes, want)?
            .ok_or_else(|| StorageError::SkillNotFound { scope, name: dir_name.to_owned() })
    }

    /// The content digest of the skill in folder `dir_name` as it is on disk, the way
    /// `summary_dir_with` gets it; an error when a file that has to be hashed cannot be read.
    pub fn digest_dir(&self, scope: Scope, dir_name: &str) -> Result<Digest> {
        let dir = self.skill_path(scope, dir_name)?;
        scan::digest(&dir, self.limits.max_file_bytes)?
            .ok_or_else(|| StorageError::SkillNotFound { scope, name: dir_name.to_owned() })
    }

    /// The folder a skill named `dir_name` would have, refusing names that would leave the scope
    /// folder or name a hidden entry; whether it is a folder is the reader's to check.
    fn skill_path(&self, scope: Scope, dir_name: &str) -> Result<PathBuf> {
        if dir_name.is_empty() || dir_name.starts_with('.') || dir_name.contains(['/', '\\']) {
            return Err(StorageError::SkillNotFound { scope, name: dir_name.to_owned() });
        }
        Ok(self.home.scope_dir(scope).join(dir_name))
    }

    /// One whole revision of a skill.
    pub fn snapshot(&self, scope: Scope, name: &SkillName) -> Result<Snapshot> {
        self.snapshot_dir(scope, name.as_str())
    }

    /// A file's bytes as stored.
    pub fn read_raw_file_sync(&self, scope: Scope, name: &SkillName, path: &RelPath) -> Result<Vec<u8>> {
        let dir = self.existing(scope, name.as_str())?;
        if skilldeck_skill::files::is_sidecar(path.as_str()) {
            return Err(StorageError::FileNotFound { name: name.to_string(), path: path.to_string() });
        }
        crate::safe_read::read_beneath(&dir, path, self.limits.max_file_bytes)
            .map(|f| f.bytes)
            .map_err(|e| StorageError::read(name.as_str(), path.as_str(), e))
    }

    /// Where a stored skill's folder is on disk; `skill_not_found` when it is not stored.
    pub fn stored_dir(&self, scope: Scope, name: &SkillName) -> Result<PathBuf> {
        self.existing(scope, name.as_str())
    }

    /// Where a stored skill's file is on disk, for handing to the system (an editor, a file
    /// manager): a regular file beneath the skill's folder, never a link, a folder or the
    /// `.version` sidecar. `skill_not_found` or `file_not_found` otherwise.
    pub fn stored_file(&self, scope: Scope, name: &SkillName, path: &RelPath) -> Result<PathBuf> {
        let dir = self.existing(scope, name.as_str())?;
        let missing = || StorageError::FileNotFound { name: name.to_string(), path: path.to_string() };
        if skilldeck_skill::files::is_sidecar(path.as_str()) {
            return Err(missing());
        }
        let file = path.under(&dir);
        let regular = fs::symlink_metadata(&file).is_ok_and(|m| m.is_file());
        let beneath = match (fs::canonicalize(&file), fs::canonicalize(&dir)) {
            (Ok(f), Ok(d)) => f.starts_with(d),
            _ => false,
        };
        if regular && beneath { Ok(file) } else { Err(missing()) }
    }

    /// A file as text; `SKILL.md` comes with its frontmatter stripped.
    pub fn read_file_sync(&self, scope: Scope, name: &SkillName, path: &RelPath) -> Result<String> {
        let bytes = self.read_raw_file_sync(scope, name, path)?;
        let text = String::from_utf8(bytes).map_err(|_| StorageError::NotText { path: path.to_string() })?;
        Ok(if path.is_skill_md() { frontmatter::strip(&text).to_owned() } else { text })
    }

    /// The one upload path: stores `files` as the next revision of `name`.
    pub fn write_skill_sync(&self, scope: Scope, name: &SkillName, files: &SkillFiles) -> Result<WriteOutcome> {
        self.write_with_event(scope, name, files, RevisionEvent::Upload)
    }

    /// `write_skill` recording what made the revision.
    pub fn write_with_event(
        &self,
        scope: Scope,
        name: &SkillName,
        files: &SkillFiles,
        event: RevisionEvent,
    ) -> Result<WriteOutcome> {
        if scope.is_read_only() {
            return Err(StorageError::ReadOnlyScope { scope });
        }
        files.check_limits(self.limits)?;
        if files.skill_md().is_none() {
            return Err(StorageError::NoSkillMd);
        }
        let _lock = SkillLock::acquire(&self.home, scope, name)?;
        let kind = event_kind(&event);
        let written = write::write_locked(&self.home, scope, name, files, event);
        match &written {
            // Name, scope, revision and digest only: never a file's content.
            Ok(out) => tracing::info!(
                skill = %name, scope = scope.as_str(), revision = %out.revision, digest = %out.digest.short(),
                files = files.len(), event = kind, "skill written"
            ),
            Err(e) => {
                tracing::warn!(skill = %name, scope = scope.as_str(), event = kind, error = %e, "skill write failed")
            }
        }
        written
    }

    /// Takes an edit made on disk outside the app (an editor, `git pull`, a folder copied in)
    /// as a new revision, once: only when the skill's content digest differs from the digest
    /// logged for its current revision. Returns the new revision, or `None` when nothing
    /// changed (so the watcher seeing Skilldeck's own writes bumps nothing).
    /// A read-only scope adopts nothing: the team store's revision stays what it says, and the
    /// next refresh puts the team's content back.
    pub fn adopt_external_edit(&self, scope: Scope, name: &SkillName) -> Result<Option<Revision>> {
        if scope.is_read_only() {
            return Ok(None);
        }
        let _lock = SkillLock::acquire(&self.home, scope, name)?;
        let Ok(dir) = self.existing(scope, name.as_str()) else {
            return Ok(None);
        };
        adopt::adopt_locked(&self.home, scope, name, &dir, self.limits.max_file_bytes)
    }

    /// Gives every skill of `scope` whose current revision has no copy in history one (a store
    /// written before history kept each revision's own copy), so an edit made in its live folder
    /// from now on cannot take that revision with it. A skill whose writer holds its lock is
    /// passed over (that write makes its copy). Returns how many copies were made; one that
    /// fails is logged and passed over.
    pub fn keep_current_copies(&self, scope: Scope) -> Result<usize> {
        if scope.is_read_only() {
            return Ok(0);
        }
        let mut made = 0;
        for dir_name in self.list_skills_sync(scope)? {
            let Ok(name) = SkillName::parse(&dir_name) else { continue };
            let dir = self.home.skill_dir(scope, &name);
            let Some(rev) = read_revision(&dir) else { continue };
            if history::rev_dir(&self.home.history_dir(scope, &name), rev).is_dir() {
                continue;
            }
            let Some(_lock) = SkillLock::try_acquire(&self.home, scope, &name)? else { continue };
            match adopt::keep_current_locked(&self.home, scope, &name, &dir, self.limits.max_file_bytes) {
                Ok(true) => made += 1,
                Ok(false) => {}
                Err(e) => tracing::warn!(skill = %name, error = %e, "no copy of the current revision in history"),
            }
        }
        Ok(made)
    }

    /// Moves a skill to history; returns the revision moved. Once it has moved, the delete is
    /// reported as done: a log line that cannot be written comes back as a warning.
    pub fn delete_skill_sync(&self, scope: Scope, name: &SkillName) -> Result<DeleteOutcome> {
        if scope.is_read_only() {
            return Err(StorageError::ReadOnlyScope { scope });
        }
        let _lock = SkillLock::acquire(&self.home, scope, name)?;
        let dir = self.existing(scope, name.as_str())?;
        let deleted = delete::delete_locked(&self.home, scope, name, &dir, self.limits.max_file_bytes)?;
        tracing::info!(skill = %name, scope = scope.as_str(), revision = %deleted.revision, "skill deleted");
        Ok(deleted)
    }

    /// Renames skill `from` to `new` in `scope`: its last revision is written again as the
    /// next revision of `new` (the frontmatter's `name` set to `new`, logged `renamed`), its
    /// history moves to `new` (every kept revision stays restorable there), and `from`'s live
    /// folder goes without a delete line. Refused, with nothing changed, when `new` is taken
    /// by a live skill or has a history of its own (a deleted skill), in a read-only scope, or
    /// when `from` does not exist. Both skills' locks are held, taken in name order.
    /// What a crash at each step leaves is said in `storage/rename.rs`.
    pub fn rename_sync(&self, scope: Scope, from: &SkillName, new: &SkillName) -> Result<RenameOutcome> {
        if scope.is_read_only() {
            return Err(StorageError::ReadOnlyScope { scope });
        }
        let (first, second) = if from <= new { (from, new) } else { (new, from) };
        let _first = SkillLock::acquire(&self.home, scope, first)?;
        let _second = (first != second).then(|| SkillLock::acquire(&self.home, scope, second)).transpose()?;
        let dir = self.existing(scope, from.as_str())?;
        let out = rename::rename_locked(&self.home, scope, from, new, &dir, self.limits);
        match &out {
            Ok(o) => tracing::info!(
                skill = %new, from = %from, scope = scope.as_str(), revision = %o.revision, moved = o.moved,
                "skill renamed"
            ),
            Err(e) => {
                tracing::warn!(skill = %from, to = %new, scope = scope.as_str(), error = %e, "skill rename failed")
            }
        }
        out
    }

    /// The skill's revisions, newest first (also for a deleted skill).
    pub fn history_sync(&self, scope: Scope, name: &SkillName) -> Result<Vec<HistoryEntry>> {
        let entries = record::entries(&self.home.history_dir(scope, name), &self.home.skill_dir(scope, name));
        if entries.is_empty() && !self.home.skill_dir(scope, name).is_dir() {
            return Err(StorageError::SkillNotFound { scope, name: name.to_string() });
        }
        Ok(entries)
    }

    /// Skills of `scope` that were deleted and not brought back, with the revision deleted,
    /// sorted by name: what an undo from the history view can restore.
    pub fn deleted_skills_sync(&self, scope: Scope) -> Result<Vec<(SkillName, Revision)>> {
        let root = self.home.root().join("history").join(scope.as_str());
        let rd = match fs::read_dir(&root) {
            Ok(rd) => rd,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(StorageError::io("read", &root)(e)),
        };
        // A delete whose log line is still pending is newer than anything in the log.
        let pending = marker::pending(&self.home.scope_dir(scope));
        let mut out: Vec<(SkillName, Revision)> = rd
            .filter_map(|e| e.ok())
            .filter_map(|e| SkillName::parse(e.file_name().to_str()?).ok())
            .filter(|name| !self.home.skill_dir(scope, name).is_dir())
            .filter_map(|name| {
                let waiting = pending.iter().rev().find(|(n, _, _)| *n == name).map(|(_, _, l)| l.revision);
                let logged = || {
                    let last = history::read_log(&self.home.history_dir(scope, &name)).pop()?;
                    (last.event == RevisionEvent::Delete).then_some(last.revision)
                };
                Some((name.clone(), waiting.or_else(logged)?))
            })
            .collect();
        out.sort();
        Ok(out)
    }

    /// The files of revision `rev`, from history or the current folder.
    pub fn revision_files(&self, scope: Scope, name: &SkillName, rev: Revision) -> Result<SkillFiles> {
        let kept = history::rev_dir(&self.home.history_dir(scope, name), rev);
        if kept.is_dir() || (self.wait_for_writer(scope, name)? && kept.is_dir()) {
            return Ok(scan::snapshot(&kept, self.limits.max_file_bytes)?.files);
        }
        match self.snapshot(scope, name) {
            Ok(s) if s.revision == Some(rev) => Ok(s.files),
            _ => Err(StorageError::RevisionNotFound { name: name.to_string(), revision: rev }),
        }
    }

    /// The folder holding revision `rev` of a skill (the current folder when `rev` is `None`),
    /// and whether that folder is live (a write may swap it while it is read). A caller
    /// copying from a live folder checks `revision_sync` afterwards; the replaced revision is
    /// then in history, frozen.
    pub fn revision_dir(&self, scope: Scope, name: &SkillName, rev: Option<Revision>) -> Result<(PathBuf, bool)> {
        let current = self.home.skill_dir(scope, name);
        let Some(rev) = rev else {
            return Ok((self.existing(scope, name.as_str())?, true));
        };
        if read_revision(&current) == Some(rev) {
            return Ok((current, true));
        }
        let kept = history::rev_dir(&self.home.history_dir(scope, name), rev);
        if kept.is_dir() {
            return Ok((kept, false));
        }
        // A write may have just swapped a newer revision in and not yet moved this one to
        // history: wait for it (writers hold the lock through the move), then look again.
        if self.wait_for_writer(scope, name)? && kept.is_dir() {
            return Ok((kept, false));
        }
        if read_revision(&current) == Some(rev) {
            return Ok((current, true));
        }
        Err(StorageError::RevisionNotFound { name: name.to_string(), revision: rev })
    }

    /// Waits until no write of `name` is in flight. Returns whether the skill's lock file
    /// exists (no lock file: nothing was ever written through the store).
    fn wait_for_writer(&self, scope: Scope, name: &SkillName) -> Result<bool> {
        if !self.home.lock_path(scope, name).exists() {
            return Ok(false);
        }
        drop(SkillLock::acquire(&self.home, scope, name)?);
        Ok(true)
    }

    /// Makes a new revision holding the content of `rev`.
    pub fn restore_sync(&self, scope: Scope, name: &SkillName, rev: Revision) -> Result<WriteOutcome> {
        let files = self.revision_files(scope, name, rev)?;
        self.write_with_event(scope, name, &files, RevisionEvent::Restore { from: rev })
    }

    /// Runs a sync operation on the blocking pool.
    async fn blocking<T: Send + 'static>(&self, f: impl FnOnce(FsStorage) -> Result<T> + Send + 'static) -> Result<T> {
        let this = self.clone();
        tokio::task::spawn_blocking(move || f(this)).await.map_err(|e| StorageError::Task(e.to_string()))?
    }
}

/// A store is its own source of skill files (`view_skill` takes anything that has one).
impl AsRef<FsStorage> for FsStorage {
    fn as_ref(&self) -> &FsStorage {
        self
    }
}

#[async_trait::async_trait]
impl SkillStorage for FsStorage {
    async fn list_skills(&self, scope: Scope) -> Result<Vec<String>> {
        self.blocking(move |s| s.list_skills_sync(scope)).await
    }

    async fn read_tree(&self, scope: Scope, name: &SkillName) -> Result<Vec<TreeEntry>> {
        let name = name.clone();
        self.blocking(move |s| s.read_tree_sync(scope, &name)).await
    }

    async fn read_raw_file(&self, scope: Scope, name: &SkillName, path: &RelPath) -> Result<Vec<u8>> {
        let (name, path) = (name.clone(), path.clone());
        self.blocking(move |s| s.read_raw_file_sync(scope, &name, &path)).await
    }

    async fn read_file(&self, scope: Scope, name: &SkillName, path: &RelPath) -> Result<String> {
        let (name, path) = (name.clone(), path.clone());
        self.blocking(move |s| s.read_file_sync(scope, &name, &path)).await
    }

    async fn write_skill(&self, scope: Scope, name: &SkillName, files: SkillFiles) -> Result<WriteOutcome> {
        let name = name.clone();
        self.blocking(move |s| s.write_skill_sync(scope, &name, &files)).await
    }

    async fn delete_skill(&self, scope: Scope, name: &SkillName) -> Result<DeleteOutcome> {
        let name = name.clone();
        self.blocking(move |s| s.delete_skill_sync(scope, &name)).await
    }

    async fn history(&self, scope: Scope, name: &SkillName) -> Result<Vec<HistoryEntry>> {
        let name = name.clone();
        self.blocking(move |s| s.history_sync(scope, &name)).await
    }

    async fn restore(&self, scope: Scope, name: &SkillName, revision: Revision) -> Result<WriteOutcome> {
        let name = name.clone();
        self.blocking(move |s| s.restore_sync(scope, &name, revision)).await
    }
}

/// What made a revision, as a log field: the kind only (a source's URL stays out of the log).
fn event_kind(event: &RevisionEvent) -> &'static str {
    match event {
        RevisionEvent::Upload => "upload",
        RevisionEvent::Bundled => "bundled",
        RevisionEvent::External => "external",
        RevisionEvent::Edit => "edit",
        RevisionEvent::Restore { .. } => "restore",
        RevisionEvent::Delete => "delete",
        RevisionEvent::Recovered => "recovered",
        RevisionEvent::DriftKept { .. } => "drift_kept",
        RevisionEvent::Mirrored => "mirrored",
        RevisionEvent::Sourced { .. } => "sourced",
        RevisionEvent::Renamed { .. } => "renamed",
    }
}
