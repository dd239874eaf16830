//! Finding skills in a written tree: every known layout, marketplace plugins, the bounded search.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::path::Path;

use skilldeck_sources::discover::{
    DiscoverOptions, Discovery, DiscoveryProblem, DiscoveryProblemKind, Plugin, RemotePlugin, discover,
};

fn skill(root: &Path, dir: &str, name: Option<&str>) {
    let path = if dir == "." { root.to_path_buf() } else { root.join(dir) };
    std::fs::create_dir_all(&path).unwrap();
    let text = match name {
        Some(name) => format!("---\nname: {name}\ndescription: d\n---\nbody\n"),
        None => "no frontmatter here\n".to_string(),
    };
    std::fs::write(path.join("SKILL.md"), text).unwrap();
}

fn paths(discovery: &Discovery) -> Vec<(&str, &str)> {
    discovery.skills.iter().map(|s| (s.path.as_str(), s.name.as_str())).collect()
}

#[test]
fn every_known_layout_and_the_search() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    skill(root, "skills/a", Some("alpha"));
    skill(root, "skills/b", None);
    skill(root, ".claude/skills/c", Some("c"));
    skill(root, ".agents/skills/d", Some("d"));
    skill(root, "plugins/p/skills/e", Some("e"));
    skill(root, "deep/er/f", Some("f"));
    skill(root, "deep/er/f/examples/inner", Some("inner")); // inside f: part of f
    skill(root, "skills/a/skills/nested", Some("nested")); // inside a, and not in a known location
    skill(root, "node_modules/pkg/g", Some("g"));
    skill(root, ".hidden/h", Some("h"));
    skill(root, "1/2/3/4/5/6/too-deep", Some("too-deep"));
    skill(root, "1/2/3/4/5/deep-enough", Some("deep-enough"));
    std::fs::create_dir_all(root.join("skills/not-a-skill")).unwrap();

    let found = discover(root, &DiscoverOptions::default());
    assert_eq!(
        paths(&found),
        [
            (".agents/skills/d", "d"),
            (".claude/skills/c", "c"),
            ("1/2/3/4/5/deep-enough", "deep-enough"),
            ("deep/er/f", "f"),
            ("plugins/p/skills/e", "e"),
            ("skills/a", "alpha"),
            ("skills/b", "b"),
        ]
    );
    assert_eq!(found.skills[5].dir, root.join("skills/a"));
    assert!(found.plugins.is_empty() && found.problems.is_empty());
    assert_eq!(found.skill_holding("skills/a/references/x.md").map(|s| s.path.as_str()), Some("skills/a"));
    assert_eq!(found.skill_holding("README.md"), None);
}

#[test]
fn a_skill_at_the_root() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("my-skill");
    skill(&root, ".", Some("solo"));
    skill(&root, "examples/x", Some("x")); // part of the root skill
    skill(&root, "skills/y", Some("y")); // a known location still counts
    let found = discover(&root, &DiscoverOptions::default());
    assert_eq!(paths(&found), [(".", "solo"), ("skills/y", "y")]);
    std::fs::write(root.join("SKILL.md"), "---\n: : bad\n").unwrap();
    assert_eq!(discover(&root, &DiscoverOptions::default()).skills[0].name, "my-skill");
}

