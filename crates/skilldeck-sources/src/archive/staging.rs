//! `Staging`: where an archive is unpacked, beside its destination, under the upload limits;
//! moved into place whole only when every entry passed. Holds the writes and the limits; no
//! archive format.

use super::error::{ArchiveError, Hostility};
use super::kind::ArchiveKind;
use skilldeck_skill::UploadLimits;
use skilldeck_skill::relpath::RelPath;
use std::collections::HashMap;
use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// What unpacking an archive wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unpacked {
    /// The folder the files are in.
    pub dir: PathBuf,
    /// How many files.
    pub files: usize,
    /// Their bytes in all, as inflated.
    pub bytes: u64,
    /// The single top folder the archive wrapped the skill in, taken away (see
    /// [`extract`](super::extract)).
    pub stripped_root: Option<String>,
    /// Entries passed over as litter (`__MACOSX/…`, `.DS_Store`, `.git/…`), as named.
    pub skipped: Vec<String>,
    /// Whether `SKILL.md` (any case) is at the top of `dir`.
    pub has_skill_md: bool,
}

/// An archive being unpacked into a hidden folder beside `dest`.
pub(crate) struct Staging {
    kind: ArchiveKind,
    tmp: tempfile::TempDir,
    dest: PathBuf,
    limits: UploadLimits,
    files: usize,
    folders: usize,
    bytes: u64,
    /// Each path written, by its lower-case form: the name as written and whether a folder.
    seen: HashMap<String, (String, bool)>,
    skipped: Vec<String>,
}

impl Staging {
    /// A staging folder for `dest`, which must not exist; its parent is made when missing.
    pub(crate) fn new(kind: ArchiveKind, dest: &Path, limits: UploadLimits) -> Result<Self, ArchiveError> {
        if fs::symlink_metadata(dest).is_ok() {
            return Err(ArchiveError::DestinationExists { path: dest.to_path_buf() });
        }
        let parent = match dest.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        fs::create_dir_all(parent).map_err(ArchiveError::io(parent))?;
        let tmp = tempfile::Builder::new()
            .prefix(".skilldeck-unpack-")
            .tempdir_in(parent)
            .map_err(ArchiveError::io(parent))?;
        Ok(Self {
            kind,
            tmp,
            dest: dest.to_path_buf(),
            limits,
            files: 0,
            folders: 0,
            bytes: 0,
            seen: HashMap::new(),
            skipped: Vec::new(),
        })
    }

    /// The limits applied.
    pub(crate) fn limits(&self) -> UploadLimits {
        self.limits
    }

    /// Notes an entry passed over.
    pub(crate) fn skip(&mut self, raw: &str) {
        self.skipped.push(raw.to_owned());
    }

    /// Makes the folder `path` (entry `raw`).
    pub(crate) fn folder(&mut self, raw: &str, path: &RelPath) -> Result<(), ArchiveError> {
        if let Some((other, is_folder)) = self.seen.get(&path.as_str().to_lowercase()) {
            if *is_folder && other == path.as_str() {
                return Ok(());
            }
            return Err(ArchiveError::hostile(raw, Hostility::Duplicate { other: other.clone() }));
        }
        self.check_parents(raw, path)?;
        self.folders += 1;
        if self.folders > self.limits.max_files {
            return Err(ArchiveError::TooManyEntries { limit: self.limits.max_files });
        }
        self.seen.insert(path.as_str().to_lowercase(), (path.as_str().to_owned(), true));
        let at = path.under(self.tmp.path());
        fs::create_dir_all(&at).map_err(ArchiveError::io(&at))
    }

