//! A fake world for the targets tests: a store, ownership records and target folders in a
//! temporary folder, never the user's home.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use skilldeck_skill::{RelPath, Revision, Scope, SkillFiles, SkillName};
use skilldeck_store::{FsStorage, SkilldeckHome};
use skilldeck_targets::TargetPlan;
use skilldeck_targets::adopt::{self, AdoptReport, AdoptRequest};
use skilldeck_targets::config::TargetsConfig;
use skilldeck_targets::env::Env;
use skilldeck_targets::export::Exports;
use skilldeck_targets::record::Records;
use skilldeck_targets::scan::{self, ScanReport};
use skilldeck_targets::source::{Source, Store, Wanted, WantedSet};
use skilldeck_targets::sync::Syncer;
use skilldeck_targets::target::{self, Folder, Target};
use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// A store and a fake HOME in one temporary folder.
pub struct World {
    pub tmp: tempfile::TempDir,
    pub storage: FsStorage,
}

impl World {
    pub fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        fs::create_dir_all(tmp.path().join("home")).unwrap();
        let storage = FsStorage::open(SkilldeckHome::new(tmp.path().join("skilldeck"))).unwrap();
        Self { tmp, storage }
    }

    /// The fake HOME.
    pub fn home(&self) -> PathBuf {
        self.tmp.path().join("home")
    }

    pub fn records(&self) -> Records {
        Records::new(self.storage.home().root())
    }

    /// A SKILL.md for `name` with `body`.
    pub fn skill_md(name: &str, body: &str) -> String {
        format!("---\nname: {name}\ndescription: A test skill named {name}.\n---\n{body}\n")
    }

    /// Writes `name` to the user scope with `body`: a new revision.
    pub fn store(&self, name: &str, body: &str) -> Revision {
        let files: SkillFiles =
            [(RelPath::parse("SKILL.md").unwrap(), Self::skill_md(name, body).into_bytes())].into_iter().collect();
        let n = SkillName::parse(name).unwrap();
        self.storage.write_skill_sync(Scope::User, &n, &files).unwrap();
        self.storage.revision_sync(Scope::User, &n).unwrap().unwrap()
    }

    /// The store's current user-scope revisions of `names`.
    pub fn wanted(&self, names: &[&str]) -> WantedSet {
        names
            .iter()
            .map(|n| {
                let name = SkillName::parse(n).unwrap();
                let revision = self.storage.revision_sync(Scope::User, &name).unwrap().unwrap();
                (
                    (*n).to_owned(),
                    Wanted { name, scope: Scope::User, revision, tags: Vec::new(), card: Default::default() },
                )
            })
            .collect()
    }

    /// The targets resolved from `config` (config.toml's text) with this HOME and `project`.
    pub fn targets(&self, config: &str, project: Option<&Path>) -> Vec<Target> {
        let config = TargetsConfig::parse(config, "config.toml").unwrap();
        target::resolve(&Env::with_home(self.home()), &config, project).unwrap()
    }

    /// The one folder of the configured target `mine` at `path`.
    pub fn custom(&self, path: &Path) -> Folder {
        let targets = self.targets(&format!("[targets.mine]\npath = {:?}\n", path.display().to_string()), None);
        targets.into_iter().find(|t| t.id == "mine").unwrap().folders.remove(0)
    }

    /// Syncs `folders` from the store (or `source`), replacing the drifted skills in `overwrite`.
    pub fn sync_with(
        &self,
        source: &dyn Source,
        folders: &[Folder],
        wanted: &WantedSet,
        overwrite: &[&str],
    ) -> Vec<TargetPlan> {
        let syncer = Syncer {
            records: self.records(),
            source,
            overwrite: overwrite.iter().map(|s| (*s).to_owned()).collect::<BTreeSet<_>>(),
            mode: None,
            exports: Exports::new(self.storage.home().root()),
        };
        syncer.run(folders, wanted, false)
    }

    pub fn sync(&self, folders: &[Folder], wanted: &WantedSet, overwrite: &[&str]) -> Vec<TargetPlan> {
        self.sync_with(&Store::new(&self.storage), folders, wanted, overwrite)
    }

    /// Stores each `(name, body)` and delivers them all into a custom folder `~/skills`:
    /// that folder, its target and what it takes.
    pub fn delivered(&self, skills: &[(&str, &str)]) -> (PathBuf, Folder, WantedSet) {
        let dir = self.home().join("skills");
        for (name, body) in skills {
            self.store(name, body);
        }
        let f = self.custom(&dir);
        let names: Vec<&str> = skills.iter().map(|(n, _)| *n).collect();
        let wanted = self.wanted(&names);
        assert_eq!(self.sync(std::slice::from_ref(&f), &wanted, &[])[0].done, skills.len());
        (dir, f, wanted)
    }

    /// Scans `folders`, each synced with `wanted`.
    pub fn scan(&self, folders: &[Folder], wanted: &WantedSet) -> ScanReport {
        let inputs: Vec<scan::ScanInput> = folders
            .iter()
            .map(|f| scan::ScanInput { folder: f.clone(), synced: true, wanted: wanted.clone() })
            .collect();
        scan::scan(&self.storage, &self.records(), &inputs)
    }

    /// Adopts `names` from a fresh scan of `folders`.
    pub fn adopt(&self, folders: &[Folder], wanted: &WantedSet, names: &[&str]) -> AdoptReport {
        let report = self.scan(folders, wanted);
        let req = AdoptRequest { names: names.iter().map(|s| (*s).to_owned()).collect(), ..AdoptRequest::default() };
        adopt::adopt(&self.storage, &self.records(), &report, &req)
    }
}

/// Writes a skill folder `dir/name` holding SKILL.md with `body`.
pub fn put(dir: &Path, name: &str, body: &str) -> PathBuf {
    let p = dir.join(name);
    fs::create_dir_all(&p).unwrap();
    fs::write(p.join("SKILL.md"), World::skill_md(name, body)).unwrap();
    p
}
