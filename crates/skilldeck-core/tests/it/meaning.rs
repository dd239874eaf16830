//! Ranking by meaning with the real shipped model (multilingual-e5-small, unpacked by
//! `scripts/setup` into `.tools/models/`): a request sharing no word with its skill still finds
//! it, in English and in Chinese, in the ranked listing and `find_skills`; the vectors are kept
//! in the vector cache (a second registry computes none), dropped with their skill, and a
//! corrupt cache file is ignored and rebuilt.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use skilldeck_core::SkillRegistry;
use skilldeck_core::semantic::{Readiness, Semantic};
use skilldeck_select::catalogue::Catalogue;
use skilldeck_select::find::BY_MEANING;
use skilldeck_select::listing::ListingOptions;
use skilldeck_select::ranker::Query;
use skilldeck_skill::{Scope, SkillName, UploadLimits};
use skilldeck_store::{FsStorage, SkilldeckHome, import};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// The model folder: `$SKILLDECK_TEST_MODEL`, else the one `scripts/setup` unpacks.
fn model_dir() -> PathBuf {
    let dir = std::env::var_os("SKILLDECK_TEST_MODEL").map(PathBuf::from).unwrap_or_else(|| {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.tools/models").join(skilldeck_embed::DEFAULT_MODEL_ID)
    });
    assert!(dir.is_dir(), "no embedding model in {}: run ./scripts/setup (it unpacks one there)", dir.display());
    dir
}

/// Skills none of the requests below shares a word with (after stemming).
const SKILLS: &[(&str, &str)] = &[
    ("stripe-billing", "Stripe integration: subscriptions, recurring invoices, checkout sessions and payment intents."),
    ("pdf-convert", "Turn PDF documents into Word files, extract tables and text from scanned pages."),
    ("resume-ats", "Optimise a résumé so applicant tracking systems parse it and recruiters shortlist it."),
    ("k8s-deploy", "Roll out containers to Kubernetes clusters with Helm charts and health checks."),
    ("git-history", "Rewrite git history: interactive rebase, squash commits, split a commit in two."),
    ("brand-colors", "Apply the company's brand palette and typography to slides and documents."),
];

struct Store {
    _tmp: tempfile::TempDir,
    home: PathBuf,
    storage: FsStorage,
}

fn store() -> Store {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let storage = FsStorage::open(SkilldeckHome::new(&home)).unwrap();
    for (name, description) in SKILLS {
        add(&storage, tmp.path(), name, description);
    }
    Store { _tmp: tmp, home, storage }
}

fn add(storage: &FsStorage, tmp: &Path, name: &str, description: &str) {
    add_in(storage, tmp, Scope::User, name, description);
}

fn add_in(storage: &FsStorage, tmp: &Path, scope: Scope, name: &str, description: &str) {
    let src = tmp.join("src").join(name);
    fs::create_dir_all(&src).unwrap();
    fs::write(src.join("SKILL.md"), format!("---\nname: {name}\ndescription: \"{description}\"\n---\n# {name}\n"))
        .unwrap();
    let loaded = import::load(&src, UploadLimits::default(), &mut |_, _| {}).unwrap();
    import::store(storage, scope, &loaded).unwrap();
}

/// Adds as many unrelated skills as are computed on the spot, so that with none of their
/// vectors too many are missing to compute inline; returns how many skills the store holds.
fn add_unrelated(s: &Store) -> usize {
    for i in 0..skilldeck_core::semantic::INLINE_LIMIT {
        add(
            &s.storage,
            s._tmp.path(),
            &format!("extra-{i}"),
            &format!("An unrelated skill number {i} about gardening."),
        );
    }
    SKILLS.len() + skilldeck_core::semantic::INLINE_LIMIT
}

fn registry(s: &Store) -> SkillRegistry {
    SkillRegistry::new(s.storage.clone())
        .with_settle_window(Duration::ZERO)
        .with_semantic(Arc::new(Semantic::with_model(&s.home, Some(model_dir()))))
}

