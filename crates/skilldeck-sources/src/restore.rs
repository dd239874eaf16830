//! What `skilldeck install` needs to make a store hold a lockfile's skills: each skill already
//! at its locked content is left alone; the others are fetched by commit (or digest), once per
//! repository and commit, and their content checked against the lock before anything is used.
//! Holds the fetching and checking; the import is the caller's.

use crate::fetch::{FetchConfig, Fetched, fetch};
use crate::lock::{Lock, LockedSkill};
use crate::mcp::{McpSource, Target};
use crate::rename::{self, Renamed};
use crate::source::{GitSource, Hosts, Source, UrlSource};
use serde::Serialize;
use skilldeck_skill::digest::Digest;
use skilldeck_skill::provenance::SourceKind;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Where one locked skill stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum Restore {
    /// The store already holds it at the locked content.
    InPlace,
    /// Fetched, with the locked content, ready to import from `dir`.
    Ready {
        /// Its folder (valid while the [`Restored`] lives).
        #[serde(skip)]
        dir: PathBuf,
    },
    /// It could not be brought to the locked content.
    Failed {
        /// Why.
        reason: String,
    },
}

/// Every locked skill, with the fetched trees the ready ones point into.
#[derive(Debug, Default)]
pub struct Restored {
    /// One per locked skill, in the lock's order.
    pub skills: Vec<(LockedSkill, Restore)>,
    _fetched: Vec<Fetched>,
    _renamed: Vec<Renamed>,
}

/// Fetches what `lock` needs that the store does not hold; `current` gives a skill's current
/// content digest in the store. An entry that cannot be used as written (see
/// [`LockedSkill::problem`]; `given` read against `hosts`) fails, naming why, and nothing is
/// fetched for it. An MCP server the lock says to start as a program is started only when
/// `run_servers` (the user's `--run-servers`): a lockfile from someone else never runs a program
/// on its own.
pub fn restore(
    lock: &Lock,
    hosts: &Hosts,
    config: &FetchConfig,
    current: &dyn Fn(&str) -> Option<Digest>,
    run_servers: bool,
) -> Restored {
    let mut out = Restored::default();
    // The skills to fetch, by what to fetch: one fetch each.
    let mut wanted: BTreeMap<(SourceKind, String, String), Vec<usize>> = BTreeMap::new();
    for (i, skill) in lock.skills.iter().enumerate() {
        if let Some(problem) = skill.problem(hosts) {
            out.skills.push((skill.clone(), Restore::Failed { reason: format!("refused: {problem}") }));
        } else if current(&skill.name) == Some(skill.digest) {
            out.skills.push((skill.clone(), Restore::InPlace));
        } else if skill.source.resolved.is_empty() {
            let reason = format!(
                "the commit it was installed from is not known (it was adopted with content {} did not hold); \
                 `skilldeck update {}` takes the source's, then `skilldeck lock` locks it",
                skill.source.url, skill.name
            );
            out.skills.push((skill.clone(), Restore::Failed { reason }));
        } else {
            let s = &skill.source;
            wanted.entry((s.kind, s.url.clone(), s.resolved.clone())).or_default().push(i);
            out.skills.push((skill.clone(), Restore::Failed { reason: String::new() }));
        }
    }
    for ((kind, url, resolved), indices) in wanted {
        let given =
            indices.first().and_then(|i| lock.skills.get(*i)).map(|s| s.source.given.clone()).unwrap_or_default();
        let source = match kind {
            SourceKind::Git => {
                Ok(Source::Git(GitSource { given, url: url.clone(), reference: Some(resolved.clone()), subpath: None }))
            }
            SourceKind::Index | SourceKind::Archive | SourceKind::SkillMd => url::Url::parse(&url)
                .map(|u| {
                    let u = UrlSource { given, url: u };
                    match kind {
                        SourceKind::Archive => Source::Archive(u),
                        SourceKind::SkillMd => Source::SkillFile(u),
                        _ => Source::Http(u),
                    }
                })
                .map_err(|e| format!("{url} is not a URL: {e}")),
            SourceKind::Mcp => match McpSource::parse(&given) {
                Ok(server) if matches!(server.target, Target::Command { .. }) && !run_servers => Err(format!(
                    "the lockfile would start the program `{}` to fetch it, and a lockfile never starts a program \
                     on its own: check the command, then run `skilldeck install --run-servers`",
                    server.recorded().trim_start_matches(crate::mcp::PREFIX)
                )),
                Ok(server) => Ok(Source::Mcp(server)),
                Err(e) => Err(e.to_string()),
            },
        };
        let fetched = source.and_then(|s| fetch(&s, None, config).map_err(|e| e.to_string()));
        let fetched = match fetched {
            Ok(f) => f,
            Err(reason) => {
                for i in indices {
                    if let Some(slot) = out.skills.get_mut(i) {
                        slot.1 = Restore::Failed { reason: reason.clone() };
                    }
                }
                continue;
            }
        };
        for i in indices {
            let Some((skill, state)) = out.skills.get_mut(i) else { continue };
            let (checked, renamed) = check_one(skill, &fetched, config);
            *state = checked;
            out._renamed.extend(renamed);
        }
        out._fetched.push(fetched);
    }
    out
}

/// The locked skill's folder in `fetched` (renamed as the lock keeps it, when it was added under
/// another name), when its content is what the lock says; with the renamed copy to keep.
fn check_one(skill: &LockedSkill, fetched: &Fetched, config: &FetchConfig) -> (Restore, Option<Renamed>) {
    let shown = skill.source.short();
    let Some(candidate) = fetched.skills.iter().find(|c| c.path == skill.source.path) else {
        let reason = match fetched.refusal(&skill.source.path) {
            Some(note) => {
                let fix = note.refused.as_ref().map(|r| format!("; {}", r.fix)).unwrap_or_default();
                format!("{shown} is refused: {}{fix}", note.what)
            }
            None => format!("{shown} holds no skill at {}", skill.source.path),
        };
        return (Restore::Failed { reason }, None);
    };
    if skill.source.kind != SourceKind::Git && candidate.provenance.resolved != skill.source.resolved {
        let reason = format!(
            "{} now serves other content ({}, locked {}); the locked content cannot be fetched any more",
            skill.source.url, candidate.provenance.resolved, skill.source.resolved
        );
        return (Restore::Failed { reason }, None);
    }
    match rename::as_kept(&candidate.dir, &skill.name, skill.upstream_name.is_some(), config.limits()) {
        Err(e) => (Restore::Failed { reason: e.to_string() }, None),
        Ok(kept) if kept.digest != skill.digest => {
            let reason = format!(
                "{shown} holds other content ({}) than the lock says ({}); the lock or the source was changed by hand",
                kept.digest.short(),
                skill.digest.short()
            );
            (Restore::Failed { reason }, None)
        }
        Ok(kept) => (Restore::Ready { dir: kept.dir }, kept.renamed),
    }
}
