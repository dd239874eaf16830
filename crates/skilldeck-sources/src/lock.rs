//! `skilldeck.lock`: every sourced skill with the exact content it was installed with, so
//! another machine (or a fresh home) can be made to hold the same. TOML, one `[[skill]]` per
//! skill, sorted by name, with no timestamps, so the file only changes when a skill does and a
//! diff of it reads well in a pull request.

use crate::fetch::recorded_url;
use crate::installed::InstalledSkills;
use crate::source::{Hosts, Source};
use serde::{Deserialize, Serialize};
use skilldeck_skill::SkillName;
use skilldeck_skill::digest::Digest;
use skilldeck_skill::provenance::Provenance;
use std::path::{Path, PathBuf};

/// The lockfile's default name: beside a project's `.skilldeck.toml`, else in the current folder.
pub const LOCK_FILE: &str = "skilldeck.lock";

/// The file that makes a folder a Skilldeck project (the workspace profile of
/// `skilldeck-agent`'s `profile.rs`); a project's lockfile lives beside it.
pub const PROJECT_FILE: &str = ".skilldeck.toml";

/// Where `lock` and `install` read and write when no file is named: `skilldeck.lock` beside
/// the `.skilldeck.toml` of the nearest project holding `cwd` (itself or a folder above it),
/// else in `cwd`.
pub fn default_path(cwd: &Path) -> PathBuf {
    let project = cwd.ancestors().find(|dir| dir.join(PROJECT_FILE).is_file());
    project.unwrap_or(cwd).join(LOCK_FILE)
}

/// The format this code writes.
const VERSION: u32 = 1;

/// One locked skill.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockedSkill {
    /// The skill's name.
    pub name: String,
    /// Where it comes from, at which commit or digest.
    #[serde(flatten)]
    pub source: Provenance,
    /// The content digest of its files.
    pub digest: Digest,
    /// The name the source gives it, when it is kept under another (`add --as`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upstream_name: Option<String>,
}

impl LockedSkill {
    /// Why this entry cannot be used as written, naming what is wrong: a `name` (or
    /// `upstream_name`) that is no skill name, a `given` that is no source, or a `url` that is
    /// not where `given` leads with `hosts` (a lockfile is reviewed by its `given`; a `url` that
    /// disagrees would fetch from elsewhere). `None` when it can be used.
    pub fn problem(&self, hosts: &Hosts) -> Option<String> {
        for (key, name) in [("name", Some(&self.name)), ("upstream_name", self.upstream_name.as_ref())] {
            if let Some(name) = name
                && let Err(e) = SkillName::parse(name)
            {
                return Some(format!("its {key} {name:?} is not a skill name ({e})"));
            }
        }
        let given = &self.source.given;
        let source = match Source::parse(given, hosts) {
            Ok(source) => source,
            Err(e) => return Some(format!("its given {given:?} is not a source Skilldeck can fetch ({e})")),
        };
        let same = |a: &str, b: &str| a.trim_end_matches('/') == b.trim_end_matches('/');
        match recorded_url(&source, self.source.kind) {
            Some(expected) if same(&expected, &self.source.url) => None,
            Some(expected) => Some(format!(
                "its url {} is not where its given {given:?} leads ({expected}); the lockfile was changed by hand, \
                 so nothing is fetched for it: write the lockfile again with `skilldeck lock`",
                self.source.url
            )),
            None => Some(format!("its given {given:?} is not a source of kind {:?}", self.source.kind)),
        }
    }
}

/// A lockfile.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lock {
    /// The format.
    pub version: u32,
    /// The skills, sorted by name.
    #[serde(default, rename = "skill")]
    pub skills: Vec<LockedSkill>,
}

/// Why a lockfile could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// The file could not be read or written.
    #[error("could not {action} {}: {source}", path.display())]
    Io {
        /// What was being done.
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not a lockfile this version reads.
    #[error("{} is not a skilldeck lockfile ({reason}); write a new one with `skilldeck lock`", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What was wrong.
        reason: String,
    },
}

