//! Listed digests: a revision's recorded digest is the one its files hash to, an edit on disk
//! is seen (same size, modification time put back), and a record without a seal still lists.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use skilldeck_core::SkillRegistry;
use skilldeck_skill::{Digest, Scope, SkillName, UploadLimits};
use skilldeck_store::import;
use skilldeck_store::{FsStorage, SkilldeckHome};
use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

const MD: &str = "---\nname: pdf\ndescription: Extract text from PDF files\n---\n# PDF\nRead it.\n";

/// A store with `pdf` imported from a folder of three files; returns the skill's folder.
fn imported() -> (tempfile::TempDir, FsStorage, PathBuf, Digest) {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src/pdf");
    fs::create_dir_all(src.join("scripts")).unwrap();
    fs::create_dir_all(src.join("references/deep")).unwrap();
    fs::write(src.join("SKILL.md"), MD).unwrap();
    fs::write(src.join("scripts/run.py"), "print('one')\n").unwrap();
    fs::write(src.join("references/deep/guide.md"), "# Guide\n").unwrap();
    let storage = FsStorage::open(SkilldeckHome::new(tmp.path().join("home"))).unwrap();
    let loaded = import::load(&src, UploadLimits::default(), &mut |_, _| {}).unwrap();
    let out = import::store(&storage, Scope::User, &loaded).unwrap();
    let dir = storage.stored_dir(Scope::User, &name()).unwrap();
    (tmp, storage, dir, out.digest())
}

fn name() -> SkillName {
    SkillName::parse("pdf").unwrap()
}

/// What a fresh listing (a new process) shows, and what the files hash to now.
fn listed_and_recomputed(storage: &FsStorage) -> (Digest, Digest, Digest) {
    let listing = SkillRegistry::new(storage.clone()).with_digests(true);
    let entries = listing.list_metas(Scope::User).unwrap();
    assert_eq!(entries.len(), 1);
    let listed = listing.digest(Scope::User, "pdf").unwrap();
    let asked = SkillRegistry::new(storage.clone()).digest(Scope::User, "pdf").unwrap();
    let recomputed = storage.snapshot(Scope::User, &name()).unwrap().files.digest();
    (listed, asked, recomputed)
}

/// Rewrites `path` in place with `bytes` (the same length), putting its modification time back.
fn edit_keeping_mtime(path: &Path, bytes: &[u8]) {
    let mtime = fs::metadata(path).unwrap().modified().unwrap();
    assert_eq!(fs::read(path).unwrap().len(), bytes.len(), "the edit keeps the size");
    fs::write(path, bytes).unwrap();
    fs::File::options().write(true).open(path).unwrap().set_modified(mtime).unwrap();
    assert_eq!(fs::metadata(path).unwrap().modified().unwrap(), mtime);
}

#[test]
fn an_imported_revision_lists_the_digest_its_files_hash_to() {
    let (_tmp, storage, dir, written) = imported();
    let record = fs::read_to_string(dir.join(".revision.json")).unwrap();
    assert!(record.contains("\"seal\""), "the record carries the seal: {record}");
    assert_eq!(listed_and_recomputed(&storage), (written, written, written));
}

#[test]
fn a_same_size_edit_with_the_mtime_put_back_is_seen() {
    for file in ["scripts/run.py", "references/deep/guide.md", "SKILL.md"] {
        let (_tmp, storage, dir, written) = imported();
        let path = dir.join(file);
        let mut bytes = fs::read(&path).unwrap();
        let last = bytes.len() - 2;
        bytes[last] = if bytes[last] == b'X' { b'Y' } else { b'X' };
        edit_keeping_mtime(&path, &bytes);
        let (listed, asked, recomputed) = listed_and_recomputed(&storage);
        assert_ne!(recomputed, written, "{file}: the edit changed the content");
        assert_eq!((listed, asked), (recomputed, recomputed), "{file}: the listing shows the edit");
    }
}

