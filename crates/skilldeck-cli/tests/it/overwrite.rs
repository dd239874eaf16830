//! `sync --overwrite NAME` end to end: the edited copy becomes a revision in the skill's own
//! History (`drift_kept`, naming the target), the revision the targets get is restored after
//! it, and only then is the target replaced. An invalid edit is kept too; one the store refuses
//! changes nothing; a bundled skill's edit goes to the user scope's History and agents keep the
//! bundled skill; foreign skills are never touched.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use crate::world;

use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use world::{World, tree};

/// The step for skill `name` in the plan of `target`.
fn step(plans: &Value, target: &str, name: &str) -> Value {
    let p = plans.as_array().unwrap().iter().find(|p| p["target"] == target).unwrap();
    p["actions"].as_array().unwrap().iter().find(|a| a["name"] == name).cloned().unwrap_or(Value::Null)
}

/// `(revision, event, current)` of each revision of `name` in `scope`, newest first.
fn history(w: &World, name: &str, scope: &str) -> Vec<(u64, Value, bool)> {
    let h = w.json(&["history", name, "--scope", scope, "--json"], 0);
    h.as_array()
        .unwrap()
        .iter()
        .map(|e| (e["revision"].as_u64().unwrap(), e["event"].clone(), e["current"].as_bool().unwrap()))
        .collect()
}

fn read(p: impl AsRef<Path>) -> String {
    fs::read_to_string(p.as_ref()).unwrap_or_else(|e| panic!("{}: {e}", p.as_ref().display()))
}

#[test]
fn overwrite_keeps_the_edit_as_a_revision_then_restores_what_the_agents_get() {
    let w = World::new();
    w.import("beta", "first");
    w.import("beta", "second");
    fs::create_dir_all(w.home().join(".codex/skills")).unwrap();
    w.put(".claude/skills", "theirs", "someone else's");
    w.expect(&["sync"], 0);
    let claude = w.home().join(".claude/skills");

    // Edited in place: a changed SKILL.md and a new file.
    let edit = World::skill_md("beta", "my edit");
    fs::write(claude.join("beta/SKILL.md"), &edit).unwrap();
    fs::write(claude.join("beta/notes.md"), "mine").unwrap();
    let home_before = tree(&w.home(), &[]);
    let store_before = tree(&w.sd().join("skills"), &[]);

    // The dry run says what will happen, with the revision numbers, and writes nothing.
    let dry = w.expect(&["sync", "--dry-run", "--overwrite", "beta"], 0);
    assert!(dry.contains("replace  beta r2 -> r4"), "{dry}");
    assert!(dry.contains("keep the edited copy in History as v:3, restore v:2 as v:4, replace"), "{dry}");
    let plans = w.json(&["sync", "--dry-run", "--json", "--overwrite", "beta"], 0);
    let planned = json!({"how": "history", "scope": "user", "edit": 3, "restore": 4, "from": 2});
    assert_eq!(step(&plans, "claude-code", "beta")["keep"], planned);
    let c = step(&plans, "codex", "beta");
    assert_eq!(
        (c["action"].as_str(), c["to"].as_u64()),
        (Some("replace"), Some(4)),
        "the dry run plans what the run does"
    );
    assert_eq!(tree(&w.home(), &[]), home_before);
    assert_eq!(tree(&w.sd().join("skills"), &[]), store_before);
    assert_eq!(history(&w, "beta", "user").len(), 2);

    let plans = w.json(&["sync", "--json", "--overwrite", "beta"], 0);
    let a = step(&plans, "claude-code", "beta");
    assert_eq!((a["action"].as_str(), a["to"].as_u64()), (Some("replace"), Some(4)), "{plans:#}");
    assert_eq!(a["keep"], planned);
    // Codex, synced after it in the same run, gets the restored revision (same content).
    let c = step(&plans, "codex", "beta");
    assert_eq!((c["action"].as_str(), c["from"].as_u64(), c["to"].as_u64()), (Some("replace"), Some(2), Some(4)));

    // History: v:3 is the edited copy from claude-code, v:4 restores v:2, nothing lost.
    let expected = vec![
        (4, json!({"kind": "restore", "from": 2}), true),
        (3, json!({"kind": "drift_kept", "target": "claude-code"}), false),
        (2, json!({"kind": "upload"}), false),
        (1, json!({"kind": "upload"}), false),
    ];
    assert_eq!(history(&w, "beta", "user"), expected);
    let kept = w.sd().join("history/user/beta/3");
    assert_eq!((read(kept.join("SKILL.md")), read(kept.join("notes.md"))), (edit, "mine".to_owned()));
    let text = w.expect(&["history", "beta"], 0);
    assert!(text.contains("edited copy kept from claude-code"), "{text}");

    // The store's content is what it was; every target holds it and is in sync.
    let second = World::skill_md("beta", "second");
    assert_eq!(read(w.sd().join("skills/user/beta/SKILL.md")), second);
    assert_eq!(read(claude.join("beta/SKILL.md")), second);
    assert!(!claude.join("beta/notes.md").exists());
    assert_eq!(read(w.home().join(".codex/skills/beta/SKILL.md")), second);
    let s = w.states(".claude/skills");
    assert_eq!((s["beta"].as_str(), s["theirs"].as_str()), ("in-sync", "foreign"));
    assert_eq!(w.states(".codex/skills")["beta"], "in-sync");
    // Nothing else in HOME changed: the foreign skill least of all.
    let skip = [".claude/skills/beta", ".codex/skills/beta"];
    assert_eq!(tree(&w.home(), &skip), tree_of(&home_before, &skip));
    // And the next sync has nothing to do.
    let again = w.json(&["sync", "--json"], 0);
    assert!(again.as_array().unwrap().iter().all(|p| p["actions"].as_array().unwrap().is_empty()), "{again:#}");
}

