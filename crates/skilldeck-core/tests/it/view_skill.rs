//! `view_skill` end to end on real folders: results, the per-turn memo, mid-turn uploads,
//! the schema's enum, and every failure mode injected for real with all-or-nothing checked.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use serde_json::{Value, json};
use skilldeck_core::SkillRegistry;
use skilldeck_mount::sandbox::Sandbox;
use skilldeck_mount::view_result::ViewResult;
use skilldeck_mount::view_skill::{MAX_VIEW_BYTES, Turn, tool_spec, view_skill};
use skilldeck_select::catalogue::Catalogue;
use skilldeck_select::listing::ListingOptions;
use skilldeck_skill::{RelPath, Scope, SkillFiles, SkillName};
use skilldeck_store::{FsStorage, SkilldeckHome};
use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};
use std::process::Command;

struct Fx {
    _tmp: tempfile::TempDir,
    ws: PathBuf,
    registry: SkillRegistry,
}

fn pdf(tag: &str) -> SkillFiles {
    [
        ("SKILL.md", format!("---\nname: pdf\ndescription: Extract text from PDF files\n---\n# PDF {tag}\n\nSee references/guide.md.\n").into_bytes()),
        ("references/guide.md", format!("guide {tag}").into_bytes()),
        ("scripts/run.sh", b"#!/bin/sh\necho hi\n".to_vec()),
        ("assets/logo.png", vec![0x89, b'P', b'N', b'G', 0, 0, 1, 2]),
        ("assets/big.txt", vec![b'a'; MAX_VIEW_BYTES as usize + 1]),
    ]
    .into_iter()
    .map(|(p, b)| (RelPath::parse(p).unwrap(), b))
    .collect()
}

impl Fx {
    fn new() -> Self {
        Self::with_ws(|tmp| tmp.join("ws"))
    }

    fn with_ws(ws: impl FnOnce(&Path) -> PathBuf) -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let storage = FsStorage::open(SkilldeckHome::new(tmp.path().join("home"))).unwrap();
        let ws = ws(tmp.path());
        fs::create_dir_all(&ws).unwrap();
        let fx = Self { ws, registry: SkillRegistry::new(storage), _tmp: tmp };
        fx.upload(pdf("v1"));
        fx
    }

    fn upload(&self, files: SkillFiles) {
        self.registry.write_skill(Scope::User, &SkillName::parse("pdf").unwrap(), &files).unwrap();
    }

    fn sandbox(&self) -> Sandbox {
        Sandbox::open(&self.ws).unwrap()
    }

    fn turn(&self, id: &str) -> Turn {
        Turn::begin(&self.registry, &ListingOptions::default(), id).unwrap()
    }

    fn call(&self, turn: &mut Turn, input: Value) -> Value {
        view_skill(&self.registry, &self.sandbox(), turn, &input).to_json()
    }

    fn mount(&self) -> PathBuf {
        self.ws.join(".skills/pdf")
    }
}

/// Every file under `dir` with its bytes; `None` when `dir` is absent.
fn tree(dir: &Path) -> Option<BTreeMap<String, Vec<u8>>> {
    if !dir.exists() {
        return None;
    }
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.insert(p.strip_prefix(dir).unwrap().display().to_string(), fs::read(&p).unwrap());
            }
        }
    }
    Some(out)
}

fn staging_left(ws: &Path) -> Vec<String> {
    fs::read_dir(ws.join(".skills"))
        .map(|rd| rd.map(|e| e.unwrap().file_name().into_string().unwrap()).filter(|n| n.contains("staging")).collect())
        .unwrap_or_default()
}

