//! Adoption: bringing skills found by a scan into the store through the core's import (the same
//! files make no new revision), then recording the copies as Skilldeck's, so they are in sync
//! (or outdated, and the next sync updates them). Holds the choice of which copy and the
//! recording; the scan is `scan`, the store's write is the core's.

use crate::error::TargetError;
use crate::folder;
use crate::lock::FolderLock;
use crate::record::{self, Mode, Owned, Records};
use crate::scan::{CopyGroup, Relation, ScanReport, ScannedSkill};
use crate::state::SkillState;
use serde::Serialize;
use skilldeck_skill::provenance::Provenance;
use skilldeck_skill::{Digest, Revision, Scope};
use skilldeck_store::import::{self, ImportError, Stored};
use skilldeck_store::storage::RevisionEvent;
use skilldeck_store::{FsStorage, StorageError};
use std::path::{Path, PathBuf};

/// What to adopt.
#[derive(Debug, Clone, Default)]
pub struct AdoptRequest {
    /// These skill names; every skill found when empty.
    pub names: Vec<String>,
    /// Only copies in this target (a tool id or configured name) or below this folder.
    pub from: Option<String>,
    /// The skills switched off for agents: their copies are not recorded (a sync would
    /// remove them).
    pub disabled: std::collections::BTreeSet<String>,
}

/// Content known to have come from a source (another tool's lockfile, fetched): by skill name,
/// the digest of the source's content and where it came from. A copy adopted with exactly that
/// content becomes a revision recording the source, as `skilldeck add` makes one.
pub type KnownSources = std::collections::BTreeMap<String, (Digest, Provenance)>;

/// What adopting one skill did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Outcome {
    /// Its content became a new revision in the user scope.
    Imported {
        /// The scope (user).
        scope: Scope,
        /// The new revision.
        revision: Revision,
    },
    /// The store already held exactly this content: no revision was made.
    Unchanged {
        /// The scope holding it.
        scope: Scope,
        /// Its revision.
        revision: Revision,
    },
    /// The copies hold an older revision: recorded as Skilldeck's at that revision, so the next
    /// sync brings them up to date (`skilldeck restore` brings old content back, if wanted).
    Older {
        /// The scope holding it.
        scope: Scope,
        /// The revision the copies hold.
        revision: Revision,
        /// The store's revision.
        current: Revision,
    },
}

impl Outcome {
    /// Whether the store's user scope now holds the adopted content as its current revision
    /// (what recording the skill's source needs).
    pub fn in_user_scope(&self) -> bool {
        match self {
            Self::Imported { scope, .. } | Self::Unchanged { scope, .. } => *scope == Scope::User,
            Self::Older { .. } => false,
        }
    }
}

/// A copy left as it was, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct Left {
    /// The copy.
    pub path: PathBuf,
    /// Why.
    pub reason: String,
}

/// One skill adopted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct Adopted {
    /// The skill.
    pub name: String,
    /// The copy whose content was taken.
    pub from: PathBuf,
    /// Its digest.
    pub digest: Digest,
    /// What the store did.
    #[serde(flatten)]
    pub outcome: Outcome,
    /// The copies now recorded as Skilldeck's.
    pub recorded: Vec<PathBuf>,
    /// Copies of that content left as they were (links, odd files), and why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub left: Vec<Left>,
}

/// A candidate content of an ambiguous adoption.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct Candidate {
    /// Its digest.
    pub digest: Digest,
    /// The targets and folders holding it.
    pub places: Vec<String>,
}

