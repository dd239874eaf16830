//! The store watcher on a real file system: edits are reported once settled, reads never are.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use skilldeck_core::watch::{SkillChange, SkillWatcher};
use skilldeck_core::{FsStorage, RelPath, Scope, SkillFiles, SkillName, SkilldeckHome};
use std::sync::mpsc;
use std::time::Duration;

#[test]
fn edits_are_reported_and_reads_are_not() {
    let tmp = tempfile::tempdir().unwrap();
    let home = SkilldeckHome::new(tmp.path());
    let storage = FsStorage::open(home.clone()).unwrap();
    let name = SkillName::parse("pdf").unwrap();
    let files: SkillFiles =
        [(RelPath::parse("SKILL.md").unwrap(), b"---\nname: pdf\ndescription: d\n---\nbody\n".to_vec())]
            .into_iter()
            .collect();
    storage.write_skill_sync(Scope::User, &name, &files).unwrap();
    let (tx, rx) = mpsc::channel::<Vec<SkillChange>>();
    let _watcher = SkillWatcher::start(&home, Duration::from_millis(100), move |c| {
        let _ = tx.send(c);
    })
    .unwrap();
    let skill_md = storage.skill_dir(Scope::User, &name).join("SKILL.md");

    // Reading (as the app does after every change) is no change.
    for _ in 0..20 {
        std::fs::read(&skill_md).unwrap();
        storage.read_tree_sync(Scope::User, &name).unwrap();
    }
    assert!(rx.recv_timeout(Duration::from_millis(800)).is_err(), "a read was reported as a change");

    // An edit is reported, naming the skill.
    std::fs::write(&skill_md, "---\nname: pdf\ndescription: edited\n---\nbody\n").unwrap();
    let changes = rx.recv_timeout(Duration::from_secs(5)).expect("the edit was not reported");
    assert_eq!(changes, vec![SkillChange { scope: Scope::User, name: Some("pdf".into()) }]);
}
