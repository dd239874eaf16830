//! The state of each skill in one target folder, from the folder, its ownership record and what
//! is chosen for it.

use crate::folder::{self, Kind, Look};
use crate::record::{Mode, Owned, Record};
use crate::source::WantedSet;
use serde::Serialize;
use skilldeck_skill::{Digest, Revision};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Where a skill stands in one target folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "kebab-case")]
pub enum SkillState {
    /// Ours, the store's current revision, unchanged there.
    InSync,
    /// Ours and unchanged, but an older revision than the store's.
    Outdated,
    /// Ours, but the files there no longer match what was written: edited in place.
    Drifted,
    /// Not written by Skilldeck: never changed or removed.
    Foreign,
    /// Chosen for this folder and not there yet.
    Missing,
    /// Ours and unchanged, but no longer chosen (deleted, switched off, or left out of the
    /// target's `skills`): the next sync removes it.
    Unselected,
}

impl SkillState {
    /// The state's name as shown (`in-sync`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::InSync => "in-sync",
            Self::Outdated => "outdated",
            Self::Drifted => "drifted",
            Self::Foreign => "foreign",
            Self::Missing => "missing",
            Self::Unselected => "unselected",
        }
    }
}

/// One skill's state in a folder, with what it was judged by.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct Observed {
    /// The skill's (folder) name.
    pub name: String,
    /// Its state.
    pub state: SkillState,
    /// The revision Skilldeck wrote there, when ours (the one the files match).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revision: Option<Revision>,
    /// The store's current revision, when it is chosen.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub store_revision: Option<Revision>,
    /// The digest of the files there, when they were read (drifted, foreign folders).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub digest: Option<Digest>,
    /// Entries there the store would not hold (links, pipes, odd names, `.git`, sidecars), when
    /// the files were read: a replacement would delete them, so they are never replaced unkept.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub extras: Vec<String>,
    /// Whether the entry there is a symbolic link (always foreign).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub link: bool,
    /// The fields the target's agent will ignore or reject (filled by `report`, for the agents
    /// whose reading is known; empty elsewhere).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub agent_fields: Vec<crate::agent_fields::FieldVerdict>,
    /// The record entry it matched (internal: what a replacement replaces).
    #[serde(skip)]
    pub owned: Option<Owned>,
    /// How the entry looked when it was judged (`folder::look`), for a skill Skilldeck wrote:
    /// a replacement or removal that finds it different afterwards puts it back.
    #[serde(skip)]
    pub seen: Option<Look>,
    /// For a link of ours edited through (drifted): the export it points to, which holds the
    /// edit. It is read there to keep or adopt the edit, and never rewritten.
    #[serde(skip)]
    pub edited_export: Option<PathBuf>,
    /// A new stamp for the record, when the files' stamp changed but their content still
    /// matches the current entry (touched, not edited): so the next look is cheap again.
    #[serde(skip)]
    pub fresh_stamp: Option<String>,
}

/// What `matching` found: the recorded write the folder matches, the digest of what is there
/// and the entries the store would not hold when it was read, and its stamp when that differs
/// from the matched entry's.
type Match = (Option<Owned>, Option<Digest>, Vec<String>, Option<String>);

/// Which recorded write the folder at `dir` still matches: `owned`, or the one it replaced
/// while that replacement was under way. Its `stamp` is tried first; the content only when it
/// differs.
fn matching(dir: &Path, owned: &Owned, stamp: &str) -> std::io::Result<Match> {
    let candidates: Vec<&Owned> =
        std::iter::once(owned).chain(owned.previous.as_deref()).filter(|c| c.mode == Mode::Copy).collect();
    if let Some(c) = candidates.iter().find(|c| c.stamp == stamp) {
        return Ok((Some(Owned { previous: None, ..(*c).clone() }), None, Vec::new(), None));
    }
    let content = folder::content(dir)?;
    let hit = candidates.iter().find(|c| content.extras.is_empty() && c.written == content.digest);
    let fresh = hit.filter(|c| std::ptr::eq(**c, owned)).map(|_| stamp.to_owned());
    Ok((hit.map(|c| Owned { previous: None, ..(*c).clone() }), Some(content.digest), content.extras, fresh))
}

