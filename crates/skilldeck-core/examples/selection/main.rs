//! The selection benchmark: how often the ranked listing and `find_skills` put the right skill
//! in front of a model, at 50, 200, 1,000 and 5,000 installed skills.
//!
//! `cargo run --release -p skilldeck-core --example selection -- [--corpus DIR] [--misses SIZE]
//! [bench/selection]` reads `skills.tsv` (the labelled skills) and `requests.tsv` (request,
//! expected skill, split) and fills each store with real skills from the corpus folder
//! (`--corpus`, else `$SKILLDECK_SELECTION_CORPUS`; see `scripts/selection-corpus`), then with
//! generated ones. For tuning, on the tune split only: `--misses SIZE` lists the requests whose skill is not first at that
//! size, `--tune SIZE` runs a coordinate search over the ranker's parameters (with
//! `SELECTION_BODY_WORDS=N`, what ranking the body's first N words would add); `--shared` lists
//! the requests sharing a word with their skill. `--model DIR` ranks by meaning too, with the
//! sentence-embedding model in DIR (vectors kept in `$TMPDIR/skilldeck-selection-vectors`, so a
//! second run reuses them), and `--companion DIR` with an English companion model beside it (as
//! shipped: `scripts/bench-selection` passes both); with it, `--tune-fusion 1000,5000` searches the fusion's parameters
//! on the tune split of those stores together, and `--explore-fusion 1000,5000 [--also-model DIR]`
//! compares other fusion functions (and a second model beside the first) the same way.
//! `SELECTION_DUMP=FILE` writes each request's first 30 skills as ranked, with the text the
//! models read, as JSON lines (for `bench/selection/experiments/rerank.py`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod data;
mod explore;

use data::Bench;
use skilldeck_core::semantic::Semantic;
use skilldeck_select::find;
use skilldeck_select::listing::{self, ListingOptions, Shown};
use skilldeck_select::ranker::Fusion;
use skilldeck_select::ranker::analyze::terms;
use skilldeck_select::ranker::{DocText, Index, Params, Query, SkillSet};
use std::collections::BTreeSet;
use std::io::Write as _;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub const SIZES: [usize; 4] = [50, 200, 1000, 5000];

fn pct(n: usize, of: usize) -> String {
    format!("{:5.1}%", 100.0 * n as f64 / of.max(1) as f64)
}

fn quantile(sorted: &[Duration], q: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * q).round() as usize;
    sorted.get(i).map_or(0.0, |d| d.as_secs_f64() * 1e6)
}

/// `1000,5000` as sizes.
fn sizes(list: String) -> Vec<usize> {
    list.split(',').map(|s| s.parse::<usize>().expect("a size")).collect()
}

/// The largest store, whose vectors indexing a smaller one keeps: the stores are nested, so a
/// second run computes none again.
fn largest(bench: &Bench) -> Arc<SkillSet> {
    SkillSet::of(&bench.listed(SIZES[SIZES.len() - 1]))
}

