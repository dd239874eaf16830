//! The embedding engine's speed: loading the model, one request, passages of 32, 64 and 128
//! tokens, and a batch of 100 skill descriptions (the selection benchmark's, repeated). Needs the
//! model (`./scripts/setup`, or `SKILLDECK_TEST_MODEL`). Peak memory and indexing 1,000 skills are
//! measured by `examples/embed_stats.rs`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::path::PathBuf;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use skilldeck_embed::{DEFAULT_MODEL_ID, Embedder};

const SKILLS: &str = include_str!("../../../bench/selection/skills.tsv");

fn model_dir() -> PathBuf {
    std::env::var_os("SKILLDECK_TEST_MODEL")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../.tools/models").join(DEFAULT_MODEL_ID))
}

fn skill_texts() -> Vec<String> {
    SKILLS
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            format!("{}: {} {}", f[0], f.get(1).unwrap_or(&""), f.get(2).unwrap_or(&"")).trim().to_owned()
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let dir = model_dir();
    let mut g = c.benchmark_group("embed");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    g.bench_function("load the model", |b| b.iter(|| Embedder::load(&dir).unwrap()));
    let e = Embedder::load(&dir).unwrap();
    g.sample_size(30);
    g.bench_function("one query (let customers pay monthly with a card)", |b| {
        b.iter(|| e.embed_query("let customers pay monthly with a card").unwrap())
    });
    let texts = skill_texts();
    let long = texts.join(" ");
    for n in [32, 64, 128] {
        let en = Embedder::load(&dir).unwrap().with_max_passage_tokens(n);
        g.bench_function(format!("one passage of {n} tokens"), |b| b.iter(|| en.embed_passages(&[&long]).unwrap()));
    }
    g.sample_size(10).measurement_time(Duration::from_secs(20));
    let hundred: Vec<&str> = (0..100).map(|i| texts[i % texts.len()].as_str()).collect();
    g.bench_function("100 skill descriptions in one call", |b| b.iter(|| e.embed_passages(&hundred).unwrap()));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
