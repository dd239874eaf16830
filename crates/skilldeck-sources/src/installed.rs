//! What came from sources: `sources.json` in the Skilldeck home, one record per sourced skill
//! with where it came from and the content it was installed with. `outdated` reads only this
//! file, and the local-edit guard compares a skill's current digest with the one recorded here.
//! Each revision's own provenance is in the store's revision log (`RevisionEvent::Sourced`).

use serde::{Deserialize, Serialize};
use skilldeck_skill::digest::Digest;
use skilldeck_skill::provenance::Provenance;
use skilldeck_store::SkilldeckHome;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// The file's name in the Skilldeck home.
pub const SOURCES_FILE: &str = "sources.json";

/// One sourced skill (in the user scope).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Installed {
    /// Where it came from, as of the last install or update.
    pub source: Provenance,
    /// The digest of the files as installed from the source.
    pub digest: Digest,
    /// When it was installed or last updated, RFC 3339 in UTC.
    pub at: String,
    /// The name the source gives it, when it is kept here under another (`add --as`): every
    /// check, update and install of it renames the source's copy the same way (`rename.rs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upstream_name: Option<String>,
}

impl Installed {
    /// The name the source gives it, when it is kept here under another.
    pub fn renamed_from(&self) -> Option<&str> {
        self.upstream_name.as_deref()
    }
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct SourcesFile {
    #[serde(default)]
    format: u32,
    #[serde(default)]
    skills: BTreeMap<String, Installed>,
}

/// A failure to read or write `sources.json`.
#[derive(Debug, thiserror::Error)]
pub enum InstalledError {
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
    /// The file is not what Skilldeck writes.
    #[error(
        "{} is damaged ({reason}); move it aside and add the skills again with `skilldeck add`",
        path.display()
    )]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What was wrong.
        reason: String,
    },
}

/// The sourced skills of one home, read from `sources.json` and written back whole.
#[derive(Debug)]
pub struct InstalledSkills {
    path: PathBuf,
    file: SourcesFile,
}

impl InstalledSkills {
    /// Reads the records under `home`; a missing file means nothing is sourced yet.
    pub fn load(home: &SkilldeckHome) -> Result<Self, InstalledError> {
        Self::load_from(home.root().join(SOURCES_FILE))
    }

    fn load_from(path: PathBuf) -> Result<Self, InstalledError> {
        let file = match fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map_err(|e| InstalledError::Corrupt { path: path.clone(), reason: e.to_string() })?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => SourcesFile::default(),
            Err(source) => return Err(InstalledError::Io { action: "read", path, source }),
        };
        Ok(Self { path, file })
    }

    /// The record of skill `name`, when it came from a source.
    pub fn get(&self, name: &str) -> Option<&Installed> {
        self.file.skills.get(name)
    }

    /// Every record, by skill name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Installed)> {
        self.file.skills.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// How many skills are recorded.
    pub fn len(&self) -> usize {
        self.file.skills.len()
    }

    /// Whether no skill is recorded.
    pub fn is_empty(&self) -> bool {
        self.file.skills.is_empty()
    }

    /// Records that `name` was installed from `source` with files of `digest` (not yet saved).
    /// A name it was kept under instead of the source's (`add --as`) stays recorded while the
    /// source is the same skill of the same repository or site (an update, a moved top, a pin).
    pub fn record(&mut self, name: &str, source: Provenance, digest: Digest) {
        let upstream_name = self
            .file
            .skills
            .get(name)
            .filter(|old| old.source.url == source.url && old.source.path == source.path)
            .and_then(|old| old.upstream_name.clone());
        self.record_as(name, source, digest, upstream_name);
    }

    /// Records that `name` was installed from `source` with files of `digest`, the source
    /// naming it `upstream_name` when that is another name (not yet saved).
    pub fn record_as(&mut self, name: &str, source: Provenance, digest: Digest, upstream_name: Option<String>) {
        let upstream_name = upstream_name.filter(|u| u != name);
        self.file.skills.insert(name.to_owned(), Installed { source, digest, at: now(), upstream_name });
    }

    /// Forgets skill `name` (not yet saved); whether it was recorded.
    pub fn forget(&mut self, name: &str) -> bool {
        self.file.skills.remove(name).is_some()
    }

    /// Moves the record of skill `from` to `new`, renamed here (`skilldeck rename`; not yet
    /// saved); whether there was one. The source's own name is kept as `upstream_name`, so every
    /// check and update renames the source's copy the same way; the digest installed becomes
    /// `new_digest` when it was `from_digest` (the renamed files are the install, renamed), else
    /// it stays (the skill was changed here, and still is).
    pub fn rename(&mut self, from: &str, new: &str, from_digest: Digest, new_digest: Digest) -> bool {
        let Some(old) = self.file.skills.remove(from) else { return false };
        let upstream_name = old.upstream_name.clone().or_else(|| Some(from.to_owned())).filter(|u| u != new);
        let digest = if old.digest == from_digest { new_digest } else { old.digest };
        self.file.skills.insert(new.to_owned(), Installed { digest, upstream_name, ..old });
        true
    }

    /// Writes the file beside itself and renames it in, so a reader never sees half of it.
    pub fn save(&mut self) -> Result<(), InstalledError> {
        self.file.format = 1;
        let json = serde_json::to_vec_pretty(&self.file)
            .map_err(|e| InstalledError::Corrupt { path: self.path.clone(), reason: e.to_string() })?;
        write_beside(&self.path, &json)
    }
}

