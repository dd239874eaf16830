//! Drafts: the working copies the app's editor and `skilldeck edit` change, so the store never
//! hands its live folder out. A draft is a folder of the skill's files beside a note of the
//! revision it began from; saving stores the whole draft as one new revision and removes it.
//! Holds `drafts/<scope>/<name>/` (`draft.json`, `files/`); not the checks run on a draft
//! (`skilldeck-core`'s authoring) nor the editors.
//!
//! A draft outlives the window and the process that began it: it is only files on disk, written
//! as the author types, and is never a revision until it is saved.

use crate::home::SkilldeckHome;
use crate::storage::{FsStorage, RenameOutcome, RevisionEvent, StorageError, WriteOutcome};
use serde::{Deserialize, Serialize};
use skilldeck_skill::digest::Digest;
use skilldeck_skill::files::{SkillFiles, UploadLimits};
use skilldeck_skill::name::SkillName;
use skilldeck_skill::name_field::with_name;
use skilldeck_skill::relpath::RelPath;
use skilldeck_skill::scope::{Revision, Scope};
use std::fs;
use std::path::{Path, PathBuf};

/// The note beside a draft's files.
const NOTE: &str = "draft.json";
/// The folder holding a draft's files.
const FILES: &str = "files";

/// What can go wrong with a draft.
#[derive(Debug, thiserror::Error)]
pub enum DraftError {
    /// The stored skill changed since the draft began.
    #[error(
        "{name} changed in the store since this draft began from {base} (it is now {now}); nothing was saved and \
         the draft is kept. Compare them, then save over it on purpose (`--force`) or discard the draft"
    )]
    Stale {
        /// The skill.
        name: String,
        /// The revision the draft began from, in words.
        base: String,
        /// The revision stored now, in words.
        now: String,
        /// The revision stored now (`None`: the skill was deleted).
        current: Option<Revision>,
    },
    /// The draft has no `SKILL.md` with anything in it.
    #[error("the draft of {name} has an empty or missing SKILL.md; nothing was saved and the draft is kept")]
    Empty {
        /// The skill.
        name: String,
    },
    /// A folder brought into the draft is over the limits of a skill.
    #[error("{} is too large to add to a draft: {why}; nothing of it was added", path.display())]
    TooLarge {
        /// The folder.
        path: PathBuf,
        /// The limit it is over, in words.
        why: String,
    },
    /// The store refused or failed.
    #[error(transparent)]
    Storage(#[from] StorageError),
    /// A file of the draft could not be read or written.
    #[error("{context} {}: {source}", path.display())]
    Io {
        /// What was being done.
        context: &'static str,
        /// The path.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
}

impl DraftError {
    /// The stable code the app and `--json` carry.
    pub fn code(&self) -> &'static str {
        match self {
            Self::Stale { .. } => "draft_stale",
            Self::Empty { .. } => "draft_empty",
            Self::TooLarge { .. } => "too_large",
            Self::Storage(e) => e.code(),
            Self::Io { .. } => "io_error",
        }
    }

    fn io<'a>(context: &'static str, path: &'a Path) -> impl FnOnce(std::io::Error) -> Self + use<'a> {
        move |source| Self::Io { context, path: path.to_path_buf(), source }
    }
}

/// `Result` with a [`DraftError`].
pub type DraftResult<T> = Result<T, DraftError>;

/// The note kept beside a draft's files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DraftNote {
    /// The revision the draft began from (`None`: a skill not stored yet).
    pub base: Option<Revision>,
    /// That revision's content digest.
    pub base_digest: Option<Digest>,
    /// When the draft began, RFC 3339 in UTC.
    pub started: String,
}

/// One draft found on disk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DraftInfo {
    /// Its scope.
    pub scope: Scope,
    /// Its skill.
    pub name: SkillName,
    /// The revision it began from.
    pub base: Option<Revision>,
    /// When a file of it last changed, RFC 3339 in UTC.
    pub at: String,
}

