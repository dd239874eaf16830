//! Reading skills from a `.zip`/`.skill` archive: every entry checked before it is trusted.
//! Holds the archive reader for one skill and for each skill of a collection; not folders.

use super::error::{ImportError, io_err};
use super::folder::IGNORED;
use super::loaded::Progress;
use skilldeck_skill::files::{LimitError, LimitMeter, SkillFiles, UploadLimits};
use skilldeck_skill::relpath::RelPath;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

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

/// Entries read from an archive: each path and its bytes.
type Entries = Vec<(RelPath, Vec<u8>)>;

/// An opened zip archive: its entry names are read once, so a collection of thousands of
/// skills is grouped in one pass and each skill then reads only its own entries.
pub(crate) struct Archive {
    path: PathBuf,
    zip: zip::ZipArchive<fs::File>,
    /// Each entry's name as stored (lossy UTF-8), without a trailing `/`, and whether it is a
    /// folder entry.
    names: Vec<(String, bool)>,
}

impl Archive {
    /// Opens the archive at `path` and reads its directory. An archive holding one name twice
    /// is refused whole: the reader keeps one entry per name, so a second `SKILL.md` would
    /// silently replace the first.
    pub(crate) fn open(path: &Path) -> Result<Self, ImportError> {
        let file = fs::File::open(path).map_err(io_err(path))?;
        let zip = zip::ZipArchive::new(file).map_err(archive_err(path))?;
        if zip.has_duplicate_names() {
            return Err(ImportError::Archive {
                path: path.to_path_buf(),
                reason: "it holds two entries with the same name, and only one could be kept; pack it again with one \
                         copy of each file"
                    .to_owned(),
            });
        }
        let names: Vec<(String, bool)> = (0..zip.len())
            .map(|i| match zip.name_for_index(i) {
                Some(Ok(n)) => (n.trim_end_matches('/').to_owned(), n.ends_with('/')),
                _ => (String::new(), false),
            })
            .collect();
        for (name, _) in &names {
            refuse_unsafe_name(name)?;
        }
        Ok(Self { path: path.to_path_buf(), zip, names })
    }

    /// Whether the archive is one skill, as before collections: a `SKILL.md` (any case) at its
    /// top, or one top folder holding one.
    pub(crate) fn is_one_skill(&self) -> bool {
        let is_md = |p: &str| p.eq_ignore_ascii_case("SKILL.md");
        if self.names.iter().any(|(n, dir)| !dir && is_md(n)) {
            return true;
        }
        let Some(root) = self.names.first().map(|(n, _)| n.split('/').next().unwrap_or_default()) else {
            return false;
        };
        self.names.iter().all(|(n, _)| n.split('/').next() == Some(root))
            && self
                .names
                .iter()
                .any(|(n, dir)| !dir && n.strip_prefix(root).and_then(|r| r.strip_prefix('/')).is_some_and(is_md))
    }

    /// The folders of a collection archive that hold a `SKILL.md` (any case), sorted, never one
    /// inside another, never under a hidden folder, `node_modules` or `__MACOSX`; each with the
    /// indices of the entries beneath it.
    pub(crate) fn skill_folders(&self) -> Vec<(String, Vec<usize>)> {
        let mut found: Vec<&str> = self
            .names
            .iter()
            .filter(|(_, dir)| !dir)
            .filter_map(|(n, _)| {
                let (folder, file) = n.rsplit_once('/')?;
                (file.eq_ignore_ascii_case("SKILL.md") && RelPath::parse(folder).is_ok()).then_some(folder)
            })
            .filter(|folder| folder.split('/').all(|c| !super::folder::passed_over(c)))
            .collect();
        found.sort_unstable();
        found.dedup();
        let all: std::collections::HashSet<&str> = found.iter().copied().collect();
        let outermost: Vec<&str> = found.into_iter().filter(|f| !ancestors(f).any(|a| all.contains(a))).collect();
        let index: std::collections::HashMap<&str, usize> =
            outermost.iter().enumerate().map(|(i, f)| (*f, i)).collect();
        let mut members: Vec<Vec<usize>> = vec![Vec::new(); outermost.len()];
        for (i, (name, _)) in self.names.iter().enumerate() {
            if let Some(k) = ancestors(name).find_map(|a| index.get(a)) {
                members[*k].push(i);
            }
        }
        outermost.into_iter().map(str::to_owned).zip(members).collect()
    }

