//! The harness of the sources tests: a scratch Skilldeck home and HOME, the `skilldeck` binary
//! run against them with no tokens and no Git configuration of the user's, and fixture
//! repositories of skills.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs, dead_code)]

use serde_json::Value;
use skilldeck_sources::testing::GitRepo;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_skilldeck");

pub struct Env {
    pub tmp: tempfile::TempDir,
}

impl Env {
    pub fn new() -> Self {
        Self { tmp: tempfile::tempdir().unwrap() }
    }

    pub fn home(&self) -> PathBuf {
        self.tmp.path().join("home")
    }

    /// The HOME the binary runs with, where agent tools keep their folders.
    pub fn user(&self) -> PathBuf {
        self.tmp.path().join("user")
    }

    pub fn config(&self, text: &str) {
        fs::create_dir_all(self.home()).unwrap();
        fs::write(self.home().join("config.toml"), text).unwrap();
    }

    /// Runs the binary with a scratch home, no tokens, no Git configuration of the user's.
    pub fn run_with(&self, args: &[&str], vars: &[(&str, &str)]) -> Output {
        self.run_in(self.tmp.path(), args, vars)
    }

    /// [`Env::run_with`] in the folder `dir`.
    pub fn run_in(&self, dir: &Path, args: &[&str], vars: &[(&str, &str)]) -> Output {
        Command::new(BIN)
            .args(args)
            .env("SKILLDECK_HOME", self.home())
            .env("HOME", self.tmp.path().join("user"))
            .env_remove("GITHUB_TOKEN")
            .env_remove("GH_TOKEN")
            .env_remove("GITLAB_TOKEN")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("SKILLDECK_SOURCES_TIMEOUT_SECS", "10")
            .env_remove("XDG_STATE_HOME")
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("CODEX_HOME")
            .env_remove("XDG_CONFIG_HOME")
            .envs(vars.iter().copied())
            .current_dir(dir)
            .output()
            .unwrap()
    }

    /// Stdout and stderr of a run that must end with `code`.
    pub fn expect_with(&self, args: &[&str], vars: &[(&str, &str)], code: i32) -> (String, String) {
        self.expect_in(self.tmp.path(), args, vars, code)
    }

    /// [`Env::expect_with`] in the folder `dir`.
    pub fn expect_in(&self, dir: &Path, args: &[&str], vars: &[(&str, &str)], code: i32) -> (String, String) {
        let out = self.run_in(dir, args, vars);
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(code), "{args:?}\nstdout:\n{stdout}\nstderr:\n{stderr}");
        (stdout, stderr)
    }

    pub fn expect(&self, args: &[&str], code: i32) -> (String, String) {
        self.expect_with(args, &[], code)
    }

    pub fn json(&self, args: &[&str], code: i32) -> Value {
        let (stdout, _) = self.expect(args, code);
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"))
    }

    /// The user skills on disk, sorted.
    pub fn user_skills(&self) -> Vec<String> {
        let Ok(dir) = fs::read_dir(self.home().join("skills/user")) else { return Vec::new() };
        let mut names: Vec<String> = dir
            .filter_map(|e| e.ok())
            .filter(|e| e.path().join("SKILL.md").is_file())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    pub fn sources_json(&self) -> Option<Value> {
        let bytes = fs::read(self.home().join("sources.json")).ok()?;
        Some(serde_json::from_slice(&bytes).unwrap())
    }

    pub fn history(&self, name: &str) -> Vec<Value> {
        self.json(&["history", name, "--json"], 0).as_array().unwrap().clone()
    }

    /// Asserts nothing came into the store from a source.
    pub fn assert_nothing_written(&self) {
        assert_eq!(self.user_skills(), Vec::<String>::new(), "no skill stored");
        assert_eq!(self.sources_json(), None, "no sources.json");
    }

    /// A local skill folder `src/<name>`.
    pub fn local_skill(&self, name: &str, body: &str) -> PathBuf {
        let d = self.tmp.path().join("src").join(name);
        fs::create_dir_all(&d).unwrap();
        fs::write(d.join("SKILL.md"), format!("---\nname: {name}\ndescription: A local {name}.\n---\n{body}\n"))
            .unwrap();
        d
    }
}

pub fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

pub fn skill_md(name: &str) -> String {
    format!("---\nname: {name}\ndescription: The {name} skill, for tests.\n---\n\n# {name}\n")
}

/// A repository with `skills/pdf` (and a reference file) and `skills/docx`, committed.
pub fn two_skills() -> (GitRepo, String) {
    let repo = GitRepo::new().unwrap();
    repo.skill("skills/pdf", "pdf").unwrap();
    repo.write("skills/pdf/reference.md", "# tables\n").unwrap();
    repo.skill("skills/docx", "docx").unwrap();
    repo.write("README.md", "# skills\n").unwrap();
    let commit = repo.commit("two skills").unwrap();
    (repo, commit)
}

/// The event of a history entry when it says where it came from.
pub fn sourced(entry: &Value) -> &Value {
    assert_eq!(entry["event"]["kind"], "sourced", "{entry}");
    &entry["event"]["source"]
}

/// A folder to serve over HTTP holding `owner/repo.git`, the fixture's bare repository.
pub fn served_as_owner_repo(repo: &GitRepo) -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    fs::create_dir_all(root.path().join("owner")).unwrap();
    std::os::unix::fs::symlink(repo.bare(), root.path().join("owner/repo.git")).unwrap();
    root
}

/// The names of the skills of an `outdated --json` answer in `state`.
pub fn names_in(outdated: &Value, state: &str) -> Vec<String> {
    outdated["skills"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["state"] == state)
        .map(|s| s["name"].as_str().unwrap().to_owned())
        .collect()
}
