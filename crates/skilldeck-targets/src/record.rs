//! The ownership record: what Skilldeck wrote to each target folder (name, revision, digest,
//! how, and a stamp of the files as written), kept in `$SKILLDECK_HOME/targets/<id>.json`
//! where `<id>` is a stable id of the folder. A folder whose name is not in the record is not
//! Skilldeck's.

use crate::error::TargetError;
use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};
use skilldeck_skill::{Digest, Revision, Scope};
use std::collections::BTreeMap;
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// How a skill was delivered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// A whole copy of the revision's files.
    Copy,
    /// A symbolic link to a read-only export of the revision kept by Skilldeck (`export`).
    Link,
}

impl Mode {
    /// The mode's name as written (`copy`, `link`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Copy => "copy",
            Self::Link => "link",
        }
    }
}

/// One skill Skilldeck wrote to a folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Owned {
    /// The store scope it came from.
    pub scope: Scope,
    /// The revision written.
    pub revision: Revision,
    /// That revision's digest in the store.
    pub digest: Digest,
    /// The digest of the files as written there (equal to `digest` for a copy).
    pub written: Digest,
    /// A stamp of the written files (`folder::stamp`; for a link, of its export): equal means
    /// unchanged, unread.
    pub stamp: String,
    /// How it was written.
    pub mode: Mode,
    /// For a link: the export it points to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub export: Option<PathBuf>,
    /// When (RFC 3339, UTC).
    pub at: String,
    /// What was there before, while a replacement is under way: a sync killed between the
    /// record and the rename leaves either, and both are known as ours.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous: Option<Box<Owned>>,
}

/// Everything Skilldeck wrote to one folder.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    /// The folder, as it was resolved (links followed).
    pub folder: PathBuf,
    /// The skills, by name.
    pub skills: BTreeMap<String, Owned>,
    /// Why links cannot be made in this folder (its file system refused one), when a sync in
    /// link mode found so: later syncs copy here without trying each skill again, and try
    /// one probe link per run to notice when links work again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_links: Option<String>,
}

/// A stable id for a folder: 16 hex digits of the SHA-256 of its path with links resolved, so
/// two names of one folder (`~/.claude/skills` linked to `~/.agents/skills`) share a record.
/// A folder not made yet gets the id it will have once made: its nearest existing ancestor is
/// resolved and the rest appended.
pub fn folder_id(path: &Path) -> (String, PathBuf) {
    let real = resolved(path);
    let h = Sha256::digest(real.as_os_str().as_encoded_bytes());
    (h.iter().take(8).map(|b| format!("{b:02x}")).collect(), real)
}

/// `path` with links resolved, as far as it exists.
fn resolved(path: &Path) -> PathBuf {
    let mut rest = Vec::new();
    let mut cur = path;
    loop {
        if let Ok(real) = fs::canonicalize(cur) {
            return rest.iter().rev().fold(real, |p, part| p.join(part));
        }
        match (cur.parent(), cur.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                cur = parent;
            }
            _ => return path.to_path_buf(),
        }
    }
}

/// The records in `$SKILLDECK_HOME/targets/`.
#[derive(Debug, Clone)]
pub struct Records {
    dir: PathBuf,
}

impl Records {
    /// The records of the home at `root`.
    pub fn new(root: &Path) -> Self {
        Self { dir: root.join("targets") }
    }

    /// `targets/`.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// `targets/<id>.lock`.
    pub fn lock_path(&self, id: &str) -> PathBuf {
        self.dir.join(format!("{id}.lock"))
    }

    fn path(&self, id: &str) -> PathBuf {
        self.dir.join(format!("{id}.json"))
    }

    /// The record of folder `id`; empty when there is none yet.
    pub fn load(&self, id: &str) -> Result<Record, TargetError> {
        let path = self.path(id);
        match fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| TargetError::Io {
                context: format!("{} is not a valid record ({e}); move it away and sync again", path.display()),
                source: std::io::Error::other("invalid record"),
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Record::default()),
            Err(e) => Err(TargetError::io("read", &path)(e)),
        }
    }

    /// Every record there is (unreadable ones left out).
    pub fn all(&self) -> Vec<Record> {
        let Ok(entries) = fs::read_dir(&self.dir) else { return Vec::new() };
        entries
            .flatten()
            .filter_map(|e| {
                let name = e.file_name().to_str()?.to_owned();
                let id = name.strip_suffix(".json").filter(|_| !name.starts_with('.'))?.to_owned();
                self.load(&id).ok()
            })
            .collect()
    }

    /// Writes the record of folder `id` beside its place and renames it in, so a reader (or a
    /// crash) sees the old record or the new one whole.
    pub fn save(&self, id: &str, record: &Record) -> Result<(), TargetError> {
        fs::create_dir_all(&self.dir).map_err(TargetError::io("create", &self.dir))?;
        let path = self.path(id);
        let temp = self.dir.join(format!(".{id}.json.{}", std::process::id()));
        let json = serde_json::to_vec_pretty(record).map_err(|e| TargetError::Io {
            context: "could not encode the record".to_owned(),
            source: std::io::Error::other(e),
        })?;
        let write = || -> std::io::Result<()> {
            let mut f = fs::File::create(&temp)?;
            f.write_all(&json)?;
            f.sync_all()
        };
        write().map_err(TargetError::io("write", &temp))?;
        fs::rename(&temp, &path).map_err(|e| {
            let _ = fs::remove_file(&temp);
            TargetError::io("replace", &path)(e)
        })
    }
}

/// Now, RFC 3339 UTC.
pub fn now() -> String {
    time::OffsetDateTime::now_utc().format(&time::format_description::well_known::Rfc3339).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_keeps_its_id_when_it_is_made_below_a_link() {
        let tmp = tempfile::tempdir().ok();
        let Some(tmp) = tmp else { return };
        let real = tmp.path().join("real");
        fs::create_dir_all(&real).ok();
        std::os::unix::fs::symlink(&real, tmp.path().join("link")).ok();
        let target = tmp.path().join("link/.tool/skills");
        let before = folder_id(&target);
        fs::create_dir_all(&target).ok();
        assert!(target.is_dir());
        assert_eq!(folder_id(&target), before);
        assert_eq!(before.0, folder_id(&real.join(".tool/skills")).0);
    }
}
