//! Carrying out a plan: per target folder, under its lock, each skill is staged beside its
//! place and renamed in (an exchange for a replacement), so an agent reading the folder sees
//! the old skill or the new one whole. The record names every skill before it is renamed in,
//! with what it replaces, so a sync killed at any moment leaves only folders the next sync
//! knows as its own, and it finishes the job.

use crate::error::TargetError;
use crate::export::Exports;
use crate::folder;
use crate::keep::Keep;
use crate::lock::FolderLock;
use crate::plan::{self, Action, SkipReason, TargetPlan};
use crate::record::{self, Mode, Owned, Record, Records};
use crate::source::{Source, WantedSet, narrow};
use crate::stage::stage;
use crate::state;
use crate::swap::{Swap, clean_leftovers, place_new, remove, replace, temp_path};
use crate::target::Folder;
use skilldeck_skill::{Revision, SkillFiles};
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The environment variable naming a point at which a sync aborts, for crash-safety tests
/// only: `targets-staged`, `targets-recorded`, `targets-renamed-one`.
pub const CRASH_ENV: &str = "SKILLDECK_TEST_CRASH_AT";

/// Aborts the process at a named point when the crash test asks for it.
fn crash_point(point: &str) {
    if std::env::var(CRASH_ENV).is_ok_and(|v| v == point) {
        std::process::abort();
    }
}

/// What a sync needs: where records live, where skills come from, and which drifted skills to
/// replace anyway.
pub struct Syncer<'a> {
    /// The ownership records.
    pub records: Records,
    /// Where skills are read from.
    pub source: &'a dyn Source,
    /// Drifted skills to replace after keeping the edited copy (`--overwrite NAME`).
    pub overwrite: BTreeSet<String>,
    /// The mode asked for (`--mode`); else each folder's from config.toml; else copies for new
    /// skills, and each skill there keeps its mode.
    pub mode: Option<Mode>,
    /// Where link mode's exports are kept.
    pub exports: Exports,
}

/// How one folder is synced within a run: only planned (`dry_run`), and the export stamps the
/// run took so far.
#[derive(Clone, Copy)]
struct FolderRun<'a> {
    dry_run: bool,
    stamps: &'a state::ExportStamps,
}

