//! Skill entries that are symbolic links: a project's are not read by the scan, and nothing is
//! ever adopted through a link.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use crate::common;

use common::{World, put};
use skilldeck_skill::{Scope, SkillName};
use skilldeck_targets::target::Level;
use std::fs;

#[test]
fn a_projects_link_entry_is_not_read_by_the_scan_nor_adopted() {
    let w = World::new();
    let outside = w.tmp.path().join("outside");
    put(&outside, "ext", "lives out of the project");
    let project = w.tmp.path().join("project");
    let skills = project.join(".claude/skills");
    fs::create_dir_all(&skills).unwrap();
    std::os::unix::fs::symlink(outside.join("ext"), skills.join("ext")).unwrap();
    let f = w
        .targets("", Some(&project))
        .into_iter()
        .flat_map(|t| t.folders)
        .find(|f| f.level == Level::Project && f.path == skills)
        .unwrap();

    let scan = w.scan(std::slice::from_ref(&f), &Default::default());
    assert!(scan.skill("ext").is_none(), "{:?}", scan.skills);
    assert_eq!(scan.unreadable.len(), 1);
    assert_eq!(scan.unreadable[0].code, "link_in_project");

    let report = w.adopt(&[f], &Default::default(), &["ext"]);
    assert_eq!(report.failed[0].code, "adopt_not_found");
    assert!(!w.storage.skill_dir(Scope::User, &SkillName::parse("ext").unwrap()).exists());
}

#[test]
fn a_skill_found_only_as_a_link_is_not_adopted_through_it() {
    let w = World::new();
    let elsewhere = w.home().join("elsewhere");
    put(&elsewhere, "lnk", "reached through a link");
    let dir = w.home().join("skills");
    fs::create_dir_all(&dir).unwrap();
    std::os::unix::fs::symlink(elsewhere.join("lnk"), dir.join("lnk")).unwrap();
    let f = w.custom(&dir);

    let report = w.adopt(&[f], &Default::default(), &["lnk"]);
    assert!(report.adopted.is_empty(), "{:?}", report.adopted);
    assert_eq!(report.failed[0].code, "adopt_link", "{:?}", report.failed);
    assert!(report.failed[0].error.contains("symbolic link"));
    assert!(!w.storage.skill_dir(Scope::User, &SkillName::parse("lnk").unwrap()).exists());
}