    /// Reads the whole archive as one skill. Returns the files, skipped entries and the
    /// archive's top folder when the skill sits in one.
    pub(crate) fn read_one_skill(
        &mut self,
        limits: UploadLimits,
        progress: Progress<'_>,
    ) -> Result<(SkillFiles, Vec<String>, Option<String>), ImportError> {
        let all: Vec<usize> = (0..self.names.len()).collect();
        let (entries, skipped) = self.read_entries(&all, "", limits, progress)?;
        let (files, root) = strip_single_root(entries);
        files.check_limits(limits)?;
        Ok((files, skipped, root))
    }

    /// Reads the skill in `folder` of a collection archive: the entries at `indices`, named
    /// relative to `folder`.
    pub(crate) fn read_skill_in(
        &mut self,
        folder: &str,
        indices: &[usize],
        limits: UploadLimits,
    ) -> Result<(SkillFiles, Vec<String>), ImportError> {
        let (entries, skipped) = self.read_entries(indices, &format!("{folder}/"), limits, &mut |_, _| {})?;
        let files: SkillFiles = entries.into_iter().collect();
        files.check_limits(limits)?;
        Ok((files, skipped))
    }

    /// Reads the entries at `indices`, each named without `prefix`. Every entry is checked
    /// before its bytes are trusted: names that leave the root, absolute names, links and
    /// special files are refused; sizes are capped while inflating, so a zip bomb stops at the
    /// limit.
    fn read_entries(
        &mut self,
        indices: &[usize],
        prefix: &str,
        limits: UploadLimits,
        progress: Progress<'_>,
    ) -> Result<(Entries, Vec<String>), ImportError> {
        let path = self.path.clone();
        let mut meter = LimitMeter::new(limits);
        let total: u64 = indices.iter().filter_map(|&i| self.zip.by_index_raw(i).ok().map(|f| f.size())).sum();
        let mut done = 0;
        let mut entries: Vec<(RelPath, Vec<u8>)> = Vec::new();
        let mut skipped = Vec::new();
        for &i in indices {
            let entry = self.zip.by_index(i).map_err(archive_err(&path))?;
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
            let inside = trimmed.strip_prefix(prefix).unwrap_or(trimmed);
            let rel = RelPath::parse(inside).map_err(|e| hostile(&e.to_string()))?;
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
            entry.take(limits.max_file_bytes + 1).read_to_end(&mut bytes).map_err(io_err(&path))?;
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
        Ok((entries, skipped))
    }
}

/// Refuses the whole archive when one entry's name could be written outside wherever it is
/// unpacked: absolute (`/tmp/x`, `\\server\x`), climbing out (`../x`, `evil\..\x`), a drive prefix
/// or a control character. The archive-safety rules of the Agent Skills format reject such an
/// archive outright, so an entry outside every skill of a collection is no reason to drop it
/// quietly and import the rest.
fn refuse_unsafe_name(name: &str) -> Result<(), ImportError> {
    use skilldeck_skill::relpath::PathError;
    let unsafe_reason = match RelPath::parse(name) {
        Err(
            e @ (PathError::Absolute
            | PathError::ParentDir
            | PathError::Backslash
            | PathError::DrivePrefix
            | PathError::ControlChar),
        ) => e.to_string(),
        _ => return Ok(()),
    };
    Err(ImportError::Hostile {
        entry: name.to_owned(),
        reason: format!(
            "the archive is unsafe: this entry's name could be unpacked outside its folder ({unsafe_reason}); \
             nothing from this archive is stored. Ask its author for an archive whose names are all relative, with `/` \
             between folders"
        ),
    })
}

/// The proper ancestors of a `/`-separated path, nearest first: `a/b/c` gives `a/b`, `a`.
fn ancestors(path: &str) -> impl Iterator<Item = &str> {
    path.match_indices('/').map(|(i, _)| &path[..i]).collect::<Vec<_>>().into_iter().rev()
}

fn archive_err(path: &Path) -> impl Fn(zip::result::ZipError) -> ImportError + '_ {
    move |e| ImportError::Archive { path: path.to_path_buf(), reason: e.to_string() }
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