impl Lock {
    /// The lock of every skill in `installed`, sorted by name.
    pub fn of(installed: &InstalledSkills) -> Self {
        let mut skills: Vec<LockedSkill> = installed
            .iter()
            .map(|(name, rec)| LockedSkill {
                name: name.to_owned(),
                source: rec.source.clone(),
                digest: rec.digest,
                upstream_name: rec.upstream_name.clone(),
            })
            .collect();
        skills.sort_by(|a, b| a.name.cmp(&b.name));
        Self { version: VERSION, skills }
    }

    /// The file's text.
    pub fn to_toml(&self) -> Result<String, toml::ser::Error> {
        let body = toml::to_string(self)?;
        Ok(format!(
            "# Skills from sources, each at the exact content installed. Written by `skilldeck lock`;\n\
             # `skilldeck install` makes a store hold exactly these.\n{body}"
        ))
    }

    /// Reads the lockfile at `path`.
    pub fn read(path: &Path) -> Result<Self, LockError> {
        let text = std::fs::read_to_string(path).map_err(|source| LockError::Io {
            action: "read",
            path: path.to_path_buf(),
            source,
        })?;
        let lock: Self = toml::from_str(&text)
            .map_err(|e| LockError::Invalid { path: path.to_path_buf(), reason: e.message().to_owned() })?;
        if lock.version != VERSION {
            return Err(LockError::Invalid {
                path: path.to_path_buf(),
                reason: format!("version {} (this Skilldeck reads {VERSION})", lock.version),
            });
        }
        Ok(lock)
    }

    /// Writes the lockfile at `path` (beside itself, then renamed in).
    pub fn write(&self, path: &Path) -> Result<(), LockError> {
        let text =
            self.to_toml().map_err(|e| LockError::Invalid { path: path.to_path_buf(), reason: e.to_string() })?;
        let tmp = path.with_extension(format!("lock.tmp-{}", std::process::id()));
        std::fs::write(&tmp, text).map_err(|source| LockError::Io { action: "write", path: tmp.clone(), source })?;
        std::fs::rename(&tmp, path).map_err(|source| {
            let _ = std::fs::remove_file(&tmp);
            LockError::Io { action: "write", path: path.to_path_buf(), source }
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use skilldeck_skill::provenance::SourceKind;

    #[test]
    fn a_lock_round_trips_sorted_and_stable() {
        let source = |path: &str| Provenance {
            kind: SourceKind::Git,
            given: "o/r".into(),
            url: "https://example.com/o/r.git".into(),
            reference: Some("v1".into()),
            pinned: true,
            resolved: "a".repeat(40),
            path: path.into(),
        };
        let lock = Lock {
            version: VERSION,
            skills: vec![
                LockedSkill {
                    name: "docx".into(),
                    source: source("skills/docx"),
                    digest: Digest::from_bytes([1; 32]),
                    upstream_name: None,
                },
                LockedSkill {
                    name: "pdf-two".into(),
                    source: source("skills/pdf"),
                    digest: Digest::from_bytes([2; 32]),
                    upstream_name: Some("pdf".into()),
                },
            ],
        };
        let text = lock.to_toml().unwrap();
        assert!(text.contains("[[skill]]\nname = \"docx\""), "{text}");
        assert!(text.contains("ref = \"v1\""), "{text}");
        assert!(text.contains("upstream_name = \"pdf\""), "{text}");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(LOCK_FILE);
        lock.write(&path).unwrap();
        assert_eq!(Lock::read(&path).unwrap(), lock);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text, "the same lock writes the same bytes");
        std::fs::write(&path, "version = 9\n").unwrap();
        assert!(Lock::read(&path).unwrap_err().to_string().contains("version 9"));
    }

    #[test]
    fn the_default_lockfile_is_beside_the_nearest_project_file() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("project");
        let deep = project.join("src/deep");
        std::fs::create_dir_all(&deep).unwrap();
        assert_eq!(default_path(&deep), deep.join(LOCK_FILE), "no project: the folder itself");
        std::fs::write(project.join(PROJECT_FILE), "").unwrap();
        assert_eq!(default_path(&deep), project.join(LOCK_FILE));
        assert_eq!(default_path(&project), project.join(LOCK_FILE));
        // A folder named like the file is no project.
        std::fs::create_dir_all(deep.join(PROJECT_FILE)).unwrap();
        assert_eq!(default_path(&deep), project.join(LOCK_FILE));
    }
}
