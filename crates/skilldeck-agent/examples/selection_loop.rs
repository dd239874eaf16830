//! The offline router's accuracy on the selection benchmark, measured through the agent loop
//! itself: for each store size a real store on disk, and for each labelled request a new
//! session on a fresh workspace running one turn with the offline provider; the request counts
//! as right when the skill `view_skill` mounted is the labelled one.
//!
//! `cargo run --release -p skilldeck-agent --example selection_loop -- [--corpus DIR]
//! [--sizes 50,200,1000,5000] [--base-url URL --model NAME] [--limit N] [bench/selection]` (the
//! corpus as for the core's `selection` example; `$SKILLDECK_SELECTION_CORPUS` works too).
//! With `--base-url` the turns go to that OpenAI-compatible server instead of the offline
//! router (a real model choosing from the listing and `find_skills`: slow, so `--limit N` takes
//! every k-th request for N of each split). `--model DIR` ranks by meaning too, with the
//! sentence-embedding model in DIR (vectors computed before the turns and kept where the core's
//! example keeps them); `--companion DIR` adds an English companion model beside it, as
//! shipped. `--requests FILE` replaces the labelled requests with FILE's (the same
//! columns: request, skill, split); a store smaller than the labelled set then holds the skills
//! FILE names first (`bench/selection/natural.tsv` with `--sizes 10`: six requests that never
//! mention skills, over ten skills all listed in full). `--suggest` / `--no-suggest` turn on or
//! off the system prompt's naming of the closest skills (`[listing] suggest`); `--show` prints
//! what the model did in each turn (its calls and the start of its answer).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

#[allow(dead_code)] // the core example uses all of it
#[path = "../../skilldeck-core/examples/selection/data.rs"]
mod data;

use data::Bench;
use skilldeck_agent::config::{Api, Config, ProviderConfig};
use skilldeck_agent::events::{AgentEvent, Host, ShellAnswer, ShellQuestion, WriteQuestion};
use skilldeck_agent::message::Message;
use skilldeck_agent::session::{Session, SessionOptions};
use skilldeck_core::SkillRegistry;
use skilldeck_core::semantic::Semantic;
use skilldeck_skill::files::SkillFiles;
use skilldeck_skill::{RelPath, Scope, SkillName};
use skilldeck_store::{FsStorage, SkilldeckHome};
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// A host that approves nothing and keeps nothing (the router never runs a shell command).
struct Quiet;

#[async_trait::async_trait]
impl Host for Quiet {
    fn event(&self, _event: &AgentEvent) {}

    async fn approve_shell(&self, _question: &ShellQuestion) -> ShellAnswer {
        ShellAnswer::Deny
    }

    async fn approve_write(&self, _question: &WriteQuestion) -> ShellAnswer {
        ShellAnswer::Deny
    }
}

/// The skill the turn mounted: the first path-less `view_skill` result without an error.
fn mounted(history: &[Message]) -> Option<String> {
    history.iter().find_map(|m| match m {
        Message::Tool { name, content, .. } if name == "view_skill" => {
            let v: serde_json::Value = serde_json::from_str(content).ok()?;
            (v["path"].is_null() && v.get("error").is_none()).then(|| v["skillName"].as_str().map(str::to_owned))?
        }
        _ => None,
    })
}

/// What the model did in a turn, one short line a step (for `--show`).
fn steps(history: &[Message]) -> Vec<String> {
    history
        .iter()
        .filter_map(|m| match m {
            Message::Assistant { content, tool_calls } => {
                let calls: Vec<String> =
                    tool_calls.iter().map(|c| format!("{}({})", c.name, c.arguments_text())).collect();
                let text: String = content.split_whitespace().collect::<Vec<_>>().join(" ").chars().take(160).collect();
                Some(format!("{} {}", calls.join(" "), text).trim().to_owned())
            }
            _ => None,
        })
        .collect()
}

