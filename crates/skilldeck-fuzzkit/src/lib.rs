//! A small mutation fuzzer for bounded runs inside `cargo test`: budgets, mutations, replay.
//! Holds the engine only, no target and no Skilldeck type; the targets live in each crate's
//! `tests/fuzz*.rs` (the core's parsers, the agent's shell-word check).
//!
//! Coverage-guided fuzzing (cargo-fuzz) needs a nightly toolchain; this runs on stable in CI.
//!
//! Each iteration draws one seed input, stacks a few mutations on it and runs the target's
//! check, which returns `Err` when an invariant breaks (a panic counts too). Iteration `i` of a
//! run with seed `S` draws everything from `S + i`, so a failure prints the one seed that
//! replays exactly that input: `SKILLDECK_FUZZ_SEED=<it> SKILLDECK_FUZZ_ITERS=1`.
// A broken invariant fails the test it runs in: panicking is this crate's way to report.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};

/// The seed of a run when `SKILLDECK_FUZZ_SEED` is not set: runs are the same on every machine.
pub const DEFAULT_SEED: u64 = 0x5eed_0f5c_11de_c4a5;

/// How long a target runs: at most `iters` inputs and at most `time`, whichever ends first.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Budget {
    /// The most inputs to try.
    pub iters: u64,
    /// The most time to spend (a cap, never asserted on).
    pub time: Duration,
    /// The seed of iteration 0.
    pub seed: u64,
}

impl Budget {
    /// The target's defaults, each replaced by its environment variable when set:
    /// `SKILLDECK_FUZZ_ITERS`, `SKILLDECK_FUZZ_SECS`, `SKILLDECK_FUZZ_SEED` (decimal or `0x…`).
    pub fn from_env(iters: u64, secs: f64) -> Self {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        let iters = var("SKILLDECK_FUZZ_ITERS")
            .map_or(iters, |v| v.trim().parse().unwrap_or_else(|_| panic!("SKILLDECK_FUZZ_ITERS={v:?}: give a count")));
        let secs = var("SKILLDECK_FUZZ_SECS")
            .map_or(secs, |v| v.trim().parse().unwrap_or_else(|_| panic!("SKILLDECK_FUZZ_SECS={v:?}: give seconds")));
        let seed = var("SKILLDECK_FUZZ_SEED").map_or(DEFAULT_SEED, |v| {
            let v = v.trim();
            let parsed = match v.strip_prefix("0x") {
                Some(hex) => u64::from_str_radix(hex, 16),
                None => v.parse(),
            };
            parsed.unwrap_or_else(|_| panic!("SKILLDECK_FUZZ_SEED={v:?}: give a number"))
        });
        Self { iters, time: Duration::from_secs_f64(secs.max(0.0)), seed }
    }
}

/// How inputs are mutated: tokens that mean something to the target, and a length cap.
#[derive(Debug, Clone)]
pub struct Mutator {
    /// Byte strings worth inserting (YAML indicators, `../`, …).
    pub tokens: Vec<Vec<u8>>,
    /// Inputs are cut to this many bytes.
    pub max_len: usize,
    /// The most mutations stacked on one input.
    pub max_stack: usize,
}

impl Mutator {
    /// A mutator with `tokens`, cutting inputs at `max_len` and stacking up to 6 mutations.
    pub fn new(tokens: &[&[u8]], max_len: usize) -> Self {
        Self { tokens: tokens.iter().map(|t| t.to_vec()).collect(), max_len, max_stack: 6 }
    }

    /// One input: a seed from `corpus` with 1 to `max_stack` mutations stacked on it.
    pub fn input(&self, rng: &mut fastrand::Rng, corpus: &[Vec<u8>]) -> Vec<u8> {
        let mut data = corpus.get(rng.usize(..corpus.len().max(1))).cloned().unwrap_or_default();
        // Fewer mutations more often: most inputs stay close to a seed and get deep.
        let n = 1 + rng.usize(..self.max_stack.max(1)).min(rng.usize(..self.max_stack.max(1)));
        for _ in 0..n {
            self.mutate_once(rng, &mut data, corpus);
        }
        data.truncate(self.max_len);
        data
    }

