//! A source's skill kept under another name (`skilldeck add --as NEW`, and every later check,
//! update and install of it): its files copied into a scratch folder named `NEW` with the
//! frontmatter's `name` rewritten to `NEW`, so folder and `name` agree (docs/contracts.md) and the
//! import stores it as `NEW`. Holds the copy and the rewrite; the import is the caller's.

use skilldeck_skill::name_field::with_name;
use skilldeck_skill::validate::{self, ValidateOptions};
use skilldeck_skill::{Digest, SkillName, UploadLimits};
use skilldeck_store::import::{self, ImportError};
use std::path::{Path, PathBuf};

/// Why a skill could not be kept under another name.
#[derive(Debug, thiserror::Error)]
pub enum RenameError {
    /// The skill's folder could not be read as a skill.
    #[error(transparent)]
    Read(#[from] ImportError),
    /// Its `SKILL.md` is not text, so its `name` cannot be rewritten.
    #[error("{}'s SKILL.md is not UTF-8 text, so its name cannot be rewritten to {new}; add it under its own name", dir.display())]
    NotText {
        /// The skill's folder.
        dir: PathBuf,
        /// The name asked for.
        new: String,
    },
    /// The rewritten `SKILL.md` does not read back with the new name.
    #[error("{}'s frontmatter could not be rewritten to name {new} (it reads back as {found:?}); add it under its own name", dir.display())]
    NotRewritten {
        /// The skill's folder.
        dir: PathBuf,
        /// The name asked for.
        new: String,
        /// The name it reads back with.
        found: Option<String>,
    },
    /// The scratch copy could not be written.
    #[error("could not write a renamed copy of {} at {}: {source}", dir.display(), at.display())]
    Io {
        /// The skill's folder.
        dir: PathBuf,
        /// What was being written.
        at: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// A renamed copy of a skill, in a scratch folder removed when this is dropped.
#[derive(Debug)]
pub struct Renamed {
    _scratch: tempfile::TempDir,
    dir: PathBuf,
}

impl Renamed {
    /// The copy's folder, named after the new name: what to import.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

/// Copies the skill at `dir` (read as the import reads it, within `limits`) into a scratch
/// folder named `new`, with its frontmatter's `name` set to `new`.
pub fn renamed_copy(dir: &Path, new: &SkillName, limits: UploadLimits) -> Result<Renamed, RenameError> {
    let loaded = import::load(dir, limits, &mut |_, _| {})?;
    let scratch = tempfile::Builder::new()
        .prefix("skilldeck-renamed-")
        .tempdir()
        .map_err(|source| RenameError::Io { dir: dir.to_path_buf(), at: std::env::temp_dir(), source })?;
    let out = scratch.path().join(new.as_str());
    let io = |at: &Path| {
        let (dir, at) = (dir.to_path_buf(), at.to_path_buf());
        move |source| RenameError::Io { dir, at, source }
    };
    for (rel, bytes) in loaded.files.iter() {
        let at = out.join(rel.as_str());
        if let Some(parent) = at.parent() {
            std::fs::create_dir_all(parent).map_err(io(parent))?;
        }
        let bytes = if rel.as_str() == "SKILL.md" {
            let text = std::str::from_utf8(bytes)
                .map_err(|_| RenameError::NotText { dir: dir.to_path_buf(), new: new.to_string() })?;
            let rewritten = with_name(text, new.as_str());
            let found = validate::validate_bytes(Some(rewritten.as_bytes()), ValidateOptions::default()).meta.name;
            if found.as_deref().is_some_and(|n| n != new.as_str()) {
                return Err(RenameError::NotRewritten { dir: dir.to_path_buf(), new: new.to_string(), found });
            }
            rewritten.into_bytes()
        } else {
            bytes.to_vec()
        };
        std::fs::write(&at, bytes).map_err(io(&at))?;
    }
    Ok(Renamed { _scratch: scratch, dir: out })
}

/// A source's copy of a skill as it is kept here: its folder (the source's own, or a renamed
/// copy) and the digest of its files as the import reads them.
#[derive(Debug)]
pub struct Kept {
    /// The folder to import.
    pub dir: PathBuf,
    /// The digest its import would store.
    pub digest: Digest,
    /// The renamed copy `dir` is in, when it is one: keep it while `dir` is used.
    pub renamed: Option<Renamed>,
}

/// The skill at `dir` in a source as it is kept here under `name`: renamed to it when
/// `renamed` (it was added with `--as`), else as it is.
pub fn as_kept(dir: &Path, name: &str, renamed: bool, limits: UploadLimits) -> Result<Kept, RenameError> {
    if !renamed {
        let loaded = import::load(dir, limits, &mut |_, _| {})?;
        return Ok(Kept { dir: dir.to_path_buf(), digest: loaded.files.digest(), renamed: None });
    }
    let new = SkillName::parse(name).map_err(|_| RenameError::NotRewritten {
        dir: dir.to_path_buf(),
        new: name.to_owned(),
        found: None,
    })?;
    let copy = renamed_copy(dir, &new, limits)?;
    let loaded = import::load(copy.dir(), limits, &mut |_, _| {})?;
    Ok(Kept { dir: copy.dir().to_path_buf(), digest: loaded.files.digest(), renamed: Some(copy) })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_renamed_copy_is_stored_under_the_new_name_with_its_other_files() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("pdf");
        std::fs::create_dir_all(dir.join("scripts")).unwrap();
        std::fs::write(dir.join("SKILL.md"), "---\nname: pdf\ndescription: PDFs.\n---\nBody.\n").unwrap();
        std::fs::write(dir.join("scripts/run.sh"), "echo hi\n").unwrap();
        let new = SkillName::parse("pdf-two").unwrap();
        let copy = renamed_copy(&dir, &new, UploadLimits::default()).unwrap();
        assert_eq!(copy.dir().file_name().unwrap(), "pdf-two");
        let loaded = import::load(copy.dir(), UploadLimits::default(), &mut |_, _| {}).unwrap();
        assert_eq!(loaded.name, new);
        assert!(loaded.validation.is_valid(), "{:?}", loaded.validation.diagnostics);
        assert_eq!(loaded.files.get("scripts/run.sh"), Some(&b"echo hi\n"[..]));
        let path = copy.dir().to_path_buf();
        drop(copy);
        assert!(!path.exists(), "the scratch folder goes with it");
    }
}