#[test]
fn results_are_exactly_the_contract() {
    let fx = Fx::new();
    let mut t = fx.turn("t1");
    assert_eq!(
        fx.call(&mut t, json!({"name": "pdf"})),
        json!({"skillName": "pdf", "path": null, "version": "1", "content": "# PDF v1\n\nSee references/guide.md.\n"})
    );
    assert_eq!(
        fx.call(&mut t, json!({"name": "pdf", "path": "references/guide.md"})),
        json!({"skillName": "pdf", "path": "references/guide.md", "version": "1", "content": "guide v1"})
    );
    assert_eq!(
        fx.call(&mut t, json!({"name": "pdf", "path": "SKILL.md"}))["content"],
        json!("---\nname: pdf\ndescription: Extract text from PDF files\n---\n# PDF v1\n\nSee references/guide.md.\n"),
        "a path is read verbatim"
    );
    assert_eq!(
        fx.call(&mut t, json!({"name": "pfd"})),
        json!({"skillName": "pfd", "path": null, "error": {"code": "skill_not_found", "message": "No listed skill is named \"pfd\". Did you mean pdf?"}})
    );
    assert_eq!(
        fx.call(&mut t, json!({"name": "pdf", "path": "references/nope.md"})),
        json!({"skillName": "pdf", "path": "references/nope.md", "error": {"code": "skill_file_not_found", "message": "The skill pdf has no file \"references/nope.md\"."}})
    );
    assert_eq!(
        fx.call(&mut t, json!({"name": "pdf", "path": ".version"}))["error"]["code"],
        "skill_file_not_found",
        "the sidecar never reaches a mount"
    );
    let binary = fx.call(&mut t, json!({"name": "pdf", "path": "assets/logo.png"}));
    assert_eq!(binary["error"]["code"], "skill_file_binary");
    assert!(
        binary["error"]["message"]
            .as_str()
            .unwrap()
            .contains("(8 bytes). It is in the workspace at .skills/pdf/assets/logo.png")
    );
    let big = fx.call(&mut t, json!({"name": "pdf", "path": "assets/big.txt"}));
    assert_eq!(big["error"]["code"], "skill_file_too_large");
    assert!(big["error"]["message"].as_str().unwrap().contains(".skills/pdf/assets/big.txt"));
    assert_eq!(fx.call(&mut t, json!({}))["error"]["code"], "skill_not_found");
    assert_eq!(fx.call(&mut t, json!({"name": "pdf", "path": 7}))["error"]["code"], "skill_path_invalid");
    // Scripts keep a runnable mode in the mount; .version is never copied.
    assert_eq!(fs::metadata(fx.mount().join("scripts/run.sh")).unwrap().mode() & 0o111, 0o111);
    assert!(!fx.mount().join(".version").exists());
    assert_eq!(tree(&fx.mount()).unwrap().len(), 5);
}

#[test]
fn bad_paths_are_refused_before_the_mount_is_touched() {
    let fx = Fx::new();
    let mut t = fx.turn("t1");
    for path in ["../x", "/etc/passwd", "a\\b", "references/../../x", "C:/x", "", "a\0b"] {
        let r = fx.call(&mut t, json!({"name": "pdf", "path": path}));
        assert_eq!(r["error"]["code"], "skill_path_invalid", "{path:?}: {r}");
        assert_eq!(r["path"], path);
    }
    assert!(!fx.ws.join(".skills").exists(), "nothing was mounted");
}

#[test]
fn compaction_and_the_client_view_are_whole_values() {
    let fx = Fx::new();
    let mut t = fx.turn("t1");
    let r = view_skill(&fx.registry, &fx.sandbox(), &mut t, &json!({"name": "pdf"}));
    assert_eq!(
        r.compacted().to_json(),
        json!({"skillName": "pdf", "path": null, "version": "1", "content": "[compacted]", "note": "Call view_skill again to reload."})
    );
    assert_eq!(
        serde_json::to_value(r.client_view()).unwrap(),
        json!({"skillName": "pdf", "path": null, "content": "Skill activated."})
    );
    let with_path =
        view_skill(&fx.registry, &fx.sandbox(), &mut t, &json!({"name": "pdf", "path": "references/guide.md"}));
    assert_eq!(with_path.compacted(), with_path, "only path-less results are compacted");
    let e = view_skill(&fx.registry, &fx.sandbox(), &mut t, &json!({"name": "nope"}));
    assert_eq!(e.compacted(), e);
    assert_eq!(serde_json::to_value(e.client_view()).unwrap(), e.to_json());
    let back: ViewResult = serde_json::from_value(r.compacted().to_json()).unwrap();
    assert_eq!(back, r.compacted());
}

