//! `skilldeck new`, `edit` and `diff` end to end, with `EDITOR` set to scripts that edit,
//! fail, empty the file or break it: the store changes only by whole new revisions, and a
//! draft that cannot be stored is kept for the next `edit`.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_skilldeck");

struct Env {
    tmp: tempfile::TempDir,
}

impl Env {
    fn new() -> Self {
        Self { tmp: tempfile::tempdir().unwrap() }
    }

    fn home(&self) -> PathBuf {
        self.tmp.path().join("home")
    }

    /// An editor: a shell script run as `EDITOR`, given the file as `$1`.
    fn editor(&self, name: &str, body: &str) -> String {
        let path = self.tmp.path().join(name);
        fs::write(&path, format!("#!/bin/sh\nset -e\n{body}\n")).unwrap();
        use std::os::unix::fs::PermissionsExt as _;
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
        path.display().to_string()
    }

    fn run(&self, editor: Option<&str>, args: &[&str]) -> Output {
        let mut c = Command::new(BIN);
        c.args(args).env("SKILLDECK_HOME", self.home()).env_remove("VISUAL").env_remove("EDITOR");
        if let Some(e) = editor {
            c.env("EDITOR", e);
        }
        c.output().unwrap()
    }

    fn expect(&self, editor: Option<&str>, args: &[&str], code: i32) -> String {
        let out = self.run(editor, args);
        let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert_eq!(out.status.code(), Some(code), "{args:?}: {text}");
        text
    }

    fn live(&self, name: &str) -> PathBuf {
        self.home().join("skills/user").join(name)
    }

    fn revision(&self, name: &str) -> String {
        fs::read_to_string(self.live(name).join(".version")).unwrap().trim().to_owned()
    }

    fn draft(&self, name: &str) -> PathBuf {
        self.home().join("drafts/user").join(name)
    }
}

fn read(p: &Path) -> String {
    fs::read_to_string(p).unwrap()
}

#[test]
fn new_makes_v1_from_a_template_and_refuses_bad_or_taken_names() {
    let env = Env::new();
    let out =
        env.expect(None, &["new", "release-notes", "--template", "scripts", "--description", "Writes notes: short"], 0);
    assert!(out.contains("Created release-notes v:1"), "{out}");
    assert_eq!(env.revision("release-notes"), "1");
    assert!(read(&env.live("release-notes").join("SKILL.md")).contains("description: \"Writes notes: short\""));
    assert!(env.live("release-notes/scripts/run.sh").is_file());
    let v = env.expect(None, &["validate", env.live("release-notes").to_str().unwrap()], 0);
    assert!(v.contains("ok"), "{v}");

    let out = env.expect(None, &["new", "release-notes"], 2);
    assert!(out.contains("already a skill named release-notes") && out.contains("skilldeck edit"), "{out}");
    let out = env.expect(None, &["new", "Bad Name"], 2);
    assert!(out.contains("only lowercase a-z, 0-9 and `-`"), "{out}");
    let out = env.expect(None, &["new", "x", "--template", "nope"], 2);
    assert!(out.contains("instructions, scripts, references"), "{out}");
}

#[test]
fn an_edit_becomes_one_revision_and_diff_shows_it() {
    let env = Env::new();
    env.expect(None, &["new", "notes", "--description", "Takes notes."], 0);
    let before = read(&env.live("notes/SKILL.md"));
    let append = env.editor("append.sh", "printf 'One more step.\\n' >> \"$1\"");
    let out = env.expect(Some(&append), &["edit", "notes"], 0);
    assert!(out.contains("Stored notes v:2 (was v:1)"), "{out}");
    assert!(!env.draft("notes").exists(), "a saved draft is gone");
    assert_eq!(read(&env.live("notes/SKILL.md")), format!("{before}One more step.\n"));

    // A new file through the PATH argument, as its own revision.
    let write = env.editor("write.sh", "printf 'The detail.\\n' > \"$1\"");
    env.expect(Some(&write), &["edit", "notes", "references/detail.md"], 0);
    assert_eq!(env.revision("notes"), "3");

    let d = env.expect(None, &["diff", "notes", "1", "2"], 0);
    assert!(d.contains("--- v:1/SKILL.md") && d.contains("+++ v:2/SKILL.md") && d.contains("+One more step."), "{d}");
    let d = env.expect(None, &["diff", "notes"], 0);
    assert!(d.contains("+++ v:3/references/detail.md") && d.contains("+The detail."), "{d}");
    let j: serde_json::Value =
        serde_json::from_slice(&env.run(None, &["diff", "notes", "1", "--json"]).stdout).unwrap();
    let paths: Vec<&str> = j["files"].as_array().unwrap().iter().map(|f| f["path"].as_str().unwrap()).collect();
    assert_eq!(paths, ["SKILL.md", "references/detail.md"]);

    // Restoring v:1 brings its bytes back exactly.
    env.expect(None, &["restore", "notes", "1"], 0);
    assert_eq!(read(&env.live("notes/SKILL.md")), before);
    assert!(!env.live("notes/references/detail.md").exists());
}