/// Whether a request is written in Chinese (holds a CJK unified ideograph).
fn is_chinese(text: &str) -> bool {
    text.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c))
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut dir, mut corpus, mut misses, mut tune) = (PathBuf::from("bench/selection"), None, None, None);
    let mut shared = false;
    let (mut model, mut tune_fusion) = (None, None);
    let (mut more_models, mut explore, mut companion) = (Vec::new(), None, None);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--model" => model = Some(PathBuf::from(args.next().expect("--model DIR"))),
            "--companion" => companion = Some(PathBuf::from(args.next().expect("--companion DIR"))),
            "--also-model" => more_models.push(PathBuf::from(args.next().expect("--also-model DIR"))),
            "--explore-fusion" => explore = Some(sizes(args.next().expect("--explore-fusion SIZES"))),
            "--tune-fusion" => tune_fusion = Some(sizes(args.next().expect("--tune-fusion SIZES"))),
            "--corpus" => corpus = Some(PathBuf::from(args.next().expect("--corpus DIR"))),
            "--shared" => shared = true,
            "--tune" => tune = Some(args.next().expect("--tune SIZE").parse::<usize>().expect("a size")),
            "--misses" => misses = Some(args.next().expect("--misses SIZE").parse::<usize>().expect("a size")),
            _ => dir = PathBuf::from(a),
        }
    }
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let bench = Bench::load(&dir, corpus, &repo);
    let reqs = &bench.requests;
    let zh = reqs.iter().filter(|r| is_chinese(&r.text)).count();
    // Requests sharing no analysed word (stemmed, stop words out) with the skill's name,
    // description or Chinese description.
    let disjoint = reqs
        .iter()
        .filter(|r| {
            let [name, d, z] = bench.labelled_text.iter().find(|t| t[0] == r.expected).unwrap();
            let skill: BTreeSet<String> = terms(&format!("{name} {d} {z}")).into_iter().map(|t| t.key).collect();
            let common: Vec<String> =
                terms(&r.text).into_iter().filter(|t| skill.contains(&t.key)).map(|t| t.surface).collect();
            if shared && !common.is_empty() {
                println!("  shares {common:?}: {:?} ({})", r.text, r.expected);
            }
            common.is_empty()
        })
        .count();
    if let Some(size) = tune {
        return grid(&bench, size);
    }
    let root = std::env::temp_dir().join("skilldeck-selection-vectors");
    let semantic = model.map(|dir| Semantic::with_model(&root, Some(dir)).with_companion(companion));
    if let (Some(sizes), Some(semantic)) = (&explore, &semantic) {
        let mut all = vec![semantic];
        let more: Vec<Semantic> = more_models.into_iter().map(|d| Semantic::with_model(&root, Some(d))).collect();
        all.extend(more.iter());
        return explore::run(&bench, &all, sizes);
    }
    if let (Some(sizes), Some(semantic)) = (&tune_fusion, &semantic) {
        return grid_fusion(&bench, semantic, sizes);
    }
    let opts = ListingOptions::default();
    println!(
        "{} labelled skills, {} requests ({} tune, {} holdout; {} in Chinese; {} share no word with the skill's name or descriptions); budget {} tokens (o200k)",
        bench.labelled.len(),
        reqs.len(),
        reqs.iter().filter(|r| r.split == "tune").count(),
        reqs.iter().filter(|r| r.split == "holdout").count(),
        pct(zh, reqs.len()).trim(),
        pct(disjoint, reqs.len()).trim(),
        opts.budget_tokens
    );
    match &bench.pool.corpus {
        Some(c) => println!(
            "distractors: {} real skills with distinct names from {} SKILL.md files in {} (invalid ones, repeated names, the labelled skills and copies of them left out); the rest generated",
            bench.pool.real.len(),
            bench.pool.corpus_files,
            c.display()
        ),
        None => println!(
            "distractors: GENERATED only (no corpus: pass --corpus DIR or set {} after scripts/selection-corpus DIR)",
            data::CORPUS_ENV
        ),
    }
    println!();
    println!(
        "skills (real+made)  split    reqs  top-1   top-5  in-full  find@5  find@1  tokens(max) over  rank p50/p95 (µs)  listing p50/p95 (µs)"
    );
    let every = semantic.as_ref().map(|_| largest(&bench));
    // `SELECTION_DUMP=FILE`: each request's first 30 skills as ranked (JSON lines, with the text
    // the models read), to measure a reranker outside.
    let mut dump = std::env::var_os("SELECTION_DUMP")
        .map(|p| std::io::BufWriter::new(std::fs::File::create(p).expect("the dump file is created")));
    for size in SIZES {
        let store = bench.listed(size);
        let set = SkillSet::of(&store);
        if let Some(semantic) = &semantic {
            let t = Instant::now();
            let mut computed = 0;
            semantic.index_keeping(&set, || every.clone(), |_, total| computed = total).expect("the model runs");
            eprintln!("{size} skills: {computed} vectors computed in {:.1} s", t.elapsed().as_secs_f64());
        }
        let in_store: BTreeSet<&str> = store.iter().map(|e| e.entry.name.as_str()).collect();
        let all: Vec<usize> = (0..set.entries().len()).collect();
        // Index the store and count its lines once before timing (a session does it once).
        listing::build_ranked(&store, &opts, &Query::new("warm up"));
        let (real, made) = bench.mix(size);
        for split in ["tune", "holdout"] {
            let rows: Vec<_> =
                reqs.iter().filter(|r| r.split == split && in_store.contains(r.expected.as_str())).collect();
            let (mut top1, mut top5, mut full, mut find5, mut find1, mut max_tokens, mut over) = (0, 0, 0, 0, 0, 0, 0);
            let mut times = Vec::with_capacity(rows.len());
            let mut rank_times = Vec::with_capacity(rows.len());
            // The Chinese requests alone: how many, top-1, top-5, in full.
            let mut zh = [0usize; 4];
            for r in &rows {
                let q = Query::new(&r.text);
                let t = Instant::now();
                let l = listing::build_ranked(&store, &opts, &q);
                times.push(t.elapsed());
                let t = Instant::now();
                let ranking = set.rank(&q, &all);
                rank_times.push(t.elapsed());
                let at = ranking.iter().position(|x| set.entries()[x.pos].name == r.expected);
                top1 += usize::from(at == Some(0));
                top5 += usize::from(at.is_some_and(|i| i < 5));
                max_tokens = max_tokens.max(l.estimated_tokens);
                over += usize::from(l.estimated_tokens > opts.budget_tokens);
                let in_full = l.skills.iter().any(|s| s.name == r.expected && s.shown == Shown::Full);
                full += usize::from(in_full);
                if is_chinese(&r.text) {
                    zh[0] += 1;
                    zh[1] += usize::from(at == Some(0));
                    zh[2] += usize::from(at.is_some_and(|i| i < 5));
                    zh[3] += usize::from(in_full);
                }
                let found = find::find(&store, &opts, &r.text, find::DEFAULT_LIMIT);
                find5 += usize::from(found.iter().any(|f| f.name == r.expected));
                find1 += usize::from(found.first().is_some_and(|f| f.name == r.expected));
                if let Some(out) = &mut dump {
                    let cands: Vec<serde_json::Value> = ranking
                        .iter()
                        .take(30)
                        .map(|x| {
                            let e = &set.entries()[x.pos];
                            serde_json::json!({"name": e.name, "text": skilldeck_select::ranker::dense::passage(e)})
                        })
                        .collect();
                    let line = serde_json::json!({"size": size, "split": split, "text": r.text,
                        "expected": r.expected, "zh": is_chinese(&r.text), "cands": cands});
                    writeln!(out, "{line}").expect("the dump is written");
                }
                if misses == Some(size) && split == "tune" && at != Some(0) {
                    let top: Vec<&str> = ranking.iter().take(5).map(|x| set.entries()[x.pos].name.as_str()).collect();
                    println!("  miss: {:?} wants {} at {:?}; top {:?}", r.text, r.expected, at.map(|i| i + 1), top);
                }
            }
            times.sort();
            rank_times.sort();
            let n = rows.len();
            println!(
                "{:>5} ({:>4}+{:<4})  {split:<7}  {:>4}  {}  {}  {}  {}  {}  {max_tokens:>11} {over:>4}  {:>6.0} / {:<6.0}     {:>6.0} / {:<6.0}",
                size,
                real,
                made,
                n,
                pct(top1, n),
                pct(top5, n),
                pct(full, n),
                pct(find5, n),
                pct(find1, n),
                quantile(&rank_times, 0.5),
                quantile(&rank_times, 0.95),
                quantile(&times, 0.5),
                quantile(&times, 0.95)
            );
            if zh[0] > 0 {
                println!(
                    "                     {:<7}  {:>4}  {}  {}  {}",
                    "  zh",
                    zh[0],
                    pct(zh[1], zh[0]),
                    pct(zh[2], zh[0]),
                    pct(zh[3], zh[0])
                );
            }
        }
    }
}

