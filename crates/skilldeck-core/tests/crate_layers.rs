//! The workspace's crates stand on floors, and every dependency between them points down: each
//! crate may depend only on the crates this table lets it (the graph in `docs/architecture.md`).
//! A new arrow, one that points up or sideways, fails here with the crate and what it named;
//! so does a crate the table does not know, so a new crate takes its floor on purpose.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::collections::BTreeSet;
use std::path::Path;

/// Each workspace crate and the workspace crates it may depend on (normal dependencies).
const ALLOWED: &[(&str, &[&str])] = &[
    ("skilldeck-fuzzkit", &[]),
    ("skilldeck-testkit", &[]),
    ("skilldeck-skill", &[]),
    ("skilldeck-embed", &[]),
    ("skilldeck-select", &["skilldeck-skill"]),
    ("skilldeck-audit", &["skilldeck-skill"]),
    ("skilldeck-store", &["skilldeck-skill", "skilldeck-audit"]),
    ("skilldeck-mount", &["skilldeck-skill", "skilldeck-select", "skilldeck-store", "skilldeck-audit"]),
    (
        "skilldeck-core",
        &[
            "skilldeck-skill",
            "skilldeck-audit",
            "skilldeck-store",
            "skilldeck-select",
            "skilldeck-mount",
            "skilldeck-embed",
        ],
    ),
    ("skilldeck-agent", &["skilldeck-core"]),
    ("skilldeck-targets", &["skilldeck-core"]),
    ("skilldeck-mcp", &["skilldeck-core"]),
    ("skilldeck-remote", &["skilldeck-core"]),
    ("skilldeck-sources", &["skilldeck-core"]),
    (
        "skilldeck-cli",
        &[
            "skilldeck-core",
            "skilldeck-agent",
            "skilldeck-targets",
            "skilldeck-mcp",
            "skilldeck-remote",
            "skilldeck-sources",
        ],
    ),
    (
        "skilldeck-app",
        &[
            "skilldeck-core",
            "skilldeck-agent",
            "skilldeck-targets",
            "skilldeck-mcp",
            "skilldeck-remote",
            "skilldeck-sources",
        ],
    ),
    ("skilldeck-e2e", &[]),
];

/// The `name` and the `skilldeck-*` entries of `[dependencies]` in a Cargo.toml.
fn read_manifest(path: &Path) -> (String, BTreeSet<String>) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut section = String::new();
    let mut name = String::new();
    let mut deps = BTreeSet::new();
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            section = line.to_owned();
            continue;
        }
        let key = line.split(['=', '.', ' ']).next().unwrap_or_default();
        if section == "[package]" && key == "name" {
            name = line.split('"').nth(1).unwrap().to_owned();
        } else if section == "[dependencies]" && key.starts_with("skilldeck-") {
            deps.insert(key.to_owned());
        }
    }
    (name, deps)
}

#[test]
fn every_dependency_between_crates_points_down() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut manifests: Vec<_> =
        std::fs::read_dir(root.join("crates")).unwrap().map(|e| e.unwrap().path().join("Cargo.toml")).collect();
    manifests.extend([root.join("src-tauri/Cargo.toml"), root.join("tests/e2e/Cargo.toml")]);
    let mut wrong = Vec::new();
    for manifest in manifests.iter().filter(|m| m.is_file()) {
        let (name, deps) = read_manifest(manifest);
        let Some((_, allowed)) = ALLOWED.iter().find(|(n, _)| *n == name) else {
            wrong.push(format!("{name}: not in the table; give it a floor in tests/crate_layers.rs"));
            continue;
        };
        for dep in deps.iter().filter(|d| !allowed.contains(&d.as_str())) {
            wrong.push(format!("{name} depends on {dep}, which it may not (an arrow up or sideways)"));
        }
    }
    assert!(wrong.is_empty(), "crate dependencies that break the layers:\n  {}", wrong.join("\n  "));
}
