//! A project's skills folder that is a link out of the project (`.claude/skills ->
//! ../../.codex/skills`): refused, and the folder it leads to is left as it was.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use crate::common;

use common::{World, put};
use skilldeck_targets::target::Level;
use std::fs;
use std::path::Path;

fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

#[test]
fn a_project_folder_linked_out_of_the_project_is_refused_and_left_alone() {
    let w = World::new();
    let codex = w.tmp.path().join("home/.codex/skills");
    put(&codex, "theirs", "codex's own");
    let project = w.tmp.path().join("work/project");
    fs::create_dir_all(project.join(".claude")).unwrap();
    std::os::unix::fs::symlink("../../../home/.codex/skills", project.join(".claude/skills")).unwrap();
    assert!(project.join(".claude/skills/theirs").is_dir());
    w.store("demo", "from the store");
    let f = w
        .targets("", Some(&project))
        .into_iter()
        .flat_map(|t| t.folders)
        .find(|f| f.level == Level::Project && f.target == "claude-code")
        .unwrap();
    let before = listing(&codex);

    let plans = w.sync(std::slice::from_ref(&f), &w.wanted(&["demo"]), &[]);
    assert_eq!(plans[0].error_code, Some("target_outside_project"), "{:?}", plans[0]);
    assert!(plans[0].error.as_deref().unwrap().contains("leads out of the project"));
    assert_eq!(listing(&codex), before);

    let scan = w.scan(&[f], &w.wanted(&["demo"]));
    assert!(scan.folders[0].error.as_deref().unwrap().contains("leads out of the project"));
    assert!(scan.skills.is_empty(), "{:?}", scan.skills);
}
