//! Core benchmarks: frontmatter validation, cold discovery (with digests too), the warm L1 listing
//! and one upload.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use criterion::{Criterion, SamplingMode, criterion_group, criterion_main};
use skilldeck_core::SkillRegistry;
use skilldeck_select::catalogue::Catalogue;
use skilldeck_select::listing::ListingOptions;
use skilldeck_skill::validate::{self, ValidateOptions};
use skilldeck_skill::{DiagCode, RelPath, Scope, SkillFiles, SkillName};
use skilldeck_store::{FsStorage, SkilldeckHome};
use std::fmt::Write as _;
use std::fs;
use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

/// A small deterministic generator (xorshift64*), so every run benchmarks the same store.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }

    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `lo..hi`.
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.next() % (hi - lo) as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.range(0, items.len())]
    }
}

const OPENERS: &[&str] = &[
    "Extract text and tables from",
    "Systematic analysis of",
    "Create, edit and review",
    "Generate clear reports from",
    "Automate the routine handling of",
    "Guidelines for writing and checking",
    "Toolkit for inspecting and converting",
    "Plan, draft and publish",
];

const WORDS: &[&str] = &[
    "PDF",
    "files",
    "spreadsheets",
    "market",
    "research",
    "competitive",
    "intelligence",
    "with",
    "charts",
    "tables",
    "and",
    "the",
    "user",
    "documents",
    "pull",
    "requests",
    "commit",
    "messages",
    "release",
    "notes",
    "data",
    "pipelines",
    "for",
    "when",
    "asked",
    "to",
    "summarize",
    "quarterly",
    "figures",
    "including",
    "formulas",
    "formatting",
    "slides",
    "presentations",
    "images",
    "screenshots",
    "logs",
    "APIs",
    "tests",
    "coverage",
    "in",
    "a",
    "repository",
    "project",
    "workspace",
    "notes",
    "customer",
    "feedback",
    "emails",
    "invoices",
    "contracts",
    "legal",
    "review",
    "checklists",
    "migrations",
    "schemas",
    "SQL",
    "queries",
];

/// A description of about `len` characters, prose-like, ending in a sentence about when to use it.
fn description(rng: &mut Rng, len: usize) -> String {
    let mut d = String::from(rng.pick(OPENERS));
    while d.len() + 40 < len {
        d.push(' ');
        d.push_str(rng.pick(WORDS));
        if rng.range(0, 12) == 0 {
            d.push(',');
        }
    }
    d.push_str(". Use when working with ");
    while d.len() < len {
        d.push_str(rng.pick(WORDS));
        d.push(' ');
    }
    d.truncate(d.trim_end().len());
    d.push('.');
    d
}

/// A description length with the measured shape: median about 155, p90 about 364.
fn description_len(rng: &mut Rng) -> usize {
    match rng.range(0, 100) {
        0..50 => rng.range(70, 155),
        50..90 => rng.range(155, 364),
        _ => rng.range(364, 520),
    }
}

/// A Markdown body of `lines` lines: headings, prose, lists and a code block.
fn body(rng: &mut Rng, lines: usize) -> String {
    let mut b = String::from("\n# Instructions\n\n");
    let mut n = 3;
    while n < lines {
        match n % 25 {
            0 => {
                let _ = writeln!(b, "\n## Step {}", n / 25 + 1);
                n += 2;
            }
            10 => {
                b.push_str("```bash\npython scripts/run.py --input \"$FILE\" --format json\n```\n");
                n += 3;
            }
            k if k % 3 == 0 => {
                let _ = writeln!(
                    b,
                    "- Check the {} {} before you {} the {}.",
                    rng.pick(WORDS),
                    rng.pick(WORDS),
                    rng.pick(&["open", "convert", "summarize", "review"]),
                    rng.pick(WORDS)
                );
                n += 1;
            }
            _ => {
                let mut line = String::new();
                for _ in 0..rng.range(8, 16) {
                    line.push_str(rng.pick(WORDS));
                    line.push(' ');
                }
                let _ = writeln!(b, "{}.", line.trim_end());
                n += 1;
            }
        }
    }
    b
}