fn opts() -> ListingOptions {
    // A budget so small the listing must rank: only the best few keep their descriptions.
    ListingOptions { scopes: vec![Scope::User], budget_tokens: 120, ..ListingOptions::default() }
}

const REQUESTS: &[(&str, &str)] = &[
    ("let customers pay monthly with a card", "stripe-billing"),
    // Not "will my CV survive the robots?": among these six skills e5-small puts it as near the
    // Kubernetes skill as the résumé one (cosines 0.816 and 0.819 as a passage, 0.796 and 0.791
    // as a peer), too close a call for a test to rest on.
    ("will my CV get past the screening software?", "resume-ats"),
    ("让客户每月用信用卡付款", "stripe-billing"),
    ("把这份文件转换成可编辑的格式", "pdf-convert"),
];

#[test]
fn a_request_worded_otherwise_finds_its_skill() {
    let s = store();
    let r = registry(&s);
    for (request, want) in REQUESTS {
        let found = r.find_skills(&opts(), request, 5).unwrap();
        assert_eq!(found.first().map(|f| f.name.as_str()), Some(*want), "{request}: {found:?}");
        let listing = r.listing_for(&opts(), &Query::new(request)).unwrap();
        assert_eq!(listing.skills.first().map(|l| l.name.as_str()), Some(*want), "{request}: {listing:?}");
    }
    let found = r.find_skills(&opts(), "let customers pay monthly with a card", 5).unwrap();
    assert_eq!(found[0].why, BY_MEANING, "no word in common, so the why says so");
    // Without the model, the same request finds nothing: no word is shared.
    let lexical = SkillRegistry::new(s.storage.clone()).with_settle_window(Duration::ZERO);
    assert!(lexical.find_skills(&opts(), "let customers pay monthly with a card", 5).unwrap().is_empty());
}

#[test]
fn vectors_are_kept_dropped_with_their_skill_and_rebuilt_when_corrupt() {
    let s = store();
    let r = registry(&s);
    assert_eq!(r.meaning(&[Scope::User]).unwrap(), Some(Readiness::Ready), "six skills are computed on the spot");
    let semantic = Semantic::with_model(&s.home, Some(model_dir()));
    let file = skilldeck_store::vector_cache::path(&s.home, semantic.model_id());
    let kept = skilldeck_store::vector_cache::read(&file, semantic.model_id(), 384);
    assert_eq!(kept.len(), SKILLS.len());

    // A new registry (a new process) finds every vector in the file: none to compute.
    let again = registry(&s);
    let set = again.ranked_set(&[Scope::User]).unwrap();
    let mut computed = usize::MAX;
    again.semantic().unwrap().index(&set, |_, total| computed = total).unwrap();
    assert_eq!(computed, 0);

    // A deleted skill's vector is not written again.
    r.delete_skill(Scope::User, &SkillName::parse("git-history").unwrap()).unwrap();
    let fresh = registry(&s);
    let set = fresh.ranked_set(&[Scope::User]).unwrap();
    fresh.semantic().unwrap().index(&set, |_, _| {}).unwrap();
    assert_eq!(skilldeck_store::vector_cache::read(&file, semantic.model_id(), 384).len(), SKILLS.len() - 1);

    // A torn file is ignored as a whole and written again, with the same vectors.
    let before = skilldeck_store::vector_cache::read(&file, semantic.model_id(), 384);
    let bytes = fs::read(&file).unwrap();
    fs::write(&file, &bytes[..bytes.len() / 2]).unwrap();
    assert!(skilldeck_store::vector_cache::read(&file, semantic.model_id(), 384).is_empty());
    let torn = registry(&s);
    assert_eq!(torn.meaning(&[Scope::User]).unwrap(), Some(Readiness::Ready));
    let after = skilldeck_store::vector_cache::read(&file, semantic.model_id(), 384);
    assert_eq!(after.len(), before.len());
    for (key, v) in &before {
        let cos: f32 = v.iter().zip(after[key].iter()).map(|(a, b)| a * b).sum();
        assert!(cos > 0.999, "the same vector computed again: cos {cos}");
    }
}

