//! Measures the embedding engine: model load time, memory, one query (median), passages of 32,
//! 64 and 128 tokens, and indexing skill descriptions (batched vs one at a time). Run it
//! optimised, under `/usr/bin/time -v` for the process's peak RSS:
//!
//! ```text
//! cargo build --release -p skilldeck-embed --example embed_stats
//! /usr/bin/time -v target/release/examples/embed_stats [MODEL_DIR] [SKILLS]
//! ```
//!
//! `MODEL_DIR` defaults to `.tools/models/multilingual-e5-small-q4`, `SKILLS` (how many skill
//! descriptions to index) to 1000; the texts are the selection benchmark's skills
//! (`bench/selection/skills.tsv`: name, description and Chinese description), repeated.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::path::PathBuf;
use std::time::{Duration, Instant};

use skilldeck_embed::{DEFAULT_MODEL_ID, Embedder};

const SKILLS: &str = include_str!("../../../bench/selection/skills.tsv");
const REQUESTS: &str = include_str!("../../../bench/selection/requests.tsv");

fn rss_kib(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// This process's user + system CPU time so far (from /proc, in clock ticks of 10 ms).
fn cpu() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
    let rest = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
    let f: Vec<u64> = rest.split_whitespace().skip(11).take(2).filter_map(|v| v.parse().ok()).collect();
    Duration::from_millis(f.iter().sum::<u64>() * 10)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = args.next().map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../.tools/models").join(DEFAULT_MODEL_ID)
    });
    let n_skills: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(1000);
    println!("threads: {}", std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1));

    let rss0 = rss_kib("VmRSS:");
    let t = Instant::now();
    let mut e = Embedder::load(&dir).expect("load the model");
    let load = t.elapsed();
    let rss1 = rss_kib("VmRSS:");
    println!(
        "load: {:.0} ms; RSS {:.1} MB -> {:.1} MB (+{:.1} MB)",
        ms(load),
        rss0 as f64 / 1024.0,
        rss1 as f64 / 1024.0,
        (rss1 - rss0) as f64 / 1024.0
    );

    // Queries: the selection benchmark's requests, each embedded once after a warm-up.
    let requests: Vec<&str> = REQUESTS.lines().skip(1).filter_map(|l| l.split('\t').next()).take(100).collect();
    for r in requests.iter().take(5) {
        e.embed_query(r).unwrap();
    }
    let mut times = Vec::new();
    let mut tokens = Vec::new();
    let c0 = cpu();
    for r in &requests {
        tokens.push(e.query_tokens(r).unwrap().len());
        let t = Instant::now();
        e.embed_query(r).unwrap();
        times.push(t.elapsed());
    }
    let query_cpu = (cpu() - c0) / requests.len() as u32;
    tokens.sort();
    println!(
        "query: median {:.2} ms over {} requests (median {} tokens, max {}); p90 {:.2} ms; CPU {:.1} ms per query",
        ms(median(times.clone())),
        requests.len(),
        tokens[tokens.len() / 2],
        tokens[tokens.len() - 1],
        {
            times.sort();
            ms(times[times.len() * 9 / 10])
        },
        ms(query_cpu)
    );

    if n_skills == 0 {
        return;
    }
    // Skill texts as the index would embed them: name, description, Chinese description.
    let base: Vec<String> = SKILLS
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            format!("{}: {} {}", f[0], f.get(1).unwrap_or(&""), f.get(2).unwrap_or(&"")).trim().to_owned()
        })
        .collect();
    let mut lens: Vec<usize> = base.iter().map(|s| e.passage_tokens(s).unwrap().len()).collect();
    lens.sort();
    println!(
        "skill texts: {} distinct, tokens median {} max {}",
        base.len(),
        lens[lens.len() / 2],
        lens[lens.len() - 1]
    );

    // Passages of exactly 32, 64 and 128 tokens: a long text cut at each limit.
    let long = base.join(" ");
    for n in [32, 64, 128] {
        e = e.with_max_passage_tokens(n);
        let en = &e;
        assert_eq!(en.passage_tokens(&long).unwrap().len(), n);
        en.embed_passages(&[&long]).unwrap();
        let times: Vec<Duration> = (0..15)
            .map(|_| {
                let t = Instant::now();
                en.embed_passages(&[&long]).unwrap();
                t.elapsed()
            })
            .collect();
        println!("passage of {n} tokens: median {:.2} ms", ms(median(times)));
    }

    e = e.with_max_passage_tokens(skilldeck_embed::DEFAULT_MAX_PASSAGE_TOKENS);
    let texts: Vec<String> = (0..n_skills).map(|i| base[i % base.len()].clone()).collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let (t, c0) = (Instant::now(), cpu());
    let batched = e.embed_passages(&refs).unwrap();
    let (all, all_cpu) = (t.elapsed(), cpu() - c0);
    println!(
        "index {n_skills} skills batched: {:.1} s ({:.1} ms per skill; CPU {:.1} s)",
        all.as_secs_f64(),
        ms(all) / n_skills as f64,
        all_cpu.as_secs_f64()
    );
    let one = 100.min(n_skills);
    let (t, c0) = (Instant::now(), cpu());
    for (r, b) in refs.iter().take(one).zip(&batched) {
        let v = e.embed_passages(&[r]).unwrap();
        let cos: f32 = v[0].iter().zip(b).map(|(x, y)| x * y).sum();
        assert!(cos > 0.9999);
    }
    let (singly, singly_cpu) = (t.elapsed(), cpu() - c0);
    println!(
        "index {one} skills one at a time: {:.1} s ({:.1} ms per skill; CPU {:.1} s)",
        singly.as_secs_f64(),
        ms(singly) / one as f64,
        singly_cpu.as_secs_f64()
    );
    println!("peak RSS (VmHWM): {:.1} MB", rss_kib("VmHWM:") as f64 / 1024.0);
}
