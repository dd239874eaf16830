//! The store watcher on a real file system: every kind of store change is reported once
//! settled, naming the right skill, and reads never are.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use skilldeck_core::SkillRegistry;
use skilldeck_skill::{RelPath, Revision, Scope, SkillFiles, SkillName};
use skilldeck_store::storage::RevisionEvent;
use skilldeck_store::watch::{SkillChange, SkillWatcher, StoreChange};
use skilldeck_store::{FsStorage, SkilldeckHome};
use std::collections::BTreeSet;
use std::fs;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How long a change may take to be reported before the test calls it lost: only a hang fails.
const WITHIN: Duration = Duration::from_secs(10);

fn name(s: &str) -> SkillName {
    SkillName::parse(s).unwrap()
}

fn files(name: &str, description: &str) -> SkillFiles {
    let md = format!("---\nname: {name}\ndescription: {description}\n---\nbody\n");
    [(RelPath::parse("SKILL.md").unwrap(), md.into_bytes())].into_iter().collect()
}

fn user(n: &str) -> StoreChange {
    StoreChange::Skill(SkillChange { scope: Scope::User, name: Some(n.into()) })
}

fn system(n: &str) -> StoreChange {
    StoreChange::Skill(SkillChange { scope: Scope::System, name: Some(n.into()) })
}

/// A store holding `user/pdf` at revisions 1 ("one") and 2 ("two") and `system/tool` at 1,
/// a registry that has cached them, and a watcher over it.
struct Fx {
    _tmp: tempfile::TempDir,
    registry: SkillRegistry,
    rx: mpsc::Receiver<Vec<StoreChange>>,
    home: SkilldeckHome,
    _watcher: SkillWatcher,
}

impl Fx {
    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let home = SkilldeckHome::new(tmp.path());
        let storage = FsStorage::open(home.clone()).unwrap();
        storage.write_skill_sync(Scope::User, &name("pdf"), &files("pdf", "one")).unwrap();
        storage.write_skill_sync(Scope::User, &name("pdf"), &files("pdf", "two")).unwrap();
        storage.write_with_event(Scope::System, &name("tool"), &files("tool", "one"), RevisionEvent::Bundled).unwrap();
        let registry = SkillRegistry::new(storage);
        for scope in Scope::ALL {
            registry.list_metas(scope).unwrap();
        }
        let (tx, rx) = mpsc::channel();
        let watcher = SkillWatcher::start(&home, Duration::from_millis(250), move |c| {
            let _ = tx.send(c);
        })
        .unwrap();
        let fx = Self { _tmp: tmp, registry, rx, home: home.clone(), _watcher: watcher };
        // Live, as in an app that has been open a while: once a change made now is reported,
        // whatever the watcher saw while it started (its own scan of the folders) is gone.
        fs::create_dir(home.scope_dir(Scope::User).join("warm-up")).unwrap();
        assert_eq!(fx.reported(&[user("warm-up")]), vec![user("warm-up")], "the watcher never came up");
        fx
    }

    fn storage(&self) -> &FsStorage {
        self.registry.storage()
    }

    fn skill_md(&self, n: &str) -> std::path::PathBuf {
        self.storage().skill_dir(Scope::User, &name(n)).join("SKILL.md")
    }

    /// The changes reported until they hold all of `expected`, or until `WITHIN` has passed.
    /// Each is then handled as the app does: an edit becomes a revision, the registry forgets.
    fn reported(&self, expected: &[StoreChange]) -> Vec<StoreChange> {
        let deadline = Instant::now() + WITHIN;
        let mut seen = BTreeSet::new();
        while !expected.iter().all(|c| seen.contains(c)) {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(batch) => seen.extend(batch),
                Err(_) => break,
            }
        }
        for c in &seen {
            let StoreChange::Skill(c) = c else { continue };
            if let Some(n) = c.name.as_deref() {
                self.storage().adopt_external_edit(c.scope, &name(n)).unwrap();
            }
            self.registry.invalidate(c.scope, c.name.as_deref());
        }
        seen.into_iter().collect()
    }

    /// What the registry serves for a skill: its revision and description, or nothing.
    fn served(&self, scope: Scope, n: &str) -> Option<(u64, String)> {
        let e = self.registry.get(scope, n).unwrap()?;
        Some((e.revision?.0, e.meta.description.clone()?))
    }
}

