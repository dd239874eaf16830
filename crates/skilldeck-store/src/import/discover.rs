//! Finding the skills an import path holds: one skill, or a collection of many.
//! Holds `Source` (an opened path and each skill in it) and `discover`; not storing them.
//!
//! A path is one skill when it is a `SKILL.md`, a folder with a `SKILL.md` (any case) at its
//! top, or an archive with one at its top or under its one top folder: read as before
//! collections. Otherwise it is a collection: every folder below it holding a `SKILL.md` is a
//! skill (`skills/<name>/`, `<category>/<name>/`, …), found without descending into a skill's
//! own folder, a hidden folder, `node_modules`, or a link.

use super::archive::Archive;
use super::error::ImportError;
use super::folder;
use super::folder::passed_over;
use super::loaded::{LoadedSkill, Progress, file_name, finish, has_archive_ext, resolve_link};
use super::single::load;
use serde::Serialize;
use skilldeck_skill::files::UploadLimits;
use std::fs;
use std::path::{Path, PathBuf};

/// How deep below a collection's top skill folders are looked for.
const MAX_DEPTH: usize = 12;

/// The location of the skill that is the whole import path.
pub const WHOLE: &str = ".";

/// What an import path holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum Layout {
    /// The path is one skill.
    Skill,
    /// The path holds many skills, each in its own folder.
    Collection,
}

/// An import path, opened: the skills it holds, each read on demand.
pub struct Source {
    path: PathBuf,
    kind: Kind,
}

enum Kind {
    /// The whole path is one skill.
    Skill(PathBuf),
    /// A folder holding skill folders at these locations (relative, `/`-separated).
    Folder { root: PathBuf, folders: Vec<String> },
    /// An archive holding skill folders, each with the indices of its entries.
    Archive { archive: Box<Archive>, folders: Vec<(String, Vec<usize>)> },
}

impl std::fmt::Debug for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Source").field("path", &self.path).field("skills", &self.len()).finish()
    }
}

impl Source {
    /// Opens `path` and finds the skills in it, reading none of them yet. Fails only when the
    /// path itself cannot be used: missing, unsupported, an unreadable archive, or a folder
    /// with no `SKILL.md` anywhere below it.
    pub fn open(path: &Path) -> Result<Self, ImportError> {
        let meta = fs::symlink_metadata(path).map_err(|_| ImportError::NotFound(path.to_path_buf()))?;
        let real = if meta.file_type().is_symlink() { resolve_link(path)? } else { path.to_path_buf() };
        let meta = fs::metadata(&real).map_err(|_| ImportError::NotFound(path.to_path_buf()))?;
        let kind = if meta.is_dir() {
            if has_skill_md(&real) {
                Kind::Skill(real)
            } else {
                let folders = skill_folders(&real);
                if folders.is_empty() {
                    return Err(ImportError::NotASkill(path.to_path_buf()));
                }
                Kind::Folder { root: real, folders }
            }
        } else if meta.is_file() && has_archive_ext(&real) {
            let archive = Archive::open(&real)?;
            let folders = if archive.is_one_skill() { Vec::new() } else { archive.skill_folders() };
            if folders.is_empty() { Kind::Skill(real) } else { Kind::Archive { archive: Box::new(archive), folders } }
        } else {
            // A SKILL.md, or something `load` refuses with the reason.
            Kind::Skill(real)
        };
        Ok(Self { path: path.to_path_buf(), kind })
    }

    /// Whether `path` is one skill or a collection, without searching a collection: a quick
    /// look at its top (an archive's directory). A path that cannot be used is `Skill`, the
    /// layout whose reader says what is wrong with it.
    pub fn layout_of(path: &Path) -> Layout {
        let real = fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        let Ok(meta) = fs::metadata(&real) else { return Layout::Skill };
        if meta.is_dir() {
            return if has_skill_md(&real) { Layout::Skill } else { Layout::Collection };
        }
        if meta.is_file() && has_archive_ext(&real) {
            return match Archive::open(&real) {
                Ok(a) if !a.is_one_skill() && !a.skill_folders().is_empty() => Layout::Collection,
                _ => Layout::Skill,
            };
        }
        Layout::Skill
    }

    /// The path as it was given.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the path is one skill or a collection.
    pub fn layout(&self) -> Layout {
        match self.kind {
            Kind::Skill(_) => Layout::Skill,
            Kind::Folder { .. } | Kind::Archive { .. } => Layout::Collection,
        }
    }

    /// How many skills it holds.
    pub fn len(&self) -> usize {
        match &self.kind {
            Kind::Skill(_) => 1,
            Kind::Folder { folders, .. } => folders.len(),
            Kind::Archive { folders, .. } => folders.len(),
        }
    }