fn write_beside(path: &Path, bytes: &[u8]) -> Result<(), InstalledError> {
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).map_err(|source| InstalledError::Io { action: "create", path: dir.into(), source })?;
    }
    let tmp = path.with_extension(format!("json.tmp-{}", std::process::id()));
    fs::write(&tmp, bytes).map_err(|source| InstalledError::Io { action: "write", path: tmp.clone(), source })?;
    fs::rename(&tmp, path).map_err(|source| {
        let _ = fs::remove_file(&tmp);
        InstalledError::Io { action: "write", path: path.to_path_buf(), source }
    })
}

pub(crate) fn now() -> String {
    time::OffsetDateTime::now_utc().format(&time::format_description::well_known::Rfc3339).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use skilldeck_skill::provenance::SourceKind;

    #[test]
    fn records_survive_a_round_trip_and_a_damaged_file_says_what_to_do() {
        let tmp = tempfile::tempdir().unwrap();
        let home = SkilldeckHome::new(tmp.path());
        let mut skills = InstalledSkills::load(&home).unwrap();
        assert!(skills.is_empty());
        let source = Provenance {
            kind: SourceKind::Git,
            given: "o/r".into(),
            url: "https://example.com/o/r.git".into(),
            reference: Some("v1".into()),
            pinned: true,
            resolved: "0".repeat(40),
            path: "skills/pdf".into(),
        };
        skills.record("pdf", source.clone(), Digest::from_bytes([7; 32]));
        skills.save().unwrap();
        let again = InstalledSkills::load(&home).unwrap();
        assert_eq!(again.get("pdf").unwrap().source, source);
        assert_eq!(again.len(), 1);

        // A skill kept under another name keeps that through an update, not through another source.
        skills.record_as("pdf-two", source.clone(), Digest::from_bytes([8; 32]), Some("pdf".into()));
        let moved = Provenance { resolved: "1".repeat(40), ..source.clone() };
        skills.record("pdf-two", moved, Digest::from_bytes([9; 32]));
        assert_eq!(skills.get("pdf-two").unwrap().renamed_from(), Some("pdf"));
        let other = Provenance { url: "https://example.com/x/y.git".into(), ..source.clone() };
        skills.record("pdf-two", other, Digest::from_bytes([9; 32]));
        assert_eq!(skills.get("pdf-two").unwrap().renamed_from(), None);
        skills.record_as("pdf", source.clone(), Digest::from_bytes([7; 32]), Some("pdf".into()));
        assert_eq!(skills.get("pdf").unwrap().renamed_from(), None, "its own name is no rename");

        fs::write(tmp.path().join(SOURCES_FILE), "{ not json").unwrap();
        let err = InstalledSkills::load(&home).unwrap_err().to_string();
        assert!(err.contains("damaged") && err.contains("skilldeck add"), "{err}");
    }
}