/// One step of a case: what is done to the store, what the watcher must report, and what the
/// registry then serves for the skill the step is about.
struct Step {
    act: fn(&Fx),
    reported: Vec<StoreChange>,
    skill: (Scope, &'static str),
    served: Option<(u64, &'static str)>,
}

fn check(case: &str, steps: Vec<Step>) {
    let fx = Fx::new();
    for (i, step) in steps.into_iter().enumerate() {
        (step.act)(&fx);
        let mut expected = step.reported.clone();
        expected.sort();
        assert_eq!(fx.reported(&step.reported), expected, "{case}, step {i}: reported");
        let served = step.served.map(|(rev, d)| (rev, d.to_owned()));
        assert_eq!(fx.served(step.skill.0, step.skill.1), served, "{case}, step {i}: served");
    }
}

#[test]
fn every_kind_of_store_change_is_reported_and_served() {
    let import: fn(&Fx) = |fx| {
        fx.storage().write_skill_sync(Scope::User, &name("pdf"), &files("pdf", "three")).unwrap();
    };
    let edit: fn(&Fx) = |fx| fs::write(fx.skill_md("pdf"), "---\nname: pdf\ndescription: edited\n---\n").unwrap();
    let pdf = (Scope::User, "pdf");
    let cases = vec![
        (
            "a new skill",
            vec![Step {
                act: |fx| {
                    fx.storage().write_skill_sync(Scope::User, &name("new"), &files("new", "fresh")).unwrap();
                },
                reported: vec![user("new")],
                skill: (Scope::User, "new"),
                served: Some((1, "fresh")),
            }],
        ),
        (
            "an import of a new revision (an exchange of folders)",
            vec![Step { act: import, reported: vec![user("pdf")], skill: pdf, served: Some((3, "three")) }],
        ),
        (
            "a restore",
            vec![Step {
                act: |fx| {
                    fx.storage().restore_sync(Scope::User, &name("pdf"), Revision(1)).unwrap();
                },
                reported: vec![user("pdf")],
                skill: pdf,
                served: Some((3, "one")),
            }],
        ),
        (
            "a delete",
            vec![Step {
                act: |fx| {
                    fx.storage().delete_skill_sync(Scope::User, &name("pdf")).unwrap();
                },
                reported: vec![user("pdf")],
                skill: pdf,
                served: None,
            }],
        ),
        (
            "a bundled update",
            vec![Step {
                act: |fx| {
                    let files = files("tool", "updated");
                    fx.storage()
                        .write_with_event(Scope::System, &name("tool"), &files, RevisionEvent::Bundled)
                        .unwrap();
                },
                reported: vec![system("tool")],
                skill: (Scope::System, "tool"),
                served: Some((2, "updated")),
            }],
        ),
        (
            "an edit on disk",
            vec![Step { act: edit, reported: vec![user("pdf")], skill: pdf, served: Some((3, "edited")) }],
        ),
        (
            "an edit on disk after an import (the folder watched is the new one)",
            vec![
                Step { act: import, reported: vec![user("pdf")], skill: pdf, served: Some((3, "three")) },
                Step { act: edit, reported: vec![user("pdf")], skill: pdf, served: Some((4, "edited")) },
            ],
        ),
        (
            "config.toml replaced by rename (as `skilldeck disable` and editors write it)",
            vec![Step {
                act: |fx| {
                    let temp = fx.home.root().join("config.toml.42.tmp");
                    fs::write(&temp, "[listing]\ndisabled = [\"pdf\"]\n").unwrap();
                    fs::rename(&temp, fx.home.config_path()).unwrap();
                },
                reported: vec![StoreChange::Config],
                skill: pdf,
                served: Some((2, "two")),
            }],
        ),
        (
            "trust.json replaced by rename (as `skilldeck trust` writes it)",
            vec![Step {
                act: |fx| {
                    let temp = fx.home.root().join("trust.json.tmp");
                    fs::write(&temp, "{}").unwrap();
                    fs::rename(&temp, fx.home.root().join("trust.json")).unwrap();
                },
                reported: vec![StoreChange::Trust],
                skill: pdf,
                served: Some((2, "two")),
            }],
        ),
        (
            "config.toml written in place",
            vec![Step {
                act: |fx| fs::write(fx.home.config_path(), "[listing]\nbudget_tokens = 900\n").unwrap(),
                reported: vec![StoreChange::Config],
                skill: pdf,
                served: Some((2, "two")),
            }],
        ),
    ];
    for (case, steps) in cases {
        check(case, steps);
    }
}

#[test]
fn reads_are_not_reported() {
    let fx = Fx::new();
    for _ in 0..20 {
        fs::read(fx.skill_md("pdf")).unwrap();
        fx.storage().read_tree_sync(Scope::User, &name("pdf")).unwrap();
        fx.registry.invalidate(Scope::User, None);
        fx.registry.list_metas(Scope::User).unwrap();
    }
    // A bounded look for a report that must not come; passing never depends on speed.
    assert!(fx.rx.recv_timeout(Duration::from_millis(800)).is_err(), "a read was reported as a change");
}

#[test]
fn copying_current_revisions_into_history_is_not_reported() {
    let fx = Fx::new();
    // As a store from before history kept each revision's own copy: none for the current one.
    fs::remove_dir_all(fx.home.history_dir(Scope::User, &name("pdf")).join("2")).unwrap();
    assert_eq!(fx.storage().keep_current_copies(Scope::User).unwrap(), 1);
    assert!(fx.home.history_dir(Scope::User, &name("pdf")).join("2/SKILL.md").is_file());
    // A first start of a large older store copies every skill: no change of any may be seen.
    assert!(fx.rx.recv_timeout(Duration::from_millis(800)).is_err(), "history's copies were reported as changes");
}

/// Waits for the watcher to fall quiet: no batch for `quiet`, at most `WITHIN` twice over.
/// Returns how many batches came before it did, or `None` when it never did.
fn falls_quiet(rx: &mpsc::Receiver<Vec<StoreChange>>, quiet: Duration) -> Option<usize> {
    let deadline = Instant::now() + WITHIN * 2;
    let mut batches = 0;
    while Instant::now() < deadline {
        match rx.recv_timeout(quiet) {
            Ok(_) => batches += 1,
            Err(_) => return Some(batches),
        }
    }
    None
}

#[test]
fn a_store_reported_whole_is_caught_up_without_opening_every_skill_again() {
    // More skill folders than the kernel's queue holds events for their opening (16,384 here):
    // walking them all again, as a scope reported whole once did, overflows the queue, which
    // reports every scope whole again, for ever.
    let tmp = tempfile::tempdir().unwrap();
    let home = SkilldeckHome::new(tmp.path());
    let user = home.scope_dir(Scope::User);
    for i in 0..12_000 {
        fs::create_dir_all(user.join(format!("skill-{i}"))).unwrap();
    }
    let (tx, rx) = mpsc::channel();
    let _watcher = SkillWatcher::start(&home, Duration::from_millis(250), move |c| {
        let _ = tx.send(c);
    })
    .unwrap();
    assert!(falls_quiet(&rx, Duration::from_millis(1500)).is_some(), "the watcher never fell quiet after starting");

    // The folder of every scope changes: each scope is reported whole, once.
    let skills = home.root().join("skills");
    let mode = fs::metadata(&skills).unwrap().permissions();
    fs::set_permissions(&skills, mode).unwrap();
    let batch = rx.recv_timeout(WITHIN).expect("a change to the scopes' folder was not reported");
    assert!(batch.contains(&StoreChange::Skill(SkillChange { scope: Scope::User, name: None })), "{batch:?}");
    let more = falls_quiet(&rx, Duration::from_millis(1500)).expect("the watcher never fell quiet after a whole scope");
    assert!(more <= 2, "{more} more batches after one change");

    // A folder replaced while nothing was watching it is watched again: an edit inside is seen.
    let staged = user.join(".staging-1-1-skill-7");
    fs::create_dir(&staged).unwrap();
    fs::remove_dir_all(user.join("skill-7")).unwrap();
    fs::rename(&staged, user.join("skill-7")).unwrap();
    fs::set_permissions(&skills, fs::metadata(&skills).unwrap().permissions()).unwrap();
    falls_quiet(&rx, Duration::from_millis(1500)).expect("the watcher never fell quiet after a replaced folder");
    fs::write(user.join("skill-7/SKILL.md"), "edited").unwrap();
    let edited = StoreChange::Skill(SkillChange { scope: Scope::User, name: Some("skill-7".into()) });
    let deadline = Instant::now() + WITHIN;
    let mut seen = false;
    while !seen && Instant::now() < deadline {
        seen = rx.recv_timeout(WITHIN).is_ok_and(|b| b.contains(&edited));
    }
    assert!(seen, "an edit inside a replaced folder was not reported");
}