fn searched(history: &[Message]) -> bool {
    history.iter().any(|m| matches!(m, Message::Tool { name, .. } if name == "find_skills"))
}

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1);
    let (mut dir, mut corpus, mut sizes) = (PathBuf::from("bench/selection"), None, vec![50, 200, 1000, 5000]);
    let (mut base_url, mut model, mut limit) = (None, None, usize::MAX);
    let (mut embedder, mut requests, mut suggest, mut show) = (None, None, None, false);
    let mut companion: Option<PathBuf> = None;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--corpus" => corpus = Some(PathBuf::from(args.next().expect("--corpus DIR"))),
            "--base-url" => base_url = Some(args.next().expect("--base-url URL")),
            "--model" => model = Some(args.next().expect("--model NAME")),
            "--model-dir" | "--embedder" => embedder = Some(PathBuf::from(args.next().expect("--embedder DIR"))),
            "--companion" => companion = Some(PathBuf::from(args.next().expect("--companion DIR"))),
            "--suggest" => suggest = Some(true),
            "--show" => show = true,
            "--no-suggest" => suggest = Some(false),
            "--requests" => requests = Some(PathBuf::from(args.next().expect("--requests FILE"))),
            "--limit" => limit = args.next().expect("--limit N").parse().expect("a number"),
            "--sizes" => {
                sizes = args.next().expect("--sizes 50,200").split(',').map(|s| s.parse().expect("a size")).collect()
            }
            _ => dir = PathBuf::from(a),
        }
    }
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut bench = Bench::load(&dir, corpus, &repo);
    if let Some(file) = &requests {
        bench.requests = data::read_tsv(file)
            .into_iter()
            .map(|r| data::Request { text: r[0].clone(), expected: r[1].clone(), split: r[2].clone() })
            .collect();
    }
    let wanted: BTreeSet<String> = bench.requests.iter().map(|r| r.expected.clone()).collect();
    match &bench.pool.corpus {
        Some(c) => {
            println!("distractors: {} real skills from {}; the rest generated", bench.pool.real.len(), c.display())
        }
        None => println!("distractors: GENERATED only (no corpus given)"),
    }
    let provider = match &base_url {
        None => ProviderConfig::offline(),
        Some(url) => ProviderConfig {
            api: Api::Openai,
            base_url: Some(url.clone()),
            model: model.clone().or(Some("model".into())),
            context_window: 8192,
            idle_timeout_secs: Some(600.0),
            ..ProviderConfig::offline()
        },
    };
    let mut options = SessionOptions::from_config(&Config::default(), &provider);
    if let Some(on) = suggest {
        options.suggest = on;
    }
    if base_url.is_some() {
        // Enough calls to search, load and answer; a small model may wander otherwise.
        options.max_steps = 4;
    }
    let who = base_url.as_deref().map_or("offline router".to_owned(), |u| format!("model at {u}"));
    println!("{who} through the agent loop (one session and turn per request, real store on disk)\n");
    println!("skills  split    reqs  right   searched  not loaded  turn p50/p95 (ms)  store written in");
    for size in sizes {
        let tmp = tempfile::tempdir().unwrap();
        let home = SkilldeckHome::new(tmp.path().join("home"));
        let mut registry = SkillRegistry::new(FsStorage::open(home.clone()).unwrap());
        let semantic = embedder.as_ref().map(|dir| {
            let vectors = std::env::temp_dir().join("skilldeck-selection-vectors");
            Arc::new(Semantic::with_model(&vectors, Some(dir.clone())).with_companion(companion.clone()))
        });
        if let Some(s) = &semantic {
            registry = registry.with_semantic(Arc::clone(s));
        }
        let registry = Arc::new(registry);
        let t = Instant::now();
        let mut names = BTreeSet::new();
        let mut store = bench.store(size);
        if requests.is_some() && size < bench.labelled.len() {
            // The skills the requests name, then the other labelled ones in the usual order.
            let mut first: Vec<_> = bench.labelled.iter().filter(|s| wanted.contains(&s.name)).cloned().collect();
            let rest = bench.store(bench.labelled.len()).into_iter().filter(|s| !wanted.contains(&s.name));
            first.extend(rest);
            first.truncate(size);
            store = first;
        }
        for s in store {
            let mut files = SkillFiles::new();
            files.insert(RelPath::parse("SKILL.md").unwrap(), s.skill_md.clone());
            let name = SkillName::parse(&s.name).unwrap();
            match registry.write_skill(Scope::User, &name, &files) {
                Ok(_) => {
                    names.insert(s.name);
                }
                Err(e) => eprintln!("{}: not stored: {e}", s.name),
            }
        }
        let written = t.elapsed();
        if let Some(s) = &semantic {
            let t = Instant::now();
            let set = registry.ranked_set(&[Scope::User]).unwrap();
            s.index(&set, |_, _| {}).expect("the model runs");
            eprintln!("{size} skills: vectors ready in {:.1} s", t.elapsed().as_secs_f64());
        }
        let splits: BTreeSet<&str> = bench.requests.iter().map(|r| r.split.as_str()).collect();
        for split in splits {
            let all: Vec<_> =
                bench.requests.iter().filter(|r| r.split == split && names.contains(&r.expected)).collect();
            let step = all.len().div_ceil(limit.max(1)).max(1);
            let rows: Vec<_> = all.into_iter().step_by(step).collect();
            let (mut right, mut search, mut none) = (0, 0, 0);
            let mut times: Vec<Duration> = Vec::new();
            for (i, r) in rows.iter().enumerate() {
                let ws = tmp.path().join(format!("ws-{split}-{i}"));
                std::fs::create_dir_all(&ws).unwrap();
                let mut session =
                    Session::create(&home, Arc::clone(&registry), &ws, provider.build().unwrap(), options.clone())
                        .unwrap();
                let t = Instant::now();
                if let Err(e) = session.run_turn(&r.text, &Quiet, &CancellationToken::new()).await {
                    eprintln!("{:?}: the turn failed: {e}", r.text);
                }
                times.push(t.elapsed());
                let got = mounted(session.history());
                // The mount is real: the skill's folder is in the workspace.
                if let Some(g) = &got {
                    assert!(ws.join(".skills").join(g).join("SKILL.md").is_file(), "{g} not mounted");
                }
                right += usize::from(got.as_deref() == Some(r.expected.as_str()));
                if base_url.is_some() || show {
                    let how = if searched(session.history()) { "searched, " } else { "" };
                    println!("  {:?} wants {}: {how}loaded {got:?}", r.text, r.expected);
                    if show {
                        for step in steps(session.history()) {
                            println!("      > {step}");
                        }
                    }
                }
                none += usize::from(got.is_none());
                search += usize::from(searched(session.history()));
            }
            times.sort();
            let q = |p: f64| {
                times.get(((times.len() as f64 - 1.0) * p).round() as usize).map_or(0.0, |d| d.as_secs_f64() * 1e3)
            };
            let pct = |n: usize| format!("{:5.1}%", 100.0 * n as f64 / rows.len().max(1) as f64);
            println!(
                "{size:>6}  {split:<7}  {:>4}  {}   {}     {}     {:>6.1} / {:<6.1}   {:.1} s",
                rows.len(),
                pct(right),
                pct(search),
                pct(none),
                q(0.5),
                q(0.95),
                written.as_secs_f64()
            );
        }
    }
}
