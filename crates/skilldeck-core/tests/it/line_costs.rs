//! A listing's line costs are kept with the parse cache: the first process that lists a store
//! counts them and writes them there, and a later one lists the same skills (in full, or ranked
//! past the budget) without counting a single text, to the same exact count. A skill edited
//! since is counted again. Alone in its test binary: it reads the process's count of texts.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use skilldeck_core::SkillRegistry;
use skilldeck_select::catalogue::Catalogue;
use skilldeck_select::listing::ListingOptions;
use skilldeck_select::ranker::Query;
use skilldeck_select::tokens::{count_tokens, texts_counted};
use skilldeck_skill::{Scope, UploadLimits};
use skilldeck_store::{FsStorage, SkilldeckHome, import};
use std::fs;
use std::time::Duration;

/// A registry as a new process makes one, trusting stamps however fresh they are.
fn registry(storage: &FsStorage) -> SkillRegistry {
    SkillRegistry::new(storage.clone()).with_settle_window(Duration::ZERO)
}

fn add(storage: &FsStorage, root: &std::path::Path, name: &str, description: &str) {
    let src = root.join("src").join(name);
    fs::create_dir_all(&src).unwrap();
    fs::write(src.join("SKILL.md"), format!("---\nname: {name}\ndescription: {description}\n---\n# {name}\n")).unwrap();
    let loaded = import::load(&src, UploadLimits::default(), &mut |_, _| {}).unwrap();
    import::store(storage, Scope::User, &loaded).unwrap();
}

#[test]
fn a_second_process_lists_cached_skills_without_the_tokenizer() {
    let tmp = tempfile::tempdir().unwrap();
    let storage = FsStorage::open(SkilldeckHome::new(tmp.path().join("home"))).unwrap();
    for i in 0..60 {
        let description = format!(
            "Skill number {i} handles task {i}: parsing, checking (and fixing) files of kind {i}. It ends in punctuation…"
        );
        add(&storage, tmp.path(), &format!("skill-{i:02}"), &description);
    }
    let whole = ListingOptions { scopes: vec![Scope::User], budget_tokens: 100_000, ..ListingOptions::default() };
    let ranked = ListingOptions { budget_tokens: 600, ..whole.clone() };
    let request = Query::new("fix the files of kind 7");

    // The first process counts every line, and keeps the counts.
    let first = registry(&storage);
    let before = texts_counted();
    let full_1 = first.listing(&whole).unwrap();
    let ranked_1 = first.listing_for(&ranked, &request).unwrap();
    assert!(texts_counted() > before, "the first listing counts its lines");
    assert!(!full_1.ranked && ranked_1.ranked && ranked_1.more > 0);

    // A new process: the same listings, counted exactly, with no text counted at all.
    let second = registry(&storage);
    let before = texts_counted();
    let full_2 = second.listing(&whole).unwrap();
    let ranked_2 = second.listing_for(&ranked, &request).unwrap();
    assert_eq!(texts_counted(), before, "no text was counted: every cost came from the cache");
    assert_eq!((&full_2.text, full_2.estimated_tokens), (&full_1.text, full_1.estimated_tokens));
    assert_eq!((&ranked_2.text, ranked_2.estimated_tokens), (&ranked_1.text, ranked_1.estimated_tokens));
    let counted = texts_counted();
    assert_eq!(full_2.estimated_tokens, count_tokens(&full_2.text));
    assert_eq!(ranked_2.estimated_tokens, count_tokens(&ranked_2.text));
    assert!(ranked_2.estimated_tokens <= 600);

    // An edited skill is parsed and counted again, and only it; its new cost is kept too.
    add(&storage, tmp.path(), "skill-07", "Now a much shorter description.");
    let third = registry(&storage);
    let before = texts_counted();
    let full_3 = third.listing(&whole).unwrap();
    assert!(full_3.text.contains("- **skill-07** (v:2): Now a much shorter description."));
    assert_eq!(full_3.estimated_tokens, count_tokens(&full_3.text));
    assert!(texts_counted() - before <= 9 + 1, "only the edited skill's nine forms were counted");
    let fourth = registry(&storage);
    let before = texts_counted();
    assert_eq!(fourth.listing(&whole).unwrap().text, full_3.text);
    assert_eq!(texts_counted(), before);
    assert!(counted > 0);

    // A ranked listing weighs only the lines it may show, but the process that had to load the
    // tokenizer counts the store's other skills too: the next one lists them all uncounted.
    let other = FsStorage::open(SkilldeckHome::new(tmp.path().join("other"))).unwrap();
    for i in 0..60 {
        add(&other, tmp.path(), &format!("other-{i:02}"), &format!("Another skill, number {i}, for task {i}."));
    }
    let before = texts_counted();
    let ranked = registry(&other).listing_for(&ranked, &request).unwrap();
    assert!(ranked.ranked && ranked.skills.len() < 60, "{} shown", ranked.skills.len());
    assert!(texts_counted() - before >= 60 * 6, "every skill's full and name-only forms were counted");
    let before = texts_counted();
    let all = registry(&other).listing(&whole).unwrap();
    assert_eq!((all.skills.len(), texts_counted()), (60, before));
}
