//! Bounded mutation fuzzing of what the core reads from untrusted hands: `SKILL.md` frontmatter
//! and validation, relative paths, and archive entry names through the import loader.
//! Each target checks invariants that can fail, not only that nothing panics. Budgets: see
//! `fuzzing::Budget` (`SKILLDECK_FUZZ_ITERS`, `SKILLDECK_FUZZ_SECS`, `SKILLDECK_FUZZ_SEED`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use skilldeck_fuzzkit as fuzzing;

use fuzzing::{Budget, Mutator, Verdict};
use skilldeck_skill::frontmatter;
use skilldeck_skill::validate::{ValidateOptions, validate_bytes};
use skilldeck_skill::{DiagCode, RelPath, SkillName, UploadLimits};
use skilldeck_store::import;
use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt as _;
use std::path::{Component, Path, PathBuf};

fn corpus(seeds: &[&[u8]]) -> Vec<Vec<u8>> {
    seeds.iter().map(|s| s.to_vec()).collect()
}

// ---- (a) frontmatter and validation ----

const SKILL_MD_SEEDS: &[&[u8]] = &[
    b"---\nname: pdf\ndescription: Extract text and tables from PDF files\n---\n# PDF\n\nUse scripts/run.sh.\n",
    b"---\nname: pdf\ndescription: >\n  Folded text\n  over lines\nversion: \"1.2\"\nmin_tier: ultra\n---\nbody\n",
    b"---\nname: pdf\ndescription: Extract: text, tables & more\nallowed-tools: Bash(git:*) Read\n---\nbody\n",
    b"---\nname: pdf\ndescription: d\nmetadata:\n  aibuddy:\n    dependencies:\n      python: [pypdf, 'pdfplumber']\n      node: []\n---\n",
    b"---\r\nname: pdf\r\ndescription: CRLF lines\r\ncompatibility: '>=0.1'\r\n---\r\nbody\r\n",
    b"\xef\xbb\xbf---\nname: pdf\ndescription: with a BOM\ndescription_zh: \xe6\x8f\x90\xe5\x8f\x96 PDF\nlicense: MIT\n---\n",
    b"---\nname: pdf\ndescription: |\n  literal\n  block\ntags: [a, b]\nauthor: {name: x}\n---\n",
    b"---\nname: &n pdf\ndescription: *n\n---\n",
    b"# No frontmatter\n\nname: pdf\n",
    b"---\nname: pdf\ndescription: never closed\n",
    b"---\nname: pdf\ndescription: \"heart \\ud83e\\udec0 \\ud83e\"\ncompatibility: skilldeck >=9\n--- # Use\nbody\n",
    b"  ---\n  name: pdf\n  description: **bold** text\n    over: lines\n  metadata:\n    - *x y\n  ---\n",
    b"---\nname: pdf\ndescription: x\nstray line\n\n# Title\n\ntext: more\n---\n",
];

/// YAML indicators, fences, line ends and bytes that are not text.
const YAML_TOKENS: &[&[u8]] = &[
    b"[",
    b"]",
    b"{",
    b"}",
    b"&",
    b"*",
    b":",
    b": ",
    b"!",
    b"!!str ",
    b"|",
    b">",
    b"-",
    b"- ",
    b"#",
    b"'",
    b"\"",
    b"\n",
    b"\r\n",
    b"\r",
    b"\n---\n",
    b"---",
    b"...",
    b"  ",
    b"\t",
    b"? ",
    b"%YAML 1.2\n",
    b"name: ",
    b"description: ",
    b"version: ",
    b"min_tier: ",
    b"metadata:\n  ",
    b"\xef\xbb\xbf",
    b"\xff",
    b"\0",
    b"\\u0000",
    b"\\ud83e",
    b"\\udec0",
    "\u{e9}".as_bytes(),
    "\u{2028}".as_bytes(),
    b"<<: *a\n",
];