#[test]
fn a_second_call_in_a_turn_copies_nothing() {
    let fx = Fx::new();
    let mut t = fx.turn("t1");
    fx.call(&mut t, json!({"name": "pdf"}));
    let ino = fs::metadata(fx.mount()).unwrap().ino();
    let guide = fx.mount().join("references/guide.md");
    fs::write(&guide, "edited in the workspace").unwrap();
    let mtime = fs::metadata(fx.mount().join("SKILL.md")).unwrap().mtime_nsec();
    fx.call(&mut t, json!({"name": "pdf"}));
    assert_eq!(
        fx.call(&mut t, json!({"name": "pdf", "path": "references/guide.md"}))["content"],
        "edited in the workspace"
    );
    assert_eq!(fs::metadata(fx.mount()).unwrap().ino(), ino, "the same folder: not copied again");
    assert_eq!(fs::metadata(fx.mount().join("SKILL.md")).unwrap().mtime_nsec(), mtime);
    // Another process in the same turn (a new Turn value with the same id) reuses the mount too.
    let mut same = fx.turn("t1");
    assert_eq!(
        fx.call(&mut same, json!({"name": "pdf", "path": "references/guide.md"}))["content"],
        "edited in the workspace"
    );
    // The next turn mounts afresh.
    let mut next = fx.turn("t2");
    assert_eq!(fx.call(&mut next, json!({"name": "pdf", "path": "references/guide.md"}))["content"], "guide v1");
    assert_ne!(fs::metadata(fx.mount()).unwrap().ino(), ino);
    assert!(staging_left(&fx.ws).is_empty());
}

#[test]
fn an_upload_mid_turn_does_not_change_what_the_turn_reads() {
    let fx = Fx::new();
    let mut t = fx.turn("t1");
    fx.upload(pdf("v2"));
    let r = fx.call(&mut t, json!({"name": "pdf"}));
    assert_eq!(
        (r["version"].as_str(), r["content"].as_str()),
        (Some("1"), Some("# PDF v1\n\nSee references/guide.md.\n"))
    );
    assert_eq!(fx.call(&mut t, json!({"name": "pdf", "path": "references/guide.md"}))["content"], "guide v1");
    let mut next = fx.turn("t2");
    assert!(next.listing().text.contains("- **pdf** (v:2)"));
    let r = fx.call(&mut next, json!({"name": "pdf"}));
    assert_eq!(
        (r["version"].as_str(), r["content"].as_str()),
        (Some("2"), Some("# PDF v2\n\nSee references/guide.md.\n"))
    );
    assert_eq!(tree(&fx.mount()).unwrap()["references/guide.md"], b"guide v2");
}

#[test]
fn the_enum_follows_the_listing() {
    let fx = Fx::new();
    let storage = fx.registry.storage();
    let md = |front: &str| -> SkillFiles {
        [(RelPath::parse("SKILL.md").unwrap(), format!("---\n{front}---\nbody\n").into_bytes())].into_iter().collect()
    };
    for (name, front) in [
        ("notes", "name: notes\ndescription: keep notes\n"),
        ("broken", "name: broken\n"),
        ("big-brain", "name: big-brain\ndescription: needs ultra\nmin_tier: ultra\n"),
        ("off", "name: off\ndescription: switched off\n"),
    ] {
        storage.write_skill_sync(Scope::User, &SkillName::parse(name).unwrap(), &md(front)).unwrap();
    }
    fx.registry.invalidate(Scope::User, None);
    let opts = skilldeck_select::listing::ListingOptions {
        tier: skilldeck_skill::Tier::Lite,
        disabled: ["off".to_owned()].into(),
        ..ListingOptions::default()
    };
    let mut t = Turn::begin(&fx.registry, &opts, "t1").unwrap();
    let spec = t.spec().unwrap();
    assert_eq!(spec.name, "view_skill");
    assert_eq!(
        spec.parameters,
        json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "enum": ["notes", "pdf"], "description": "The skill's name, as listed."},
                "path": {"type": "string", "description": "A file inside the skill, relative to its folder. Omit it to load the instructions."}
            },
            "required": ["name"],
            "additionalProperties": false
        })
    );
    for gated in ["broken", "big-brain", "off"] {
        assert_eq!(fx.call(&mut t, json!({"name": gated}))["error"]["code"], "skill_not_found", "{gated}");
    }
    let none = skilldeck_select::listing::ListingOptions { scopes: vec![], ..ListingOptions::default() };
    assert!(tool_spec(&fx.registry.listing(&none).unwrap()).is_none());
}