/// A draft of one skill: its folder on disk.
#[derive(Debug, Clone)]
pub struct Draft {
    scope: Scope,
    name: SkillName,
    dir: PathBuf,
    note: DraftNote,
}

/// Where the drafts of `scope` live.
fn scope_root(home: &SkilldeckHome, scope: Scope) -> PathBuf {
    home.root().join("drafts").join(scope.as_str())
}

/// What the draft's saved-over state says in words: `v:3`, or "no revision".
fn words(rev: Option<Revision>) -> String {
    rev.map_or_else(|| "deleted".to_owned(), |r| format!("v:{r}"))
}

impl Draft {
    /// The draft of `name` in `scope` when one exists.
    pub fn find(home: &SkilldeckHome, scope: Scope, name: &SkillName) -> Option<Self> {
        let dir = scope_root(home, scope).join(name.as_str());
        let note = fs::read(dir.join(NOTE)).ok().and_then(|b| serde_json::from_slice(&b).ok())?;
        dir.join(FILES).is_dir().then(|| Self { scope, name: name.clone(), dir, note })
    }

    /// The draft of `name`: the one on disk, else a new one holding the current revision's
    /// files (read from history's copy of it, so what the draft begins from is the revision as
    /// stored).
    pub fn open(storage: &FsStorage, scope: Scope, name: &SkillName) -> DraftResult<Self> {
        if let Some(d) = Self::find(storage.home(), scope, name) {
            // A save cut short after its revision was stored (a crash before the draft went)
            // leaves a draft equal to the stored revision: it is done, not a draft any more.
            let saved = match d.stale(storage)? {
                Some(Some(now)) => {
                    let (files, _) = d.files(storage.limits().max_file_bytes)?;
                    storage.revision_files(scope, name, now).is_ok_and(|stored| stored.digest() == files.digest())
                }
                _ => false,
            };
            if !saved {
                return Ok(d);
            }
            d.discard();
        }
        let rev = storage
            .revision_sync(scope, name)?
            .ok_or_else(|| StorageError::SkillNotFound { scope, name: name.to_string() })?;
        let files = storage.revision_files(scope, name, rev)?;
        Self::begin(storage.home(), scope, name, Some(rev), &files)
    }

    /// Starts a draft of `name` holding `files`, begun from `base` (replacing any draft there).
    pub fn begin(
        home: &SkilldeckHome,
        scope: Scope,
        name: &SkillName,
        base: Option<Revision>,
        files: &SkillFiles,
    ) -> DraftResult<Self> {
        let root = scope_root(home, scope);
        fs::create_dir_all(&root).map_err(DraftError::io("create", &root))?;
        let dir = root.join(name.as_str());
        // Made aside and renamed into place: a crash leaves the old draft or the new one.
        let temp = root.join(format!(".new-{}-{}", std::process::id(), name.as_str()));
        let _ = fs::remove_dir_all(&temp);
        let note =
            DraftNote { base, base_digest: base.map(|_| files.digest()), started: crate::storage::now_rfc3339() };
        let made = (|| {
            let files_dir = temp.join(FILES);
            fs::create_dir_all(&files_dir).map_err(DraftError::io("create", &files_dir))?;
            for (rel, bytes) in files.iter() {
                write_file(&files_dir, rel, bytes)?;
            }
            let json = serde_json::to_vec_pretty(&note).map_err(|e| StorageError::Task(e.to_string()))?;
            fs::write(temp.join(NOTE), json).map_err(DraftError::io("write", &temp))?;
            let _ = fs::remove_dir_all(&dir);
            fs::rename(&temp, &dir).map_err(DraftError::io("move into place", &temp))
        })();
        if let Err(e) = made {
            let _ = fs::remove_dir_all(&temp);
            return Err(e);
        }
        Ok(Self { scope, name: name.clone(), dir, note })
    }