#[test]
fn many_missing_vectors_leave_ranking_to_words_until_indexed() {
    let s = store();
    let total = add_unrelated(&s);
    let r = registry(&s);
    assert_eq!(
        r.meaning(&[Scope::User]).unwrap(),
        Some(Readiness::Pending { missing: total, total, by_meaning: false })
    );
    assert!(r.find_skills(&opts(), "let customers pay monthly with a card", 5).unwrap().is_empty(), "words only");
    let set = r.ranked_set(&[Scope::User]).unwrap();
    let mut seen = Vec::new();
    r.semantic().unwrap().index(&set, |done, of| seen.push((done, of))).unwrap();
    assert_eq!(seen.first(), Some(&(0, total)));
    assert_eq!(seen.last(), Some(&(total, total)));
    assert_eq!(r.meaning(&[Scope::User]).unwrap(), Some(Readiness::Ready));
    let found = r.find_skills(&opts(), "let customers pay monthly with a card", 5).unwrap();
    assert_eq!(found.first().map(|f| f.name.as_str()), Some("stripe-billing"));

    // Clearing the vectors (Settings → Storage) removes the file and the cache's copy in
    // memory: the next indexing computes every one again and writes the file anew. (The
    // listed set keeps the vectors it was given, so rankings go on meanwhile.)
    let semantic = r.semantic().unwrap();
    let file = semantic.vector_cache_path();
    let size = fs::metadata(&file).unwrap().len();
    assert_eq!(semantic.clear_vectors().unwrap(), size);
    assert!(!file.exists());
    assert_eq!(semantic.clear_vectors().unwrap(), 0, "nothing left to clear");
    let set = r.ranked_set(&[Scope::User]).unwrap();
    let mut computed = 0;
    semantic.index(&set, |_, of| computed = of).unwrap();
    assert_eq!(computed, total, "every vector computed again");
    assert_eq!(fs::metadata(&file).unwrap().len(), size);
    let fresh = registry(&s);
    assert_eq!(fresh.meaning(&[Scope::User]).unwrap(), Some(Readiness::Ready), "a new process finds them all");
}

#[test]
fn ranking_some_scopes_keeps_the_vectors_of_the_others_but_not_of_a_deleted_skill() {
    let s = store();
    add_in(&s.storage, s._tmp.path(), Scope::System, "meeting-notes", "Keep minutes of meetings tidy and shared.");
    let vectors = |s: &Store| {
        let semantic = Semantic::with_model(&s.home, Some(model_dir()));
        skilldeck_store::vector_cache::read(&semantic.vector_cache_path(), semantic.model_id(), 384).len()
    };
    // A client ranking both scopes computes every vector.
    let both = registry(&s);
    assert_eq!(both.meaning(&[Scope::System, Scope::User]).unwrap(), Some(Readiness::Ready));
    assert_eq!(vectors(&s), SKILLS.len() + 1);

    // Another process ranking the user scope alone has all it needs and drops nothing: the
    // first client's next start computes none.
    assert_eq!(registry(&s).meaning(&[Scope::User]).unwrap(), Some(Readiness::Ready));
    assert_eq!(vectors(&s), SKILLS.len() + 1, "the system skill's vector is kept");
    let again = registry(&s);
    let set = again.ranked_set(&[Scope::System, Scope::User]).unwrap();
    let mut computed = usize::MAX;
    again.semantic().unwrap().index(&set, |_, total| computed = total).unwrap();
    assert_eq!(computed, 0);

    // A deleted skill's vector goes, whichever scopes the next client ranks.
    both.delete_skill(Scope::User, &SkillName::parse("git-history").unwrap()).unwrap();
    assert_eq!(registry(&s).meaning(&[Scope::User]).unwrap(), Some(Readiness::Ready));
    assert_eq!(vectors(&s), SKILLS.len(), "the deleted skill's vector is gone, the system skill's kept");
}

