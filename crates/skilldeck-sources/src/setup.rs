//! What every front end does before and around a fetch, so the CLI's `add` and the app's
//! "Add from…" decide alike: how sources are fetched on this machine (config.toml's hosts,
//! tokens from the environment, the store's limits) and which chosen skills would clash with a
//! user skill of the same name that came from elsewhere. Holds no fetching and no output.

use crate::config::{SourcesConfig, SourcesConfigError};
use crate::fetch::{Candidate, FetchConfig};
use crate::git::{FetchOptions, Tokens, TreeLimits};
use crate::installed::InstalledSkills;
use crate::source::Hosts;
use skilldeck_skill::{Scope, SkillName, UploadLimits, validate};
use skilldeck_store::FsStorage;
use std::path::Path;
use std::time::Duration;

/// The environment variable that sets how long a fetch waits for a connection and for each next
/// bytes, in seconds (default 30); a whole fetch may take [`TOTAL_TIMES`] that (10 min by default).
pub const TIMEOUT_VAR: &str = "SKILLDECK_SOURCES_TIMEOUT_SECS";

/// How many times [`TIMEOUT_VAR`]'s wait a whole fetch (Git or HTTP, every request of it) may
/// take, however steadily the server sends: a byte now and then does not keep it going.
pub const TOTAL_TIMES: u32 = 20;

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
/// hosts and for how much a skill (`max_skill_bytes`, within the store's upload limits) and a
/// whole fetch (`max_fetch_bytes`) may bring, tokens from the environment (`GITHUB_TOKEN`,
/// `GH_TOKEN`, `GITLAB_TOKEN`), and [`TIMEOUT_VAR`] when set.
pub fn fetch_config(storage: &FsStorage) -> Result<(Hosts, FetchConfig), SetupError> {
    let config = SourcesConfig::load(&storage.home().config_path())?;
    let store = storage.limits();
    let skill = UploadLimits { max_total_bytes: config.max_skill_bytes.min(store.max_total_bytes), ..store };
    let limits =
        TreeLimits { max_bytes: config.max_fetch_bytes, max_file_bytes: store.max_file_bytes, ..TreeLimits::default() };
    let mut git = FetchOptions { limits, tokens: Tokens::from_env(&config.hosts), ..FetchOptions::default() };
    let mut fetch = FetchConfig { skill, ..FetchConfig::default() };
    if let Some(timeout) = timeout_from_env()? {
        git.connect_timeout = timeout;
        git.read_timeout = timeout;
        git.total_timeout = timeout * TOTAL_TIMES;
        fetch.http.connect_timeout = timeout;
        fetch.http.read_timeout = timeout;
        fetch.http.total_timeout = timeout * TOTAL_TIMES;
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

/// The note both front ends show once when the source as written carries credentials (a token
/// as an HTTP(S) user name, `?private_token=…`, a signature): they are used for this one fetch and
/// never recorded, and how to give them so that `outdated`, `update` and `install` can fetch
/// again. `None` when `given` carries none.
pub fn credentials_note(given: &str) -> Option<String> {
    let found = crate::redact::credentials(given.trim());
    if found.is_empty() {
        return None;
    }
    Some(format!(
        "note: {} in {} is used for this fetch only and is not recorded: sources.json, history,          `show`, `outdated` and skilldeck.lock keep the address without it. For later checks,          updates and installs, give the credential properly: GITHUB_TOKEN, GH_TOKEN or GITLAB_TOKEN          for the [sources] github and gitlab hosts, or a Git credential helper (git config --global          credential.helper)",
        found.join(", "),
        crate::redact::url(given.trim())
    ))
}

/// The name the import will store `c` under: its frontmatter's `name` when that is a valid
/// skill name, else its folder's, as `import` names a skill.
pub fn stored_name(c: &Candidate) -> Option<SkillName> {
    SkillName::parse(&c.name)
        .ok()
        .or_else(|| c.dir.file_name().and_then(|n| n.to_str()).and_then(|n| SkillName::parse(n).ok()))
}

/// The first error validation finds in the `SKILL.md` of the skill folder `dir`, as
/// `code: message`, to say with a refusal the import gave (a skill whose name cannot be told);
/// `None` when it has no error, or no readable `SKILL.md` of at most 1 MiB.
pub fn first_error(dir: &Path) -> Option<String> {
    let path = dir.join("SKILL.md");
    let small = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file() && m.len() <= 1 << 20);
    let bytes = if small { std::fs::read(&path).ok()? } else { return None };
    let validated = validate::validate_bytes(Some(&bytes), validate::ValidateOptions::default());
    let first = validated.diagnostics.into_iter().find(|d| d.is_error())?;
    Some(format!("{}: {}", first.code, first.message))
}

/// Who already holds the name a chosen skill would be stored under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Taken {
    /// A user skill made or imported here.
    MadeHere,
    /// A user skill from another source, or from elsewhere in this one (its short line).
    OtherSource(String),
    /// No user skill, but a skill of this scope (`system`: bundled with Skilldeck; `team`), which
    /// a user skill of the name would hide from every agent.
    Shadows(Scope),
}

