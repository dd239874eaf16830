//! The `skilldeck` binary end to end: commands, JSON shapes, exit codes, concurrency, crashes.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use serde_json::{Value, json};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_skilldeck");

/// A temp SKILLDECK_HOME and a folder for sources.
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

    fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new(BIN);
        c.args(args).env("SKILLDECK_HOME", self.home()).env_remove("SKILLDECK_TEST_CRASH_AT");
        c
    }

    fn run(&self, args: &[&str]) -> Output {
        self.cmd(args).output().unwrap()
    }

    /// Runs and expects `code`; returns stdout.
    fn expect(&self, args: &[&str], code: i32) -> String {
        let out = self.run(args);
        assert_eq!(
            out.status.code(),
            Some(code),
            "{args:?}\nstdout: {}\nstderr: {}",
            text(&out.stdout),
            text(&out.stderr)
        );
        text(&out.stdout)
    }

    fn json(&self, args: &[&str]) -> Value {
        serde_json::from_str(&self.expect(args, 0)).unwrap()
    }

    /// Writes a skill folder `src/<dir>` with a SKILL.md and a reference.
    fn skill(&self, dir: &str, front: &str, body: &str) -> PathBuf {
        let d = self.tmp.path().join("src").join(dir);
        fs::create_dir_all(d.join("references")).unwrap();
        fs::write(d.join("SKILL.md"), format!("---\n{front}---\n{body}\n")).unwrap();
        fs::write(d.join("references/guide.md"), "guide").unwrap();
        d
    }
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

#[test]
fn first_run_lists_the_bundled_skills() {
    let env = Env::new();
    let list = env.json(&["list", "--json"]);
    let names: Vec<&str> = list.as_array().unwrap().iter().map(|e| e["name"].as_str().unwrap()).collect();
    assert_eq!(names, vec!["change-review", "commit-messages", "skill-authoring", "workspace-notes"]);
    for e in list.as_array().unwrap() {
        assert_eq!(
            (e["scope"].as_str(), e["revision"].as_u64(), e["version"].as_str()),
            (Some("system"), Some(1), Some("1"))
        );
        assert_eq!((e["valid"].as_bool(), e["shadowed"].as_bool()), (Some(true), Some(false)));
        assert!(e["digest"].as_str().unwrap().starts_with("sha256:"));
        assert_eq!(e["diagnostics"], json!([]));
    }
    // A second start installs nothing again.
    env.json(&["list", "--json"]);
    assert_eq!(fs::read_to_string(env.home().join("skills/system/skill-authoring/.version")).unwrap(), "1\n");
    // A bundled skill the user deleted stays deleted.
    env.expect(&["delete", "commit-messages"], 0);
    let list = env.json(&["list", "--json"]);
    assert_eq!(list.as_array().unwrap().len(), 3);
}

#[test]
fn import_show_cat_export_and_the_listing() {
    let env = Env::new();
    let src = env.skill(
        "pdf",
        "name: pdf\ndescription: Extract text and tables from PDF files\nauthor: me\n",
        "# PDF\n\nRun it.",
    );
    fs::write(src.join(".version"), "41").unwrap();
    let out = env.json(&["import", p(&src), "--json"]);
    assert_eq!(out["name"], "pdf");
    assert_eq!(out["scope"], "user");
    assert_eq!(out["revision"], 1);
    assert_eq!((out["unchanged"].as_bool(), out["valid"].as_bool()), (Some(false), Some(true)));
    assert_eq!(out["diagnostics"][0]["code"], "field_unknown");
    let digest = out["digest"].as_str().unwrap().to_owned();
    // The same files again: no new revision.
    let again = env.json(&["import", p(&src), "--json"]);
    assert_eq!((again["revision"].as_u64(), again["unchanged"].as_bool()), (Some(1), Some(true)));
    assert!(env.expect(&["import", p(&src)], 0).contains("pdf in user: unchanged, still v:1"));
    // Changed, then changed back: two revisions, the second with the first's digest.
    fs::write(src.join("notes.txt"), "draft").unwrap();
    assert_eq!(env.json(&["import", p(&src), "--json"])["revision"], 2);
    fs::remove_file(src.join("notes.txt")).unwrap();
    assert_eq!(env.json(&["import", p(&src), "--json"])["revision"], 3);

    let show = env.json(&["show", "pdf", "--json"]);
    let files: Vec<&str> = show["files"].as_array().unwrap().iter().map(|f| f["path"].as_str().unwrap()).collect();
    assert_eq!(files, vec!["SKILL.md", "references/guide.md"], ".version never appears");
    assert_eq!(show["digest"].as_str().unwrap(), digest, "identical content, identical digest");
    assert_eq!(show["diagnostics"][0]["code"], "field_unknown");

    assert_eq!(env.expect(&["cat", "pdf"], 0), "# PDF\n\nRun it.\n");
    assert_eq!(env.expect(&["cat", "pdf", "references/guide.md"], 0), "guide");
    let err = env.run(&["cat", "pdf", "../../etc/passwd"]);
    assert_eq!(err.status.code(), Some(2));
    assert!(text(&err.stderr).contains("bad path"), "{}", text(&err.stderr));

    let prompt = env.expect(&["prompt"], 0);
    assert!(prompt.starts_with("### Skills: `view_skill`\n\nAvailable Skills:\n"), "{prompt}");
    assert!(prompt.contains("- **pdf** (v:3): Extract text and tables from PDF files\n"), "{prompt}");
    let pj = env.json(&["prompt", "--json", "--budget", "60"]);
    assert!(pj["estimated_tokens"].as_u64().unwrap() <= 60, "{pj}");
    assert!(!pj["shortened"].as_array().unwrap().is_empty());

    let dest = env.tmp.path().join("out");
    env.expect(&["export", "pdf", p(&dest)], 0);
    assert!(dest.join("SKILL.md").exists() && !dest.join(".version").exists());
    let zip = env.tmp.path().join("pdf.zip");
    env.expect(&["export", "pdf", p(&zip)], 0);
    // The exported archive holds the same files: importing it back changes nothing.
    let back = env.json(&["import", p(&zip), "--json"]);
    assert_eq!((back["revision"].as_u64(), back["unchanged"].as_bool()), (Some(3), Some(true)));
    assert_eq!(env.expect(&["export", "pdf", p(&dest)], 2), "", "refuses a non-empty folder");

    // Never into the live store, never through a symbolic link (dangling or not).
    let live = env.home().join("skills/user/pdf/copy");
    let err = env.run(&["export", "pdf", p(&live)]);
    assert_eq!(err.status.code(), Some(2));
    assert!(text(&err.stderr).contains("is inside Skilldeck's data folder"), "{}", text(&err.stderr));
    assert!(!live.exists());
    let target = env.tmp.path().join("elsewhere");
    for (link, dest) in [("dangling", target.clone()), ("to-store", env.home().join("skills/user/pdf"))] {
        let l = env.tmp.path().join(link);
        std::os::unix::fs::symlink(&dest, &l).unwrap();
        for out in [l.clone(), l.with_extension("zip")] {
            if out.extension().is_some() {
                std::os::unix::fs::symlink(&dest, &out).unwrap();
            }
            let err = env.run(&["export", "pdf", p(&out)]);
            assert_eq!(err.status.code(), Some(2), "{out:?}");
            assert!(text(&err.stderr).contains("is a symbolic link"), "{}", text(&err.stderr));
        }
    }
    assert!(!target.exists());
    assert_eq!(env.json(&["history", "pdf", "--json"]).as_array().unwrap().len(), 3, "the store is untouched");
}

