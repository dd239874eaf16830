//! The ranked listing and `find_skills`: the budget held by o200k at every store size, names
//! never cut, pinned skills in full, the enum never holding an unshown unfound skill.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use skilldeck_core::registry::ListedEntry;
use skilldeck_mount::view_skill::tool_spec;
use skilldeck_select::find;
use skilldeck_select::listing::{self, Listing, ListingOptions, Shown};
use skilldeck_select::ranker::Query;
use skilldeck_skill::{Revision, Scope};
use skilldeck_store::storage::Summary;
use std::sync::Arc;

/// A listed skill built in memory the way the registry builds it from a store.
fn entry(name: &str, description: &str, zh: Option<&str>, body: &str) -> ListedEntry {
    let zh = zh.map(|z| format!("description_zh: \"{z}\"\n")).unwrap_or_default();
    let md = format!("---\nname: {name}\ndescription: \"{description}\"\n{zh}---\n{body}");
    let summary = Summary::of_skill_md(Some(Revision(3)), md.into_bytes(), 100);
    let e = skilldeck_store::entries::from_summary(Scope::User, name, &summary, false);
    assert!(e.valid, "{name}: {:?}", e.diagnostics);
    ListedEntry { entry: Arc::new(e), shadowed: false }
}

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
];

/// A store of `n` realistic skills: hyphenated names of two or three words, descriptions of
/// 60 to 400 characters, every seventh with a Chinese description, a few with long names.
fn store(n: usize) -> Vec<ListedEntry> {
    let mut rng = fastrand::Rng::with_seed(n as u64);
    (0..n)
        .map(|i| {
            let mut name = format!("{}-{}-{i}", WORDS[rng.usize(..WORDS.len())], WORDS[rng.usize(..WORDS.len())]);
            if i % 50 == 7 {
                name = format!("extraordinarily-long-skill-name-for-{name}");
            }
            let len = rng.usize(60..400);
            let mut d = String::from("Use when");
            while d.len() < len {
                d.push(' ');
                d.push_str(WORDS[rng.usize(..WORDS.len())]);
            }
            let zh = (i % 7 == 0).then_some("分析季度收入报告并生成图表和摘要");
            entry(&name, &d, zh, "# Steps\n## Checklist\n")
        })
        .collect()
}

/// Every line of a listing's skills part parses to a listed skill, whose name is whole.
fn check_shape(l: &Listing, store: &[ListedEntry]) {
    let full = |name: &str| store.iter().find(|e| e.entry.name == name).unwrap().entry.listing_description().to_owned();
    let lines: Vec<&str> = l.text.lines().skip(3).take_while(|t| t.starts_with("- **")).collect();
    assert_eq!(lines.len(), l.skills.len(), "{}", l.text);
    for (line, s) in lines.iter().zip(&l.skills) {
        let v = s.version.as_deref().map(|v| format!(" (v:{v})")).unwrap_or_default();
        let expected = match s.shown {
            Shown::NameOnly => format!("- **{}**{v}", s.name),
            Shown::Full | Shown::Shortened => format!("- **{}**{v}: {}", s.name, s.description),
        };
        assert_eq!(*line, expected);
        match s.shown {
            Shown::Full => assert_eq!(s.description, full(&s.name)),
            Shown::Shortened => {
                let kept = s.description.strip_suffix('…').unwrap();
                let whole = full(&s.name);
                assert!(whole.starts_with(kept), "{kept:?} is a prefix of {whole:?}");
                assert!(whole[kept.len()..].starts_with([' ', ',', ';', ':']), "cut at a word: {kept:?}");
            }
            Shown::NameOnly => assert!(s.description.is_empty()),
        }
    }
    if l.more > 0 {
        let n = l.more;
        assert!(l.text.ends_with("to search all of them."), "{}", l.text);
        assert!(l.text.contains(&format!("{n} more skill")), "{}", l.text);
    }
}

#[test]
fn the_budget_holds_at_every_store_size_by_o200k() {
    let bpe = tiktoken_rs::o200k_base().unwrap();
    for n in [1, 5, 20, 23, 30, 75, 200, 1000, 5000] {
        let store = store(n);
        for budget in [120, 500, 1500, 4000] {
            let opts = ListingOptions { budget_tokens: budget, ..ListingOptions::default() };
            for q in ["", "review the security of our pull requests", "生成季度收入图表"] {
                let l = listing::build_ranked(&store, &opts, &Query::new(q));
                let real = bpe.encode_ordinary(&l.text).len();
                assert_eq!(real, l.estimated_tokens);
                assert!(real <= budget, "{n} skills, budget {budget}: {real} tokens");
                assert_eq!(l.skills.len() + l.more, n);
                check_shape(&l, &store);
                if !l.ranked {
                    assert!(l.skills.iter().all(|s| s.shown == Shown::Full));
                    assert!(l.skills.windows(2).all(|w| w[0].name < w[1].name));
                }
            }
        }
    }
}

#[test]
fn a_small_store_is_listed_as_always() {
    let store = vec![
        entry("pdf", "Extract text and tables from PDF files", None, ""),
        entry("market-research", "Systematic market analysis with competitive intelligence", None, ""),
    ];
    let l = listing::build_ranked(&store, &ListingOptions::default(), &Query::new("market pdf"));
    assert_eq!(
        l.text,
        "### Skills: `view_skill`\n\nAvailable Skills:\n- **market-research** (v:3): Systematic market analysis with competitive intelligence\n- **pdf** (v:3): Extract text and tables from PDF files"
    );
    assert!(!l.ranked && l.more == 0);
}