/// Why a skill was not adopted. Each says what to do.
#[derive(Debug, thiserror::Error)]
pub enum AdoptError {
    /// No copy of that name was found.
    #[error("no skill {name:?} in the agent tools' folders; `skilldeck scan` lists what is there")]
    NotFound {
        /// The name.
        name: String,
    },
    /// `--from` matched none of the copies.
    #[error("{name:?} is not in {from:?}; it is in: {found}")]
    NotInFrom {
        /// The name.
        name: String,
        /// The `--from` given.
        from: String,
        /// Where it is.
        found: String,
    },
    /// Every copy is already Skilldeck's and unchanged.
    #[error("every copy of {name:?} is already Skilldeck's and unchanged; nothing to adopt")]
    AlreadyOurs {
        /// The name.
        name: String,
    },
    /// Copies with different contents: which one is meant?
    #[error("{name:?} has {} different contents: {}; name the one to adopt with --from TARGET", candidates.len(), list(candidates))]
    Ambiguous {
        /// The name.
        name: String,
        /// Each content and where it is.
        candidates: Vec<Candidate>,
    },
    /// `--all` does not replace a skill the store holds with other content.
    #[error("{name:?} {what}; `skilldeck adopt {name}` (with --from TARGET) makes it a new revision")]
    NeedsName {
        /// The name.
        name: String,
        /// How it differs.
        what: String,
    },
    /// `--all` leaves invalid skills where they are: sync could not deliver them.
    #[error(
        "{name:?} is invalid ({errors} errors; `skilldeck validate PATH` shows them); fix it, or adopt it by name to keep it in the store"
    )]
    Invalid {
        /// The name.
        name: String,
        /// How many errors.
        errors: usize,
    },
    /// The copy's SKILL.md names another skill than its folder.
    #[error("{} names itself {found:?} in its SKILL.md but its folder is {name:?}; rename one so they agree", path.display())]
    NameMismatch {
        /// The folder name.
        name: String,
        /// The frontmatter's name.
        found: String,
        /// The copy.
        path: PathBuf,
    },
    /// The copy changed since the scan.
    #[error("{} changed while it was being adopted; run `skilldeck adopt` again", path.display())]
    Changed {
        /// The copy.
        path: PathBuf,
    },
    /// Every copy of that content is a symbolic link: not adopted, since what a link points to
    /// may be anywhere.
    #[error("{} is a symbolic link; Skilldeck never adopts through a link: adopt the folder it points to from its own place, or copy it in", path.display())]
    Link {
        /// The link.
        path: PathBuf,
    },
    /// Reading or storing it failed.
    #[error(transparent)]
    Import(#[from] ImportError),
    /// Recording it failed.
    #[error(transparent)]
    Target(#[from] TargetError),
}

fn list(candidates: &[Candidate]) -> String {
    let each: Vec<String> =
        candidates.iter().map(|c| format!("{} in {}", c.digest.short(), c.places.join(", "))).collect();
    each.join("; ")
}

impl AdoptError {
    /// A stable code for scripts and UIs.
    pub fn code(&self) -> &'static str {
        match self {
            Self::NotFound { .. } => "adopt_not_found",
            Self::NotInFrom { .. } => "adopt_not_in_from",
            Self::AlreadyOurs { .. } => "adopt_already_ours",
            Self::Ambiguous { .. } => "adopt_ambiguous",
            Self::NeedsName { .. } => "adopt_needs_name",
            Self::Invalid { .. } => "adopt_invalid",
            Self::NameMismatch { .. } => "adopt_name_mismatch",
            Self::Changed { .. } => "adopt_changed",
            Self::Link { .. } => "adopt_link",
            Self::Import(e) => e.code(),
            Self::Target(e) => e.code(),
        }
    }
}

/// A skill that was not adopted.
#[derive(Debug, Serialize, ts_rs::TS)]
pub struct Failure {
    /// The skill.
    pub name: String,
    /// The error's stable code.
    pub code: &'static str,
    /// The error, saying what to do.
    pub error: String,
    /// The candidates, for an ambiguous one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub candidates: Vec<Candidate>,
}

impl Failure {
    fn of(name: &str, e: &AdoptError) -> Self {
        let candidates = match e {
            AdoptError::Ambiguous { candidates, .. } => candidates.clone(),
            _ => Vec::new(),
        };
        Self { name: name.to_owned(), code: e.code(), error: e.to_string(), candidates }
    }
}

/// What `adopt` did.
#[derive(Debug, Default, Serialize, ts_rs::TS)]
pub struct AdoptReport {
    /// The skills adopted.
    pub adopted: Vec<Adopted>,
    /// The skills not adopted, each with why.
    pub failed: Vec<Failure>,
    /// The skills `--all` passed over on purpose (invalid ones), each with why.
    pub skipped: Vec<Failure>,
}

/// What one adoption works with.
struct Cx<'a> {
    storage: &'a FsStorage,
    records: &'a Records,
    report: &'a ScanReport,
    req: &'a AdoptRequest,
    sources: &'a KnownSources,
}

/// Whether a place is in `from` (a target id or a folder).
fn in_from(from: &str, target: &str, path: &Path) -> bool {
    target == from || path.starts_with(from)
}

/// Adopts the skills `req` names (or every one found) from `report`, a fresh scan.
pub fn adopt(storage: &FsStorage, records: &Records, report: &ScanReport, req: &AdoptRequest) -> AdoptReport {
    adopt_with_sources(storage, records, report, req, &KnownSources::new())
}

