//! The persisted parse cache: a listing from it equals a cold parse, an edit on disk is seen by
//! its stamps and parsed again, and a corrupt or truncated cache file is ignored and rebuilt.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use skilldeck_core::{DiskCacheStats, SkillRegistry};
use skilldeck_skill::{Scope, SkillName, UploadLimits};
use skilldeck_store::import;
use skilldeck_store::{FsStorage, SkilldeckHome};
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// Skills of every shape a listing shows: valid, with warnings, with a recovered description,
/// invalid, with references and scripts, and a folder without `SKILL.md`.
const SKILLS: &[(&str, &str)] = &[
    ("pdf", "---\nname: pdf\ndescription: Extract text from PDF files\nversion: 1.2.0\n---\n# PDF\n"),
    (
        "market",
        "---\nname: market\ndescription: Important: systematic market analysis\nauthor: Ann\ntags: [a, b]\n\
         metadata:\n  aibuddy:\n    dependencies:\n      python: [pandas]\n---\nBody\n",
    ),
    ("broken", "---\nname: Not_Valid\ndescription:\n---\nBody\n"),
    ("unclosed", "---\nname: unclosed\ndescription: never closed\n"),
    (
        "wide",
        "---\nname: wide\ndescription: >\n  Spans\n  two lines\nmin_tier: lite\nallowed-tools: Bash(git:*) Read\n---\nx\n",
    ),
];

struct Store {
    _tmp: tempfile::TempDir,
    home: PathBuf,
    storage: FsStorage,
}

fn store() -> Store {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let storage = FsStorage::open(SkilldeckHome::new(&home)).unwrap();
    for (name, md) in SKILLS {
        let src = tmp.path().join("src").join(name);
        fs::create_dir_all(src.join("references")).unwrap();
        fs::write(src.join("SKILL.md"), md).unwrap();
        fs::write(src.join("references/guide.md"), format!("# Guide for {name}\n")).unwrap();
        let loaded = import::load(&src, UploadLimits::default(), &mut |_, _| {}).unwrap();
        import::store(&storage, Scope::User, &loaded).unwrap();
    }
    // A folder copied in by hand, with no SKILL.md.
    fs::create_dir_all(home.join("skills/user/empty/assets")).unwrap();
    fs::write(home.join("skills/user/empty/assets/a.txt"), "a").unwrap();
    Store { _tmp: tmp, home, storage }
}

/// A registry as a new process makes one, trusting stamps however fresh they are.
fn registry(storage: &FsStorage, disk_cache: bool) -> SkillRegistry {
    SkillRegistry::new(storage.clone())
        .with_digests(true)
        .with_disk_cache(disk_cache)
        .with_settle_window(Duration::ZERO)
}

/// The listing as `list --json` shows it: every entry, with its digest.
fn listing(r: &SkillRegistry) -> String {
    let entries = r.list_metas(Scope::User).unwrap();
    let rows: Vec<_> = entries
        .iter()
        .map(|e| serde_json::json!({"entry": &**e, "digest": r.digest(Scope::User, &e.name).ok().map(|d| d.long())}))
        .collect();
    serde_json::to_string_pretty(&rows).unwrap()
}

/// A listing by a new registry, and what its disk cache did.
fn list_once(storage: &FsStorage) -> (String, DiskCacheStats) {
    let r = registry(storage, true);
    let text = listing(&r);
    (text, r.disk_cache_stats())
}

fn cold(storage: &FsStorage) -> String {
    listing(&registry(storage, false))
}

fn cache_file(home: &Path) -> PathBuf {
    home.join("cache/user.skills")
}

fn stats(cached: usize, read: usize) -> DiskCacheStats {
    DiskCacheStats { cached, read }
}

#[test]
fn a_listing_from_the_cache_equals_a_cold_parse() {
    let s = store();
    let n = SKILLS.len() + 1;
    let expected = cold(&s.storage);
    assert!(expected.contains("Not_Valid") && expected.contains("frontmatter_unclosed"), "{expected}");
    assert_eq!(list_once(&s.storage), (expected.clone(), stats(0, n)), "the first start parses everything");
    assert!(cache_file(&s.home).is_file());
    assert_eq!(list_once(&s.storage), (expected.clone(), stats(n, 0)), "the next start parses nothing");
    assert_eq!(list_once(&s.storage), (expected, stats(n, 0)));
}

/// Rewrites `path` with `text`, setting its modification time to `mtime`.
fn edit(path: &Path, text: &str, mtime: Option<SystemTime>) {
    fs::write(path, text).unwrap();
    if let Some(t) = mtime {
        fs::File::options().write(true).open(path).unwrap().set_modified(t).unwrap();
    }
}