/// The contract of validation, for any bytes: deterministic; strict never accepts what lenient
/// refuses; every diagnostic has a snake_case code, words, and a line inside the file; bytes
/// that are not UTF-8 or have no frontmatter get exactly that error; a valid skill's fields
/// keep the limits of docs/contracts.md; `strip` returns a tail of the text.
fn check_skill_md(bytes: &[u8]) -> Verdict {
    let opts = ValidateOptions { dir_name: Some("pdf"), ..ValidateOptions::default() };
    let lenient = validate_bytes(Some(bytes), opts);
    if validate_bytes(Some(bytes), opts) != lenient {
        return Err("two validations of the same bytes differ".into());
    }
    let strict = validate_bytes(Some(bytes), ValidateOptions { strict: true, ..opts });
    if strict.is_valid() && !lenient.is_valid() {
        return Err(format!("strict accepts what lenient refuses: {:?}", lenient.diagnostics));
    }
    let Ok(text) = std::str::from_utf8(bytes) else {
        return match lenient.diagnostics.as_slice() {
            [d] if d.code == DiagCode::SkillMdNotUtf8 && d.is_error() => Ok(false),
            other => Err(format!("not UTF-8, yet diagnostics are {other:?}")),
        };
    };
    let last_line = u32::try_from(text.split('\n').count()).unwrap_or(u32::MAX);
    for d in lenient.diagnostics.iter().chain(&strict.diagnostics) {
        let code = d.code.as_str();
        if code.is_empty() || !code.bytes().all(|b| b.is_ascii_lowercase() || b == b'_') {
            return Err(format!("code {code:?} is not snake_case"));
        }
        if d.message.trim().is_empty() {
            return Err(format!("{code} has no message"));
        }
        if d.line.is_some_and(|l| l == 0 || l > last_line) {
            return Err(format!("{code} points at line {:?} of a {last_line}-line file", d.line));
        }
    }
    if let Err(d) = frontmatter::split(text)
        && lenient.diagnostics != [d.clone()]
    {
        return Err(format!("no frontmatter ({}), yet diagnostics are {:?}", d.code, lenient.diagnostics));
    }
    if !text.ends_with(frontmatter::strip(text)) {
        return Err("strip returned text that is not the file's tail".into());
    }
    if !lenient.is_valid() {
        return Ok(false);
    }
    let meta = &lenient.meta;
    let chars = |s: &Option<String>| s.as_deref().map_or(0, |s| s.chars().count());
    match meta.name.as_deref() {
        Some(n) if n == "pdf" && SkillName::parse(n).is_ok() => {}
        other => return Err(format!("valid, yet name is {other:?} in folder pdf")),
    }
    match meta.description.as_deref() {
        Some(d) if !d.trim().is_empty() && d.chars().count() <= 1024 => {}
        other => return Err(format!("valid, yet description is {other:?}")),
    }
    if chars(&meta.version) > 32 || chars(&meta.compatibility) > 500 {
        return Err(format!("valid, yet version {:?} / compatibility {:?}", meta.version, meta.compatibility));
    }
    Ok(true)
}

#[test]
fn fuzz_frontmatter_and_validation() {
    let mutator = Mutator::new(YAML_TOKENS, 4096);
    let ran = fuzzing::run(
        "fuzz_frontmatter_and_validation",
        Budget::from_env(20_000, 5.0),
        &corpus(SKILL_MD_SEEDS),
        &mutator,
        &mut check_skill_md,
    );
    assert!(ran.inputs == 0 || ran.accepted > 0, "no mutated input was valid: the run never got past the frontmatter");
}

// ---- (b) relative paths ----

const PATH_SEEDS: &[&[u8]] = &[
    b"SKILL.md",
    b"references/guide.md",
    b"scripts/run.sh",
    b"a/b/c/d.txt",
    b"../x",
    b"/etc/passwd",
    b"C:\\x",
    b"\\\\server\\share",
    b"a\\b",
    b"./a",
    b"a/",
    b"a//b",
    "r\u{e9}f/\u{fc}.md".as_bytes(),
    b".hidden",
    b"...",
    b"a..b/..c",
    b"c:x",
    b"a/./b",
    b"a/b/..",
];