/// Asserts a copy failure left the previous mount (or none) and no staging.
fn assert_copy_failed(fx: &Fx, r: &Value, before: &Option<BTreeMap<String, Vec<u8>>>) {
    assert_eq!(r["error"]["code"], "skill_copy_failed", "{r}");
    assert_eq!(&tree(&fx.mount()), before, "the previous mount stands whole");
    if fx.ws.join(".skills").is_dir() {
        assert!(staging_left(&fx.ws).is_empty(), "{:?}", staging_left(&fx.ws));
    }
}

#[test]
fn files_in_the_way_fail_cleanly() {
    let fx = Fx::new();
    fs::write(fx.ws.join(".skills"), "a file where the folder should be").unwrap();
    let r = fx.call(&mut fx.turn("t1"), json!({"name": "pdf"}));
    assert_eq!(r["error"]["code"], "skill_copy_failed");
    assert_eq!(fs::read_to_string(fx.ws.join(".skills")).unwrap(), "a file where the folder should be");
    fs::remove_file(fx.ws.join(".skills")).unwrap();
    fs::create_dir_all(fx.ws.join(".skills")).unwrap();
    fs::write(fx.mount(), "mine").unwrap();
    let r = fx.call(&mut fx.turn("t2"), json!({"name": "pdf"}));
    assert_eq!(r["error"]["code"], "skill_copy_failed");
    assert!(r["error"]["message"].as_str().unwrap().contains(".skills/pdf exists and is not a folder"), "{r}");
    assert_eq!(fs::read_to_string(fx.mount()).unwrap(), "mine");
    assert!(staging_left(&fx.ws).is_empty());
}

#[test]
fn a_folder_skilldeck_did_not_mount_is_never_replaced() {
    let fx = Fx::new();
    // A repository that commits its own `.skills/pdf/`, with no mount record beside it.
    fs::create_dir_all(fx.mount().join("notes")).unwrap();
    fs::write(fx.mount().join("mine.txt"), "my own file").unwrap();
    fs::write(fx.mount().join("notes/todo.md"), "- keep me").unwrap();
    let before = tree(&fx.mount());
    let r = fx.call(&mut fx.turn("t1"), json!({"name": "pdf"}));
    assert_eq!(r["error"]["code"], "skill_copy_failed", "{r}");
    let message = r["error"]["message"].as_str().unwrap();
    assert!(message.contains(".skills/pdf holds files Skilldeck did not put there"), "{message}");
    assert!(message.contains("move or rename it"), "{message}");
    assert_eq!(tree(&fx.mount()), before, "the user's folder is untouched");
    assert!(staging_left(&fx.ws).is_empty());
    // Moved away, the skill mounts; a mount of Skilldeck's own is replaced as before.
    fs::rename(fx.mount(), fx.ws.join("my-pdf")).unwrap();
    let r = fx.call(&mut fx.turn("t2"), json!({"name": "pdf"}));
    assert!(r.get("error").is_none(), "{r}");
    fx.upload(pdf("v2"));
    let r = fx.call(&mut fx.turn("t3"), json!({"name": "pdf"}));
    assert!(r.get("error").is_none(), "{r}");
    assert_eq!(fs::read_to_string(fx.ws.join("my-pdf/mine.txt")).unwrap(), "my own file");
}

/// Mounts a tmpfs at `dir` with `opts`; false when this machine does not allow it (not root).
fn tmpfs(dir: &Path, opts: &str) -> bool {
    fs::create_dir_all(dir).unwrap();
    Command::new("mount").args(["-t", "tmpfs", "-o", opts, "tmpfs"]).arg(dir).status().is_ok_and(|s| s.success())
}

struct Unmount(PathBuf);
impl Drop for Unmount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

