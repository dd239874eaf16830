//! Import: reading a skill from a folder, a `SKILL.md`, or a `.zip`/`.skill` archive, safely.
//! Holds source reading, hostile-input refusal and the preview; the store write is `storage`.

use crate::files::{LimitError, LimitMeter, SkillFiles, UploadLimits};
use crate::name::SkillName;
use crate::relpath::RelPath;
use crate::safe_read::{self, ReadError};
use crate::storage::{FsStorage, Revision, Scope, StorageError, WriteOutcome};
use crate::validate::{self, ValidateOptions, Validated};
use serde::Serialize;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Names passed over when importing a folder: tool and OS litter, never part of a skill.
const IGNORED: &[&str] =
    &[".git", ".DS_Store", "Thumbs.db", "__MACOSX", crate::files::VERSION_FILE, crate::files::RECORD_FILE];

/// Why an import was refused. Nothing is written to the store in any of these cases.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// The source path does not exist.
    #[error("{0} does not exist")]
    NotFound(PathBuf),
    /// The source is neither a folder, a `SKILL.md` nor a `.zip`/`.skill` archive.
    #[error("{0} is not a skill folder, a SKILL.md, or a .zip/.skill archive")]
    Unsupported(PathBuf),
    /// The source is a symbolic link to nothing.
    #[error("{0} is a symbolic link that leads nowhere; import the folder or archive by its own path")]
    DanglingLink(PathBuf),
    /// No `SKILL.md` at the top (or under one top folder of an archive).
    #[error("{0} holds no SKILL.md at its top level, so it is not a skill")]
    NotASkill(PathBuf),
    /// An entry that would leave the skill, a link, or a special file.
    #[error("refused {entry:?}: {reason}; nothing was imported")]
    Hostile {
        /// The entry as named in the source.
        entry: String,
        /// Why it is refused.
        reason: String,
    },
    /// Over an upload limit.
    #[error("refused: {0}; nothing was imported")]
    Limit(#[from] LimitError),
    /// The archive could not be read.
    #[error("{path} is not a readable zip archive: {reason}")]
    Archive {
        /// The archive.
        path: PathBuf,
        /// What the zip reader said.
        reason: String,
    },
    /// No usable name in the frontmatter nor in the folder name.
    #[error(
        "cannot tell the skill's name: set `name:` in SKILL.md to lowercase letters, digits and hyphens (found {found:?})"
    )]
    NoName {
        /// The best candidate found.
        found: String,
    },
    /// An I/O error while reading the source.
    #[error("could not read {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// The store refused the write.
    #[error(transparent)]
    Storage(#[from] StorageError),
}

impl ImportError {
    /// A stable code for UIs and scripts.
    pub fn code(&self) -> &'static str {
        match self {
            Self::NotFound(_) => "source_not_found",
            Self::Unsupported(_) => "source_unsupported",
            Self::DanglingLink(_) => "source_not_found",
            Self::NotASkill(_) => "skill_md_missing",
            Self::Hostile { .. } => "source_hostile",
            Self::Limit(_) => "upload_too_large",
            Self::Archive { .. } => "archive_invalid",
            Self::NoName { .. } => "name_invalid",
            Self::Io { .. } => "io_error",
            Self::Storage(e) => e.code(),
        }
    }
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> ImportError + '_ {
    move |source| ImportError::Io { path: path.to_path_buf(), source }
}

/// A skill read from a source, not yet stored.
#[derive(Debug, Clone)]
pub struct LoadedSkill {
    /// The name it will be stored under.
    pub name: SkillName,
    /// Its files.
    pub files: SkillFiles,
    /// What validation found.
    pub validation: Validated,
    /// Entries passed over (`.git`, `.DS_Store`, …).
    pub skipped: Vec<String>,
}

/// What an import would do, shown before anything is written.
#[derive(Debug, Clone, Serialize)]
pub struct ImportPreview {
    /// The skill's name.
    pub name: SkillName,
    /// The target scope.
    pub scope: Scope,
    /// How many files.
    pub file_count: usize,
    /// Their total size in bytes.
    pub total_bytes: u64,
    /// Whether validation found no error.
    pub valid: bool,
    /// Every problem found.
    pub diagnostics: Vec<crate::Diagnostic>,
    /// The revision it will become.
    pub next_revision: Revision,
    /// Whether no skill of that name is stored yet.
    pub is_new: bool,
    /// What its `allowed-tools` asks for, and whether an approval on record already covers it.
    pub grants: crate::trust::GrantsView,
}

/// Reports bytes read so far and the total, for progress bars.
pub type Progress<'a> = &'a mut dyn FnMut(u64, u64);