/// [`adopt`], where a skill whose adopted content is what `sources` says its source holds
/// gets a revision recording that source (`RevisionEvent::Sourced`).
pub fn adopt_with_sources(
    storage: &FsStorage,
    records: &Records,
    report: &ScanReport,
    req: &AdoptRequest,
    sources: &KnownSources,
) -> AdoptReport {
    let all = req.names.is_empty();
    let names: Vec<String> =
        if all { report.skills.iter().map(|s| s.name.clone()).collect() } else { req.names.clone() };
    let mut out = AdoptReport::default();
    let cx = Cx { storage, records, report, req, sources };
    for name in names {
        let result = report
            .skill(&name)
            .ok_or_else(|| AdoptError::NotFound { name: name.clone() })
            .and_then(|s| one(&cx, s, all));
        match result {
            Ok(done) => out.adopted.extend(done),
            Err(e @ AdoptError::Invalid { .. }) if all => out.skipped.push(Failure::of(&name, &e)),
            Err(e) => out.failed.push(Failure::of(&name, &e)),
        }
    }
    out
}

/// The groups of `s` narrowed to the copies in `from`.
fn narrowed(s: &ScannedSkill, from: Option<&str>) -> Result<Vec<CopyGroup>, AdoptError> {
    let Some(from) = from else { return Ok(s.copies.clone()) };
    let groups: Vec<CopyGroup> = s
        .copies
        .iter()
        .filter_map(|g| {
            let places: Vec<_> = g.places.iter().filter(|p| in_from(from, &p.target, &p.path)).cloned().collect();
            (!places.is_empty()).then(|| CopyGroup { places, ..g.clone() })
        })
        .collect();
    if groups.is_empty() {
        let found: Vec<String> = s.copies.iter().flat_map(|g| &g.places).map(|p| p.target.clone()).collect();
        return Err(AdoptError::NotInFrom { name: s.name.clone(), from: from.to_owned(), found: found.join(", ") });
    }
    Ok(groups)
}

fn candidates(groups: &[&CopyGroup]) -> Vec<Candidate> {
    groups
        .iter()
        .map(|g| Candidate {
            digest: g.digest,
            places: g.places.iter().map(|p| format!("{} ({})", p.target, p.path.display())).collect(),
        })
        .collect()
}

/// Adopts one skill: under `--all`, its one new content (if any) and the copies of revisions
/// the store knows; by name, its one content not yet Skilldeck's.
fn one(cx: &Cx<'_>, s: &ScannedSkill, all: bool) -> Result<Vec<Adopted>, AdoptError> {
    let from = cx.req.from.as_deref();
    let groups = narrowed(s, from)?;
    let open: Vec<&CopyGroup> = groups.iter().filter(|g| !g.all_ours()).collect();
    if open.is_empty() {
        return if all { Ok(Vec::new()) } else { Err(AdoptError::AlreadyOurs { name: s.name.clone() }) };
    }
    let new = |g: &&CopyGroup| {
        matches!(g.relation, Relation::NotInStore | Relation::Different { .. } | Relation::StoreOlder { .. })
    };
    if !all {
        return match open.as_slice() {
            [one] => Ok(vec![take(cx, s, one, false)?]),
            _ => Err(AdoptError::Ambiguous { name: s.name.clone(), candidates: candidates(&open) }),
        };
    }
    let news: Vec<&CopyGroup> = open.iter().copied().filter(new).collect();
    if news.len() > 1 {
        return Err(AdoptError::Ambiguous { name: s.name.clone(), candidates: candidates(&news) });
    }
    let mut out = Vec::new();
    for g in open.iter().filter(|g| !new(g)) {
        out.push(take(cx, s, g, true)?);
    }
    if let Some(g) = news.first() {
        out.push(take(cx, s, g, from.is_none())?);
    }
    Ok(out)
}

