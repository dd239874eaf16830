//! Benchmarks of `view_skill`: mounting a large skill, and a memoized repeat within a turn.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use serde_json::json;
use skilldeck_core::SkillRegistry;
use skilldeck_mount::sandbox::Sandbox;
use skilldeck_mount::view_skill::{Turn, view_skill};
use skilldeck_select::listing::ListingOptions;
use skilldeck_skill::{RelPath, Scope, SkillFiles, SkillName};
use skilldeck_store::{FsStorage, SkilldeckHome};
use std::time::Duration;

/// 300 files, 20 MB in all, as a large real skill with assets might be.
fn big_skill() -> SkillFiles {
    let mut files = SkillFiles::new();
    files.insert(
        RelPath::parse("SKILL.md").unwrap(),
        b"---\nname: big\ndescription: A large skill with many assets\n---\n# Big\n\nSee references/.\n".to_vec(),
    );
    let per_file = 20_000_000 / 299;
    for i in 0..299 {
        let dir = if i % 3 == 0 { "assets" } else { "references" };
        let byte = b'a' + (i % 26) as u8;
        files.insert(RelPath::parse(&format!("{dir}/file-{i:03}.md")).unwrap(), vec![byte; per_file]);
    }
    files
}

fn bench(c: &mut Criterion) {
    let tmp = tempfile::tempdir().unwrap();
    let storage = FsStorage::open(SkilldeckHome::new(tmp.path().join("home"))).unwrap();
    let name = SkillName::parse("big").unwrap();
    storage.write_skill_sync(Scope::User, &name, &big_skill()).unwrap();
    let registry = SkillRegistry::new(storage);
    let input = json!({"name": "big"});

    let mut group = c.benchmark_group("view_skill");
    group.sample_size(10).measurement_time(Duration::from_secs(20));
    let mut n = 0u64;
    group.bench_function("mount_300_files_20mb", |b| {
        b.iter_batched(
            || {
                // The previous workspace goes here, outside the timed part.
                let _ = std::fs::remove_dir_all(tmp.path().join(format!("ws-{n}")));
                n += 1;
                let ws = tmp.path().join(format!("ws-{n}"));
                std::fs::create_dir_all(&ws).unwrap();
                (Sandbox::open(&ws).unwrap(), Turn::begin(&registry, &ListingOptions::default(), "t").unwrap(), ws)
            },
            |(sandbox, mut turn, _ws)| {
                let r = view_skill(&registry, &sandbox, &mut turn, &input);
                assert!(r.to_json().get("error").is_none());
            },
            BatchSize::PerIteration,
        )
    });
    group.finish();

    let ws = tmp.path().join("ws-memo");
    std::fs::create_dir_all(&ws).unwrap();
    let sandbox = Sandbox::open(&ws).unwrap();
    let mut turn = Turn::begin(&registry, &ListingOptions::default(), "memo").unwrap();
    view_skill(&registry, &sandbox, &mut turn, &input);
    c.bench_function("view_skill/memoized_repeat", |b| b.iter(|| view_skill(&registry, &sandbox, &mut turn, &input)));
}

criterion_group!(benches, bench);
criterion_main!(benches);
