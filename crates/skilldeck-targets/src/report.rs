//! What `skilldeck targets` and the desktop app's Agents view show: every target, its folders,
//! and each skill's state in each folder, with counts by state. Reads only; changes nothing.

use crate::record::{self, Records};
use crate::source::{WantedSet, chosen_for};
use crate::state::{self, Observed, SkillState};
use crate::target::{Folder, Target, synced_by_default};
use serde::Serialize;
use std::collections::BTreeMap;

/// One folder of a target, with each skill's state there.
#[derive(Debug, Clone, Serialize)]
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
}

/// A tool or configured target, with its folders.
#[derive(Debug, Clone, Serialize)]
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
}

/// Reads every folder of every target against the chosen skills and the ownership records.
/// A folder that cannot be read carries its error; the others are read all the same.
pub fn report(targets: Vec<Target>, wanted: &WantedSet, records: &Records) -> Vec<TargetReport> {
    targets
        .into_iter()
        .map(|t| {
            let folders = t
                .folders
                .iter()
                .map(|f| {
                    let takes = crate::source::narrow(wanted, f).into_keys().collect();
                    folder_report(f.clone(), synced_by_default(&t, f), &chosen_for(&t, f, wanted), takes, records)
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
            }
        })
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
    FolderReport { folder, synced, error, skills, counts, takes }
}

impl TargetReport {
    /// How many skills are in `state` across its folders.
    pub fn count(&self, state: SkillState) -> usize {
        self.folders.iter().map(|f| f.counts.get(state.as_str()).copied().unwrap_or(0)).sum()
    }
}
