//! No new circles between the files of any crate in the workspace: each file's `crate::` and
//! `super::` paths are edges to the files that hold those modules, and every strongly connected
//! group of more than one file must be one already listed in `module_cycles.known` (circles
//! that exist today and are to be taken apart, issue 21). A new circle fails with its files; a
//! listed one that is gone fails too, so the list only ever shrinks.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module path of a file below `src/`: `lib.rs` and `main.rs` are the root, `a/mod.rs` and
/// `a.rs` are `a`, `a/b.rs` is `a::b`.
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap();
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    let last = parts.pop().unwrap();
    let stem = last.trim_end_matches(".rs");
    if !(matches!(stem, "mod") || (parts.is_empty() && matches!(stem, "lib" | "main"))) {
        parts.push(stem.to_owned());
    }
    parts
}

/// Parses the use-tree at the start of `s` (after `crate::` or `super::`): every path it names.
fn paths(s: &[u8], mut i: usize, prefix: Vec<String>, out: &mut Vec<Vec<String>>) -> usize {
    let skip_ws = |mut i: usize| {
        while i < s.len() && s[i].is_ascii_whitespace() {
            i += 1;
        }
        i
    };
    i = skip_ws(i);
    if i < s.len() && s[i] == b'{' {
        i += 1;
        loop {
            i = skip_ws(i);
            if i >= s.len() || s[i] == b'}' {
                return i + 1;
            }
            i = paths(s, i, prefix.clone(), out);
            i = skip_ws(i);
            if i < s.len() && s[i] == b',' {
                i += 1;
            }
        }
    }
    let start = i;
    while i < s.len() && (s[i].is_ascii_alphanumeric() || s[i] == b'_') {
        i += 1;
    }
    let mut path = prefix;
    if i > start {
        path.push(String::from_utf8_lossy(&s[start..i]).into_owned());
    }
    if s.get(i..i + 2) == Some(b"::") {
        return paths(s, i + 2, path, out);
    }
    out.push(path);
    i
}

/// The files of one crate's `src/` and the files each one's paths lead to.
fn graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let modules: BTreeMap<Vec<String>, String> = files
        .iter()
        .map(|f| (module_of(src, f), f.strip_prefix(src.parent().unwrap()).unwrap().display().to_string()))
        .collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, name) in &modules {
        let text = std::fs::read_to_string(src.parent().unwrap().join(name)).unwrap();
        // Code only: drop line comments (doc comments name paths that are no imports).
        let code: String = text.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n");
        let bytes = code.as_bytes();
        let mut found = Vec::new();
        for (kw, base) in [("crate::", Vec::new()), ("super::", module[..module.len().saturating_sub(1)].to_vec())] {
            let mut from = 0;
            while let Some(at) = code[from..].find(kw) {
                let at = from + at;
                let word_start = at == 0 || !(bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_');
                if word_start {
                    paths(bytes, at + kw.len(), base.clone(), &mut found);
                }
                from = at + kw.len();
            }
        }
        for path in found {
            // The longest prefix that is a module is the file the path leads to.
            let target = (1..=path.len()).rev().find_map(|n| modules.get(&path[..n]));
            if let Some(target) = target.filter(|t| *t != name) {
                edges.entry(name.clone()).or_default().insert(target.clone());
            }
        }
        edges.entry(name.clone()).or_default();
    }
    edges
}

/// The strongly connected groups of more than one file (Tarjan's algorithm).
fn circles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<BTreeSet<String>> {
    struct State<'a> {
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        out: Vec<BTreeSet<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a str) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on_stack.insert(v);
        for w in s.edges.get(v).into_iter().flatten() {
            if !s.index.contains_key(w.as_str()) {
                visit(s, w);
                let lw = s.low[w.as_str()];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if s.on_stack.contains(w.as_str()) {
                let iw = s.index[w.as_str()];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut group = BTreeSet::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                group.insert(w.to_owned());
                if w == v {
                    break;
                }
            }
            if group.len() > 1 {
                s.out.push(group);
            }
        }
    }
    let mut s = State {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in edges.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.out
}

#[test]
fn no_file_joins_a_circle_that_is_not_already_listed() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut crates: Vec<PathBuf> =
        std::fs::read_dir(root.join("crates")).unwrap().map(|e| e.unwrap().path().join("src")).collect();
    crates.push(root.join("src-tauri/src"));
    crates.sort();
    let mut found: Vec<String> = Vec::new();
    for src in crates.iter().filter(|s| s.is_dir()) {
        let krate = src.parent().unwrap().file_name().unwrap().to_string_lossy().into_owned();
        for group in circles(&graph(src)) {
            found.push(format!("{krate}: {}", group.into_iter().collect::<Vec<_>>().join(" ")));
        }
    }
    found.sort();
    let known_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/module_cycles.known");
    let known_text = std::fs::read_to_string(&known_path).unwrap();
    let known: Vec<&str> = known_text.lines().filter(|l| !l.is_empty() && !l.starts_with('#')).collect();
    let covered = |group: &str| {
        let (krate, files) = group.split_once(": ").unwrap();
        let files: BTreeSet<&str> = files.split(' ').collect();
        known.iter().any(|k| {
            let (kc, kf) = k.split_once(": ").unwrap();
            kc == krate && files.is_subset(&kf.split(' ').collect())
        })
    };
    let new: Vec<&String> = found.iter().filter(|g| !covered(g)).collect();
    assert!(
        new.is_empty(),
        "files that import each other in a circle (move the type both need into a module beneath both):\n{}",
        new.iter().map(|g| format!("  {g}")).collect::<Vec<_>>().join("\n")
    );
    let gone: Vec<&&str> = known.iter().filter(|k| !found.iter().any(|g| g == *k)).collect();
    assert!(
        gone.is_empty(),
        "circles listed in {} changed or are gone; write the list anew from what is found:\n{}",
        known_path.display(),
        found.join("\n")
    );
}