const PATH_TOKENS: &[&[u8]] = &[
    b"../",
    b"..",
    b"/",
    b"//",
    b"\\",
    b"\0",
    b"C:",
    b"c:\\",
    b".",
    b"./",
    b"\n",
    b"\r",
    b"\t",
    b"\x7f",
    b"~",
    b":",
    b" ",
    "\u{e9}".as_bytes(),
    "\u{202e}".as_bytes(),
    "\u{85}".as_bytes(),
    "\u{ff0f}".as_bytes(),
    b"\xff",
    b"\xc0\xaf",
    &[b'a'; 300],
];

/// What docs/contracts.md says a relative path is, written out independently of `RelPath::parse`.
fn path_contract(s: &str) -> bool {
    let drive = s.as_bytes().get(1) == Some(&b':') && s.as_bytes()[0].is_ascii_alphabetic();
    !s.is_empty()
        && s.len() <= skilldeck_skill::relpath::MAX_REL_PATH_LEN
        && !s.chars().any(char::is_control)
        && !s.starts_with('/')
        && !s.contains('\\')
        && !drive
        && s.split('/')
            .all(|c| !c.is_empty() && c != "." && c != ".." && c.len() <= skilldeck_skill::relpath::MAX_NAME_LEN)
}

/// The normal components of `p`, or `None` when it has any other kind.
fn normal_parts(p: &Path) -> Option<Vec<&OsStr>> {
    p.components().map(|c| if let Component::Normal(x) = c { Some(x) } else { None }).collect()
}

/// `parse` agrees with the contract; an accepted path is never absolute, never climbs, holds
/// no NUL or backslash, survives `from_path`, JSON and `under` unchanged; `from_path` of any
/// bytes yields only paths `parse` accepts, made of exactly the input's components.
fn check_rel_path(bytes: &[u8]) -> Verdict {
    let s = String::from_utf8_lossy(bytes);
    let parsed = RelPath::parse(&s);
    if parsed.is_ok() != path_contract(&s) {
        return Err(format!("parse says {parsed:?}, the contract says {}", path_contract(&s)));
    }
    if let Ok(p) = &parsed {
        let path = Path::new(p.as_str());
        if p.as_str() != s || path.is_absolute() || s.contains(['\0', '\\']) || normal_parts(path).is_none() {
            return Err(format!("accepted {p:?}, which is absolute, climbs, or holds NUL or a backslash"));
        }
        if RelPath::from_path(path).as_ref() != Ok(p) {
            return Err(format!("from_path changes {p:?}: {:?}", RelPath::from_path(path)));
        }
        let json = serde_json::to_string(p).unwrap();
        if serde_json::from_str::<RelPath>(&json).ok().as_ref() != Some(p) {
            return Err(format!("{p:?} does not survive JSON ({json})"));
        }
        let root = Path::new("/fuzz/root");
        let under = p.under(root);
        let below = under.strip_prefix(root).ok().and_then(normal_parts).map(|v| v.len());
        if below != Some(p.as_str().split('/').count()) {
            return Err(format!("{p:?} under {root:?} is {under:?}"));
        }
    }
    let raw = Path::new(OsStr::from_bytes(bytes));
    if let Ok(p) = RelPath::from_path(raw) {
        if RelPath::parse(p.as_str()).as_ref() != Ok(&p) {
            return Err(format!("from_path made {p:?}, which parse refuses"));
        }
        let parts = normal_parts(raw).map(|v| v.iter().map(|c| c.to_string_lossy()).collect::<Vec<_>>().join("/"));
        if parts.as_deref() != Some(p.as_str()) {
            return Err(format!("from_path made {p:?} of {raw:?}"));
        }
    }
    Ok(parsed.is_ok())
}

