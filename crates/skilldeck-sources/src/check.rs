//! Whether sourced skills have moved on upstream, with as few round trips as possible: one ref
//! listing per Git repository (nothing is fetched when no ref moved), one index per site, one
//! download per archive or `SKILL.md` URL. A repository whose ref moved is fetched once at the
//! new commit, and each of its skills compared by content, so a commit that changed a neighbour
//! does not make a skill outdated. Holds the check; `update` (in the CLI and the app) imports
//! what it found.

use crate::fetch::{FetchConfig, Fetched, fetch, fetch_mcp_some};
use crate::git::{self, RemoteRef};
use crate::http::HttpClient;
use crate::installed::{Installed, InstalledSkills};
use crate::mcp::McpSource;
use crate::rename::{self, Renamed};
use crate::source::{GitSource, Source, UrlSource};
use crate::wellknown;
use serde::Serialize;
use skilldeck_skill::digest::Digest;
use skilldeck_skill::provenance::{Provenance, SourceKind};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Where a sourced skill stands against its source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum Status {
    /// The source holds the same content as installed.
    UpToDate,
    /// The source holds other content for it.
    Outdated {
        /// Where the new content comes from.
        new: Provenance,
        /// The new content's digest.
        digest: Digest,
        /// Its folder, fetched (valid while the [`Checked`] lives).
        #[serde(skip)]
        dir: PathBuf,
    },
    /// The source no longer holds it (its path or index entry is gone).
    Gone {
        /// Why it is said to be gone.
        reason: String,
    },
    /// The source could not be asked (offline, credentials, a server error).
    CouldNotCheck {
        /// What went wrong.
        reason: String,
    },
}

/// One sourced skill, checked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Check {
    /// The skill's name.
    pub name: String,
    /// What was installed from where.
    pub installed: Installed,
    /// Whether its current revision differs from what was installed (a local edit).
    pub changed_here: bool,
    /// Where it stands.
    #[serde(flatten)]
    pub status: Status,
}

/// Every check, with the fetched trees the outdated ones point into.
#[derive(Debug, Default)]
pub struct Checked {
    /// One per skill checked, by name.
    pub checks: Vec<Check>,
    /// Sources' tops that moved on without changing a skill: the new resolved commit or digest,
    /// by skill, for `sources.json` (no revision is made).
    pub moved: Vec<(String, Provenance)>,
    /// How many round trips were made to each source, by URL.
    pub asked: BTreeMap<String, usize>,
    _fetched: Vec<Fetched>,
    _renamed: Vec<Renamed>,
}

/// Checks the sourced skills named (all when `names` is empty). `current` gives a skill's
/// current content digest in the store (`None` when it is gone).
pub fn check(
    installed: &InstalledSkills,
    names: &[String],
    config: &FetchConfig,
    current: &dyn Fn(&str) -> Option<Digest>,
) -> Checked {
    let mut out = Checked::default();
    let chosen: Vec<(&str, &Installed)> =
        installed.iter().filter(|(n, _)| names.is_empty() || names.iter().any(|w| w == n)).collect();
    // Grouped by the URL asked: one listing or download each.
    let mut groups: BTreeMap<(SourceKind, String), Vec<(&str, &Installed)>> = BTreeMap::new();
    for (name, rec) in chosen {
        groups.entry((rec.source.kind, rec.source.url.clone())).or_default().push((name, rec));
    }
    for ((kind, url), skills) in groups {
        match kind {
            SourceKind::Git => check_git(&url, &skills, config, &mut out),
            SourceKind::Index => check_index(&url, &skills, config, &mut out),
            SourceKind::Archive | SourceKind::SkillMd => check_url(kind, &url, &skills, config, &mut out),
            SourceKind::Mcp => check_mcp(&url, &skills, config, &mut out),
        }
    }
    for c in &mut out.checks {
        c.changed_here = current(&c.name).is_some_and(|d| d != c.installed.digest);
    }
    out.checks.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

fn push(out: &mut Checked, name: &str, rec: &Installed, status: Status) {
    out.checks.push(Check { name: name.to_owned(), installed: rec.clone(), changed_here: false, status });
}

fn could_not(out: &mut Checked, skills: &[(&str, &Installed)], reason: &str) {
    for (name, rec) in skills {
        push(out, name, rec, Status::CouldNotCheck { reason: reason.to_owned() });
    }
}

/// The commit `reference` names among `refs` (`None`: the remote's `HEAD`).
fn resolve(refs: &[RemoteRef], reference: Option<&str>) -> Option<String> {
    let commit = |r: &RemoteRef| r.peeled.clone().unwrap_or_else(|| r.oid.clone());
    let Some(wanted) = reference else {
        return refs.iter().find(|r| r.name == "HEAD").map(commit);
    };
    if wanted.len() == 40 && wanted.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Some(wanted.to_ascii_lowercase());
    }
    [format!("refs/heads/{wanted}"), format!("refs/tags/{wanted}"), wanted.to_owned()]
        .iter()
        .find_map(|full| refs.iter().find(|r| &r.name == full).map(commit))
}

