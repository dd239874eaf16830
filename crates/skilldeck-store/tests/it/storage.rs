//! The store's revision rules, history, limits and crash recovery, checked on real files.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use skilldeck_skill::{RelPath, SkillFiles, SkillName, UploadLimits};
use skilldeck_store::storage::{DeleteOutcome, HistoryEntry, RevisionEvent, WriteOutcome};
use skilldeck_store::{FsStorage, Revision, Scope, SkillStorage, SkilldeckHome};
use std::fs;
use std::path::Path;

fn skill(name: &str, body: &str) -> SkillFiles {
    [
        (RelPath::parse("SKILL.md").unwrap(), format!("---\nname: {name}\ndescription: d\n---\n{body}\n").into_bytes()),
        (RelPath::parse("references/guide.md").unwrap(), b"guide".to_vec()),
    ]
    .into_iter()
    .collect()
}

fn open(dir: &Path) -> FsStorage {
    FsStorage::open(SkilldeckHome::new(dir)).unwrap()
}

fn name(s: &str) -> SkillName {
    SkillName::parse(s).unwrap()
}

fn paths(storage: &FsStorage, n: &SkillName) -> Vec<String> {
    storage.read_tree_sync(Scope::User, n).unwrap().into_iter().map(|e| e.path.to_string()).collect()
}

#[test]
fn every_upload_bumps_even_identical_ones() {
    let tmp = tempfile::tempdir().unwrap();
    let s = open(tmp.path());
    let n = name("pdf");
    let revs: Vec<u64> =
        (0..3).map(|_| s.write_skill_sync(Scope::User, &n, &skill("pdf", "same")).unwrap().revision.0).collect();
    assert_eq!(revs, vec![1, 2, 3]);
    assert_eq!(fs::read_to_string(tmp.path().join("skills/user/pdf/.version")).unwrap(), "3\n");
    assert_eq!(s.revision_sync(Scope::User, &n).unwrap(), Some(Revision(3)));
}

#[test]
fn incoming_sidecars_are_dropped_and_never_shown() {
    let tmp = tempfile::tempdir().unwrap();
    let s = open(tmp.path());
    let n = name("pdf");
    let mut files = skill("pdf", "x");
    for sidecar in [".version", ".revision.json"] {
        files.insert(RelPath::parse(sidecar).unwrap(), b"999".to_vec());
    }
    let out = s.write_skill_sync(Scope::User, &n, &files).unwrap();
    assert_eq!(out.revision, Revision(1));
    assert_eq!(paths(&s, &n), vec!["SKILL.md", "references/guide.md"]);
    let snap = s.snapshot(Scope::User, &n).unwrap();
    assert_eq!(snap.revision, Some(Revision(1)));
    assert_eq!(snap.files, skill("pdf", "x"), "no sidecar is part of a tree");
    assert_eq!(out.digest, skill("pdf", "x").digest(), "the digest never covers a sidecar");
    for sidecar in [".version", ".revision.json"] {
        assert!(tmp.path().join("skills/user/pdf").join(sidecar).is_file(), "the store keeps {sidecar}");
        let err = s.read_raw_file_sync(Scope::User, &n, &RelPath::parse(sidecar).unwrap()).unwrap_err();
        assert_eq!(err.code(), "file_not_found", "{sidecar}");
    }
}

#[test]
fn replaced_revisions_go_to_history_and_the_last_twenty_are_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let s = open(tmp.path());
    let n = name("pdf");
    for i in 1..=25 {
        let out = s.write_skill_sync(Scope::User, &n, &skill("pdf", &format!("v{i}"))).unwrap();
        assert_eq!(out.replaced, (i > 1).then(|| Revision(i - 1)));
    }
    let h = s.history_sync(Scope::User, &n).unwrap();
    assert_eq!(h.len(), 25, "the log keeps every revision");
    assert_eq!(h[0].revision, Revision(25));
    assert!(h[0].current && h[0].restorable);
    let restorable: Vec<u64> = h.iter().filter(|e| e.restorable).map(|e| e.revision.0).collect();
    assert_eq!(restorable, (5..=25).rev().collect::<Vec<_>>(), "current + the last 20 replaced");
    let kept = fs::read_to_string(tmp.path().join("history/user/pdf/7/SKILL.md")).unwrap();
    assert!(kept.contains("v7"));
    assert_eq!(fs::read_to_string(tmp.path().join("history/user/pdf/7/.version")).unwrap(), "7\n");
}

#[test]
fn delete_and_restore_make_new_revisions() {
    let tmp = tempfile::tempdir().unwrap();
    let s = open(tmp.path());
    let n = name("pdf");
    s.write_skill_sync(Scope::User, &n, &skill("pdf", "one")).unwrap();
    s.write_skill_sync(Scope::User, &n, &skill("pdf", "two")).unwrap();
    assert_eq!(s.delete_skill_sync(Scope::User, &n).unwrap().revision, Revision(2));
    assert!(!tmp.path().join("skills/user/pdf").exists());
    assert_eq!(s.deleted_skills_sync(Scope::User).unwrap(), vec![(n.clone(), Revision(2))]);
    assert!(s.read_tree_sync(Scope::User, &n).is_err());
    let out = s.restore_sync(Scope::User, &n, Revision(1)).unwrap();
    assert_eq!(out.revision, Revision(3), "a restore never reuses a number");
    assert_eq!(s.read_file_sync(Scope::User, &n, &RelPath::parse("SKILL.md").unwrap()).unwrap(), "one\n");
    assert!(s.deleted_skills_sync(Scope::User).unwrap().is_empty(), "restored: no longer deleted");
    let events: Vec<(u64, RevisionEvent)> =
        s.history_sync(Scope::User, &n).unwrap().iter().map(|e| (e.revision.0, e.event.clone())).collect();
    assert_eq!(
        events,
        vec![(3, RevisionEvent::Restore { from: Revision(1) }), (2, RevisionEvent::Upload), (1, RevisionEvent::Upload)]
    );
    assert!(matches!(
        s.restore_sync(Scope::User, &n, Revision(9)),
        Err(skilldeck_store::StorageError::RevisionNotFound { .. })
    ));
}

