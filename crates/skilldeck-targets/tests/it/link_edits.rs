//! A skill delivered in link mode and edited through its link (`chmod u+w`, or as root): the
//! export it points to holds the edit. It is drifted in every folder linking to that export,
//! kept by sync and reported, adoptable, replaced only under `--overwrite` after being kept in
//! History; the store's revisions never change.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use crate::common;

use common::World;
use skilldeck_skill::{Revision, Scope, SkillFiles, SkillName};
use skilldeck_targets::adopt::Outcome;
use skilldeck_targets::keep::Keep;
use skilldeck_targets::plan::{Action, SkipReason};
use skilldeck_targets::record::{self, Mode};
use skilldeck_targets::scan::Relation;
use skilldeck_targets::source::WantedSet;
use skilldeck_targets::state::{self, SkillState};
use skilldeck_targets::target::Folder;
use std::fs;
use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};

/// Two folders of the user's own, `~/a` and `~/b`, both in link mode.
fn linked(w: &World) -> Vec<Folder> {
    let path = |n: &str| w.home().join(n).display().to_string();
    let config = format!(
        "[targets.a]\npath = {:?}\nmode = \"link\"\n[targets.b]\npath = {:?}\nmode = \"link\"\n",
        path("a"),
        path("b")
    );
    let mut out: Vec<Folder> =
        w.targets(&config, None).into_iter().filter(|t| t.id == "a" || t.id == "b").flat_map(|t| t.folders).collect();
    out.sort_by(|x, y| x.target.cmp(&y.target));
    assert_eq!(out.iter().map(|f| f.mode).collect::<Vec<_>>(), [Some(Mode::Link), Some(Mode::Link)]);
    out
}

/// The state of `name` in `dir`, as `targets` shows it.
fn state_of(w: &World, dir: &Path, wanted: &WantedSet, name: &str) -> SkillState {
    let record = w.records().load(&record::folder_id(dir).0).unwrap();
    let observed = state::survey(dir, &record, wanted).unwrap();
    observed.into_iter().find(|o| o.name == name).unwrap().state
}

/// Edits `dir/name/SKILL.md` as a user would: `chmod u+w`, then write (we are root, or its owner).
fn edit(dir: &Path, name: &str, body: &str) {
    let md = dir.join(name).join("SKILL.md");
    let mode = fs::metadata(&md).unwrap().permissions().mode();
    fs::set_permissions(&md, fs::Permissions::from_mode(mode | 0o200)).unwrap();
    fs::write(&md, World::skill_md(name, body)).unwrap();
}

fn skill_md_at(dir: &Path, name: &str) -> String {
    fs::read_to_string(dir.join(name).join("SKILL.md")).unwrap()
}

/// Revision `rev` of `name` as the store holds it.
fn revision(w: &World, name: &str, rev: Revision) -> SkillFiles {
    w.storage.revision_files(Scope::User, &SkillName::parse(name).unwrap(), rev).unwrap()
}

/// Delivers `alpha` ("one") as links into `~/a` and `~/b`, then edits it through `~/a`: the
/// folders, what they take, the export, and revision 1 as the store held it before the edit.
fn edited(w: &World) -> (Vec<Folder>, WantedSet, PathBuf, SkillFiles) {
    w.store("alpha", "one");
    let folders = linked(w);
    let wanted = w.wanted(&["alpha"]);
    let plans = w.sync(&folders, &wanted, &[]);
    assert_eq!(plans.iter().map(|p| p.done).sum::<usize>(), 2, "{plans:?}");
    let export = fs::read_link(folders[0].path.join("alpha")).unwrap();
    assert_eq!(fs::read_link(folders[1].path.join("alpha")).unwrap(), export, "one export, shared");
    let before = revision(w, "alpha", Revision(1));
    assert_eq!(state_of(w, &folders[0].path, &wanted, "alpha"), SkillState::InSync);
    edit(&folders[0].path, "alpha", "edited through the link");
    (folders, wanted, export, before)
}

/// The store never changed: revision 1 is byte for byte what it was, and the export's file is
/// not the store's (no hard link into it).
fn store_untouched(w: &World, before: &SkillFiles, export: &Path) {
    assert_eq!(&revision(w, "alpha", Revision(1)), before, "the store's revision 1 changed");
    assert!(String::from_utf8_lossy(before.skill_md().unwrap()).contains("one"));
    let md = fs::metadata(export.join("SKILL.md")).unwrap();
    assert_eq!(md.nlink(), 1, "the export's SKILL.md is a hard link");
}

#[test]
fn an_edit_through_a_link_is_drifted_in_every_folder_linking_to_its_export() {
    let w = World::new();
    let (folders, wanted, export, before) = edited(&w);
    for f in &folders {
        assert_eq!(state_of(&w, &f.path, &wanted, "alpha"), SkillState::Drifted, "{}", f.target);
    }
    store_untouched(&w, &before, &export);

    // A sync with nothing new keeps it, and says so for each folder.
    let plans = w.sync(&folders, &wanted, &[]);
    for p in &plans {
        assert!(
            matches!(&p.actions[..], [Action::Skip { reason: SkipReason::Drifted { theirs: Some(_), .. }, .. }]),
            "{}: {:?}",
            p.target,
            p.actions
        );
    }
    assert!(skill_md_at(&folders[1].path, "alpha").contains("edited through the link"));
}

