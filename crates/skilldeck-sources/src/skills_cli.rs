//! The lockfiles of the `skills` CLI (vercel-labs/skills, `npx skills`), read so that skills
//! that tool installed come into Skilldeck with their source: the global one and a project's.
//! Holds their formats, where they are and what each entry says about its source; fetching the
//! sources is `origins.rs`. Nothing here writes them.
//!
//! The formats, as that tool writes them (github.com/vercel-labs/skills):
//! - global, `src/skill-lock.ts` (v1.3.9): `$XDG_STATE_HOME/skills/.skill-lock.json` when
//!   `XDG_STATE_HOME` is set, else `~/.agents/.skill-lock.json`; `{"version": 3, "skills":
//!   {NAME: {"source": "owner/repo", "sourceType": "github", "sourceUrl":
//!   "https://github.com/owner/repo.git", "ref"?: "v1", "skillPath"?: "skills/pdf/SKILL.md",
//!   "skillFolderHash": GITHUB_TREE_SHA, "installedAt", "updatedAt", "pluginName"?}},
//!   "dismissed"?, "lastSelectedAgents"?}`. A version below 3 is wiped by the tool itself.
//! - project, `src/local-lock.ts`: `skills-lock.json` in the project's folder; `{"version": 1,
//!   "skills": {NAME: {"source": "owner/repo", "ref"?: "v1", "sourceType": "github",
//!   "computedHash": SHA256_HEX}}}`, timestamp-free and sorted for merges.
//!
//! `sourceType` is one of `github`, `gitlab`, `git`, `local`, `direct-url`, `well-known` and
//! the tool's providers (`mintlify`, `huggingface`, …); Skilldeck follows the Git ones and
//! `direct-url` (a `SKILL.md` URL) and says why it cannot follow the others.

use crate::source::{Hosts, Source, SourceError};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The global lockfile's name.
pub const GLOBAL_FILE: &str = ".skill-lock.json";

/// The project lockfile's name, in the project's folder.
pub const PROJECT_FILE: &str = "skills-lock.json";

/// The global format version this code reads (`CURRENT_VERSION` in `skill-lock.ts`).
const GLOBAL_VERSION: u64 = 3;

/// The project format version this code reads (`CURRENT_VERSION` in `local-lock.ts`).
const PROJECT_VERSION: u64 = 1;

/// Which of the two lockfiles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum LockKind {
    /// `~/.agents/.skill-lock.json`: the skills installed for the user.
    Global,
    /// `<project>/skills-lock.json`: the skills installed in a project.
    Project,
}

/// One skill the `skills` CLI installed, as its lockfile says.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, ts_rs::TS)]
pub struct LockEntry {
    /// The skill's name (the lockfile's key).
    pub name: String,
    /// The source as that tool normalised it (`owner/repo`, a URL).
    pub source: String,
    /// Its kind of source (`github`, `git`, `well-known`, …).
    pub source_type: String,
    /// The URL it fetched (the global lockfile only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The skill's folder inside the source, `/`-separated, `.` for its top (the global
    /// lockfile only; `skillPath` without its `SKILL.md`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The branch or tag it was installed from, when one was named.
    #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    /// The lockfile.
    pub lockfile: PathBuf,
}

/// A lockfile of the `skills` CLI, read.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, ts_rs::TS)]
pub struct SkillsLock {
    /// Which one.
    pub kind: LockKind,
    /// Where it is.
    pub path: PathBuf,
    /// Its skills, by name.
    pub entries: Vec<LockEntry>,
}

/// Why a lockfile of the `skills` CLI could not be used.
#[derive(Debug, thiserror::Error)]
pub enum SkillsLockError {
    /// It could not be read.
    #[error("could not read {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// It is not a lockfile of a version this code reads.
    #[error("{} is not a `skills` CLI lockfile Skilldeck can read ({reason})", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What was wrong.
        reason: String,
    },
}

