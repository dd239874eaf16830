//! Where skills another tool installed came from: the entries of the `skills` CLI's lockfiles
//! (`skills_cli.rs`) fetched, once per source and ref, and each matched to its skill there (by
//! its path when the lockfile gives one, else by name), with the provenance `skilldeck add`
//! would record and the digest of the source's content. Holds the fetching and matching; what
//! is adopted and recorded is the caller's.

use crate::fetch::{Candidate, FetchConfig, Fetched, fetch};
use crate::installed::{InstalledError, InstalledSkills};
use crate::setup::stored_name;
use crate::skills_cli::{LockEntry, SkillsCliLocks};
use crate::source::Hosts;
use serde::Serialize;
use skilldeck_skill::digest::Digest;
use skilldeck_skill::provenance::Provenance;
use skilldeck_store::SkilldeckHome;
use skilldeck_store::import;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// A skill's source, found: where it is and what it holds there now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Origin {
    /// The skill's name.
    pub name: String,
    /// What a revision from there records (the commit or digest fetched).
    pub provenance: Provenance,
    /// The digest of the source's content of the skill.
    pub digest: Digest,
    /// The lockfile that named the source.
    pub lockfile: PathBuf,
}

/// An entry whose source could not be followed, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct Unfollowed {
    /// The skill's name.
    pub name: String,
    /// The lockfile that named the source.
    pub lockfile: PathBuf,
    /// Why, and what it means.
    pub reason: String,
}

/// The origins found for some entries, and those that could not be followed.
#[derive(Debug, Default)]
pub struct Origins {
    /// By skill name.
    pub found: BTreeMap<String, Origin>,
    /// Each with why.
    pub unfollowed: Vec<Unfollowed>,
    /// How many fetches were made.
    pub fetches: usize,
}

/// The candidate of `fetched` that `entry` names: at its path when it gives one, else the one
/// skill of its name.
fn matching<'a>(fetched: &'a Fetched, entry: &LockEntry) -> Result<&'a Candidate, String> {
    let shown = fetched.origin.short();
    if let Some(path) = &entry.path {
        return fetched
            .skills
            .iter()
            .find(|c| &c.provenance.path == path)
            .ok_or_else(|| format!("{shown} holds no skill at {path}"));
    }
    let named: Vec<&Candidate> = fetched
        .skills
        .iter()
        .filter(|c| entry.is_for(&c.name) || stored_name(c).is_some_and(|n| entry.is_for(n.as_str())))
        .collect();
    match named.as_slice() {
        [one] => Ok(one),
        [] => Err(format!("{shown} holds no skill named {}", entry.name)),
        many => {
            let paths: Vec<&str> = many.iter().map(|c| c.provenance.path.as_str()).collect();
            Err(format!(
                "{shown} holds {} skills named {} ({}), so which one is not known",
                many.len(),
                entry.name,
                paths.join(", ")
            ))
        }
    }
}

/// A skill here (by its name) and the lockfile entry of its source.
pub type Wanted<'a> = (&'a str, &'a LockEntry);

/// Fetches the sources of the entries of `wanted` (one fetch per source and ref) and finds each
/// entry's skill there; the origins are keyed by the names here.
pub fn find(wanted: &[Wanted<'_>], hosts: &Hosts, config: &FetchConfig) -> Origins {
    let mut out = Origins::default();
    let unfollowed = |(name, e): Wanted<'_>, reason: String| Unfollowed {
        name: name.to_owned(),
        lockfile: e.lockfile.clone(),
        reason,
    };
    // The entries by what to fetch.
    let mut groups: BTreeMap<(String, Option<String>), Vec<Wanted<'_>>> = BTreeMap::new();
    for &(name, e) in wanted {
        match e.to_source(hosts) {
            Err(err) => out.unfollowed.push(unfollowed((name, e), err.to_string())),
            Ok(source) => groups.entry((source.given().to_owned(), e.reference.clone())).or_default().push((name, e)),
        }
    }
    for ((_, reference), group) in groups {
        let Some(&(_, first)) = group.first() else { continue };
        let source = match first.to_source(hosts) {
            Ok(s) => s,
            Err(err) => {
                out.unfollowed.extend(group.iter().map(|&w| unfollowed(w, err.to_string())));
                continue;
            }
        };
        out.fetches += 1;
        let fetched = match fetch(&source, reference.as_deref(), config) {
            Ok(f) => f,
            Err(err) => {
                let reason = format!("could not fetch {}: {err}", source.given());
                out.unfollowed.extend(group.iter().map(|&w| unfollowed(w, reason.clone())));
                continue;
            }
        };
        for (name, e) in group {
            let found = matching(&fetched, e).and_then(|c| {
                let loaded = import::load(&c.dir, config.limits(), &mut |_, _| {}).map_err(|err| err.to_string())?;
                Ok(Origin {
                    name: name.to_owned(),
                    provenance: c.provenance.clone(),
                    digest: loaded.files.digest(),
                    lockfile: e.lockfile.clone(),
                })
            });
            match found {
                Ok(origin) => {
                    out.found.insert(name.to_owned(), origin);
                }
                Err(reason) => out.unfollowed.push(unfollowed((name, e), reason)),
            }
        }
    }
    out
}

/// A skill brought in from another tool's folder with its source recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct Sourced {
    /// The skill.
    pub name: String,
    /// Its source as recorded in `sources.json` (`resolved` empty when the adopted content is
    /// not the source's: which commit it came from is not known).
    pub source: Provenance,
    /// Whether the adopted content is what the source holds now.
    pub same_as_source: bool,
    /// The lockfile that named the source.
    pub lockfile: PathBuf,
}

/// Records in `sources.json` the source of each skill in `adopted` (its name, and the digest
/// of the content the user scope now holds as current) whose origin was found: at the commit
/// fetched when that content is the source's, else with the commit unknown, so the next check
/// fetches and compares by content. Returns what was recorded.
pub fn record(
    home: &SkilldeckHome,
    adopted: impl IntoIterator<Item = (String, Digest)>,
    origins: &Origins,
) -> Result<Vec<Sourced>, InstalledError> {
    let mut out = Vec::new();
    if origins.found.is_empty() {
        return Ok(out);
    }
    let mut installed = InstalledSkills::load(home)?;
    for (name, digest) in adopted {
        let Some(origin) = origins.found.get(&name) else { continue };
        let same = origin.digest == digest;
        let source = if same {
            origin.provenance.clone()
        } else {
            Provenance { resolved: String::new(), ..origin.provenance.clone() }
        };
        installed.record(&name, source.clone(), digest);
        out.push(Sourced { name, source, same_as_source: same, lockfile: origin.lockfile.clone() });
    }
    if !out.is_empty() {
        installed.save()?;
    }
    Ok(out)
}

/// The origins of the skills named in `names` that the `skills` CLI's lockfiles in `locks`
/// give a source for, fetched once per source (none at all when no lockfile names them).
pub fn of_named<'a>(
    names: impl IntoIterator<Item = &'a str>,
    locks: &SkillsCliLocks,
    hosts: &Hosts,
    config: &FetchConfig,
) -> Origins {
    let entries: Vec<Wanted<'_>> = names.into_iter().filter_map(|n| locks.entry(n).map(|e| (n, e))).collect();
    if entries.is_empty() { Origins::default() } else { find(&entries, hosts, config) }
}
