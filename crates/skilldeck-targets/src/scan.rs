//! The scan: every skill found in the agent tools' folders, identical copies grouped by digest,
//! with each copy's validity and its relation to the store. Reads only; `adopt` acts on it.
//! Reading and validating a copy is the core's import reader, so a digest here is the digest
//! the store would give it.

use crate::error::TargetError;
use crate::folder::{self, Kind};
use crate::record::{self, Records};
use crate::source::WantedSet;
use crate::state::{self, SkillState};
use crate::target::{Folder, Level};
use serde::Serialize;
use skilldeck_skill::{Diagnostic, Digest, Revision, Scope, SkillName};
use skilldeck_store::FsStorage;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// How a group of identical copies stands against the store's skill of that name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(tag = "relation", rename_all = "kebab-case")]
pub enum Relation {
    /// The store has no skill of that name.
    NotInStore,
    /// The copies hold exactly the store's current revision.
    Same {
        /// The scope holding it.
        scope: Scope,
        /// Its revision.
        revision: Revision,
    },
    /// The copies were Skilldeck's current revision and were edited there since: they are
    /// newer than the store.
    StoreOlder {
        /// The scope holding it.
        scope: Scope,
        /// The store's revision, the one they were made from.
        revision: Revision,
    },
    /// The copies hold an older revision of the store's skill.
    StoreNewer {
        /// The scope holding it.
        scope: Scope,
        /// The store's current revision.
        revision: Revision,
        /// The older revision the copies hold.
        copy_revision: Revision,
    },
    /// The copies differ from every revision the store knows.
    Different {
        /// The scope holding it.
        scope: Scope,
        /// The store's current revision.
        revision: Revision,
    },
}

/// One place a copy was found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct Place {
    /// The tool id or configured target name.
    pub target: String,
    /// User, project or custom.
    pub level: Level,
    /// The skill's folder there.
    pub path: PathBuf,
    /// Its state in that folder (`foreign` when Skilldeck did not write it).
    pub state: SkillState,
    /// The entry is a symbolic link.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub link: bool,
    /// For a link of Skilldeck's edited through: the export it points to, where the edit is
    /// read (internal).
    #[serde(skip)]
    pub export: Option<PathBuf>,
}

/// Identical copies of one skill: one content, every place it was found.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct CopyGroup {
    /// Their digest, as the store would compute it.
    pub digest: Digest,
    /// The name their `SKILL.md` gives (it may differ from the folder's).
    pub skill_name: String,
    /// Whether validation found no error.
    pub valid: bool,
    /// What validation found.
    pub diagnostics: Vec<Diagnostic>,
    /// How they stand against the store.
    #[serde(flatten)]
    pub relation: Relation,
    /// Where they are.
    pub places: Vec<Place>,
}

impl CopyGroup {
    /// Whether every place holds a copy Skilldeck wrote and that is unchanged (nothing to adopt).
    pub fn all_ours(&self) -> bool {
        self.places
            .iter()
            .all(|p| matches!(p.state, SkillState::InSync | SkillState::Outdated | SkillState::Unselected))
    }
}

/// Every copy of one skill name, grouped by content.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct ScannedSkill {
    /// The folder name the copies have.
    pub name: String,
    /// The store's skill of that name (user shadowing system): scope, revision and digest.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub store: Option<StoreSide>,
    /// The groups of identical copies, most places first.
    pub copies: Vec<CopyGroup>,
}

/// The store's current revision of a skill.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct StoreSide {
    /// Its scope.
    pub scope: Scope,
    /// Its revision.
    pub revision: Revision,
    /// Its digest.
    pub digest: Digest,
}

/// A folder to scan, and what sync does there.
#[derive(Debug, Clone)]
pub struct ScanInput {
    /// The folder.
    pub folder: Folder,
    /// Whether a plain `sync` goes there (`target::synced_by_default`).
    pub synced: bool,
    /// The skills chosen for it now (empty when not synced).
    pub wanted: WantedSet,
}

/// What to scan: every folder of `targets` (those that do not exist are passed over), each
/// with the skills chosen for it out of `wanted` (`source::enabled_skills`).
pub fn inputs(targets: &[crate::target::Target], wanted: &WantedSet) -> Vec<ScanInput> {
    targets
        .iter()
        .flat_map(|t| {
            t.folders.iter().map(|f| ScanInput {
                folder: f.clone(),
                synced: crate::target::synced_by_default(t, f),
                wanted: crate::source::chosen_for(t, f, wanted),
            })
        })
        .collect()
}