    /// Applies one mutation to `data`.
    pub fn mutate_once(&self, rng: &mut fastrand::Rng, data: &mut Vec<u8>, corpus: &[Vec<u8>]) {
        let len = data.len();
        let at = rng.usize(..=len);
        match rng.u8(..9) {
            // Flip one bit.
            0 if len > 0 => {
                let i = rng.usize(..len);
                data[i] ^= 1 << rng.u8(..8);
            }
            // Overwrite one byte with any value.
            1 if len > 0 => {
                let i = rng.usize(..len);
                data[i] = rng.u8(..);
            }
            // Insert a token, the most useful mutation: twice the weight.
            2 | 3 if !self.tokens.is_empty() => {
                let token = &self.tokens[rng.usize(..self.tokens.len())];
                data.splice(at..at, token.iter().copied());
            }
            // Delete a range.
            4 if len > 0 => {
                let from = rng.usize(..len);
                let to = (from + 1 + rng.usize(..16.min(len - from))).min(len);
                data.drain(from..to);
            }
            // Duplicate a chunk somewhere else.
            5 if len > 0 => {
                let from = rng.usize(..len);
                let to = (from + 1 + rng.usize(..64.min(len - from))).min(len);
                let chunk = data[from..to].to_vec();
                data.splice(at..at, chunk);
            }
            // Truncate.
            6 => data.truncate(at),
            // Splice in a chunk of another seed.
            7 if !corpus.is_empty() => {
                let other = &corpus[rng.usize(..corpus.len())];
                if !other.is_empty() {
                    let from = rng.usize(..other.len());
                    let to = (from + 1 + rng.usize(..64.min(other.len() - from))).min(other.len());
                    data.splice(at..at, other[from..to].iter().copied());
                }
            }
            // Insert a random byte (or, for empty inputs and the cases above that did not apply).
            _ => data.insert(at, rng.u8(..)),
        }
    }
}

/// What a run did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ran {
    /// Inputs checked.
    pub inputs: u64,
    /// Inputs the target accepted (as its check reports), to see the run reaches deep.
    pub accepted: u64,
}

/// What a check says of one input: `Ok(true)` accepted, `Ok(false)` refused, both with every
/// invariant kept; `Err` names the invariant broken.
pub type Verdict = Result<bool, String>;

/// Runs `check` on mutated inputs within `budget`. On a broken invariant or a panic, shrinks
/// the input and panics with the target, the replay seed and the (shrunk) input. `target` is
/// the name of the test that runs it, so the printed replay command selects that test.
pub fn run(
    target: &str,
    budget: Budget,
    corpus: &[Vec<u8>],
    mutator: &Mutator,
    check: &mut dyn FnMut(&[u8]) -> Verdict,
) -> Ran {
    let started = Instant::now();
    let mut ran = Ran { inputs: 0, accepted: 0 };
    // The seeds themselves first: they must pass as they are.
    for (i, seed) in corpus.iter().enumerate() {
        if let Err(why) = guarded(check, seed) {
            panic!("fuzz target {target}: seed input {i} fails: {why}\ninput: {}", shown(seed));
        }
    }
    while ran.inputs < budget.iters && started.elapsed() < budget.time {
        let case_seed = budget.seed.wrapping_add(ran.inputs);
        let input = mutator.input(&mut fastrand::Rng::with_seed(case_seed), corpus);
        match guarded(check, &input) {
            Ok(accepted) => ran.accepted += u64::from(accepted),
            Err(why) => {
                let small = shrink(check, input.clone());
                panic!(
                    "fuzz target {target} failed at iteration {}: {why}\n\
                     input ({} bytes): {}\n\
                     shrunk ({} bytes): {}\n\
                     replay: SKILLDECK_FUZZ_SEED={case_seed} SKILLDECK_FUZZ_ITERS=1 cargo test {target}",
                    ran.inputs,
                    input.len(),
                    shown(&input),
                    small.len(),
                    shown(&small),
                );
            }
        }
        ran.inputs += 1;
    }
    eprintln!(
        "fuzz {target}: {} inputs ({} accepted) in {:.1?}, seed {}",
        ran.inputs,
        ran.accepted,
        started.elapsed(),
        budget.seed
    );
    ran
}

/// Runs the check, turning a panic into a broken invariant.
fn guarded(check: &mut dyn FnMut(&[u8]) -> Verdict, input: &[u8]) -> Verdict {
    match catch_unwind(AssertUnwindSafe(|| check(input))) {
        Ok(v) => v,
        Err(p) => {
            let what =
                p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| (*s).to_owned()));
            Err(format!("panicked: {}", what.unwrap_or_default()))
        }
    }
}

/// A smaller input that still fails: chunks are cut while the failure stays (a few hundred tries).
fn shrink(check: &mut dyn FnMut(&[u8]) -> Verdict, mut input: Vec<u8>) -> Vec<u8> {
    let mut tries = 0;
    let mut chunk = input.len().div_ceil(2).max(1);
    while chunk >= 1 && tries < 400 {
        let mut at = 0;
        while at < input.len() && tries < 400 {
            let mut cut = input.clone();
            cut.drain(at..(at + chunk).min(input.len()));
            tries += 1;
            if guarded(check, &cut).is_err() {
                input = cut;
            } else {
                at += chunk;
            }
        }
        if chunk == 1 {
            break;
        }
        chunk /= 2;
    }
    input
}

/// An input as escaped text, cut at 2,000 characters.
pub fn shown(input: &[u8]) -> String {
    let text: String = input.escape_ascii().to_string();
    match text.char_indices().nth(2000) {
        Some((i, _)) => format!("b\"{}\"… ({} bytes)", &text[..i], input.len()),
        None => format!("b\"{text}\""),
    }
}
