//! The team scope end to end against a real S3-compatible server (moto) on loopback: the remote
//! `team` materialised into `skills/team/`, shadowing user > team > system, offline listings,
//! a remote delete, read-only refusals, history and restore through the remote, view_skill.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use crate::team_env;

use skilldeck_remote::moto::{ACCESS_KEY, SECRET_KEY};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use team_env::{BUCKET, Env, json, ok_both, rt, skilldeck};

/// Writes a skill folder `name` under `root` with `files` beside its SKILL.md.
fn write_skill(root: &Path, name: &str, description: &str, files: &[(&str, &[u8])]) {
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("SKILL.md"), format!("---\nname: {name}\ndescription: {description}\n---\nBody\n"))
        .unwrap();
    for (path, bytes) in files {
        let p = dir.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    }
}

/// Every file under `dir` (relative path → bytes), `.version` and hidden records left out.
fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let e = e.unwrap();
            let name = e.file_name().into_string().unwrap();
            if name.starts_with('.') {
                continue;
            }
            if e.file_type().unwrap().is_dir() {
                walk(base, &e.path(), out);
            } else {
                let rel = e.path().strip_prefix(base).unwrap().to_string_lossy().into_owned();
                out.insert(rel, std::fs::read(e.path()).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// A machine with its own home and the remote `team`, refreshing on every listing.
fn machine(env: &Env, which: &str) -> std::path::PathBuf {
    env.machine_with(which, &["--refresh-secs", "0"])
}

/// `list --json` as (name, scope, revision, shadowed) rows.
fn listed(home: &Path) -> Vec<(String, String, Option<u64>, bool)> {
    let (out, _) = ok_both(skilldeck(home, &["list", "--json"]));
    json(&out)
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap().to_owned(),
                r["scope"].as_str().unwrap().to_owned(),
                r["revision"].as_u64(),
                r["shadowed"].as_bool().unwrap(),
            )
        })
        .collect()
}

fn row(name: &str, scope: &str, rev: Option<u64>, shadowed: bool) -> (String, String, Option<u64>, bool) {
    (name.to_owned(), scope.to_owned(), rev, shadowed)
}

#[test]
fn the_team_scope_shadows_system_and_is_shadowed_by_user() {
    let Some(env) = Env::start() else { return };
    let (a, b) = (machine(&env, "a"), machine(&env, "b"));
    // `change-review` is bundled (system); a publishes one of its own of that name, and `pdf`.
    write_skill(&a.join("skills/user"), "change-review", "Team review rules", &[]);
    write_skill(&a.join("skills/user"), "pdf", "Team PDFs", &[]);
    for name in ["change-review", "pdf"] {
        let (out, _) = ok_both(skilldeck(&a, &["publish", name, "--to", "team", "--json"]));
        assert_eq!(json(&out)["revision"], 1);
    }
    // b has its own `pdf`: user shadows team there, and team shadows system.
    write_skill(&b.join("skills/user"), "pdf", "My PDFs", &[]);
    let rows = listed(&b);
    let mine: Vec<_> = rows.into_iter().filter(|r| r.0 == "change-review" || r.0 == "pdf").collect();
    assert_eq!(
        mine,
        vec![
            row("change-review", "system", mine[0].2, true),
            row("change-review", "team", Some(1), false),
            row("pdf", "team", Some(1), true),
            row("pdf", "user", mine[3].2, false),
        ]
    );
    let (text, _) = ok_both(skilldeck(&b, &["list"]));
    let line = |name: &str, scope: &str| {
        text.lines().find(|l| l.split_whitespace().take(2).eq([name, scope])).unwrap().to_owned()
    };
    assert!(line("change-review", "system").contains("[shadowed by team]"), "{text}");
    assert!(line("pdf", "team").contains("[shadowed by user]"), "{text}");
    assert!(!line("pdf", "user").contains("shadowed"), "{text}");
    // The model's listing holds the team's change-review at the team's revision.
    let (prompt, _) = ok_both(skilldeck(&b, &["prompt"]));
    assert!(prompt.contains("- **change-review** (v:1): Team review rules"), "{prompt}");
    let (shown, _) = ok_both(skilldeck(&b, &["show", "pdf", "--scope", "team", "--json"]));
    let shown = json(&shown);
    assert_eq!((shown["scope"].as_str(), shown["shadowed_by"].as_str()), (Some("team"), Some("user")));
}