#[test]
fn a_failing_editor_an_empty_file_and_a_broken_skill_store_nothing_and_keep_the_draft() {
    let env = Env::new();
    env.expect(None, &["new", "notes"], 0);
    let v1 = read(&env.live("notes/SKILL.md"));

    let fail = env.editor("fail.sh", "printf 'half' >> \"$1\"\nexit 3");
    let out = env.expect(Some(&fail), &["edit", "notes"], 2);
    assert!(out.contains("exited with status 3") && out.contains("draft is kept"), "{out}");
    assert_eq!(env.revision("notes"), "1");
    assert!(read(&env.draft("notes").join("files/SKILL.md")).ends_with("half"), "the draft keeps the edit");

    // The next edit reopens that draft; emptying SKILL.md is refused and the draft stays.
    let empty = env.editor("empty.sh", ": > \"$1\"");
    let out = env.expect(Some(&empty), &["edit", "notes"], 2);
    assert!(out.contains("Reopening your draft of notes"), "{out}");
    assert!(out.contains("empty or missing SKILL.md") && out.contains("draft is kept"), "{out}");
    assert_eq!(env.revision("notes"), "1");
    assert_eq!(read(&env.live("notes/SKILL.md")), v1);

    // A skill that no longer validates: its problems, exit 1, nothing stored, the draft kept.
    let broken = env.editor("broken.sh", "printf -- '---\\nname: other\\ndescription: d\\n---\\nbody\\n' > \"$1\"");
    let out = env.expect(Some(&broken), &["edit", "notes"], 1);
    assert!(out.contains("has problems; nothing was stored") && out.contains("SKILL.md:2"), "{out}");
    assert_eq!(env.revision("notes"), "1");
    assert!(env.draft("notes").is_dir());
    // ... until it is stored on purpose.
    let keep = env.editor("keep.sh", "true");
    let out = env.expect(Some(&keep), &["edit", "notes", "--force"], 0);
    assert!(out.contains("Stored notes v:2"), "{out}");

    // No editor set: a clear message, nothing changes.
    let out = env.expect(None, &["edit", "notes"], 2);
    assert!(out.contains("$EDITOR"), "{out}");
    env.expect(None, &["edit", "notes", "--discard"], 0);
    assert!(!env.draft("notes").exists());
}

#[test]
fn a_draft_whose_skill_changed_meanwhile_is_not_saved_over_it() {
    let env = Env::new();
    env.expect(None, &["new", "notes"], 0);
    let fail = env.editor("fail.sh", "printf 'mine\\n' >> \"$1\"\nexit 1");
    env.expect(Some(&fail), &["edit", "notes"], 2);
    // Meanwhile the stored skill moves on (another edit, an import, an update).
    let theirs = env.editor("theirs.sh", "printf 'theirs\\n' >> \"$1\"");
    let home = env.home();
    let other = Command::new(BIN)
        .args(["edit", "notes", "--force"])
        .env("SKILLDECK_HOME", &home)
        .env("EDITOR", &theirs)
        .output()
        .unwrap();
    // (That `edit` reopened the same draft: it stored "mine" and "theirs" as v:2.)
    assert!(other.status.success(), "{}", String::from_utf8_lossy(&other.stderr));
    assert_eq!(env.revision("notes"), "2");

    // A draft begun from v:2, then v:3 stored from the terminal: the draft's save is refused.
    env.expect(Some(&fail), &["edit", "notes"], 2);
    env.expect(None, &["restore", "notes", "1"], 0);
    let keep = env.editor("keep.sh", "true");
    let out = env.expect(Some(&keep), &["edit", "notes"], 2);
    assert!(out.contains("changed in the store since this draft began from v:2 (it is now v:3)"), "{out}");
    assert!(out.contains("skilldeck diff notes"), "{out}");
    assert_eq!(env.revision("notes"), "3");
    assert!(env.draft("notes").is_dir(), "the draft is kept");
}