/// A realistic `SKILL.md`: spec fields, common extra fields, nested metadata, a body.
/// `messy` puts an unquoted `: ` in the description, which needs the YAML recovery.
fn skill_md(rng: &mut Rng, name: &str, desc_len: usize, body_lines: usize, messy: bool) -> String {
    let mut desc = description(rng, desc_len);
    if messy {
        desc = format!("Important: {desc}");
    }
    let mut s = String::new();
    let _ = writeln!(s, "---\nname: {name}\ndescription: {desc}");
    if rng.range(0, 2) == 0 {
        let _ = writeln!(s, "version: 1.{}.{}", rng.range(0, 10), rng.range(0, 20));
    }
    let _ = writeln!(
        s,
        "license: MIT\nauthor: Example Author\ntags: [{}, {}, automation]",
        rng.pick(WORDS),
        rng.pick(WORDS)
    );
    if rng.range(0, 3) == 0 {
        s.push_str("allowed-tools: Bash(python:*) Read Write\n");
    }
    s.push_str("metadata:\n  category: productivity\n  source: https://github.com/example/skills\n");
    s.push_str("  aibuddy:\n    dependencies:\n      python: [pdfplumber, pandas]\n---\n");
    s.push_str(&body(rng, body_lines));
    s
}

/// Writes `count` user skills straight into `home` as folders with `SKILL.md` and `.version`.
fn populate(home: &Path, count: usize) {
    let dir = home.join("skills").join("user");
    fs::create_dir_all(&dir).unwrap();
    let mut rng = Rng::new(count as u64);
    for i in 0..count {
        let name = format!("skill-{i:04}");
        let skill = dir.join(&name);
        fs::create_dir(&skill).unwrap();
        let len = description_len(&mut rng);
        let lines = rng.range(40, 160);
        let text = skill_md(&mut rng, &name, len, lines, i % 20 == 7);
        fs::write(skill.join("SKILL.md"), text).unwrap();
        fs::write(skill.join(".version"), format!("{}\n", rng.range(1, 9))).unwrap();
    }
}

fn bench_validate(c: &mut Criterion) {
    let mut rng = Rng::new(1);
    let clean = skill_md(&mut rng, "pdf-tables", 150, 100, false);
    let messy = skill_md(&mut rng, "pdf-tables", 150, 100, true);
    let opts = ValidateOptions { dir_name: Some("pdf-tables"), ..ValidateOptions::default() };
    let v = validate::validate_text(&clean, opts);
    assert!(v.is_valid(), "{:?}", v.diagnostics);
    let m = validate::validate_text(&messy, opts);
    assert!(m.is_valid(), "{:?}", m.diagnostics);
    assert!(m.diagnostics.iter().any(|d| d.code == DiagCode::YamlRecovered), "{:?}", m.diagnostics);

    let mut g = c.benchmark_group("validate");
    g.bench_function("skill_md", |b| b.iter(|| validate::validate_text(black_box(&clean), opts)));
    g.bench_function("skill_md_recovered", |b| b.iter(|| validate::validate_text(black_box(&messy), opts)));
    g.finish();
}

/// Grows `front` by `unit(i)` for i = 0, 1, … while it stays under `cap` bytes, then closes it.
fn fill(mut front: String, cap: usize, unit: impl Fn(usize) -> String, close: &str) -> String {
    for i in 0.. {
        let next = unit(i);
        if front.len() + next.len() + close.len() >= cap {
            break;
        }
        front.push_str(&next);
    }
    front.push_str(close);
    front
}

