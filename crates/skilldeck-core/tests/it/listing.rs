//! The L1 listing: exact text, gating, shadowing, cache invalidation and the token budget.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use skilldeck_core::SkillRegistry;
use skilldeck_select::catalogue::Catalogue;
use skilldeck_select::listing::{ListingOptions, shorten};
use skilldeck_skill::{RelPath, Scope, SkillFiles, SkillName, Tier};
use skilldeck_store::{FsStorage, SkilldeckHome};
use std::fs;

fn files(front: &str) -> SkillFiles {
    [(RelPath::parse("SKILL.md").unwrap(), format!("---\n{front}---\nbody\n").into_bytes())].into_iter().collect()
}

/// A registry over a temp store holding `skills` as `(scope, name, extra frontmatter, description)`.
fn registry(tmp: &std::path::Path, skills: &[(Scope, &str, &str, &str)]) -> SkillRegistry {
    let storage = FsStorage::open(SkilldeckHome::new(tmp)).unwrap();
    for (scope, name, extra, desc) in skills {
        let n = SkillName::parse(name).unwrap();
        storage.write_skill_sync(*scope, &n, &files(&format!("name: {name}\ndescription: {desc}\n{extra}"))).unwrap();
    }
    SkillRegistry::new(storage)
}

#[test]
fn the_exact_text() {
    let tmp = tempfile::tempdir().unwrap();
    let reg = registry(
        tmp.path(),
        &[
            (Scope::User, "pdf", "", "Extract text and tables from PDF files"),
            (Scope::User, "market-research", "", "Systematic market analysis with competitive intelligence"),
        ],
    );
    // A skill with no sidecar shows its frontmatter version; one with neither shows none.
    for _ in 0..5 {
        reg.write_skill(
            Scope::User,
            &SkillName::parse("market-research").unwrap(),
            &files("name: market-research\ndescription: Systematic market analysis with competitive intelligence\n"),
        )
        .unwrap();
    }
    fs::remove_file(tmp.path().join("skills/user/pdf/.version")).unwrap();
    reg.invalidate(Scope::User, Some("pdf"));
    let listing = reg.listing(&ListingOptions::default()).unwrap();
    assert_eq!(
        listing.text,
        "### Skills: `view_skill`\n\nAvailable Skills:\n- **market-research** (v:6): Systematic market analysis with competitive intelligence\n- **pdf**: Extract text and tables from PDF files"
    );
    assert_eq!(listing.names(), vec!["market-research", "pdf"]);
    assert!(listing.shortened.is_empty());
    fs::write(
        tmp.path().join("skills/user/pdf/SKILL.md"),
        "---\nname: pdf\ndescription: Extract text\nversion: 2.1.0\n---\nb\n",
    )
    .unwrap();
    reg.invalidate(Scope::User, Some("pdf"));
    let listing = reg.listing(&ListingOptions::default()).unwrap();
    assert!(listing.text.ends_with("- **pdf** (v:2.1.0): Extract text"), "{}", listing.text);
}

#[test]
fn gating_and_shadowing() {
    let tmp = tempfile::tempdir().unwrap();
    let reg = registry(
        tmp.path(),
        &[
            (Scope::System, "pdf", "", "system pdf"),
            (Scope::User, "pdf", "", "user pdf"),
            (Scope::System, "notes", "", "keep notes"),
            (Scope::User, "big-brain", "min_tier: ultra\n", "needs a frontier model"),
            (Scope::User, "broken", "min_tier: mega\n", "invalid tier"),
            (Scope::User, "off", "", "switched off"),
        ],
    );
    let all = reg.list_metas_across(&Scope::ALL).unwrap();
    let view: Vec<(&str, Scope, bool, bool)> =
        all.iter().map(|l| (l.entry.name.as_str(), l.entry.scope, l.entry.valid, l.shadowed)).collect();
    assert_eq!(
        view,
        vec![
            ("big-brain", Scope::User, true, false),
            ("broken", Scope::User, false, false),
            ("notes", Scope::System, true, false),
            ("off", Scope::User, true, false),
            ("pdf", Scope::System, true, true),
            ("pdf", Scope::User, true, false),
        ]
    );
    let opts = ListingOptions { disabled: ["off".to_owned()].into(), ..ListingOptions::default() };
    let l = reg.listing(&opts).unwrap();
    assert_eq!(l.names(), vec!["big-brain", "notes", "pdf"]);
    assert!(l.text.contains("- **pdf** (v:1): user pdf"), "user shadows system");
    let lite = reg.listing(&ListingOptions { tier: Tier::Lite, ..opts.clone() }).unwrap();
    assert_eq!(lite.names(), vec!["notes", "pdf"]);
    let system_only = reg.listing(&ListingOptions { scopes: vec![Scope::System], ..opts.clone() }).unwrap();
    assert!(system_only.text.contains("- **pdf** (v:1): system pdf"), "{}", system_only.text);
    let no_tool = reg.listing(&ListingOptions { view_skill_enabled: false, ..opts.clone() }).unwrap();
    assert_eq!((no_tool.text.as_str(), no_tool.skills.len()), ("", 0));
    let none = reg.listing(&ListingOptions { scopes: vec![], ..opts }).unwrap();
    assert_eq!(none.text, "", "no section at all when nothing is listed");
}