    /// Every draft on disk, by scope and name.
    pub fn all(home: &SkilldeckHome) -> Vec<DraftInfo> {
        let mut out = Vec::new();
        for scope in Scope::ALL.iter().copied() {
            let Ok(rd) = fs::read_dir(scope_root(home, scope)) else { continue };
            for e in rd.filter_map(Result::ok) {
                let Some(name) = e.file_name().to_str().and_then(|n| SkillName::parse(n).ok()) else { continue };
                if let Some(d) = Self::find(home, scope, &name) {
                    out.push(DraftInfo { scope, name, base: d.note.base, at: d.changed_at() });
                }
            }
        }
        out.sort_by(|a, b| (a.scope, &a.name).cmp(&(b.scope, &b.name)));
        out
    }

    /// Its scope.
    pub fn scope(&self) -> Scope {
        self.scope
    }

    /// Its skill.
    pub fn name(&self) -> &SkillName {
        &self.name
    }

    /// The revision it began from.
    pub fn base(&self) -> Option<Revision> {
        self.note.base
    }

    /// The folder of its files: what an outside editor is given.
    pub fn files_dir(&self) -> PathBuf {
        self.dir.join(FILES)
    }

    /// When a file of it last changed, RFC 3339 in UTC (when it began, if none did since).
    pub fn changed_at(&self) -> String {
        let newest = walk_mtimes(&self.files_dir()).into_iter().max();
        newest
            .and_then(|t| time::OffsetDateTime::from(t).format(&time::format_description::well_known::Rfc3339).ok())
            .unwrap_or_else(|| self.note.started.clone())
    }

    /// Its files as they are now. Links and special files in it are passed over (`skipped`).
    pub fn files(&self, limit: u64) -> DraftResult<(SkillFiles, Vec<String>)> {
        let snap = crate::storage::snapshot(&self.files_dir(), limit)?;
        Ok((snap.files, snap.skipped))
    }

    /// Whether its files differ from the revision it began from.
    pub fn changed(&self, limit: u64) -> DraftResult<bool> {
        let (files, _) = self.files(limit)?;
        Ok(self.note.base_digest != Some(files.digest()))
    }

