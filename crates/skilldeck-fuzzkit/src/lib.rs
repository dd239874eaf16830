//! A small mutation fuzzer for the parsers that take input from strangers (frontmatter, paths,
//! archive entry names, shell words): seeds, mutations, and a run bounded in count and time.
//! It holds no target; each crate's `tests/fuzz*.rs` brings its own checks.
//!
//! Coverage-guided fuzzing (cargo-fuzz) needs a nightly toolchain; this runs on stable in CI
//! with a fixed seed, and longer with `SKILLDECK_FUZZ_ITERS`, `SKILLDECK_FUZZ_SECS` and
//! `SKILLDECK_FUZZ_SEED` (a failure prints the seed that replays it).

use std::time::{Duration, Instant};

/// How long one target runs: at most `iterations` inputs and at most `time`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// The most inputs tried.
    pub iterations: u64,
    /// The most time spent.
    pub time: Duration,
    /// The random seed.
    pub seed: u64,
}

impl Budget {
    /// The defaults, overridden by `SKILLDECK_FUZZ_ITERS`, `SKILLDECK_FUZZ_SECS` and
    /// `SKILLDECK_FUZZ_SEED`.
    pub fn from_env(iterations: u64, secs: u64) -> Self {
        let var = |name: &str| std::env::var(name).ok().and_then(|v| v.trim().parse::<u64>().ok());
        Self {
            iterations: var("SKILLDECK_FUZZ_ITERS").unwrap_or(iterations),
            time: Duration::from_secs(var("SKILLDECK_FUZZ_SECS").unwrap_or(secs)),
            seed: var("SKILLDECK_FUZZ_SEED").unwrap_or(0x5eed_d3c4),
        }
    }
}

/// Makes inputs from seeds by byte flips, insertions of interesting bytes, chunk copies,
/// deletions and truncation.
#[derive(Debug)]
pub struct Mutator {
    rng: fastrand::Rng,
    interesting: Vec<Vec<u8>>,
}

impl Mutator {
    /// A mutator drawing from `seed`, inserting the `interesting` byte strings among others.
    pub fn new(seed: u64, interesting: &[&[u8]]) -> Self {
        Self { rng: fastrand::Rng::with_seed(seed), interesting: interesting.iter().map(|s| s.to_vec()).collect() }
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { self.rng.usize(..n) }
    }

    /// One to `max` mutations of `seed`.
    pub fn mutate(&mut self, seed: &[u8], max: usize) -> Vec<u8> {
        let mut out = seed.to_vec();
        for _ in 0..=self.below(max.max(1)) {
            self.mutate_once(&mut out);
        }
        out
    }

    fn mutate_once(&mut self, out: &mut Vec<u8>) {
        let at = self.below(out.len() + 1);
        match self.below(7) {
            0 if !out.is_empty() => {
                let i = self.below(out.len());
                out[i] ^= 1 << self.below(8);
            }
            1 | 2 if !self.interesting.is_empty() => {
                let pick = self.below(self.interesting.len());
                let piece = self.interesting[pick].clone();
                out.splice(at..at, piece);
            }
            3 if !out.is_empty() => {
                let end = (at + 1 + self.below(16)).min(out.len());
                out.drain(at.min(end)..end);
            }
            4 if !out.is_empty() => {
                let start = self.below(out.len());
                let end = (start + 1 + self.below(64)).min(out.len());
                let chunk = out[start..end].to_vec();
                let to = self.below(out.len() + 1);
                out.splice(to..to, chunk);
            }
            5 => out.truncate(at),
            _ => out.insert(at, self.rng.u8(..)),
        }
    }
}

/// Runs `check` on mutations of `seeds` within `budget`; returns how many inputs were tried.
/// A failing check panics with the target, the input and the seed that replays it.
pub fn run(
    target: &str,
    seeds: &[&[u8]],
    interesting: &[&[u8]],
    budget: Budget,
    mut check: impl FnMut(&[u8]) -> Result<(), String>,
) -> u64 {
    let mut m = Mutator::new(budget.seed, interesting);
    let started = Instant::now();
    let mut tried = 0;
    for seed in seeds {
        report(target, seed, budget.seed, check(seed));
        tried += 1;
    }
    while tried < budget.iterations && started.elapsed() < budget.time {
        let seed = seeds[m.below(seeds.len())];
        let input = m.mutate(seed, 8);
        report(target, &input, budget.seed, check(&input));
        tried += 1;
    }
    tried
}

#[allow(clippy::panic)] // a fuzz failure is a test failure
fn report(target: &str, input: &[u8], seed: u64, result: Result<(), String>) {
    if let Err(why) = result {
        panic!(
            "fuzz target {target}: {why}\ninput ({} bytes): {:?}\nreplay with SKILLDECK_FUZZ_SEED={seed}",
            input.len(),
            String::from_utf8_lossy(input)
        );
    }
}