#[test]
fn an_edit_on_disk_is_seen_and_validated_again() {
    let s = store();
    let n = SKILLS.len() + 1;
    list_once(&s.storage);
    let md = s.home.join("skills/user/pdf/SKILL.md");
    let before = fs::read_to_string(&md).unwrap();

    // Same size, a new modification time: parsed again, and the new description shows.
    let same_size = before.replace("Extract text from PDF files", "Extract TEXT from PDF files");
    assert_eq!(same_size.len(), before.len());
    // (An earlier time: a time in the future is never settled, so never cached.)
    let other = fs::metadata(&md).unwrap().modified().unwrap() - Duration::from_secs(5);
    edit(&md, &same_size, Some(other));
    let (text, st) = list_once(&s.storage);
    assert_eq!((text.as_str(), st), (cold(&s.storage).as_str(), stats(n - 1, 1)));
    assert!(text.contains("Extract TEXT from PDF files"));

    // A different size within the same second, the modification time put back: seen.
    let mtime = fs::metadata(&md).unwrap().modified().unwrap();
    edit(&md, &same_size.replace("description: Extract TEXT from PDF files", "description:"), Some(mtime));
    let (text, st) = list_once(&s.storage);
    assert_eq!((text.as_str(), st), (cold(&s.storage).as_str(), stats(n - 1, 1)));
    assert!(text.contains("description_missing"), "re-validated: {text}");

    // A file beneath it edited in place, same size, time put back: its digest changes.
    let guide = s.home.join("skills/user/market/references/guide.md");
    let g = fs::read_to_string(&guide).unwrap();
    edit(&guide, &g.replace("Guide", "GUIDE"), Some(fs::metadata(&guide).unwrap().modified().unwrap()));
    let (text, st) = list_once(&s.storage);
    assert_eq!((text.as_str(), st), (cold(&s.storage).as_str(), stats(n - 1, 1)));

    // A file added beneath, a `.version` rewritten, a skill removed: each seen.
    fs::write(s.home.join("skills/user/wide/references/new.md"), "new").unwrap();
    fs::write(s.home.join("skills/user/broken/.version"), "7\n").unwrap();
    fs::remove_dir_all(s.home.join("skills/user/unclosed")).unwrap();
    let (text, st) = list_once(&s.storage);
    assert_eq!((text.as_str(), st), (cold(&s.storage).as_str(), stats(n - 3, 2)));
    assert!(text.contains("\"revision\": 7"), "{text}");
    assert_eq!(list_once(&s.storage).1, stats(n - 1, 0), "and cached again");
}

#[test]
fn a_corrupt_or_truncated_cache_is_ignored_and_rebuilt() {
    let s = store();
    let n = SKILLS.len() + 1;
    let expected = cold(&s.storage);
    list_once(&s.storage);
    let path = cache_file(&s.home);
    let good = fs::read(&path).unwrap();
    let mut flipped = good.clone();
    // A changed byte inside a description: the file still decodes, but its CRC does not match.
    let at = good.windows(7).position(|w| w == b"Extract").unwrap();
    flipped[at] = b'X';
    let damaged: Vec<(&str, Vec<u8>)> = vec![
        ("a byte changed", flipped),
        ("truncated", good[..good.len() / 2].to_vec()),
        ("cut before the CRC", good[..good.len() - 2].to_vec()),
        ("garbage appended", [good.as_slice(), b"more"].concat()),
        ("empty", Vec::new()),
        ("another file", b"not a cache at all".to_vec()),
    ];
    for (case, bytes) in damaged {
        fs::write(&path, &bytes).unwrap();
        assert_eq!(list_once(&s.storage), (expected.clone(), stats(0, n)), "{case}: nothing trusted");
        assert_eq!(list_once(&s.storage), (expected.clone(), stats(n, 0)), "{case}: rebuilt");
    }
}

#[test]
fn the_digest_of_an_imported_revision_is_the_one_its_files_hash_to_from_the_cache_too() {
    let s = store();
    list_once(&s.storage);
    let r = registry(&s.storage, true);
    r.list_metas(Scope::User).unwrap();
    assert_eq!(r.disk_cache_stats().read, 0, "from the cache");
    for (name, _) in SKILLS {
        let skill = SkillName::parse(name).unwrap();
        let recomputed = s.storage.snapshot(Scope::User, &skill).unwrap().files.digest();
        assert_eq!(r.digest(Scope::User, name).unwrap(), recomputed, "{name}");
        let logged = s.storage.history_sync(Scope::User, &skill).unwrap()[0].digest;
        assert_eq!(logged, Some(recomputed), "{name}");
    }
}

#[test]
fn fresh_stamps_are_not_trusted_until_they_settle() {
    let s = store();
    let r = SkillRegistry::new(s.storage.clone()).with_digests(true);
    r.list_metas(Scope::User).unwrap();
    let again = SkillRegistry::new(s.storage.clone()).with_digests(true);
    again.list_metas(Scope::User).unwrap();
    assert_eq!(again.disk_cache_stats().cached, 0, "files written a moment ago are parsed again");
}