    /// Whether it holds no skill (never, once opened).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Where skill `index` is inside the path: `.` for the path itself, else its folder
    /// relative to the path, `/`-separated (`skills/pdf`).
    pub fn location(&self, index: usize) -> &str {
        match &self.kind {
            Kind::Skill(_) => WHOLE,
            Kind::Folder { folders, .. } => folders.get(index).map_or(WHOLE, String::as_str),
            Kind::Archive { folders, .. } => folders.get(index).map_or(WHOLE, |(f, _)| f.as_str()),
        }
    }

    /// Reads skill `index`, with the checks and limits of a one-skill import. An error here
    /// is this skill's alone.
    pub fn load(
        &mut self,
        index: usize,
        limits: UploadLimits,
        progress: Progress<'_>,
    ) -> Result<LoadedSkill, ImportError> {
        match &mut self.kind {
            Kind::Skill(path) => load(path, limits, progress),
            Kind::Folder { root, folders } => {
                let location = folders.get(index).ok_or_else(|| ImportError::NotFound(root.clone()))?;
                let dir = root.join(location);
                // Found as a real folder; refused should it have become a link since.
                if !fs::symlink_metadata(&dir).is_ok_and(|m| m.is_dir()) {
                    return Err(ImportError::Hostile {
                        entry: location.clone(),
                        reason: "it is no longer a folder (a link now?); links are never followed".to_owned(),
                    });
                }
                let (files, skipped) = folder::read_folder(&dir, limits, progress)?;
                finish(files, skipped, file_name(&dir), &dir)
            }
            Kind::Archive { archive, folders } => {
                let (location, indices) = folders.get(index).ok_or_else(|| ImportError::NotFound(self.path.clone()))?;
                let (files, skipped) = archive.read_skill_in(location, indices, limits)?;
                let fallback = location.rsplit('/').next().unwrap_or_default().to_owned();
                finish(files, skipped, fallback, &self.path.join(location))
            }
        }
    }
}

/// Whether the folder has a `SKILL.md` (any case) at its top, of whatever type: a link there
/// makes it a skill that the reader then refuses, never a collection.
fn has_skill_md(dir: &Path) -> bool {
    fs::symlink_metadata(dir.join("SKILL.md")).is_ok()
        || fs::read_dir(dir).is_ok_and(|rd| {
            rd.filter_map(Result::ok)
                .any(|e| e.file_name().to_str().is_some_and(|n| n.eq_ignore_ascii_case("SKILL.md")))
        })
}

/// The folders below `root` that hold a `SKILL.md`, relative and sorted. A skill's own folder
/// is not searched further; links, hidden folders and `node_modules` are never entered.
fn skill_folders(root: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack: Vec<(PathBuf, String, usize)> = vec![(root.to_path_buf(), String::new(), 0)];
    while let Some((dir, rel, depth)) = stack.pop() {
        let Ok(rd) = fs::read_dir(&dir) else { continue };
        let mut subdirs = Vec::new();
        let mut is_skill = false;
        for entry in rd.filter_map(Result::ok) {
            let Some(name) = entry.file_name().to_str().map(str::to_owned) else { continue };
            if name.eq_ignore_ascii_case("SKILL.md") {
                is_skill = true;
                break;
            }
            // `file_type` does not follow links: a link to a folder is not a folder here.
            if entry.file_type().is_ok_and(|t| t.is_dir()) && !passed_over(&name) {
                subdirs.push(name);
            }
        }
        if is_skill && !rel.is_empty() {
            found.push(rel);
            continue;
        }
        if depth >= MAX_DEPTH {
            continue;
        }
        for name in subdirs {
            let child = if rel.is_empty() { name.clone() } else { format!("{rel}/{name}") };
            stack.push((dir.join(&name), child, depth + 1));
        }
    }
    found.sort_unstable();
    found
}

/// One skill found in an import path: where, and what reading it gave.
#[derive(Debug)]
pub struct Found {
    /// Where it is inside the path (`.` for the path itself, else `skills/pdf`).
    pub location: String,
    /// The skill read and validated, or why it was refused.
    pub result: Result<LoadedSkill, ImportError>,
}

/// Everything an import path holds, each skill read and validated, nothing stored.
#[derive(Debug)]
pub struct Discovered {
    /// The path as given.
    pub path: PathBuf,
    /// One skill, or a collection.
    pub layout: Layout,
    /// Each skill found, by location. A broken one is an item with its error, never the end
    /// of the others.
    pub skills: Vec<Found>,
}

/// Opens `path` and reads every skill in it. The error is the path's own (missing, not a
/// skill nor a collection, an unreadable archive); each skill's problems are in its item.
///
/// Every skill's files are held in memory: for a preview of a large collection, prefer
/// `preview_all`, which keeps only what it shows.
pub fn discover(path: &Path, limits: UploadLimits) -> Result<Discovered, ImportError> {
    let mut source = Source::open(path)?;
    let skills = (0..source.len())
        .map(|i| Found { location: source.location(i).to_owned(), result: source.load(i, limits, &mut |_, _| {}) })
        .collect();
    Ok(Discovered { path: path.to_path_buf(), layout: source.layout(), skills })
}