#[test]
fn fuzz_relative_paths() {
    let mutator = Mutator::new(PATH_TOKENS, 1100);
    let ran = fuzzing::run(
        "fuzz_relative_paths",
        Budget::from_env(50_000, 3.0),
        &corpus(PATH_SEEDS),
        &mutator,
        &mut check_rel_path,
    );
    assert!(ran.inputs == 0 || ran.accepted > 0, "no mutated path was accepted");
}

// ---- (c) archive entry names through the import loader ----

/// One entry of a test archive: raw name bytes, Unix mode, UTF-8 flag, content.
#[derive(Debug, Clone)]
struct Entry {
    name: Vec<u8>,
    mode: u32,
    utf8: bool,
    content: Vec<u8>,
}

const SKILL_MD: &[u8] = b"---\nname: pdf\ndescription: Extract text from PDF files\n---\n# PDF\n";

/// Reads an input as one entry a line. A line may start with flags: `@L` a symlink, `@F` a
/// FIFO, `@D` a folder, `@U` the UTF-8 name flag. `SKILL.md` (any case) holds a valid skill;
/// a folder holds nothing; every other file holds its own name, so what was imported can be
/// traced to its entry.
fn entries(input: &[u8]) -> Vec<Entry> {
    input
        .split(|b| *b == b'\n')
        .take(12)
        .map(|line| {
            let (mut name, mut mode, mut utf8) = (line, 0o100_644, false);
            while let Some(rest) = name.strip_prefix(b"@") {
                match rest.first() {
                    Some(b'L') => mode = 0o120_777,
                    Some(b'F') => mode = 0o010_644,
                    Some(b'D') => mode = 0o040_755,
                    Some(b'U') => utf8 = true,
                    _ => break,
                }
                name = &rest[1..];
            }
            let is_md = name.len() >= 8 && name[name.len() - 8..].eq_ignore_ascii_case(b"SKILL.md");
            let content = match mode {
                0o040_755 => Vec::new(),
                _ if is_md => SKILL_MD.to_vec(),
                _ => [b"file ".as_slice(), name].concat(),
            };
            Entry { name: name.to_vec(), mode, utf8, content }
        })
        .collect()
}

/// CRC-32 (IEEE), bit by bit: archives here are small.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for b in bytes {
        crc ^= u32::from(*b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

/// A zip archive of stored entries, written by hand from the format (PKWARE APPNOTE 4.3) so
/// that names can be any bytes, repeat, and carry any Unix mode — what a zip library refuses
/// to write but a hostile archive holds.
fn zip_of(entries: &[Entry]) -> Vec<u8> {
    let (mut out, mut central) = (Vec::new(), Vec::new());
    let u16le = |v: usize| u16::try_from(v).unwrap_or(u16::MAX).to_le_bytes();
    let u32le = |v: usize| u32::try_from(v).unwrap_or(u32::MAX).to_le_bytes();
    for e in entries {
        let offset = out.len();
        let flags: u16 = if e.utf8 { 1 << 11 } else { 0 };
        let (crc, size, name) = (crc32(&e.content).to_le_bytes(), u32le(e.content.len()), &e.name);
        // Local header: signature, version 2.0, flags, stored, 1980-01-01 00:00, crc, sizes, name.
        out.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
        out.extend_from_slice(&20u16.to_le_bytes());
        out.extend_from_slice(&flags.to_le_bytes());
        out.extend_from_slice(&[0, 0, 0, 0, 0x21, 0]);
        out.extend_from_slice(&crc);
        out.extend_from_slice(&size);
        out.extend_from_slice(&size);
        out.extend_from_slice(&u16le(name.len()));
        out.extend_from_slice(&[0, 0]);
        out.extend_from_slice(name);
        out.extend_from_slice(&e.content);
        // Central header: made by Unix (3) 2.0, so the external attributes hold the mode.
        central.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
        central.extend_from_slice(&(3u16 << 8 | 20).to_le_bytes());
        central.extend_from_slice(&20u16.to_le_bytes());
        central.extend_from_slice(&flags.to_le_bytes());
        central.extend_from_slice(&[0, 0, 0, 0, 0x21, 0]);
        central.extend_from_slice(&crc);
        central.extend_from_slice(&size);
        central.extend_from_slice(&size);
        central.extend_from_slice(&u16le(name.len()));
        central.extend_from_slice(&[0; 8]);
        central.extend_from_slice(&(e.mode << 16).to_le_bytes());
        central.extend_from_slice(&u32le(offset));
        central.extend_from_slice(name);
    }
    let (cd_offset, cd_size) = (out.len(), central.len());
    out.extend_from_slice(&central);
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&u16le(entries.len()));
    out.extend_from_slice(&u16le(entries.len()));
    out.extend_from_slice(&u32le(cd_size));
    out.extend_from_slice(&u32le(cd_offset));
    out.extend_from_slice(&[0, 0]);
    out
}

