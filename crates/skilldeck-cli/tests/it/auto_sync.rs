//! Auto-sync from the CLI: targets with `auto = true` are synced when `import`, `restore`,
//! `delete`, `enable` and `disable` finish, in one line (and under `auto_sync` in --json); an
//! auto-sync that fails is reported and never fails the command.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use crate::world;

use std::fs;
use world::World;

fn source(w: &World, name: &str, body: &str) -> String {
    let d = w.tmp.path().join("src").join(name);
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    fs::write(d.join("SKILL.md"), World::skill_md(name, body)).unwrap();
    d.to_str().unwrap().to_owned()
}

#[test]
fn auto_targets_follow_every_change_and_the_command_says_so() {
    let w = World::new();
    fs::create_dir_all(w.home().join(".claude/skills")).unwrap();
    fs::create_dir_all(w.home().join(".codex/skills")).unwrap();
    let alpha = w.home().join(".claude/skills/alpha");
    // No auto target: no auto-sync, no line.
    let out = w.expect(&["import", &source(&w, "alpha", "one")], 0);
    assert!(!out.contains("Auto-sync"), "{out}");
    assert!(!alpha.exists());

    w.config("[targets.claude-code]\nauto = true\nskills = [\"alpha\"]\n");
    let out = w.expect(&["import", &source(&w, "alpha", "two")], 0);
    assert!(out.contains("Auto-sync: claude-code wrote 1, replaced 0, removed 0"), "{out}");
    assert!(fs::read_to_string(alpha.join("SKILL.md")).unwrap().contains("two"));
    assert!(!w.home().join(".codex/skills/alpha").exists(), "codex is not an auto target");

    let v = w.json(&["import", &source(&w, "alpha", "three"), "--json"], 0);
    assert_eq!(v["revision"], 3);
    assert_eq!(v["auto_sync"]["summary"], "Auto-sync: claude-code wrote 0, replaced 1, removed 0", "{v:#}");
    assert_eq!(v["auto_sync"]["targets"][0]["actions"][0]["action"], "replace");
    assert!(fs::read_to_string(alpha.join("SKILL.md")).unwrap().contains("three"));

    let out = w.expect(&["disable", "alpha"], 0);
    assert!(out.contains("removed 1"), "{out}");
    assert!(!alpha.exists());
    let out = w.expect(&["enable", "alpha"], 0);
    assert!(out.contains("wrote 1"), "{out}");
    assert!(alpha.join("SKILL.md").is_file());
    let out = w.expect(&["delete", "alpha"], 0);
    assert!(out.contains("removed 1"), "{out}");
    assert!(!alpha.exists());
    let v = w.json(&["restore", "alpha", "2", "--json"], 0);
    assert_eq!(v["auto_sync"]["targets"][0]["done"], 1, "{v:#}");
    assert!(fs::read_to_string(alpha.join("SKILL.md")).unwrap().contains("two"));
}

#[test]
fn a_failing_auto_sync_is_reported_and_the_import_still_succeeds() {
    let w = World::new();
    fs::write(w.home().join("not-a-folder"), "a file").unwrap();
    w.config("[targets.mine]\npath = \"~/not-a-folder\"\nauto = true\n");
    let out = w.run(&["import", &source(&w, "alpha", "one")]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("Imported alpha") && stdout.contains("Auto-sync: mine failed:"), "{stdout}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("auto-sync did not finish"));
    assert_eq!(w.revision("alpha"), 1);
    let v = w.json(&["import", &source(&w, "alpha", "two"), "--json"], 0);
    assert_eq!(v["auto_sync"]["targets"][0]["error_code"], "target_not_a_folder", "{v:#}");
    assert_eq!(fs::read_to_string(w.home().join("not-a-folder")).unwrap(), "a file");
}