/// Why the source of an entry cannot be followed.
#[derive(Debug, thiserror::Error)]
pub enum EntrySourceError {
    /// A kind of source Skilldeck does not fetch.
    #[error(
        "its source {given:?} is of type `{source_type}`, which Skilldeck cannot fetch (it follows Git repositories and SKILL.md URLs)"
    )]
    Unsupported {
        /// The source as the lockfile gives it.
        given: String,
        /// Its type.
        source_type: String,
    },
    /// The source does not read as one.
    #[error("its source {given:?} is not one Skilldeck can read: {error}")]
    Unreadable {
        /// The source as read.
        given: String,
        /// Why.
        error: SourceError,
    },
}

#[derive(Deserialize)]
struct GlobalEntry {
    source: String,
    #[serde(rename = "sourceType")]
    source_type: String,
    #[serde(rename = "sourceUrl", default)]
    source_url: Option<String>,
    #[serde(rename = "skillPath", default)]
    skill_path: Option<String>,
    #[serde(rename = "ref", default)]
    reference: Option<String>,
}

#[derive(Deserialize)]
struct ProjectEntry {
    source: String,
    #[serde(rename = "sourceType")]
    source_type: String,
    #[serde(rename = "ref", default)]
    reference: Option<String>,
}

#[derive(Deserialize)]
struct LockFile<E> {
    version: u64,
    skills: BTreeMap<String, E>,
}

/// Where the global lockfile is, given `XDG_STATE_HOME` and the home folder.
pub fn global_path(xdg_state_home: Option<&Path>, home: Option<&Path>) -> Option<PathBuf> {
    match xdg_state_home.filter(|p| !p.as_os_str().is_empty()) {
        Some(state) => Some(state.join("skills").join(GLOBAL_FILE)),
        None => home.map(|h| h.join(".agents").join(GLOBAL_FILE)),
    }
}

/// Where the global lockfile is for this process (`XDG_STATE_HOME`, `HOME`).
pub fn global_path_from_env() -> Option<PathBuf> {
    let state = std::env::var_os("XDG_STATE_HOME").map(PathBuf::from);
    global_path(state.as_deref(), std::env::home_dir().as_deref())
}

/// Where a project's lockfile is.
pub fn project_path(project: &Path) -> PathBuf {
    project.join(PROJECT_FILE)
}

/// `skillPath` (`skills/pdf/SKILL.md`, `SKILL.md`, a folder) as the skill's folder.
fn folder_of(skill_path: &str) -> String {
    let p = skill_path.replace('\\', "/");
    let p = p.strip_suffix("SKILL.md").unwrap_or(&p).trim_end_matches('/').trim_start_matches("./");
    if p.is_empty() { ".".to_owned() } else { p.to_owned() }
}

/// Reads the lockfile of `kind` at `path`; `None` when there is none.
pub fn read(kind: LockKind, path: &Path) -> Result<Option<SkillsLock>, SkillsLockError> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(SkillsLockError::Io { path: path.to_path_buf(), source }),
    };
    parse(kind, path, &bytes).map(Some)
}

/// Parses the text of a lockfile of `kind` found at `path`.
pub fn parse(kind: LockKind, path: &Path, bytes: &[u8]) -> Result<SkillsLock, SkillsLockError> {
    let invalid = |reason: String| SkillsLockError::Invalid { path: path.to_path_buf(), reason };
    let lockfile = path.to_path_buf();
    let entries: Vec<LockEntry> = match kind {
        LockKind::Global => {
            let file: LockFile<GlobalEntry> = serde_json::from_slice(bytes).map_err(|e| invalid(e.to_string()))?;
            check_version(file.version, GLOBAL_VERSION).map_err(invalid)?;
            let entries = file.skills.into_iter().map(|(name, e)| LockEntry {
                name,
                source: e.source,
                source_type: e.source_type,
                url: e.source_url.filter(|u| !u.is_empty()),
                path: e.skill_path.as_deref().map(folder_of),
                reference: e.reference.filter(|r| !r.is_empty()),
                lockfile: lockfile.clone(),
            });
            entries.collect()
        }
        LockKind::Project => {
            let file: LockFile<ProjectEntry> = serde_json::from_slice(bytes).map_err(|e| invalid(e.to_string()))?;
            check_version(file.version, PROJECT_VERSION).map_err(invalid)?;
            let entries = file.skills.into_iter().map(|(name, e)| LockEntry {
                name,
                source: e.source,
                source_type: e.source_type,
                url: None,
                path: None,
                reference: e.reference.filter(|r| !r.is_empty()),
                lockfile: lockfile.clone(),
            });
            entries.collect()
        }
    };
    Ok(SkillsLock { kind, path: path.to_path_buf(), entries })
}

