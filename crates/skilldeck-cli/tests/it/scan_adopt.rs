//! `skilldeck scan` and `skilldeck adopt` against a fake HOME holding several tools' folders:
//! foreign skills, identical copies in two tools, a same-name clash, a symlinked
//! `~/.claude/skills`, copies of old and current revisions, a drifted copy and an invalid one.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use crate::world;

use serde_json::Value;
use std::fs;
use world::{World, tree};

/// The fake HOME described above; `drift` is synced to codex and cursor, then edited in codex.
fn world() -> World {
    let w = World::new();
    let h = w.home();
    fs::create_dir_all(h.join(".agents/skills")).unwrap();
    fs::create_dir_all(h.join(".claude")).unwrap();
    std::os::unix::fs::symlink("../.agents/skills", h.join(".claude/skills")).unwrap();
    for d in [".codex/skills", ".cursor/skills", ".gemini/skills"] {
        fs::create_dir_all(h.join(d)).unwrap();
    }
    w.config("[targets.codex]\nskills = [\"drift\"]\n[targets.cursor]\nskills = [\"drift\"]\n");
    w.import("known", "one");
    w.import("known", "two");
    w.import("drift", "as delivered");
    w.expect(&["sync", "codex", "cursor"], 0);
    fs::write(h.join(".codex/skills/drift/SKILL.md"), World::skill_md("drift", "edited in codex")).unwrap();
    w.put(".agents/skills", "pdf", "pdf tools");
    w.put(".codex/skills", "pdf", "pdf tools");
    w.put(".cursor/skills", "review", "review, the cursor way");
    w.put(".codex/skills", "review", "review, the codex way");
    w.put(".gemini/skills", "known", "one");
    w.put(".cursor/skills", "known", "two");
    fs::create_dir_all(h.join(".gemini/skills/broken")).unwrap();
    fs::write(h.join(".gemini/skills/broken/SKILL.md"), "no frontmatter here\n").unwrap();
    fs::write(h.join(".cursor/skills/notes.txt"), "not a skill").unwrap();
    // From now on every tool gets every skill, but Gemini CLI is switched off.
    w.config("[targets.gemini-cli]\nenabled = false\n");
    w
}

fn skill<'a>(scan: &'a Value, name: &str) -> &'a Value {
    scan["skills"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("{name} in {scan:#}"))
}

/// Each group of a skill as `(relation, [target:state, …])`, in the scan's order.
fn groups(scan: &Value, name: &str) -> Vec<(String, Vec<String>)> {
    skill(scan, name)["copies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            let places = g["places"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| format!("{}:{}", p["target"].as_str().unwrap(), p["state"].as_str().unwrap()))
                .collect();
            (g["relation"].as_str().unwrap().to_owned(), places)
        })
        .collect()
}

fn sorted(mut v: Vec<(String, Vec<String>)>) -> Vec<(String, Vec<String>)> {
    v.sort();
    v
}

fn g(rel: &str, places: &[&str]) -> (String, Vec<String>) {
    (rel.to_owned(), places.iter().map(|p| (*p).to_owned()).collect())
}

#[test]
fn scan_groups_copies_and_tells_each_relation_to_the_store() {
    let w = world();
    let before = tree(&w.home(), &[]);
    let scan = w.json(&["scan", "--json"], 0);
    assert_eq!(tree(&w.home(), &[]), before, "scan wrote into HOME");
    let names: Vec<&str> = scan["skills"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["broken", "drift", "known", "pdf", "review"]);
    // The symlinked ~/.claude/skills is ~/.agents/skills: read once, its copies counted once.
    let agents = scan["folders"].as_array().unwrap().iter().find(|f| f["target"] == "agents").unwrap();
    assert!(agents["same_as"].as_str().unwrap().starts_with("claude-code"), "{agents}");
    assert_eq!(groups(&scan, "pdf"), [g("not-in-store", &["claude-code:foreign", "codex:foreign"])]);
    assert_eq!(
        sorted(groups(&scan, "review")),
        [g("not-in-store", &["codex:foreign"]), g("not-in-store", &["cursor:foreign"])]
    );
    assert_eq!(
        sorted(groups(&scan, "known")),
        [g("same", &["cursor:foreign"]), g("store-newer", &["gemini-cli:foreign"])]
    );
    let known = skill(&scan, "known");
    let newer = known["copies"].as_array().unwrap().iter().find(|c| c["relation"] == "store-newer").unwrap();
    assert_eq!((newer["copy_revision"].as_u64(), newer["revision"].as_u64()), (Some(1), Some(2)));
    assert_eq!(known["store"]["revision"], 2);
    assert_eq!(sorted(groups(&scan, "drift")), [g("same", &["cursor:in-sync"]), g("store-older", &["codex:drifted"])]);
    assert_eq!(groups(&scan, "broken"), [g("not-in-store", &["gemini-cli:foreign"])]);
    let broken = &skill(&scan, "broken")["copies"][0];
    assert_eq!(broken["valid"], false);
    assert_eq!(broken["diagnostics"][0]["code"], "frontmatter_missing");
    assert_eq!(skill(&scan, "pdf")["copies"][0]["valid"], true);
    assert!(skill(&scan, "pdf")["copies"][0]["digest"].as_str().unwrap().starts_with("sha256:"));
    // The text form says the same.
    let text = w.expect(&["scan"], 0);
    assert!(text.contains("an older revision, v:1; the store is at v:2"), "{text}");
    assert!(text.contains("review — 2 different contents"), "{text}");
}