    /// Writes one file (its folders made as needed), whole or not at all: written beside the
    /// draft's files and renamed over the old one, so a crash while typing keeps the last write.
    pub fn write(&self, rel: &RelPath, bytes: &[u8]) -> DraftResult<()> {
        let temp = self.dir.join(format!(".write-{}", std::process::id()));
        fs::write(&temp, bytes).map_err(DraftError::io("write", &temp))?;
        if bytes.starts_with(b"#!") {
            use std::os::unix::fs::PermissionsExt as _;
            fs::set_permissions(&temp, fs::Permissions::from_mode(0o755)).map_err(DraftError::io("chmod", &temp))?;
        }
        let path = rel.under(&self.files_dir());
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(DraftError::io("create", parent))?;
        }
        fs::rename(&temp, &path).map_err(|e| {
            let _ = fs::remove_file(&temp);
            DraftError::io("write", &path)(e)
        })
    }

    /// Copies the file or folder at `source` (dropped from the desktop) into the draft under
    /// `into` (`""` for the top), keeping its name; a folder brings everything beneath it but
    /// links and special files, within the store's `limits` (a folder over them is refused
    /// before any of it is read). Returns the paths added.
    pub fn add_from(&self, source: &Path, into: &str, limits: &UploadLimits) -> DraftResult<Vec<String>> {
        let limit = limits.max_file_bytes;
        let name = source.file_name().and_then(|n| n.to_str()).ok_or_else(|| DraftError::Io {
            context: "cannot add",
            path: source.to_path_buf(),
            source: std::io::Error::from(std::io::ErrorKind::InvalidInput),
        })?;
        let prefix =
            if into.trim_matches('/').is_empty() { String::new() } else { format!("{}/", into.trim_matches('/')) };
        let meta = fs::symlink_metadata(source).map_err(DraftError::io("read", source))?;
        let files: Vec<(String, Vec<u8>)> = if meta.is_dir() {
            // Sized up before anything is read: a folder dropped by mistake (a home, a disk)
            // is refused at once, not read into memory.
            within(source, limits)?;
            let snap = crate::storage::snapshot(source, limit)?;
            snap.files.iter().map(|(p, b)| (format!("{prefix}{name}/{p}"), b.to_vec())).collect()
        } else {
            let read = crate::safe_read::read_file(source, limit).map_err(|e| DraftError::Io {
                context: "cannot add",
                path: source.to_path_buf(),
                source: std::io::Error::other(e.to_string()),
            })?;
            vec![(format!("{prefix}{name}"), read.bytes)]
        };
        let mut added = Vec::with_capacity(files.len());
        for (path, bytes) in files {
            let rel =
                RelPath::parse(&path).map_err(|source| StorageError::InvalidPath { path: path.clone(), source })?;
            self.write(&rel, &bytes)?;
            added.push(path);
        }
        Ok(added)
    }

    /// Removes a file, or a folder with everything under it.
    pub fn remove(&self, rel: &RelPath) -> DraftResult<()> {
        let path = rel.under(&self.files_dir());
        let meta = fs::symlink_metadata(&path).map_err(DraftError::io("find", &path))?;
        if meta.is_dir() {
            fs::remove_dir_all(&path).map_err(DraftError::io("remove", &path))
        } else {
            fs::remove_file(&path).map_err(DraftError::io("remove", &path))
        }
    }

    /// Renames a file or folder; refuses to replace one that exists.
    pub fn rename(&self, from: &RelPath, to: &RelPath) -> DraftResult<()> {
        let (a, b) = (from.under(&self.files_dir()), to.under(&self.files_dir()));
        if fs::symlink_metadata(&b).is_ok() {
            return Err(DraftError::Io {
                context: "refused to replace",
                path: b,
                source: std::io::Error::from(std::io::ErrorKind::AlreadyExists),
            });
        }
        if let Some(parent) = b.parent() {
            fs::create_dir_all(parent).map_err(DraftError::io("create", parent))?;
        }
        fs::rename(&a, &b).map_err(DraftError::io("rename", &a))
    }

    /// The revision stored now when it is not the one the draft began from.
    pub fn stale(&self, storage: &FsStorage) -> DraftResult<Option<Option<Revision>>> {
        let now = storage.revision_sync(self.scope, &self.name).ok().flatten();
        Ok((now != self.note.base).then_some(now))
    }

    /// Stores the draft as the skill's next revision and removes it. Refused, keeping the
    /// draft, when the stored skill changed since the draft began (unless `force`), when its
    /// `SKILL.md` is missing or empty, or when the store refuses the files (limits). A draft
    /// equal to the revision it began from stores nothing: `Ok(None)`, and the draft goes.
    pub fn save(self, storage: &FsStorage, force: bool) -> DraftResult<Option<WriteOutcome>> {
        if let Some(now) = self.stale(storage)?
            && !force
        {
            return Err(DraftError::Stale {
                name: self.name.to_string(),
                base: words(self.note.base),
                now: words(now),
                current: now,
            });
        }
        let (files, _) = self.files(storage.limits().max_file_bytes)?;
        if files.skill_md().is_none_or(|b| b.iter().all(u8::is_ascii_whitespace)) {
            return Err(DraftError::Empty { name: self.name.to_string() });
        }
        if self.note.base_digest == Some(files.digest()) && self.stale(storage)?.is_none() {
            self.discard();
            return Ok(None);
        }
        let out = storage.write_with_event(self.scope, &self.name, &files, RevisionEvent::Edit)?;
        self.discard();
        Ok(Some(out))
    }

    /// Moves the draft of a renamed skill (`FsStorage::rename_sync`'s `out`) to the new name:
    /// its `SKILL.md`'s `name` rewritten like the stored skill's, and, when it began from the
    /// revision renamed, noted as begun from the new one (so it is not stale). `false` when the
    /// old name has no draft, or the new name already has one (the old draft then stays).
    pub fn follow_rename(home: &SkilldeckHome, out: &RenameOutcome) -> DraftResult<bool> {
        let Some(old) = Self::find(home, out.scope, &out.from) else { return Ok(false) };
        let dir = scope_root(home, out.scope).join(out.name.as_str());
        if fs::symlink_metadata(&dir).is_ok() {
            return Ok(false);
        }
        fs::rename(&old.dir, &dir).map_err(DraftError::io("move", &old.dir))?;
        let moved = Self { scope: out.scope, name: out.name.clone(), dir, note: old.note };
        let skill_md = moved.files_dir().join("SKILL.md");
        if let Some(text) = fs::read(&skill_md).ok().and_then(|b| String::from_utf8(b).ok()) {
            let renamed = with_name(&text, out.name.as_str());
            if renamed != text {
                fs::write(&skill_md, renamed).map_err(DraftError::io("write", &skill_md))?;
            }
        }
        if moved.note.base == Some(out.from_revision) {
            let note = DraftNote { base: Some(out.revision), base_digest: Some(out.digest), ..moved.note.clone() };
            let json = serde_json::to_vec_pretty(&note).map_err(|e| StorageError::Task(e.to_string()))?;
            let path = moved.dir.join(NOTE);
            fs::write(&path, json).map_err(DraftError::io("write", &path))?;
        }
        Ok(true)
    }

    /// Removes the draft.
    pub fn discard(self) {
        // Renamed out of the way first, so a cut removal never leaves half a draft to reopen.
        let gone = self.dir.with_file_name(format!(".gone-{}-{}", std::process::id(), self.name.as_str()));
        if fs::rename(&self.dir, &gone).is_ok() {
            let _ = fs::remove_dir_all(&gone);
        }
    }
}

