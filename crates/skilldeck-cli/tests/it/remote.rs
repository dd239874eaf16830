//! `skilldeck remote`, `publish` and `refresh` end to end against a real S3-compatible server
//! (moto) on loopback: two machines publishing at once, a publish killed mid-way, offline reads.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use crate::team_env;

use serde_json::Value;
use skilldeck_remote::moto::{ACCESS_KEY, SECRET_KEY};
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;
use team_env::{BUCKET, Env, json, ok, ok_both, rt, skilldeck};

/// A machine: its own home, a user skill `pdf`, and the remote `team` added.
fn machine(env: &Env, which: &str) -> PathBuf {
    let home = env.machine_with(which, &[]);
    let skill = home.join("skills/user/pdf");
    std::fs::create_dir_all(&skill).unwrap();
    std::fs::write(skill.join("SKILL.md"), format!("---\nname: pdf\ndescription: PDFs from {which}\n---\nBody\n"))
        .unwrap();
    home
}

#[test]
fn two_machines_publishing_at_once_get_revisions_1_to_40() {
    let Some(env) = Env::start() else { return };
    let (a, b) = (machine(&env, "a"), machine(&env, "b"));
    let listed = ok(skilldeck(&a, &["remote", "list"]));
    assert!(listed.starts_with(&format!("team  s3://{BUCKET}/acme  endpoint: {}", env.moto.endpoint())), "{listed}");
    let publish_20 = |home: PathBuf| {
        std::thread::spawn(move || {
            (0..20)
                .map(|_| {
                    json(&ok(skilldeck(&home, &["publish", "pdf", "--to", "team", "--json"])))["revision"]
                        .as_u64()
                        .unwrap()
                })
                .collect::<Vec<u64>>()
        })
    };
    let (ta, tb) = (publish_20(a.clone()), publish_20(b.clone()));
    let (ra, rb) = (ta.join().unwrap(), tb.join().unwrap());
    let all: BTreeSet<u64> = ra.iter().chain(&rb).copied().collect();
    assert_eq!(all, (1..=40).collect(), "a: {ra:?}\nb: {rb:?}");
    let history = json(&ok(skilldeck(&b, &["remote", "history", "team", "pdf", "--json"])));
    let revs: Vec<u64> =
        history["revisions"].as_array().unwrap().iter().map(|m| m["revision"].as_u64().unwrap()).collect();
    assert_eq!(revs, (1..=40).collect::<Vec<_>>());
    let publishers: BTreeSet<&str> =
        history["revisions"].as_array().unwrap().iter().map(|m| m["files"][0]["sha256"].as_str().unwrap()).collect();
    assert_eq!(publishers.len(), 2, "each machine's own content is kept");

    let restored = ok(skilldeck(&a, &["remote", "restore", "team", "pdf", "3"]));
    assert_eq!(restored.trim(), "restored pdf revision 3 as revision 41 on team");
    let skills = json(&ok(skilldeck(&a, &["remote", "skills", "team", "--json"])));
    assert_eq!(skills["skills"][0]["revision"], 41);
    assert_eq!(skills["offline"], Value::Null);

    ok(skilldeck(&a, &["remote", "remove", "team"]));
    let out = skilldeck(&a, &["remote", "skills", "team"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("no remote \"team\" in config.toml"), "{out:?}");
}

#[test]
fn a_publish_killed_after_its_blobs_leaves_no_visible_revision() {
    let Some(env) = Env::start() else { return };
    let a = machine(&env, "a");
    let out = Command::new(env!("CARGO_BIN_EXE_skilldeck"))
        .args(["publish", "pdf", "--to", "team"])
        .env("SKILLDECK_HOME", &a)
        .env("AWS_ACCESS_KEY_ID", ACCESS_KEY)
        .env("AWS_SECRET_ACCESS_KEY", SECRET_KEY)
        .env("SKILLDECK_TEST_CRASH_AT", "remote-after-blobs")
        .output()
        .unwrap();
    assert!(!out.status.success() && out.status.code().is_none(), "killed by a signal: {out:?}");
    let blob_puts = env.moto.requests().unwrap().iter().filter(|(m, p, _)| m == "PUT" && p.contains("/blobs/")).count();
    assert_eq!(blob_puts, 1, "the blob was uploaded before the crash");

    let b = machine(&env, "b");
    let skills = json(&ok(skilldeck(&b, &["remote", "skills", "team", "--json"])));
    assert_eq!(skills["skills"], Value::Array(vec![]), "no half revision is visible");
    let out = skilldeck(&b, &["remote", "history", "team", "pdf"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not in the team store"), "{out:?}");
    let young = ok(skilldeck(&b, &["remote", "gc", "team"]));
    assert!(
        young.starts_with("team: removed 0 unreferenced blob(s), 0 bytes; kept 0 referenced and 1 younger than 24 h"),
        "{young}"
    );
    let dry = ok(skilldeck(&b, &["remote", "gc", "team", "--grace-hours", "0", "--dry-run"]));
    assert!(dry.starts_with("team: would remove 1 unreferenced blob(s)"), "{dry}");
    let gone = ok(skilldeck(&b, &["remote", "gc", "team", "--grace-hours", "0"]));
    assert!(gone.starts_with("team: removed 1 unreferenced blob(s)"), "{gone}");
    let published = json(&ok(skilldeck(&a, &["publish", "pdf", "--to", "team", "--json"])));
    assert_eq!((published["revision"].as_u64(), published["uploaded_blobs"].as_u64()), (Some(1), Some(1)));
}

#[test]
fn offline_the_cache_answers_and_says_so() {
    let Some(mut env) = Env::start() else { return };
    let a = machine(&env, "a");
    ok(skilldeck(&a, &["publish", "pdf", "--to", "team"]));
    let refreshed = ok(skilldeck(&a, &["refresh"]));
    assert_eq!(refreshed.trim(), "team: 1 skill(s); fetched 0 new revision(s) and 0 file(s), 0 bytes");
    let online = ok(skilldeck(&a, &["remote", "skills", "team"]));
    assert!(online.starts_with("pdf (v:1)  sha256:"), "{online}");
    env.moto.stop();
    let offline = ok(skilldeck(&a, &["remote", "skills", "team"]));
    let mut lines = offline.lines();
    let first = lines.next().unwrap();
    assert!(
        first.starts_with("offline: team is unreachable; showing the last known revisions (last refresh: 20"),
        "{offline}"
    );
    assert_eq!(lines.next(), online.lines().next());
    let history = ok(skilldeck(&a, &["remote", "history", "team", "pdf"]));
    assert!(history.starts_with("offline: team is unreachable") && history.contains("\n1  "), "{history}");
}

#[test]
fn missing_credentials_are_explained() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let out = Command::new(env!("CARGO_BIN_EXE_skilldeck"))
        .args(["remote", "add", "team", "s3://team-skills", "--endpoint", "http://127.0.0.1:9"])
        .env("SKILLDECK_HOME", home)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let out = Command::new(env!("CARGO_BIN_EXE_skilldeck"))
        .args(["remote", "skills", "team"])
        .env("SKILLDECK_HOME", home)
        .env("HOME", home)
        .env_remove("AWS_ACCESS_KEY_ID")
        .env_remove("AWS_SECRET_ACCESS_KEY")
        .env_remove("AWS_PROFILE")
        .env_remove("AWS_SHARED_CREDENTIALS_FILE")
        .env_remove("AWS_CONFIG_FILE")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        err.contains("set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY") && err.contains("never read from config.toml"),
        "{err}"
    );
    let bad = Command::new(env!("CARGO_BIN_EXE_skilldeck"))
        .args(["remote", "add", "other", "https://example.invalid/x"])
        .env("SKILLDECK_HOME", home)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&bad.stderr).contains("does not start with s3://"), "{bad:?}");
}

