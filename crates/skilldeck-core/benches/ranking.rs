//! Ranking a turn: the listing and `find_skills` over stores of 50 to 5,000 skills, the index
//! built cold, and the o200k tokenizer's one-time load.
#![allow(clippy::unwrap_used, missing_docs)]

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use skilldeck_core::registry::{ListedEntry, SkillEntry};
use skilldeck_select::find;
use skilldeck_select::listing::{self, ListingOptions};
use skilldeck_select::ranker::{Query, SkillSet};
use skilldeck_skill::{Revision, Scope};
use skilldeck_store::storage::Summary;
use std::hint::black_box;
use std::sync::Arc;

const WORDS: &[&str] = &[
    "analyze",
    "quarterly",
    "revenue",
    "reports",
    "produce",
    "charts",
    "summaries",
    "stakeholders",
    "deploy",
    "kubernetes",
    "clusters",
    "terraform",
    "review",
    "pull",
    "requests",
    "security",
    "audit",
    "dependencies",
    "translate",
    "documents",
    "spreadsheets",
    "formulas",
    "pivot",
    "tables",
    "slides",
    "presentation",
    "brand",
    "guidelines",
    "colors",
    "typography",
    "database",
    "migrations",
    "postgres",
    "queries",
    "index",
    "latency",
    "parser",
    "grammar",
    "tokens",
    "errors",
    "messages",
    "bridge",
    "invoices",
    "emails",
    "calendar",
    "images",
];

/// `n` skills with descriptions of 60 to 400 characters (median about 200, as real ones).
fn store(n: usize) -> Vec<ListedEntry> {
    let mut rng = fastrand::Rng::with_seed(7);
    let mut out: Vec<ListedEntry> = (0..n)
        .map(|i| {
            let name = format!("{}-{}-{i}", WORDS[rng.usize(..WORDS.len())], WORDS[rng.usize(..WORDS.len())]);
            let len = rng.usize(60..400);
            let mut d = String::from("Use when");
            while d.len() < len {
                d.push(' ');
                d.push_str(WORDS[rng.usize(..WORDS.len())]);
            }
            let md = format!("---\nname: {name}\ndescription: {d}\n---\n# Steps\n## Checks\n");
            let summary = Summary::of_skill_md(Some(Revision(1)), md.into_bytes(), 0);
            ListedEntry {
                entry: Arc::new(skilldeck_store::entries::from_summary(Scope::User, &name, &summary, false)),
                shadowed: false,
            }
        })
        .collect();
    // The registry hands entries out sorted by name.
    out.sort_by(|a, b| a.entry.name.cmp(&b.entry.name));
    out
}

const REQUEST: &str = "my recursive-descent parser reports wrong line numbers in its error messages";

fn bench(c: &mut Criterion) {
    let opts = ListingOptions::default();
    let mut g = c.benchmark_group("ranking");
    for n in [50, 200, 1000, 5000] {
        let s = store(n);
        // The first turn indexes the store and counts the lines it shows; later turns reuse both.
        listing::build_ranked(&s, &opts, &Query::new(REQUEST));
        g.bench_with_input(BenchmarkId::new("listing_turn", n), &s, |b, s| {
            b.iter(|| listing::build_ranked(black_box(s), &opts, &Query::conversation(REQUEST, &["earlier context"])))
        });
        g.bench_with_input(BenchmarkId::new("rank_only", n), &s, |b, s| {
            let set = SkillSet::of(s);
            let all: Vec<usize> = (0..set.entries().len()).collect();
            b.iter(|| set.rank(&Query::new(black_box(REQUEST)), &all))
        });
        g.bench_with_input(BenchmarkId::new("find_skills", n), &s, |b, s| {
            b.iter(|| find::find(black_box(s), &opts, "parser line numbers", find::DEFAULT_LIMIT))
        });
    }
    let s = store(5000);
    let entries: Vec<Arc<SkillEntry>> = s.iter().map(|e| Arc::clone(&e.entry)).collect();
    g.sample_size(10);
    // The index is built on a set's first query: a cold set ranking one request.
    let one = [0usize];
    g.bench_function("index_build_cold/5000", |b| {
        b.iter(|| SkillSet::build(black_box(entries.clone())).rank(&Query::new(REQUEST), &one))
    });
    let text = "Use this skill to extract tables and text from PDF files, fill forms and merge documents.\n".repeat(40);
    g.bench_function("o200k_count_listing", |b| b.iter(|| skilldeck_select::tokens::count_tokens(black_box(&text))));
    g.finish();
}

/// Ranking by meaning over 5,000 skills with the real model (`.tools/models`, from
/// `scripts/setup`, with its English companion when that is there too): a turn all told (a request never seen, so the model reads it, then the
/// fused ranking and the listing), the request's vector alone, and ranking with it memoised.
/// The skills' vectors are random unit vectors: their values do not change the cost.
fn meaning(c: &mut Criterion) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../.tools/models")
        .join(skilldeck_embed::DEFAULT_MODEL_ID);
    if !dir.is_dir() {
        eprintln!("meaning: no model in {} (run ./scripts/setup); skipped", dir.display());
        return;
    }
    let tmp = std::env::temp_dir().join("skilldeck-bench-meaning");
    let semantic = skilldeck_core::semantic::Semantic::with_model(&tmp, Some(dir.clone()));
    let encoder = semantic.encoder().unwrap();
    let opts = ListingOptions::default();
    let s = store(5000);
    let set = SkillSet::of(&s);
    let mut rng = fastrand::Rng::with_seed(7);
    let vectors: Vec<Arc<[f32]>> = (0..set.entries().len())
        .map(|_| {
            let v: Vec<f32> = (0..384).map(|_| rng.f32() - 0.5).collect();
            let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
            v.iter().map(|x| x / norm).collect()
        })
        .collect();
    let mut dense = skilldeck_select::ranker::Dense::new(Arc::clone(&encoder), vectors.clone());
    // The English companion as shipped, when scripts/setup installed it.
    let companion_dir = dir.with_file_name(skilldeck_core::semantic::COMPANION_MODEL_ID);
    if companion_dir.is_dir() {
        let companion = skilldeck_core::semantic::Semantic::with_model(&tmp, Some(companion_dir));
        dense = dense.with_companion(companion.encoder().unwrap(), vectors);
    } else {
        eprintln!(
            "meaning: no companion in {} (run ./scripts/setup); the shipped model alone",
            companion_dir.display()
        );
    }
    assert!(set.attach(dense));
    let mut g = c.benchmark_group("meaning");
    g.sample_size(20);
    let mut n = 0u64;
    g.bench_function("query_vector", |b| {
        b.iter(|| {
            n += 1;
            encoder.encode_query(black_box(&format!("{REQUEST} {n}")))
        })
    });
    g.bench_function("listing_turn_new_request/5000", |b| {
        b.iter(|| {
            n += 1;
            listing::build_ranked(black_box(&s), &opts, &Query::new(&format!("{REQUEST} {n}")))
        })
    });
    let all: Vec<usize> = (0..set.entries().len()).collect();
    g.bench_function("rank_memoised_request/5000", |b| b.iter(|| set.rank(&Query::new(black_box(REQUEST)), &all)));
    g.finish();
}

criterion_group!(benches, bench, meaning);
criterion_main!(benches);