impl Syncer<'_> {
    /// Plans (`dry_run`) or syncs every folder in turn, each with what it takes of `wanted` by
    /// its own lists (`source::narrow`), whatever the agents' budgets; see `run_each`.
    pub fn run(&self, folders: &[Folder], wanted: &WantedSet, dry_run: bool) -> Vec<TargetPlan> {
        let each: Vec<(Folder, WantedSet)> = folders.iter().map(|f| (f.clone(), narrow(wanted, f))).collect();
        self.run_each(&each, dry_run)
    }

    /// Plans (`dry_run`) or syncs every folder in turn with the skills chosen for it (what
    /// `fit::deliver` chose). A folder that fails gets its error and the others go on; a folder
    /// that is another's (a link to it) is done once.
    pub fn run_each(&self, folders: &[(Folder, WantedSet)], dry_run: bool) -> Vec<TargetPlan> {
        let mut seen: BTreeMap<String, String> = BTreeMap::new();
        let mut restored: BTreeMap<String, Revision> = BTreeMap::new();
        let stamps = state::ExportStamps::default();
        let mut out = Vec::new();
        for (f, chosen) in folders {
            let mut tp = TargetPlan::new(&f.target, f.level, f.path.clone());
            if let Some(e) = f.outside_project() {
                tp.error_code = Some(e.code());
                tp.error = Some(e.to_string());
                out.push(tp);
                continue;
            }
            let (id, real) = record::folder_id(&f.path);
            if let Some(first) = seen.get(&id) {
                tp.same_as = Some(first.clone());
                out.push(tp);
                continue;
            }
            seen.insert(id.clone(), format!("{} ({})", f.target, f.path.display()));
            let mut wanted = chosen.clone();
            // A kept edit moved a skill's revision on (same content): later folders get that one.
            for (name, rev) in &restored {
                if let Some(w) = wanted.get_mut(name) {
                    w.revision = *rev;
                }
            }
            let cx = FolderRun { dry_run, stamps: &stamps };
            let span = tracing::info_span!("sync", target = %f.target, folder = %f.path.display()).entered();
            if let Err(e) = self.folder(f, (&id, real), &wanted, cx, &mut tp, &mut restored) {
                tracing::warn!(code = e.code(), error = %e, "target sync failed");
                tp.error_code = Some(e.code());
                tp.error = Some(e.to_string());
            } else if !dry_run {
                tracing::info!(
                    actions = tp.actions.len(),
                    done = tp.done,
                    unchanged = tp.unchanged.len(),
                    link_fallback = tp.link_fallback.is_some(),
                    "target synced"
                );
            }
            drop(span);
            out.push(tp);
        }
        if !dry_run && self.exports.exists() {
            match self.exports.lock() {
                Ok(_lock) => self.exports.clean(&self.records.all()),
                Err(e) => eprintln_free(&e),
            }
        }
        out
    }

    fn folder(
        &self,
        f: &Folder,
        (id, real): (&str, PathBuf),
        wanted: &WantedSet,
        FolderRun { dry_run, stamps }: FolderRun<'_>,
        tp: &mut TargetPlan,
        restored: &mut BTreeMap<String, Revision>,
    ) -> Result<(), TargetError> {
        let path = f.path.as_path();
        match fs::metadata(path) {
            Ok(m) if !m.is_dir() => return Err(TargetError::NotAFolder { path: path.to_path_buf() }),
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                if fs::symlink_metadata(path).is_ok() {
                    return Err(TargetError::NotAFolder { path: path.to_path_buf() });
                }
                if !dry_run {
                    fs::create_dir_all(path).map_err(TargetError::io("create", path))?;
                }
            }
            Err(e) => return Err(TargetError::io("inspect", path)(e)),
        }
        let _lock = if dry_run { None } else { Some(FolderLock::acquire(&self.records.lock_path(id))?) };
        if !dry_run {
            clean_leftovers(path);
        }
        let mut record = self.records.load(id)?;
        let observed = state::survey_with(path, &record, wanted, stamps).map_err(TargetError::io("read", path))?;
        refuse_unkeepable(path, &observed, wanted, &self.overwrite)?;
        let mut mode = self.mode.or(f.mode);
        let mut links_back = false;
        if mode == Some(Mode::Link)
            && let Some(why) = record.no_links.clone()
        {
            // Known to refuse links: copies, unless a probe shows links work here now.
            if !dry_run && links_work(path) {
                record.no_links = None;
                links_back = true;
            } else {
                mode = Some(Mode::Copy);
                tp.link_fallback = Some(fallback_note(path, &why));
            }
        }
        let (actions, unchanged) = plan::steps(&observed, wanted, &self.overwrite, self.source, mode);
        tp.actions = actions;
        tp.unchanged = unchanged;
        if tp.changes() > 0 && path.is_dir() {
            rustix::fs::access(path, rustix::fs::Access::WRITE_OK)
                .map_err(|e| TargetError::io("write to", path)(std::io::Error::from(e)))?;
        }
        if dry_run {
            // As the real run will: folders after this one get the planned restored revision.
            for a in &tp.actions {
                if let Action::Replace { name, keep: Some(Keep::History { restore, .. }), .. } = a {
                    restored.insert(name.clone(), *restore);
                }
            }
            return Ok(());
        }
        // Recorded skills whose folder is gone (deleted by hand, or a sync killed before its
        // rename), or whose link was replaced by someone else's folder, are forgotten.
        let there: BTreeSet<&str> = observed
            .iter()
            .filter(|o| !matches!(o.state, state::SkillState::Missing | state::SkillState::Foreign))
            .map(|o| o.name.as_str())
            .collect();
        let before_len = record.skills.len();
        record.skills.retain(|n, _| there.contains(n.as_str()));
        let mut restamped = false;
        for o in &observed {
            if let (Some(stamp), Some(entry)) = (&o.fresh_stamp, record.skills.get_mut(&o.name)) {
                entry.stamp = stamp.clone();
                restamped = true;
            }
        }
        let moved = record.folder != real;
        record.folder = real;
        if tp.changes() == 0 {
            if record.skills.len() != before_len || moved || restamped || links_back {
                self.records.save(id, &record)?;
            }
            return Ok(());
        }
        let seen: BTreeMap<String, folder::Look> =
            observed.into_iter().filter_map(|o| Some((o.name, o.seen?))).collect();
        self.apply((path, id), &mut record, wanted, &seen, tp, restored)
    }

    /// Carries out `tp` in the folder at `path` (record `id`). `seen` holds how each skill of
    /// ours looked when it was judged: one found different once swapped out is put back.
    fn apply(
        &self,
        (path, id): (&Path, &str),
        record: &mut Record,
        wanted: &WantedSet,
        seen: &BTreeMap<String, folder::Look>,
        tp: &mut TargetPlan,
        restored: &mut BTreeMap<String, Revision>,
    ) -> Result<(), TargetError> {
        // 1. Keep edited copies in their skills' History, then stage every new tree (or link)
        // beside its place. Exports are made and recorded under their lock, so no cleaner
        // removes one meanwhile.
        self.keep_edits(path, &tp.target, wanted, &mut tp.actions, restored)?;
        let links = tp
            .actions
            .iter()
            .any(|a| matches!(a, Action::Write { mode: Mode::Link, .. } | Action::Replace { mode: Mode::Link, .. }));
        let _exports_lock = if links { Some(self.exports.lock()?) } else { None };
        let mut links_ok = true;
        let mut fallback = None;
        let mut staged: BTreeMap<usize, (PathBuf, Owned)> = BTreeMap::new();
        let staging = (|| -> Result<(), TargetError> {
            for (i, a) in tp.actions.iter().enumerate() {
                let (name, mode) = match a {
                    Action::Write { name, mode, .. } | Action::Replace { name, mode, .. } => (name, *mode),
                    Action::Remove { .. } | Action::Skip { .. } => continue,
                };
                let Some(want) = wanted.get(name) else { continue };
                let (revision, files) = self.source.files(want)?;
                // A kept edit made a restore of this content: that revision is what is there.
                let revision = restored.get(name).copied().map_or(revision, |r| r.max(revision));
                let dir = temp_path(path, "staging", name);
                staged.insert(i, (dir.clone(), Owned::placeholder(want.scope, revision)));
                let digest = files.digest();
                let mut owned = Owned {
                    scope: want.scope,
                    revision,
                    digest,
                    written: digest,
                    stamp: String::new(),
                    mode: Mode::Copy,
                    export: None,
                    at: record::now(),
                    previous: None,
                };
                if mode == Mode::Link && links_ok {
                    let export = self.exports.ensure(want.scope, name, revision, &files)?;
                    match std::os::unix::fs::symlink(&export, &dir) {
                        Ok(()) => {
                            // The export's stamp: one that changes was edited through a link.
                            owned.stamp = folder::stamp(&export).map_err(TargetError::io("read", &export))?;
                            owned.mode = Mode::Link;
                            owned.export = Some(export);
                            staged.insert(i, (dir, owned));
                            continue;
                        }
                        Err(e) => {
                            links_ok = false;
                            fallback = Some(e.to_string());
                        }
                    }
                }
                stage(&dir, &files).map_err(TargetError::io("write", &dir))?;
                owned.stamp = folder::stamp(&dir).map_err(TargetError::io("read", &dir))?;
                staged.insert(i, (dir, owned));
            }
            Ok(())
        })();
        if let Some(why) = fallback {
            tp.link_fallback = Some(fallback_note(path, &why));
            record.no_links = Some(why);
        }
        // What was staged is what the plan says now: a copy where a link could not be made.
        for (i, (_, owned)) in &staged {
            if let Some(Action::Write { mode, .. } | Action::Replace { mode, .. }) = tp.actions.get_mut(*i) {
                *mode = owned.mode;
            }
        }
        if let Err(e) = staging {
            for (dir, _) in staged.values() {
                let _ = fs::remove_dir_all(dir);
            }
            return Err(e);
        }
        flush(path);
        crash_point("targets-staged");
        // 2. Record every new tree, with what it replaces, before any goes live.
        let before = record.clone();
        for (i, (_, owned)) in &staged {
            let name = tp.actions[*i].name().to_owned();
            let previous = before.skills.get(&name).cloned().map(|mut p| {
                p.previous = None;
                Box::new(p)
            });
            record.skills.insert(name, Owned { previous, ..owned.clone() });
        }
        if let Err(e) = self.records.save(id, record) {
            for (dir, _) in staged.values() {
                let _ = fs::remove_dir_all(dir);
            }
            return Err(e);
        }
        crash_point("targets-recorded");
        // 3. Rename each in, or away; stop at the first failure and leave the rest as they were.
        // One edited since it was judged is put back, and reported drifted.
        let mut failure = None;
        let mut edited = Vec::new();
        for (i, a) in tp.actions.iter().enumerate() {
            let name = a.name().to_owned();
            let dest = path.join(&name);
            let was = seen.get(&name);
            let result = match (a, staged.get(&i)) {
                (Action::Write { .. }, Some((dir, _))) => place_new(dir, &dest).map(|()| Swap::Done),
                (Action::Replace { .. }, Some((dir, _))) => replace(dir, &dest, path, was),
                (Action::Remove { .. }, _) => remove(&dest, path, was),
                _ => continue,
            };
            match result {
                Ok(Swap::PutBack) => edited.push(i),
                Ok(Swap::Done) => {
                    tp.done += 1;
                    match staged.get(&i) {
                        Some((_, owned)) => {
                            record.skills.insert(name, owned.clone());
                        }
                        None => {
                            record.skills.remove(&name);
                        }
                    }
                    staged.remove(&i);
                    crash_point("targets-renamed-one");
                }
                Err(e) => {
                    failure = Some(e);
                    break;
                }
            }
        }
        for i in edited {
            if let Some(a @ (Action::Replace { from: revision, .. } | Action::Remove { revision, .. })) =
                tp.actions.get(i)
            {
                let reason = SkipReason::Drifted { revision: *revision, theirs: None };
                tp.actions[i] = Action::Skip { name: a.name().to_owned(), reason };
            }
        }
        // What was not carried out goes back to how it was.
        for (i, (dir, _)) in &staged {
            let _ = fs::remove_dir_all(dir);
            let name = tp.actions[*i].name();
            match before.skills.get(name) {
                Some(old) => record.skills.insert(name.to_owned(), old.clone()),
                None => record.skills.remove(name),
            };
        }
        self.records.save(id, record)?;
        failure.map_or(Ok(()), Err)
    }
}