/// Sourced skills asked about together: their names and records.
type Group<'a> = Vec<(&'a str, &'a Installed)>;

fn check_git(url: &str, skills: &[(&str, &Installed)], config: &FetchConfig, out: &mut Checked) {
    *out.asked.entry(url.to_owned()).or_default() += 1;
    let refs = match git::remote_refs(url, &config.git) {
        Ok(refs) => refs,
        Err(e) => return could_not(out, skills, &e.to_string()),
    };
    // The skills whose ref moved, by the ref they follow: one fetch each.
    let mut moved: BTreeMap<(Option<String>, String), Group<'_>> = BTreeMap::new();
    for &(name, rec) in skills {
        match resolve(&refs, rec.source.reference.as_deref()) {
            None => {
                let what = rec.source.reference.as_deref().unwrap_or("HEAD");
                push(out, name, rec, Status::Gone { reason: format!("{url} no longer has {what}") });
            }
            Some(commit) if commit == rec.source.resolved => push(out, name, rec, Status::UpToDate),
            Some(commit) => moved.entry((rec.source.reference.clone(), commit)).or_default().push((name, rec)),
        }
    }
    for ((reference, commit), group) in moved {
        let Some(&(_, first)) = group.first() else { continue };
        let source = Source::Git(GitSource {
            given: first.source.given.clone(),
            url: url.to_owned(),
            reference: Some(commit.clone()),
            subpath: None,
        });
        *out.asked.entry(url.to_owned()).or_default() += 1;
        match fetch(&source, None, config) {
            Err(e) => could_not(out, &group, &e.to_string()),
            Ok(fetched) => {
                for (name, rec) in group {
                    let new =
                        Provenance { reference: reference.clone(), resolved: commit.clone(), ..rec.source.clone() };
                    compare(out, name, rec, &fetched, new, config);
                }
                out._fetched.push(fetched);
            }
        }
    }
}

/// Compares one skill with its folder in `fetched` (renamed as it is kept here, when it was added
/// under another name): the same content is up to date (and its record follows the source's new
/// top), other content is outdated, no folder is gone.
fn compare(out: &mut Checked, name: &str, rec: &Installed, fetched: &Fetched, new: Provenance, config: &FetchConfig) {
    let Some(candidate) = fetched.skills.iter().find(|c| c.path == rec.source.path) else {
        // Refused now (too big, a link out): there, but not to be taken as it stands.
        if let Some(note) = fetched.refusal(&rec.source.path) {
            let fix = note.refused.as_ref().map(|r| format!("; {}", r.fix)).unwrap_or_default();
            let reason = format!("{} refuses it: {}{fix}", new.short(), note.what);
            return push(out, name, rec, Status::CouldNotCheck { reason });
        }
        let reason = format!("{} no longer holds a skill at {}", new.short(), rec.source.path);
        return push(out, name, rec, Status::Gone { reason });
    };
    match rename::as_kept(&candidate.dir, name, rec.renamed_from().is_some(), config.limits()) {
        Err(e) => push(out, name, rec, Status::CouldNotCheck { reason: e.to_string() }),
        Ok(kept) => {
            if kept.digest == rec.digest {
                out.moved.push((name.to_owned(), new));
                push(out, name, rec, Status::UpToDate);
            } else {
                out._renamed.extend(kept.renamed);
                push(out, name, rec, Status::Outdated { new, digest: kept.digest, dir: kept.dir });
            }
        }
    }
}

fn check_index(url: &str, skills: &[(&str, &Installed)], config: &FetchConfig, out: &mut Checked) {
    *out.asked.entry(url.to_owned()).or_default() += 1;
    let listing = match HttpClient::new(config.http.clone())
        .map_err(|e| e.to_string())
        .and_then(|client| wellknown::list_index(&client, url).map_err(|e| e.to_string()))
    {
        Ok(listing) => listing,
        Err(reason) => return could_not(out, skills, &reason),
    };
    let mut stale = Vec::new();
    for &(name, rec) in skills {
        match listing.entries.iter().find(|e| e.name.as_str() == rec.source.path) {
            None => {
                let reason = format!("{url} no longer lists {}", rec.source.path);
                push(out, name, rec, Status::Gone { reason });
            }
            Some(entry) if entry.digest.to_string() == rec.source.resolved => push(out, name, rec, Status::UpToDate),
            Some(_) => stale.push((name, rec)),
        }
    }
    if stale.is_empty() {
        return;
    }
    let source = Source::Http(UrlSource {
        given: stale.first().map(|(_, r)| r.source.given.clone()).unwrap_or_default(),
        url: listing.index_url.clone(),
    });
    *out.asked.entry(url.to_owned()).or_default() += 1;
    match fetch(&source, None, config) {
        Err(e) => could_not(out, &stale, &e.to_string()),
        Ok(fetched) => {
            for (name, rec) in stale {
                let resolved = fetched
                    .skills
                    .iter()
                    .find(|c| c.path == rec.source.path)
                    .map_or_else(|| rec.source.resolved.clone(), |c| c.provenance.resolved.clone());
                compare(out, name, rec, &fetched, Provenance { resolved, ..rec.source.clone() }, config);
            }
            out._fetched.push(fetched);
        }
    }
}

