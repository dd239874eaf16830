//! The selection benchmark's data: the labelled skills and requests of `bench/selection/`, and
//! the distractors that fill a store to a size (real skills from a corpus folder, else generated).
//! Shared by the core's `selection` example and the agent's `selection_loop` example.

use skilldeck_core::registry::{ListedEntry, SkillEntry};
use skilldeck_skill::{Revision, Scope};
use skilldeck_store::storage::Summary;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The environment variable naming the corpus folder (what `scripts/selection-corpus` wrote).
pub const CORPUS_ENV: &str = "SKILLDECK_SELECTION_CORPUS";

/// One skill of a store: its name and the bytes of its SKILL.md.
#[derive(Debug, Clone)]
pub struct BenchSkill {
    /// Its name (and folder name).
    pub name: String,
    /// Its SKILL.md.
    pub skill_md: Vec<u8>,
}

impl BenchSkill {
    /// The entry the registry would make of it.
    pub fn entry(&self) -> SkillEntry {
        let summary = Summary::of_skill_md(Some(Revision(1)), self.skill_md.clone(), self.skill_md.len() as u64);
        skilldeck_store::entries::from_summary(Scope::User, &self.name, &summary, false)
    }
}

/// One labelled request.
#[derive(Debug, Clone)]
pub struct Request {
    /// What the user wrote.
    pub text: String,
    /// The skill that should be loaded.
    pub expected: String,
    /// `tune` (may be looked at while tuning the ranker) or `holdout` (may not).
    pub split: String,
}

/// Where the distractors came from.
#[derive(Debug, Clone)]
pub struct Pool {
    /// Real skills from the corpus, distinct names, shuffled with a fixed seed.
    pub real: Vec<BenchSkill>,
    /// How many SKILL.md files the corpus held, and how many of them were left out (invalid,
    /// a name taken already, a labelled skill or a copy of one).
    pub corpus_files: usize,
    /// The corpus folder, when one was given.
    pub corpus: Option<PathBuf>,
}

/// Everything the benchmark reads.
#[derive(Debug, Clone)]
pub struct Bench {
    /// The labelled skills.
    pub labelled: Vec<BenchSkill>,
    /// Their texts as written in `skills.tsv` (name, description, description_zh).
    pub labelled_text: Vec<[String; 3]>,
    /// The requests.
    pub requests: Vec<Request>,
    /// The distractors.
    pub pool: Pool,
}

/// The rows of a TSV file after its header line.
pub fn read_tsv(path: &Path) -> Vec<Vec<String>> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.split('\t').map(str::to_owned).collect())
        .collect()
}

fn quoted(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// A SKILL.md with our own name and descriptions over `body`.
fn skill_md(name: &str, description: &str, zh: &str, body: &str) -> Vec<u8> {
    let zh = if zh.is_empty() { String::new() } else { format!("description_zh: {}\n", quoted(zh)) };
    format!("---\nname: {name}\ndescription: {}\n{zh}---\n{body}", quoted(description)).into_bytes()
}

/// Every `SKILL.md` under `dir`, sorted.
fn skill_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut items: Vec<_> = rd.filter_map(Result::ok).collect();
    items.sort_by_key(|e| e.file_name());
    for e in items {
        let p = e.path();
        match e.file_type() {
            Ok(t) if t.is_dir() => skill_files(&p, out),
            Ok(t) if t.is_file() && e.file_name() == "SKILL.md" => out.push(p),
            _ => {}
        }
    }
}

/// A corpus skill as a store would hold it: named by its frontmatter when that differs from its
/// folder (collections nest skills in folders named otherwise); none when it is not valid.
fn corpus_skill(path: &Path) -> Option<BenchSkill> {
    let bytes = std::fs::read(path).ok()?;
    let folder = path.parent()?.file_name()?.to_str()?.to_owned();
    let mut s = BenchSkill { name: folder, skill_md: bytes };
    let e = s.entry();
    if e.valid {
        return Some(s);
    }
    let name = e.meta.name.clone().filter(|n| *n != s.name)?;
    s.name = name;
    s.entry().valid.then_some(s)
}

fn normalized(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()
}

