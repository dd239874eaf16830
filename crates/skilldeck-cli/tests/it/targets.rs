//! `skilldeck targets` and `skilldeck sync` end to end, against a fake HOME holding the agent
//! tools' folders: states, foreign and unrelated files never touched, drift never lost,
//! dry runs, no-op re-syncs, removals, concurrent syncs, linked and unwritable targets.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use serde_json::Value;
use std::fs;
use std::os::unix::fs::PermissionsExt as _;
use std::path::PathBuf;
use std::process::{Command, Output};

use crate::world;

use world::{states, tree};

const BIN: &str = env!("CARGO_BIN_EXE_skilldeck");

/// A fake HOME, a SKILLDECK_HOME and a folder of skill sources, all in one temp folder.
struct World {
    tmp: tempfile::TempDir,
}

impl World {
    fn new() -> Self {
        let w = Self { tmp: tempfile::tempdir().unwrap() };
        fs::create_dir_all(w.home()).unwrap();
        w
    }
    fn home(&self) -> PathBuf {
        self.tmp.path().join("home")
    }
    fn sd(&self) -> PathBuf {
        self.tmp.path().join("sd")
    }
    fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new(BIN);
        c.args(args)
            .env("HOME", self.home())
            .env("SKILLDECK_HOME", self.sd())
            .env_remove("CODEX_HOME")
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("XDG_CONFIG_HOME");
        c
    }
    fn run(&self, args: &[&str]) -> Output {
        self.cmd(args).output().unwrap()
    }
    fn expect(&self, args: &[&str], code: i32) -> String {
        let out = self.run(args);
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert_eq!(out.status.code(), Some(code), "{args:?}\n{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
        stdout
    }
    fn json(&self, args: &[&str], code: i32) -> Value {
        serde_json::from_str(&self.expect(args, code)).unwrap()
    }
    /// Imports a skill `name` whose SKILL.md body is `body`.
    fn import(&self, name: &str, body: &str) {
        let d = self.tmp.path().join("src").join(name);
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(d.join("references")).unwrap();
        fs::write(d.join("SKILL.md"), format!("---\nname: {name}\ndescription: The {name} skill.\n---\n{body}\n"))
            .unwrap();
        fs::write(d.join("references/notes.md"), format!("notes of {name}")).unwrap();
        self.expect(&["import", d.to_str().unwrap()], 0);
    }
    /// Writes a foreign skill folder (one Skilldeck did not write).
    fn foreign(&self, folder: &str, name: &str, body: &str) {
        let d = self.home().join(folder).join(name);
        fs::create_dir_all(&d).unwrap();
        fs::write(d.join("SKILL.md"), body).unwrap();
    }
    fn config(&self, text: &str) {
        fs::create_dir_all(self.sd()).unwrap();
        fs::write(self.sd().join("config.toml"), text).unwrap();
    }
}

/// The plan entry of `target` in `sync --json`.
fn plan<'a>(plans: &'a Value, target: &str) -> &'a Value {
    plans
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["target"] == target)
        .unwrap_or_else(|| panic!("no {target} in {plans:#}"))
}

