//! How much a source may bring, through the whole fetch of a real local repository: each skill
//! is held to the limits of one skill, so a skill over them is refused by itself, named with its
//! size, the limit and what would let it in, while the skills beside it come in; and a whole
//! fetch over its limit is still refused early, naming the setting to raise.

use skilldeck_skill::UploadLimits;
use skilldeck_sources::fetch::{FetchConfig, FetchSourceError, Note, fetch};
use skilldeck_sources::git::{GitError, TreeLimits};
use skilldeck_sources::testing::GitRepo;
use skilldeck_sources::{Hosts, Source};

use crate::git::noise;

/// 64 KiB a skill.
fn config() -> FetchConfig {
    FetchConfig {
        skill: UploadLimits { max_total_bytes: 64 << 10, ..UploadLimits::default() },
        ..FetchConfig::default()
    }
}

/// A repository with three skills: `fine`, `big` (a 100 KiB file) and `link` (a link out of it).
fn three_skills() -> GitRepo {
    let repo = GitRepo::new().unwrap();
    repo.skill("skills/fine", "fine").unwrap();
    repo.write("skills/fine/reference.md", "# notes\n").unwrap();
    repo.skill("skills/big", "big").unwrap();
    repo.write("skills/big/assets/data.bin", noise(100 << 10, 7)).unwrap();
    repo.skill("skills/link", "link").unwrap();
    repo.symlink("skills/link/secret", "../../private/key.txt").unwrap();
    repo.write("private/key.txt", "not for skills\n").unwrap();
    repo.commit("three skills").unwrap();
    repo
}

fn source(repo: &GitRepo) -> Source {
    Source::parse(&repo.file_url(), &Hosts::default()).unwrap()
}

fn refusing<'a>(notes: &'a [Note], path: &str) -> &'a Note {
    notes.iter().find(|n| n.refuses() && n.path == path).unwrap_or_else(|| panic!("no refusal of {path}: {notes:#?}"))
}

#[test]
fn a_skill_over_the_limit_a_skill_is_refused_alone() {
    let repo = three_skills();
    let fetched = fetch(&source(&repo), None, &config()).unwrap();
    let paths: Vec<&str> = fetched.skills.iter().map(|c| c.path.as_str()).collect();
    assert_eq!(paths, ["skills/fine"], "the good skill comes in, the others do not");
    assert!(fetched.skills[0].dir.join("reference.md").is_file());

    let big = refusing(&fetched.notes, "skills/big");
    let refusal = big.refused.as_ref().unwrap();
    assert_eq!((refusal.name.as_str(), refusal.code), ("big", "skill_too_big"));
    assert!(big.what.contains("100.") && big.what.contains("over the limit of 64.0 KiB a skill"), "{}", big.what);
    assert!(
        refusal.fix.contains("Raise `max_skill_bytes` under [sources] in config.toml to at least \"101 KiB\""),
        "{}",
        refusal.fix
    );
    assert!(refusal.fix.contains("assets/data.bin (100.0 KiB)"), "the big file is named: {}", refusal.fix);

    let link = refusing(&fetched.notes, "skills/link");
    let refusal = link.refused.as_ref().unwrap();
    assert_eq!((refusal.name.as_str(), refusal.code), ("link", "skill_link_leaves"));
    assert!(link.what.contains("skills/link/secret points out of the skill"), "{}", link.what);
    assert!(refusal.fix.contains("skills/link/secret is a plain file inside it"), "{}", refusal.fix);
    assert_eq!(fetched.refusal("skills/big"), Some(big));
    assert_eq!(fetched.refusal("skills/fine"), None);

    // With the default limits, the big one comes in too.
    let fetched = fetch(&source(&repo), None, &FetchConfig::default()).unwrap();
    let paths: Vec<&str> = fetched.skills.iter().map(|c| c.path.as_str()).collect();
    assert_eq!(paths, ["skills/big", "skills/fine"]);
}

/// A file over the limit a file (which no setting raises) refuses its skill, saying to take it
/// out; one in no skill's folder is only said to be left out.
#[test]
fn a_file_too_big_for_any_skill_refuses_only_its_skill() {
    let repo = GitRepo::new().unwrap();
    repo.skill("skills/fine", "fine").unwrap();
    repo.skill("skills/model", "model").unwrap();
    repo.write("skills/model/weights.bin", noise(8 << 10, 3)).unwrap();
    repo.write("media/video.mp4", noise(8 << 10, 5)).unwrap();
    repo.commit("big files").unwrap();
    let mut config = FetchConfig::default();
    config.git.limits = TreeLimits { max_file_bytes: 4 << 10, ..TreeLimits::default() };
    config.skill.max_file_bytes = 4 << 10;
    let fetched = fetch(&source(&repo), None, &config).unwrap();
    let paths: Vec<&str> = fetched.skills.iter().map(|c| c.path.as_str()).collect();
    assert_eq!(paths, ["skills/fine"]);
    let model = refusing(&fetched.notes, "skills/model");
    let refusal = model.refused.as_ref().unwrap();
    assert_eq!(refusal.code, "skill_file_too_big");
    assert_eq!(model.what, "its file weights.bin is 8.0 KiB, over the limit of 4.0 KiB a file");
    assert!(refusal.fix.contains("once weights.bin is taken out of it"), "{}", refusal.fix);
    let video = fetched.notes.iter().find(|n| n.path == "media/video.mp4").unwrap();
    assert!(!video.refuses() && video.what.contains("over the limit of 4.0 KiB a file: not written"), "{video:?}");
}

/// The whole fetch keeps its limit: a repository over it is refused before anything is
/// written, naming the setting that lets it in.
#[test]
fn a_repository_over_the_limit_of_a_fetch_is_refused_early() {
    let repo = three_skills();
    let mut config = config();
    config.git.limits = TreeLimits { max_bytes: 16 << 10, ..TreeLimits::default() };
    let err = fetch(&source(&repo), None, &config).unwrap_err();
    assert!(matches!(err, FetchSourceError::Git(GitError::TooBig { .. })), "{err:?}");
    assert_eq!(err.code(), "source_too_big");
    let text = err.to_string();
    assert!(text.contains("over the limit of 16.0 KiB a fetch") && text.contains("nothing was written"), "{text}");
    assert!(text.contains("raise `max_fetch_bytes` under [sources] in config.toml to at least"), "{text}");
}

/// When every skill is refused, nothing comes in and the error says why the first was.
#[test]
fn a_source_whose_every_skill_is_refused_says_why() {
    let repo = GitRepo::new().unwrap();
    repo.skill("skills/big", "big").unwrap();
    repo.write("skills/big/data.bin", noise(100 << 10, 9)).unwrap();
    repo.commit("one big skill").unwrap();
    let err = fetch(&source(&repo), None, &config()).unwrap_err();
    assert_eq!(err.code(), "source_has_no_skills");
    assert!(err.to_string().contains("skills/big was refused: its 2 files come to"), "{err}");
}
