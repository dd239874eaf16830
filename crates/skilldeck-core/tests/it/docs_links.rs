//! The repository's documents stand alone: every relative link or image in `README.md` and in
//! `docs/` names a file that exists in the repository, and no document points outside it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::fs;
use std::path::{Component, Path, PathBuf};

/// Words that name something outside the repository; no document may use them.
const OUTSIDE: &[&str] = &["DESIGN.md", "../shared", "/work/shared"];

/// The repository's root: two levels above this crate.
fn root() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    root.canonicalize().unwrap_or(root)
}

/// `README.md` and every `*.md` under `docs/`, relative to the root, sorted.
fn documents(root: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<PathBuf> =
            fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())).map(|e| e.unwrap().path()).collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|x| x == "md") {
                out.push(path);
            }
        }
    }
    let mut out = vec![root.join("README.md")];
    walk(&root.join("docs"), &mut out);
    out.iter().map(|p| p.strip_prefix(root).unwrap().to_path_buf()).collect()
}

/// The text outside fenced code blocks and code spans, with code replaced by spaces (so a
/// `[x](y)` written as code is not a link).
fn prose(text: &str) -> String {
    let mut kept = String::with_capacity(text.len());
    let mut fence: Option<&str> = None;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let marker = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m));
        match (fence, marker) {
            (None, Some(m)) => fence = Some(m),
            (Some(open), Some(m)) if m == open => fence = None,
            (None, None) => kept.push_str(line),
            (Some(_), _) => {}
        }
        if fence.is_some() || marker.is_some() {
            kept.push('\n');
        }
    }
    without_code_spans(&kept)
}

/// `text` with each code span (a run of backticks to the next run of the same length) blanked.
fn without_code_spans(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let run_at = |i: usize| chars[i..].iter().take_while(|&&c| c == '`').count();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '`' {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        let n = run_at(i);
        let mut j = i + n;
        let close = loop {
            if j >= chars.len() {
                break None;
            }
            if chars[j] == '`' {
                let m = run_at(j);
                if m == n {
                    break Some(j);
                }
                j += m;
            } else {
                j += 1;
            }
        };
        match close {
            Some(end) => {
                out.extend(chars[i..end + n].iter().map(|&c| if c == '\n' { '\n' } else { ' ' }));
                i = end + n;
            }
            None => {
                out.extend(&chars[i..i + n]);
                i += n;
            }
        }
    }
    out
}

/// The destinations of the inline links and images (`[text](dest)`, `![alt](dest)`) and the
/// reference definitions (`[label]: dest`) in `text`.
fn destinations(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        let mut depth = 0usize;
        let mut end = after.len();
        for (i, c) in after.char_indices() {
            match c {
                '(' => depth += 1,
                ')' if depth == 0 => {
                    end = i;
                    break;
                }
                ')' => depth -= 1,
                _ => {}
            }
        }
        let inner = after[..end].trim();
        let dest = match inner.strip_prefix('<') {
            Some(quoted) => quoted.split('>').next().unwrap_or_default(),
            None => inner.split_whitespace().next().unwrap_or_default(),
        };
        out.push(dest.to_owned());
        rest = &after[end.min(after.len())..];
    }
    for line in text.lines() {
        let line = line.trim_start();
        if let Some(label_end) = line.strip_prefix('[').and_then(|l| l.find("]:"))
            && let Some(dest) = line[label_end + 3..].split_whitespace().next()
        {
            out.push(dest.trim_start_matches('<').trim_end_matches('>').to_owned());
        }
    }
    out
}

/// `%XX` escapes decoded.
fn percent_decoded(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
        match (bytes[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `path` with `.` and `..` worked out, without touching the file system.
fn normal(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// What is wrong with the document `doc` (relative to `root`) whose text is `text`: each broken
/// relative link, each link leading out of the repository, each mention of a file outside it.
fn problems(root: &Path, doc: &Path, text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for word in OUTSIDE {
        for (n, line) in text.lines().enumerate() {
            if line.contains(word) {
                found.push(format!("{}:{}: mentions {word}, which is outside the repository", doc.display(), n + 1));
            }
        }
    }
    let dir = root.join(doc).parent().map(Path::to_path_buf).unwrap_or_else(|| root.to_path_buf());
    for dest in destinations(&prose(text)) {
        let external = dest.contains("://") || dest.starts_with("mailto:") || dest.starts_with("tel:");
        let file = percent_decoded(dest.split('#').next().unwrap_or_default());
        if external || file.is_empty() {
            continue;
        }
        if file.starts_with('/') {
            found.push(format!("{}: links to the absolute path {dest}", doc.display()));
            continue;
        }
        let target = normal(&dir.join(&file));
        if !target.starts_with(root) {
            found.push(format!("{}: links to {dest}, outside the repository", doc.display()));
        } else if !target.exists() {
            found.push(format!("{}: links to {dest}, which does not exist ({})", doc.display(), target.display()));
        }
    }
    found
}

#[test]
fn every_link_in_the_docs_resolves_inside_the_repository() {
    let root = root();
    let docs = documents(&root);
    assert!(docs.len() > 5, "README.md and docs/ hold documents: {docs:?}");
    let mut found = Vec::new();
    let mut links = 0;
    for doc in &docs {
        let text = fs::read_to_string(root.join(doc)).unwrap_or_else(|e| panic!("{}: {e}", doc.display()));
        links += destinations(&prose(&text)).len();
        found.extend(problems(&root, doc, &text));
    }
    assert!(links > 50, "the documents hold links ({links} found): is the parser reading them?");
    assert!(found.is_empty(), "{} problems in the documents:\n{}", found.len(), found.join("\n"));
}

#[test]
fn the_check_finds_broken_links_and_passes_good_ones() {
    let root = root();
    let doc = Path::new("docs/guide/example.md");
    let text = "\
# Example

See [the README](../../README.md#quick-start), [contracts](../contracts.md), [a section](#here),
[the web](https://example.com/x.md) and ![a picture](../images/skills-window.png 'title').
A [broken one](missing.md#anchor), an ![image that is not there](../images/none.png), a link
[out of the repository](../../../elsewhere.md), and one [split
over lines](../nowhere.md).

Code is not a link: `[x](not-a-file.md)`, ``a `[y](neither.md)` span``, and

```
[z](nor-this.md)
```

[ref]: ../also-missing.md
";
    let found = problems(&root, doc, text);
    let broken =
        ["missing.md#anchor", "../images/none.png", "../../../elsewhere.md", "../nowhere.md", "../also-missing.md"];
    for dest in broken {
        assert!(found.iter().any(|p| p.contains(&format!(" {dest},"))), "{dest} not reported: {found:#?}");
    }
    assert_eq!(found.len(), broken.len(), "{found:#?}");
    let outside = problems(&root, doc, "As DESIGN.md says, see ../shared/notes.\n");
    assert_eq!(outside.len(), 2, "{outside:#?}");
}