#[test]
fn a_read_only_workspace_keeps_the_previous_mount() {
    let mut guard = None;
    let fx = Fx::with_ws(|tmp| {
        let ws = tmp.join("ws");
        if tmpfs(&ws, "size=8m") {
            guard = Some(Unmount(ws.clone()));
        }
        ws
    });
    fx.call(&mut fx.turn("t1"), json!({"name": "pdf"}));
    let before = tree(&fx.mount());
    fx.upload(pdf("v2"));
    if guard.is_some() {
        let ok = Command::new("mount").args(["-o", "remount,ro"]).arg(&fx.ws).status().unwrap().success();
        assert!(ok, "remount read-only");
    } else {
        // Not root: permissions stop the writer instead.
        use std::os::unix::fs::PermissionsExt as _;
        fs::set_permissions(fx.ws.join(".skills"), fs::Permissions::from_mode(0o555)).unwrap();
    }
    let r = fx.call(&mut fx.turn("t2"), json!({"name": "pdf"}));
    assert_copy_failed(&fx, &r, &before);
    assert_eq!(before.unwrap()["references/guide.md"], b"guide v1");
}

#[test]
fn a_full_disk_mid_copy_leaves_no_half_copied_skill() {
    let mut guard = None;
    let fx = Fx::with_ws(|tmp| {
        let ws = tmp.join("ws");
        if tmpfs(&ws, "size=1m") {
            guard = Some(Unmount(ws.clone()));
        }
        ws
    });
    if guard.is_none() {
        skilldeck_testkit::require("root", "mounting a small tmpfs needs root", "run the tests as root");
        return;
    }
    // First mount fits; the next revision does not (2 MiB of references).
    let small: SkillFiles = pdf("v1")
        .iter()
        .filter(|(p, _)| p.as_str() != "assets/big.txt")
        .map(|(p, b)| (p.clone(), b.to_vec()))
        .collect();
    fx.upload(small.clone());
    fx.call(&mut fx.turn("t1"), json!({"name": "pdf"}));
    let before = tree(&fx.mount());
    assert!(before.is_some());
    let mut large = small;
    for i in 0..8 {
        large.insert(RelPath::parse(&format!("references/part{i}.md")).unwrap(), vec![b'x'; 256 * 1024]);
    }
    fx.upload(large);
    let r = fx.call(&mut fx.turn("t2"), json!({"name": "pdf"}));
    assert_copy_failed(&fx, &r, &before);
    // Which file the disk fills on depends on the copy order; the rest of the message does not.
    let message = r["error"]["message"].as_str().unwrap();
    let file = message.split_once("while copying ").and_then(|(_, rest)| rest.split_once(';')).map(|(f, _)| f);
    let file = file.unwrap_or_else(|| panic!("{message}"));
    assert!(file.starts_with(".skills/pdf/references/part"), "{message}");
    assert_eq!(
        message,
        format!(
            "Could not copy the skill into the workspace: the workspace is full (No space left on device (os error 28)) \
             while copying {file}; free space and call view_skill again. Nothing was left half-copied."
        )
    );
}

/// What `path` names, without following it: "symlink -> target", "fifo", "dir", or the file's bytes.
fn planted(path: &Path) -> String {
    let meta = fs::symlink_metadata(path).unwrap();
    let ft = meta.file_type();
    if ft.is_symlink() {
        format!("symlink -> {}", fs::read_link(path).unwrap().display())
    } else if ft.is_dir() {
        "dir".to_owned()
    } else if std::os::unix::fs::FileTypeExt::is_fifo(&ft) {
        "fifo".to_owned()
    } else {
        format!("file {:?} links {}", fs::read_to_string(path).unwrap(), meta.nlink())
    }
}

