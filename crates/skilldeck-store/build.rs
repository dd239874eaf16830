//! Build script: fingerprints the sources that parse, validate and audit a skill (this
//! crate's, `skilldeck-skill`'s and `skilldeck-audit`'s), so the persisted parse cache
//! (`parse_cache`) written by one build is never trusted by a build that may parse, validate or
//! audit differently. Any change to a source file under any of those `src/` gives a new
//! fingerprint.

use std::collections::hash_map::DefaultHasher;
use std::hash::Hasher as _;
use std::path::{Path, PathBuf};

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn main() {
    let mut files = Vec::new();
    for dir in ["src", "../skilldeck-skill/src", "../skilldeck-audit/src"] {
        println!("cargo:rerun-if-changed={dir}");
        sources(Path::new(dir), &mut files);
    }
    files.sort();
    let mut hasher = DefaultHasher::new();
    for file in &files {
        hasher.write(file.to_string_lossy().as_bytes());
        hasher.write(&std::fs::read(file).unwrap_or_default());
    }
    println!("cargo:rustc-env=SKILLDECK_PARSER_FINGERPRINT={:016x}", hasher.finish());
}
