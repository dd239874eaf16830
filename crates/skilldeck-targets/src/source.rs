//! What should be in the targets: the skills chosen from the store, and reading one whole
//! revision of each when it is written.

use crate::error::TargetError;
use crate::target::Folder;
use serde::Serialize;
use skilldeck_core::{Digest, FsStorage, Revision, Scope, SkillFiles, SkillName, SkillRegistry};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

/// A skill chosen for the targets: the store's current revision of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Wanted {
    /// Its name (a valid skill name).
    pub name: SkillName,
    /// The scope it is stored in (user shadows system).
    pub scope: Scope,
    /// Its revision now.
    pub revision: Revision,
}

/// The chosen skills, by name.
pub type WantedSet = BTreeMap<String, Wanted>;

/// The skills every target gets by default: the enabled valid ones, user shadowing system.
/// `disabled` holds the names switched off for agents (config.toml's `[listing] disabled`).
pub fn enabled_skills(
    registry: &SkillRegistry,
    disabled: &std::collections::BTreeSet<String>,
) -> Result<WantedSet, TargetError> {
    let mut out = WantedSet::new();
    for l in registry.list_metas_across(&Scope::ALL)? {
        let e = &l.entry;
        if l.shadowed || !e.valid || disabled.contains(&e.name) {
            continue;
        }
        let (Some(revision), Ok(name)) = (e.revision, SkillName::parse(&e.name)) else { continue };
        out.insert(e.name.clone(), Wanted { name, scope: e.scope, revision });
    }
    Ok(out)
}

/// `wanted` narrowed to what folder `f` takes: its `skills` list when it has one, less its
/// `exclude` list.
pub fn narrow(wanted: &WantedSet, f: &Folder) -> WantedSet {
    wanted
        .iter()
        .filter(|(n, _)| f.skills.as_ref().is_none_or(|only| only.contains(n)) && !f.exclude.contains(n))
        .map(|(n, w)| (n.clone(), w.clone()))
        .collect()
}

/// Where skills are read from when they are written to a target.
pub trait Source {
    /// The skill's files now (one revision whole) and that revision.
    fn files(&self, want: &Wanted) -> Result<(Revision, Arc<SkillFiles>), TargetError>;
    /// The digest of the skill's current revision.
    fn digest(&self, want: &Wanted) -> Result<Digest, TargetError> {
        Ok(self.files(want)?.1.digest())
    }
}

/// The most bytes of skill files `Store` keeps read, so a skill going to several folders is
/// read from the store once.
const CACHE_BYTES: u64 = 256 << 20;

/// Skills read so far: their total size, and each one's revision and files.
type Cache = (u64, HashMap<(Scope, String), (Revision, Arc<SkillFiles>)>);

/// The file-system store as a source. Each skill is read once per sync and reused for every
/// folder it goes to (up to `CACHE_BYTES` in all).
#[derive(Debug)]
pub struct Store<'a> {
    storage: &'a FsStorage,
    cache: Mutex<Cache>,
}

impl<'a> Store<'a> {
    /// A source over `storage`.
    pub fn new(storage: &'a FsStorage) -> Self {
        Self { storage, cache: Mutex::new((0, HashMap::new())) }
    }
}

impl Source for Store<'_> {
    fn files(&self, want: &Wanted) -> Result<(Revision, Arc<SkillFiles>), TargetError> {
        let key = (want.scope, want.name.to_string());
        if let Ok(cache) = self.cache.lock()
            && let Some((rev, files)) = cache.1.get(&key)
        {
            return Ok((*rev, Arc::clone(files)));
        }
        let snap = self.storage.snapshot(want.scope, &want.name)?;
        let revision = snap.revision.unwrap_or(want.revision);
        let files = Arc::new(snap.files);
        if let Ok(mut cache) = self.cache.lock() {
            let size = files.total_bytes();
            if cache.0 + size <= CACHE_BYTES {
                cache.0 += size;
                cache.1.insert(key, (revision, Arc::clone(&files)));
            }
        }
        Ok((revision, files))
    }
}
