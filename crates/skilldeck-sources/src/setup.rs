//! What every front end does before and around a fetch, so the CLI's `add` and the app's
//! "Add from…" decide alike: how sources are fetched on this machine (config.toml's hosts,
//! tokens from the environment, the store's limits) and which chosen skills would clash with a
//! user skill of the same name that came from elsewhere. Holds no fetching and no output.

use crate::config::{SourcesConfig, SourcesConfigError};
use crate::fetch::{Candidate, FetchConfig};
use crate::git::{FetchOptions, Tokens};
use crate::installed::InstalledSkills;
use crate::source::Hosts;
use skilldeck_core::{FsStorage, Scope, SkillName};
use std::time::Duration;

/// The environment variable that sets how long a fetch waits for a connection and for each next
/// bytes, in seconds (default 30).
pub const TIMEOUT_VAR: &str = "SKILLDECK_SOURCES_TIMEOUT_SECS";

/// Why fetching could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// `[sources]` could not be read.
    #[error(transparent)]
    Config(#[from] SourcesConfigError),
    /// [`TIMEOUT_VAR`] is not a number of seconds.
    #[error("{TIMEOUT_VAR}={value:?} is not a number of seconds between 0 and 86400: write e.g. 60")]
    Timeout {
        /// The value as set.
        value: String,
    },
}

/// How sources are fetched with the store `storage`: `[sources]` of its config.toml for the
/// hosts, tokens from the environment (`GITHUB_TOKEN`, `GH_TOKEN`, `GITLAB_TOKEN`), the
/// store's upload limits for what a fetch may write, and [`TIMEOUT_VAR`] when set.
pub fn fetch_config(storage: &FsStorage) -> Result<(Hosts, FetchConfig), SetupError> {
    let config = SourcesConfig::load(&storage.home().config_path())?;
    let mut git =
        FetchOptions { limits: storage.limits(), tokens: Tokens::from_env(&config.hosts), ..FetchOptions::default() };
    let mut fetch = FetchConfig::default();
    if let Some(timeout) = timeout_from_env()? {
        git.connect_timeout = timeout;
        git.read_timeout = timeout;
        fetch.http.connect_timeout = timeout;
        fetch.http.read_timeout = timeout;
        fetch.http.total_timeout = fetch.http.total_timeout.max(timeout);
    }
    Ok((config.hosts, FetchConfig { git, ..fetch }))
}

/// [`TIMEOUT_VAR`] read: `None` when unset.
fn timeout_from_env() -> Result<Option<Duration>, SetupError> {
    let Some(text) = std::env::var_os(TIMEOUT_VAR) else { return Ok(None) };
    let text = text.to_string_lossy();
    match text.trim().parse::<f64>() {
        Ok(secs) if secs.is_finite() && secs > 0.0 && secs <= 86_400.0 => Ok(Some(Duration::from_secs_f64(secs))),
        _ => Err(SetupError::Timeout { value: text.into_owned() }),
    }
}

/// The name the import will store `c` under: its frontmatter's `name` when that is a valid
/// skill name, else its folder's, as `import` names a skill.
pub fn stored_name(c: &Candidate) -> Option<SkillName> {
    SkillName::parse(&c.name)
        .ok()
        .or_else(|| c.dir.file_name().and_then(|n| n.to_str()).and_then(|n| SkillName::parse(n).ok()))
}

/// Where the user skill that `candidate` would replace came from, when it did not come from the
/// same place in the same source: `Some(None)` for a skill made or imported here, `Some(Some(s))`
/// for one from another source (`s` its short line), `None` when there is no clash (no such skill,
/// or one this source installed).
pub fn clash(storage: &FsStorage, installed: &InstalledSkills, candidate: &Candidate) -> Option<Option<String>> {
    clash_as(storage, installed, candidate, &stored_name(candidate)?)
}

/// [`clash`] for `candidate` stored under `name` (`add --as NAME`) rather than its own name.
pub fn clash_as(
    storage: &FsStorage,
    installed: &InstalledSkills,
    candidate: &Candidate,
    name: &SkillName,
) -> Option<Option<String>> {
    let exists = storage.skill_dir(Scope::User, name).is_dir();
    let record = installed.get(name.as_str());
    let same_source =
        record.is_some_and(|r| r.source.url == candidate.provenance.url && r.source.path == candidate.provenance.path);
    (exists && !same_source).then(|| record.map(|r| r.source.short()))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use skilldeck_core::SkilldeckHome;
    use skilldeck_core::digest::Digest;
    use skilldeck_core::provenance::{Provenance, SourceKind};

    fn candidate(name: &str, url: &str) -> Candidate {
        let provenance = Provenance {
            kind: SourceKind::Git,
            given: "o/r".into(),
            url: url.into(),
            reference: None,
            pinned: false,
            resolved: "9d2f1ae0".repeat(5),
            path: format!("skills/{name}"),
        };
        Candidate { name: name.into(), path: provenance.path.clone(), dir: "/nowhere".into(), provenance }
    }

    #[test]
    fn a_skill_from_elsewhere_clashes_and_one_from_this_source_does_not() {
        let tmp = tempfile::tempdir().unwrap();
        let storage = FsStorage::open(SkilldeckHome::new(tmp.path())).unwrap();
        for name in ["made", "sourced", "other"] {
            std::fs::create_dir_all(tmp.path().join("skills/user").join(name)).unwrap();
        }
        let mut installed = InstalledSkills::load(storage.home()).unwrap();
        let here = "https://example.com/o/r.git";
        installed.record("sourced", candidate("sourced", here).provenance, Digest::from_bytes([1; 32]));
        installed.record(
            "other",
            candidate("other", "https://example.com/x/y.git").provenance,
            Digest::from_bytes([2; 32]),
        );
        let check = |name: &str| clash(&storage, &installed, &candidate(name, here));
        assert_eq!(check("absent"), None);
        assert_eq!(check("made"), Some(None));
        assert_eq!(check("sourced"), None);
        assert_eq!(check("other"), Some(Some("example.com/x/y@9d2f1ae, skills/other".to_owned())));
        // Under another name: the clash is that name's.
        let as_name = |name: &str, new: &str| {
            clash_as(&storage, &installed, &candidate(name, here), &SkillName::parse(new).unwrap())
        };
        assert_eq!(as_name("other", "absent"), None);
        assert_eq!(as_name("absent", "made"), Some(None));

        let (hosts, config) = fetch_config(&storage).unwrap();
        assert_eq!(hosts, Hosts::default());
        assert_eq!(config.limits(), storage.limits());
    }
}