/// Top-1 and top-5 of the tune split at `size` for ranker parameters `p`.
fn tune_score(
    bench: &Bench,
    store: &[skilldeck_skill::SkillEntry],
    bodies: &[Vec<String>],
    p: Params,
) -> (usize, usize) {
    split_score(bench, store, bodies, p, "tune")
}

/// Top-1 and top-5 of one split at `size` for ranker parameters `p`.
fn split_score(
    bench: &Bench,
    store: &[skilldeck_skill::SkillEntry],
    bodies: &[Vec<String>],
    p: Params,
    split: &str,
) -> (usize, usize) {
    let ix = Index::build_with(
        store.iter().zip(bodies).map(|(e, body)| DocText {
            name: &e.name,
            description: e.listing_description(),
            description_zh: e.meta.description_zh.as_deref().unwrap_or_default(),
            headings: if body.is_empty() { &e.headings } else { body },
        }),
        p,
    );
    let (mut top1, mut top5) = (0, 0);
    for r in bench.requests.iter().filter(|r| r.split == split) {
        let Some(want) = store.iter().position(|e| e.name == r.expected) else { continue };
        let s = ix.scores(&Query::new(&r.text));
        let mine = s[want];
        if mine <= 0.0 {
            continue;
        }
        let better = s.iter().enumerate().filter(|&(i, &x)| x > mine || (x == mine && i < want)).count();
        top1 += usize::from(better == 0);
        top5 += usize::from(better < 5);
    }
    (top1, top5)
}