/// Reads a skill from `path`: a folder, a `SKILL.md` inside one, or a `.zip`/`.skill` archive.
pub fn load(path: &Path, limits: UploadLimits, progress: Progress<'_>) -> Result<LoadedSkill, ImportError> {
    let meta = fs::symlink_metadata(path).map_err(|_| ImportError::NotFound(path.to_path_buf()))?;
    // The path the user named may be a link (`~/skills/current -> v2`): import what it points to.
    // Links inside the skill are never followed.
    if meta.file_type().is_symlink() {
        let target = fs::canonicalize(path)
            .ok()
            .filter(|t| fs::symlink_metadata(t).is_ok())
            .ok_or_else(|| ImportError::DanglingLink(path.to_path_buf()))?;
        return load(&target, limits, progress);
    }
    let (files, skipped, fallback_name) = if meta.is_dir() {
        let (f, s) = read_folder(path, limits, progress)?;
        (f, s, file_name(path))
    } else if meta.is_file()
        && path.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.eq_ignore_ascii_case("SKILL.md"))
    {
        let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        let (f, s) = read_folder(dir, limits, progress)?;
        let dir = fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        (f, s, file_name(&dir))
    } else if meta.is_file() && has_archive_ext(path) {
        let (f, s, root) = read_archive(path, limits, progress)?;
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_owned();
        (f, s, root.unwrap_or(stem))
    } else {
        return Err(ImportError::Unsupported(path.to_path_buf()));
    };
    let mut files = files;
    let renamed = files.normalize_skill_md();
    let Some(skill_md) = files.skill_md() else {
        return Err(ImportError::NotASkill(path.to_path_buf()));
    };
    let probe = validate::validate_bytes(Some(skill_md), ValidateOptions::default());
    let name = probe
        .meta
        .name
        .as_deref()
        .and_then(|n| SkillName::parse(n).ok())
        .or_else(|| SkillName::parse(&fallback_name).ok())
        .ok_or_else(|| ImportError::NoName { found: probe.meta.name.clone().unwrap_or(fallback_name) })?;
    let mut validation = validate::validate_bytes(
        Some(skill_md),
        ValidateOptions { dir_name: Some(name.as_str()), ..ValidateOptions::default() },
    );
    if let Some(was) = renamed {
        validation.diagnostics.insert(
            0,
            crate::Diagnostic::warning(
                crate::DiagCode::SkillMdRenamed,
                format!("the file is named {was}; the spec names it SKILL.md, so it is stored as SKILL.md"),
            ),
        );
    }
    Ok(LoadedSkill { name, files, validation, skipped })
}

/// What storing `skill` in `scope` would do.
pub fn preview(storage: &FsStorage, scope: Scope, skill: &LoadedSkill) -> ImportPreview {
    ImportPreview {
        name: skill.name.clone(),
        scope,
        file_count: skill.files.len(),
        total_bytes: skill.files.total_bytes(),
        valid: skill.validation.is_valid(),
        diagnostics: skill.validation.diagnostics.clone(),
        next_revision: storage.next_revision(scope, &skill.name),
        is_new: !storage.skill_dir(scope, &skill.name).is_dir(),
        grants: crate::trust::Trust::load(storage.home()).unwrap_or_default().view(
            scope,
            skill.name.as_str(),
            &skill.validation.meta,
        ),
    }
}

/// Stores a loaded skill as its next revision.
pub fn store(storage: &FsStorage, scope: Scope, skill: &LoadedSkill) -> Result<WriteOutcome, ImportError> {
    Ok(storage.write_skill_sync(scope, &skill.name, &skill.files)?)
}

fn file_name(p: &Path) -> String {
    p.file_name().and_then(|s| s.to_str()).unwrap_or_default().to_owned()
}

fn has_archive_ext(p: &Path) -> bool {
    p.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("zip") || e.eq_ignore_ascii_case("skill"))
}