/// Adopts one content of a skill: stores it unless the store knows it, then records its
/// copies. `cautious` (`--all` without `--from`) refuses what would replace the store's content
/// and invalid skills.
fn take(cx: &Cx<'_>, s: &ScannedSkill, chosen: &CopyGroup, cautious: bool) -> Result<Adopted, AdoptError> {
    let (storage, records) = (cx.storage, cx.records);
    if cautious {
        match &chosen.relation {
            Relation::Different { revision, .. } => {
                let what = format!("differs from the store's v:{revision}");
                return Err(AdoptError::NeedsName { name: s.name.clone(), what });
            }
            Relation::StoreOlder { revision, .. } => {
                let what = format!("was edited in place since v:{revision} was delivered");
                return Err(AdoptError::NeedsName { name: s.name.clone(), what });
            }
            Relation::NotInStore | Relation::Same { .. } | Relation::StoreNewer { .. } => {}
        }
    }
    if cautious && !chosen.valid {
        let errors = chosen.diagnostics.iter().filter(|d| d.severity == skilldeck_skill::Severity::Error).count();
        return Err(AdoptError::Invalid { name: s.name.clone(), errors });
    }
    // A real folder first, else a link of ours edited through (its export is Skilldeck's).
    let source = (chosen.places.iter().find(|p| !p.link))
        .or_else(|| chosen.places.iter().find(|p| p.export.is_some()))
        .unwrap_or(&chosen.places[0]);
    let needs_read =
        matches!(chosen.relation, Relation::NotInStore | Relation::Different { .. } | Relation::StoreOlder { .. });
    if needs_read && source.link && source.export.is_none() {
        // What a link points to may be anywhere (outside a project, another tool's folder).
        return Err(AdoptError::Link { path: source.path.clone() });
    }
    let (outcome, scope, revision) = match chosen.relation {
        Relation::Same { scope, revision } => (Outcome::Unchanged { scope, revision }, scope, revision),
        Relation::StoreNewer { scope, revision: current, copy_revision } => {
            (Outcome::Older { scope, revision: copy_revision, current }, scope, copy_revision)
        }
        Relation::NotInStore | Relation::Different { .. } | Relation::StoreOlder { .. } => {
            let at = source.export.as_deref().unwrap_or(&source.path);
            let loaded = import::load(at, storage.limits(), &mut |_, _| {})?;
            if loaded.name.as_str() != s.name {
                let found = loaded.name.to_string();
                return Err(AdoptError::NameMismatch { name: s.name.clone(), found, path: source.path.clone() });
            }
            if loaded.files.digest() != chosen.digest {
                return Err(AdoptError::Changed { path: source.path.clone() });
            }
            let source = cx.sources.get(&s.name).filter(|(d, _)| *d == chosen.digest).map(|(_, p)| p);
            let stored = match source {
                Some(source) => store_sourced(storage, &loaded, source)?,
                None => import::store(storage, Scope::User, &loaded)?,
            };
            let revision = stored.revision();
            let outcome = match stored {
                Stored::Written(_) => Outcome::Imported { scope: Scope::User, revision },
                Stored::Unchanged { .. } => Outcome::Unchanged { scope: Scope::User, revision },
            };
            (outcome, Scope::User, revision)
        }
    };
    let mut adopted = Adopted {
        name: s.name.clone(),
        from: source.path.clone(),
        digest: chosen.digest,
        outcome,
        recorded: Vec::new(),
        left: Vec::new(),
    };
    // Every copy of that content, in any folder, becomes ours: identical files.
    let same = s.copies.iter().filter(|g| g.digest == chosen.digest).flat_map(|g| &g.places);
    for p in same {
        if matches!(p.state, SkillState::InSync | SkillState::Outdated | SkillState::Unselected) {
            continue;
        }
        if !chosen.valid {
            let reason = "invalid, so sync cannot deliver it: left as yours until it is fixed".to_owned();
            adopted.left.push(Left { path: p.path.clone(), reason });
            continue;
        }
        if cx.req.disabled.contains(&s.name) || !cx.report.delivers(&p.path, &s.name) {
            let reason = "not chosen for this folder (switched off, or not in its target's `skills` in config.toml), so a sync would remove it: left as yours".to_owned();
            adopted.left.push(Left { path: p.path.clone(), reason });
            continue;
        }
        let recorded = match (p.link, &p.export) {
            (true, None) => {
                let reason = "a link of yours: left as it is, not recorded".to_owned();
                adopted.left.push(Left { path: p.path.clone(), reason });
                continue;
            }
            (true, Some(export)) => record_link(records, &p.path, export, &s.name, chosen.digest, scope, revision)?,
            (false, _) => record_copy(storage, records, &p.path, &s.name, chosen.digest, scope, revision)?,
        };
        match recorded {
            None => adopted.recorded.push(p.path.clone()),
            Some(reason) => adopted.left.push(Left { path: p.path.clone(), reason }),
        }
    }
    Ok(adopted)
}

/// Stores `loaded` in the user scope as `import::store` does (identical content makes no
/// revision), its revision recording that it came from `source`.
fn store_sourced(storage: &FsStorage, loaded: &import::LoadedSkill, source: &Provenance) -> Result<Stored, AdoptError> {
    let digest = loaded.files.digest();
    let current = storage.snapshot(Scope::User, &loaded.name).ok().and_then(|s| Some((s.revision?, s.files.digest())));
    if let Some((revision, d)) = current
        && d == digest
    {
        return Ok(Stored::Unchanged { name: loaded.name.clone(), scope: Scope::User, revision, digest });
    }
    let mut batch = storage.batch(Scope::User, RevisionEvent::Upload).map_err(ImportError::from)?;
    batch
        .stage_as_event(&loaded.name, &loaded.files, RevisionEvent::Sourced { source: source.clone() })
        .map_err(ImportError::from)?;
    let written = batch.commit(&mut |_| {}).into_iter().next().map_or_else(
        || Err(StorageError::Task("the batch ended before the skill was written".into())),
        |(_, result)| result,
    );
    Ok(Stored::Written(written.map_err(ImportError::from)?))
}