/// `before` without the entries under `skip`.
fn tree_of(before: &BTreeMap<String, String>, skip: &[&str]) -> BTreeMap<String, String> {
    before
        .iter()
        .filter(|(k, _)| !skip.iter().any(|x| k == x || k.starts_with(&format!("{x}/"))))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

#[test]
fn an_invalid_edit_is_kept_and_one_the_store_refuses_changes_nothing() {
    let w = World::new();
    w.import("beta", "first");
    fs::create_dir_all(w.home().join(".claude")).unwrap();
    w.expect(&["sync"], 0);
    let beta = w.home().join(".claude/skills/beta");

    // Broken frontmatter: invalid, and still kept as it was.
    fs::write(beta.join("SKILL.md"), "no frontmatter: [here\n").unwrap();
    let plans = w.json(&["sync", "--json", "--overwrite", "beta"], 0);
    let planned = json!({"how": "history", "scope": "user", "edit": 2, "restore": 3, "from": 1});
    assert_eq!(step(&plans, "claude-code", "beta")["keep"], planned);
    assert_eq!(read(w.sd().join("history/user/beta/2/SKILL.md")), "no frontmatter: [here\n");
    assert_eq!(read(beta.join("SKILL.md")), World::skill_md("beta", "first"));
    assert_eq!(history(&w, "beta", "user").len(), 3);

    // A link inside the edited copy: the store refuses it, so it is not replaced, nothing in
    // the store or in HOME changes, and the error says why and what to do.
    fs::write(beta.join("SKILL.md"), World::skill_md("beta", "edit two")).unwrap();
    std::os::unix::fs::symlink(w.home().join(".claude/skills"), beta.join("elsewhere")).unwrap();
    let home_before = tree(&w.home(), &[]);
    let store_before = (tree(&w.sd().join("skills"), &[]), tree(&w.sd().join("history"), &[]));
    let plans = w.json(&["sync", "--json", "--overwrite", "beta"], 2);
    let p = plans.as_array().unwrap().iter().find(|p| p["target"] == "claude-code").unwrap();
    assert_eq!(p["error_code"], "target_edit_not_kept", "{p:#}");
    let error = p["error"].as_str().unwrap();
    assert!(error.contains("cannot be kept in its History") && error.contains("nothing was changed"), "{error}");
    assert!(error.contains("link"), "{error}");
    assert_eq!(tree(&w.home(), &[]), home_before);
    assert_eq!((tree(&w.sd().join("skills"), &[]), tree(&w.sd().join("history"), &[])), store_before);
    assert_eq!(w.states(".claude/skills")["beta"], "drifted");
}

#[test]
fn a_bundled_skills_edit_goes_to_the_user_history_and_agents_keep_the_bundled_one() {
    let w = World::new();
    fs::create_dir_all(w.home().join(".claude")).unwrap();
    w.expect(&["sync"], 0);
    let copy = w.home().join(".claude/skills/change-review/SKILL.md");
    let bundled = read(w.sd().join("skills/system/change-review/SKILL.md"));
    let edit = format!("{bundled}\nMy own rule.\n");
    fs::write(&copy, &edit).unwrap();

    let dry = w.expect(&["sync", "--dry-run", "--overwrite", "change-review"], 0);
    assert!(dry.contains("a bundled skill: keep the edited copy as v:1 of a user skill"), "{dry}");
    let plans = w.json(&["sync", "--json", "--overwrite", "change-review"], 0);
    assert_eq!(
        step(&plans, "claude-code", "change-review")["keep"],
        json!({"how": "user_history", "edit": 1, "of": "system"})
    );

    // Agents keep the bundled skill: no user skill shadows it, and the target holds it again.
    assert!(!w.sd().join("skills/user/change-review").exists());
    assert_eq!(read(&copy), bundled);
    assert_eq!(w.states(".claude/skills")["change-review"], "in-sync");
    // The edit is in the user scope's History, and restoring it makes it the user's skill.
    assert_eq!(read(w.sd().join("history/user/change-review/1/SKILL.md")), edit);
    let user = w.json(&["history", "change-review", "--scope", "user", "--json"], 0);
    let e = &user[0];
    assert_eq!(user.as_array().unwrap().len(), 1, "{user:#}");
    assert_eq!(e["event"], json!({"kind": "drift_kept", "target": "claude-code"}));
    assert_eq!(
        (e["revision"].as_u64(), e["current"].as_bool(), e["restorable"].as_bool()),
        (Some(1), Some(false), Some(true))
    );
    let system = history(&w, "change-review", "system");
    assert_eq!(system.len(), 1, "the bundled skill's own History is untouched: {system:?}");
    w.expect(&["restore", "change-review", "1", "--scope", "user"], 0);
    assert_eq!(read(w.sd().join("skills/user/change-review/SKILL.md")), edit);
}