/// Writes `bytes` at `rel` under `root`, its folders made as needed; scripts starting with
/// `#!` made executable, as the store makes them.
fn write_file(root: &Path, rel: &RelPath, bytes: &[u8]) -> DraftResult<()> {
    let path = rel.under(root);
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).map_err(DraftError::io("create", parent))?;
    }
    fs::write(&path, bytes).map_err(DraftError::io("write", &path))?;
    if bytes.starts_with(b"#!") {
        use std::os::unix::fs::PermissionsExt as _;
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).map_err(DraftError::io("chmod", &path))?;
    }
    Ok(())
}

/// Refuses the folder `dir` when it holds more files or bytes than a skill may (links and
/// special files are not counted: they are never brought in). Only names and sizes are read.
fn within(dir: &Path, limits: &UploadLimits) -> DraftResult<()> {
    let (mut files, mut bytes) = (0usize, 0u64);
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).map_err(DraftError::io("read", &d))?.filter_map(Result::ok) {
            let Ok(kind) = e.file_type() else { continue };
            if kind.is_dir() {
                stack.push(e.path());
                continue;
            }
            if !kind.is_file() {
                continue;
            }
            files += 1;
            bytes += e.metadata().map_or(0, |m| m.len());
            if files > limits.max_files || bytes > limits.max_total_bytes {
                return Err(DraftError::TooLarge {
                    path: dir.to_path_buf(),
                    why: format!(
                        "a skill holds at most {} files and {} bytes in all",
                        limits.max_files, limits.max_total_bytes
                    ),
                });
            }
        }
    }
    Ok(())
}

/// The modification times of every file under `dir`.
fn walk_mtimes(dir: &Path) -> Vec<std::time::SystemTime> {
    let mut out = Vec::new();
    let Ok(rd) = fs::read_dir(dir) else { return out };
    for e in rd.filter_map(Result::ok) {
        let Ok(meta) = e.metadata() else { continue };
        if meta.is_dir() {
            out.extend(walk_mtimes(&e.path()));
        } else if let Ok(t) = meta.modified() {
            out.push(t);
        }
    }
    out
}