fn with_target(n: usize) -> Vec<ListedEntry> {
    let mut s = store(n);
    s.push(entry(
        "parser-debugging",
        "Debug recursive-descent parsers: wrong line numbers in errors, bad recovery, precedence bugs",
        Some("调试递归下降解析器：错误的行号、错误恢复"),
        "# Finding the bad token\n## Line tracking\n",
    ));
    s.push(entry("line-messaging", "Send and receive LINE messages through a bridge bot", None, ""));
    s
}

#[test]
fn the_relevant_skill_ranks_first_and_is_shown_in_full() {
    let store = with_target(1000);
    let opts = ListingOptions::default();
    for q in ["my recursive-descent parser reports wrong line numbers", "解析器报错的行号不对"] {
        let l = listing::build_ranked(&store, &opts, &Query::new(q));
        assert!(l.ranked);
        let first = &l.skills[0];
        assert_eq!((first.name.as_str(), first.shown, first.rank), ("parser-debugging", Shown::Full, Some(1)), "{q}");
    }
    // Earlier context breaks ties but the latest message leads.
    let q = Query::conversation("now the line numbers", &["my parser is broken"]);
    assert_eq!(listing::build_ranked(&store, &opts, &q).skills[0].name, "parser-debugging");
}

#[test]
fn pinned_skills_stay_in_full() {
    let store = with_target(1000);
    let pinned: Vec<String> = store.iter().step_by(97).take(4).map(|e| e.entry.name.clone()).collect();
    let opts = ListingOptions { pinned: pinned.iter().cloned().collect(), ..ListingOptions::default() };
    for q in ["", "my recursive-descent parser reports wrong line numbers"] {
        let l = listing::build_ranked(&store, &opts, &Query::new(q));
        for p in &pinned {
            let s = l.skills.iter().find(|s| &s.name == p).unwrap();
            assert_eq!(s.shown, Shown::Full, "{p}");
        }
        assert!(l.estimated_tokens <= 1500);
    }
}

#[test]
fn the_enum_holds_the_shown_and_the_found_and_nothing_else() {
    let store = with_target(2000);
    let q = Query::new("my recursive-descent parser reports wrong line numbers");
    let l = listing::build_ranked(&store, &ListingOptions::default(), &q);
    let spec = tool_spec(&l).unwrap();
    let names: Vec<&str> =
        spec.parameters["properties"]["name"]["enum"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    assert_eq!(names, l.names());
    assert!(names.len() < 2002 && l.more > 0);
    for n in &names {
        assert!(l.text.contains(&format!("- **{n}**")), "{n} is in the enum but not shown");
    }
    // A skill the listing does not show, found by search, joins both.
    let hidden = store.iter().map(|e| e.entry.name.clone()).find(|n| !names.contains(&n.as_str())).unwrap();
    let found = find::find(&store, &ListingOptions::default(), &hidden.replace('-', " "), 5);
    assert!(found.iter().any(|f| f.name == hidden), "{hidden}: {found:?}");
    let opts = ListingOptions { found: vec![hidden.clone()], ..ListingOptions::default() };
    let l2 = listing::build_ranked(&store, &opts, &q);
    assert!(l2.names().contains(&hidden.as_str()));
    assert!(l2.text.contains(&format!("- **{hidden}**")));
    assert!(l2.estimated_tokens <= 1500);
    // A switched-off skill is never found.
    let off = ListingOptions { disabled: [hidden.clone()].into(), ..ListingOptions::default() };
    assert!(find::find(&store, &off, &hidden.replace('-', " "), 5).iter().all(|f| f.name != hidden));
}

#[test]
fn find_skills_says_why() {
    let store = with_target(300);
    let found = find::find(&store, &ListingOptions::default(), "parser wrong line numbers", 3);
    assert_eq!(found[0].name, "parser-debugging");
    assert_eq!(found[0].version.as_deref(), Some("3"));
    assert!(found[0].why.contains("parser (name, description"), "{}", found[0].why);
    assert!(find::find(&store, &ListingOptions::default(), "zzzz qqqq", 3).is_empty());
    let v = find::result_json("parser", &found);
    assert_eq!(v["matches"][0]["version"], "v:3");
    let note = v["note"].as_str().unwrap();
    assert!(note.ends_with("call view_skill with {\"name\": \"parser-debugging\"}."), "{note}");
    assert!(find::result_json("zzzz", &[])["note"].as_str().unwrap().starts_with("No skill matches"));
}

#[test]
fn a_query_naming_a_skill_finds_it_first() {
    // Two skills on one task; the one whose description repeats the task's words outscores the
    // other on words, but a model that searches with a name from the listing wants that one.
    let store = vec![
        entry(
            "change-review",
            "Review a code change: review the diff, review the tests, review naming before a merge",
            None,
            "# Code review\n",
        ),
        entry("requesting-code-review", "Ask someone for a look at finished work", None, "# Asking\n"),
        entry("pdf", "Fill PDF forms", None, "# PDF\n"),
    ];
    let opts = ListingOptions::default();
    let by_words = find::find(&store, &opts, "code review", 5);
    assert_eq!(by_words[0].name, "change-review", "{by_words:?}");
    for query in ["requesting-code-review", "Requesting Code Review", " requesting_code_review "] {
        let found = find::find(&store, &opts, query, 5);
        assert_eq!(found[0].name, "requesting-code-review", "{query}: {found:?}");
        assert!(found.iter().all(|f| f.name != "pdf"), "{query}: {found:?}");
    }
}