#[test]
fn marketplace_plugins() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    skill(root, "skills/xlsx", Some("xlsx"));
    skill(root, "skills/pdf", Some("pdf"));
    skill(root, "tools/plug/skills/one", Some("one"));
    skill(root, "tools/plug/skills/two", Some("two"));
    skill(root, "vendor/odd/place", Some("odd"));
    std::fs::create_dir_all(root.join(".claude-plugin")).unwrap();
    let market = r#"{
      "name": "m", "owner": {"name": "o"},
      "plugins": [
        {"name": "docs", "description": "Documents", "source": "./", "strict": false,
         "skills": ["./skills/xlsx", "./skills/pdf/SKILL.md", "./skills/missing"]},
        {"name": "plug", "source": "./tools/plug"},
        {"name": "odd", "source": "./vendor", "skills": ["odd/place"]},
        {"name": "remote", "source": {"source": "github", "repo": "o/r"}},
        {"name": "pinned", "description": "Pinned", "source": {"source": "url", "url": "https://git.example.org/t/p.git", "ref": "v2", "sha": "0123abcd"}},
        {"name": "package", "source": {"source": "npm", "package": "@o/p"}},
        {"name": "deep", "source": {"source": "github", "repo": "o/r/extra"}},
        {"name": "escape", "source": "../outside"}
      ]
    }"#;
    std::fs::write(root.join(".claude-plugin/marketplace.json"), market).unwrap();
    let found = discover(root, &DiscoverOptions::default());
    let plugin = |name: &str, description: Option<&str>, skills: &[&str]| Plugin {
        name: name.into(),
        description: description.map(Into::into),
        skills: skills.iter().map(|s| s.to_string()).collect(),
    };
    assert_eq!(
        found.plugins,
        [
            plugin("docs", Some("Documents"), &["skills/pdf", "skills/xlsx"]),
            plugin("plug", None, &["tools/plug/skills/one", "tools/plug/skills/two"]),
            plugin("odd", None, &["vendor/odd/place"]),
        ]
    );
    // Plugins in other Git repositories, with the commit (`sha`, over `ref`) they are pinned to;
    // an npm package and a malformed repository are not followed.
    let remote = |name: &str, description: Option<&str>, source: &str, reference: Option<&str>| RemotePlugin {
        name: name.into(),
        description: description.map(Into::into),
        source: source.into(),
        reference: reference.map(Into::into),
    };
    assert_eq!(
        found.elsewhere,
        [
            remote("remote", None, "o/r", None),
            remote("pinned", Some("Pinned"), "https://git.example.org/t/p.git", Some("0123abcd")),
        ]
    );
    let file = ".claude-plugin/marketplace.json";
    assert_eq!(
        found.problems,
        [
            DiscoveryProblem {
                path: file.into(),
                kind: DiscoveryProblemKind::RemotePlugin { plugin: "deep".into(), source: None }
            },
            DiscoveryProblem {
                path: file.into(),
                kind: DiscoveryProblemKind::RemotePlugin { plugin: "package".into(), source: None }
            },
            DiscoveryProblem {
                path: file.into(),
                kind: DiscoveryProblemKind::RemotePlugin {
                    plugin: "pinned".into(),
                    source: Some("https://git.example.org/t/p.git".into()),
                }
            },
            DiscoveryProblem {
                path: file.into(),
                kind: DiscoveryProblemKind::RemotePlugin { plugin: "remote".into(), source: Some("o/r".into()) }
            },
            DiscoveryProblem {
                path: file.into(),
                kind: DiscoveryProblemKind::PathLeavesTree { plugin: "escape".into() }
            },
            DiscoveryProblem {
                path: "skills/missing".into(),
                kind: DiscoveryProblemKind::MissingSkill { plugin: "docs".into() }
            },
        ]
    );
    assert_eq!(found.skills.len(), 5);

    std::fs::write(root.join(".claude-plugin/marketplace.json"), "{ not json").unwrap();
    let found = discover(root, &DiscoverOptions::default());
    assert!(matches!(
        &found.problems[..],
        [DiscoveryProblem { kind: DiscoveryProblemKind::BadMarketplace { .. }, .. }]
    ));
    assert_eq!(found.skills.len(), 5, "the search still finds them");
}