#[test]
fn what_stands_at_the_mount_record_is_reported_never_followed_nor_blocked_on() {
    // A record of this very turn, as a symlink might lead to it to pass a planted mount off.
    let forged = r#"{"turn":"t1","scope":"user","revision":1,"version":"1"}"#;
    // (case, what to plant given the workspace and a path outside it, what the error calls it)
    type Plant<'a> = dyn Fn(&Path, &Path) + 'a;
    let cases: [(&str, &Plant<'_>, &str); 5] = [
        (
            "a symlink to a forged record, beside a forged mount",
            &|ws, _| {
                fs::create_dir_all(ws.join(".skills/pdf")).unwrap();
                fs::write(ws.join(".skills/pdf/SKILL.md"), "forged").unwrap();
                fs::write(ws.join("forged.json"), forged).unwrap();
                std::os::unix::fs::symlink("../forged.json", ws.join(".skills/.pdf.mount.json")).unwrap();
            },
            "a symbolic link",
        ),
        (
            "a symlink out of the workspace",
            &|ws, outside| {
                fs::write(outside, forged).unwrap();
                std::os::unix::fs::symlink(outside, ws.join(".skills/.pdf.mount.json")).unwrap();
            },
            "a symbolic link",
        ),
        (
            "a FIFO nobody writes to",
            &|ws, _| {
                let ok = Command::new("mkfifo").arg(ws.join(".skills/.pdf.mount.json")).status().unwrap().success();
                assert!(ok, "mkfifo");
            },
            "a named pipe (FIFO)",
        ),
        ("a folder", &|ws, _| fs::create_dir(ws.join(".skills/.pdf.mount.json")).unwrap(), "a folder"),
        (
            "a hard link to another file",
            &|ws, _| {
                fs::write(ws.join("notes.txt"), "mine").unwrap();
                fs::hard_link(ws.join("notes.txt"), ws.join(".skills/.pdf.mount.json")).unwrap();
            },
            "a hard link to another file",
        ),
    ];
    for (case, plant, kind) in cases {
        let fx = Fx::new();
        let outside = fx._tmp.path().join("outside.json");
        fs::create_dir_all(fx.ws.join(".skills")).unwrap();
        plant(&fx.ws, &outside);
        let record = fx.ws.join(".skills/.pdf.mount.json");
        let (before, planted_before) = (tree(&fx.mount()), planted(&record));
        let r = fx.call(&mut fx.turn("t1"), json!({"name": "pdf"}));
        let expected = ViewResult::error(
            "pdf",
            None,
            skilldeck_mount::view_result::ViewErrorCode::SkillCopyFailed,
            format!(
                ".skills/.pdf.mount.json is {kind} where Skilldeck keeps the mount record; move it away and call view_skill again"
            ),
        );
        assert_eq!(r, expected.to_json(), "{case}");
        assert_eq!(tree(&fx.mount()), before, "{case}: the previous mount (or none) stands");
        assert_eq!(planted(&record), planted_before, "{case}: left as it was");
        assert!(staging_left(&fx.ws).is_empty(), "{case}: {:?}", staging_left(&fx.ws));
        if outside.exists() {
            assert_eq!(fs::read_to_string(&outside).unwrap(), forged, "{case}");
        }
        // Once it is moved away, the same turn mounts. A planted folder at the mount has no
        // record of its own then: it is someone's files, refused until it is moved too.
        if fs::symlink_metadata(&record).unwrap().is_dir() {
            fs::remove_dir(&record).unwrap();
        } else {
            fs::remove_file(&record).unwrap();
        }
        if fx.mount().exists() {
            let r = fx.call(&mut fx.turn("t1"), json!({"name": "pdf"}));
            assert!(r["error"]["message"].as_str().unwrap().contains("did not put there"), "{case}: {r}");
            fs::rename(fx.mount(), fx.ws.join("planted")).unwrap();
        }
        let r = fx.call(&mut fx.turn("t1"), json!({"name": "pdf"}));
        assert_eq!(r["content"], "# PDF v1\n\nSee references/guide.md.\n", "{case}: {r}");
    }
}

#[test]
fn a_sparse_file_planted_in_the_store_is_refused_not_written_out_dense() {
    use std::os::unix::fs::FileExt as _;
    let fx = Fx::new();
    fx.call(&mut fx.turn("t1"), json!({"name": "pdf"}));
    let before = tree(&fx.mount());
    // 1 GiB long, a few bytes written: what no upload could store (32 MiB a file).
    let store = fx.registry.storage().skill_dir(Scope::User, &SkillName::parse("pdf").unwrap());
    let huge = fs::File::create(store.join("assets/huge.bin")).unwrap();
    huge.set_len(1 << 30).unwrap();
    huge.write_all_at(b"sparse", 1 << 20).unwrap();
    let r = fx.call(&mut fx.turn("t2"), json!({"name": "pdf"}));
    let expected = ViewResult::error(
        "pdf",
        None,
        skilldeck_mount::view_result::ViewErrorCode::SkillCopyFailed,
        "Could not copy the skill into the workspace: the stored skill is over the store's limits \
         (assets/huge.bin is 1073741824 bytes; the limit for one file is 33554432 bytes), so it was changed \
         outside Skilldeck and is not copied; ask the user to remove the file from the stored skill or upload \
         the skill again. Nothing was left half-copied.",
    );
    assert_eq!(r, expected.to_json());
    assert_copy_failed(&fx, &r, &before);
    let used: u64 = fs::read_dir(fx.ws.join(".skills")).unwrap().map(|e| e.unwrap().metadata().unwrap().blocks()).sum();
    assert!(used * 512 < 1 << 20, "nothing large was written into the workspace: {used} blocks");
}

/// Stops a background thread even when an assertion fails, so a thread scope can end.
struct Stop<'a>(&'a std::sync::atomic::AtomicBool);
impl Drop for Stop<'_> {
    fn drop(&mut self) {
        self.0.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

#[test]
fn source_files_vanishing_mid_copy_never_leave_a_partial_mount() {
    let fx = Fx::new();
    let mut files = pdf("v1");
    for i in 0..200 {
        files.insert(RelPath::parse(&format!("references/{i}.md")).unwrap(), vec![b'r'; 4096]);
    }
    fx.upload(files);
    let store = fx.registry.storage().skill_dir(Scope::User, &SkillName::parse("pdf").unwrap());
    let stop = std::sync::atomic::AtomicBool::new(false);
    let (mut ok, mut failed) = (0, 0);
    std::thread::scope(|sc| {
        sc.spawn(|| {
            // An edit outside the app: files disappear and come back while turns mount them.
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                for i in (0..200).step_by(7) {
                    let p = store.join(format!("references/{i}.md"));
                    let _ = fs::remove_file(&p);
                    let _ = fs::write(&p, vec![b'r'; 4096]);
                }
            }
        });
        let _stop = Stop(&stop);
        for turn in 0..30 {
            let before = tree(&fx.mount());
            let r = fx.call(&mut fx.turn(&format!("t{turn}")), json!({"name": "pdf"}));
            if r.get("error").is_some() {
                assert_copy_failed(&fx, &r, &before);
                failed += 1;
            } else {
                let now = tree(&fx.mount()).unwrap();
                assert!(now.contains_key("SKILL.md") && now.contains_key("scripts/run.sh"));
                assert!(staging_left(&fx.ws).is_empty());
                ok += 1;
            }
        }
    });
    eprintln!("mounted {ok}, refused {failed}");
    assert_eq!(ok + failed, 30);
}