/// One folder scanned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct ScannedFolder {
    /// The tool id or configured target name.
    pub target: String,
    /// User, project or custom.
    pub level: Level,
    /// The folder.
    pub path: PathBuf,
    /// An earlier folder in the report is this same folder (a link to it): scanned there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub same_as: Option<String>,
    /// How many skills were found in it.
    pub skills: usize,
    /// Whether a plain `sync` goes there.
    pub synced: bool,
    /// Only these skills go there (config.toml's `skills`); every enabled valid one when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub only: Option<Vec<String>>,
    /// Why it could not be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The folder as configured (its `skills`, `tags` and `exclude` lists), for `delivers`.
    #[serde(skip)]
    pub folder: Folder,
}

/// An entry that looks like a skill's place but could not be read as one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct Unreadable {
    /// The tool id or configured target name.
    pub target: String,
    /// The entry.
    pub path: PathBuf,
    /// Why, and what to do.
    pub error: String,
    /// The error's stable code.
    pub code: &'static str,
}

/// What a scan found.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct ScanReport {
    /// The folders looked at.
    pub folders: Vec<ScannedFolder>,
    /// Every skill found, by name.
    pub skills: Vec<ScannedSkill>,
    /// Entries that are not readable skills (no `SKILL.md`, too large, …).
    pub unreadable: Vec<Unreadable>,
}

impl ScanReport {
    /// Whether a sync delivers skill `name` to the folder holding `place` (a skill's folder):
    /// the folder is synced and takes it (`source::takes`; a folder that takes skills by tag
    /// is not counted on, since the copy's tags are not known here).
    pub fn delivers(&self, place: &Path, name: &str) -> bool {
        let Some(dir) = place.parent() else { return false };
        let (id, _) = record::folder_id(dir);
        self.folders
            .iter()
            .filter(|f| f.same_as.is_none())
            .any(|f| record::folder_id(&f.path).0 == id && f.synced && crate::source::takes(&f.folder, name, &[]))
    }

    /// The skill of that name, when found.
    pub fn skill(&self, name: &str) -> Option<&ScannedSkill> {
        self.skills.iter().find(|s| s.name == name)
    }
}

/// The store's current revision of `name`, user shadowing team shadowing system.
fn store_side(storage: &FsStorage, name: &str) -> Option<StoreSide> {
    let parsed = SkillName::parse(name).ok()?;
    Scope::ALL.into_iter().rev().find_map(|scope| {
        if !storage.skill_dir(scope, &parsed).is_dir() {
            return None;
        }
        let s = storage.summary_dir_with(scope, name, true).ok()?;
        Some(StoreSide { scope, revision: s.revision?, digest: s.digest? })
    })
}

/// The revision of the store's skill whose digest is `digest`, among those kept in history.
fn past_revision(storage: &FsStorage, side: &StoreSide, name: &str, digest: Digest) -> Option<Revision> {
    let parsed = SkillName::parse(name).ok()?;
    let history = storage.history_sync(side.scope, &parsed).ok()?;
    history.iter().find(|h| !h.current && h.digest == Some(digest)).map(|h| h.revision)
}

fn relation(
    storage: &FsStorage,
    name: &str,
    side: Option<&StoreSide>,
    group: &CopyGroup,
    drift_base: &[Revision],
) -> Relation {
    let Some(side) = side else { return Relation::NotInStore };
    let (scope, revision) = (side.scope, side.revision);
    if group.digest == side.digest {
        return Relation::Same { scope, revision };
    }
    if let Some(copy_revision) = past_revision(storage, side, name, group.digest) {
        return Relation::StoreNewer { scope, revision, copy_revision };
    }
    if drift_base.contains(&revision) {
        return Relation::StoreOlder { scope, revision };
    }
    Relation::Different { scope, revision }
}

/// Found copies, by name then digest, and the revision each drifted place was made from.
type Found = BTreeMap<String, BTreeMap<String, (CopyGroup, Vec<Revision>)>>;