#[test]
fn symlinks_leaving_their_skill() {
    let dir = tempfile::tempdir().unwrap();
    skill(dir.path(), "skills/a", Some("a"));
    skill(dir.path(), "skills/b", Some("b"));
    let found = discover(dir.path(), &DiscoverOptions::default());
    let links = [
        ("skills/a/ok.md", "SKILL.md"),
        ("skills/a/refs/up.md", "../SKILL.md"),
        ("skills/a/other", "../b/SKILL.md"),
        ("skills/b/passwd", "/etc/passwd"),
        ("README.md", "../x"),
    ];
    let leaving = |path: &str, target: &str, skill: &str| DiscoveryProblem {
        path: path.into(),
        kind: DiscoveryProblemKind::SymlinkLeavesSkill { target: target.into(), skill: skill.into() },
    };
    assert_eq!(
        found.symlinks_leaving_skills(links),
        [leaving("skills/a/other", "../b/SKILL.md", "skills/a"), leaving("skills/b/passwd", "/etc/passwd", "skills/b")]
    );
}

#[test]
fn the_search_stops_at_its_limit() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..5 {
        skill(dir.path(), &format!("x/s{i}"), Some("s"));
    }
    let found = discover(dir.path(), &DiscoverOptions { max_depth: 6, max_skills: 3 });
    assert_eq!(found.skills.len(), 3);
    assert_eq!(
        found.problems,
        [DiscoveryProblem { path: ".".into(), kind: DiscoveryProblemKind::TooManySkills { limit: 3 } }]
    );
}

#[test]
fn five_hundred_skills_sorted() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..500 {
        skill(dir.path(), &format!("skills/s{i:03}"), Some(&format!("s{i:03}")));
        std::fs::create_dir_all(dir.path().join(format!("skills/s{i:03}/references"))).unwrap();
    }
    let started = std::time::Instant::now();
    let found = discover(dir.path(), &DiscoverOptions::default());
    eprintln!("discovered 500 skills in {:?}", started.elapsed());
    assert_eq!(found.skills.len(), 500);
    assert!(found.skills.windows(2).all(|w| w[0].path < w[1].path));
    assert_eq!(found, discover(dir.path(), &DiscoverOptions::default()), "deterministic");
}

/// A marketplace (a stranger's file) may point plugins at `https://` and `http://` repositories
/// only: `file://` would read this computer's repositories, `ssh://` and `git@host:` would offer
/// the user's SSH keys to a host it chose. Those are refused by name, never followed.
#[test]
fn a_marketplace_may_not_name_file_or_ssh_addresses() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join(".claude-plugin")).unwrap();
    let market = r#"{"name": "m", "plugins": [
        {"name": "local", "source": {"source": "url", "url": "file:///home/u/private.git"}},
        {"name": "keys", "source": {"source": "url", "url": "ssh://git@evil.example/o/r.git"}},
        {"name": "scp", "source": {"source": "url", "url": "git@evil.example:o/r.git"}},
        {"name": "plain", "source": {"source": "url", "url": "git://evil.example/o/r.git"}},
        {"name": "scp-as-github", "source": {"source": "github", "repo": "git@evil.example:o/r"}},
        {"name": "fine", "source": {"source": "url", "url": "https://git.example.org/t/p.git"}}
    ]}"#;
    std::fs::write(root.join(".claude-plugin/marketplace.json"), market).unwrap();
    let found = discover(root, &DiscoverOptions::default());
    let followed: Vec<&str> = found.elsewhere.iter().map(|r| r.source.as_str()).collect();
    assert_eq!(followed, ["https://git.example.org/t/p.git"]);
    let refused: Vec<(&str, &str)> = found
        .problems
        .iter()
        .filter_map(|p| match &p.kind {
            DiscoveryProblemKind::SchemeRefused { plugin, url } => Some((plugin.as_str(), url.as_str())),
            _ => None,
        })
        .collect();
    assert_eq!(
        refused,
        [
            ("keys", "ssh://git@evil.example/o/r.git"),
            ("local", "file:///home/u/private.git"),
            ("plain", "git://evil.example/o/r.git"),
            ("scp", "git@evil.example:o/r.git"),
        ]
    );
    assert!(
        found.problems.iter().any(
            |p| matches!(&p.kind, DiscoveryProblemKind::RemotePlugin { plugin, source: None } if plugin == "scp-as-github")
        ),
        "{:?}",
        found.problems
    );
}
