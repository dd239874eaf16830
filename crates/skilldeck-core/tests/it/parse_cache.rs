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

/// What the store says of one skill as a new process lists it: its description.
fn description(storage: &FsStorage, name: &str) -> (String, DiskCacheStats) {
    let r = SkillRegistry::new(storage.clone()).with_digests(true);
    let entries = r.list_metas(Scope::User).unwrap();
    let e = entries.iter().find(|e| e.name == name).unwrap();
    (e.meta.description.clone().unwrap_or_default(), r.disk_cache_stats())
}

/// A file's stamp as the cache keeps it: size, inode, modification and change times.
fn stamp(path: &Path) -> (u64, u64, i64, i64, i64, i64) {
    use std::os::unix::fs::MetadataExt as _;
    let m = fs::metadata(path).unwrap();
    (m.size(), m.ino(), m.mtime(), m.mtime_nsec(), m.ctime(), m.ctime_nsec())
}

/// Writes `user/tick` into the store at `home` with a description of `word` (always 4 bytes,
/// so an edit keeps the size), in place: same inode.
fn write_tick(home: &Path, word: &str) {
    let dir = home.join("skills/user/tick");
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("SKILL.md"), format!("---\nname: tick\ndescription: word {word}\n---\n# Tick\n")).unwrap();
    if !dir.join(".version").exists() {
        fs::write(dir.join(".version"), "1\n").unwrap();
    }
}

#[test]
fn a_skill_written_a_clock_tick_before_a_listing_is_cached_by_it() {
    let s = store();
    // Longer than a clock tick of any kernel (a jiffy), far shorter than the old 3 s window.
    std::thread::sleep(Duration::from_millis(50));
    let n = SKILLS.len() + 1;
    let (_, first) = description(&s.storage, "pdf");
    assert_eq!(first, stats(0, n));
    let (_, second) = description(&s.storage, "pdf");
    assert_eq!(second, stats(n, 0), "the second listing, 50 ms after the writes, is served from the cache");
    assert!(s.home.join("cache/.clock").is_file(), "the clock is read where the cache is kept");
}

/// Writes, lists and edits `user/tick` in place, again and again, each edit right after a
/// listing; every next listing must see the edit. Returns how many edits kept every stamp of
/// the file (a write in the same clock tick: only its content tells it).
fn edits_in_the_same_tick_are_seen(storage: &FsStorage, home: &Path, rounds: usize) -> usize {
    let md = home.join("skills/user/tick/SKILL.md");
    let mut same_stamp = 0;
    for i in 0..rounds {
        let (old, new) = if i % 2 == 0 { ("aaaa", "bbbb") } else { ("bbbb", "aaaa") };
        write_tick(home, old);
        assert_eq!(description(storage, "tick").0, format!("word {old}"));
        let before = stamp(&md);
        write_tick(home, new);
        if stamp(&md) == before {
            same_stamp += 1;
        }
        assert_eq!(
            description(storage, "tick").0,
            format!("word {new}"),
            "round {i}: an edit made after a listing is seen"
        );
    }
    same_stamp
}

#[test]
fn an_edit_in_the_same_clock_tick_as_a_listing_is_seen_by_the_next() {
    let s = store();
    edits_in_the_same_tick_are_seen(&s.storage, &s.home, 20);
}

/// An ext4 file system with 128-byte inodes, which keeps times to the second, on a loop
/// device, unmounted and removed when dropped. Needs root (the tests run as root in CI).
struct CoarseFs {
    dir: tempfile::TempDir,
}

impl CoarseFs {
    fn mount() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let image = dir.path().join("fs.img");
        fs::File::create(&image).unwrap().set_len(32 << 20).unwrap();
        let run = |cmd: &mut std::process::Command| {
            let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
            assert!(out.status.success(), "{cmd:?}: {}", String::from_utf8_lossy(&out.stderr));
        };
        run(std::process::Command::new("mkfs.ext4").args(["-q", "-F", "-I", "128"]).arg(&image));
        fs::create_dir(dir.path().join("mnt")).unwrap();
        run(std::process::Command::new("mount").args(["-o", "loop"]).arg(&image).arg(dir.path().join("mnt")));
        Self { dir }
    }

    fn root(&self) -> PathBuf {
        self.dir.path().join("mnt")
    }
}

impl Drop for CoarseFs {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(self.root()).status();
    }
}

#[test]
fn on_a_file_system_with_one_second_times_an_edit_in_the_same_second_is_seen() {
    let coarse = CoarseFs::mount();
    let home = coarse.root().join("home");
    let storage = FsStorage::open(SkilldeckHome::new(&home)).unwrap();
    // Each round's edit lands in the second of the listing before it: the file's stamps stay
    // as they were, and only a cache that knows the second is not over yet reads it again.
    let same = edits_in_the_same_tick_are_seen(&storage, &home, 6);
    assert!(same > 0, "no edit kept its stamps: the test did not make the race it checks");
    // Once its second is over, the skill is cached; an edit now lands in a later second.
    std::thread::sleep(Duration::from_millis(1100));
    description(&storage, "tick");
    let (text, from) = description(&storage, "tick");
    assert_eq!((from.cached, from.read), (1, 0), "{text}: cached once its second was over");
    let word = if text.ends_with("aaaa") { "bbbb" } else { "aaaa" };
    write_tick(&home, word);
    assert_eq!(description(&storage, "tick").0, format!("word {word}"));
}