#[test]
fn reads_strip_frontmatter_and_refuse_version() {
    let tmp = tempfile::tempdir().unwrap();
    let s = open(tmp.path());
    let n = name("pdf");
    s.write_skill_sync(Scope::User, &n, &skill("pdf", "# Body")).unwrap();
    let md = RelPath::parse("SKILL.md").unwrap();
    assert_eq!(s.read_file_sync(Scope::User, &n, &md).unwrap(), "# Body\n");
    assert!(s.read_raw_file_sync(Scope::User, &n, &md).unwrap().starts_with(b"---\nname: pdf"));
    let version = RelPath::parse(".version").unwrap();
    assert!(matches!(
        s.read_raw_file_sync(Scope::User, &n, &version),
        Err(skilldeck_store::StorageError::FileNotFound { .. })
    ));
}

#[test]
fn limits_refuse_and_leave_the_store_untouched() {
    let tmp = tempfile::tempdir().unwrap();
    let s = open(tmp.path()).with_limits(UploadLimits { max_file_bytes: 100, max_total_bytes: 120, max_files: 3 });
    let n = name("pdf");
    s.write_skill_sync(Scope::User, &n, &skill("pdf", "ok")).unwrap();
    let before = snapshot_dir(tmp.path());
    let mut big = skill("pdf", "x");
    big.insert(RelPath::parse("assets/big.bin").unwrap(), vec![0; 101]);
    let mut many = skill("pdf", "x");
    for i in 0..3 {
        many.insert(RelPath::parse(&format!("f{i}")).unwrap(), vec![1]);
    }
    let mut total = skill("pdf", "x");
    total.insert(RelPath::parse("a").unwrap(), vec![0; 90]);
    for (files, code) in [(big, "upload_too_large"), (many, "upload_too_large"), (total, "upload_too_large")] {
        let err = s.write_skill_sync(Scope::User, &n, &files).unwrap_err();
        assert_eq!(err.code(), code, "{err}");
        assert!(err.to_string().contains("nothing was written"), "{err}");
    }
    let no_md: SkillFiles = [(RelPath::parse("README.md").unwrap(), b"x".to_vec())].into_iter().collect();
    assert_eq!(s.write_skill_sync(Scope::User, &n, &no_md).unwrap_err().code(), "skill_md_missing");
    assert_eq!(snapshot_dir(tmp.path()), before, "a refused upload changes nothing on disk");
}