#[test]
fn uploads_racing_a_mount_never_mix_two_revisions_in_it() {
    let fx = Fx::new();
    let tagged = |tag: &str| -> SkillFiles {
        let mut f = pdf(tag);
        for i in 0..150 {
            f.insert(RelPath::parse(&format!("references/{i}.md")).unwrap(), tag.as_bytes().to_vec());
        }
        f
    };
    fx.upload(tagged("r2"));
    let stop = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|sc| {
        let writer = sc.spawn(|| {
            let mut n = 3;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) && n < 60 {
                fx.upload(tagged(&format!("r{n}")));
                n += 1;
            }
        });
        for turn in 0..25 {
            let mut t = fx.turn(&format!("t{turn}"));
            let r = fx.call(&mut t, json!({"name": "pdf"}));
            let version = r["version"].as_str().unwrap_or_else(|| panic!("{r}")).to_owned();
            let mount = tree(&fx.mount()).unwrap();
            let tags: std::collections::BTreeSet<&[u8]> = mount
                .iter()
                .filter(|(p, _)| p.starts_with("references/") && p != &"references/guide.md")
                .map(|(_, b)| b.as_slice())
                .collect();
            assert_eq!(tags.len(), 1, "one revision whole in the mount");
            assert_eq!(
                tags.into_iter().next().unwrap(),
                format!("r{version}").as_bytes(),
                "the version named is the one mounted"
            );
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        writer.join().unwrap();
    });
}