/// The state of a skill matched to the recorded write `m`: in sync, outdated or unselected; a
/// link whose export is gone is outdated (the next sync makes it again).
fn judged(base: Observed, m: Owned, want: Option<&crate::source::Wanted>, digest: Option<Digest>) -> Observed {
    let export_gone = m.mode == Mode::Link && !m.export.as_deref().is_some_and(Path::is_dir);
    let state = match want {
        Some(w) if w.scope == m.scope && w.revision == m.revision && !export_gone => SkillState::InSync,
        Some(_) => SkillState::Outdated,
        None => SkillState::Unselected,
    };
    Observed { state, revision: Some(m.revision), digest, owned: Some(m), ..base }
}

/// The stamps of exports taken during one sync, so the folders linking to one export (every
/// tool's folder, in link mode) stamp it once. Kept for one run only: a stamp grown stale
/// meanwhile only leaves an edit unnoticed until the next look, since a replacement or removal
/// looks again (`Look::again`) before it swaps anything, and puts back what changed.
#[derive(Debug, Default)]
pub struct ExportStamps(Mutex<HashMap<PathBuf, Option<String>>>);

impl ExportStamps {
    /// The stamp of the export at `path`, taken now unless it was this run; `None` when it is
    /// gone or unreadable.
    fn of(&self, path: &Path) -> Option<String> {
        if let Ok(known) = self.0.lock()
            && let Some(stamp) = known.get(path)
        {
            return stamp.clone();
        }
        let stamp = folder::stamp(path).ok();
        if let Ok(mut known) = self.0.lock() {
            known.insert(path.to_path_buf(), stamp.clone());
        }
        stamp
    }
}

/// The recorded link (`owned`, or the one it replaces) the link at `path` still points to, and
/// how it looks: its target and, when it is one of ours, its export's stamp (`None` when the
/// export is gone). A link pointed elsewhere is never followed.
fn link_look(path: &Path, owned: &Owned, stamps: &ExportStamps) -> std::io::Result<(Option<Owned>, Look)> {
    let target = std::fs::read_link(path)?;
    let hit = std::iter::once(owned)
        .chain(owned.previous.as_deref())
        .find(|c| c.mode == Mode::Link && c.export.as_deref() == Some(target.as_path()))
        .map(|c| Owned { previous: None, ..c.clone() });
    let stamp = if hit.is_some() { stamps.of(&target) } else { None };
    Ok((hit, Look::Link { target, stamp }))
}

/// The state of a link of ours matched to the recorded link `m`, whose export had `stamp`
/// when it was looked at. An export whose stamp changed is read: holding what was linked it is
/// merely touched (restamped when `m` is the current entry, `fresh`); holding anything else it
/// was edited through a link, and is drifted like an edited copy.
fn link_judged(
    base: Observed,
    m: Owned,
    want: Option<&crate::source::Wanted>,
    stamp: Option<&str>,
    fresh: bool,
) -> std::io::Result<Observed> {
    let (Some(stamp), Some(export)) = (stamp, m.export.clone()) else { return Ok(judged(base, m, want, None)) };
    if stamp == m.stamp {
        return Ok(judged(base, m, want, None));
    }
    let content = folder::content(&export)?;
    if content.extras.is_empty() && content.digest == m.written {
        let fresh_stamp = fresh.then(|| stamp.to_owned());
        return Ok(Observed { fresh_stamp, ..judged(base, m, want, Some(content.digest)) });
    }
    Ok(Observed {
        state: SkillState::Drifted,
        revision: Some(m.revision),
        digest: Some(content.digest),
        extras: content.extras,
        edited_export: Some(export),
        owned: Some(m),
        ..base
    })
}

/// Every skill in the folder at `dir`, ours or not, and every chosen one missing from it, by name.
/// Recorded skills whose folder is gone and that are not chosen are left out (the next sync
/// forgets them).
pub fn survey(dir: &Path, record: &Record, wanted: &WantedSet) -> std::io::Result<Vec<Observed>> {
    survey_with(dir, record, wanted, &ExportStamps::default())
}