/// Records the link of Skilldeck's at `path`, edited through its `export`, as delivering
/// `revision` of `scope` (the edit adopted), under its folder's lock: the export now holds that
/// revision, so the link is in sync and the export is kept as it is.
fn record_link(
    records: &Records,
    path: &Path,
    export: &Path,
    name: &str,
    digest: Digest,
    scope: Scope,
    revision: Revision,
) -> Result<Option<String>, AdoptError> {
    let Some(dir) = path.parent() else { return Ok(Some("not in a folder".to_owned())) };
    let (id, real) = record::folder_id(dir);
    let _lock = FolderLock::acquire(&records.lock_path(id.as_str()))?;
    let changed = || AdoptError::Changed { path: path.to_path_buf() };
    if std::fs::read_link(path).ok().as_deref() != Some(export) {
        return Err(changed());
    }
    // Stamped before and after reading: the stamp recorded is one the content read belongs to.
    let stamp = folder::stamp(export).map_err(TargetError::io("read", export))?;
    let content = folder::content(export).map_err(TargetError::io("read", export))?;
    if !content.extras.is_empty() {
        return Ok(Some(format!(
            "its export holds entries the store does not keep ({}): left as it is, not recorded",
            content.extras.join(", ")
        )));
    }
    if content.digest != digest || folder::stamp(export).map_err(TargetError::io("read", export))? != stamp {
        return Err(changed());
    }
    let owned = Owned {
        scope,
        revision,
        digest,
        written: digest,
        stamp,
        mode: Mode::Link,
        export: Some(export.to_path_buf()),
        at: record::now(),
        previous: None,
    };
    save_owned(records, &id, real, name, owned)
}

/// Records the copy at `path` as Skilldeck's, at `revision` of `scope`, under its folder's lock;
/// `Some(reason)` when it is left unrecorded.
fn record_copy(
    storage: &FsStorage,
    records: &Records,
    path: &Path,
    name: &str,
    digest: Digest,
    scope: Scope,
    revision: Revision,
) -> Result<Option<String>, AdoptError> {
    let Some(dir) = path.parent() else { return Ok(Some("not in a folder".to_owned())) };
    let (id, real) = record::folder_id(dir);
    let _lock = FolderLock::acquire(&records.lock_path(id.as_str()))?;
    // Stamped before and after reading: the stamp recorded is one the content read belongs to.
    let stamp = folder::stamp(path).map_err(TargetError::io("read", path))?;
    let loaded = import::load(path, storage.limits(), &mut |_, _| {})?;
    if loaded.files.digest() != digest {
        return Err(AdoptError::Changed { path: path.to_path_buf() });
    }
    let content = folder::content(path).map_err(TargetError::io("read", path))?;
    if folder::stamp(path).map_err(TargetError::io("read", path))? != stamp {
        return Err(AdoptError::Changed { path: path.to_path_buf() });
    }
    // The store holds only what the import reader took: a folder holding more (`.git`, odd
    // names, links) is not a copy of a revision, and a sync must never replace or remove it.
    let extras = if loaded.skipped.is_empty() { &content.extras } else { &loaded.skipped };
    if !extras.is_empty() {
        return Ok(Some(format!(
            "holds entries the store does not keep ({}): left as yours, not recorded, so a sync never replaces or removes it",
            extras.join(", ")
        )));
    }
    if content.digest != digest {
        return Err(AdoptError::Changed { path: path.to_path_buf() });
    }
    let owned = Owned {
        scope,
        revision,
        digest,
        written: content.digest,
        stamp,
        mode: Mode::Copy,
        export: None,
        at: record::now(),
        previous: None,
    };
    save_owned(records, &id, real, name, owned)
}

/// Writes `owned` as the entry `name` of the record of the folder `id` (now at `real`); the
/// caller holds that folder's lock.
fn save_owned(
    records: &Records,
    id: &str,
    real: PathBuf,
    name: &str,
    owned: Owned,
) -> Result<Option<String>, AdoptError> {
    let mut rec = records.load(id)?;
    rec.folder = real;
    rec.skills.insert(name.to_owned(), owned);
    records.save(id, &rec)?;
    Ok(None)
}
