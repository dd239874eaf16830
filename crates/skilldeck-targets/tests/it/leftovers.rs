//! What a killed sync left in a target folder: an old tree set aside whose name is empty is
//! put back, never deleted; other temporary entries are removed.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use crate::common;

use common::{World, put};
use std::fs;

#[test]
fn an_old_tree_set_aside_by_a_killed_sync_goes_back_to_its_name() {
    let w = World::new();
    let dir = w.home().join("skills");
    put(&dir, ".skilldeck-old-4242-7-demo", "the copy that was there");
    put(&dir, ".skilldeck-staging-4242-8-demo", "half written");
    w.store("demo", "from the store");
    let f = w.custom(&dir);

    let plans = w.sync(&[f], &w.wanted(&["demo"]), &[]);
    assert_eq!(plans[0].error, None);
    let names: Vec<String> =
        fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert_eq!(names, ["demo"]);
    assert!(fs::read_to_string(dir.join("demo/SKILL.md")).unwrap().contains("the copy that was there"));
}