/// An older version is one the `skills` CLI itself discards; a newer one is read as far as
/// its fields are known.
fn check_version(found: u64, reads: u64) -> Result<(), String> {
    if found < reads {
        return Err(format!(
            "version {found}, an old format the skills CLI itself no longer reads (it reads {reads}); reinstall with it to renew the file"
        ));
    }
    Ok(())
}

impl LockEntry {
    /// The folder name the `skills` CLI installed this skill under: its lockfile key through
    /// that tool's `sanitizeName` (`src/installer.ts`): lowercase, each run of characters other
    /// than `a-z`, `0-9`, `.` and `_` one `-`, no leading or trailing `.` or `-`, at most 255
    /// characters, `unnamed-skill` when nothing is left.
    pub fn folder_name(&self) -> String {
        let mut out = String::with_capacity(self.name.len());
        let mut in_run = false;
        for c in self.name.to_lowercase().chars() {
            if c.is_ascii_lowercase() || c.is_ascii_digit() || c == '.' || c == '_' {
                out.push(c);
                in_run = false;
            } else if !in_run {
                out.push('-');
                in_run = true;
            }
        }
        let trimmed: String = out.trim_matches(['.', '-']).chars().take(255).collect();
        if trimmed.is_empty() { "unnamed-skill".to_owned() } else { trimmed }
    }

    /// Whether this entry is the skill installed in a folder named `name`.
    pub fn is_for(&self, name: &str) -> bool {
        self.name == name || self.folder_name() == name
    }

    /// The source Skilldeck fetches for this entry: the URL the tool fetched when the lockfile
    /// gives one, else its source as given (`owner/repo` goes to `[sources] github`).
    pub fn to_source(&self, hosts: &Hosts) -> Result<Source, EntrySourceError> {
        let git = matches!(self.source_type.as_str(), "github" | "gitlab" | "git");
        if !git && self.source_type != "direct-url" {
            return Err(EntrySourceError::Unsupported {
                given: self.source.clone(),
                source_type: self.source_type.clone(),
            });
        }
        let given = match (&self.url, self.source_type.as_str()) {
            (Some(url), _) => url.clone(),
            (None, "gitlab") if !self.source.contains("://") && !self.source.starts_with("gitlab:") => {
                format!("gitlab:{}", self.source)
            }
            (None, _) => self.source.clone(),
        };
        match Source::parse(&given, hosts) {
            // The `skills` CLI never writes an MCP server, and a lockfile (one a cloned project
            // brought, say) naming `mcp:COMMAND` would have Skilldeck start that program.
            Ok(Source::Mcp(_)) => Err(EntrySourceError::Unsupported { given, source_type: "mcp".to_owned() }),
            Ok(source) => Ok(source),
            Err(error) => Err(EntrySourceError::Unreadable { given, error }),
        }
    }
}

/// The `skills` CLI's lockfiles found: the global one, and a project's when one is named.
#[derive(Debug, Default, Serialize, ts_rs::TS)]
pub struct SkillsCliLocks {
    /// The lockfiles read (the project's first).
    pub locks: Vec<SkillsLock>,
    /// The lockfiles that could not be read, each with why.
    pub unreadable: Vec<UnreadableLock>,
}