impl Taken {
    /// In words, after "a skill named NAME already exists and ": `was made or imported here`,
    /// `came from …`, `is bundled with Skilldeck (a user skill of that name would hide it)`.
    pub fn said(&self) -> String {
        match self {
            Taken::MadeHere => "was made or imported here".to_owned(),
            Taken::OtherSource(from) => format!("came from {from}"),
            Taken::Shadows(Scope::System) => {
                "is bundled with Skilldeck (a user skill of that name would hide it from every agent)".to_owned()
            }
            Taken::Shadows(scope) => {
                format!("is in the {scope} scope (a user skill of that name would hide it from every agent)")
            }
        }
    }
}

/// Who holds the name `candidate` would be stored under, when the import would replace or hide a
/// skill that did not come from the same place in the same source; `None` when there is no clash
/// (no such skill, or one this source installed).
pub fn taken(storage: &FsStorage, installed: &InstalledSkills, candidate: &Candidate) -> Option<Taken> {
    taken_as(storage, installed, candidate, &stored_name(candidate)?)
}

/// [`taken`] for `candidate` stored under `name` (`add --as NAME`) rather than its own name.
pub fn taken_as(
    storage: &FsStorage,
    installed: &InstalledSkills,
    candidate: &Candidate,
    name: &SkillName,
) -> Option<Taken> {
    if storage.skill_dir(Scope::User, name).is_dir() {
        let record = installed.get(name.as_str());
        let same_source = record
            .is_some_and(|r| r.source.url == candidate.provenance.url && r.source.path == candidate.provenance.path);
        return (!same_source).then(|| record.map_or(Taken::MadeHere, |r| Taken::OtherSource(r.source.short())));
    }
    [Scope::System, Scope::Team].into_iter().find(|scope| storage.skill_dir(*scope, name).is_dir()).map(Taken::Shadows)
}

/// Where the user skill that `candidate` would replace came from, when it did not come from the
/// same place in the same source: `Some(None)` for a skill made or imported here, `Some(Some(s))`
/// for one from another source (`s` its short line) or a bundled or team skill it would hide
/// (`s` says so), `None` when there is no clash. [`taken`] tells these apart.
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
    taken_as(storage, installed, candidate, name).map(|taken| match taken {
        Taken::MadeHere => None,
        Taken::OtherSource(from) => Some(from),
        Taken::Shadows(Scope::System) => {
            Some("Skilldeck itself: it is bundled, and a user skill of that name would hide it".to_owned())
        }
        Taken::Shadows(scope) => {
            Some(format!("the {scope} scope, and a user skill of that name would hide it from every agent"))
        }
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use skilldeck_skill::digest::Digest;
    use skilldeck_skill::provenance::{Provenance, SourceKind};
    use skilldeck_store::SkilldeckHome;

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
    fn the_first_error_of_a_skill_md() {
        let tmp = tempfile::tempdir().unwrap();
        assert_eq!(first_error(tmp.path()), None, "no SKILL.md");
        std::fs::write(tmp.path().join("SKILL.md"), "---\nname: ok\ndescription: Fine.\n---\nBody.\n").unwrap();
        assert_eq!(first_error(tmp.path()), None);
        std::fs::write(tmp.path().join("SKILL.md"), "---\nname: Bad Name\ndescription: Fine.\n---\nBody.\n").unwrap();
        let first = first_error(tmp.path()).unwrap();
        assert!(first.starts_with("name_invalid: "), "{first}");
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

        // A name bundled with Skilldeck (or a team's) clashes though no user skill holds it.
        std::fs::create_dir_all(tmp.path().join("skills/system/change-review")).unwrap();
        assert_eq!(taken(&storage, &installed, &candidate("change-review", here)), Some(Taken::Shadows(Scope::System)));
        assert!(check("change-review").is_some_and(|from| from.is_some_and(|f| f.contains("bundled"))));
        assert_eq!(taken(&storage, &installed, &candidate("made", here)), Some(Taken::MadeHere));

        let (hosts, config) = fetch_config(&storage).unwrap();
        assert_eq!(hosts, Hosts::default());
        assert_eq!(config.limits(), storage.limits(), "a skill may hold what the store keeps of one");
        assert_eq!(config.git.limits.max_bytes, 512 << 20);
        // A skill's limit from config.toml; a whole fetch's too.
        std::fs::write(
            storage.home().config_path(),
            "[sources]\nmax_skill_bytes = \"64 KiB\"\nmax_fetch_bytes = \"1 GiB\"\n",
        )
        .unwrap();
        let (_, config) = fetch_config(&storage).unwrap();
        assert_eq!(config.limits(), UploadLimits { max_total_bytes: 64 << 10, ..storage.limits() });
        assert_eq!(config.git.limits.max_bytes, 1 << 30);
    }
}
