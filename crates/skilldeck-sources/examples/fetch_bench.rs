//! Times fetching and writing a 500-skill repository over the loopback smart-HTTP server
//! against `git clone --depth 1` of the same URL. Run with
//! `cargo run --release -p skilldeck-sources --features git-server --example fetch_bench [SKILLS]`.
//! For timing whole processes (`hyperfine`, `/usr/bin/time -v`): `fetch_bench serve SKILLS` builds the repository,
//! serves it and prints its URL until killed; `fetch_bench fetch URL` fetches it once into a
//! temporary folder.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::time::{Duration, Instant};

use skilldeck_sources::git::{self, FetchOptions};
use skilldeck_sources::testing::{GitHttpServer, GitRepo};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["fetch", url] => {
            let dest = tempfile::tempdir().unwrap();
            git::fetch(url, None, None, &dest.path().join("o"), &FetchOptions::default()).unwrap();
        }
        ["serve", skills] => {
            let repo = fixture(skills.parse().unwrap());
            let server = GitHttpServer::start(repo.root(), None).unwrap();
            println!("{}", server.url("repo.git"));
            loop {
                std::thread::sleep(Duration::from_secs(3600));
            }
        }
        ["serve-set", repos, skills] => {
            // REPOS repositories of SKILLS skills each, under one server: one URL a line.
            let root = tempfile::tempdir().unwrap();
            let mut kept = Vec::new();
            for r in 0..repos.parse::<usize>().unwrap() {
                let repo = fixture_named(&format!("r{r}-s"), skills.parse().unwrap());
                std::os::unix::fs::symlink(repo.bare(), root.path().join(format!("r{r}.git"))).unwrap();
                kept.push(repo);
            }
            let server = GitHttpServer::start(root.path(), None).unwrap();
            for r in 0..kept.len() {
                println!("{}", server.url(&format!("r{r}.git")));
            }
            use std::io::Write as _;
            std::io::stdout().flush().unwrap();
            loop {
                std::thread::sleep(Duration::from_secs(3600));
            }
        }
        _ => in_process(args.first().and_then(|n| n.parse().ok()).unwrap_or(500)),
    }
}

fn fixture(skills: usize) -> GitRepo {
    fixture_named("s", skills)
}

/// A repository of `skills` skills named `<prefix>0000`, `<prefix>0001`, …
fn fixture_named(prefix: &str, skills: usize) -> GitRepo {
    let repo = GitRepo::new().unwrap();
    for i in 0..skills {
        let name = format!("{prefix}{i:04}");
        repo.skill(&format!("skills/{name}"), &name).unwrap();
        repo.write(
            &format!("skills/{name}/references/guide.md"),
            format!("# Guide {i}\n{}\n", "Some text. ".repeat(200)),
        )
        .unwrap();
        repo.write(&format!("skills/{name}/scripts/run.py"), format!("print({i})\n")).unwrap();
    }
    repo.commit("skills").unwrap();
    repo
}

fn in_process(skills: usize) {
    let runs = 5;
    let repo = fixture(skills);
    let server = GitHttpServer::start(repo.root(), None).unwrap();
    let url = server.url("repo.git");
    let scratch = tempfile::tempdir().unwrap();
    let time = |label: &str, f: &dyn Fn(usize)| {
        let mut times: Vec<Duration> = (0..runs)
            .map(|run| {
                let started = Instant::now();
                f(run);
                started.elapsed()
            })
            .collect();
        times.sort();
        println!("{label}: median {:?}, min {:?}, max {:?} ({runs} runs)", times[runs / 2], times[0], times[runs - 1]);
    };
    time("skilldeck git::fetch", &|run| {
        let dest = scratch.path().join(format!("gix-{run}"));
        let snapshot = git::fetch(&url, None, None, &dest, &FetchOptions::default()).unwrap();
        assert!(snapshot.problems.is_empty());
    });
    time("git clone --depth 1", &|run| {
        let dest = scratch.path().join(format!("git-{run}"));
        let status = std::process::Command::new("git")
            .args(["clone", "-q", "--depth", "1", &url, dest.to_str().unwrap()])
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .status()
            .unwrap();
        assert!(status.success());
    });
    println!("{skills} skills, {} files", skills * 3);
}