#[test]
fn without_a_model_it_says_how_to_turn_it_on() {
    let s = store();
    let r = SkillRegistry::new(s.storage.clone()).with_semantic(Arc::new(Semantic::with_model(&s.home, None)));
    match r.meaning(&[Scope::User]).unwrap() {
        Some(Readiness::Off(reason)) => assert!(reason.contains("skilldeck model install"), "{reason}"),
        other => panic!("{other:?}"),
    }
    let broken = s._tmp.path().join("broken-model");
    fs::create_dir_all(&broken).unwrap();
    let r = SkillRegistry::new(s.storage.clone()).with_semantic(Arc::new(Semantic::with_model(&s.home, Some(broken))));
    assert!(matches!(r.meaning(&[Scope::User]).unwrap(), Some(Readiness::Off(_))));
    // Ranking still works, by words.
    assert_eq!(r.find_skills(&opts(), "stripe subscriptions", 5).unwrap()[0].name, "stripe-billing");
}

/// The English companion `scripts/setup` unpacks beside the shipped model.
fn companion_dir() -> PathBuf {
    let dir = model_dir().with_file_name(skilldeck_core::semantic::COMPANION_MODEL_ID);
    assert!(dir.is_dir(), "no companion model in {}: run ./scripts/setup (it unpacks one there)", dir.display());
    dir
}

#[test]
fn the_companion_indexes_beside_the_shipped_model_and_a_new_process_computes_none() {
    let s = store();
    let with_companion =
        || Arc::new(Semantic::with_model(&s.home, Some(model_dir())).with_companion(Some(companion_dir())));
    let r = SkillRegistry::new(s.storage.clone()).with_settle_window(Duration::ZERO).with_semantic(with_companion());
    let set = r.ranked_set(&[Scope::User]).unwrap();
    let mut seen = Vec::new();
    r.semantic().unwrap().index(&set, |done, of| seen.push((done, of))).unwrap();
    assert_eq!(seen.last(), Some(&(SKILLS.len(), SKILLS.len())), "progress counts skills: {seen:?}");
    let dense = set.dense().expect("the set ranks by meaning");
    assert_eq!(dense.model_ids(), [skilldeck_embed::DEFAULT_MODEL_ID, "all-MiniLM-L6-v2"]);
    let semantic = r.semantic().unwrap();
    let files = semantic.vector_cache_paths();
    assert_eq!(files.len(), 2);
    for (file, (id, dim)) in files.iter().zip([(skilldeck_embed::DEFAULT_MODEL_ID, 384), ("all-MiniLM-L6-v2", 384)]) {
        assert_eq!(skilldeck_store::vector_cache::read(file, id, dim).len(), SKILLS.len(), "{}", file.display());
    }
    // English and Chinese requests still find their skills with both models.
    for (request, want) in REQUESTS {
        let found = r.find_skills(&opts(), request, 5).unwrap();
        assert_eq!(found.first().map(|f| f.name.as_str()), Some(*want), "{request}: {found:?}");
    }
    // A new process finds every vector of both models.
    let fresh =
        SkillRegistry::new(s.storage.clone()).with_settle_window(Duration::ZERO).with_semantic(with_companion());
    let set = fresh.ranked_set(&[Scope::User]).unwrap();
    let mut computed = usize::MAX;
    fresh.semantic().unwrap().index(&set, |_, of| computed = of).unwrap();
    assert_eq!(computed, 0);
    // Clearing the vectors clears both models'.
    let sizes: u64 = files.iter().map(|f| fs::metadata(f).unwrap().len()).sum();
    assert_eq!(semantic.clear_vectors().unwrap(), sizes);
    assert!(files.iter().all(|f| !f.exists()));
}

