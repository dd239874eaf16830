//! Checks on what the bucket says before anything acts on it: every manifest is written by
//! other people, so its sizes, paths and text are bounded and checked here, before a blob is
//! fetched or a line is printed. Holds the rules; not the parsing (`manifest`).

use crate::file_entry::FileEntry;
use skilldeck_skill::files::{LimitMeter, is_sidecar};
use skilldeck_skill::{RelPath, UploadLimits};
use std::collections::HashMap;
use unicode_normalization::UnicodeNormalization as _;

/// The largest manifest object read (1 MiB); a larger one is refused before its body is read.
/// A manifest of 5,000 files with paths of 100 characters is about 0.8 MiB.
pub const MAX_MANIFEST_BYTES: u64 = 1 << 20;

/// The longest `publisher` or `published_at` accepted, in bytes.
pub const MAX_TEXT_BYTES: usize = 256;

/// The limits a revision's files must keep: the core's upload limits, which materialising
/// applies again when it writes the team scope.
pub fn limits() -> UploadLimits {
    UploadLimits::default()
}

/// Checks a manifest's file list against `limits` before any of it is fetched: each entry a
/// 64-hex-digit hash and a relative path (no store sidecar), sizes within the limits, and no
/// two paths that one disk would hold as one file (equal after case folding and NFC
/// normalisation, as on macOS and Windows) or a path that is both a file and a folder.
pub fn check_files(files: &[FileEntry], limits: UploadLimits) -> Result<(), String> {
    if files.len() > limits.max_files {
        return Err(format!("it lists {} files; this machine accepts at most {}", files.len(), limits.max_files));
    }
    let hex_ok = |h: &str| h.len() == 64 && h.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    let mut meter = LimitMeter::new(limits);
    let mut seen: HashMap<String, &str> = HashMap::with_capacity(files.len());
    for f in files {
        if !hex_ok(&f.sha256) || RelPath::parse(&f.path).is_err() || is_sidecar(&f.path) {
            return Err(format!("bad file entry {}", escape(&f.path)));
        }
        // What no import takes (`.git`, OS litter) no team revision brings either: a `.git/config`
        // would run its `core.fsmonitor` command for anyone whose shell shows git status there.
        if let Some(part) = f.path.split('/').find(|part| skilldeck_store::import::IGNORED.contains(part)) {
            return Err(format!("it holds {}, which no skill holds ({part} is never stored)", escape(&f.path)));
        }
        meter.add(&escape(&f.path), f.size).map_err(|e| format!("{e}; this machine accepts no more"))?;
        if let Some(first) = seen.insert(collision_key(&f.path), &f.path) {
            return Err(if first == f.path {
                format!("it lists {} twice", escape(&f.path))
            } else {
                format!(
                    "it lists both {} and {}, one file on a case-insensitive or normalising disk",
                    escape(first),
                    escape(&f.path)
                )
            });
        }
    }
    for f in files {
        for (i, _) in f.path.match_indices('/') {
            if let Some(file) = seen.get(&collision_key(&f.path[..i])) {
                return Err(format!("{} is a file, so {} cannot be in it", escape(file), escape(&f.path)));
            }
        }
    }
    Ok(())
}

/// What two paths share when a case-insensitive, normalising disk holds them as one.
fn collision_key(path: &str) -> String {
    path.nfc().collect::<String>().to_lowercase().nfc().collect()
}

/// Checks a text field a terminal will show: at most `MAX_TEXT_BYTES`, and no control
/// character (escape sequences, newlines) or bidirectional override that could fake output.
pub fn check_text(field: &str, value: &str) -> Result<(), String> {
    if value.len() > MAX_TEXT_BYTES {
        return Err(format!("its {field} is longer than {MAX_TEXT_BYTES} bytes"));
    }
    match value.chars().find(|c| is_unsafe_char(*c)) {
        Some(c) => Err(format!("its {field} holds the control character {:?}", c)),
        None => Ok(()),
    }
}

fn is_unsafe_char(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200e}' | '\u{200f}' | '\u{061c}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `s` with every control character and bidirectional override escaped, quoted: for putting
/// text from the bucket into a message.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            c if is_unsafe_char(c) => out.extend(c.escape_unicode()),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(path: &str, size: u64) -> FileEntry {
        FileEntry { path: path.to_owned(), sha256: "a".repeat(64), size }
    }

    fn check(paths: &[&str]) -> Result<(), String> {
        check_files(&paths.iter().map(|p| entry(p, 1)).collect::<Vec<_>>(), limits())
    }

    #[test]
    fn escaping_leaves_nothing_a_terminal_acts_on() {
        assert_eq!(escape("a\u{1b}]0;x\u{7}\u{202e}\"b"), "\"a\\u{1b}]0;x\\u{7}\\u{202e}\\\"b\"");
        assert_eq!(check_text("publisher", "ana"), Ok(()));
        assert!(check_text("publisher", &"x".repeat(MAX_TEXT_BYTES + 1)).is_err());
    }

    #[test]
    fn a_file_and_a_folder_of_one_name_collide() {
        assert_eq!(check(&["SKILL.md", "a/b", "a/c"]), Ok(()));
        let e = check(&["SKILL.md", "A", "a/b"]).unwrap_err();
        assert!(e.contains("is a file"), "{e}");
    }
}