impl Bench {
    /// Reads `dir` (`skills.tsv`, `requests.tsv`) and the corpus (`corpus`, else the env var);
    /// `repo` is the repository root (for the bundled skills' bodies).
    pub fn load(dir: &Path, corpus: Option<PathBuf>, repo: &Path) -> Bench {
        let corpus = corpus.or_else(|| std::env::var_os(CORPUS_ENV).map(PathBuf::from));
        let mut files = Vec::new();
        if let Some(c) = &corpus {
            assert!(c.is_dir(), "{}: no such folder; run scripts/selection-corpus {} first", c.display(), c.display());
            skill_files(c, &mut files);
        }
        let rows = read_tsv(&dir.join("skills.tsv"));
        let mut labelled = Vec::new();
        let mut labelled_text = Vec::new();
        // Descriptions of the labelled skills' sources: any corpus skill saying the same is a
        // copy of one and is left out (it would be a second right answer).
        let mut source_descriptions = BTreeSet::new();
        for r in &rows {
            let (name, description, zh) = (&r[0], &r[1], r.get(2).map_or("", String::as_str));
            let (repo_name, path) = (r.get(3).map_or("", String::as_str), r.get(5).map_or("", String::as_str));
            // The body (its headings are ranked) is read from the real skill when it is at hand:
            // the bundled skills from this repository, the others from the corpus.
            let source = if repo_name == "skilldeck" {
                Some(repo.join(path))
            } else {
                corpus.as_ref().map(|c| c.join(repo_name.replace('/', "+")).join(path))
            };
            let real = source.and_then(|p| std::fs::read(p).ok());
            let body = real.as_ref().map_or(String::new(), |b| {
                let text = String::from_utf8_lossy(b);
                skilldeck_skill::frontmatter::strip(&text).to_owned()
            });
            if let Some(b) = &real {
                let s = BenchSkill { name: name.clone(), skill_md: b.clone() };
                if let Some(d) = s.entry().meta.description {
                    source_descriptions.insert(normalized(&d));
                }
            }
            let s = BenchSkill { name: name.clone(), skill_md: skill_md(name, description, zh, &body) };
            let e = s.entry();
            assert!(e.valid, "{name}: {:?}", e.diagnostics);
            labelled.push(s);
            labelled_text.push([name.clone(), description.clone(), zh.to_owned()]);
        }
        let requests = read_tsv(&dir.join("requests.tsv"))
            .into_iter()
            .map(|r| Request { text: r[0].clone(), expected: r[1].clone(), split: r[2].clone() })
            .collect::<Vec<_>>();
        let names: BTreeSet<&str> = labelled.iter().map(|s| s.name.as_str()).collect();
        for r in &requests {
            assert!(names.contains(r.expected.as_str()), "request {:?} expects an unknown skill", r.text);
        }
        let mut real: BTreeMap<String, BenchSkill> = BTreeMap::new();
        for f in &files {
            let Some(s) = corpus_skill(f) else { continue };
            if names.contains(s.name.as_str()) || real.contains_key(&s.name) {
                continue;
            }
            let d = s.entry().meta.description.unwrap_or_default();
            if source_descriptions.contains(&normalized(&d)) {
                continue;
            }
            real.insert(s.name.clone(), s);
        }
        let mut real: Vec<BenchSkill> = real.into_values().collect();
        fastrand::Rng::with_seed(12).shuffle(&mut real);
        Bench { labelled, labelled_text, requests, pool: Pool { real, corpus_files: files.len(), corpus } }
    }

    /// A store of `size` skills: the labelled ones (the first `size` of them in a fixed order
    /// when there are more; only their requests count), then real distractors, then generated
    /// ones when the real ones run out. Stores of growing sizes are nested.
    pub fn store(&self, size: usize) -> Vec<BenchSkill> {
        let mut out = self.labelled.clone();
        fastrand::Rng::with_seed(7).shuffle(&mut out);
        out.truncate(size);
        let want = size.saturating_sub(out.len());
        out.extend(self.pool.real.iter().take(want).cloned());
        let made = want.saturating_sub(self.pool.real.len());
        out.extend(generated(made));
        out
    }

    /// [`store`](Self::store) as the registry lists it: every skill valid, none shadowed.
    pub fn listed(&self, size: usize) -> Vec<ListedEntry> {
        self.store(size)
            .iter()
            .map(|s| ListedEntry { entry: std::sync::Arc::new(s.entry()), shadowed: false })
            .collect()
    }

    /// How many of a store of `size` are real skills from the corpus, and how many generated.
    pub fn mix(&self, size: usize) -> (usize, usize) {
        let want = size.saturating_sub(self.labelled.len());
        let real = want.min(self.pool.real.len());
        (real, want - real)
    }
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

/// Generated distractors: plausible skills about other tools (`<topic>-<action>-<i>`), so the
/// labelled ones must win on meaning.
pub fn generated(n: usize) -> Vec<BenchSkill> {
    (0..n)
        .map(|i| {
            let t = TOPICS[i % TOPICS.len()];
            let a = ACTIONS[(i / TOPICS.len()) % ACTIONS.len()];
            let b = ACTIONS[(i * 7 + 3) % ACTIONS.len()];
            let name = format!("{t}-{a}-{i}");
            let d = format!(
                "Use when the user wants to {a} or {b} {t} data: connects to {t}, reads records, and writes a short report of what changed, with retries and logs."
            );
            BenchSkill { skill_md: skill_md(&name, &d, "", ""), name }
        })
        .collect()
}
