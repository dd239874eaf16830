//! `sync --mode link` into a folder whose file system refuses symbolic links (a real exFAT
//! volume: an image formatted by `mkfs.exfat`, on a loop device, mounted with exfat-fuse):
//! the skills arrive as copies, ownership records a copy, the output says it fell back and
//! why, and the next link-mode sync does not flap.
//!
//! Needs root, `losetup`, `mkfs.exfat` (exfatprogs) and `mount.exfat-fuse` (exfat-fuse), which
//! `scripts/setup` installs. Without them the test fails under `scripts/test` (see
//! `skilldeck_testkit`; opt out with `SKILLDECK_TESTS_OPT_OUT=exfat`) and is skipped loudly
//! when run by hand.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use crate::world;

use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use world::{World, tree};

/// An exFAT volume mounted at a folder; unmounted and its loop device freed on drop.
struct ExFat {
    dir: PathBuf,
    device: String,
}

/// Runs a command; its stdout when it succeeds, else why not.
fn run(cmd: &str, args: &[&str]) -> Result<String, String> {
    let out = Command::new(cmd).args(args).output().map_err(|e| format!("{cmd}: {e}"))?;
    if !out.status.success() {
        return Err(format!("{cmd} {args:?}: {}", String::from_utf8_lossy(&out.stderr).trim()));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

impl ExFat {
    /// Formats a 32 MiB image in `tmp` and mounts it at `dir` (made if missing).
    fn mount(tmp: &Path, dir: &Path) -> Result<Self, String> {
        if !rustix::process::geteuid().is_root() {
            return Err("not root (loop devices and mounts need it)".to_owned());
        }
        let image = tmp.join("exfat.img");
        fs::File::create(&image).and_then(|f| f.set_len(32 << 20)).map_err(|e| e.to_string())?;
        let image = image.to_str().unwrap();
        run("mkfs.exfat", &[image])?;
        fs::create_dir_all(dir).map_err(|e| e.to_string())?;
        let device = run("losetup", &["--find", "--show", image])?;
        let mounted = run("mount.exfat-fuse", &[&device, dir.to_str().unwrap()]);
        if let Err(e) = mounted {
            let _ = run("losetup", &["-d", &device]);
            return Err(e);
        }
        Ok(Self { dir: dir.to_path_buf(), device })
    }
}

impl Drop for ExFat {
    fn drop(&mut self) {
        let _ = run("umount", &[self.dir.to_str().unwrap()]);
        let _ = run("losetup", &["-d", &self.device]);
    }
}

/// The plan entry of `target` in `sync --json`.
fn plan<'a>(plans: &'a Value, target: &str) -> &'a Value {
    plans.as_array().unwrap().iter().find(|p| p["target"] == target).unwrap_or_else(|| panic!("{plans:#}"))
}

/// `(action, name, mode)` of each step of a plan entry.
fn steps(p: &Value) -> Vec<(String, String, String)> {
    let s = |v: &Value| v.as_str().unwrap_or_default().to_owned();
    p["actions"].as_array().unwrap().iter().map(|a| (s(&a["action"]), s(&a["name"]), s(&a["mode"]))).collect()
}

/// The ownership record of the folder `dir`.
fn record_of(w: &World, dir: &Path) -> Value {
    let real = fs::canonicalize(dir).unwrap();
    fs::read_dir(w.sd().join("targets"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| serde_json::from_str::<Value>(&fs::read_to_string(p).unwrap()).unwrap())
        .find(|r| Path::new(r["folder"].as_str().unwrap()) == real)
        .unwrap_or_else(|| panic!("no record of {}", dir.display()))
}

#[test]
fn link_mode_on_a_file_system_without_links_copies_says_why_and_does_not_flap() {
    let w = World::new();
    let claude = w.home().join(".claude/skills");
    let _volume = match ExFat::mount(w.tmp.path(), &claude) {
        Ok(v) => v,
        Err(why) => {
            let why = format!("an exFAT volume could not be mounted: {why}");
            skilldeck_testkit::require("exfat", &why, "scripts/setup installs exfatprogs and exfat-fuse");
            return;
        }
    };
    fs::create_dir_all(w.home().join(".codex/skills")).unwrap();
    w.import("alpha", "one");
    let script = w.tmp.path().join("src/alpha/run.sh");
    fs::write(&script, "#!/bin/sh\necho hi\n").unwrap();
    w.expect(&["import", w.tmp.path().join("src/alpha").to_str().unwrap()], 0);

    let text = w.expect(&["sync", "--mode", "link", "--dry-run"], 0);
    assert!(!text.contains("copied instead"), "a dry run cannot know yet: {text}");
    let out = w.cmd(&["sync", "--mode", "link"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    let note = format!("note: links cannot be made in {} (", claude.display());
    assert!(text.contains(&note) && text.contains("); copied instead"), "{text}");

    // Copies there, links in Codex's folder on an ordinary file system.
    let alpha = claude.join("alpha");
    let m = fs::symlink_metadata(&alpha).unwrap();
    assert!(m.is_dir() && !m.file_type().is_symlink());
    assert_eq!(fs::read(alpha.join("run.sh")).unwrap(), b"#!/bin/sh\necho hi\n");
    assert!(fs::read_to_string(alpha.join("SKILL.md")).unwrap().contains("one"));
    assert!(fs::symlink_metadata(w.home().join(".codex/skills/alpha")).unwrap().file_type().is_symlink());
    let rec = record_of(&w, &claude);
    assert_eq!(rec["skills"]["alpha"]["mode"], "copy", "{rec:#}");
    assert!(rec["skills"]["alpha"].get("export").is_none(), "{rec:#}");
    assert!(rec["no_links"].as_str().is_some_and(|s| !s.is_empty()), "{rec:#}");
    let in_claude = w.states(".claude/skills");
    assert!(in_claude.values().all(|s| s == "in-sync"), "{in_claude:?}");

    // The next link-mode sync: nothing to do there, and it says why they are copies.
    let before = tree(&claude, &[]);
    let plans = w.json(&["sync", "--mode", "link", "--json"], 0);
    let c = plan(&plans, "claude-code");
    assert_eq!(steps(c), Vec::new(), "{c:#}");
    assert!(c["link_fallback"].as_str().unwrap().contains("copied instead"));
    assert_eq!(tree(&claude, &[]), before);
    assert_eq!(steps(plan(&plans, "codex")), Vec::new());

    // A new revision: replaced there as a copy, linked in Codex.
    w.import("alpha", "two");
    let plans = w.json(&["sync", "--mode", "link", "--json"], 0);
    let expect = |mode: &str| vec![("replace".to_owned(), "alpha".to_owned(), mode.to_owned())];
    assert_eq!(steps(plan(&plans, "claude-code")), expect("copy"));
    assert_eq!(steps(plan(&plans, "codex")), expect("link"));
    assert!(fs::read_to_string(alpha.join("SKILL.md")).unwrap().contains("two"));
    let leftovers: Vec<String> =
        fs::read_dir(&claude).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert!(!leftovers.iter().any(|n| n.starts_with(".skilldeck")), "{leftovers:?}");
}