/// The worst frontmatters found for the parser, each just under the 16 KiB cap and just within
/// the depth and alias limits (so they are parsed in full), and two that are refused unparsed.
/// Each is checked to get the outcome it is named for before it is timed.
fn hostile_yaml() -> Vec<(&'static str, String, Option<DiagCode>)> {
    use skilldeck_skill::frontmatter::MAX_FRONTMATTER_BYTES as CAP;
    use skilldeck_skill::yaml_bounds::{MAX_DEPTH, MAX_EXPANDED_VALUES};
    let head = "name: pdf\ndescription: x\n".to_owned();
    let flow = MAX_DEPTH - 2;
    let brackets = fill(format!("{head}m: ["), CAP, |_| format!("{}x{},", "[".repeat(flow), "]".repeat(flow)), "]\n");
    let braces = fill(format!("{head}m: ["), CAP, |_| format!("{}x{},", "{a: ".repeat(flow), "}".repeat(flow)), "]\n");
    let block = fill(head.clone(), CAP, |i| format!("{}k{i}:\n", " ".repeat(i % (MAX_DEPTH - 1))), "");
    let dashes = fill(format!("{head}m:\n"), CAP, |_| format!("{}x\n", "- ".repeat(MAX_DEPTH - 2)), "");
    let anchor_values = 1900;
    let per_alias = anchor_values as u64 + 2;
    let aliases = (MAX_EXPANDED_VALUES - anchor_values as u64 - 8) / per_alias;
    let mut alias_bomb = format!("{head}big: &big [{}]\n", "x, ".repeat(anchor_values - 1) + "x");
    for i in 0..aliases {
        let _ = writeln!(alias_bomb, "c{i}: *big");
    }
    vec![
        ("flow_brackets_16k", brackets, None),
        ("flow_braces_16k", braces, None),
        ("block_indent_16k", block, None),
        ("compact_dashes_16k", dashes, None),
        ("aliases_at_budget", alias_bomb, None),
        (
            "refused_unclosed_16k",
            format!("{head}m: {}\n", "[".repeat(CAP - head.len() - 8)),
            Some(DiagCode::YamlTooDeep),
        ),
        (
            "refused_issue_8_64k",
            format!("{head}m: {}\n", "[".repeat(65_500 - head.len() - 4)),
            Some(DiagCode::FrontmatterTooLarge),
        ),
    ]
}

fn bench_hostile_yaml(c: &mut Criterion) {
    let opts = ValidateOptions { dir_name: Some("pdf"), ..ValidateOptions::default() };
    let mut g = c.benchmark_group("hostile_yaml");
    for (label, front, refused) in hostile_yaml() {
        let text = format!("---\n{front}---\nbody\n");
        let v = validate::validate_text(&text, opts);
        let errors: Vec<DiagCode> = v.diagnostics.iter().filter(|d| d.is_error()).map(|d| d.code).collect();
        assert_eq!(errors, refused.into_iter().collect::<Vec<_>>(), "{label}: {:?}", v.diagnostics);
        g.bench_function(label, |b| b.iter(|| validate::validate_text(black_box(&text), opts)));
    }
    g.finish();
}

/// A temporary `SKILLDECK_HOME` holding `count` generated user skills, checked to be valid.
fn store(count: usize) -> (tempfile::TempDir, SkilldeckHome) {
    let tmp = tempfile::tempdir().unwrap();
    populate(tmp.path(), count);
    let home = SkilldeckHome::new(tmp.path());
    let first = SkillRegistry::new(FsStorage::open(home.clone()).unwrap()).list_metas(Scope::User).unwrap();
    assert_eq!(first.len(), count);
    assert!(first.iter().all(|e| e.valid), "every generated skill should be valid");
    (tmp, home)
}

// Fixtures are built inside the first call of each routine, so a filtered run
// (`cargo bench -- listing`) never writes the stores of the benchmarks it skips.

fn bench_discovery(c: &mut Criterion) {
    let mut fixture = None;
    let mut g = c.benchmark_group("discovery");
    g.sample_size(10).sampling_mode(SamplingMode::Flat).measurement_time(Duration::from_secs(15));
    g.bench_function("cold_5000", |b| {
        let (_tmp, home) = fixture.get_or_insert_with(|| store(5000));
        b.iter(|| {
            let registry = SkillRegistry::new(FsStorage::open(home.clone()).unwrap());
            registry.list_metas(Scope::User).unwrap()
        })
    });
    g.finish();
}