/// Every file below `dir`, with its bytes.
fn files_below(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() { stack.push(p) } else { out.push((p.clone(), fs::read(&p).unwrap_or_default())) }
        }
    }
    out.sort();
    out
}

const ARCHIVE_SEEDS: &[&[u8]] = &[
    b"SKILL.md\nreferences/guide.md\nscripts/run.sh",
    b"@Dpdf/\npdf/SKILL.md\npdf/references/a.md",
    b"SKILL.md\n../evil.txt",
    b"SKILL.md\n/tmp/skilldeck-fuzz-evil.txt",
    b"SKILL.md\na\\b.txt\nC:\\evil.txt",
    b"SKILL.md\nskill.md\nreferences/SKILL.md",
    b"SKILL.md\n@Llink\n@Ffifo",
    b"SKILL.md\n.git/config\n__MACOSX/._SKILL.md\n.version\n.revision.json",
    b"SKILL.md\n\xff\xfe.txt\n@U\xc3\xa9t\xc3\xa9.md",
    b"SKILL.md\n@Ddir/\ndir/x\ndir/y/z",
];

const ARCHIVE_TOKENS: &[&[u8]] = &[
    b"../",
    b"..",
    b"/",
    b"\\",
    b"\0",
    b"C:",
    b"./",
    b"\n",
    b"SKILL.md",
    b"skill.md",
    b"pdf/",
    b"@L",
    b"@F",
    b"@D",
    b"@U",
    b".git/",
    b"__MACOSX/",
    b".version",
    b"\xff",
    "\u{e9}".as_bytes(),
    &[b'a'; 200],
    b"/tmp/",
];

/// Limits small enough for the fuzzer to reach them.
const LIMITS: UploadLimits = UploadLimits { max_file_bytes: 512, max_total_bytes: 2048, max_files: 8 };