#[test]
fn adopt_all_imports_new_skills_records_known_ones_and_refuses_the_ambiguous() {
    let w = world();
    let before = tree(&w.home(), &[]);
    let history = w.expect(&["history", "known"], 0);
    let out = w.run(&["adopt", "--all", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    // Nothing in the tools' folders changed: adoption writes only Skilldeck's own records.
    assert_eq!(tree(&w.home(), &[]), before);
    // Identical content made no revision.
    assert_eq!(w.revision("known"), 2);
    assert_eq!(w.expect(&["history", "known"], 0), history);
    assert_eq!(w.revision("pdf"), 1);
    let failed: Vec<(&str, &str)> = report["failed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["name"].as_str().unwrap(), f["code"].as_str().unwrap()))
        .collect();
    assert_eq!(failed, [("drift", "adopt_needs_name"), ("review", "adopt_ambiguous")]);
    assert!(stderr.contains(".cursor/skills/review") && stderr.contains(".codex/skills/review"), "{stderr}");
    assert!(stderr.contains("--from TARGET"), "{stderr}");
    assert_eq!(report["skipped"][0]["code"], "adopt_invalid");
    assert!(!w.sd().join("skills/user/broken").exists());
    assert!(!w.sd().join("skills/user/review").exists());
    // The adopted copies are Skilldeck's now: in sync, or outdated where they hold v:1.
    let scan = w.json(&["scan", "--json"], 0);
    assert_eq!(groups(&scan, "pdf"), [g("same", &["claude-code:in-sync", "codex:in-sync"])]);
    // Gemini CLI is switched off: a sync would remove a copy recorded there, so it stays theirs.
    assert_eq!(
        sorted(groups(&scan, "known")),
        [g("same", &["cursor:in-sync"]), g("store-newer", &["gemini-cli:foreign"])]
    );
    let known: Vec<&Value> = report["adopted"].as_array().unwrap().iter().filter(|a| a["name"] == "known").collect();
    assert!(known.iter().any(|a| a["left"][0]["reason"].as_str().unwrap_or("").contains("not chosen")), "{report:#}");
    assert_eq!(sorted(groups(&scan, "review")).len(), 2);
    // Again: nothing imported or recorded, the same refusals.
    let again: Value = serde_json::from_slice(&w.run(&["adopt", "--all", "--json"]).stdout).unwrap();
    for a in again["adopted"].as_array().unwrap() {
        assert!(a["outcome"] != "imported" && a["recorded"].as_array().unwrap().is_empty(), "{again:#}");
    }
    assert_eq!(again["failed"].as_array().unwrap().len(), 2);
    assert_eq!(tree(&w.home(), &[]), before);
}

#[test]
fn adopt_by_name_chooses_with_from_and_a_drifted_copy_becomes_the_next_revision_everywhere() {
    let w = world();
    let err = w.stderr(&["adopt", "review"], 2);
    assert!(err.contains("2 different contents") && err.contains("cursor (") && err.contains("codex ("), "{err}");
    assert!(!w.sd().join("skills/user/review").exists());
    w.expect(&["adopt", "review", "--from", "cursor"], 0);
    assert_eq!(w.revision("review"), 1);
    let stored = fs::read_to_string(w.sd().join("skills/user/review/SKILL.md")).unwrap();
    assert!(stored.contains("the cursor way"));
    let scan = w.json(&["scan", "--json"], 0);
    assert_eq!(sorted(groups(&scan, "review")), [g("different", &["codex:foreign"]), g("same", &["cursor:in-sync"])]);
    // The drifted copy in codex becomes v:2; cursor's v:1 copy is then outdated, and a sync
    // delivers the edit there.
    assert_eq!(w.revision("drift"), 1);
    let out = w.expect(&["adopt", "drift", "--from", "codex"], 0);
    assert!(out.contains("imported as v:2"), "{out}");
    assert_eq!(w.revision("drift"), 2);
    let scan = w.json(&["scan", "--json"], 0);
    assert_eq!(sorted(groups(&scan, "drift")), [g("same", &["codex:in-sync"]), g("store-newer", &["cursor:outdated"])]);
    w.expect(&["sync", "cursor", "codex"], 0);
    let delivered = fs::read_to_string(w.home().join(".cursor/skills/drift/SKILL.md")).unwrap();
    assert!(delivered.contains("edited in codex"), "{delivered}");
    // Adopting what is already ours says so.
    let err = w.stderr(&["adopt", "drift"], 2);
    assert!(err.contains("already Skilldeck's"), "{err}");
    let err = w.stderr(&["adopt", "nothing-here"], 2);
    assert!(err.contains("skilldeck scan"), "{err}");
}
