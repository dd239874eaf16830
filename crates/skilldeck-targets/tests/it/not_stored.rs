//! Entries the store does not keep (`.git`, OS litter, sidecars) inside a skill's folder in a
//! target: adopting or overwriting that folder never loses them.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use crate::common;

use common::{World, put};
use skilldeck_targets::plan::{Action, SkipReason};
use std::fs;

#[test]
fn an_adopted_folder_holding_git_is_left_as_yours_and_never_replaced() {
    let w = World::new();
    let dir = w.home().join("skills");
    let demo = put(&dir, "demo", "as found");
    fs::create_dir_all(demo.join(".git")).unwrap();
    fs::write(demo.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    let f = w.custom(&dir);

    let report = w.adopt(std::slice::from_ref(&f), &Default::default(), &["demo"]);
    assert!(report.failed.is_empty(), "{:?}", report.failed);
    let adopted = &report.adopted[0];
    assert!(adopted.recorded.is_empty(), "recorded {:?}", adopted.recorded);
    assert_eq!(adopted.left.len(), 1);
    assert!(adopted.left[0].reason.contains(".git"), "{}", adopted.left[0].reason);

    // The store moves on; the folder is not Skilldeck's, so the sync leaves it.
    w.store("demo", "a newer revision");
    let plans = w.sync(&[f], &w.wanted(&["demo"]), &[]);
    assert_eq!(plans[0].error, None);
    assert!(
        matches!(&plans[0].actions[..], [Action::Skip { reason: SkipReason::Foreign { .. }, .. }]),
        "{:?}",
        plans[0].actions
    );
    assert_eq!(fs::read_to_string(demo.join(".git/HEAD")).unwrap(), "ref: refs/heads/main\n");
    assert!(fs::read_to_string(demo.join("SKILL.md")).unwrap().contains("as found"));
}

#[test]
fn overwrite_refuses_an_edited_copy_holding_git_and_loses_nothing() {
    let w = World::new();
    let (dir, f, wanted) = w.delivered(&[("demo", "as delivered")]);
    let demo = dir.join("demo");
    fs::write(demo.join("SKILL.md"), World::skill_md("demo", "edited there")).unwrap();
    fs::create_dir_all(demo.join(".git")).unwrap();
    fs::write(demo.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();

    let plans = w.sync(&[f], &wanted, &["demo"]);
    assert_eq!(plans[0].error_code, Some("target_edit_not_kept"), "{:?}", plans[0]);
    assert!(plans[0].error.as_deref().unwrap().contains(".git"), "{:?}", plans[0].error);
    assert_eq!(fs::read_to_string(demo.join(".git/HEAD")).unwrap(), "ref: refs/heads/main\n");
    assert!(fs::read_to_string(demo.join("SKILL.md")).unwrap().contains("edited there"));
}