#[test]
fn after_an_upgrade_brings_the_companion_the_main_model_ranks_until_its_vectors_are_computed() {
    let s = store();
    let total = add_unrelated(&s);
    // Before the upgrade: the shipped model alone, every vector computed.
    let before = registry(&s);
    before.semantic().unwrap().index(&before.ranked_set(&[Scope::User]).unwrap(), |_, _| {}).unwrap();
    // After it, a new process with the companion beside the model: too many of the companion's
    // vectors are missing to compute on the spot, but the main model's are all there.
    let semantic = Arc::new(Semantic::with_model(&s.home, Some(model_dir())).with_companion(Some(companion_dir())));
    let after = SkillRegistry::new(s.storage.clone()).with_settle_window(Duration::ZERO).with_semantic(semantic);
    let pending = Readiness::Pending { missing: total, total, by_meaning: true };
    assert_eq!(after.meaning(&[Scope::User]).unwrap(), Some(pending));
    let set = after.ranked_set(&[Scope::User]).unwrap();
    assert_eq!(set.dense().unwrap().model_ids(), [skilldeck_embed::DEFAULT_MODEL_ID]);
    let found = after.find_skills(&opts(), "let customers pay monthly with a card", 5).unwrap();
    assert_eq!(found.first().map(|f| f.name.as_str()), Some("stripe-billing"), "meaning ranks meanwhile: {found:?}");
    // Once the companion's vectors are computed, both models rank.
    let mut computed = 0;
    after.semantic().unwrap().index(&set, |_, of| computed = of).unwrap();
    assert_eq!(computed, total);
    assert_eq!(after.meaning(&[Scope::User]).unwrap(), Some(Readiness::Ready));
    assert_eq!(set.dense().unwrap().model_ids(), [skilldeck_embed::DEFAULT_MODEL_ID, "all-MiniLM-L6-v2"]);
}

#[test]
fn a_companion_that_does_not_load_leaves_the_shipped_model_ranking_alone() {
    let s = store();
    let broken = s._tmp.path().join("models").join(skilldeck_core::semantic::COMPANION_MODEL_ID);
    fs::create_dir_all(&broken).unwrap();
    for f in ["config.json", "model.safetensors", "tokenizer.json"] {
        fs::write(broken.join(f), "not a model").unwrap();
    }
    let semantic = Arc::new(Semantic::with_model(&s.home, Some(model_dir())).with_companion(Some(broken)));
    let r = SkillRegistry::new(s.storage.clone()).with_settle_window(Duration::ZERO).with_semantic(semantic);
    // The set held while it is prepared: the process's few cached sets are shared with the
    // tests running beside this one, so one asked for again could be another, new set.
    let set = r.ranked_set(&[Scope::User]).unwrap();
    assert_eq!(r.semantic().unwrap().prepare(&set), Readiness::Ready);
    assert_eq!(set.dense().unwrap().model_ids(), [skilldeck_embed::DEFAULT_MODEL_ID]);
    assert_eq!(r.meaning(&[Scope::User]).unwrap(), Some(Readiness::Ready));
    let why = r.semantic().unwrap().companion_error().expect("it says why the companion is left out");
    assert!(why.contains("config.json") || why.contains("model"), "{why}");
    let found = r.find_skills(&opts(), "let customers pay monthly with a card", 5).unwrap();
    assert_eq!(found[0].name, "stripe-billing");
}

#[test]
fn the_home_finds_the_companion_beside_the_shipped_model_but_not_beside_a_chosen_one() {
    let s = store();
    let models = s.home.join("models");
    fs::create_dir_all(&models).unwrap();
    std::os::unix::fs::symlink(model_dir(), models.join(skilldeck_embed::DEFAULT_MODEL_ID)).unwrap();
    std::os::unix::fs::symlink(companion_dir(), models.join(skilldeck_core::semantic::COMPANION_MODEL_ID)).unwrap();
    let home = Semantic::for_home(&s.home, None);
    assert_eq!(home.model_id(), skilldeck_embed::DEFAULT_MODEL_ID);
    assert_eq!(home.companion().map(|(id, _)| id), Some("all-MiniLM-L6-v2"));
    // A model chosen in config.toml ranks alone: the fusion's weights were chosen for the pair.
    std::os::unix::fs::symlink(companion_dir(), models.join("sentence-transformers--all-MiniLM-L6-v2")).unwrap();
    let chosen = Semantic::for_home(&s.home, Some("sentence-transformers/all-MiniLM-L6-v2"));
    assert!(chosen.companion().is_none());
}