/// A home holding `count` user skills of three files each, written through `write_skill` (so
/// each revision carries its record and seal); with `unsealed`, every record is then cut back
/// to the bare log line older versions wrote, so each digest has to be hashed from the files.
fn written_store(count: usize, unsealed: bool) -> (tempfile::TempDir, SkilldeckHome) {
    let tmp = tempfile::tempdir().unwrap();
    let home = SkilldeckHome::new(tmp.path());
    let storage = FsStorage::open(home.clone()).unwrap();
    let mut rng = Rng::new(count as u64 + 7);
    for i in 0..count {
        let name = format!("skill-{i:04}");
        let len = description_len(&mut rng);
        let files: SkillFiles = [
            ("SKILL.md", skill_md(&mut rng, &name, len, 80, false)),
            ("references/guide.md", body(&mut rng, 60)),
            ("scripts/run.py", "import sys\n\nprint(sys.argv[1:])\n".repeat(20)),
        ]
        .into_iter()
        .map(|(p, t)| (RelPath::parse(p).unwrap(), t.into_bytes()))
        .collect();
        storage.write_skill_sync(Scope::User, &SkillName::parse(&name).unwrap(), &files).unwrap();
        if unsealed {
            let record = tmp.path().join("skills/user").join(&name).join(".revision.json");
            let mut line: serde_json::Map<String, serde_json::Value> =
                serde_json::from_slice(&fs::read(&record).unwrap()).unwrap();
            assert!(line.remove("seal").is_some());
            fs::write(&record, serde_json::to_vec(&line).unwrap()).unwrap();
        }
    }
    (tmp, home)
}

/// A cold listing with every skill's digest (`list --json`, the app): from the records while
/// the files are as written, against hashing every file (records without a seal).
fn bench_digests(c: &mut Criterion) {
    let mut fixtures: [Option<(tempfile::TempDir, SkilldeckHome)>; 2] = [None, None];
    let mut g = c.benchmark_group("discovery_with_digests");
    g.sample_size(10).sampling_mode(SamplingMode::Flat).measurement_time(Duration::from_secs(10));
    for (i, label) in ["sealed_500", "unsealed_500"].into_iter().enumerate() {
        g.bench_function(label, |b| {
            let (_tmp, home) = fixtures[i].get_or_insert_with(|| written_store(500, i == 1));
            b.iter(|| {
                let registry = SkillRegistry::new(FsStorage::open(home.clone()).unwrap()).with_digests(true);
                let entries = registry.list_metas(Scope::User).unwrap();
                assert_eq!(entries.len(), 500);
                registry.digest(Scope::User, "skill-0000").unwrap()
            })
        });
    }
    g.finish();
}

fn bench_listing(c: &mut Criterion) {
    let opts = ListingOptions::default();
    let mut fixture = None;
    let mut g = c.benchmark_group("listing");
    g.bench_function("warm_1000", |b| {
        let (_tmp, registry) = fixture.get_or_insert_with(|| {
            let (tmp, home) = store(1000);
            let registry = SkillRegistry::new(FsStorage::open(home).unwrap());
            let warm = registry.listing(&opts).unwrap();
            assert!(warm.ranked && warm.more > 0, "the budget should force ranking");
            (tmp, registry)
        });
        b.iter(|| registry.listing(black_box(&opts)).unwrap())
    });
    g.finish();
}

fn bench_write(c: &mut Criterion) {
    let name = SkillName::parse("bench-write").unwrap();
    let mut rng = Rng::new(3);
    let files: SkillFiles = [
        ("SKILL.md", skill_md(&mut rng, "bench-write", 155, 100, false)),
        ("references/guide.md", body(&mut rng, 60)),
        ("scripts/run.py", "import sys\n\nprint(sys.argv[1:])\n".repeat(20)),
    ]
    .into_iter()
    .map(|(p, t)| (RelPath::parse(p).unwrap(), t.into_bytes()))
    .collect();
    let mut fixture = None;
    let mut g = c.benchmark_group("write_skill");
    g.sample_size(30).measurement_time(Duration::from_secs(10));
    g.bench_function("small", |b| {
        let (_tmp, storage) = fixture.get_or_insert_with(|| {
            let tmp = tempfile::tempdir().unwrap();
            let storage = FsStorage::open(SkilldeckHome::new(tmp.path())).unwrap();
            (tmp, storage)
        });
        b.iter(|| storage.write_skill_sync(Scope::User, &name, black_box(&files)).unwrap())
    });
    g.finish();
}

criterion_group!(
    benches,
    bench_validate,
    bench_hostile_yaml,
    bench_discovery,
    bench_digests,
    bench_listing,
    bench_write
);
criterion_main!(benches);