/// The import loader on an archive made of the input's entries: never writes a file (not in
/// its folder, not where an entry's name points from the working folder or the root); an
/// accepted skill has a `SKILL.md`, keeps the limits, holds only valid paths that are no
/// sidecar nor litter, and every file is an entry's bytes under that entry's name (or with
/// the archive's one top folder taken off).
fn check_archive(dir: &Path, input: &[u8]) -> Verdict {
    let entries = entries(input);
    let zip = dir.join("in/pdf.zip");
    fs::write(&zip, zip_of(&entries)).unwrap();
    let before = files_below(dir);
    let cwd = std::env::current_dir().unwrap();
    let aimed: Vec<PathBuf> = entries
        .iter()
        .filter_map(|e| std::str::from_utf8(&e.name).ok())
        .filter(|n| !n.is_empty() && !n.contains('\0'))
        .flat_map(|n| [cwd.join(n), dir.join("in").join(n)])
        .filter(|p| !p.exists())
        .collect();
    let loaded = import::load(&zip, LIMITS, &mut |_, _| {});
    if files_below(dir) != before {
        return Err("the loader changed its folder".into());
    }
    if let Some(p) = aimed.iter().find(|p| p.exists()) {
        return Err(format!("{p:?} exists after the load"));
    }
    let Ok(skill) = loaded else { return Ok(false) };
    if skill.files.skill_md().is_none() {
        return Err("accepted without SKILL.md".into());
    }
    if let Err(e) = skill.files.check_limits(LIMITS) {
        return Err(format!("accepted over the limits: {e}"));
    }
    let names: Vec<String> =
        entries.iter().map(|e| String::from_utf8_lossy(&e.name).trim_end_matches('/').to_owned()).collect();
    for (path, bytes) in skill.files.iter() {
        if RelPath::parse(path.as_str()).as_ref() != Ok(path) {
            return Err(format!("accepted an invalid path {path:?}"));
        }
        let litter = [".git", ".DS_Store", "Thumbs.db", "__MACOSX"];
        if skilldeck_skill::files::is_sidecar(path.as_str()) || path.as_str().split('/').any(|c| litter.contains(&c)) {
            return Err(format!("accepted a sidecar or litter {path:?}"));
        }
        let from_entry = entries.iter().zip(&names).any(|(e, n)| {
            let same = |name: &str| {
                // A lowercase `skill.md` is stored as `SKILL.md`.
                name == path.as_str() || (path.is_skill_md() && name.eq_ignore_ascii_case("SKILL.md"))
            };
            let named = same(n) || n.split_once('/').is_some_and(|(_, rest)| same(rest));
            // A folder entry without its trailing `/` is read as an (empty) file, as zip readers do.
            named && e.content == bytes && matches!(e.mode & 0o170_000, 0o100_000 | 0o040_000)
        });
        if !from_entry {
            return Err(format!("{path:?} is not the bytes of a file or folder entry of that name"));
        }
    }
    Ok(true)
}

#[test]
fn fuzz_archive_entry_names() {
    let tmp = tempfile::tempdir().unwrap();
    fs::create_dir(tmp.path().join("in")).unwrap();
    let mutator = Mutator::new(ARCHIVE_TOKENS, 2048);
    let ran = fuzzing::run(
        "fuzz_archive_entry_names",
        Budget::from_env(3000, 6.0),
        &corpus(ARCHIVE_SEEDS),
        &mutator,
        &mut |input| check_archive(tmp.path(), input),
    );
    assert!(ran.inputs == 0 || ran.accepted > 0, "no mutated archive was accepted");
}

/// Archives the loader refuses because the skill they make could not be stored whole or would be
/// ambiguous: a name twice, names differing only in case, a file that is also a folder.
#[test]
fn archives_the_loader_should_refuse() {
    let file = |name: &str, content: &[u8]| Entry {
        name: name.into(),
        mode: 0o100_644,
        utf8: false,
        content: content.to_vec(),
    };
    let cases = [
        // Two entries of one name: which one is imported depends on the reader.
        ("SKILL.md twice", vec![file("SKILL.md", SKILL_MD), file("SKILL.md", b"---\nname: evil\n---\n")]),
        // A file and a folder of one name: the store's write fails on it with an I/O error.
        ("a file inside a file", vec![file("SKILL.md", SKILL_MD), file("a", b"x"), file("a/b", b"y")]),
    ];
    let tmp = tempfile::tempdir().unwrap();
    let mut accepted = Vec::new();
    for (case, entries) in cases {
        let zip = tmp.path().join("pdf.zip");
        fs::write(&zip, zip_of(&entries)).unwrap();
        if let Ok(skill) = import::load(&zip, LIMITS, &mut |_, _| {}) {
            accepted.push((case, skill.files.iter().map(|(p, _)| p.to_string()).collect::<Vec<_>>()));
        }
    }
    assert_eq!(accepted, vec![], "accepted");
}