/// Every file under `root` (locks aside) with its bytes.
fn snapshot_dir(root: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if !p.to_string_lossy().contains("/locks/") {
                out.push((p.strip_prefix(root).unwrap().display().to_string(), fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// What a writer does before it makes the staging entry `entry` in the user scope: notes it in
/// the scope's journal, which is where recovery looks.
fn noted(home: &Path, entry: &str) {
    let journal = home.join("skills/user/.journal");
    fs::create_dir_all(&journal).unwrap();
    fs::write(journal.join(entry), "").unwrap();
}

#[test]
fn recovery_finishes_or_undoes_cut_writes() {
    let tmp = tempfile::tempdir().unwrap();
    let s = open(tmp.path());
    let n = name("pdf");
    s.write_skill_sync(Scope::User, &n, &skill("pdf", "one")).unwrap();
    s.write_skill_sync(Scope::User, &n, &skill("pdf", "two")).unwrap();
    let user = tmp.path().join("skills/user");
    // Each entry as a killed writer leaves it: noted in the journal before it was made.
    for entry in [".staging-1-0-pdf", ".staging-1-1-pdf", ".staging-1-2-pdf", ".staging-1-3-docx"] {
        noted(tmp.path(), entry);
    }
    // A partial new tree (no .version yet): removed.
    fs::create_dir_all(user.join(".staging-1-0-pdf/references")).unwrap();
    fs::write(user.join(".staging-1-0-pdf/SKILL.md"), "half").unwrap();
    // A whole new tree never swapped in: removed, the current revision stands.
    fs::create_dir_all(user.join(".staging-1-1-pdf")).unwrap();
    fs::write(user.join(".staging-1-1-pdf/SKILL.md"), "three").unwrap();
    fs::write(user.join(".staging-1-1-pdf/.version"), "3\n").unwrap();
    // The old tree left after a swap whose history move was cut: kept in history.
    fs::rename(tmp.path().join("history/user/pdf/1"), user.join(".staging-1-2-pdf")).unwrap();
    // A whole new tree for a skill with no current folder (cut between two renames): moved in.
    fs::create_dir_all(user.join(".staging-1-3-docx")).unwrap();
    fs::write(user.join(".staging-1-3-docx/SKILL.md"), "---\nname: docx\ndescription: d\n---\nb\n").unwrap();
    fs::write(user.join(".staging-1-3-docx/.version"), "1\n").unwrap();

    let s = open(tmp.path());
    let left: Vec<_> = fs::read_dir(&user).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    let mut left = left;
    left.sort();
    assert_eq!(left, vec![".journal", "docx", "pdf"]);
    assert_eq!(fs::read_dir(user.join(".journal")).unwrap().count(), 0, "the journal is emptied");
    assert_eq!(s.revision_sync(Scope::User, &n).unwrap(), Some(Revision(2)));
    assert!(fs::read_to_string(tmp.path().join("history/user/pdf/1/SKILL.md")).unwrap().contains("one"));
    assert_eq!(s.revision_sync(Scope::User, &name("docx")).unwrap(), Some(Revision(1)));
    assert_eq!(s.write_skill_sync(Scope::User, &n, &skill("pdf", "x")).unwrap().revision, Revision(3));
}

#[test]
fn a_store_from_before_the_journal_is_read_whole_once_then_journaled() {
    let tmp = tempfile::tempdir().unwrap();
    let s = open(tmp.path());
    let n = name("pdf");
    s.write_skill_sync(Scope::User, &n, &skill("pdf", "one")).unwrap();
    let user = tmp.path().join("skills/user");
    fs::remove_dir(user.join(".journal")).unwrap();
    // A leftover no journal notes, as a version without the journal left it.
    fs::create_dir_all(user.join(".staging-1-0-pdf")).unwrap();
    fs::write(user.join(".staging-1-0-pdf/SKILL.md"), "half").unwrap();
    let s = open(tmp.path());
    assert_eq!(scope_entries(tmp.path()), vec!["pdf".to_owned()]);
    assert!(user.join(".journal").is_dir(), "the next starts read the journal only");
    assert_eq!(s.revision_sync(Scope::User, &n).unwrap(), Some(Revision(1)));
}

#[test]
fn threads_writing_one_skill_get_consecutive_revisions() {
    let tmp = tempfile::tempdir().unwrap();
    let s = open(tmp.path());
    let n = name("pdf");
    let mut revs: Vec<u64> = std::thread::scope(|sc| {
        let handles: Vec<_> = (0..4)
            .map(|t| {
                let (s, n) = (s.clone(), n.clone());
                sc.spawn(move || {
                    (0..10)
                        .map(|i| {
                            s.write_skill_sync(Scope::User, &n, &skill("pdf", &format!("{t}-{i}"))).unwrap().revision.0
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    revs.sort();
    assert_eq!(revs, (1..=40).collect::<Vec<_>>());
}

#[test]
fn readers_never_see_a_mix_of_two_revisions() {
    let tmp = tempfile::tempdir().unwrap();
    let s = open(tmp.path());
    let n = name("pdf");
    let tree = |i: usize| -> SkillFiles {
        let mut f = skill("pdf", &format!("rev {i}"));
        for k in 0..20 {
            f.insert(RelPath::parse(&format!("references/{k}.md")).unwrap(), format!("rev {i}").into_bytes());
        }
        f
    };
    s.write_skill_sync(Scope::User, &n, &tree(0)).unwrap();
    std::thread::scope(|sc| {
        let writer = {
            let (s, n) = (s.clone(), n.clone());
            sc.spawn(move || {
                for i in 1..40 {
                    s.write_skill_sync(Scope::User, &n, &tree(i)).unwrap();
                }
            })
        };
        while !writer.is_finished() {
            let snap = s.snapshot(Scope::User, &n).unwrap();
            let tags: std::collections::BTreeSet<String> = snap
                .files
                .iter()
                .filter(|(p, _)| p.as_str().starts_with("references/") && p.as_str() != "references/guide.md")
                .map(|(_, b)| String::from_utf8(b.to_vec()).unwrap())
                .collect();
            assert_eq!(tags.len(), 1, "a snapshot mixed revisions: {tags:?}");
            assert_eq!(snap.files.len(), 22);
            let tag: u64 = tags.first().unwrap().trim_start_matches("rev ").parse().unwrap();
            assert_eq!(snap.revision, Some(Revision(tag + 1)), "the sidecar matches the tree read");
        }
    });
}

#[test]
fn the_sidecar_is_never_seen_empty_while_writes_go_on() {
    let tmp = tempfile::tempdir().unwrap();
    let s = open(tmp.path());
    let n = name("pdf");
    s.write_skill_sync(Scope::User, &n, &skill("pdf", "first")).unwrap();
    std::thread::scope(|sc| {
        let writer = {
            let (s, n) = (s.clone(), n.clone());
            sc.spawn(move || {
                for i in 0..60 {
                    s.write_skill_sync(Scope::User, &n, &skill("pdf", &format!("rev {i}"))).unwrap();
                }
            })
        };
        let mut reads = 0u64;
        while !writer.is_finished() {
            let rev = s.revision_sync(Scope::User, &n).unwrap();
            assert!(rev.is_some(), "a reader found no revision after {reads} reads");
            reads += 1;
        }
    });
}

#[tokio::test]
async fn the_async_trait_runs_the_same_operations() {
    let tmp = tempfile::tempdir().unwrap();
    let s: Box<dyn SkillStorage> = Box::new(open(tmp.path()));
    let n = name("pdf");
    let out = s.write_skill(Scope::User, &n, skill("pdf", "body")).await.unwrap();
    assert_eq!(out.revision, Revision(1));
    assert_eq!(s.list_skills(Scope::User).await.unwrap(), vec!["pdf"]);
    let tree: Vec<String> =
        s.read_tree(Scope::User, &n).await.unwrap().into_iter().map(|e| e.path.to_string()).collect();
    assert_eq!(tree, vec!["SKILL.md", "references/guide.md"]);
    assert_eq!(s.read_file(Scope::User, &n, &RelPath::parse("SKILL.md").unwrap()).await.unwrap(), "body\n");
    assert_eq!(s.delete_skill(Scope::User, &n).await.unwrap().revision, Revision(1));
    assert_eq!(s.restore(Scope::User, &n, Revision(1)).await.unwrap().revision, Revision(2));
    assert_eq!(s.history(Scope::User, &n).await.unwrap().len(), 2);
}

#[test]
fn bundled_skills_install_once_and_update_when_a_newer_copy_ships() {
    let tmp = tempfile::tempdir().unwrap();
    let s = open(tmp.path());
    let first = skilldeck_store::bundled::install(&s).unwrap();
    assert!(first.len() >= 3, "the bundled skills are installed");
    assert!(first.iter().all(|w| w.revision == Revision(1) && w.scope == Scope::System));
    assert!(skilldeck_store::bundled::install(&s).unwrap().is_empty(), "nothing again on the next start");
    // An older build's record: this build ships a different copy, so it updates once.
    let record = tmp.path().join("bundled.json");
    let mut map: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&fs::read_to_string(&record).unwrap()).unwrap();
    let (name, _) = map.iter().next().map(|(k, v)| (k.clone(), v.clone())).unwrap();
    map.insert(name.clone(), serde_json::json!("sha256:older"));
    fs::write(&record, serde_json::to_string(&map).unwrap()).unwrap();
    let updated = skilldeck_store::bundled::install(&s).unwrap();
    assert_eq!(
        updated.iter().map(|w| (w.name.to_string(), w.revision)).collect::<Vec<_>>(),
        vec![(name.clone(), Revision(2))]
    );
    let events: Vec<RevisionEvent> = s
        .history_sync(Scope::System, &SkillName::parse(&name).unwrap())
        .unwrap()
        .iter()
        .map(|e| e.event.clone())
        .collect();
    assert_eq!(events, vec![RevisionEvent::Bundled, RevisionEvent::Bundled]);
}

/// The history of `n` with each date checked present, then blanked so whole values compare.
fn history_undated(s: &FsStorage, n: &SkillName) -> Vec<HistoryEntry> {
    let mut h = s.history_sync(Scope::User, n).unwrap();
    for e in &mut h {
        assert!(e.at.len() >= "2026-01-01T00:00:00Z".len(), "revision {} has no date: {e:?}", e.revision);
        e.at.clear();
    }
    h
}

fn entry(rev: u64, files: &SkillFiles, event: RevisionEvent, current: bool) -> HistoryEntry {
    HistoryEntry {
        revision: Revision(rev),
        digest: Some(files.digest()),
        at: String::new(),
        event,
        current,
        restorable: true,
    }
}

#[test]
fn a_log_that_cannot_be_written_after_the_swap_does_not_fail_the_live_revision() {
    let tmp = tempfile::tempdir().unwrap();
    let s = open(tmp.path());
    let n = name("pdf");
    let (one, two) = (skill("pdf", "one"), skill("pdf", "two"));
    s.write_skill_sync(Scope::User, &n, &one).unwrap();
    // Something stands where the log goes, so every append to it fails.
    let log = tmp.path().join("history/user/pdf/log.jsonl");
    fs::remove_file(&log).unwrap();
    fs::create_dir(&log).unwrap();
    let loaded = skilldeck_store::import::LoadedSkill {
        name: n.clone(),
        files: two.clone(),
        validation: skilldeck_skill::validate::validate_bytes(two.skill_md(), Default::default()),
        skipped: vec![],
    };
    let skilldeck_store::import::Stored::Written(out) =
        skilldeck_store::import::store(&s, Scope::User, &loaded).unwrap()
    else {
        panic!("new files are written")
    };
    assert_eq!(out.warnings.len(), 1, "{:?}", out.warnings);
    assert!(out.warnings[0].starts_with("the history log was not updated"), "{:?}", out.warnings);
    assert_eq!(
        out,
        WriteOutcome {
            name: n.clone(),
            scope: Scope::User,
            revision: Revision(2),
            digest: two.digest(),
            replaced: Some(Revision(1)),
            warnings: out.warnings.clone(),
        }
    );
    assert_eq!(s.revision_sync(Scope::User, &n).unwrap(), Some(Revision(2)));
    let expected = vec![entry(2, &two, RevisionEvent::Upload, true), entry(1, &one, RevisionEvent::Upload, false)];
    assert_eq!(history_undated(&s, &n), expected, "history lists the live revision from its own record");
    // Once the log can be written again, the next start puts the missing lines back.
    fs::remove_dir(&log).unwrap();
    let s = open(tmp.path());
    assert_eq!(history_undated(&s, &n), expected);
    assert_eq!(logged(tmp.path()), vec![1, 2]);
}

/// Takes revision `rev`'s line out of the log, as if its writer had been killed before writing
/// it; returns the line.
fn unlog(home: &Path, rev: u64) -> String {
    let log = home.join("history/user/pdf/log.jsonl");
    let text = fs::read_to_string(&log).unwrap();
    let (gone, kept): (Vec<&str>, Vec<&str>) =
        text.lines().partition(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["revision"] == rev);
    fs::write(&log, kept.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    assert_eq!(gone.len(), 1);
    gone[0].to_owned()
}

/// The history entry a logged line stands for.
fn from_line(line: &str, current: bool, restorable: bool) -> HistoryEntry {
    let v: serde_json::Value = serde_json::from_str(line).unwrap();
    HistoryEntry {
        revision: Revision(v["revision"].as_u64().unwrap()),
        digest: serde_json::from_value(v["digest"].clone()).unwrap(),
        at: v["at"].as_str().unwrap().to_owned(),
        event: serde_json::from_value(v["event"].clone()).unwrap(),
        current,
        restorable,
    }
}

/// The revisions `log.jsonl` has lines for, in file order.
fn logged(home: &Path) -> Vec<u64> {
    fs::read_to_string(home.join("history/user/pdf/log.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["revision"].as_u64().unwrap())
        .collect()
}

#[test]
fn a_writer_killed_right_after_the_swap_loses_no_history() {
    // What a writer killed just after swapping revision 3 in leaves beside the skill: the
    // replaced tree not yet moved to history, or (moved) only the write's marker; no log line.
    let leave_replaced_tree: fn(&Path) = |home| {
        noted(home, ".staging-1-0-pdf");
        fs::rename(home.join("history/user/pdf/2"), home.join("skills/user/.staging-1-0-pdf")).unwrap();
    };
    let leave_marker: fn(&Path) = |home| {
        noted(home, ".staging-1-1-pdf");
        fs::write(home.join("skills/user/.staging-1-1-pdf"), "").unwrap()
    };
    for (case, leave) in [("replaced tree", leave_replaced_tree), ("marker", leave_marker)] {
        let tmp = tempfile::tempdir().unwrap();
        let s = open(tmp.path());
        let n = name("pdf");
        for body in ["one", "two", "three"] {
            s.write_skill_sync(Scope::User, &n, &skill("pdf", body)).unwrap();
        }
        let line = unlog(tmp.path(), 3);
        leave(tmp.path());
        let s = open(tmp.path());
        let h = s.history_sync(Scope::User, &n).unwrap();
        assert_eq!(h[0], from_line(&line, true, true), "{case}: the live revision keeps its date and digest");
        assert_eq!(h.len(), 3, "{case}");
        assert!(tmp.path().join("history/user/pdf/2/SKILL.md").exists(), "{case}");
        assert_eq!(logged(tmp.path()), vec![1, 2, 3], "{case}: the start completed the log");
        let left: Vec<_> =
            fs::read_dir(tmp.path().join("skills/user")).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert!(left.iter().all(|n| n == "pdf" || n == ".journal"), "{case}: {left:?}");
        assert_eq!(fs::read_dir(tmp.path().join("skills/user/.journal")).unwrap().count(), 0, "{case}");
    }
}

#[test]
fn an_unlogged_revision_is_logged_before_it_can_be_pruned() {
    let tmp = tempfile::tempdir().unwrap();
    let s = open(tmp.path());
    let n = name("pdf");
    for body in ["one", "two", "three"] {
        s.write_skill_sync(Scope::User, &n, &skill("pdf", body)).unwrap();
    }
    // Killed after the swap and the move to history, before the log line; nobody restarts.
    let line = unlog(tmp.path(), 3);
    for i in 4..=30 {
        s.write_skill_sync(Scope::User, &n, &skill("pdf", &format!("v{i}"))).unwrap();
    }
    let h = s.history_sync(Scope::User, &n).unwrap();
    assert_eq!(h.len(), 30, "every revision that went live is listed");
    assert_eq!(h.iter().find(|e| e.revision == Revision(3)), Some(&from_line(&line, false, false)));
}

/// The events `log.jsonl` has, in file order, as `(revision, kind)`.
fn logged_events(home: &Path) -> Vec<(u64, String)> {
    fs::read_to_string(home.join("history/user/pdf/log.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .map(|v| (v["revision"].as_u64().unwrap(), v["event"]["kind"].as_str().unwrap().to_owned()))
        .collect()
}

#[test]
fn a_delete_whose_log_line_cannot_be_written_is_reported_done_and_shows_as_deleted() {
    let tmp = tempfile::tempdir().unwrap();
    let s = open(tmp.path());
    let n = name("pdf");
    let (one, two) = (skill("pdf", "one"), skill("pdf", "two"));
    s.write_skill_sync(Scope::User, &n, &one).unwrap();
    s.write_skill_sync(Scope::User, &n, &two).unwrap();
    // Something stands where the log goes, so every append to it fails.
    let log = tmp.path().join("history/user/pdf/log.jsonl");
    fs::remove_file(&log).unwrap();
    fs::create_dir(&log).unwrap();
    let out = s.delete_skill_sync(Scope::User, &n).unwrap();
    let warning = format!(
        "the history log was not updated (could not open {}: Is a directory (os error 21)); \
         the delete of revision 2 is kept beside the store and logged on the next start",
        log.display()
    );
    assert_eq!(
        out,
        DeleteOutcome { name: n.clone(), scope: Scope::User, revision: Revision(2), warnings: vec![warning] }
    );
    assert!(!tmp.path().join("skills/user/pdf").exists());
    let expected = vec![entry(2, &two, RevisionEvent::Upload, false), entry(1, &one, RevisionEvent::Upload, false)];
    let deleted = vec![(n.clone(), Revision(2))];
    assert_eq!(s.deleted_skills_sync(Scope::User).unwrap(), deleted, "what happened: the skill is deleted");
    assert_eq!(history_undated(&s, &n), expected);
    // A start while the log still cannot be written changes nothing.
    let s = open(tmp.path());
    assert_eq!(s.deleted_skills_sync(Scope::User).unwrap(), deleted);
    // Once it can, the next start writes the delete's line, and the leftover goes.
    fs::remove_dir(&log).unwrap();
    let s = open(tmp.path());
    assert_eq!(s.deleted_skills_sync(Scope::User).unwrap(), deleted);
    assert_eq!(history_undated(&s, &n), expected);
    assert_eq!(logged_events(tmp.path()), vec![(1, "upload".into()), (2, "upload".into()), (2, "delete".into())]);
    assert_eq!(scope_entries(tmp.path()), Vec::<String>::new(), "no marker left");
}

#[test]
fn a_pending_delete_is_logged_before_the_next_write_of_the_skill() {
    let tmp = tempfile::tempdir().unwrap();
    let s = open(tmp.path());
    let n = name("pdf");
    s.write_skill_sync(Scope::User, &n, &skill("pdf", "one")).unwrap();
    let log = tmp.path().join("history/user/pdf/log.jsonl");
    fs::remove_file(&log).unwrap();
    fs::create_dir(&log).unwrap();
    assert_eq!(s.delete_skill_sync(Scope::User, &n).unwrap().warnings.len(), 1);
    fs::remove_dir(&log).unwrap();
    // No restart: a restore is the next write, and the log keeps the order things happened in.
    let out = s.restore_sync(Scope::User, &n, Revision(1)).unwrap();
    assert_eq!((out.revision, out.warnings), (Revision(2), vec![]));
    assert_eq!(logged_events(tmp.path()), vec![(1, "upload".into()), (1, "delete".into()), (2, "restore".into())]);
    assert!(s.deleted_skills_sync(Scope::User).unwrap().is_empty(), "restored: no longer deleted");
    assert_eq!(scope_entries(tmp.path()), vec!["pdf".to_owned()], "only the skill, no marker");
}

/// The hidden entries of the user scope folder and its journal's files (as `journal/<name>`).
fn scope_leftovers(home: &Path) -> Vec<String> {
    scope_entries(home).into_iter().filter(|n| n.starts_with('.') || n.starts_with("journal/")).collect()
}

/// Every entry of the user scope folder but its journal folder, and the journal's files (as
/// `journal/<name>`): a write that went through leaves neither a staging entry nor its note.
fn scope_entries(home: &Path) -> Vec<String> {
    let names = |dir: &Path| -> Vec<String> {
        match fs::read_dir(dir) {
            Ok(rd) => rd.map(|e| e.unwrap().file_name().into_string().unwrap()).collect(),
            Err(_) => Vec::new(),
        }
    };
    let user = home.join("skills/user");
    let mut out: Vec<String> = names(&user).into_iter().filter(|n| n != ".journal").collect();
    out.extend(names(&user.join(".journal")).into_iter().map(|n| format!("journal/{n}")));
    out
}

#[test]
fn a_batch_writes_each_skill_as_its_next_revision_and_a_twice_staged_one_twice() {
    let tmp = tempfile::tempdir().unwrap();
    let s = open(tmp.path());
    s.write_skill_sync(Scope::User, &name("b"), &skill("b", "old")).unwrap();
    let mut batch = s.batch(Scope::User, RevisionEvent::Upload).unwrap();
    batch.stage(&name("a"), &skill("a", "one")).unwrap();
    batch.stage(&name("b"), &skill("b", "new")).unwrap();
    batch.stage(&name("a"), &skill("a", "two")).unwrap();
    assert_eq!(batch.stage(&name("c"), &SkillFiles::new()).unwrap_err().code(), "skill_md_missing");
    let mut swapped = 0;
    let out: Vec<(String, u64, Option<u64>)> = batch
        .commit(&mut |n| swapped = n)
        .into_iter()
        .map(|(n, r)| {
            let w = r.unwrap();
            (n.to_string(), w.revision.0, w.replaced.map(|r| r.0))
        })
        .collect();
    assert_eq!(swapped, 3);
    assert_eq!(
        out,
        vec![("a".to_owned(), 1, None), ("b".to_owned(), 2, Some(1)), ("a".to_owned(), 2, Some(1))],
        "in the order staged; a skill staged twice gets two revisions"
    );
    assert_eq!(s.snapshot(Scope::User, &name("a")).unwrap().files, skill("a", "two"));
    assert_eq!(s.history_sync(Scope::User, &name("b")).unwrap()[0].digest, Some(skill("b", "new").digest()));
    assert!(scope_leftovers(tmp.path()).is_empty(), "{:?}", scope_leftovers(tmp.path()));
}

#[test]
fn a_batch_dropped_without_commit_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let s = open(tmp.path());
    let mut batch = s.batch(Scope::User, RevisionEvent::Upload).unwrap();
    batch.stage(&name("a"), &skill("a", "one")).unwrap();
    assert!(!scope_leftovers(tmp.path()).is_empty(), "staged beside the store");
    drop(batch);
    assert!(scope_leftovers(tmp.path()).is_empty());
    assert!(s.list_skills_sync(Scope::User).unwrap().is_empty());
    let s = open(tmp.path());
    assert!(s.list_skills_sync(Scope::User).unwrap().is_empty(), "nor after the next start");
}

/// The journal files of the user scope.
fn journal_files(home: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(home.join("skills/user/.journal"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

#[test]
fn a_batch_notes_all_its_staging_entries_with_one_journal_file() {
    let tmp = tempfile::tempdir().unwrap();
    let s = open(tmp.path());
    let mut batch = s.batch(Scope::User, RevisionEvent::Upload).unwrap();
    for n in ["a", "b", "c"] {
        batch.stage(&name(n), &skill(n, "one")).unwrap();
    }
    let staged = scope_leftovers(tmp.path()).into_iter().filter(|n| n.starts_with(".staging-")).count();
    assert!(staged >= 3, "each skill staged beside the store");
    let noted = journal_files(tmp.path());
    assert_eq!(noted.len(), 1, "one journal file for the batch: {noted:?}");
    assert!(noted[0].starts_with(".batch-"), "{noted:?}");
    assert_eq!(batch.commit(&mut |_| {}).len(), 3);
    assert!(journal_files(tmp.path()).is_empty(), "the batch's journal file goes with its last entry");
    // A write after the batch is noted entry by entry again, and leaves nothing either.
    s.write_skill_sync(Scope::User, &name("a"), &skill("a", "two")).unwrap();
    assert!(scope_leftovers(tmp.path()).is_empty(), "{:?}", scope_leftovers(tmp.path()));
}

#[test]
fn recovery_after_a_killed_batch_finds_every_entry_its_one_journal_file_covers() {
    let tmp = tempfile::tempdir().unwrap();
    let s = open(tmp.path());
    s.write_skill_sync(Scope::User, &name("pdf"), &skill("pdf", "one")).unwrap();
    let user = tmp.path().join("skills/user");
    // As a batch of process 77 killed mid-way leaves them: one journal file, then its entries.
    noted(tmp.path(), ".batch-77-0");
    // A partial new tree of pdf: removed, revision 1 stands.
    fs::create_dir_all(user.join(".staging-77-0-pdf/references")).unwrap();
    fs::write(user.join(".staging-77-0-pdf/SKILL.md"), "half").unwrap();
    // A whole new tree for a skill with no current folder (cut between two renames): moved in.
    fs::create_dir_all(user.join(".staging-77-1-docx")).unwrap();
    fs::write(user.join(".staging-77-1-docx/SKILL.md"), "---\nname: docx\ndescription: d\n---\nb\n").unwrap();
    fs::write(user.join(".staging-77-1-docx/.version"), "1\n").unwrap();
    drop(s);
    let s = open(tmp.path());
    let mut left = scope_entries(tmp.path());
    left.sort();
    assert_eq!(left, vec!["docx".to_owned(), "pdf".to_owned()], "no staging entry and no journal file left");
    assert_eq!(s.revision_sync(Scope::User, &name("pdf")).unwrap(), Some(Revision(1)));
    assert_eq!(s.revision_sync(Scope::User, &name("docx")).unwrap(), Some(Revision(1)));
}

#[test]
fn a_batch_note_that_is_broken_or_covers_nothing_is_removed_and_touches_no_skill() {
    let tmp = tempfile::tempdir().unwrap();
    let s = open(tmp.path());
    s.write_skill_sync(Scope::User, &name("pdf"), &skill("pdf", "one")).unwrap();
    let user = tmp.path().join("skills/user");
    // No process id, a dot-dot or a pattern in place of one, a process that left nothing behind.
    for note in [".batch-", ".batch--0", ".batch-..-0", ".batch-*-0", ".batch-4242-0"] {
        noted(tmp.path(), note);
    }
    drop(s);
    let s = open(tmp.path());
    assert!(journal_files(tmp.path()).is_empty(), "{:?}", journal_files(tmp.path()));
    assert_eq!(scope_entries(tmp.path()), vec!["pdf".to_owned()]);
    assert!(user.join("pdf/SKILL.md").is_file());
    assert_eq!(s.revision_sync(Scope::User, &name("pdf")).unwrap(), Some(Revision(1)));
}

#[test]
fn a_batch_keeps_single_writers_and_recovery_out_of_its_scope_until_it_commits() {
    let tmp = tempfile::tempdir().unwrap();
    let s = open(tmp.path());
    let mut batch = s.batch(Scope::User, RevisionEvent::Upload).unwrap();
    batch.stage(&name("a"), &skill("a", "batch")).unwrap();
    // A recovery started meanwhile (another process opening the store) leaves the staging alone.
    let other = open(tmp.path());
    assert!(!scope_leftovers(tmp.path()).is_empty());
    let writer = std::thread::spawn(move || other.write_skill_sync(Scope::User, &name("a"), &skill("a", "single")));
    std::thread::sleep(std::time::Duration::from_millis(200));
    assert!(!writer.is_finished(), "a single writer waits for the batch");
    // The system scope is not held.
    s.write_skill_sync(Scope::System, &name("a"), &skill("a", "system")).unwrap();
    let out = batch.commit(&mut |_| {});
    assert_eq!(out[0].1.as_ref().unwrap().revision, Revision(1));
    assert_eq!(writer.join().unwrap().unwrap().revision, Revision(2), "then writes the next revision");
    assert_eq!(s.snapshot(Scope::User, &name("a")).unwrap().files, skill("a", "single"));
    assert!(scope_leftovers(tmp.path()).is_empty());
}

#[test]
fn an_edit_made_in_place_keeps_the_revision_it_replaced_byte_for_byte() {
    let tmp = tempfile::tempdir().unwrap();
    let s = open(tmp.path());
    let n = name("pdf");
    let mut v1 = skill("pdf", "one");
    v1.insert(RelPath::parse("scripts/run.sh").unwrap(), b"#!/bin/sh\necho one\n".to_vec());
    v1.insert(RelPath::parse("assets/logo.bin").unwrap(), vec![0, 159, 146, 150, 255]);
    s.write_skill_sync(Scope::User, &n, &v1).unwrap();
    // An editor writing in place (same inode), another replacing by rename, a file removed,
    // one added: what `vim`, VS Code, `git pull` and `rm` do to a live folder.
    let live = tmp.path().join("skills/user/pdf");
    std::io::Write::write_all(&mut fs::OpenOptions::new().append(true).open(live.join("SKILL.md")).unwrap(), b"more\n")
        .unwrap();
    fs::write(live.join("scripts/run.tmp"), "#!/bin/sh\necho two\n").unwrap();
    fs::rename(live.join("scripts/run.tmp"), live.join("scripts/run.sh")).unwrap();
    fs::remove_file(live.join("assets/logo.bin")).unwrap();
    fs::write(live.join("notes.md"), "new").unwrap();

    assert_eq!(s.adopt_external_edit(Scope::User, &n).unwrap(), Some(Revision(2)));
    assert_eq!(s.revision_files(Scope::User, &n, Revision(1)).unwrap(), v1, "v:1 is kept as it was written");
    let h = s.history_sync(Scope::User, &n).unwrap();
    assert!(h.iter().all(|e| e.restorable), "{h:?}");

    // v:2 is kept too: editing the live folder again cannot reach it.
    let v2 = s.revision_files(Scope::User, &n, Revision(2)).unwrap();
    fs::write(live.join("notes.md"), "changed again").unwrap();
    assert_eq!(s.revision_files(Scope::User, &n, Revision(2)).unwrap(), v2);
    assert_eq!(s.adopt_external_edit(Scope::User, &n).unwrap(), Some(Revision(3)));

    let out = s.restore_sync(Scope::User, &n, Revision(1)).unwrap();
    assert_eq!(out.revision, Revision(4));
    assert_eq!(s.snapshot(Scope::User, &n).unwrap().files, v1, "restored byte for byte");
    use std::os::unix::fs::PermissionsExt as _;
    assert_eq!(fs::metadata(live.join("scripts/run.sh")).unwrap().permissions().mode() & 0o111, 0o111);
}

#[test]
fn a_delete_after_an_edit_in_place_keeps_both_revisions() {
    let tmp = tempfile::tempdir().unwrap();
    let s = open(tmp.path());
    let n = name("pdf");
    s.write_skill_sync(Scope::User, &n, &skill("pdf", "one")).unwrap();
    fs::write(tmp.path().join("skills/user/pdf/references/guide.md"), "edited in place").unwrap();
    // No watcher ran: the delete itself takes the edit as its own revision first.
    assert_eq!(s.delete_skill_sync(Scope::User, &n).unwrap().revision, Revision(2));
    assert_eq!(s.revision_files(Scope::User, &n, Revision(1)).unwrap(), skill("pdf", "one"));
    let v2 = s.revision_files(Scope::User, &n, Revision(2)).unwrap();
    assert_eq!(v2.get("references/guide.md").unwrap(), b"edited in place");
    assert!(scope_leftovers(tmp.path()).is_empty(), "{:?}", scope_leftovers(tmp.path()));
}

#[test]
fn a_draft_is_a_working_copy_saved_as_one_revision_and_a_save_cut_short_is_not_reopened() {
    use skilldeck_store::drafts::{Draft, DraftError};
    let tmp = tempfile::tempdir().unwrap();
    let s = open(tmp.path());
    let n = name("pdf");
    s.write_skill_sync(Scope::User, &n, &skill("pdf", "one")).unwrap();
    let d = Draft::open(&s, Scope::User, &n).unwrap();
    d.write(&RelPath::parse("references/extra.md").unwrap(), b"more").unwrap();
    d.rename(&RelPath::parse("references/guide.md").unwrap(), &RelPath::parse("references/intro.md").unwrap()).unwrap();
    let dropped = tmp.path().join("dropped");
    fs::create_dir_all(dropped.join("deep")).unwrap();
    fs::write(dropped.join("deep/a.txt"), "a").unwrap();
    std::os::unix::fs::symlink("/etc/passwd", dropped.join("link")).unwrap();
    let limits = UploadLimits { max_file_bytes: 1 << 20, max_total_bytes: 1 << 20, max_files: 3 };
    assert_eq!(d.add_from(&dropped, "assets", &limits).unwrap(), vec!["assets/dropped/deep/a.txt"]);
    // A folder over a skill's limits (dropped by mistake) is refused before it is read.
    let many = tmp.path().join("many");
    fs::create_dir_all(&many).unwrap();
    for i in 0..4 {
        fs::write(many.join(format!("{i}.txt")), "x").unwrap();
    }
    let e = d.add_from(&many, "", &limits).unwrap_err();
    assert!(e.to_string().contains("at most 3 files") && e.to_string().contains("nothing of it was added"), "{e}");
    assert!(!d.files_dir().join("many").exists());
    assert_eq!(s.revision_sync(Scope::User, &n).unwrap(), Some(Revision(1)), "a draft is never a revision");
    assert_eq!(Draft::all(s.home()).len(), 1);

    // Another writer stores v:2 meanwhile: the save is refused, the draft kept.
    s.write_skill_sync(Scope::User, &n, &skill("pdf", "theirs")).unwrap();
    let e = Draft::open(&s, Scope::User, &n).unwrap().save(&s, false).unwrap_err();
    assert!(matches!(e, DraftError::Stale { current: Some(Revision(2)), .. }), "{e}");
    let out = Draft::open(&s, Scope::User, &n).unwrap().save(&s, true).unwrap().unwrap();
    assert_eq!(out.revision, Revision(3));
    let stored = s.snapshot(Scope::User, &n).unwrap().files;
    let paths: Vec<&str> = stored.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(paths, ["SKILL.md", "assets/dropped/deep/a.txt", "references/extra.md", "references/intro.md"]);
    assert!(Draft::all(s.home()).is_empty(), "a saved draft is gone");

    // A save whose revision landed but whose draft stayed (a crash between): reopening finds
    // the stored revision, not a stale draft.
    let d = Draft::open(&s, Scope::User, &n).unwrap();
    d.write(&RelPath::parse("SKILL.md").unwrap(), b"---\nname: pdf\ndescription: d\n---\nfour\n").unwrap();
    let (files, _) = d.files(1 << 20).unwrap();
    s.write_skill_sync(Scope::User, &n, &files).unwrap();
    let again = Draft::open(&s, Scope::User, &n).unwrap();
    assert_eq!(again.base(), Some(Revision(4)));
    assert!(!again.changed(1 << 20).unwrap());
}

#[test]
fn a_store_from_before_history_kept_each_revision_gets_the_current_ones_copied_once() {
    let tmp = tempfile::tempdir().unwrap();
    let s = open(tmp.path());
    for n in ["one", "two", "three"] {
        s.write_skill_sync(Scope::User, &name(n), &skill(n, "body")).unwrap();
    }
    // As an older version left them: no copy of the current revision in history.
    for n in ["one", "two", "three"] {
        fs::remove_dir_all(tmp.path().join("history/user").join(n).join("1")).unwrap();
    }
    // One of them was edited in place meanwhile: that edit becomes v:2 with its own copy.
    fs::write(tmp.path().join("skills/user/three/references/guide.md"), "edited").unwrap();
    assert_eq!(s.keep_current_copies(Scope::User).unwrap(), 3);
    assert_eq!(s.keep_current_copies(Scope::User).unwrap(), 0, "once");
    assert_eq!(s.revision_files(Scope::User, &name("one"), Revision(1)).unwrap(), skill("one", "body"));
    assert_eq!(s.revision_sync(Scope::User, &name("three")).unwrap(), Some(Revision(2)));
    assert!(tmp.path().join("history/user/three/2/references/guide.md").is_file());
    // From now on an edit in place keeps the revision it replaced.
    fs::write(tmp.path().join("skills/user/one/SKILL.md"), "---\nname: one\ndescription: d\n---\nnew\n").unwrap();
    s.adopt_external_edit(Scope::User, &name("one")).unwrap();
    assert_eq!(s.revision_files(Scope::User, &name("one"), Revision(1)).unwrap(), skill("one", "body"));
}

#[test]
fn history_links_a_file_a_revision_did_not_change_and_never_the_live_folder() {
    use std::os::unix::fs::MetadataExt as _;
    let tmp = tempfile::tempdir().unwrap();
    let s = open(tmp.path());
    let n = name("pdf");
    s.write_skill_sync(Scope::User, &n, &skill("pdf", "one")).unwrap();
    s.write_skill_sync(Scope::User, &n, &skill("pdf", "two")).unwrap();
    let ino = |p: &str| fs::metadata(tmp.path().join(p)).unwrap().ino();
    assert_eq!(ino("history/user/pdf/1/references/guide.md"), ino("history/user/pdf/2/references/guide.md"));
    assert_ne!(ino("history/user/pdf/1/SKILL.md"), ino("history/user/pdf/2/SKILL.md"));
    assert_ne!(ino("skills/user/pdf/references/guide.md"), ino("history/user/pdf/2/references/guide.md"));
    // An edit in place of the live file reaches no revision.
    fs::write(tmp.path().join("skills/user/pdf/references/guide.md"), "changed").unwrap();
    for rev in [1, 2] {
        assert_eq!(
            s.revision_files(Scope::User, &n, Revision(rev)).unwrap().get("references/guide.md").unwrap(),
            b"guide"
        );
    }
}