    /// Writes the file `path` (entry `raw`) from `body`, counting the bytes as they inflate:
    /// the per-file and total limits stop it as soon as they are passed, whatever the archive's
    /// headers claimed.
    pub(crate) fn file(&mut self, raw: &str, path: &RelPath, body: &mut dyn Read) -> Result<(), ArchiveError> {
        if let Some((other, _)) = self.seen.get(&path.as_str().to_lowercase()) {
            return Err(ArchiveError::hostile(raw, Hostility::Duplicate { other: other.clone() }));
        }
        self.check_parents(raw, path)?;
        self.files += 1;
        if self.files > self.limits.max_files {
            return Err(ArchiveError::TooManyEntries { limit: self.limits.max_files });
        }
        self.seen.insert(path.as_str().to_lowercase(), (path.as_str().to_owned(), false));
        let at = path.under(self.tmp.path());
        if let Some(parent) = at.parent() {
            fs::create_dir_all(parent).map_err(ArchiveError::io(parent))?;
        }
        // `create_new`: nothing already there is opened, so no link (none is ever made) is
        // followed.
        let mut out = fs::OpenOptions::new().write(true).create_new(true).open(&at).map_err(ArchiveError::io(&at))?;
        let mut written: u64 = 0;
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let n = match body.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    let reason = format!("inflating entry {raw:?} failed: {e}");
                    return Err(ArchiveError::Corrupt { kind: self.kind, reason });
                }
            };
            written += n as u64;
            self.bytes += n as u64;
            if written > self.limits.max_file_bytes {
                return Err(ArchiveError::FileTooLarge {
                    entry: raw.to_owned(),
                    at_least: written,
                    limit: self.limits.max_file_bytes,
                });
            }
            if self.bytes > self.limits.max_total_bytes {
                return Err(ArchiveError::TotalTooLarge {
                    entry: raw.to_owned(),
                    at_least: self.bytes,
                    limit: self.limits.max_total_bytes,
                });
            }
            out.write_all(&buf[..n]).map_err(ArchiveError::io(&at))?;
        }
        Ok(())
    }

    /// Refuses `path` when one of its parent folders is a file of the archive.
    fn check_parents(&self, raw: &str, path: &RelPath) -> Result<(), ArchiveError> {
        let text = path.as_str();
        for (i, _) in text.match_indices('/') {
            if let Some((file, false)) = self.seen.get(&text[..i].to_lowercase()) {
                return Err(ArchiveError::hostile(raw, Hostility::FileAsFolder { file: file.clone() }));
            }
        }
        Ok(())
    }

    /// Moves what was unpacked to `dest`. When the archive has no `SKILL.md` at its top but one
    /// top folder holding a `SKILL.md`, that folder becomes `dest`.
    pub(crate) fn finish(self) -> Result<Unpacked, ArchiveError> {
        let is_md = |p: &str| p.eq_ignore_ascii_case("SKILL.md");
        let file_at = |p: &str| self.seen.get(&p.to_lowercase()).is_some_and(|(_, folder)| !folder);
        let top: std::collections::BTreeSet<&str> =
            self.seen.values().map(|(p, _)| p.split('/').next().unwrap_or(p)).collect();
        let at_top = top.iter().any(|p| is_md(p) && file_at(p));
        let single_root = match top.iter().collect::<Vec<_>>().as_slice() {
            [root] if !at_top && !file_at(root) && file_at(&format!("{root}/SKILL.md")) => Some((**root).to_owned()),
            _ => None,
        };
        let has_skill_md = at_top || single_root.is_some();
        let dest = self.dest.clone();
        match &single_root {
            Some(root) => {
                let from = self.tmp.path().join(root);
                fs::rename(&from, &dest).map_err(ArchiveError::io(&dest))?;
                // `self.tmp`, now empty, goes when dropped.
            }
            None => {
                let kept = self.tmp.keep();
                if let Err(e) = fs::rename(&kept, &dest) {
                    let _ = fs::remove_dir_all(&kept);
                    return Err(ArchiveError::io(&dest)(e));
                }
            }
        }
        Ok(Unpacked {
            dir: dest,
            files: self.files,
            bytes: self.bytes,
            stripped_root: single_root,
            skipped: self.skipped,
            has_skill_md,
        })
    }
}