/// Reads a folder: every regular file, refusing links and special files, within the limits.
fn read_folder(
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

/// The Unix file-type bits of a zip entry that is neither a regular file nor a folder.
fn is_special_mode(mode: Option<u32>) -> bool {
    const S_IFMT: u32 = 0o170000;
    const S_IFREG: u32 = 0o100000;
    const S_IFDIR: u32 = 0o040000;
    mode.is_some_and(|m| {
        let t = m & S_IFMT;
        t != 0 && t != S_IFREG && t != S_IFDIR
    })
}

/// Reads a zip archive. Every entry is checked before its bytes are trusted: names that leave
/// the root, absolute names, links and special files are refused; sizes are capped while
/// inflating, so a zip bomb stops at the limit. Returns the files, skipped entries and the
/// archive's top folder when the skill sits in one.
fn read_archive(
    path: &Path,
    limits: UploadLimits,
    progress: Progress<'_>,
) -> Result<(SkillFiles, Vec<String>, Option<String>), ImportError> {
    let archive_err =
        |e: zip::result::ZipError| ImportError::Archive { path: path.to_path_buf(), reason: e.to_string() };
    let file = fs::File::open(path).map_err(io_err(path))?;
    let mut zip = zip::ZipArchive::new(file).map_err(archive_err)?;
    if zip.has_duplicate_names() {
        // The reader keeps one entry per name: a second SKILL.md would silently replace the first.
        return Err(ImportError::Archive {
            path: path.to_path_buf(),
            reason: "it holds two entries with the same name, and only one could be kept; pack it again with one copy \
                     of each file"
                .to_owned(),
        });
    }
    let mut meter = LimitMeter::new(limits);
    let total: u64 = (0..zip.len()).filter_map(|i| zip.by_index_raw(i).ok().map(|f| f.size())).sum();
    let mut done = 0;
    let mut entries: Vec<(RelPath, Vec<u8>)> = Vec::new();
    let mut skipped = Vec::new();
    for i in 0..zip.len() {
        let entry = zip.by_index(i).map_err(archive_err)?;
        let raw_name = String::from_utf8_lossy(entry.name_raw()).into_owned();
        let hostile = |reason: &str| ImportError::Hostile { entry: raw_name.clone(), reason: reason.to_owned() };
        if std::str::from_utf8(entry.name_raw()).is_err() {
            return Err(hostile("its name is not UTF-8 text; rename it and pack the archive again"));
        }
        if entry.is_symlink() {
            return Err(hostile("symbolic links are refused"));
        }
        if is_special_mode(entry.unix_mode()) {
            return Err(hostile("only regular files can be part of a skill"));
        }
        let trimmed = raw_name.trim_end_matches('/');
        let rel = RelPath::parse(trimmed).map_err(|e| hostile(&e.to_string()))?;
        if entry.enclosed_name().is_none() {
            return Err(hostile("the entry would be written outside the skill"));
        }
        if rel.as_str().split('/').any(|c| IGNORED.contains(&c)) {
            skipped.push(raw_name);
            continue;
        }
        if entry.is_dir() {
            continue;
        }
        meter.add(rel.as_str(), entry.size())?;
        let mut bytes = Vec::new();
        entry.take(limits.max_file_bytes + 1).read_to_end(&mut bytes).map_err(io_err(path))?;
        if bytes.len() as u64 > limits.max_file_bytes {
            return Err(LimitError::FileTooLarge {
                path: raw_name,
                size: bytes.len() as u64,
                limit: limits.max_file_bytes,
            }
            .into());
        }
        done += bytes.len() as u64;
        progress(done, total.max(done));
        entries.push((rel, bytes));
    }
    check_entry_names(&entries)?;
    let (files, root) = strip_single_root(entries);
    files.check_limits(limits)?;
    Ok((files, skipped, root))
}

/// Refuses two entries for one file (also when their names differ only in case, which clash on
/// macOS and Windows, and would keep only the last `SKILL.md`) and a name that is both a file
/// and a folder, before anything is staged.
fn check_entry_names(entries: &[(RelPath, Vec<u8>)]) -> Result<(), ImportError> {
    let mut seen = std::collections::HashMap::new();
    for (path, _) in entries {
        if let Some(first) = seen.insert(path.as_str().to_lowercase(), path.as_str()) {
            let reason = if first == path.as_str() {
                "the archive holds this file twice; pack it again with one copy".to_owned()
            } else {
                format!("the archive also holds {first:?}, a name that differs only in case; keep one of them")
            };
            return Err(ImportError::Hostile { entry: path.to_string(), reason });
        }
    }
    for (path, _) in entries {
        let mut prefix = String::new();
        for part in path.as_str().split('/').collect::<Vec<_>>().split_last().map_or(&[][..], |(_, dirs)| dirs) {
            if !prefix.is_empty() {
                prefix.push('/');
            }
            prefix.push_str(part);
            if let Some(file) = seen.get(&prefix.to_lowercase()) {
                return Err(ImportError::Hostile {
                    entry: path.to_string(),
                    reason: format!("{file:?} is a file in the archive, so it cannot also be a folder"),
                });
            }
        }
    }
    Ok(())
}

/// When the archive holds one top folder with a `SKILL.md` in it (and no `SKILL.md` at the
/// top), the skill is that folder.
fn strip_single_root(entries: Vec<(RelPath, Vec<u8>)>) -> (SkillFiles, Option<String>) {
    let is_md = |p: &str| p.eq_ignore_ascii_case("SKILL.md");
    let at_top = entries.iter().any(|(p, _)| is_md(p.as_str()));
    let first = entries.first().map(|(p, _)| p.first_component().to_owned());
    let single_root = first.filter(|root| {
        !at_top
            && entries.iter().all(|(p, _)| p.first_component() == root && p.as_str().len() > root.len())
            && entries.iter().any(|(p, _)| {
                p.as_str().strip_prefix(root.as_str()).and_then(|r| r.strip_prefix('/')).is_some_and(is_md)
            })
    });
    match single_root {
        Some(root) => {
            let files = entries
                .into_iter()
                .filter_map(|(p, b)| RelPath::parse(&p.as_str()[root.len() + 1..]).ok().map(|p| (p, b)))
                .collect();
            (files, Some(root))
        }
        None => (entries.into_iter().collect(), None),
    }
}
