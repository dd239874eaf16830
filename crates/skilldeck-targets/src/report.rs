//! What `skilldeck targets` and the desktop app's Agents view show: every target, its folders,
//! and each skill's state in each folder, with counts by state; for the agents whose reading
//! is known, the fields each skill has that the agent ignores or rejects; and the skill names
//! found twice among the folders one agent reads. Reads only; changes nothing.

use crate::agent_fields::{self, agent_for_target};
use crate::record::{self, Records};
use crate::source::{WantedSet, chosen_for};
use crate::state::{self, Observed, SkillState};
use crate::target::{Folder, Target, synced_by_default};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// One folder of a target, with each skill's state there.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct FolderReport {
    /// The folder.
    #[serde(flatten)]
    pub folder: Folder,
    /// Whether `sync` without names goes to this folder.
    pub synced: bool,
    /// Why the folder could not be read, when it could not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Every skill there and every chosen one missing, by name.
    pub skills: Vec<Observed>,
    /// How many skills are in each state (`in-sync`, `drifted`, …), states with none left out.
    pub counts: BTreeMap<&'static str, usize>,
    /// The enabled skills this folder takes by its `skills`, `tags` and `exclude` lists
    /// (whether or not a plain sync goes there), by name.
    pub takes: Vec<String>,
    /// Chosen skills a sync keeps out of this folder so its agents stay within their listing
    /// budgets (`budget::fit`; filled by `Delivery::apply_to`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub left_out: Vec<String>,
    /// Chosen skills this folder's agent reads in another folder, so not delivered here too.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub once: Vec<String>,
}

/// A tool or configured target, with its folders.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct TargetReport {
    /// The id (`claude-code`) or the configured name.
    pub id: String,
    /// The name shown to people.
    pub name: String,
    /// Whether the tool is installed, or the target configured.
    pub detected: bool,
    /// Whether `sync` without names goes to it.
    pub active: bool,
    /// Switched off in config.toml.
    pub off: bool,
    /// Kept in sync as skills change (`auto = true`).
    pub auto: bool,
    /// Its folders.
    pub folders: Vec<FolderReport>,
    /// Skill names found in two or more folders this target's agent reads (its own and the
    /// ones it also reads: `known::KnownTool::also`): the agent meets the skill twice.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub duplicates: Vec<Duplicate>,
}

/// One skill name in more than one folder an agent reads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct Duplicate {
    /// The skill's (folder) name.
    pub name: String,
    /// The folders holding it.
    pub folders: Vec<PathBuf>,
}

/// Reads every folder of every target against the chosen skills and the ownership records.
/// A folder that cannot be read carries its error; the others are read all the same.
pub fn report(targets: Vec<Target>, wanted: &WantedSet, records: &Records) -> Vec<TargetReport> {
    let mut out: Vec<TargetReport> = targets
        .into_iter()
        .map(|t| {
            let agent = agent_for_target(&t.id);
            let folders = t
                .folders
                .iter()
                .map(|f| {
                    let takes = crate::source::narrow(wanted, f).into_keys().collect();
                    let mut r =
                        folder_report(f.clone(), synced_by_default(&t, f), &chosen_for(&t, f, wanted), takes, records);
                    if let Some(agent) = agent {
                        for s in r.skills.iter_mut().filter(|s| s.state != SkillState::Missing) {
                            s.agent_fields = agent_fields::check(agent, &r.folder.path.join(&s.name));
                        }
                    }
                    r
                })
                .collect();
            TargetReport {
                id: t.id,
                name: t.name,
                detected: t.detected,
                active: t.active,
                off: t.off,
                auto: t.auto,
                folders,
                duplicates: Vec::new(),
            }
        })
        .collect();
    let duplicates: Vec<Vec<Duplicate>> = out.iter().map(|t| duplicates(t, &out)).collect();
    for (t, d) in out.iter_mut().zip(duplicates) {
        t.duplicates = d;
    }
    out
}

/// The folders `t`'s agent reads: its own, then those of the targets it also reads (each
/// folder once).
pub fn folders_read<'a>(t: &'a TargetReport, all: &'a [TargetReport]) -> Vec<&'a FolderReport> {
    let also = crate::known::by_id(&t.id).map(|k| k.also).unwrap_or_default();
    let others = all.iter().filter(|o| also.contains(&o.id.as_str()));
    let mut out: Vec<&FolderReport> = Vec::new();
    for f in std::iter::once(t).chain(others).flat_map(|r| &r.folders) {
        if !out.iter().any(|o| o.folder.path == f.folder.path) {
            out.push(f);
        }
    }
    out
}

/// The skill names present in two or more of the folders `t`'s agent reads.
fn duplicates(t: &TargetReport, all: &[TargetReport]) -> Vec<Duplicate> {
    let mut by_name: BTreeMap<&str, Vec<PathBuf>> = BTreeMap::new();
    for f in folders_read(t, all) {
        for s in f.skills.iter().filter(|s| s.state != SkillState::Missing) {
            by_name.entry(&s.name).or_default().push(f.folder.path.clone());
        }
    }
    by_name
        .into_iter()
        .filter(|(_, f)| f.len() > 1)
        .map(|(name, folders)| Duplicate { name: name.to_owned(), folders })
        .collect()
}

fn folder_report(
    folder: Folder,
    synced: bool,
    chosen: &WantedSet,
    takes: Vec<String>,
    records: &Records,
) -> FolderReport {
    let (id, _) = record::folder_id(&folder.path);
    let read = records.load(&id).map_err(|e| e.to_string()).and_then(|r| {
        state::survey(&folder.path, &r, chosen).map_err(|e| format!("could not read {}: {e}", folder.path.display()))
    });
    let (skills, error) = match read {
        Ok(s) => (s, None),
        Err(e) => (Vec::new(), Some(e)),
    };
    let mut counts = BTreeMap::new();
    for s in &skills {
        *counts.entry(s.state.as_str()).or_insert(0) += 1;
    }
    FolderReport { folder, synced, error, skills, counts, takes, left_out: Vec::new(), once: Vec::new() }
}

impl TargetReport {
    /// How many skills are in `state` across its folders.
    pub fn count(&self, state: SkillState) -> usize {
        self.folders.iter().map(|f| f.counts.get(state.as_str()).copied().unwrap_or(0)).sum()
    }
}