#[test]
fn a_sync_after_a_new_revision_keeps_the_edited_export_and_reports_it() {
    let w = World::new();
    let (folders, _, export, before) = edited(&w);
    w.store("alpha", "two");
    let wanted = w.wanted(&["alpha"]);

    let plans = w.sync(&folders, &wanted, &[]);
    for (p, f) in plans.iter().zip(&folders) {
        assert_eq!(p.error, None);
        assert_eq!(p.done, 0, "{}: {:?}", p.target, p.actions);
        assert!(
            matches!(&p.actions[..], [Action::Skip { reason: SkipReason::Drifted { revision: Revision(1), .. }, .. }]),
            "{}: {:?}",
            p.target,
            p.actions
        );
        assert_eq!(fs::read_link(f.path.join("alpha")).unwrap(), export);
        assert!(skill_md_at(&f.path, "alpha").contains("edited through the link"), "{}", p.target);
    }
    assert!(export.is_dir(), "the edited export was removed");
    store_untouched(&w, &before, &export);

    // No longer chosen: kept too, not removed.
    let plans = w.sync(&folders, &WantedSet::new(), &[]);
    assert!(matches!(&plans[0].actions[..], [Action::Skip { .. }]), "{:?}", plans[0].actions);
    assert!(skill_md_at(&folders[0].path, "alpha").contains("edited through the link"));
}

#[test]
fn an_edited_export_is_adopted_as_a_new_revision_and_its_links_become_in_sync() {
    let w = World::new();
    let (folders, wanted, export, before) = edited(&w);

    let scan = w.scan(&folders, &wanted);
    let group = &scan.skill("alpha").unwrap().copies[0];
    assert_eq!(group.places.len(), 2, "{group:?}");
    assert!(matches!(group.relation, Relation::StoreOlder { revision: Revision(1), .. }), "{group:?}");
    assert!(group.places.iter().all(|p| p.state == SkillState::Drifted && p.link), "{group:?}");

    let report = w.adopt(&folders, &wanted, &["alpha"]);
    assert!(report.failed.is_empty(), "{:?}", report.failed);
    let adopted = &report.adopted[0];
    assert_eq!(adopted.outcome, Outcome::Imported { scope: Scope::User, revision: Revision(2) });
    assert_eq!(adopted.recorded.len(), 2, "{adopted:?}");
    let now = String::from_utf8(revision(&w, "alpha", Revision(2)).skill_md().unwrap().to_vec()).unwrap();
    assert!(now.contains("edited through the link"));
    store_untouched(&w, &before, &export);

    let wanted = w.wanted(&["alpha"]);
    for f in &folders {
        assert_eq!(state_of(&w, &f.path, &wanted, "alpha"), SkillState::InSync, "{}", f.target);
    }
    let plans = w.sync(&folders, &wanted, &[]);
    assert!(plans.iter().all(|p| p.actions.is_empty() && p.unchanged == ["alpha"]), "{plans:?}");
}

#[test]
fn overwrite_keeps_the_edit_in_history_before_replacing_the_link() {
    let w = World::new();
    let (folders, wanted, export, before) = edited(&w);

    let plans = w.sync(&folders[..1], &wanted, &["alpha"]);
    assert_eq!(plans[0].error, None);
    assert!(
        matches!(
            &plans[0].actions[..],
            [Action::Replace { keep: Some(Keep::History { edit: Revision(2), restore: Revision(3), .. }), .. }]
        ),
        "{:?}",
        plans[0].actions
    );
    let kept = String::from_utf8(revision(&w, "alpha", Revision(2)).skill_md().unwrap().to_vec()).unwrap();
    assert!(kept.contains("edited through the link"));
    assert!(skill_md_at(&folders[0].path, "alpha").contains("one"));
    assert_ne!(fs::read_link(folders[0].path.join("alpha")).unwrap(), export);
    // The other folder still links to the edited export: still drifted, still there.
    assert_eq!(state_of(&w, &folders[1].path, &w.wanted(&["alpha"]), "alpha"), SkillState::Drifted);
    assert!(skill_md_at(&folders[1].path, "alpha").contains("edited through the link"));
    store_untouched(&w, &before, &export);
}

#[test]
fn a_new_folder_linking_the_same_revision_never_rewrites_an_edited_export() {
    let w = World::new();
    let (folders, wanted, export, _) = edited(&w);
    let c = w.custom(&w.home().join("c"));
    let c = Folder { mode: Some(Mode::Link), ..c };

    let plans = w.sync(std::slice::from_ref(&c), &wanted, &[]);
    assert_eq!(plans[0].done, 1, "{:?}", plans[0]);
    assert!(skill_md_at(&c.path, "alpha").contains("one"), "the new folder gets the store's revision");
    assert_ne!(fs::read_link(c.path.join("alpha")).unwrap(), export);
    for f in &folders {
        assert!(skill_md_at(&f.path, "alpha").contains("edited through the link"), "{}", f.target);
        assert_eq!(state_of(&w, &f.path, &wanted, "alpha"), SkillState::Drifted);
    }
}
