//! Renaming a skill in the store: the new name's revisions, history and restores, and the
//! clashes refused with nothing changed.

use skilldeck_skill::{RelPath, SkillFiles, SkillName};
use skilldeck_store::drafts::Draft;
use skilldeck_store::storage::{RevisionEvent, StorageError};
use skilldeck_store::{FsStorage, Revision, Scope, SkilldeckHome};
use std::path::Path;

fn skill(name: &str, body: &str) -> SkillFiles {
    [
        (RelPath::parse("SKILL.md").unwrap(), format!("---\nname: {name}\ndescription: d\n---\n{body}\n").into_bytes()),
        (RelPath::parse("scripts/run.sh").unwrap(), format!("#!/bin/sh\necho {body}\n").into_bytes()),
    ]
    .into_iter()
    .collect()
}

fn name(s: &str) -> SkillName {
    SkillName::parse(s).unwrap()
}

/// A store holding `pdf` at v:3 (bodies one, two, three).
fn three_revisions(dir: &Path) -> FsStorage {
    let s = FsStorage::open(SkilldeckHome::new(dir)).unwrap();
    for body in ["one", "two", "three"] {
        s.write_skill_sync(Scope::User, &name("pdf"), &skill("pdf", body)).unwrap();
    }
    s
}

/// Every file of the home under `skills/` and `history/`, with its bytes: what a refused
/// rename must leave as it was.
fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.join("skills"), dir.join("history")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().map(Result::unwrap) {
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            } else {
                out.push((e.path().strip_prefix(dir).unwrap().display().to_string(), std::fs::read(e.path()).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn a_renamed_skill_keeps_every_revision_under_its_new_name() {
    let tmp = tempfile::tempdir().unwrap();
    let s = three_revisions(tmp.path());
    let out = s.rename_sync(Scope::User, &name("pdf"), &name("pdf-tools")).unwrap();
    assert_eq!(
        (out.from_revision, out.revision, out.moved, out.warnings.clone()),
        (Revision(3), Revision(4), 3, Vec::<String>::new())
    );
    assert_eq!(out.from_digest, skill("pdf", "three").digest());
    assert_eq!(out.digest, skill("pdf-tools", "three").digest(), "the files, with the new name");

    // The new name: live at v:4 with the frontmatter renamed, and every revision in its history.
    let snap = s.snapshot(Scope::User, &name("pdf-tools")).unwrap();
    assert_eq!((snap.revision, snap.files), (Some(Revision(4)), skill("pdf-tools", "three")));
    let history = s.history_sync(Scope::User, &name("pdf-tools")).unwrap();
    let rows: Vec<(u64, RevisionEvent, bool, bool)> =
        history.iter().map(|e| (e.revision.0, e.event.clone(), e.current, e.restorable)).collect();
    assert_eq!(
        rows,
        vec![
            (4, RevisionEvent::Renamed { from: "pdf".to_owned() }, true, true),
            (3, RevisionEvent::Upload, false, true),
            (2, RevisionEvent::Upload, false, true),
            (1, RevisionEvent::Upload, false, true),
        ]
    );

    // The old name is gone: no live skill, no history, not a deleted skill.
    assert!(s.list_skills_sync(Scope::User).unwrap() == vec!["pdf-tools".to_owned()]);
    assert!(matches!(s.history_sync(Scope::User, &name("pdf")), Err(StorageError::SkillNotFound { .. })));
    assert_eq!(s.deleted_skills_sync(Scope::User).unwrap(), vec![]);
    assert!(!tmp.path().join("history/user/pdf").exists());

    // v:1 comes back under the new name byte for byte (with the old name it was written with).
    let restored = s.restore_sync(Scope::User, &name("pdf-tools"), Revision(1)).unwrap();
    assert_eq!(restored.revision, Revision(5));
    assert_eq!(s.snapshot(Scope::User, &name("pdf-tools")).unwrap().files, skill("pdf", "one"));

    // A store opened again (recovery) sees the same.
    let again = FsStorage::open(SkilldeckHome::new(tmp.path())).unwrap();
    assert_eq!(again.history_sync(Scope::User, &name("pdf-tools")).unwrap().len(), 5);
}

#[test]
fn a_clash_is_refused_and_leaves_both_skills_untouched() {
    let tmp = tempfile::tempdir().unwrap();
    let s = three_revisions(tmp.path());
    s.write_skill_sync(Scope::User, &name("docs"), &skill("docs", "d")).unwrap();
    s.write_skill_sync(Scope::User, &name("gone"), &skill("gone", "g")).unwrap();
    s.delete_skill_sync(Scope::User, &name("gone")).unwrap();
    let before = tree(tmp.path());

    let taken = s.rename_sync(Scope::User, &name("pdf"), &name("docs")).unwrap_err();
    assert_eq!(taken.code(), "name_taken");
    assert!(taken.to_string().contains("there is already a skill named docs"), "{taken}");
    let deleted = s.rename_sync(Scope::User, &name("pdf"), &name("gone")).unwrap_err();
    assert_eq!(deleted.code(), "name_has_history");
    assert!(deleted.to_string().contains("`skilldeck restore gone 1`"), "{deleted}");
    let same = s.rename_sync(Scope::User, &name("pdf"), &name("pdf")).unwrap_err();
    assert_eq!(same.code(), "rename_refused");
    let missing = s.rename_sync(Scope::User, &name("nope"), &name("new-name")).unwrap_err();
    assert_eq!(missing.code(), "skill_not_found");
    let team = s.rename_sync(Scope::Team, &name("pdf"), &name("new-name")).unwrap_err();
    assert_eq!(team.code(), "scope_read_only");

    assert_eq!(tree(tmp.path()), before, "nothing changed");
}

#[test]
fn a_draft_of_the_old_name_follows_and_is_not_stale() {
    let tmp = tempfile::tempdir().unwrap();
    let s = three_revisions(tmp.path());
    let draft = Draft::open(&s, Scope::User, &name("pdf")).unwrap();
    draft.write(&RelPath::parse("notes.md").unwrap(), b"todo").unwrap();
    let out = s.rename_sync(Scope::User, &name("pdf"), &name("pdf-tools")).unwrap();
    assert!(Draft::follow_rename(s.home(), &out).unwrap());
    assert!(Draft::find(s.home(), Scope::User, &name("pdf")).is_none());
    let moved = Draft::find(s.home(), Scope::User, &name("pdf-tools")).unwrap();
    assert_eq!(moved.base(), Some(Revision(4)));
    assert_eq!(moved.stale(&s).unwrap(), None);
    let (files, _) = moved.files(1 << 20).unwrap();
    assert_eq!(files.skill_md(), skill("pdf-tools", "three").skill_md());
    assert_eq!(files.get("notes.md"), Some(&b"todo"[..]));
}
