//! A fake HOME holding agent tools' folders, a SKILLDECK_HOME, and the `skilldeck` binary run
//! against them; and a hash of a whole tree, to prove what a command left untouched.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs, dead_code)]

use serde_json::Value;
use sha2::{Digest as _, Sha256};
use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_skilldeck");

/// `name -> state` in the folder `path` of a `targets --json` answer.
pub fn states(targets: &Value, path: &Path) -> BTreeMap<String, String> {
    let folder = targets
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| t["folders"].as_array().unwrap())
        .find(|f| Path::new(f["path"].as_str().unwrap()) == path)
        .unwrap_or_else(|| panic!("no folder {} in {targets:#}", path.display()));
    folder["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["name"].as_str().unwrap().to_owned(), s["state"].as_str().unwrap().to_owned()))
        .collect()
}

/// A fake HOME, a SKILLDECK_HOME and a folder of skill sources, all in one temp folder.
pub struct World {
    pub tmp: tempfile::TempDir,
}

impl World {
    /// `name -> state` in `folder` (relative to HOME) of `targets --json`.
    pub fn states(&self, folder: &str) -> BTreeMap<String, String> {
        states(&self.json(&["targets", "--json"], 0), &self.home().join(folder))
    }

    pub fn new() -> Self {
        let w = Self { tmp: tempfile::tempdir().unwrap() };
        fs::create_dir_all(w.home()).unwrap();
        w
    }
    pub fn home(&self) -> PathBuf {
        self.tmp.path().join("home")
    }
    pub fn sd(&self) -> PathBuf {
        self.tmp.path().join("sd")
    }
    pub fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new(BIN);
        c.args(args)
            .env("HOME", self.home())
            .env("SKILLDECK_HOME", self.sd())
            .env_remove("CODEX_HOME")
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("XDG_CONFIG_HOME");
        c
    }
    pub fn run(&self, args: &[&str]) -> Output {
        self.cmd(args).output().unwrap()
    }
    /// Runs and checks the exit code; returns stdout, with stderr appended after a `--- stderr` line.
    pub fn expect(&self, args: &[&str], code: i32) -> String {
        let out = self.run(args);
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(code), "{args:?}\n{stdout}\n{stderr}");
        stdout
    }
    pub fn stderr(&self, args: &[&str], code: i32) -> String {
        let out = self.run(args);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(code), "{args:?}\n{}\n{stderr}", String::from_utf8_lossy(&out.stdout));
        stderr
    }
    pub fn json(&self, args: &[&str], code: i32) -> Value {
        let text = self.expect(args, code);
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
    }
    /// A skill folder's SKILL.md text.
    pub fn skill_md(name: &str, body: &str) -> String {
        format!("---\nname: {name}\ndescription: The {name} skill.\n---\n{body}\n")
    }
    /// Imports a skill `name` whose SKILL.md body is `body`.
    pub fn import(&self, name: &str, body: &str) {
        let d = self.tmp.path().join("src").join(name);
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        fs::write(d.join("SKILL.md"), Self::skill_md(name, body)).unwrap();
        self.expect(&["import", d.to_str().unwrap()], 0);
    }
    /// Writes a skill folder `name` with `body` into `folder` (relative to HOME).
    pub fn put(&self, folder: &str, name: &str, body: &str) -> PathBuf {
        let d = self.home().join(folder).join(name);
        fs::create_dir_all(&d).unwrap();
        fs::write(d.join("SKILL.md"), Self::skill_md(name, body)).unwrap();
        d
    }
    pub fn config(&self, text: &str) {
        fs::create_dir_all(self.sd()).unwrap();
        fs::write(self.sd().join("config.toml"), text).unwrap();
    }
    /// The revision of `name` in the user scope.
    pub fn revision(&self, name: &str) -> u64 {
        fs::read_to_string(self.sd().join("skills/user").join(name).join(".version")).unwrap().trim().parse().unwrap()
    }
}

/// Every entry below `root` (links not followed), with its kind, content hash, link target and
/// mode, leaving out the subtrees named in `except` (relative paths).
pub fn tree(root: &Path, except: &[&str]) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
            if except.iter().any(|x| rel == *x || rel.starts_with(&format!("{x}/"))) {
                continue;
            }
            let m = fs::symlink_metadata(&p).unwrap();
            let v = if m.file_type().is_symlink() {
                format!("link {}", fs::read_link(&p).unwrap().display())
            } else if m.is_dir() {
                stack.push(p.clone());
                format!("dir {:o}", m.mode())
            } else {
                format!("file {:o} {:x} mtime {}", m.mode(), Sha256::digest(fs::read(&p).unwrap()), m.mtime_nsec())
            };
            out.insert(rel, v);
        }
    }
    out
}