fn check_url(kind: SourceKind, url: &str, skills: &[(&str, &Installed)], config: &FetchConfig, out: &mut Checked) {
    *out.asked.entry(url.to_owned()).or_default() += 1;
    let parsed = match url::Url::parse(url) {
        Ok(u) => u,
        Err(e) => return could_not(out, skills, &format!("{url} is not a URL: {e}")),
    };
    let given = skills.first().map(|(_, r)| r.source.given.clone()).unwrap_or_default();
    let u = UrlSource { given, url: parsed };
    let source = if kind == SourceKind::Archive { Source::Archive(u) } else { Source::SkillFile(u) };
    match fetch(&source, None, config) {
        Err(e) => could_not(out, skills, &e.to_string()),
        Ok(fetched) => {
            for &(name, rec) in skills {
                if fetched.origin.resolved == rec.source.resolved {
                    push(out, name, rec, Status::UpToDate);
                } else {
                    let new = Provenance { resolved: fetched.origin.resolved.clone(), ..rec.source.clone() };
                    compare(out, name, rec, &fetched, new, config);
                }
            }
            out._fetched.push(fetched);
        }
    }
}

/// One connection to the server: its listing compared manifest by manifest with what was
/// installed, and only the skills whose manifest changed read again and compared by content.
fn check_mcp(url: &str, skills: &[(&str, &Installed)], config: &FetchConfig, out: &mut Checked) {
    *out.asked.entry(url.to_owned()).or_default() += 1;
    let given = skills.first().map(|(_, r)| r.source.given.clone()).unwrap_or_default();
    let server = match McpSource::parse(&given) {
        Ok(server) => server,
        Err(e) => return could_not(out, skills, &e.to_string()),
    };
    let stale: BTreeMap<&str, &str> =
        skills.iter().map(|(_, r)| (r.source.path.as_str(), r.source.resolved.as_str())).collect();
    let wanted = |path: &str, manifest: &str| stale.get(path).is_some_and(|installed| *installed != manifest);
    match fetch_mcp_some(&server, config, crate::mcp::Wanted { entry: &wanted, uris: &[] }) {
        Err(e) => could_not(out, skills, &e.to_string()),
        Ok((fetched, listed)) => {
            for &(name, rec) in skills {
                match listed.get(&rec.source.path) {
                    Some(manifest) if *manifest == rec.source.resolved => push(out, name, rec, Status::UpToDate),
                    Some(manifest) => {
                        let new = Provenance { resolved: manifest.clone(), ..rec.source.clone() };
                        compare(out, name, rec, &fetched, new, config);
                    }
                    None => match fetched.refusal(&rec.source.path) {
                        Some(note) => {
                            let reason = format!("{url} refuses it now: {}", note.what);
                            push(out, name, rec, Status::CouldNotCheck { reason });
                        }
                        None => {
                            let reason = format!("{url} no longer publishes a skill at {}", rec.source.path);
                            push(out, name, rec, Status::Gone { reason });
                        }
                    },
                }
            }
            out._fetched.push(fetched);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(name: &str, oid: &str, peeled: Option<&str>) -> RemoteRef {
        RemoteRef { name: name.into(), oid: oid.into(), peeled: peeled.map(Into::into), symref_target: None }
    }

    #[test]
    fn refs_resolve_head_branches_before_tags_peeled_tags_and_commits() {
        let refs = [
            r("HEAD", "h", None),
            r("refs/heads/v1", "branch", None),
            r("refs/tags/v1", "tagobj", Some("tagged")),
            r("refs/tags/v2", "tagobj2", Some("tagged2")),
        ];
        assert_eq!(resolve(&refs, None).as_deref(), Some("h"));
        assert_eq!(resolve(&refs, Some("v1")).as_deref(), Some("branch"));
        assert_eq!(resolve(&refs, Some("v2")).as_deref(), Some("tagged2"));
        assert_eq!(resolve(&refs, Some("refs/tags/v1")).as_deref(), Some("tagged"));
        let commit = "A".repeat(40);
        assert_eq!(resolve(&refs, Some(&commit)), Some("a".repeat(40)));
        assert_eq!(resolve(&refs, Some("gone")), None);
    }
}