/// `survey`, with the export stamps taken so far this run (a sync surveys every folder with one).
pub fn survey_with(
    dir: &Path,
    record: &Record,
    wanted: &WantedSet,
    stamps: &ExportStamps,
) -> std::io::Result<Vec<Observed>> {
    let entries = if dir.is_dir() { folder::entries(dir)? } else { Vec::new() };
    let mut out = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for (name, kind) in &entries {
        seen.insert(name.clone());
        let want = wanted.get(name);
        let store_revision = want.map(|w| w.revision);
        let base = Observed {
            name: name.clone(),
            state: SkillState::Foreign,
            revision: None,
            store_revision,
            digest: None,
            extras: Vec::new(),
            link: *kind == Kind::Link,
            agent_fields: Vec::new(),
            owned: None,
            seen: None,
            edited_export: None,
            fresh_stamp: None,
        };
        let owned = record.skills.get(name);
        let path = dir.join(name);
        // Taken before anything is judged: what a later replacement must still find there.
        let (linked, look) = match (kind, owned) {
            (Kind::Link, Some(o)) => {
                let (hit, look) = link_look(&path, o, stamps)?;
                (hit, Some(look))
            }
            (Kind::Folder, Some(_)) => (None, Some(folder::look(&path, false)?)),
            _ => (None, None),
        };
        let base = Observed { seen: look.clone(), ..base };
        let has = |o: &Owned, m: Mode| o.mode == m || o.previous.as_ref().is_some_and(|p| p.mode == m);
        let observed = match (kind, owned) {
            (Kind::Folder, Some(owned)) if has(owned, Mode::Copy) => {
                let stamp = match &look {
                    Some(Look::Folder(s)) => s.as_str(),
                    _ => "",
                };
                let (hit, digest, extras, fresh_stamp) = matching(&path, owned, stamp)?;
                match hit {
                    None => {
                        Observed { state: SkillState::Drifted, revision: Some(owned.revision), digest, extras, ..base }
                    }
                    Some(m) => Observed { fresh_stamp, ..judged(base, m, want, digest) },
                }
            }
            (Kind::Link, Some(owned)) => match linked {
                Some(m) => {
                    let stamp = match &look {
                        Some(Look::Link { stamp, .. }) => stamp.clone(),
                        _ => None,
                    };
                    let fresh = owned.mode == Mode::Link && owned.export == m.export;
                    link_judged(base, m, want, stamp.as_deref(), fresh)?
                }
                // Pointed elsewhere since, or a copy of ours replaced by a link: edited there.
                None => Observed { state: SkillState::Drifted, revision: Some(owned.revision), ..base },
            },
            (Kind::Folder, Some(owned)) => {
                // A link of ours replaced by a real folder: ours in another form when it holds
                // what was linked (drifted: `--overwrite` makes it a link again), else theirs.
                let content = folder::content(&path)?;
                let state = if content.digest == owned.digest { SkillState::Drifted } else { SkillState::Foreign };
                Observed {
                    state,
                    revision: Some(owned.revision).filter(|_| state == SkillState::Drifted),
                    digest: Some(content.digest),
                    extras: content.extras,
                    ..base
                }
            }
            _ => {
                // A foreign folder is read only when it clashes with a chosen skill (its digest is
                // reported beside ours); the others are not Skilldeck's business.
                let digest = match kind {
                    Kind::Folder if want.is_some() => folder::content(&path).ok().map(|c| c.digest),
                    _ => None,
                };
                Observed { digest, ..base }
            }
        };
        out.push(observed);
    }
    for (name, w) in wanted {
        if !seen.contains(name) {
            out.push(Observed {
                name: name.clone(),
                state: SkillState::Missing,
                revision: None,
                store_revision: Some(w.revision),
                digest: None,
                extras: Vec::new(),
                link: false,
                agent_fields: Vec::new(),
                owned: None,
                seen: None,
                edited_export: None,
                fresh_stamp: None,
            });
        }
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}
