//! `sync --overwrite` of a delivered copy to which entries the store cannot hold were added
//! (odd names, links, pipes, sidecars): refused, and nothing there is deleted.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use crate::common;

use common::World;
use std::fs;
use std::path::Path;

/// Delivers `demo`, adds one entry with `add` (its name in the copy: `entry`), then asks for
/// `--overwrite demo`: the folder's sync fails, naming the entry, and the entry is still there.
fn check(entry: &str, add: fn(&Path)) {
    let w = World::new();
    let (dir, f, wanted) = w.delivered(&[("demo", "as delivered")]);
    let copy = dir.join("demo");
    add(&copy.join(entry));

    let plans = w.sync(&[f], &wanted, &["demo"]);
    assert_eq!(plans[0].error_code, Some("target_edit_not_kept"), "{entry}: {:?}", plans[0]);
    assert_eq!(plans[0].done, 0, "{entry}");
    assert!(fs::symlink_metadata(copy.join(entry)).is_ok(), "{entry} was deleted");
    assert!(copy.join("SKILL.md").is_file(), "{entry}");
}

#[test]
fn overwrite_never_deletes_entries_the_store_cannot_hold() {
    check("a\\b.txt", |p| fs::write(p, "notes").unwrap());
    check("bell\u{7}.txt", |p| fs::write(p, "notes").unwrap());
    check("elsewhere", |p| std::os::unix::fs::symlink("/tmp", p).unwrap());
    check(".revision.json", |p| fs::write(p, "{}").unwrap());
    check("pipe", |p| {
        let mode = rustix::fs::Mode::from_raw_mode(0o644);
        rustix::fs::mknodat(rustix::fs::CWD, p, rustix::fs::FileType::Fifo, mode, 0).unwrap();
    });
}