impl Syncer<'_> {
    /// Keeps the edited copy of each drifted skill about to be replaced, as its planned `keep`
    /// says, and sets the revisions made. Every copy is read first: one the store refuses fails
    /// the folder before anything is written. Notes in `restored`, per skill, the revision that
    /// restored what the targets get.
    fn keep_edits(
        &self,
        path: &Path,
        target: &str,
        wanted: &WantedSet,
        actions: &mut [Action],
        restored: &mut BTreeMap<String, Revision>,
    ) -> Result<(), TargetError> {
        let mut edits = Vec::new();
        for (i, a) in actions.iter().enumerate() {
            if let Action::Replace { name, keep: Some(k), .. } = a
                && k.stores()
                && let Some(want) = wanted.get(name)
            {
                edits.push((i, want, self.source.read_edit(want, &path.join(name))?));
            }
        }
        for (i, want, files) in edits {
            if let Action::Replace { keep: Some(k), to, .. } = &mut actions[i] {
                *k = self.source.keep(want, k, &files, target)?;
                if let Keep::History { restore, .. } = k {
                    *to = *restore;
                    restored.insert(want.name.to_string(), *restore);
                }
            }
        }
        Ok(())
    }
}

impl Owned {
    /// A stand-in while a tree is being staged (replaced before anything is recorded).
    fn placeholder(scope: skilldeck_skill::Scope, revision: skilldeck_skill::Revision) -> Self {
        let digest = SkillFiles::new().digest();
        Self {
            scope,
            revision,
            digest,
            written: digest,
            stamp: String::new(),
            mode: Mode::Copy,
            export: None,
            at: String::new(),
            previous: None,
        }
    }
}