#[test]
fn imports_racing_mounts_never_fail_a_mount() {
    let fx = Fx::new();
    // Each revision names its files after itself, so a copy still reading a folder that was
    // swapped out finds its files gone rather than replaced.
    let numbered = |rev: u64| -> BTreeMap<String, Vec<u8>> {
        let mut f: BTreeMap<String, Vec<u8>> = pdf(&format!("r{rev}"))
            .iter()
            .filter(|(p, _)| p.as_str() != "assets/big.txt")
            .map(|(p, b)| (p.to_string(), b.to_vec()))
            .collect();
        for i in 0..150 {
            f.insert(format!("references/r{rev}-{i}.md"), format!("r{rev}").into_bytes());
        }
        f
    };
    let upload =
        |rev: u64| fx.upload(numbered(rev).into_iter().map(|(p, b)| (RelPath::parse(&p).unwrap(), b)).collect());
    upload(2);
    let stop = std::sync::atomic::AtomicBool::new(false);
    let mut overtaken = 0;
    std::thread::scope(|sc| {
        let writer = sc.spawn(|| {
            let mut rev = 3;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) && rev < 200 {
                upload(rev);
                rev += 1;
            }
        });
        let _stop = Stop(&stop);
        for turn in 0..25 {
            let mut t = fx.turn(&format!("t{turn}"));
            let listed = t.listing().skills[0].revision.unwrap().0;
            let r = fx.call(&mut t, json!({"name": "pdf"}));
            assert_eq!(r["version"], listed.to_string(), "mount {turn} did not mount the listed revision: {r}");
            assert_eq!(tree(&fx.mount()).unwrap(), numbered(listed), "one revision whole in the mount");
            let live = fx.registry.storage().revision_sync(Scope::User, &SkillName::parse("pdf").unwrap());
            overtaken += usize::from(live.unwrap().unwrap().0 != listed);
        }
        drop(_stop);
        writer.join().unwrap();
    });
    eprintln!("25 mounts, {overtaken} finished after an import had replaced the revision they mounted");
}

#[test]
fn a_skill_naming_its_folder_by_claude_codes_variable_is_told_the_mount_path() {
    let fx = Fx::new();
    let mut files = pdf("v2");
    files.insert(
        RelPath::parse("SKILL.md").unwrap(),
        b"---\nname: pdf\ndescription: Extract text from PDF files\n---\nRun `${CLAUDE_SKILL_DIR}/scripts/run.sh`.\n"
            .to_vec(),
    );
    files.insert(RelPath::parse("references/guide.md").unwrap(), b"cd $CLAUDE_SKILL_DIR && ls".to_vec());
    fx.upload(files);
    let mut t = fx.turn("t1");
    let note = "In this skill ${CLAUDE_SKILL_DIR} stands for .skills/pdf, the folder the skill is mounted in (relative \
                to the workspace): use that path wherever the text writes the variable.";
    assert_eq!(
        fx.call(&mut t, json!({"name": "pdf"})),
        json!({"skillName": "pdf", "path": null, "version": "2",
               "content": "Run `${CLAUDE_SKILL_DIR}/scripts/run.sh`.\n", "note": note}),
        "the text stays as written; the note says what the variable stands for"
    );
    assert_eq!(fx.call(&mut t, json!({"name": "pdf", "path": "references/guide.md"}))["note"], json!(note));
    assert!(fx.mount().join("scripts/run.sh").is_file(), "the path the note names holds the skill");
    // A compacted result keeps the compaction's note only.
    let r: ViewResult = serde_json::from_value(fx.call(&mut t, json!({"name": "pdf"}))).unwrap();
    assert_eq!(r.compacted().to_json()["note"], "Call view_skill again to reload.");
    // A skill that names no variable gets no note (today's exact shape).
    assert!(fx.call(&mut t, json!({"name": "pdf", "path": "scripts/run.sh"})).get("note").is_none());
}
