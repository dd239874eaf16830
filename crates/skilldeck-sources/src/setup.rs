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

/// How sources are fetched with the store `storage`: `[sources]` of its config.toml for the
/// hosts, tokens from the environment (`GITHUB_TOKEN`, `GH_TOKEN`, `GITLAB_TOKEN`), and the
/// store's upload limits for what a fetch may write.
pub fn fetch_config(storage: &FsStorage) -> Result<(Hosts, FetchConfig), SourcesConfigError> {
    let config = SourcesConfig::load(&storage.home().config_path())?;
    let git =
        FetchOptions { limits: storage.limits(), tokens: Tokens::from_env(&config.hosts), ..FetchOptions::default() };
    Ok((config.hosts, FetchConfig { git, ..FetchConfig::default() }))
}

/// Where the user skill that `candidate` would replace came from, when it did not come from the
/// same place in the same source: `Some(None)` for a skill made or imported here, `Some(Some(s))`
/// for one from another source (`s` its short line), `None` when there is no clash (no such skill,
/// or one this source installed).
pub fn clash(storage: &FsStorage, installed: &InstalledSkills, candidate: &Candidate) -> Option<Option<String>> {
    let exists = SkillName::parse(&candidate.name).is_ok_and(|n| storage.skill_dir(Scope::User, &n).is_dir());
    let record = installed.get(&candidate.name);
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

        let (hosts, config) = fetch_config(&storage).unwrap();
        assert_eq!(hosts, Hosts::default());
        assert_eq!(config.limits(), storage.limits());
    }
}