#[test]
fn team_skills_are_served_offline_and_a_remote_delete_removes_them() {
    let Some(mut env) = Env::start() else { return };
    let (a, b) = (machine(&env, "a"), machine(&env, "b"));
    let binary: &[u8] = &[0, 159, 146, 150, 255, 10, 13];
    write_skill(
        &a.join("skills/user"),
        "pdf",
        "Team PDFs",
        &[("scripts/run.py", b"print(1)\n"), ("assets/x.bin", binary)],
    );
    write_skill(&a.join("skills/user"), "csv", "Team CSVs", &[]);
    ok_both(skilldeck(&a, &["publish", "pdf", "--to", "team"]));
    ok_both(skilldeck(&a, &["publish", "csv", "--to", "team"]));
    ok_both(skilldeck(&a, &["publish", "pdf", "--to", "team"]));
    assert_eq!(listed(&b).into_iter().filter(|r| r.1 == "team").count(), 2);

    // view_skill mounts the team revision's files byte for byte.
    let ws = b.join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    let (out, _) = ok_both(skilldeck(&b, &["view", "pdf", "--workspace", ws.to_str().unwrap()]));
    assert_eq!(json(&out)["version"], "2", "{out}");
    assert_eq!(tree(&ws.join(".skills/pdf")), tree(&a.join("skills/user/pdf")));

    // A remote delete (csv's one revision) removes the local team skill at the next refresh.
    rt().block_on(env.moto.delete_object(BUCKET, "acme/skills/csv/rev/0000000001.json")).unwrap();
    let (out, _) = ok_both(skilldeck(&b, &["refresh"]));
    assert!(out.contains("team scope: 0 skill(s) updated, 1 removed"), "{out}");
    let team: Vec<_> = listed(&b).into_iter().filter(|r| r.1 == "team").collect();
    assert_eq!(team, vec![row("pdf", "team", Some(2), false)]);
    assert!(!b.join("skills/team/csv").exists());

    // Offline: the listing still holds the team skill, and says so once on stderr.
    env.moto.stop();
    let (out, err) = ok_both(skilldeck(&b, &["list", "--scope", "team"]));
    assert!(out.starts_with("pdf   team    v:2"), "{out}");
    let offline: Vec<&str> =
        err.lines().filter(|l| l.starts_with("offline: the team store could not be refreshed")).collect();
    assert_eq!(offline.len(), 1, "{err}");
    assert!(err.contains("team skills as of 20"), "{err}");
    let (out, _) = ok_both(skilldeck(&b, &["list", "--json", "--scope", "team"]));
    assert!(json(&out)[0]["offline"]["reason"].as_str().unwrap().contains("unreachable"), "{out}");
    let ws2 = b.join("ws2");
    std::fs::create_dir_all(&ws2).unwrap();
    ok_both(skilldeck(&b, &["view", "pdf", "--workspace", ws2.to_str().unwrap()]));
    assert_eq!(tree(&ws2.join(".skills/pdf")), tree(&a.join("skills/user/pdf")));
}

#[test]
fn the_team_scope_refuses_local_changes_and_restores_through_the_remote() {
    let Some(env) = Env::start() else { return };
    let (a, b) = (machine(&env, "a"), machine(&env, "b"));
    write_skill(&a.join("skills/user"), "pdf", "First", &[]);
    ok_both(skilldeck(&a, &["publish", "pdf", "--to", "team"]));
    write_skill(&a.join("skills/user"), "pdf", "Second", &[]);
    ok_both(skilldeck(&a, &["publish", "pdf", "--to", "team"]));
    ok_both(skilldeck(&b, &["refresh"]));
    let before = tree(&b.join("skills"));

    // Import into team and delete from team are refused, saying what to do; nothing changes.
    let src = b.join("incoming");
    write_skill(&src, "pdf", "Local edit", &[]);
    let out = skilldeck(&b, &["import", src.join("pdf").to_str().unwrap(), "--scope", "team"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("read-only") && err.contains("skilldeck publish NAME --to team"),
        "{err}"
    );
    let out = skilldeck(&b, &["delete", "pdf", "--scope", "team"]);
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("read-only"), "{out:?}");
    assert_eq!(tree(&b.join("skills")), before);

    // History and restore go through the remote.
    let (hist, _) = ok_both(skilldeck(&b, &["history", "pdf", "--scope", "team", "--json"]));
    let revs: Vec<u64> =
        json(&hist)["revisions"].as_array().unwrap().iter().map(|m| m["revision"].as_u64().unwrap()).collect();
    assert_eq!(revs, vec![1, 2]);
    let (out, _) = ok_both(skilldeck(&b, &["restore", "pdf", "1", "--scope", "team", "--json"]));
    assert_eq!(json(&out)["revision"], 3);
    let (shown, _) = ok_both(skilldeck(&b, &["show", "pdf", "--json"]));
    let shown = json(&shown);
    assert_eq!((shown["scope"].as_str(), shown["revision"].as_u64()), (Some("team"), Some(3)));
    assert_eq!(shown["meta"]["description"], "First");
    let (out, _) = ok_both(skilldeck(&a, &["remote", "history", "team", "pdf"]));
    assert!(out.lines().last().unwrap().ends_with("restore of 1"), "{out}");
}

#[test]
fn credentials_come_from_the_aws_profile_files_too() {
    let Some(env) = Env::start() else { return };
    let a = machine(&env, "a");
    write_skill(&a.join("skills/user"), "pdf", "From a profile", &[]);
    std::fs::create_dir_all(a.join(".aws")).unwrap();
    std::fs::write(a.join(".aws/config"), "[profile work]\nregion = us-east-1\n").unwrap();
    std::fs::write(
        a.join(".aws/credentials"),
        format!("[default]\naws_access_key_id = nope\n[work]\naws_access_key_id = {ACCESS_KEY}\naws_secret_access_key = {SECRET_KEY}\n"),
    )
    .unwrap();
    let run = |args: &[&str], profile: Option<&str>| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_skilldeck"));
        cmd.args(args).env("SKILLDECK_HOME", &a).env("HOME", &a);
        for v in ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_ENDPOINT"] {
            cmd.env_remove(v);
        }
        for v in ["AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE"] {
            cmd.env_remove(v);
        }
        if let Some(p) = profile {
            cmd.env("AWS_PROFILE", p);
        }
        cmd.output().unwrap()
    };
    let (out, _) = ok_both(run(&["publish", "pdf", "--to", "team", "--json"], Some("work")));
    assert_eq!(json(&out)["revision"], 1);
    // The default profile has half a key pair: said plainly, naming the file.
    let out = run(&["publish", "pdf", "--to", "team"], None);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains(".aws/credentials") && err.contains("give both"), "{err}");
    let out = run(&["publish", "pdf", "--to", "team"], Some("missing"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("AWS_PROFILE names the profile \"missing\""), "{err}");
}
