//! What should be in the targets: the skills chosen from the store and for each folder, and
//! reading one whole revision of each when it is written.

use crate::error::TargetError;
use crate::keep::{self, Keep};
use crate::target::{Folder, Target, synced_by_default};
use skilldeck_core::SkillRegistry;
use skilldeck_skill::{Digest, Revision, Scope, SkillFiles, SkillName};
use skilldeck_store::FsStorage;
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

// Chosen here, defined beneath this module and `keep`; named here too.
pub use crate::wanted::{Card, Wanted, WantedSet};

/// The skills every target gets by default: the enabled valid ones the audit does not hold
/// back, user shadowing team shadowing system.
/// `disabled` holds the names switched off for agents (config.toml's `[listing] disabled`).
pub fn enabled_skills(
    registry: &SkillRegistry,
    disabled: &std::collections::BTreeSet<String>,
) -> Result<WantedSet, TargetError> {
    let mut out = WantedSet::new();
    for l in registry.list_metas_across(&Scope::ALL)? {
        let e = &l.entry;
        if l.shadowed || !e.valid || disabled.contains(&e.name) || registry.is_held(e) {
            continue;
        }
        let (Some(revision), Ok(name)) = (e.revision, SkillName::parse(&e.name)) else { continue };
        let tags = skilldeck_select::listing::tags_of(e);
        let card = Card {
            description: e.meta.description.clone().unwrap_or_default(),
            when_to_use: e.meta.when_to_use(),
            model_invocable: e.meta.model_invocable(),
            warnings: e.diagnostics.iter().filter(|d| d.severity == skilldeck_skill::Severity::Warning).count(),
        };
        out.insert(e.name.clone(), Wanted { name, scope: e.scope, revision, tags, card });
    }
    Ok(out)
}

/// Whether folder `f` takes skill `name` with `tags`: named in its `skills` list or tagged with
/// one of its `tags` (every skill when it has neither), and not in its `exclude` list.
pub fn takes(f: &Folder, name: &str, tags: &[String]) -> bool {
    let chosen = match (&f.skills, f.tags.is_empty()) {
        (None, true) => true,
        (only, _) => {
            only.as_ref().is_some_and(|o| o.iter().any(|n| n == name)) || tags.iter().any(|t| f.tags.contains(t))
        }
    };
    chosen && !f.exclude.iter().any(|n| n == name)
}

/// `wanted` narrowed to what folder `f` takes (see `takes`).
pub fn narrow(wanted: &WantedSet, f: &Folder) -> WantedSet {
    wanted.iter().filter(|(n, w)| takes(f, n, &w.tags)).map(|(n, w)| (n.clone(), w.clone())).collect()
}

/// The skills chosen for folder `f` of `t` out of `wanted` (the enabled valid ones): none when a
/// plain `sync` does not go there, else narrowed to the folder's `skills` and `exclude` lists.
pub fn chosen_for(t: &Target, f: &Folder, wanted: &WantedSet) -> WantedSet {
    if synced_by_default(t, f) { narrow(wanted, f) } else { WantedSet::new() }
}

/// Where skills are read from when they are written to a target.
pub trait Source {
    /// The skill's files now (one revision whole) and that revision.
    fn files(&self, want: &Wanted) -> Result<(Revision, Arc<SkillFiles>), TargetError>;
    /// The digest of the skill's current revision.
    fn digest(&self, want: &Wanted) -> Result<Digest, TargetError> {
        Ok(self.files(want)?.1.digest())
    }
    /// What keeping an edited copy of the skill (digest `edited`; `link`: a link pointed
    /// elsewhere) before it is replaced would do (see `keep`).
    fn plan_keep(&self, want: &Wanted, edited: Option<Digest>, link: bool) -> Keep;
    /// Reads the edited copy at `path` for keeping; refused with why, changing nothing.
    fn read_edit(&self, want: &Wanted, path: &Path) -> Result<SkillFiles, TargetError>;
    /// Keeps `files`, the edited copy from `target`, as `planned` says; returns what was done.
    fn keep(&self, want: &Wanted, planned: &Keep, files: &SkillFiles, target: &str) -> Result<Keep, TargetError>;
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

    fn plan_keep(&self, want: &Wanted, edited: Option<Digest>, link: bool) -> Keep {
        keep::plan(self.storage, want, edited, link)
    }

    fn read_edit(&self, want: &Wanted, path: &Path) -> Result<SkillFiles, TargetError> {
        keep::read(self.storage, want.name.as_str(), path)
    }

    fn keep(&self, want: &Wanted, planned: &Keep, files: &SkillFiles, target: &str) -> Result<Keep, TargetError> {
        let done = keep::keep(self.storage, want, planned, files, target)?;
        // The store moved on: what was read of this skill is stale.
        if let Ok(mut cache) = self.cache.lock()
            && let Some((_, old)) = cache.1.remove(&(want.scope, want.name.to_string()))
        {
            cache.0 = cache.0.saturating_sub(old.total_bytes());
        }
        Ok(done)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::target::Level;

    fn folder(skills: Option<&[&str]>, tags: &[&str], exclude: &[&str]) -> Folder {
        let v = |l: &[&str]| l.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        Folder {
            target: "t".to_owned(),
            level: Level::Custom,
            path: "/nowhere".into(),
            exists: false,
            skills: skills.map(v),
            tags: v(tags),
            exclude: v(exclude),
            mode: None,
            auto: false,
            project: None,
        }
    }

    #[test]
    fn a_folder_takes_skills_by_name_by_tag_and_never_excluded_ones() {
        let review = ["review".to_owned()];
        let every = folder(None, &[], &[]);
        assert!(takes(&every, "a", &[]));
        let tagged = folder(None, &["review"], &[]);
        assert!(takes(&tagged, "a", &review) && !takes(&tagged, "b", &[]));
        let both = folder(Some(&["b"]), &["review"], &["c"]);
        assert!(takes(&both, "a", &review) && takes(&both, "b", &[]));
        assert!(!takes(&both, "c", &review), "exclude wins over a tag");
        assert!(!takes(&folder(Some(&[]), &[], &[]), "a", &review), "an empty list takes nothing");
    }
}