#[test]
fn a_damaged_skill_is_reported_and_the_others_refresh() {
    let Some(env) = Env::start() else { return };
    let a = machine(&env, "a");
    ok(skilldeck(&a, &["publish", "pdf", "--to", "team"]));
    let garbage = b"{\"name\": \"bad\", \"event\": \"\x1b]0;pwned\x07\"}".to_vec();
    rt().block_on(env.moto.put_object(BUCKET, "acme/skills/bad/rev/0000000001.json", garbage)).unwrap();
    // A key no object path holds: skipped and named, not the whole refresh failing.
    rt().block_on(env.moto.put_raw_key(BUCKET, "acme/skills/../rev/0000000001.json", b"{}")).unwrap();
    let b = env.machine_with("b", &[]);
    let (out, err) = ok_both(skilldeck(&b, &["refresh", "team"]));
    assert!(out.contains("team scope: 1 skill(s) updated") && out.contains("team: 2 skill(s)"), "{out}");
    assert!(err.contains("warning: team: skipped bad revision 1: the team store holds a damaged object"), "{err}");
    assert!(err.contains("warning: team: skipped the object \"acme/skills/../rev/0000000001.json\": its key"), "{err}");
    assert!(!err.contains('\u{1b}') && !err.contains('\u{7}'), "nothing for a terminal to act on: {err:?}");
    assert!(b.join("skills/team/pdf/SKILL.md").is_file());
}