/// Refuses `--overwrite` of a drifted copy in `dir` holding entries the store would not hold
/// (links, pipes, odd names, `.git`, sidecars): they cannot be kept in History, and replacing
/// the copy would delete them. Checked at planning, so a dry run says so too.
fn refuse_unkeepable(
    dir: &Path,
    observed: &[state::Observed],
    wanted: &WantedSet,
    overwrite: &BTreeSet<String>,
) -> Result<(), TargetError> {
    let replaced = |o: &&state::Observed| {
        o.state == state::SkillState::Drifted && overwrite.contains(&o.name) && wanted.contains_key(&o.name)
    };
    let unkeepable = observed.iter().filter(replaced).find(|o| !o.extras.is_empty());
    match unkeepable {
        None => Ok(()),
        Some(o) => Err(TargetError::EditNotKept {
            name: o.name.clone(),
            path: dir.join(&o.name),
            reason: format!(
                "it holds entries the store cannot hold ({}), which replacing it would delete; move them out of that folder first",
                o.extras
                    .iter()
                    .map(|e| format!("{e:?}: {}", folder::why_not_stored(&dir.join(&o.name), e)))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }),
    }
}

/// The note a plan carries when link mode was asked and the folder refuses links.
fn fallback_note(path: &Path, why: &str) -> String {
    format!("links cannot be made in {} ({why}); copied instead", path.display())
}

/// Whether a link can be made in `dir` now: makes one under a temporary name and removes it.
fn links_work(dir: &Path) -> bool {
    let probe = temp_path(dir, "probe", "link");
    let made = std::os::unix::fs::symlink(".", &probe).is_ok();
    if made {
        let _ = fs::remove_file(&probe);
    }
    made
}

/// Says on standard error why unused exports were not cleaned (the sync itself went well).
fn eprintln_free(e: &TargetError) {
    eprintln!("warning: unused exports were not removed: {e}");
}

/// Flushes the file system holding `dir`, so a power cut after the renames finds whole files.
fn flush(dir: &Path) {
    if let Ok(f) = fs::File::open(dir) {
        let _ = rustix::fs::syncfs(&f);
    }
}