/// Scans `folders`, each with the skills chosen for it (for the states of Skilldeck's own
/// copies). Folders that do not exist are left out; a folder reached twice (through a link) is
/// read once. Reads every skill found, never writes.
pub fn scan(storage: &FsStorage, records: &Records, folders: &[ScanInput]) -> ScanReport {
    let mut out_folders = Vec::new();
    let mut unreadable = Vec::new();
    let mut found: Found = BTreeMap::new();
    let mut seen: BTreeMap<String, String> = BTreeMap::new();
    for input in folders {
        let (f, wanted) = (&input.folder, &input.wanted);
        if !f.path.is_dir() {
            continue;
        }
        let mut sf = ScannedFolder {
            target: f.target.clone(),
            level: f.level,
            path: f.path.clone(),
            same_as: None,
            skills: 0,
            synced: input.synced,
            only: f.skills.clone(),
            error: None,
            folder: f.clone(),
        };
        if let Some(e) = f.outside_project() {
            sf.error = Some(e.to_string());
            out_folders.push(sf);
            continue;
        }
        let (id, _) = record::folder_id(&f.path);
        if let Some(first) = seen.get(&id) {
            sf.same_as = Some(first.clone());
            out_folders.push(sf);
            continue;
        }
        seen.insert(id.clone(), format!("{} ({})", f.target, f.path.display()));
        let observed = records
            .load(&id)
            .and_then(|r| state::survey(&f.path, &r, wanted).map_err(TargetError::io("read", &f.path)));
        let observed = match observed {
            Ok(o) => o,
            Err(e) => {
                sf.error = Some(e.to_string());
                out_folders.push(sf);
                continue;
            }
        };
        let kinds: BTreeMap<String, Kind> = folder::entries(&f.path).unwrap_or_default().into_iter().collect();
        for o in observed.iter().filter(|o| o.state != SkillState::Missing) {
            if kinds.get(&o.name) == Some(&Kind::Other) {
                continue;
            }
            let path = f.path.join(&o.name);
            if o.link && f.level == Level::Project && o.edited_export.is_none() {
                // A project's link may point anywhere (out of the project, into a home folder):
                // what it holds is not read as the project's.
                unreadable.push(Unreadable {
                    target: f.target.clone(),
                    path,
                    error: "a symbolic link in a project's folder: not read, since it may point out of the project; put the skill itself there to have it scanned".to_owned(),
                    code: "link_in_project",
                });
                continue;
            }
            // A link of ours edited through is read in Skilldeck's own export it points to.
            let at = o.edited_export.as_deref().unwrap_or(&path);
            let loaded = match skilldeck_store::import::load(at, storage.limits(), &mut |_, _| {}) {
                Ok(l) => l,
                Err(e) => {
                    unreadable.push(Unreadable {
                        target: f.target.clone(),
                        path,
                        error: e.to_string(),
                        code: e.code(),
                    });
                    continue;
                }
            };
            sf.skills += 1;
            let digest = loaded.files.digest();
            let place = Place {
                target: f.target.clone(),
                level: f.level,
                path,
                state: o.state,
                link: o.link,
                export: o.edited_export.clone(),
            };
            let (group, bases) = found.entry(o.name.clone()).or_default().entry(digest.to_hex()).or_insert_with(|| {
                let group = CopyGroup {
                    digest,
                    skill_name: loaded.name.to_string(),
                    valid: loaded.validation.is_valid(),
                    diagnostics: loaded.validation.diagnostics.clone(),
                    relation: Relation::NotInStore,
                    places: Vec::new(),
                };
                (group, Vec::new())
            });
            if o.state == SkillState::Drifted
                && let Some(r) = o.revision
            {
                bases.push(r);
            }
            group.places.push(place);
        }
        out_folders.push(sf);
    }
    let skills = found
        .into_iter()
        .map(|(name, groups)| {
            let side = store_side(storage, &name);
            let mut copies: Vec<CopyGroup> = groups
                .into_values()
                .map(|(mut g, bases)| {
                    g.relation = relation(storage, &name, side.as_ref(), &g, &bases);
                    g
                })
                .collect();
            copies.sort_by(|a, b| {
                b.places.len().cmp(&a.places.len()).then_with(|| a.digest.to_hex().cmp(&b.digest.to_hex()))
            });
            ScannedSkill { name, store: side, copies }
        })
        .collect();
    ScanReport { folders: out_folders, skills, unreadable }
}