#[test]
fn delete_history_restore() {
    let env = Env::new();
    let src = env.skill("notes", "name: notes\ndescription: one\n", "b");
    env.expect(&["import", p(&src)], 0);
    fs::write(src.join("SKILL.md"), "---\nname: notes\ndescription: two\n---\nb\n").unwrap();
    env.expect(&["import", p(&src)], 0);
    let out = env.expect(&["delete", "notes"], 0);
    assert!(out.contains("skilldeck restore notes 2"), "{out}");
    assert!(!env.json(&["list", "--json"]).to_string().contains("\"notes\""));
    let h = env.json(&["history", "notes", "--json"]);
    let revs: Vec<u64> = h.as_array().unwrap().iter().map(|e| e["revision"].as_u64().unwrap()).collect();
    assert_eq!(revs, vec![2, 1]);
    assert_eq!(env.json(&["restore", "notes", "1", "--json"])["revision"], 3);
    assert_eq!(env.json(&["show", "notes", "--json"])["meta"]["description"], "one");
    let h = env.json(&["history", "notes", "--json"]);
    assert_eq!(h[0]["event"], json!({"kind": "restore", "from": 1}));
    assert_eq!(h[0]["current"], true);
    let missing = env.run(&["restore", "notes", "99"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(text(&missing.stderr).contains("revision 99"), "{}", text(&missing.stderr));
}

#[test]
fn validate_exit_codes_and_json() {
    let env = Env::new();
    let good = env.skill("good", "name: good\ndescription: fine\n", "b");
    let bad = env.skill("bad", "name: Bad_Name\ndescription: x\n", "b");
    let extra = env.skill("extra", "name: extra\ndescription: x\ntags: [a]\n", "b");
    assert!(env.expect(&["validate", p(&good)], 0).contains("ok"));
    assert_eq!(
        env.expect(&["validate", p(&extra)], 0).lines().next().unwrap(),
        format!("{}: ok (1 warning)", p(&extra))
    );
    env.expect(&["validate", p(&extra), "--strict"], 1);
    env.expect(&["validate", p(&good), p(&bad)], 1);
    // A lowercase skill.md is read, with a warning; never "has no SKILL.md".
    let lower = env.skill("lower", "name: lower\ndescription: fine\n", "b");
    fs::rename(lower.join("SKILL.md"), lower.join("skill.md")).unwrap();
    let said = env.expect(&["validate", p(&lower)], 0);
    assert!(said.contains("ok (1 warning)") && said.contains("the file is named skill.md"), "{said}");
    let out: Value = serde_json::from_str(&env.expect(&["validate", "--json", p(&bad.join("SKILL.md"))], 1)).unwrap();
    let codes: Vec<&str> =
        out[0]["diagnostics"].as_array().unwrap().iter().map(|d| d["code"].as_str().unwrap()).collect();
    assert_eq!(codes, vec!["name_invalid", "name_dir_mismatch"]);
    assert_eq!(out[0]["diagnostics"][0]["line"], 2);
    assert_eq!(out[0]["diagnostics"][0]["severity"], "error");
    env.expect(&["validate", "/no/such/dir"], 2);
    env.expect(&["validate"], 2);
    env.expect(&["frobnicate"], 2);
    assert!(!env.home().exists(), "validate never touches the store");
}

#[test]
fn invalid_skills_are_listed_with_diagnostics() {
    let env = Env::new();
    let src = env.skill("broken", "name: broken\n", "b");
    let out = env.expect(&["import", p(&src)], 0);
    assert!(out.contains("INVALID") && out.contains("description_missing"), "{out}");
    let list = env.json(&["list", "--json", "--scope", "user"]);
    assert_eq!(list[0]["name"], "broken");
    assert_eq!(list[0]["valid"], false);
    assert_eq!(list[0]["diagnostics"][0]["code"], "description_missing");
    assert!(!env.expect(&["prompt"], 0).contains("broken"), "invalid skills are never listed to a model");
    let human = env.expect(&["list"], 0);
    assert!(human.contains("broken") && human.contains("INVALID (1 error)"), "{human}");
}

#[test]
fn user_shadows_system() {
    let env = Env::new();
    let src = env.skill("change-review", "name: change-review\ndescription: my own review rules\n", "b");
    env.expect(&["import", p(&src)], 0);
    let list = env.json(&["list", "--json"]);
    let rows: Vec<(&str, &str, bool)> = list
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["name"] == "change-review")
        .map(|e| (e["scope"].as_str().unwrap(), e["description"].as_str().unwrap(), e["shadowed"].as_bool().unwrap()))
        .collect();
    assert_eq!(rows[0].0, "system");
    assert!(rows[0].2);
    assert_eq!(rows[1], ("user", "my own review rules", false));
    assert!(env.expect(&["prompt"], 0).contains("- **change-review** (v:1): my own review rules"));
}

#[test]
fn hostile_imports_are_refused_with_a_clear_error() {
    let env = Env::new();
    let src = env.skill("pdf", "name: pdf\ndescription: d\n", "b");
    std::os::unix::fs::symlink("/etc/passwd", src.join("passwd")).unwrap();
    let out = env.run(&["import", p(&src)]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("source_hostile") && err.contains("symbolic links are refused"), "{err}");
    assert!(!env.home().join("skills/user/pdf").exists());

    // Over a limit: the reason is said once, not once per layer of the error.
    let many = env.skill("many", "name: many\ndescription: d\n", "b");
    for i in 0..5001 {
        fs::write(many.join(format!("f{i}")), "").unwrap();
    }
    let out = env.run(&["import", p(&many)]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.matches("files").count(), 1, "said once: {err}");
    assert_eq!(err.matches("nothing was imported").count(), 1, "{err}");
}

#[test]
fn two_processes_importing_one_skill_get_revisions_1_to_40() {
    let env = Env::new();
    env.expect(&["list"], 0);
    let revs: Vec<u64> = std::thread::scope(|sc| {
        let workers: Vec<_> = (0..2)
            .map(|w| {
                let env = &env;
                sc.spawn(move || {
                    // Each import brings other files: the same ones again would be unchanged.
                    (0..20)
                        .map(|k| {
                            let body = format!("{w}-{k}");
                            let src = env.skill(&format!("w{w}-{k}/race"), "name: race\ndescription: d\n", &body);
                            env.json(&["import", p(&src), "--json"])["revision"].as_u64().unwrap()
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers.into_iter().flat_map(|w| w.join().unwrap()).collect()
    });
    let mut sorted = revs.clone();
    sorted.sort();
    assert_eq!(sorted, (1..=40).collect::<Vec<_>>(), "no gaps, no repeats: {revs:?}");
    let h = env.json(&["history", "race", "--json"]);
    let logged: Vec<u64> = h.as_array().unwrap().iter().map(|e| e["revision"].as_u64().unwrap()).collect();
    assert_eq!(logged, (1..=40).rev().collect::<Vec<_>>());
    assert_eq!(fs::read_to_string(env.home().join("skills/user/race/.version")).unwrap(), "40\n");
}

/// The content tag every file of a revision carries, or a panic if the tree mixes two.
fn tree_tag(dir: &Path) -> String {
    let mut tags = std::collections::BTreeSet::new();
    for e in fs::read_dir(dir.join("references")).unwrap() {
        tags.insert(fs::read_to_string(e.unwrap().path()).unwrap());
    }
    assert_eq!(tags.len(), 1, "a mix of revisions: {tags:?}");
    assert_eq!(fs::read_dir(dir.join("references")).unwrap().count(), 400, "a partial tree");
    tags.into_iter().next().unwrap()
}

fn big_skill(env: &Env, tag: &str) -> PathBuf {
    let d = env.skill("crash", "name: crash\ndescription: d\n", tag);
    for i in 0..400 {
        fs::write(d.join(format!("references/{i}.md")), format!("{tag}{}", "x".repeat(2000))).unwrap();
    }
    fs::remove_file(d.join("references/guide.md")).unwrap();
    d
}

/// The hidden entries of the user scope folder, and the files of its journal (which notes
/// each staging entry before it is made) as `journal/<name>`.
fn leftovers(env: &Env) -> Vec<String> {
    let user = env.home().join("skills/user");
    let mut out: Vec<String> = fs::read_dir(&user)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with('.') && n != ".journal")
        .collect();
    if let Ok(journal) = fs::read_dir(user.join(".journal")) {
        out.extend(journal.map(|e| format!("journal/{}", e.unwrap().file_name().to_string_lossy())));
    }
    out
}

#[test]
fn a_crash_at_either_point_leaves_one_whole_revision() {
    let env = Env::new();
    let src = big_skill(&env, "A");
    env.expect(&["import", p(&src)], 0);
    let src = big_skill(&env, "B");
    let live = env.home().join("skills/user/crash");
    for (point, expect_rev, expect_tag) in [("staged", 1, "A"), ("swapped", 2, "B")] {
        let out = env.cmd(&["import", p(&src)]).env("SKILLDECK_TEST_CRASH_AT", point).output().unwrap();
        assert!(!out.status.success(), "the crash point must fire at {point}");
        let left = leftovers(&env);
        assert!(left.iter().any(|n| n.starts_with(".staging-")), "the crash leaves staging behind at {point}");
        assert!(left.iter().any(|n| n.starts_with("journal/")), "noted in the journal at {point}: {left:?}");
        let list = env.json(&["list", "--json", "--scope", "user"]);
        assert_eq!(list[0]["revision"], expect_rev, "after a crash at {point}");
        assert!(leftovers(&env).is_empty(), "the next start cleans up: {:?}", leftovers(&env));
        assert!(tree_tag(&live).starts_with(expect_tag));
    }
    assert!(env.home().join("history/user/crash/1/references/0.md").exists(), "the replaced revision is kept");
    // The revision a writer killed right after the swap never logged keeps its own date and
    // digest, and what made it.
    let digest_b = Env::new().json(&["import", p(&src), "--json"])["digest"].as_str().unwrap().to_owned();
    let digest_a =
        Env::new().json(&["import", p(&big_skill(&env, "A")), "--json"])["digest"].as_str().unwrap().to_owned();
    let h = env.json(&["history", "crash", "--json"]);
    assert_eq!(
        dated(&h),
        vec![(2, "upload".to_owned(), digest_b, true, true), (1, "upload".to_owned(), digest_a, false, true)]
    );
}

/// A history as `(revision, event, short digest, current, dated)`, dates checked to be there.
fn dated(history: &Value) -> Vec<(u64, String, String, bool, bool)> {
    history
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let long = e["digest"].as_str().unwrap_or_else(|| panic!("no digest: {e}"));
            (
                e["revision"].as_u64().unwrap(),
                e["event"]["kind"].as_str().unwrap().to_owned(),
                long[..7 + 12].to_owned(),
                e["current"].as_bool().unwrap(),
                e["at"].as_str().is_some_and(|at| at.starts_with("20")),
            )
        })
        .collect()
}

#[test]
fn an_import_whose_log_cannot_be_written_reports_the_live_revision() {
    let env = Env::new();
    let src = env.skill("pdf", "name: pdf\ndescription: d\n", "one");
    let first = env.json(&["import", p(&src), "--json"]);
    let log = env.home().join("history/user/pdf/log.jsonl");
    fs::remove_file(&log).unwrap();
    fs::create_dir(&log).unwrap();
    fs::write(src.join("SKILL.md"), "---\nname: pdf\ndescription: d\n---\ntwo\n").unwrap();
    let out = env.run(&["import", p(&src), "--json"]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let second: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(second["revision"], 2);
    assert!(text(&out.stderr).starts_with("warning: the history log was not updated"), "{}", text(&out.stderr));
    let digest = |v: &Value| v["digest"].as_str().unwrap().to_owned();
    assert_eq!(
        dated(&env.json(&["history", "pdf", "--json"])),
        vec![
            (2, "upload".to_owned(), digest(&second), true, true),
            (1, "upload".to_owned(), digest(&first), false, true)
        ]
    );
}

#[test]
fn a_kill_at_a_random_moment_leaves_one_whole_revision() {
    let env = Env::new();
    let a = big_skill(&env, "A");
    env.expect(&["import", p(&a)], 0);
    let a = big_skill(&env, "A2");
    let started = std::time::Instant::now();
    env.expect(&["import", p(&a)], 0);
    // Kill points spread over the whole length of an import, and a little past it.
    let span = started.elapsed().as_micros() as u64 * 3 / 2;
    let live = env.home().join("skills/user/crash");
    let mut outcomes = std::collections::BTreeSet::new();
    let mut prev_rev = 2u64;
    for i in 0..12u64 {
        let tag = format!("T{i}-");
        let src = big_skill(&env, &tag);
        let mut child = env.cmd(&["import", p(&src)]).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
        std::thread::sleep(std::time::Duration::from_micros(span * (i + 1) / 12));
        let _ = child.kill();
        let status = child.wait().unwrap();
        eprintln!("span {span}us kill at {}us: {status:?}", span * (i + 1) / 12);
        env.expect(&["list"], 0);
        assert!(leftovers(&env).is_empty());
        let got = tree_tag(&live);
        let rev: u64 = fs::read_to_string(live.join(".version")).unwrap().trim().parse().unwrap();
        outcomes.insert((status.success(), got.starts_with(&tag)));
        if status.success() {
            assert!(got.starts_with(&tag), "a finished import must show its revision");
        }
        let expected_rev = if got.starts_with(&tag) { prev_rev + 1 } else { prev_rev };
        assert_eq!(rev, expected_rev, "the revision matches the tree it names");
        prev_rev = rev;
        // Every revision that went live is in history, dated, with the digest of its tree.
        let h = dated(&env.json(&["history", "crash", "--json"]));
        let revs: Vec<u64> = h.iter().map(|e| e.0).collect();
        assert_eq!(revs, (1..=rev).rev().collect::<Vec<_>>());
        assert!(h.iter().all(|e| e.1 == "upload" && e.4), "{h:?}");
        let live_digest = env.json(&["show", "crash", "--json"])["digest"].as_str().unwrap().to_owned();
        assert_eq!((h[0].2.as_str(), h[0].3), (live_digest.as_str(), true));
    }
    eprintln!("outcomes (finished, new tree): {outcomes:?}");
}

#[test]
fn view_runs_the_real_tool_and_prints_the_result_json() {
    let env = Env::new();
    let src =
        env.skill("pdf", "name: pdf\ndescription: Extract text from PDF files\n", "# PDF\n\nSee references/guide.md.");
    env.expect(&["import", p(&src)], 0);
    let ws = env.tmp.path().join("ws");
    fs::create_dir_all(&ws).unwrap();
    let out = env.expect(&["view", "pdf", "--workspace", p(&ws), "--turn", "t1"], 0);
    assert_eq!(out.lines().count(), 1, "one line of JSON, as the model gets it");
    assert_eq!(
        serde_json::from_str::<Value>(&out).unwrap(),
        json!({"skillName": "pdf", "path": null, "version": "1", "content": "# PDF\n\nSee references/guide.md.\n"})
    );
    assert_eq!(fs::read_to_string(ws.join(".skills/pdf/references/guide.md")).unwrap(), "guide");
    assert!(!ws.join(".skills/pdf/.version").exists());
    let r: Value =
        serde_json::from_str(&env.expect(&["view", "pdf", "references/guide.md", "--workspace", p(&ws)], 0)).unwrap();
    assert_eq!(r["content"], "guide");
    // Errors are data: exit 0 with the error object.
    let r: Value =
        serde_json::from_str(&env.expect(&["view", "pdf", "../../etc/passwd", "--workspace", p(&ws)], 0)).unwrap();
    assert_eq!(r["error"]["code"], "skill_path_invalid");
    let r: Value = serde_json::from_str(&env.expect(&["view", "pfd", "--workspace", p(&ws)], 0)).unwrap();
    assert_eq!(r["error"]["code"], "skill_not_found");
    assert!(r["error"]["message"].as_str().unwrap().contains("Did you mean pdf?"));
    // A workspace that is not there is a usage error, not a result.
    env.expect(&["view", "pdf", "--workspace", "/no/such/ws"], 2);
}

#[test]
fn view_with_one_turn_id_mounts_once() {
    let env = Env::new();
    let src = env.skill("pdf", "name: pdf\ndescription: d\n", "b");
    env.expect(&["import", p(&src)], 0);
    let ws = env.tmp.path().join("ws");
    fs::create_dir_all(&ws).unwrap();
    env.expect(&["view", "pdf", "--workspace", p(&ws), "--turn", "t1"], 0);
    fs::write(ws.join(".skills/pdf/references/guide.md"), "edited").unwrap();
    let same = env.expect(&["view", "pdf", "references/guide.md", "--workspace", p(&ws), "--turn", "t1"], 0);
    assert!(same.contains("\"content\":\"edited\""), "{same}");
    let next = env.expect(&["view", "pdf", "references/guide.md", "--workspace", p(&ws), "--turn", "t2"], 0);
    assert!(next.contains("\"content\":\"guide\""), "{next}");
}

#[test]
fn tool_spec_follows_the_listing() {
    let env = Env::new();
    let spec = env.json(&["tool-spec", "--json"]);
    assert_eq!(spec["name"], "view_skill");
    assert_eq!(
        spec["parameters"]["properties"]["name"]["enum"],
        json!(["change-review", "commit-messages", "skill-authoring", "workspace-notes"])
    );
    let broken = env.skill("broken", "name: broken\n", "b");
    env.expect(&["import", p(&broken)], 0);
    let spec = env.json(&["tool-spec", "--json"]);
    assert!(!spec.to_string().contains("\"broken\""), "invalid skills are not in the enum");
    assert!(env.expect(&["tool-spec"], 0).contains("name: one of change-review, commit-messages"));
}

#[test]
fn a_skill_switched_off_is_kept_but_never_listed_or_viewable() {
    let env = Env::new();
    let listed = |env: &Env| -> Vec<String> {
        let spec = env.json(&["tool-spec", "--json"]);
        spec["parameters"]["properties"]["name"]["enum"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_owned())
            .collect()
    };
    assert!(listed(&env).contains(&"commit-messages".to_owned()));
    let said = env.expect(&["disable", "commit-messages"], 0);
    assert!(said.contains("is now off for agents"), "{said}");
    assert!(env.expect(&["disable", "commit-messages"], 0).contains("already off"));
    assert!(!env.expect(&["prompt"], 0).contains("commit-messages"));
    assert!(!listed(&env).contains(&"commit-messages".to_owned()), "the enum follows the listing");
    let ws = env.tmp.path().join("ws");
    fs::create_dir_all(&ws).unwrap();
    let view: Value =
        serde_json::from_str(&env.expect(&["view", "commit-messages", "--workspace", p(&ws)], 0)).unwrap();
    assert_eq!(view["error"]["code"], "skill_not_found");
    let row =
        env.json(&["list", "--json"]).as_array().unwrap().iter().find(|e| e["name"] == "commit-messages").cloned();
    assert_eq!(row.unwrap()["enabled"], false, "still in the store, marked off");
    assert!(env.expect(&["list"], 0).contains("off for agents"));
    // Unknown names get suggestions; switching back on restores the listing.
    let err = env.run(&["disable", "commit-message"]);
    assert_eq!(err.status.code(), Some(2));
    assert!(text(&err.stderr).contains("did you mean commit-messages"), "{}", text(&err.stderr));
    assert!(env.expect(&["enable", "commit-messages"], 0).contains("offered to agents again"));
    assert!(env.expect(&["prompt"], 0).contains("**commit-messages**"));
    // A broken config.toml is reported, never rewritten.
    fs::write(env.home().join("config.toml"), "listing = 3\n").unwrap();
    let err = env.run(&["disable", "commit-messages"]);
    assert_eq!(err.status.code(), Some(2));
    assert!(text(&err.stderr).contains("config.toml"), "{}", text(&err.stderr));
    assert_eq!(fs::read_to_string(env.home().join("config.toml")).unwrap(), "listing = 3\n");
}

/// A collection of five skills in nested folders: one invalid, one with a link (refused).
fn small_collection(env: &Env) -> PathBuf {
    for (dir, front) in [
        ("coll/skills/alpha", "name: alpha\ndescription: The first\n"),
        ("coll/skills/beta", "name: beta\ndescription: The second\n"),
        ("coll/writing/gamma", "name: gamma\ndescription: The third\n"),
        ("coll/writing/broken", "name: broken\n"),
        ("coll/skills/linked", "name: linked\ndescription: d\n"),
    ] {
        env.skill(dir, front, "b");
    }
    let root = env.tmp.path().join("src/coll");
    std::os::unix::fs::symlink("/etc/passwd", root.join("skills/linked/passwd")).unwrap();
    root
}

#[test]
fn a_collection_imports_skill_by_skill_with_a_summary_and_again_unchanged() {
    let env = Env::new();
    let coll = small_collection(&env);
    let dry = env.expect(&["import", p(&coll), "--dry-run"], 2);
    assert!(dry.contains("new        alpha would become v:1 (from skills/alpha)"), "{dry}");
    assert!(dry.contains("refused    skills/linked: refused \"passwd\""), "{dry}");
    assert!(dry.ends_with("Would import into user: 4 new, 1 refused; nothing was written.\n"), "{dry}");
    let preview: Value = serde_json::from_str(&env.expect(&["import", p(&coll), "--dry-run", "--json"], 2)).unwrap();
    assert_eq!(preview["items"][0]["location"], "skills/alpha");
    assert_eq!(preview["items"][0]["state"], "new");
    assert_eq!(preview["items"][0]["skill"]["name"], "alpha");
    assert!(!env.home().join("skills/user/alpha").exists(), "a dry run writes nothing");

    let out = env.run(&["import", p(&coll)]);
    let said = text(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "something was refused: {said}");
    assert!(said.contains("imported   alpha as v:1 (sha256:"), "{said}");
    assert!(said.contains("imported   broken as v:1") && said.contains("INVALID (description_missing)"), "{said}");
    assert!(said.contains("[source_hostile]"), "{said}");
    assert!(
        said.ends_with("Into user: imported 3, unchanged 0, invalid but stored 1, refused 1 (1 source_hostile)\n"),
        "{said}"
    );
    let list = env.json(&["list", "--json", "--scope", "user"]);
    let names: Vec<&str> = list.as_array().unwrap().iter().map(|e| e["name"].as_str().unwrap()).collect();
    assert_eq!(names, vec!["alpha", "beta", "broken", "gamma"]);

    // Again, with the link gone: everything unchanged, exit 0, nothing new in history.
    fs::remove_file(coll.join("skills/linked/passwd")).unwrap();
    let out = env.run(&["import", p(&coll), "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let j: Value = serde_json::from_slice(&out.stdout).unwrap();
    let alpha = &j["skills"][0];
    assert_eq!(
        (alpha["name"].as_str(), alpha["state"].as_str(), alpha["revision"].as_u64(), alpha["unchanged"].as_bool()),
        (Some("alpha"), Some("unchanged"), Some(1), Some(true))
    );
    assert_eq!(alpha["scope"], "user");
    assert!(alpha["digest"].as_str().unwrap().starts_with("sha256:"));
    assert_eq!(alpha["valid"], true);
    assert_eq!(
        j["summary"],
        json!({"imported": 1, "unchanged": 4, "invalid_stored": 0, "refused": 0, "paths_refused": 0})
    );
    assert_eq!(env.json(&["history", "alpha", "--json"]).as_array().unwrap().len(), 1);
    let broken = j["skills"].as_array().unwrap().iter().find(|s| s["name"] == "broken").unwrap().clone();
    assert_eq!(
        (broken["valid"].as_bool(), broken["diagnostics"][0]["code"].as_str()),
        (Some(false), Some("description_missing"))
    );
}

#[test]
fn many_paths_import_each_and_a_missing_one_is_said_without_stopping_the_rest() {
    let env = Env::new();
    let one = env.skill("one", "name: one\ndescription: d\n", "b");
    let two = env.skill("two", "name: two\ndescription: d\n", "b");
    let out = env.run(&["import", p(&one), "/no/such/skill", p(&two), "--json"]);
    assert_eq!(out.status.code(), Some(2));
    let j: Value = serde_json::from_slice(&out.stdout).unwrap();
    let got: Vec<(&str, &str)> = j["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["name"].as_str().unwrap(), s["state"].as_str().unwrap()))
        .collect();
    assert_eq!(got, vec![("one", "imported"), ("two", "imported")]);
    assert_eq!(j["errors"][0]["source"], "/no/such/skill");
    assert_eq!(j["errors"][0]["error"]["code"], "source_not_found");
    let said = env.expect(&["import", p(&one), p(&two)], 0);
    assert!(said.contains("unchanged  one, still v:1 (from "), "{said}");
    assert!(said.ends_with("Into user: imported 0, unchanged 2, invalid but stored 0, refused 0\n"), "{said}");
}

#[test]
fn validate_reports_every_path_even_past_a_missing_one() {
    let env = Env::new();
    let good = env.skill("good", "name: good\ndescription: fine\n", "b");
    let bad = env.skill("bad", "name: bad\n", "b");
    let out = env.run(&["validate", "/no/such/dir", p(&good), p(&bad)]);
    assert_eq!(out.status.code(), Some(2));
    let said = text(&out.stdout);
    assert!(said.starts_with("/no/such/dir: cannot be validated: /no/such/dir does not exist"), "{said}");
    assert!(said.contains(&format!("{}: ok", p(&good))) && said.contains(&format!("{}: INVALID", p(&bad))), "{said}");
    let out = env.run(&["validate", "--json", p(&good), "/no/such/dir"]);
    assert_eq!(out.status.code(), Some(2));
    let j: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j[0]["valid"], true);
    assert_eq!(j[0].get("error"), None);
    assert_eq!((j[1]["path"].as_str(), j[1]["valid"].as_bool()), (Some("/no/such/dir"), Some(false)));
    assert_eq!(j[1]["error"]["code"], "source_not_found");
    let j: Value = serde_json::from_str(&env.expect(&["validate", "--json", p(&good)], 0)).unwrap();
    assert!(j.is_array(), "always an array");
}

#[test]
fn prompt_ranks_for_a_request_and_find_searches_every_skill() {
    let env = Env::new();
    let src = env.tmp.path().join("src");
    for i in 0..40 {
        env.skill(
            &format!("report-{i:02}"),
            &format!(
                "name: report-{i:02}\ndescription: Prepare quarterly revenue report {i} with charts and summaries\n"
            ),
            "# Report",
        );
    }
    env.skill(
        "parser-debugging",
        "name: parser-debugging\ndescription: Debug recursive-descent parsers that report wrong line numbers\ndescription_zh: 调试递归下降解析器\n",
        "# Finding the bad token",
    );
    env.expect(&["import", p(&src)], 0);
    let request = "my parser reports wrong line numbers";
    let pj = env.json(&["prompt", "--request", request, "--budget", "300", "--json"]);
    assert_eq!(pj["ranked"], true);
    assert!(pj["estimated_tokens"].as_u64().unwrap() <= 300, "{pj}");
    let first = &pj["skills"][0];
    assert_eq!(
        (first["name"].as_str(), first["rank"].as_u64(), first["shown"].as_str()),
        (Some("parser-debugging"), Some(1), Some("full"))
    );
    let shown: Vec<&str> = pj["skills"].as_array().unwrap().iter().map(|s| s["shown"].as_str().unwrap()).collect();
    assert!(shown.contains(&"name_only"), "{shown:?}");
    let text = env.expect(&["prompt", "--request", request, "--budget", "300"], 0);
    assert!(text.contains("- **parser-debugging** (v:1): Debug recursive-descent parsers"), "{text}");
    assert!(text.trim_end().ends_with("to search all of them."), "{text}");
    // Without a request nothing matches, and the ranking is by name.
    let plain = env.json(&["prompt", "--budget", "300", "--json"]);
    assert_eq!(plain["skills"][0]["name"], "change-review");

    let found = env.json(&["find", "解析器", "--json"]);
    assert_eq!(found["query"], "解析器");
    assert_eq!(found["matches"][0]["name"], "parser-debugging");
    assert_eq!(found["matches"][0]["version"], "v:1");
    assert!(found["matches"][0]["why"].as_str().unwrap().contains("description_zh"), "{found}");
    let lines = env.expect(&["find", "wrong line numbers"], 0);
    assert!(lines.starts_with("parser-debugging (v:1): Debug recursive-descent"), "{lines}");
    assert!(env.expect(&["find", "zzzz"], 0).contains("No skill matches"));
    env.expect(&["find", " "], 2);
}

#[test]
fn a_pinned_skill_stays_in_full_for_any_request_and_config_keeps_its_comments() {
    let env = Env::new();
    env.expect(&["list"], 0);
    let mine = "# my settings\n[listing]\n# small on purpose\nbudget_tokens = 100\n";
    fs::write(env.home().join("config.toml"), mine).unwrap();
    let shown = |env: &Env| -> Vec<(String, String)> {
        env.json(&["prompt", "--request", "review my pull request", "--json"])["skills"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| (s["name"].as_str().unwrap().to_owned(), s["shown"].as_str().unwrap().to_owned()))
            .collect()
    };
    let before = shown(&env);
    assert_ne!(before.first().map(|s| s.0.as_str()), Some("skill-authoring"), "{before:?}");
    assert!(!before.contains(&("skill-authoring".to_owned(), "full".to_owned())), "{before:?}");
    assert!(env.expect(&["pin", "skill-authoring"], 0).contains("is pinned"));
    assert!(env.expect(&["pin", "skill-authoring"], 0).contains("already pinned"));
    let config = fs::read_to_string(env.home().join("config.toml")).unwrap();
    assert!(config.starts_with(mine) && config.contains("pinned = [\"skill-authoring\"]"), "{config}");
    let after = shown(&env);
    assert_eq!(after[0], ("skill-authoring".to_owned(), "full".to_owned()), "{after:?}");
    // Unknown names get suggestions; unpinning gives the place back.
    let err = env.run(&["pin", "skill-authorin"]);
    assert_eq!(err.status.code(), Some(2));
    assert!(text(&err.stderr).contains("did you mean skill-authoring"), "{}", text(&err.stderr));
    assert!(env.expect(&["pin", "--off", "skill-authoring"], 0).contains("no longer pinned"));
    assert_eq!(shown(&env), before);
    assert!(fs::read_to_string(env.home().join("config.toml")).unwrap().contains("# small on purpose\n"));

    // Naming the closest skills in each agent turn: on by default, switched in config.toml.
    assert!(env.expect(&["suggest"], 0).contains("in each turn is on"));
    assert!(env.expect(&["suggest", "off"], 0).contains("is now off"));
    assert!(env.expect(&["suggest", "off"], 0).contains("was already off"));
    assert!(env.expect(&["suggest"], 0).contains("in each turn is off"));
    let config = fs::read_to_string(env.home().join("config.toml")).unwrap();
    assert!(config.starts_with(mine.trim_end()) && config.contains("suggest = false"), "{config}");
    env.expect(&["suggest", "maybe"], 2);
}

/// Writers of config.toml in parallel processes — pins from two loops, team remotes from a
/// third — each read what the one before wrote: no edit is lost, and every command says so.
#[test]
fn parallel_writers_of_config_toml_lose_no_edit() {
    let env = Env::new();
    let names: Vec<String> = (0..40).map(|i| format!("skill-{i:02}")).collect();
    for n in &names {
        env.skill(&format!("many/{n}"), &format!("name: {n}\ndescription: Skill {n}\n"), "b");
    }
    env.expect(&["import", p(&env.tmp.path().join("src/many"))], 0);
    let config = env.home().join("config.toml");
    fs::write(&config, "# mine, kept\n[listing]\nbudget_tokens = 900 # mine too\n").unwrap();
    std::thread::scope(|s| {
        for half in names.chunks(20) {
            let env = &env;
            s.spawn(move || {
                for n in half {
                    env.expect(&["pin", n], 0);
                }
            });
        }
        let env = &env;
        s.spawn(move || {
            for i in 0..15 {
                let name = format!("team{i}");
                let url = format!("s3://bucket-{i}");
                env.expect(&["remote", "add", &name, &url, "--endpoint", "http://127.0.0.1:9"], 0);
            }
        });
    });
    let text = fs::read_to_string(&config).unwrap();
    let doc: toml::Table = text.parse().unwrap();
    let pinned: Vec<&str> = doc["listing"]["pinned"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    for n in &names {
        assert!(pinned.contains(&n.as_str()), "{n} lost:\n{text}");
    }
    assert_eq!(pinned.len(), names.len(), "{text}");
    assert_eq!(doc["remotes"].as_table().unwrap().len(), 15, "{text}");
    assert!(text.starts_with("# mine, kept\n") && text.contains("# mine too"), "{text}");
}

#[test]
fn version_names_the_release_and_the_commit_it_was_built_from() {
    let env = Env::new();
    let out = env.expect(&["--version"], 0);
    let head =
        Command::new("git").args(["rev-parse", "HEAD"]).current_dir(env!("CARGO_MANIFEST_DIR")).output().unwrap();
    assert!(head.status.success(), "the tests run from a Git checkout: {}", text(&head.stderr));
    let head = text(&head.stdout).trim().to_owned();
    let version = env!("CARGO_PKG_VERSION");
    assert!(out.starts_with(&format!("skilldeck {version} (commit {}, ", &head[..12])), "{out}");
    assert!(out.trim_end().ends_with(')'), "{out}");
}
