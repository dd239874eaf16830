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
    // What a binary was built from: only the front ends name it, so a new commit rebuilds them alone.
    ("skilldeck-version", &[]),
    ("skilldeck-select", &["skilldeck-skill"]),
    ("skilldeck-audit", &["skilldeck-skill"]),
    ("skilldeck-store", &["skilldeck-skill", "skilldeck-audit"]),
    ("skilldeck-mount", &["skilldeck-skill", "skilldeck-select", "skilldeck-store", "skilldeck-audit"]),
    (
        "skilldeck-core",
        &["skilldeck-skill", "skilldeck-audit", "skilldeck-store", "skilldeck-select", "skilldeck-embed"],
    ),
    // The team store and the sources move files: they never rank, mount or embed.
    ("skilldeck-remote", &["skilldeck-skill", "skilldeck-store"]),
    ("skilldeck-sources", &["skilldeck-skill", "skilldeck-store"]),
    ("skilldeck-targets", &["skilldeck-skill", "skilldeck-store", "skilldeck-select", "skilldeck-core"]),
    ("skilldeck-mcp", &["skilldeck-skill", "skilldeck-store", "skilldeck-select", "skilldeck-mount", "skilldeck-core"]),
    (
        "skilldeck-agent",
        &["skilldeck-skill", "skilldeck-store", "skilldeck-select", "skilldeck-mount", "skilldeck-core"],
    ),
    ("skilldeck-cli", FRONT),
    ("skilldeck-app", FRONT),
    ("skilldeck-e2e", &[]),
];

/// What the two front ends (the CLI and the app) may name: everything beneath them.
const FRONT: &[&str] = &[
    "skilldeck-skill",
    "skilldeck-audit",
    "skilldeck-store",
    "skilldeck-select",
    "skilldeck-mount",
    "skilldeck-embed",
    "skilldeck-core",
    "skilldeck-agent",
    "skilldeck-targets",
    "skilldeck-mcp",
    "skilldeck-remote",
    "skilldeck-sources",
    "skilldeck-version",
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

/// Every `.rs` file under `dir`, recursively.
fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// A crate depends on the crates it uses and on no other: a `skilldeck-*` dependency its code
/// never names is an arrow that rebuilds it for nothing (the compiler already refuses the
/// opposite, a crate named but not declared).
#[test]
fn every_dependency_between_crates_is_used() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut dirs: Vec<_> = std::fs::read_dir(root.join("crates")).unwrap().map(|e| e.unwrap().path()).collect();
    dirs.push(root.join("src-tauri"));
    let mut unused = Vec::new();
    for dir in dirs.iter().filter(|d| d.join("Cargo.toml").is_file()) {
        let (name, deps) = read_manifest(&dir.join("Cargo.toml"));
        let mut files = Vec::new();
        rust_files(&dir.join("src"), &mut files);
        let text: String = files.iter().map(|f| std::fs::read_to_string(f).unwrap()).collect();
        for dep in &deps {
            if !text.contains(&format!("{}::", dep.replace('-', "_"))) {
                unused.push(format!("{name} depends on {dep} but its src/ never names it"));
            }
        }
    }
    assert!(unused.is_empty(), "dependencies nothing uses:\n  {}", unused.join("\n  "));
}