#[test]
fn writes_deletes_and_invalidation_refresh_the_listing() {
    let tmp = tempfile::tempdir().unwrap();
    let reg = registry(tmp.path(), &[(Scope::User, "pdf", "", "first")]);
    let n = SkillName::parse("pdf").unwrap();
    assert!(reg.listing(&ListingOptions::default()).unwrap().text.contains("(v:1): first"));
    reg.write_skill(Scope::User, &n, &files("name: pdf\ndescription: second\n")).unwrap();
    assert!(reg.listing(&ListingOptions::default()).unwrap().text.contains("(v:2): second"));
    // An edit on disk is not seen until invalidated (the watcher's job), then it is.
    fs::write(tmp.path().join("skills/user/pdf/SKILL.md"), "---\nname: pdf\ndescription: third\n---\nb\n").unwrap();
    assert!(reg.listing(&ListingOptions::default()).unwrap().text.contains("second"), "served from cache");
    reg.invalidate(Scope::User, Some("pdf"));
    assert!(reg.listing(&ListingOptions::default()).unwrap().text.contains("(v:2): third"));
    // A folder added on disk appears after the scope is invalidated.
    fs::create_dir_all(tmp.path().join("skills/user/docx")).unwrap();
    fs::write(tmp.path().join("skills/user/docx/SKILL.md"), "---\nname: docx\ndescription: Word files\n---\nb\n")
        .unwrap();
    reg.invalidate(Scope::User, None);
    assert_eq!(reg.listing(&ListingOptions::default()).unwrap().names(), vec!["docx", "pdf"]);
    reg.delete_skill(Scope::User, &n).unwrap();
    assert_eq!(reg.listing(&ListingOptions::default()).unwrap().names(), vec!["docx"]);
}

#[test]
fn shortening_is_at_word_boundaries() {
    assert_eq!(shorten("Extract text and tables", 100), "Extract text and tables");
    assert_eq!(shorten("Extract text and tables", 14), "Extract text…");
    assert_eq!(shorten("Extract text and tables", 13), "Extract text…");
    assert_eq!(shorten("Extract, text", 9), "Extract…");
    assert_eq!(shorten("Supercalifragilistic", 6), "Super…");
    assert_eq!(shorten("从PDF文件中提取文本", 4), "从PD…");
    assert_eq!(shorten("anything", 0), "…");
}

#[test]
fn a_store_over_the_budget_is_ranked_within_it() {
    let tmp = tempfile::tempdir().unwrap();
    let storage = FsStorage::open(SkilldeckHome::new(tmp.path())).unwrap();
    for i in 0..60 {
        let name = format!("skill-{i:02}");
        let desc = format!(
            "Skill {i}: analyze quarterly revenue reports and produce charts, summaries and forecasts for stakeholders when asked about finance number {i}"
        );
        storage
            .write_skill_sync(
                Scope::User,
                &SkillName::parse(&name).unwrap(),
                &files(&format!("name: {name}\ndescription: \"{desc}\"\n")),
            )
            .unwrap();
    }
    let reg = SkillRegistry::new(storage);
    let l = reg.listing(&ListingOptions::default()).unwrap();
    let bpe = tiktoken_rs::o200k_base().unwrap();
    assert!(l.ranked);
    assert_eq!(l.estimated_tokens, bpe.encode_ordinary(&l.text).len());
    assert!(l.estimated_tokens <= 1500, "{}", l.estimated_tokens);
    assert_eq!(l.skills.len() + l.more, 60);
    // Without a conversation the skills rank by name.
    assert_eq!(l.skills[0].name, "skill-00");
    // A roomy budget lists them all in full, sorted by name, as a small store is.
    let roomy = reg.listing(&ListingOptions { budget_tokens: 4000, ..ListingOptions::default() }).unwrap();
    assert!(!roomy.ranked && roomy.shortened.is_empty() && roomy.skills.len() == 60);
    assert!(roomy.estimated_tokens <= 4000);
}

#[test]
fn skill_md_is_parsed_again_only_when_the_file_changes() {
    let tmp = tempfile::tempdir().unwrap();
    let reg = registry(tmp.path(), &[(Scope::User, "pdf", "", "first")]);
    let md = tmp.path().join("skills/user/pdf/SKILL.md");
    let described = |reg: &SkillRegistry| {
        let e = reg.get(Scope::User, "pdf").unwrap().unwrap();
        (e.meta.description.clone().unwrap(), e.file_count)
    };
    assert_eq!(described(&reg), ("first".to_owned(), 1));
    let mtime = fs::metadata(&md).unwrap().modified().unwrap();
    let rewrite = |path: &std::path::Path, desc: &str, at: std::time::SystemTime| {
        use std::io::Write as _;
        let mut f = fs::OpenOptions::new().write(true).create(true).truncate(false).open(path).unwrap();
        f.write_all(format!("---\nname: pdf\ndescription: {desc}\n---\nbody\n").as_bytes()).unwrap();
        f.set_modified(at).unwrap();
    };
    // The same inode, size and modification time are the same file to the parse cache: a
    // reload (here of the whole scope) reads the folder again but does not parse SKILL.md.
    rewrite(&md, "secnd", mtime);
    fs::write(tmp.path().join("skills/user/pdf/notes.md"), "n").unwrap();
    reg.invalidate(Scope::User, None);
    assert_eq!(described(&reg), ("first".to_owned(), 2), "cached parse, fresh folder");
    // A new modification time is a change.
    rewrite(&md, "secnd", mtime + std::time::Duration::from_secs(1));
    reg.invalidate(Scope::User, Some("pdf"));
    assert_eq!(described(&reg), ("secnd".to_owned(), 2));
    // So is another file (inode) put in its place, even with the same size and time.
    let other = tmp.path().join("skills/user/pdf/.SKILL.md.new");
    rewrite(&other, "third", mtime + std::time::Duration::from_secs(1));
    fs::rename(&other, &md).unwrap();
    reg.invalidate(Scope::User, Some("pdf"));
    assert_eq!(described(&reg), ("third".to_owned(), 2));
}
