//! `sync --mode link`: target entries are links to read-only exports Skilldeck keeps, never the
//! store's own folder; states for links (outdated export, a link replaced by a folder or
//! pointed elsewhere); old exports removed once unused; foreign skills never touched.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use crate::world;

use std::fs;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use world::{World, tree};

fn link_of(w: &World, entry: &str) -> PathBuf {
    fs::read_link(w.home().join(entry)).unwrap_or_else(|e| panic!("{entry} is not a link: {e}"))
}

/// Every entry below `dir` has no write bit.
fn read_only(dir: &Path) {
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        assert_eq!(fs::metadata(&d).unwrap().permissions().mode() & 0o222, 0, "{} is writable", d.display());
        for e in fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                assert_eq!(fs::metadata(&p).unwrap().permissions().mode() & 0o222, 0, "{} is writable", p.display());
            }
        }
    }
}

fn exports(w: &World, name: &str) -> Vec<String> {
    let dir = w.sd().join("exports/user").join(name);
    let mut v: Vec<String> = fs::read_dir(&dir)
        .map(|r| r.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    v.sort();
    v
}

#[test]
fn link_mode_links_into_read_only_exports_and_follows_revisions() {
    let w = World::new();
    fs::create_dir_all(w.home().join(".claude/skills")).unwrap();
    fs::create_dir_all(w.home().join(".codex/skills")).unwrap();
    w.config(
        "[targets.codex]\nskills = [\"alpha\", \"beta\"]\n[targets.claude-code]\nskills = [\"alpha\", \"beta\"]\n",
    );
    w.put(".claude/skills", "theirs", "a foreign skill");
    w.import("alpha", "one");
    w.import("beta", "b");
    let foreign = tree(&w.home().join(".claude/skills/theirs"), &[]);

    let plan = w.json(&["sync", "--mode", "link", "--dry-run", "--json"], 0);
    assert_eq!(plan[0]["actions"][0]["mode"], "link", "{plan:#}");
    assert!(!w.sd().join("exports").exists(), "a dry run made an export");
    w.expect(&["sync", "--mode", "link"], 0);
    let target = link_of(&w, ".claude/skills/alpha");
    assert_eq!(link_of(&w, ".codex/skills/alpha"), target, "two folders share one export");
    assert!(target.starts_with(w.sd().join("exports/user/alpha")), "{}", target.display());
    assert!(!target.starts_with(w.sd().join("skills")), "a link into the store's own folder");
    read_only(&target);
    assert!(!target.join(".version").exists() && !target.join(".revision.json").exists());
    assert!(fs::read_to_string(target.join("SKILL.md")).unwrap().contains("one"));
    assert_eq!(w.states(".claude/skills")["alpha"], "in-sync");
    assert_eq!(w.expect(&["sync"], 0).matches("up to date").count(), 2, "a plain sync keeps the links");

    // A new revision: the links are outdated, then point at the new export; the old one goes.
    w.import("alpha", "two");
    assert_eq!(w.states(".claude/skills")["alpha"], "outdated");
    w.expect(&["sync"], 0);
    let new = link_of(&w, ".claude/skills/alpha");
    assert_ne!(new, target);
    assert!(fs::read_to_string(new.join("SKILL.md")).unwrap().contains("two"));
    assert_eq!(exports(&w, "alpha").len(), 1, "{:?}", exports(&w, "alpha"));
    assert!(!target.exists());

    // An export deleted by hand: outdated, and made again.
    fs::set_permissions(&new, fs::Permissions::from_mode(0o755)).unwrap();
    fs::remove_dir_all(w.sd().join("exports/user/beta")).unwrap_or(());
    assert_eq!(w.states(".codex/skills")["beta"], "outdated");
    w.expect(&["sync", "codex"], 0);
    assert_eq!(w.states(".codex/skills")["beta"], "in-sync");
    assert!(link_of(&w, ".codex/skills/beta").join("SKILL.md").is_file());

    // The link replaced by a real folder: with the same content drifted, with other content
    // theirs; a link pointed elsewhere is drifted. Sync touches none of them.
    let claude = w.home().join(".claude/skills");
    fs::remove_file(claude.join("alpha")).unwrap();
    fs::create_dir(claude.join("alpha")).unwrap();
    fs::copy(new.join("SKILL.md"), claude.join("alpha/SKILL.md")).unwrap();
    fs::remove_file(claude.join("beta")).unwrap();
    w.put(".claude/skills", "beta", "someone else's beta");
    let codex = w.home().join(".codex/skills");
    fs::remove_file(codex.join("alpha")).unwrap();
    std::os::unix::fs::symlink(claude.join("theirs"), codex.join("alpha")).unwrap();
    let s = w.states(".claude/skills");
    assert_eq!((s["alpha"].as_str(), s["beta"].as_str(), s["theirs"].as_str()), ("drifted", "foreign", "foreign"));
    assert_eq!(w.states(".codex/skills")["alpha"], "drifted");
    let before = tree(&w.home(), &[".codex/skills/beta"]);
    w.expect(&["sync"], 0);
    assert_eq!(tree(&w.home(), &[".codex/skills/beta"]), before);
    assert_eq!(tree(&w.home().join(".claude/skills/theirs"), &[]), foreign);

    // Back to copies: --overwrite makes the drifted ones ours again; every link becomes a
    // folder and no export is left.
    w.expect(&["sync", "--mode", "copy", "--overwrite", "alpha"], 0);
    for entry in [".claude/skills/alpha", ".codex/skills/alpha", ".codex/skills/beta"] {
        let m = fs::symlink_metadata(w.home().join(entry)).unwrap();
        assert!(m.is_dir() && !m.file_type().is_symlink(), "{entry}");
    }
    assert_eq!(w.states(".codex/skills")["alpha"], "in-sync");
    assert_eq!(exports(&w, "alpha"), Vec::<String>::new());
    assert_eq!(exports(&w, "beta"), Vec::<String>::new());
    assert_eq!(tree(&w.home().join(".claude/skills/theirs"), &[]), foreign);
}

/// The review's steps: `sync codex --mode link`, then `chmod u+w` and an edit of the delivered
/// SKILL.md. `targets` says drifted (as `scan` says the copy differs), a sync after a new
/// revision keeps the edit and says why, and `adopt` makes it the next revision.
#[test]
fn an_edit_through_a_link_is_drifted_kept_and_adoptable() {
    let w = World::new();
    fs::create_dir_all(w.home().join(".codex/skills")).unwrap();
    w.import("alpha", "one");
    w.expect(&["sync", "codex", "--mode", "link"], 0);
    let md = w.home().join(".codex/skills/alpha/SKILL.md");
    let mode = fs::metadata(&md).unwrap().permissions().mode();
    fs::set_permissions(&md, fs::Permissions::from_mode(mode | 0o200)).unwrap();
    fs::write(&md, World::skill_md("alpha", "my edit")).unwrap();

    assert_eq!(w.states(".codex/skills")["alpha"], "drifted");
    let scan = w.json(&["scan", "--json"], 0);
    assert_eq!(scan["skills"][0]["copies"][0]["relation"], "store-older", "{scan:#}");

    w.import("alpha", "two");
    let plan = w.json(&["sync", "codex", "--json"], 0);
    assert_eq!(plan[0]["actions"][0]["action"], "skip", "{plan:#}");
    assert_eq!(plan[0]["actions"][0]["reason"], "drifted", "{plan:#}");
    assert!(fs::read_to_string(&md).unwrap().contains("my edit"));

    w.expect(&["adopt", "alpha", "--from", "codex"], 0);
    assert_eq!(w.revision("alpha"), 3);
    assert_eq!(w.states(".codex/skills")["alpha"], "in-sync");
    assert!(fs::read_to_string(&md).unwrap().contains("my edit"));
}