/// A lockfile of the `skills` CLI that could not be read.
#[derive(Debug, Serialize, ts_rs::TS)]
pub struct UnreadableLock {
    /// The file.
    pub path: PathBuf,
    /// Why.
    pub error: String,
}

impl SkillsCliLocks {
    /// Reads the global lockfile (where the environment says it is) and, with `project`, the
    /// project's. A lockfile that is absent is no lockfile; one that cannot be read is named in
    /// `unreadable`, and the others are still read.
    pub fn read(project: Option<&Path>) -> Self {
        let mut out = Self::default();
        let project = project.map(|p| (LockKind::Project, project_path(p)));
        let global = global_path_from_env().map(|p| (LockKind::Global, p));
        for (kind, path) in project.into_iter().chain(global) {
            match read(kind, &path) {
                Ok(Some(lock)) => out.locks.push(lock),
                Ok(None) => {}
                Err(e) => out.unreadable.push(UnreadableLock { path, error: e.to_string() }),
            }
        }
        out
    }

    /// The entry for skill `name` (the project's lockfile before the global one).
    pub fn entry(&self, name: &str) -> Option<&LockEntry> {
        self.locks.iter().flat_map(|l| &l.entries).find(|e| e.is_for(name))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// The global lockfile as `skills` v1.3.9 writes it (one entry with a ref, as later
    /// versions add).
    const GLOBAL: &str = r#"{
  "version": 3,
  "skills": {
    "pdf": {
      "source": "anthropics/skills",
      "sourceType": "github",
      "sourceUrl": "https://github.com/anthropics/skills.git",
      "skillPath": "skills/pdf/SKILL.md",
      "skillFolderHash": "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
      "installedAt": "2026-01-20T08:00:00.000Z",
      "updatedAt": "2026-01-21T08:00:00.000Z"
    },
    "root-skill": {
      "source": "me/one",
      "sourceType": "github",
      "sourceUrl": "https://github.com/me/one.git",
      "ref": "v1",
      "skillPath": "SKILL.md",
      "skillFolderHash": "",
      "installedAt": "2026-01-20T08:00:00.000Z",
      "updatedAt": "2026-01-20T08:00:00.000Z",
      "pluginName": "docs"
    },
    "bun": {
      "source": "mintlify/bun.com",
      "sourceType": "mintlify",
      "sourceUrl": "https://bun.com/docs/skill.md",
      "skillFolderHash": "",
      "installedAt": "2026-01-20T08:00:00.000Z",
      "updatedAt": "2026-01-20T08:00:00.000Z"
    }
  },
  "dismissed": { "findSkillsPrompt": true },
  "lastSelectedAgents": ["claude-code"]
}"#;