#[test]
fn a_file_added_removed_or_replaced_is_seen() {
    type Change = fn(&Path);
    let changes: [(&str, Change); 4] = [
        ("added", |d| fs::write(d.join("references/new.md"), "new").unwrap()),
        ("removed", |d| fs::remove_file(d.join("scripts/run.py")).unwrap()),
        ("replaced by rename", |d| {
            fs::write(d.join("scripts/tmp"), "print('two')\n").unwrap();
            fs::rename(d.join("scripts/tmp"), d.join("scripts/run.py")).unwrap();
        }),
        ("emptied folder", |d| {
            fs::remove_file(d.join("references/deep/guide.md")).unwrap();
        }),
    ];
    for (label, change) in changes {
        let (_tmp, storage, dir, written) = imported();
        change(&dir);
        let (listed, asked, recomputed) = listed_and_recomputed(&storage);
        assert_ne!(recomputed, written, "{label}");
        assert_eq!((listed, asked), (recomputed, recomputed), "{label}");
    }
}

#[test]
fn touching_a_file_without_changing_it_keeps_the_digest() {
    let (_tmp, storage, dir, written) = imported();
    let now = SystemTime::now();
    for file in ["SKILL.md", "scripts/run.py"] {
        fs::File::options().write(true).open(dir.join(file)).unwrap().set_modified(now).unwrap();
    }
    assert_eq!(listed_and_recomputed(&storage), (written, written, written));
}

#[test]
fn a_record_without_a_seal_still_lists_the_right_digest() {
    let (_tmp, storage, dir, written) = imported();
    // A record as versions before seals wrote it: the log line alone.
    let record: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(dir.join(".revision.json")).unwrap()).unwrap();
    let mut old = record.as_object().unwrap().clone();
    assert!(old.remove("seal").is_some());
    fs::write(dir.join(".revision.json"), serde_json::to_string(&old).unwrap() + "\n").unwrap();
    let before = fs::read(dir.join(".revision.json")).unwrap();
    assert_eq!(listed_and_recomputed(&storage), (written, written, written));
    assert_eq!(fs::read(dir.join(".revision.json")).unwrap(), before, "a read rewrites nothing");
    // And an edit under it is seen too.
    fs::write(dir.join("scripts/run.py"), "print('two')\n").unwrap();
    let (listed, asked, recomputed) = listed_and_recomputed(&storage);
    assert_ne!(recomputed, written);
    assert_eq!((listed, asked), (recomputed, recomputed));
    // The history still reads the old record.
    let history = storage.history_sync(Scope::User, &name()).unwrap();
    assert_eq!(history[0].digest, Some(written));
}

#[test]
fn a_record_of_another_revision_is_not_trusted() {
    let (_tmp, storage, dir, written) = imported();
    // `.version` moved on (as the watcher does, record first) but the files changed since.
    fs::write(dir.join("scripts/run.py"), "print('six')\n").unwrap();
    fs::write(dir.join(".version"), "7\n").unwrap();
    let (listed, _, recomputed) = listed_and_recomputed(&storage);
    assert_ne!(recomputed, written);
    assert_eq!(listed, recomputed);
}

#[test]
fn the_watcher_bumps_only_on_a_real_change() {
    let (_tmp, storage, dir, written) = imported();
    fs::File::options().write(true).open(dir.join("scripts/run.py")).unwrap().set_modified(SystemTime::now()).unwrap();
    assert_eq!(storage.adopt_external_edit(Scope::User, &name()).unwrap(), None, "same digest, no bump");
    let mut bytes = fs::read(dir.join("scripts/run.py")).unwrap();
    bytes[0] = b'P';
    edit_keeping_mtime(&dir.join("scripts/run.py"), &bytes);
    let rev = storage.adopt_external_edit(Scope::User, &name()).unwrap();
    assert!(rev.is_some(), "a same-size edit with the mtime put back is a new revision");
    let (listed, asked, recomputed) = listed_and_recomputed(&storage);
    assert_ne!(recomputed, written);
    assert_eq!((listed, asked), (recomputed, recomputed));
    assert_eq!(storage.adopt_external_edit(Scope::User, &name()).unwrap(), None, "adopted once");
}

#[test]
fn the_listing_takes_the_recorded_digest_while_the_seal_holds() {
    let (_tmp, storage, dir, written) = imported();
    // A record naming another digest: a listing that believes the seal shows it, which proves
    // it did not hash the files (the snapshot still does).
    let other = Digest::of([]);
    let text = fs::read_to_string(dir.join(".revision.json")).unwrap();
    fs::write(dir.join(".revision.json"), text.replace(&written.long(), &other.long())).unwrap();
    assert_eq!(listed_and_recomputed(&storage), (other, other, written));
}
