//! Reading a target folder: its entries, and a skill folder's content digest and cheap stamp.
//! Holds no decisions; `state` classifies what is read here.

use sha2::{Digest as _, Sha256};
use skilldeck_skill::{Digest, RelPath};
use std::fs;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};

/// The prefix of every entry Skilldeck stages or sets aside inside a target folder. Entries
/// with it are Skilldeck's own leftovers (a sync that was killed) and are cleaned up under the
/// folder's lock.
pub const TEMP_PREFIX: &str = ".skilldeck-";

/// Names the core's import reader passes over wherever they are in a skill (tool and OS
/// litter, the store's sidecars). The store never holds them, so a folder holding one holds
/// more than any revision: it is never Skilldeck's to replace or remove.
pub const NOT_STORED: &[&str] = skilldeck_store::import::IGNORED;

/// Whether the store would hold the entry at `rel` (relative to the skill's folder) as it is:
/// a regular file with a valid skill path, none of whose names the import reader passes over.
fn stored(rel: &str, meta: &fs::Metadata) -> Option<RelPath> {
    let rel = RelPath::parse(rel).ok()?;
    let skipped = rel.as_str().split('/').any(|part| NOT_STORED.contains(&part));
    (meta.is_file() && !skipped).then_some(rel)
}

/// Why the store would not hold the entry at `rel` in the skill folder `dir` (one of
/// `Content::extras`), in a few words for people.
pub fn why_not_stored(dir: &Path, rel: &str) -> &'static str {
    match fs::symlink_metadata(dir.join(rel)) {
        Ok(m) if m.file_type().is_symlink() => "a symbolic link",
        Ok(m) if !m.is_file() => "not a regular file",
        _ if RelPath::parse(rel).is_err() => "a name the store refuses",
        _ => "left out by the store",
    }
}

/// What kind of entry a skill's name holds in a target folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// A real folder.
    Folder,
    /// A symbolic link (to a folder or not): never written through.
    Link,
    /// A file or anything else.
    Other,
}

/// The visible entries of a target folder (hidden names, such as staging, left out), sorted.
pub fn entries(dir: &Path) -> std::io::Result<Vec<(String, Kind)>> {
    let mut out = Vec::new();
    for e in fs::read_dir(dir)? {
        let e = e?;
        let Some(name) = e.file_name().to_str().map(str::to_owned) else { continue };
        if name.starts_with('.') {
            continue;
        }
        let ft = e.file_type()?;
        let kind = if ft.is_symlink() {
            Kind::Link
        } else if ft.is_dir() {
            Kind::Folder
        } else {
            Kind::Other
        };
        out.push((name, kind));
    }
    out.sort();
    Ok(out)
}

/// One file found in a skill folder.
struct Found {
    rel: String,
    path: PathBuf,
    meta: fs::Metadata,
}

/// Every entry below `dir` that is not a folder, sorted by relative path. Links are not followed.
fn walk(dir: &Path) -> std::io::Result<Vec<Found>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d)? {
            let e = e?;
            let path = e.path();
            let meta = fs::symlink_metadata(&path)?;
            if meta.is_dir() {
                stack.push(path);
                continue;
            }
            let rel = path.strip_prefix(dir).unwrap_or(&path).to_string_lossy().into_owned();
            out.push(Found { rel, path, meta });
        }
    }
    out.sort_by(|a, b| a.rel.cmp(&b.rel));
    Ok(out)
}

/// A cheap fingerprint of a skill folder from its files' names, sizes, modes, inodes and change
/// times, without reading them: equal stamps mean nothing was edited since it was taken. An
/// entry the store would not hold is marked in it, so a folder holding one never has the stamp
/// of a folder Skilldeck wrote (it is read, and found to hold more than the store has).
pub fn stamp(dir: &Path) -> std::io::Result<String> {
    let mut h = Sha256::new();
    for f in walk(dir)? {
        h.update(f.rel.as_bytes());
        h.update(if stored(&f.rel, &f.meta).is_some() { [0] } else { [1] });
        for n in
            [f.meta.len(), u64::from(f.meta.mode()), f.meta.ino(), f.meta.ctime() as u64, f.meta.ctime_nsec() as u64]
        {
            h.update(n.to_le_bytes());
        }
        h.update(f.meta.mtime().to_le_bytes());
        h.update(f.meta.mtime_nsec().to_le_bytes());
    }
    let out = h.finalize();
    Ok(out.iter().take(16).map(|b| format!("{b:02x}")).collect())
}

/// How a skill's entry looked, cheaply: two equal looks mean it was not edited between them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Look {
    /// A real folder, by its stamp.
    Folder(String),
    /// A symbolic link: its target, and for a link into an export of Skilldeck's, the stamp
    /// of that export (an edit made through the link changes it).
    Link {
        /// Where it points.
        target: PathBuf,
        /// The stamp of what it points to, when that was looked at too (`None` once gone).
        stamp: Option<String>,
    },
}

/// What the entry at `path` is now: a folder's stamp, or a link's target (and, when
/// `through` is set, the stamp of the folder it points to, `None` when that is gone).
pub fn look(path: &Path, through: bool) -> std::io::Result<Look> {
    if fs::symlink_metadata(path)?.file_type().is_symlink() {
        let target = fs::read_link(path)?;
        let stamp = if through { stamp(path).ok() } else { None };
        Ok(Look::Link { target, stamp })
    } else {
        stamp(path).map(Look::Folder)
    }
}

impl Look {
    /// How the entry at `path` looks now, looked at the way this look was taken.
    pub fn again(&self, path: &Path) -> std::io::Result<Look> {
        let through = matches!(self, Self::Link { stamp: Some(_), .. });
        look(path, through)
    }
}

/// A skill folder's content as the store would digest it, and what the store would not hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Content {
    /// The digest over its regular files (the store's rule: sorted `(path, bytes)`).
    pub digest: Digest,
    /// Entries the store would not hold: not regular files, not valid skill paths (links,
    /// pipes, odd names), or passed over by the import reader (`.git`, sidecars, …).
    pub extras: Vec<String>,
}

/// A skill folder's files as the store would hold them (sorted by path), and the entries it
/// would not hold (links, pipes, odd names, sidecars).
pub type Files = (Vec<(RelPath, Vec<u8>)>, Vec<String>);

/// Reads every file of the skill folder at `dir`.
pub fn files(dir: &Path) -> std::io::Result<Files> {
    let mut pairs = Vec::new();
    let mut extras = Vec::new();
    for f in walk(dir)? {
        match stored(&f.rel, &f.meta) {
            Some(rel) => pairs.push((rel, fs::read(&f.path)?)),
            None => extras.push(f.rel),
        }
    }
    Ok((pairs, extras))
}

/// Reads every file of the skill folder at `dir` and digests it.
pub fn content(dir: &Path) -> std::io::Result<Content> {
    let (pairs, extras) = files(dir)?;
    let digest = Digest::of(pairs.iter().map(|(p, b)| (p, b.as_slice())));
    Ok(Content { digest, extras })
}