    /// A project's lockfile as `local-lock.ts` writes it.
    const PROJECT: &str = r#"{
  "version": 1,
  "skills": {
    "docx": {
      "source": "anthropics/skills",
      "ref": "main",
      "sourceType": "github",
      "computedHash": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
    }
  }
}
"#;

    #[test]
    fn both_formats_read_as_the_skills_cli_writes_them() {
        let global = parse(LockKind::Global, Path::new("/g.json"), GLOBAL.as_bytes()).unwrap();
        let pdf = global.entries.iter().find(|e| e.name == "pdf").unwrap();
        assert_eq!(pdf.url.as_deref(), Some("https://github.com/anthropics/skills.git"));
        assert_eq!(pdf.path.as_deref(), Some("skills/pdf"));
        assert_eq!(pdf.reference, None);
        let root = global.entries.iter().find(|e| e.name == "root-skill").unwrap();
        assert_eq!((root.path.as_deref(), root.reference.as_deref()), (Some("."), Some("v1")));

        let project = parse(LockKind::Project, Path::new("/p/skills-lock.json"), PROJECT.as_bytes()).unwrap();
        assert_eq!(
            project.entries,
            vec![LockEntry {
                name: "docx".into(),
                source: "anthropics/skills".into(),
                source_type: "github".into(),
                url: None,
                path: None,
                reference: Some("main".into()),
                lockfile: "/p/skills-lock.json".into(),
            }]
        );
    }

    #[test]
    fn sources_follow_the_configured_hosts_and_unsupported_types_say_so() {
        let hosts = Hosts { github: "http://127.0.0.1:9".into(), ..Hosts::default() };
        let project = parse(LockKind::Project, Path::new("/p"), PROJECT.as_bytes()).unwrap();
        let Source::Git(git) = project.entries[0].to_source(&hosts).unwrap() else { panic!("a Git source") };
        assert_eq!(git.url, "http://127.0.0.1:9/anthropics/skills.git");

        let global = parse(LockKind::Global, Path::new("/g"), GLOBAL.as_bytes()).unwrap();
        let bun = global.entries.iter().find(|e| e.name == "bun").unwrap();
        let err = bun.to_source(&hosts).unwrap_err().to_string();
        assert!(err.contains("`mintlify`") && err.contains("cannot fetch"), "{err}");

        // A lockfile naming a program to start as an MCP server is refused, never run.
        for (given, url) in [("mcp:sh -c 'touch /tmp/pwned'", None), ("o/r", Some("mcp:sh -c 'touch /tmp/pwned'"))] {
            let entry = LockEntry {
                name: "x".into(),
                source: given.into(),
                source_type: "github".into(),
                url: url.map(Into::into),
                path: None,
                reference: None,
                lockfile: "/l".into(),
            };
            let err = entry.to_source(&hosts).unwrap_err().to_string();
            assert!(err.contains("`mcp`") && err.contains("cannot fetch"), "{err}");
        }
    }

    #[test]
    fn bad_files_say_what_is_wrong_and_a_missing_one_is_none() {
        let check = |kind, text: &str, expected: &str| {
            let err = parse(kind, Path::new("/x/lock.json"), text.as_bytes()).unwrap_err().to_string();
            assert!(err.contains("/x/lock.json") && err.contains(expected), "{err}");
        };
        check(LockKind::Global, "{ not json", "key must be a string");
        check(LockKind::Global, r#"{"version": 2, "skills": {}}"#, "version 2, an old format");
        check(LockKind::Project, r#"{"version": 1, "skills": {"a": {"source": "o/r"}}}"#, "sourceType");
        check(LockKind::Project, r#"{"skills": {}}"#, "version");
        let dir = tempfile::tempdir().unwrap();
        assert!(read(LockKind::Project, &project_path(dir.path())).unwrap().is_none());
    }

    #[test]
    fn an_entry_is_for_the_folder_the_skills_cli_named_it() {
        let entry = |name: &str| LockEntry {
            name: name.into(),
            source: "o/r".into(),
            source_type: "github".into(),
            url: None,
            path: None,
            reference: None,
            lockfile: "/l".into(),
        };
        assert_eq!(entry("CE:Review").folder_name(), "ce-review");
        assert_eq!(entry("../My  Skill!.").folder_name(), "my-skill");
        assert_eq!(entry("a_b.c").folder_name(), "a_b.c");
        assert_eq!(entry("--").folder_name(), "unnamed-skill");
        assert!(entry("CE:Review").is_for("ce-review") && entry("pdf").is_for("pdf"));
        assert!(!entry("pdf").is_for("docx"));
    }

    #[test]
    fn the_global_file_follows_xdg_state_home() {
        let home = Path::new("/home/u");
        assert_eq!(global_path(None, Some(home)), Some(home.join(".agents/.skill-lock.json")));
        assert_eq!(global_path(Some(Path::new("")), Some(home)), Some(home.join(".agents/.skill-lock.json")));
        assert_eq!(global_path(Some(Path::new("/s")), Some(home)), Some(PathBuf::from("/s/skills/.skill-lock.json")));
        assert_eq!(folder_of("skills\\pdf\\SKILL.md"), "skills/pdf");
        assert_eq!(folder_of("./SKILL.md"), ".");
    }
}