/// `(action, name)` of each step of a plan entry.
fn steps(p: &Value) -> Vec<(String, String)> {
    p["actions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (a["action"].as_str().unwrap().to_owned(), a["name"].as_str().unwrap().to_owned()))
        .collect()
}

const BUNDLED: [&str; 4] = ["change-review", "commit-messages", "skill-authoring", "workspace-notes"];

/// The written skills' subtrees in `folder` (relative to HOME), to leave out of a tree hash.
fn written(folder: &str, names: &[&str]) -> Vec<String> {
    names.iter().map(|n| format!("{folder}/{n}")).collect()
}

#[test]
fn states_foreign_untouched_drift_kept_and_removal() {
    let w = World::new();
    // Claude Code with a foreign skill, a foreign one named like ours, an unrelated file.
    w.foreign(".claude/skills", "theirs", "---\nname: theirs\ndescription: mine\n---\n");
    w.foreign(".claude/skills", "alpha", "---\nname: alpha\ndescription: a clash\n---\n");
    fs::write(w.home().join(".claude/skills/README.txt"), "not a skill").unwrap();
    fs::write(w.home().join(".claude/settings.json"), "{}").unwrap();
    fs::create_dir_all(w.home().join(".codex/skills")).unwrap();
    fs::create_dir_all(w.home().join("projects/notes")).unwrap();
    fs::write(w.home().join("projects/notes/todo.md"), "todo").unwrap();
    w.import("alpha", "ours");
    w.import("beta", "first");
    let claude = w.home().join(".claude/skills");
    let codex = w.home().join(".codex/skills");

    let t = w.json(&["targets", "--json"], 0);
    let s = states(&t, &claude);
    assert_eq!((s["theirs"].as_str(), s["alpha"].as_str(), s["beta"].as_str()), ("foreign", "foreign", "missing"));
    assert_eq!(states(&t, &codex)["beta"], "missing");

    let mut ours = written(".claude/skills", &["beta"]);
    ours.extend(written(".claude/skills", &BUNDLED));
    ours.push(".codex/skills".to_owned());
    let ours: Vec<&str> = ours.iter().map(String::as_str).collect();
    let before = tree(&w.home(), &ours);
    let plans = w.json(&["sync", "--json"], 0);
    let c = plan(&plans, "claude-code");
    let skip = c["actions"].as_array().unwrap().iter().find(|a| a["name"] == "alpha").unwrap();
    assert_eq!((skip["action"].as_str(), skip["reason"].as_str()), (Some("skip"), Some("foreign")));
    assert!(skip["theirs"].as_str().unwrap().starts_with("sha256:"));
    assert_ne!(skip["theirs"], skip["ours"]);
    assert!(steps(c).contains(&("write".to_owned(), "beta".to_owned())));
    assert_eq!(tree(&w.home(), &ours), before, "a foreign or unrelated file changed");
    assert_eq!(
        fs::read_to_string(claude.join("alpha/SKILL.md")).unwrap(),
        "---\nname: alpha\ndescription: a clash\n---\n"
    );
    assert!(!claude.join("beta/.version").exists() && !claude.join("beta/.revision.json").exists());
    assert!(fs::read_to_string(codex.join("alpha/SKILL.md")).unwrap().contains("ours"));

    let t = w.json(&["targets", "--json"], 0);
    assert_eq!(states(&t, &claude)["beta"], "in-sync");
    assert_eq!(states(&t, &claude)["alpha"], "foreign");

    // A new revision in the store: outdated there, replaced by the next sync.
    w.import("beta", "second");
    assert_eq!(states(&w.json(&["targets", "--json"], 0), &claude)["beta"], "outdated");
    let plans = w.json(&["sync", "--json"], 0);
    assert!(steps(plan(&plans, "claude-code")).contains(&("replace".to_owned(), "beta".to_owned())));
    assert!(fs::read_to_string(claude.join("beta/SKILL.md")).unwrap().contains("second"));

    // Edited in place: drifted, reported and kept, never overwritten silently.
    fs::write(claude.join("beta/SKILL.md"), "my edit").unwrap();
    assert_eq!(states(&w.json(&["targets", "--json"], 0), &claude)["beta"], "drifted");
    w.import("beta", "third");
    let plans = w.json(&["sync", "--json"], 0);
    let a = action(&plans, "claude-code", "beta");
    assert_eq!((a["action"].as_str(), a["reason"].as_str()), (Some("skip"), Some("drifted")));
    assert_eq!(fs::read_to_string(claude.join("beta/SKILL.md")).unwrap(), "my edit");
    assert!(fs::read_to_string(codex.join("beta/SKILL.md")).unwrap().contains("third"));
    // --overwrite keeps the edit in History first (v:4), restores v:3 as v:5, then replaces.
    let plans = w.json(&["sync", "--json", "--overwrite", "beta"], 0);
    let a = action(&plans, "claude-code", "beta");
    assert_eq!(a["action"], "replace");
    assert_eq!(a["keep"], serde_json::json!({"how": "history", "scope": "user", "edit": 4, "restore": 5, "from": 3}));
    assert_eq!(fs::read_to_string(w.sd().join("history/user/beta/4/SKILL.md")).unwrap(), "my edit");
    assert!(fs::read_to_string(claude.join("beta/SKILL.md")).unwrap().contains("third"));

    let out = w.run(&["sync", "--overwrite", "beta"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("--overwrite beta: it is not drifted"));
    // Deleted in the store: ours and unchanged, so removed; foreign ones stay.
    w.expect(&["delete", "beta"], 0);
    assert_eq!(states(&w.json(&["targets", "--json"], 0), &claude)["beta"], "unselected");
    let plans = w.json(&["sync", "--json"], 0);
    assert!(steps(plan(&plans, "claude-code")).contains(&("remove".to_owned(), "beta".to_owned())));
    assert!(!claude.join("beta").exists() && !codex.join("beta").exists());
    assert!(claude.join("theirs/SKILL.md").is_file() && claude.join("alpha/SKILL.md").is_file());
    // A disabled skill is removed too, where it is ours.
    w.expect(&["disable", "alpha"], 0);
    w.json(&["sync", "--json"], 0);
    assert!(!codex.join("alpha").exists());
    assert!(claude.join("alpha/SKILL.md").is_file(), "the foreign alpha must stay");
    let names: Vec<String> =
        fs::read_dir(&claude).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert!(!names.iter().any(|n| n.starts_with(".skilldeck")), "leftovers: {names:?}");
}

#[test]
fn dry_run_writes_nothing_and_a_second_sync_is_a_no_op() {
    let w = World::new();
    fs::create_dir_all(w.home().join(".claude")).unwrap();
    fs::create_dir_all(w.home().join(".gemini/skills")).unwrap();
    w.import("alpha", "a");
    // Open the store once so its own first-run writes are not counted.
    w.expect(&["list"], 0);
    let home_before = tree(&w.home(), &[]);
    // The parse cache is written by any listing once a skill's files are a few seconds old
    // (the settle window), so on a loaded machine by this dry run too: it is no state.
    let sd_before = tree(&w.sd(), &["cache"]);
    let dry = w.json(&["sync", "--dry-run", "--json"], 0);
    assert_eq!(tree(&w.home(), &[]), home_before, "--dry-run wrote to a target");
    assert_eq!(tree(&w.sd(), &["cache"]), sd_before, "--dry-run wrote to Skilldeck's home");
    assert!(!w.home().join(".claude/skills").exists());
    let human = w.expect(&["sync", "--dry-run"], 0);
    assert!(human.contains("write   alpha r1"), "{human}");
    // The real sync does exactly what the dry run said.
    let real = w.json(&["sync", "--json"], 0);
    for target in ["claude-code", "gemini-cli"] {
        assert_eq!(steps(plan(&dry, target)), steps(plan(&real, target)));
        assert_eq!(plan(&real, target)["done"].as_u64(), Some(5));
    }
    let after = tree(&w.home(), &[]);
    let again = w.json(&["sync", "--json"], 0);
    for p in again.as_array().unwrap() {
        assert!(p["actions"].as_array().unwrap().is_empty(), "{p:#}");
        assert_eq!(p["unchanged"].as_array().unwrap().len(), 5);
    }
    assert_eq!(tree(&w.home(), &[]), after, "a sync with nothing to do changed a file");
    // A file touched but not edited stays in sync, and the record learns its new stamp.
    let records = || -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(w.sd().join("targets"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .map(|p| fs::read_to_string(p).unwrap())
            .collect();
        v.sort();
        v
    };
    let before = records();
    let md = w.home().join(".claude/skills/alpha/SKILL.md");
    fs::File::options().write(true).open(&md).unwrap().set_modified(std::time::SystemTime::UNIX_EPOCH).unwrap();
    assert_eq!(states(&w.json(&["targets", "--json"], 0), &w.home().join(".claude/skills"))["alpha"], "in-sync");
    let touched = w.json(&["sync", "--json"], 0);
    assert!(touched.as_array().unwrap().iter().all(|p| p["actions"].as_array().unwrap().is_empty()));
    assert_ne!(records(), before, "the new stamp was not recorded");
    let settled = records();
    w.json(&["sync", "--json"], 0);
    assert_eq!(records(), settled);
}

#[test]
fn a_linked_target_folder_is_synced_through_the_link_once() {
    let w = World::new();
    let shared = w.home().join("dotfiles/skills");
    fs::create_dir_all(&shared).unwrap();
    fs::create_dir_all(w.home().join(".claude")).unwrap();
    fs::create_dir_all(w.home().join(".agents")).unwrap();
    std::os::unix::fs::symlink(&shared, w.home().join(".claude/skills")).unwrap();
    std::os::unix::fs::symlink(&shared, w.home().join(".agents/skills")).unwrap();
    w.import("alpha", "a");
    let plans = w.json(&["sync", "--json"], 0);
    assert!(fs::symlink_metadata(w.home().join(".claude/skills")).unwrap().file_type().is_symlink());
    assert!(shared.join("alpha/SKILL.md").is_file());
    let claude = plan(&plans, "claude-code");
    let agents = plan(&plans, "agents");
    // Whichever is listed first writes; the other is the same folder.
    let (first, second) = if claude["same_as"].is_null() { (claude, agents) } else { (agents, claude) };
    assert_eq!(first["done"].as_u64(), Some(5));
    assert!(second["same_as"].as_str().is_some());
    let t = w.json(&["targets", "--json"], 0);
    assert_eq!(states(&t, &w.home().join(".claude/skills"))["alpha"], "in-sync");
    assert_eq!(states(&t, &w.home().join(".agents/skills"))["alpha"], "in-sync");
    let again = w.json(&["sync", "--json"], 0);
    assert!(again.as_array().unwrap().iter().all(|p| p["actions"].as_array().unwrap().is_empty()));
}

#[test]
fn an_unwritable_target_and_a_file_where_a_folder_should_be_are_reported_and_the_others_sync() {
    let w = World::new();
    fs::create_dir_all(w.home().join(".claude")).unwrap();
    w.import("alpha", "a");
    let blocker = w.home().join("not-a-folder");
    fs::write(&blocker, "a file").unwrap();
    // An unwritable folder: a read-only mode stops a normal user; root writes through modes,
    // so as root a kernel folder that refuses new entries stands in.
    let ro = if rustix::process::geteuid().is_root() {
        PathBuf::from("/sys/fs")
    } else {
        let d = w.home().join("readonly");
        fs::create_dir_all(&d).unwrap();
        fs::set_permissions(&d, fs::Permissions::from_mode(0o555)).unwrap();
        d
    };
    w.config(&format!(
        "[targets.ro]\npath = \"{}\"\nskills = [\"alpha\"]\n[targets.blocked]\npath = \"{}\"\n",
        ro.display(),
        blocker.display()
    ));
    let plans = w.json(&["sync", "--json"], 2);
    assert_eq!(plan(&plans, "ro")["error_code"], "target_read_only", "{plans:#}");
    assert!(plan(&plans, "ro")["error"].as_str().unwrap().contains("cannot be written"));
    assert_eq!(plan(&plans, "blocked")["error_code"], "target_not_a_folder");
    assert_eq!(plan(&plans, "claude-code")["done"].as_u64(), Some(5));
    assert!(w.home().join(".claude/skills/alpha/SKILL.md").is_file());
    assert_eq!(fs::read_to_string(&blocker).unwrap(), "a file");
    // The dry run says the same before writing anything, where access(2) can tell (root's
    // writes are refused only when tried).
    if !rustix::process::geteuid().is_root() {
        let dry = w.json(&["sync", "--dry-run", "--json", "ro"], 2);
        assert_eq!(plan(&dry, "ro")["error_code"], "target_read_only");
    }
}

#[test]
fn two_syncs_at_once_write_each_skill_once_and_agree() {
    let w = World::new();
    fs::create_dir_all(w.home().join(".claude")).unwrap();
    fs::create_dir_all(w.home().join(".codex")).unwrap();
    for i in 0..30 {
        w.import(&format!("s{i:02}"), &"x".repeat(20_000));
    }
    let runs: Vec<_> = (0..2).map(|_| w.cmd(&["sync", "--json"]).spawn_output()).collect();
    let outs: Vec<Value> =
        runs.into_iter().map(|h| serde_json::from_slice(&h.join().unwrap().unwrap().stdout).unwrap()).collect();
    for target in ["claude-code", "codex"] {
        let writes: usize =
            outs.iter().map(|o| steps(plan(o, target)).iter().filter(|(a, _)| a == "write").count()).sum();
        assert_eq!(writes, 34, "each skill written exactly once to {target}");
    }
    let t = w.json(&["targets", "--json"], 0);
    for dir in [".claude/skills", ".codex/skills"] {
        let s = states(&t, &w.home().join(dir));
        assert_eq!(s.len(), 34);
        assert!(s.values().all(|v| v == "in-sync"), "{s:?}");
        let hidden = fs::read_dir(w.home().join(dir))
            .unwrap()
            .filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().starts_with('.'))
            .count();
        assert_eq!(hidden, 0);
    }
}

#[test]
fn project_folders_and_config_narrowing() {
    let w = World::new();
    fs::create_dir_all(w.home().join(".claude")).unwrap();
    let project = w.home().join("proj");
    fs::create_dir_all(project.join(".github/skills")).unwrap();
    w.import("alpha", "a");
    w.import("beta", "b");
    w.config("[targets.claude-code]\nskills = [\"beta\"]\n");
    let plans = w.json(&["sync", "--json", "--project", project.to_str().unwrap()], 0);
    let names: Vec<String> = fs::read_dir(w.home().join(".claude/skills"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, vec!["beta".to_owned()]);
    assert!(project.join(".claude/skills/beta/SKILL.md").is_file());
    // Copilot is not installed, but the project already has its folder: it is synced.
    assert!(project.join(".github/skills/alpha/SKILL.md").is_file(), "{plans:#}");
    // The other readers of config.toml still take it, and an edit by them keeps [targets].
    w.expect(&["budget", "900"], 0);
    let again = w.json(&["sync", "--json", "--project", project.to_str().unwrap()], 0);
    assert!(again.as_array().unwrap().iter().all(|p| p["actions"].as_array().unwrap().is_empty()), "{again:#}");
    let unknown = w.run(&["sync", "nope"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("no target named \"nope\""));
}

#[test]
fn a_target_takes_skills_by_tag_and_never_excluded_ones() {
    let w = World::new();
    fs::create_dir_all(w.home().join(".claude")).unwrap();
    for (name, tags) in [("alpha", "tags: [review]\n"), ("beta", "metadata:\n  tags: [review, docs]\n"), ("gamma", "")]
    {
        let d = w.tmp.path().join("src").join(name);
        fs::create_dir_all(&d).unwrap();
        fs::write(d.join("SKILL.md"), format!("---\nname: {name}\ndescription: The {name} skill.\n{tags}---\nBody.\n"))
            .unwrap();
        w.expect(&["import", d.to_str().unwrap()], 0);
    }
    w.config("[targets.claude-code]\ntags = [\"review\"]\nexclude = [\"beta\"]\n");
    w.expect(&["sync"], 0);
    let names: Vec<String> = fs::read_dir(w.home().join(".claude/skills"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, vec!["alpha".to_owned()], "tagged, and not excluded");
    let targets = w.json(&["targets", "--json"], 0);
    let claude = targets.as_array().unwrap().iter().find(|t| t["id"] == "claude-code").unwrap();
    assert_eq!(claude["folders"][0]["takes"], serde_json::json!(["alpha"]));
    // Naming a skill adds it to the tagged ones.
    w.config("[targets.claude-code]\ntags = [\"review\"]\nskills = [\"gamma\"]\n");
    w.expect(&["sync"], 0);
    assert!(w.home().join(".claude/skills/gamma/SKILL.md").is_file());
    assert!(w.home().join(".claude/skills/beta/SKILL.md").is_file());
}

/// Runs a command on a thread, so two can run at once.
trait SpawnOutput {
    fn spawn_output(self) -> std::thread::JoinHandle<std::io::Result<Output>>;
}

impl SpawnOutput for Command {
    fn spawn_output(mut self) -> std::thread::JoinHandle<std::io::Result<Output>> {
        std::thread::spawn(move || self.output())
    }
}

#[test]
fn a_sync_killed_at_any_point_leaves_only_our_skills_whole_and_the_next_finishes() {
    let w = World::new();
    fs::create_dir_all(w.home().join(".claude")).unwrap();
    let claude = w.home().join(".claude/skills");
    w.foreign(".claude/skills", "theirs", "not ours");
    w.import("alpha", "one");
    w.import("beta", "one");
    w.json(&["sync", "--json"], 0);
    for (round, point) in ["targets-staged", "targets-recorded", "targets-renamed-one"].iter().enumerate() {
        let body = format!("round {round}");
        w.import("alpha", &body);
        w.import("beta", &body);
        w.import(&format!("new{round}"), &body);
        let out = w.cmd(&["sync"]).env("SKILLDECK_TEST_CRASH_AT", point).output().unwrap();
        assert!(!out.status.success(), "{point}: the sync was not stopped");
        // Every skill there is whole: the old revision or the new one, and known as ours.
        let s = states(&w.json(&["targets", "--json"], 0), &claude);
        assert_eq!(s["theirs"], "foreign");
        for name in ["alpha", "beta"] {
            assert!(["in-sync", "outdated"].contains(&s[name].as_str()), "{point}: {name} is {}", s[name]);
            let text = fs::read_to_string(claude.join(name).join("SKILL.md")).unwrap();
            assert!(text.contains(&body) || text.contains("one") || text.contains("round"), "{point}: {text}");
            assert!(claude.join(name).join("references/notes.md").is_file(), "{point}: {name} is not whole");
        }
        assert!(s.values().all(|v| v != "drifted"), "{point}: {s:?}");
        // The next sync finishes the job and cleans up.
        w.json(&["sync", "--json"], 0);
        let s = states(&w.json(&["targets", "--json"], 0), &claude);
        assert!(s.iter().all(|(n, v)| v == "in-sync" || n == "theirs"), "{point}: {s:?}");
        assert!(fs::read_to_string(claude.join("alpha/SKILL.md")).unwrap().contains(&body));
        let hidden: Vec<String> = fs::read_dir(&claude)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with('.'))
            .collect();
        assert!(hidden.is_empty(), "{point}: leftovers {hidden:?}");
    }
    assert_eq!(fs::read_to_string(claude.join("theirs/SKILL.md")).unwrap(), "not ours");
}

/// The action the plan for `target` takes on skill `name`.
fn action(plans: &Value, target: &str, name: &str) -> Value {
    plan(plans, target)["actions"].as_array().unwrap().iter().find(|a| a["name"] == name).unwrap().clone()
}