/// A coordinate search over the ranker's parameters on the TUNE split only.
fn grid(bench: &Bench, size: usize) {
    let skills = bench.store(size);
    let store: Vec<skilldeck_skill::SkillEntry> = skills.iter().map(|s| s.entry()).collect();
    // SELECTION_BODY_WORDS=N: what the headings field holding the first N words of the body
    // instead would give (a measure for a possible field, not what the product ranks).
    let words: usize = std::env::var("SELECTION_BODY_WORDS").ok().and_then(|v| v.parse().ok()).unwrap_or(0);
    let bodies: Vec<Vec<String>> = skills
        .iter()
        .map(|s| {
            if words == 0 {
                return Vec::new();
            }
            let text = String::from_utf8_lossy(&s.skill_md);
            let body = skilldeck_skill::frontmatter::strip(&text);
            vec![body.split_whitespace().take(words).collect::<Vec<_>>().join(" ")]
        })
        .collect();
    let mut best = Params::default();
    let mut best_score = tune_score(bench, &store, &bodies, best);
    println!("default {best:?}: top-1 {} top-5 {}", best_score.0, best_score.1);
    let key = |s: (usize, usize)| s.1 * 1000 + s.0;
    for _round in 0..3 {
        for which in 0..9 {
            let values: &[f32] = match which {
                0 => &[0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0],
                1..=3 => &[0.0, 0.2, 0.4, 0.7, 1.0, 1.5, 2.0],
                4..=7 => &[0.0, 0.2, 0.3, 0.5, 0.75, 0.9, 1.0],
                _ => &[0.5, 0.8, 1.2, 1.6, 2.0, 3.0],
            };
            for &v in values {
                let mut p = best;
                match which {
                    0..=3 => p.weights[which] = v,
                    4..=7 => p.b[which - 4] = v,
                    _ => p.k1 = v,
                }
                let sc = tune_score(bench, &store, &bodies, p);
                if key(sc) > key(best_score) {
                    best = p;
                    best_score = sc;
                    println!("better {best:?}: top-1 {} top-5 {}", sc.0, sc.1);
                }
            }
        }
    }
    // Looked at only after the search, never during it.
    let held = split_score(bench, &store, &bodies, best, "holdout");
    println!("holdout with the best: top-1 {} top-5 {}", held.0, held.1);
}

/// A search over the fusion's parameters on the TUNE split only, over the stores of `sizes`
/// together: the objective is top-1 plus top-5, summed over the sizes (top-1 is what the offline
/// router loads, top-5 what the listing shows in full), so a setting that helps the store of
/// 1,000 but hurts the first place at 5,000 loses.
fn grid_fusion(bench: &Bench, semantic: &Semantic, sizes: &[usize]) {
    let every = largest(bench);
    let stores: Vec<Arc<SkillSet>> = sizes
        .iter()
        .map(|&size| {
            let store = bench.listed(size);
            let set = SkillSet::of(&store);
            semantic.index_keeping(&set, || Some(every.clone()), |_, _| {}).expect("the model runs");
            set
        })
        .collect();
    let score = |f: Fusion, split: &str| -> Vec<(usize, usize)> {
        stores
            .iter()
            .map(|set| {
                let all: Vec<usize> = (0..set.entries().len()).collect();
                let names: BTreeSet<&str> = set.entries().iter().map(|e| e.name.as_str()).collect();
                let (mut top1, mut top5) = (0, 0);
                for r in bench.requests.iter().filter(|r| r.split == split && names.contains(r.expected.as_str())) {
                    let ranking = set.rank_with(&Query::new(&r.text), &all, f);
                    let at = ranking.iter().position(|x| set.entries()[x.pos].name == r.expected);
                    top1 += usize::from(at == Some(0));
                    top5 += usize::from(at.is_some_and(|i| i < 5));
                }
                (top1, top5)
            })
            .collect()
    };
    let key = |s: &[(usize, usize)]| s.iter().map(|(a, b)| a + b).sum::<usize>();
    let mut best = Fusion::default();
    let mut best_score = score(best, "tune");
    println!("sizes {sizes:?}, (top-1, top-5) on tune; default {best:?}: {best_score:?}");
    let weights = [0.5, 0.75, 1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.75, 2.0, 2.5];
    let companions: &[f32] =
        if semantic.companion().is_some() { &[0.0, 1.0, 1.5, 1.75, 2.0, 2.5, 3.0] } else { &[0.0] };
    for dense in weights {
        for &companion in companions {
            let f = Fusion { lexical: 1.0, dense, companion };
            let sc = score(f, "tune");
            println!("  {f:?}: {sc:?}");
            if key(&sc) > key(&best_score) {
                best = f;
                best_score = sc;
            }
        }
    }
    println!("best {best:?}: {best_score:?}");
    let lexical_only = Fusion { dense: 0.0, companion: 0.0, ..best };
    let meaning_only = Fusion { lexical: 0.0, ..best };
    println!("tune, words only: {:?}; meaning only: {:?}", score(lexical_only, "tune"), score(meaning_only, "tune"));
    // Looked at only after the search, never during it.
    println!(
        "holdout with the best: {:?}; the default {:?}; words only {:?}",
        score(best, "holdout"),
        score(Fusion::default(), "holdout"),
        score(lexical_only, "holdout")
    );
}
