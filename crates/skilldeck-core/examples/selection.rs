//! The selection benchmark: how often the ranked listing and `find_skills` put the right skill
//! in front of a model, at 50, 200, 1,000 and 5,000 installed skills.
//!
//! `cargo run --release -p skilldeck-core --example selection -- bench/selection` reads
//! `skills.tsv` (the labelled skills) and `requests.tsv` (request, expected skill, split) and
//! fills each store with generated distractors.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use skilldeck_core::listing::{self, ListingOptions, Shown};
use skilldeck_core::ranker::{Query, SkillSet};
use skilldeck_core::registry::{ListedEntry, SkillEntry};
use skilldeck_core::storage::Summary;
use skilldeck_core::{Revision, Scope, find};
use std::sync::Arc;
use std::time::Instant;

fn entry(name: &str, description: &str, zh: &str) -> ListedEntry {
    let esc = |s: &str| s.replace('\\', "\\\\").replace('"', "\\\"");
    let zh = if zh.is_empty() { String::new() } else { format!("description_zh: \"{}\"\n", esc(zh)) };
    let md = format!("---\nname: {name}\ndescription: \"{}\"\n{zh}---\n", esc(description));
    let summary = Summary::of_skill_md(Some(Revision(1)), md.into_bytes(), 0);
    let e = SkillEntry::from_summary(Scope::User, name, &summary, false);
    assert!(e.valid, "{name}: {:?}", e.diagnostics);
    ListedEntry { entry: Arc::new(e), shadowed: false }
}

const TOPICS: &[&str] = &[
    "invoice",
    "calendar",
    "email",
    "kubernetes",
    "terraform",
    "postgres",
    "mongodb",
    "redis",
    "kafka",
    "airflow",
    "tableau",
    "figma",
    "jira",
    "confluence",
    "salesforce",
    "stripe",
    "shopify",
    "wordpress",
    "latex",
    "markdown",
    "csv",
    "json",
    "yaml",
    "docker",
    "ansible",
    "grafana",
    "prometheus",
    "sentry",
    "twilio",
    "zoom",
    "notion",
    "trello",
    "hubspot",
    "zendesk",
    "quickbooks",
    "excel",
    "powerpoint",
    "outlook",
    "gmail",
    "github",
    "gitlab",
    "bitbucket",
    "jenkins",
    "circleci",
    "vercel",
    "netlify",
    "firebase",
    "supabase",
    "openapi",
    "graphql",
];
const ACTIONS: &[&str] = &[
    "sync",
    "export",
    "import",
    "audit",
    "migrate",
    "monitor",
    "summarize",
    "translate",
    "validate",
    "schedule",
    "deploy",
    "backup",
    "clean",
    "convert",
    "analyze",
    "automate",
    "document",
    "lint",
    "benchmark",
    "archive",
];

/// Distractors: plausible skills about other tools, so the targets must win on meaning.
fn distractors(n: usize) -> Vec<ListedEntry> {
    (0..n)
        .map(|i| {
            let t = TOPICS[i % TOPICS.len()];
            let a = ACTIONS[(i / TOPICS.len()) % ACTIONS.len()];
            let b = ACTIONS[(i * 7 + 3) % ACTIONS.len()];
            let name = format!("{t}-{a}-{i}");
            let d = format!(
                "Use when the user wants to {a} or {b} {t} data: connects to {t}, reads records, and writes a short report of what changed, with retries and logs."
            );
            entry(&name, &d, "")
        })
        .collect()
}

fn read_tsv(path: &std::path::Path) -> Vec<Vec<String>> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.split('\t').map(str::to_owned).collect())
        .collect()
}

fn main() {
    let dir = std::env::args().nth(1).unwrap_or_else(|| "bench/selection".to_owned());
    let dir = std::path::Path::new(&dir);
    let targets: Vec<ListedEntry> = read_tsv(&dir.join("skills.tsv"))
        .iter()
        .map(|r| entry(&r[0], &r[1], r.get(2).map_or("", String::as_str)))
        .collect();
    let requests = read_tsv(&dir.join("requests.tsv"));
    let opts = ListingOptions::default();
    println!(
        "{} labelled skills, {} requests ({} held out); budget {} tokens (o200k)\n",
        targets.len(),
        requests.len(),
        requests.iter().filter(|r| r[2] == "holdout").count(),
        opts.budget_tokens
    );
    println!("skills  split    top-1   top-5   in-full  find@5  find@1(offline)  tokens(max)  turn(µs)");
    for size in [50, 200, 1000, 5000] {
        let mut store = targets.clone();
        store.extend(distractors(size - targets.len()));
        store.sort_by(|a, b| a.entry.name.cmp(&b.entry.name));
        let set = SkillSet::of(&store);
        let all: Vec<usize> = (0..set.entries().len()).collect();
        for split in ["all", "holdout"] {
            let rows: Vec<&Vec<String>> = requests.iter().filter(|r| split == "all" || r[2] == split).collect();
            let (mut top1, mut top5, mut full, mut find5, mut find1, mut max_tokens) = (0, 0, 0, 0, 0, 0);
            let mut spent = std::time::Duration::ZERO;
            for r in &rows {
                let (request, expected) = (r[0].as_str(), r[1].as_str());
                let q = Query::new(request);
                let ranking = set.rank(&q, &all);
                let at = ranking.iter().position(|x| set.entries()[x.pos].name == expected);
                top1 += usize::from(at == Some(0));
                top5 += usize::from(at.is_some_and(|i| i < 5));
                let t = Instant::now();
                let l = listing::build_ranked(&store, &opts, &q);
                spent += t.elapsed();
                max_tokens = max_tokens.max(l.estimated_tokens);
                full += usize::from(l.skills.iter().any(|s| s.name == expected && s.shown == Shown::Full));
                let found = find::find(&store, &opts, request, find::DEFAULT_LIMIT);
                find5 += usize::from(found.iter().any(|f| f.name == expected));
                find1 += usize::from(found.first().is_some_and(|f| f.name == expected));
            }
            let pct = |n: usize| format!("{:5.1}%", 100.0 * n as f64 / rows.len() as f64);
            println!(
                "{size:>6}  {split:<7}  {}  {}  {}   {}  {}           {max_tokens:>6}  {:>8.0}",
                pct(top1),
                pct(top5),
                pct(full),
                pct(find5),
                pct(find1),
                spent.as_secs_f64() * 1e6 / rows.len() as f64
            );
        }
    }
}
