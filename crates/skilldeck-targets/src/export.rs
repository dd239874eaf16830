//! Exports for link mode: a clean, read-only copy of one revision of a skill, kept by Skilldeck
//! in `$SKILLDECK_HOME/exports/<scope>/<name>/r<rev>-<digest>/`, which target entries link to.
//! Never the store's own folder (its sidecars and its in-place edits stay out of the agents'
//! sight). Made beside its place and renamed in; removed once no record names it. An export
//! that no longer holds its revision was edited through a link: it is never rewritten (links
//! elsewhere may show that edit, reported drifted there), and a fresh one is made beside it.

use crate::error::TargetError;
use crate::folder;
use crate::lock::FolderLock;
use crate::record::Record;
use crate::stage::stage;
use skilldeck_skill::{Revision, Scope, SkillFiles};
use std::collections::BTreeSet;
use std::fs;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

/// The exports of one Skilldeck home.
#[derive(Debug, Clone)]
pub struct Exports {
    dir: PathBuf,
    lock: PathBuf,
}

impl Exports {
    /// The exports of the home at `root`.
    pub fn new(root: &Path) -> Self {
        Self { dir: root.join("exports"), lock: root.join("targets").join("exports.lock") }
    }

    /// Whether any export was ever made.
    pub fn exists(&self) -> bool {
        self.dir.is_dir()
    }

    /// Held while an export is made and recorded, and while unused ones are removed, so a
    /// cleaner never removes an export a sync is about to record.
    pub fn lock(&self) -> Result<FolderLock, TargetError> {
        FolderLock::acquire(&self.lock)
    }

    /// Where the export of that revision lives: `r<rev>-<digest>`, or when one there was
    /// edited, the first of `r<rev>-<digest>-2`, `-3`, … (`n`) not edited.
    fn path(&self, scope: Scope, name: &str, revision: Revision, files: &SkillFiles, n: u32) -> PathBuf {
        let hex = files.digest().to_hex();
        let short = hex.get(..12).unwrap_or(&hex);
        let suffix = if n > 1 { format!("-{n}") } else { String::new() };
        self.dir.join(scope.as_str()).join(name).join(format!("r{revision}-{short}{suffix}"))
    }

    /// The export of that revision, made now unless it is there whole. One there that does not
    /// hold it was edited through a link, or damaged: it is left as it is (records may name
    /// it; the next unused-export cleaning removes it otherwise) and the export is made under
    /// the next free name. The caller holds `lock`.
    pub fn ensure(
        &self,
        scope: Scope,
        name: &str,
        revision: Revision,
        files: &SkillFiles,
    ) -> Result<PathBuf, TargetError> {
        let mut n = 1;
        let path = loop {
            let path = self.path(scope, name, revision, files, n);
            if fs::symlink_metadata(&path).is_err() {
                break path;
            }
            if path.is_dir() && folder::content(&path).is_ok_and(|c| c.digest == files.digest() && c.extras.is_empty())
            {
                return Ok(path);
            }
            n += 1;
        };
        let parent = path.parent().unwrap_or(&self.dir).to_path_buf();
        fs::create_dir_all(&parent).map_err(TargetError::io("create", &parent))?;
        let staged = parent.join(format!(".staging-{}-{name}", std::process::id()));
        remove_tree(&staged);
        stage(&staged, files).map_err(TargetError::io("write", &staged))?;
        read_only(&staged).map_err(TargetError::io("protect", &staged))?;
        fs::rename(&staged, &path).map_err(|e| {
            remove_tree(&staged);
            TargetError::io("move into place", &path)(e)
        })?;
        Ok(path)
    }

    /// Removes every export no record names, and any leftover staging. The caller holds `lock`.
    pub fn clean(&self, records: &[Record]) {
        let mut used = BTreeSet::new();
        for r in records {
            for o in r.skills.values() {
                used.extend(o.export.clone());
                used.extend(o.previous.as_ref().and_then(|p| p.export.clone()));
            }
        }
        let Ok(scopes) = fs::read_dir(&self.dir) else { return };
        for scope in scopes.flatten() {
            let Ok(names) = fs::read_dir(scope.path()) else { continue };
            for name in names.flatten() {
                let Ok(exports) = fs::read_dir(name.path()) else { continue };
                for e in exports.flatten() {
                    let p = e.path();
                    if !used.contains(&p) {
                        remove_tree(&p);
                    }
                }
                let _ = fs::remove_dir(name.path());
            }
        }
    }
}

/// Makes every file below `dir` read-only (executables stay executable) and every folder
/// read-only, the top one last.
fn read_only(dir: &Path) -> std::io::Result<()> {
    for e in fs::read_dir(dir)? {
        let e = e?;
        let ft = e.file_type()?;
        if ft.is_dir() {
            read_only(&e.path())?;
        } else if ft.is_file() {
            let mode = e.metadata()?.permissions().mode();
            let ro = if mode & 0o100 != 0 { 0o555 } else { 0o444 };
            fs::set_permissions(e.path(), fs::Permissions::from_mode(ro))?;
        }
    }
    fs::set_permissions(dir, fs::Permissions::from_mode(0o555))
}

/// Removes a tree made read-only: each folder is made writable before its entries go.
pub fn remove_tree(path: &Path) {
    let Ok(meta) = fs::symlink_metadata(path) else { return };
    if !meta.is_dir() {
        let _ = fs::remove_file(path);
        return;
    }
    let _ = fs::set_permissions(path, fs::Permissions::from_mode(0o755));
    if let Ok(entries) = fs::read_dir(path) {
        for e in entries.flatten() {
            remove_tree(&e.path());
        }
    }
    let _ = fs::remove_dir(path);
}
