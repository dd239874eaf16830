//! The workspace `Sandbox` under attack: hostile paths and symlink layouts, with everything beside the workspace
//! snapshotted (paths, bytes, mtimes) before and compared after every attempt, so nothing outside is read or written.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use skilldeck_mount::sandbox::{DirEntry, EntryKind, Sandbox, SandboxError};
use skilldeck_skill::relpath::{MAX_REL_PATH_LEN, PathError as P};
use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::fs::{FileTypeExt as _, MetadataExt as _, PermissionsExt as _, symlink};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::mpsc;
use std::time::Duration;

/// The content of the canary files outside the workspace.
const CANARY: &[u8] = b"CANARY 7f3a: this file lives outside the workspace and must never be read\n";
/// What every attempted write tries to put somewhere.
const PAYLOAD: &[u8] = b"PWNED by the sandbox test\n";
/// The read limit used by every attempt.
const LIMIT: u64 = 1 << 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Read,
    Write,
    Stat,
    List,
    Mkdir,
}

const OPS: [Op; 5] = [Op::Read, Op::Write, Op::Stat, Op::List, Op::Mkdir];

/// What an operation gave, as a comparable value.
#[derive(Debug, PartialEq, Eq)]
enum Got {
    Read(Vec<u8>),
    Wrote,
    Stat(EntryKind, u64),
    List(Vec<DirEntry>),
    Made,
    Invalid(P),
    Escapes,
    NotFound,
    WrongKind(&'static str),
    TooLarge { size: u64, limit: u64 },
    Io(&'static str, Option<i32>),
}

fn run(sb: &Sandbox, op: Op, path: &str) -> Got {
    let res = match op {
        Op::Read => sb.read(path, LIMIT).map(Got::Read),
        Op::Write => sb.write(path, PAYLOAD).map(|()| Got::Wrote),
        Op::Stat => sb.stat(path).map(|(kind, size)| Got::Stat(kind, size)),
        Op::List => sb.list_dir(path).map(Got::List),
        Op::Mkdir => sb.create_dir_all(path).map(|_| Got::Made),
    };
    res.unwrap_or_else(|e| from_err(path, e))
}

/// The error as a comparable value, after checking that it names the path or one of its parent folders.
fn from_err(path: &str, e: SandboxError) -> Got {
    let (named, got) = match e {
        SandboxError::InvalidPath { path, source } => (path, Got::Invalid(source)),
        SandboxError::Escapes { path } => (path, Got::Escapes),
        SandboxError::NotFound { path } | SandboxError::NoWorkspace { path, .. } => (path, Got::NotFound),
        SandboxError::WrongKind { path, expected } => (path, Got::WrongKind(expected)),
        SandboxError::TooLarge { path, size, limit } => (path, Got::TooLarge { size, limit }),
        SandboxError::Io { what, path, source } => (path, Got::Io(what, source.raw_os_error())),
    };
    assert!(
        named == path || path.starts_with(&format!("{named}/")),
        "{path:?}: the error {got:?} names {named:?}, neither the path nor a parent of it"
    );
    got
}

/// One entry of a snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Node {
    kind: &'static str,
    mode: u32,
    nlink: u64,
    size: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
    /// A file's bytes or a symlink's target.
    content: Vec<u8>,
}

type Snapshot = BTreeMap<PathBuf, Node>;

/// Everything below `root` (itself included), skipping the subtree at `skip`. Never opens a FIFO.
fn snapshot(root: &Path, skip: Option<&Path>) -> Snapshot {
    fn walk(root: &Path, path: &Path, skip: Option<&Path>, out: &mut Snapshot) {
        let md = fs::symlink_metadata(path).unwrap();
        let ft = md.file_type();
        let (kind, content) = if ft.is_symlink() {
            ("symlink", fs::read_link(path).unwrap().as_os_str().as_bytes().to_vec())
        } else if ft.is_file() {
            ("file", fs::read(path).unwrap())
        } else if ft.is_dir() {
            ("dir", Vec::new())
        } else if ft.is_fifo() {
            ("fifo", Vec::new())
        } else {
            ("other", Vec::new())
        };
        let node = Node {
            kind,
            mode: md.mode(),
            nlink: md.nlink(),
            size: md.size(),
            mtime: (md.mtime(), md.mtime_nsec()),
            ctime: (md.ctime(), md.ctime_nsec()),
            content,
        };
        out.insert(path.strip_prefix(root).unwrap().to_path_buf(), node);
        if ft.is_dir() {
            for entry in fs::read_dir(path).unwrap() {
                let p = entry.unwrap().path();
                if Some(p.as_path()) != skip {
                    walk(root, &p, skip, out);
                }
            }
        }
    }
    let mut out = Snapshot::new();
    walk(root, root, skip, &mut out);
    out
}

/// A temp folder holding the workspace `ws/` and, beside it, `outside/` with the canary `secret.txt` and
/// `dir/inner.txt`. The snapshot of everything but `ws/` is taken when the fixture is made.
struct Fx {
    _tmp: tempfile::TempDir,
    top: PathBuf,
    ws: PathBuf,
    outside: PathBuf,
    before: Snapshot,
}

impl Fx {
    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let top = fs::canonicalize(tmp.path()).unwrap();
        let ws = top.join("ws");
        let outside = top.join("outside");
        fs::create_dir(&ws).unwrap();
        fs::create_dir_all(outside.join("dir")).unwrap();
        fs::write(outside.join("secret.txt"), CANARY).unwrap();
        fs::write(outside.join("dir/inner.txt"), CANARY).unwrap();
        let before = snapshot(&top, Some(&ws));
        assert_eq!(
            before.keys().map(|p| p.to_str().unwrap()).collect::<Vec<_>>(),
            ["", "outside", "outside/dir", "outside/dir/inner.txt", "outside/secret.txt"]
        );
        Self { _tmp: tmp, top, ws, outside, before }
    }

    fn sandbox(&self) -> Sandbox {
        let sb = Sandbox::open(&self.ws).unwrap();
        assert_eq!(sb.root(), self.ws);
        sb
    }

    fn secret(&self) -> PathBuf {
        self.outside.join("secret.txt")
    }

    /// Makes the symlink `ws/<at> -> target`, creating its parent folders.
    fn link(&self, at: &str, target: impl AsRef<Path>) -> u64 {
        let p = self.ws.join(at);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        symlink(target.as_ref(), &p).unwrap();
        target.as_ref().as_os_str().len() as u64
    }

    /// Retakes the outside snapshot after a layout changed something there on purpose.
    fn rebase(&mut self) {
        self.before = snapshot(&self.top, Some(&self.ws));
    }

    fn assert_outside_untouched(&self, what: &str) {
        let now = snapshot(&self.top, Some(&self.ws));
        assert_eq!(now, self.before, "{what} changed something outside the workspace");
        assert_eq!(fs::read(self.secret()).unwrap(), CANARY, "{what}");
    }
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// Runs `op` on `path`, compares the whole outcome with `expected`, and checks that nothing outside the
/// workspace changed and that no read returned the canary or the host's `/etc/passwd`.
fn check(fx: &Fx, sb: &Sandbox, op: Op, path: &str, expected: &Got) {
    let got = run(sb, op, path);
    if let Got::Read(bytes) = &got {
        assert!(!contains(bytes, CANARY), "{op:?} {path:?} read the canary");
        let passwd = fs::read("/etc/passwd").unwrap_or_default();
        assert!(passwd.is_empty() || bytes != &passwd, "{op:?} {path:?} read /etc/passwd");
    }
    assert_eq!(&got, expected, "{op:?} {path:?}");
    fx.assert_outside_untouched(&format!("{op:?} {path:?}"));
}

/// Runs a table of attempts.
fn check_table(fx: &Fx, sb: &Sandbox, table: &[(Op, &str, Got)]) {
    for (op, path, expected) in table {
        check(fx, sb, *op, path, expected);
    }
}

/// Paths refused by their text alone, with the reason expected.
fn lexical_cases(fx: &Fx) -> Vec<(String, P)> {
    let fixed: &[(&str, P)] = &[
        // Absolute.
        ("/etc/passwd", P::Absolute),
        ("/", P::Absolute),
        ("//", P::Absolute),
        ("///", P::Absolute),
        ("//x", P::Absolute),
        ("/..", P::Absolute),
        ("/tmp", P::Absolute),
        ("/dev/zero", P::Absolute),
        ("/proc/self/root/etc/passwd", P::Absolute),
        ("/ws/x", P::Absolute),
        // `..` anywhere.
        ("..", P::ParentDir),
        ("../", P::ParentDir),
        ("../x", P::ParentDir),
        ("..//x", P::ParentDir),
        ("../outside/secret.txt", P::ParentDir),
        ("../outside/new.txt", P::ParentDir),
        ("../../../../../../../../etc/passwd", P::ParentDir),
        ("a/..", P::ParentDir),
        ("a/b/..", P::ParentDir),
        ("a/../b", P::ParentDir),
        ("a/../../x", P::ParentDir),
        ("a/b/../../../outside/secret.txt", P::ParentDir),
        (".../../x", P::ParentDir),
        (".skills/pdf/../../../outside/secret.txt", P::ParentDir),
        // Empty and `.` components.
        (".", P::EmptyComponent),
        ("./", P::EmptyComponent),
        ("./x", P::EmptyComponent),
        ("./../x", P::EmptyComponent),
        ("./..", P::EmptyComponent),
        ("a/./b", P::EmptyComponent),
        ("a//b", P::EmptyComponent),
        ("a/", P::EmptyComponent),
        (".skills/", P::EmptyComponent),
        ("x/.", P::EmptyComponent),
        // Backslashes.
        ("..\\x", P::Backslash),
        ("a\\b", P::Backslash),
        ("..\\..\\outside\\secret.txt", P::Backslash),
        ("\\x", P::Backslash),
        ("\\..\\x", P::Backslash),
        ("a/..\\..\\x", P::Backslash),
        ("x\\", P::Backslash),
        ("C:\\x", P::Backslash),
        ("c:\\windows\\system32\\config", P::Backslash),
        // UNC and device paths.
        ("\\\\server\\share\\x", P::Absolute),
        ("\\\\?\\C:\\x", P::Absolute),
        ("\\\\.\\pipe\\x", P::Absolute),
        ("\\\\", P::Absolute),
        // Drive prefixes.
        ("C:/x", P::DrivePrefix),
        ("c:x", P::DrivePrefix),
        ("C:", P::DrivePrefix),
        ("z:..", P::DrivePrefix),
        ("C:/../x", P::DrivePrefix),
        // NUL and other control characters, checked before anything else.
        ("a\0b", P::ControlChar),
        ("\0", P::ControlChar),
        ("../\0", P::ControlChar),
        ("/etc/passwd\0", P::ControlChar),
        ("secret.txt\0.md", P::ControlChar),
        ("a\nb", P::ControlChar),
        ("a\rb", P::ControlChar),
        ("a\tb", P::ControlChar),
        ("\x1b[2Jx", P::ControlChar),
        ("a\x7fb", P::ControlChar),
        ("a\u{85}b", P::ControlChar),
        ("x\u{9b}y", P::ControlChar),
    ];
    let mut cases: Vec<(String, P)> = fixed.iter().map(|(s, e)| ((*s).to_owned(), e.clone())).collect();
    // The real absolute paths of the canaries and of where a write would land.
    cases.push((fx.secret().display().to_string(), P::Absolute));
    cases.push((fx.outside.join("new.txt").display().to_string(), P::Absolute));
    cases.push((fx.outside.join("dir").display().to_string(), P::Absolute));
    cases.push((fx.ws.join("x").display().to_string(), P::Absolute));
    // Very long paths.
    cases.push(("a".repeat(MAX_REL_PATH_LEN + 1), P::TooLong));
    cases.push(("a/".repeat(600), P::TooLong));
    cases.push(("../".repeat(400), P::TooLong));
    cases.push(("/".repeat(2000), P::TooLong));
    cases.push((format!("{}/x", "a".repeat(5000)), P::TooLong));
    // Long but under the limit: the `..` is still what refuses it.
    cases.push((format!("{}etc/passwd", "../".repeat(300)), P::ParentDir));
    cases
}

#[test]
fn lexically_hostile_paths_are_refused_by_every_operation_before_any_io() {
    let fx = Fx::new();
    // Things a naive join would find.
    fs::create_dir_all(fx.ws.join("a/b")).unwrap();
    fs::write(fx.ws.join("x"), b"inside\n").unwrap();
    let sb = fx.sandbox();
    let ws_before = snapshot(&fx.ws, None);
    let cases = lexical_cases(&fx);
    assert!(cases.len() >= 50, "only {} hostile paths", cases.len());
    for (path, err) in &cases {
        assert_eq!(Sandbox::check(path).map_err(|e| from_err(path, e)), Err(Got::Invalid(err.clone())), "{path:?}");
        for op in OPS {
            check(&fx, &sb, op, path, &Got::Invalid(err.clone()));
        }
    }
    assert_eq!(snapshot(&fx.ws, None), ws_before, "a refused path changed the workspace");
}

#[test]
fn the_empty_path_names_no_file_and_lists_only_the_workspace_root() {
    let fx = Fx::new();
    fs::write(fx.ws.join("a.txt"), b"abc").unwrap();
    let sb = fx.sandbox();
    for op in [Op::Read, Op::Write, Op::Stat, Op::Mkdir] {
        check(&fx, &sb, op, "", &Got::Invalid(P::Empty));
    }
    check(&fx, &sb, Op::List, "", &Got::List(vec![DirEntry { name: "a.txt".into(), kind: EntryKind::File, size: 3 }]));
}

/// Names that look like escapes but are plain names on Unix: they must stay inside the workspace.
const ODD_NAMES: &[&str] = &[
    "%2e%2e/x",
    "%2e%2e%2fx",
    "..%2fx",
    "..%5cx",
    "%2e%2e%5cetc%5cpasswd",
    "...",
    "..../x",
    ".. ",
    " ..",
    "..a",
    "a..",
    "a/..b/c",
    "~",
    "~root/x",
    "$HOME/x",
    "${HOME}",
    "\u{2025}/x",
    "\u{FF0E}\u{FF0E}/x",
    "\u{FF0E}\u{FF0E}\u{FF0F}x",
    "\u{2215}etc\u{2215}passwd",
    "\u{FE68}x",
    "\u{29F5}x",
    "..\u{200B}/x",
    "\u{202E}txt.exe",
    "ab:c",
    "CON",
    "aux.txt",
    "-rf",
    "*",
];

#[test]
fn names_that_only_look_hostile_stay_inside_the_workspace() {
    let fx = Fx::new();
    let sb = fx.sandbox();
    let len = PAYLOAD.len() as u64;
    for name in ODD_NAMES {
        check(&fx, &sb, Op::Write, name, &Got::Wrote);
        assert_eq!(fs::read(fx.ws.join(name)).unwrap(), PAYLOAD, "{name:?} landed elsewhere");
        check(&fx, &sb, Op::Read, name, &Got::Read(PAYLOAD.to_vec()));
        check(&fx, &sb, Op::Stat, name, &Got::Stat(EntryKind::File, len));
        check(&fx, &sb, Op::List, name, &Got::WrongKind("folder"));
        let (parent, leaf) = name.rsplit_once('/').unwrap_or(("", name));
        let listed = sb.list_dir(parent).unwrap();
        assert!(listed.contains(&DirEntry { name: leaf.into(), kind: EntryKind::File, size: len }), "{name:?}");
        let dir = format!("{name}.d/sub");
        check(&fx, &sb, Op::Mkdir, &dir, &Got::Made);
        assert!(fx.ws.join(&dir).is_dir(), "{dir:?}");
    }
    // Long paths at the limits: 1024 bytes deep, and a 255-byte name.
    let at_limit = format!("{}ab", "a/".repeat(511));
    assert_eq!(at_limit.len(), MAX_REL_PATH_LEN);
    let long_name = "n".repeat(255);
    for name in [at_limit.as_str(), &long_name] {
        check(&fx, &sb, Op::Write, name, &Got::Wrote);
        assert_eq!(fs::read(fx.ws.join(name)).unwrap(), PAYLOAD);
        check(&fx, &sb, Op::Read, name, &Got::Read(PAYLOAD.to_vec()));
        check(&fx, &sb, Op::Stat, name, &Got::Stat(EntryKind::File, len));
    }
    check(&fx, &sb, Op::Mkdir, &format!("{at_limit}/x"), &Got::Invalid(P::TooLong));
    // A name over the file systems' limit is refused before any I/O.
    let too_long = "n".repeat(256);
    check(&fx, &sb, Op::Write, &too_long, &Got::Invalid(P::NameTooLong));
    check(&fx, &sb, Op::Read, &too_long, &Got::Invalid(P::NameTooLong));
    // Nothing was created beside the workspace.
    assert_eq!(fs::read_dir(&fx.top).unwrap().count(), 2);
}

#[test]
fn positive_control_plain_reads_writes_and_listings_work() {
    let fx = Fx::new();
    let sb = fx.sandbox();
    check(&fx, &sb, Op::Write, "notes/a.txt", &Got::Wrote);
    assert_eq!(fs::read(fx.ws.join("notes/a.txt")).unwrap(), PAYLOAD);
    check(&fx, &sb, Op::Read, "notes/a.txt", &Got::Read(PAYLOAD.to_vec()));
    check(&fx, &sb, Op::Stat, "notes/a.txt", &Got::Stat(EntryKind::File, PAYLOAD.len() as u64));
    check(&fx, &sb, Op::Stat, "notes", &Got::Stat(EntryKind::Dir, fs::metadata(fx.ws.join("notes")).unwrap().len()));
    check(
        &fx,
        &sb,
        Op::List,
        "notes",
        &Got::List(vec![DirEntry { name: "a.txt".into(), kind: EntryKind::File, size: PAYLOAD.len() as u64 }]),
    );
    check(&fx, &sb, Op::Mkdir, ".skills/pdf/references", &Got::Made);
    check(&fx, &sb, Op::Mkdir, ".skills/pdf/references", &Got::Made);
    assert!(fx.ws.join(".skills/pdf/references").is_dir());
    sb.write(".skills/pdf/SKILL.md", b"---\nname: pdf\n---\nbody\n").unwrap();
    sb.write(".skills/pdf/SKILL.md", b"short").unwrap();
    check(&fx, &sb, Op::Read, ".skills/pdf/SKILL.md", &Got::Read(b"short".to_vec()));
    check(
        &fx,
        &sb,
        Op::List,
        ".skills/pdf",
        &Got::List(vec![
            DirEntry { name: "SKILL.md".into(), kind: EntryKind::File, size: 5 },
            DirEntry {
                name: "references".into(),
                kind: EntryKind::Dir,
                size: fs::metadata(fx.ws.join(".skills/pdf/references")).unwrap().len(),
            },
        ]),
    );
    let root: Vec<String> = sb.list_dir("").unwrap().into_iter().map(|e| e.name).collect();
    assert_eq!(root, [".skills", "notes"]);
    // The ordinary failures keep their own kinds.
    check(&fx, &sb, Op::Read, "missing.txt", &Got::NotFound);
    check(&fx, &sb, Op::Read, "notes", &Got::WrongKind("file"));
    check(&fx, &sb, Op::Write, "notes", &Got::WrongKind("file"));
    check(&fx, &sb, Op::List, "notes/a.txt", &Got::WrongKind("folder"));
    check(&fx, &sb, Op::Mkdir, "notes/a.txt/x", &Got::WrongKind("folder"));
    check(&fx, &sb, Op::Stat, "missing/x", &Got::NotFound);
    assert_eq!(
        sb.read("notes/a.txt", 3).map_err(|e| from_err("notes/a.txt", e)),
        Err(Got::TooLarge { size: PAYLOAD.len() as u64, limit: 3 })
    );
    // A written file is never executable, even one starting with `#!` (a hook the user's git
    // would run); one that exists keeps its mode.
    sb.write("run.sh", b"#!/bin/sh\n").unwrap();
    assert_eq!(fs::metadata(fx.ws.join("run.sh")).unwrap().mode() & 0o777, 0o644);
    fs::set_permissions(fx.ws.join("run.sh"), fs::Permissions::from_mode(0o755)).unwrap();
    sb.write("run.sh", b"#!/bin/sh\necho\n").unwrap();
    assert_eq!(fs::metadata(fx.ws.join("run.sh")).unwrap().mode() & 0o777, 0o755);
    assert_eq!(fs::metadata(fx.ws.join("notes/a.txt")).unwrap().mode() & 0o777, 0o644);
}

#[test]
fn a_folder_symlink_to_outside_cannot_be_read_written_or_listed_through() {
    for absolute in [true, false] {
        let fx = Fx::new();
        let target = if absolute { fx.outside.clone() } else { PathBuf::from("../../outside") };
        let len = fx.link(".skills/link", &target);
        fs::create_dir_all(fx.ws.join(".skills/pdf")).unwrap();
        let sb = fx.sandbox();
        let dir_size = fs::metadata(fx.ws.join(".skills/pdf")).unwrap().len();
        check_table(
            &fx,
            &sb,
            &[
                (Op::Read, ".skills/link/secret.txt", Got::Escapes),
                (Op::Read, ".skills/link/dir/inner.txt", Got::Escapes),
                (Op::Read, ".skills/link", Got::Escapes),
                (Op::Write, ".skills/link/new.txt", Got::Escapes),
                (Op::Write, ".skills/link/secret.txt", Got::Escapes),
                (Op::Write, ".skills/link/dir/new.txt", Got::Escapes),
                (Op::Write, ".skills/link/newdir/new.txt", Got::Escapes),
                (Op::Write, ".skills/link", Got::Escapes),
                (Op::List, ".skills/link", Got::Escapes),
                (Op::List, ".skills/link/dir", Got::Escapes),
                (Op::Stat, ".skills/link/secret.txt", Got::Escapes),
                (Op::Stat, ".skills/link/dir", Got::Escapes),
                (Op::Mkdir, ".skills/link", Got::Escapes),
                (Op::Mkdir, ".skills/link/x", Got::Escapes),
                (Op::Mkdir, ".skills/link/dir/x/y", Got::Escapes),
                // The link itself is seen, never followed.
                (Op::Stat, ".skills/link", Got::Stat(EntryKind::Other, len)),
                (
                    Op::List,
                    ".skills",
                    Got::List(vec![
                        DirEntry { name: "link".into(), kind: EntryKind::Other, size: len },
                        DirEntry { name: "pdf".into(), kind: EntryKind::Dir, size: dir_size },
                    ]),
                ),
            ],
        );
        assert!(!fx.outside.join("new.txt").exists());
        assert!(!fx.outside.join("newdir").exists());
        assert!(!fx.outside.join("x").exists());
    }
}

#[test]
fn a_file_symlink_to_the_canary_is_neither_read_nor_written() {
    for absolute in [true, false] {
        let fx = Fx::new();
        let target = if absolute { fx.secret() } else { PathBuf::from("../../../outside/secret.txt") };
        let len = fx.link(".skills/pdf/SKILL.md", &target);
        let sb = fx.sandbox();
        check_table(
            &fx,
            &sb,
            &[
                (Op::Read, ".skills/pdf/SKILL.md", Got::Escapes),
                (Op::Write, ".skills/pdf/SKILL.md", Got::Escapes),
                (Op::List, ".skills/pdf/SKILL.md", Got::Escapes),
                (Op::Mkdir, ".skills/pdf/SKILL.md", Got::Escapes),
                (Op::Mkdir, ".skills/pdf/SKILL.md/x", Got::Escapes),
                (Op::Stat, ".skills/pdf/SKILL.md", Got::Stat(EntryKind::Other, len)),
                (
                    Op::List,
                    ".skills/pdf",
                    Got::List(vec![DirEntry { name: "SKILL.md".into(), kind: EntryKind::Other, size: len }]),
                ),
            ],
        );
    }
}

#[test]
fn a_skills_folder_that_is_itself_a_symlink_to_outside_is_refused_and_nothing_is_created_there() {
    for absolute in [true, false] {
        let fx = Fx::new();
        let target = if absolute { fx.outside.join("dir") } else { PathBuf::from("../outside/dir") };
        let len = fx.link(".skills", &target);
        let sb = fx.sandbox();
        check_table(
            &fx,
            &sb,
            &[
                (Op::Read, ".skills/inner.txt", Got::Escapes),
                (Op::Read, ".skills", Got::Escapes),
                (Op::Write, ".skills/inner.txt", Got::Escapes),
                (Op::Write, ".skills/new.txt", Got::Escapes),
                (Op::Write, ".skills/pdf/SKILL.md", Got::Escapes),
                (Op::Write, ".skills", Got::Escapes),
                (Op::Mkdir, ".skills", Got::Escapes),
                (Op::Mkdir, ".skills/x", Got::Escapes),
                (Op::Mkdir, ".skills/pdf/references", Got::Escapes),
                (Op::List, ".skills", Got::Escapes),
                (Op::Stat, ".skills/inner.txt", Got::Escapes),
                (Op::Stat, ".skills", Got::Stat(EntryKind::Other, len)),
            ],
        );
        let under: Vec<_> = fs::read_dir(fx.outside.join("dir")).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(under, [OsStr::new("inner.txt")]);
    }
}

/// Symlinks into the host's system folders. Only reads, listings and stats go through them: the test runs as
/// root on some machines, and a broken sandbox must not get to damage the host.
#[test]
fn symlinks_to_absolute_system_paths_are_refused() {
    let fx = Fx::new();
    let passwd_len = fx.link("passwd", "/etc/passwd");
    fx.link("etc", "/etc");
    fx.link("rootfs", "/");
    fx.link("proc-root", "/proc/self/root");
    fx.link("fds", "/proc/self/fd");
    fx.link("zero", "/dev/zero");
    let passwd_before = fs::read("/etc/passwd").ok();
    let sb = fx.sandbox();
    check_table(
        &fx,
        &sb,
        &[
            (Op::Read, "passwd", Got::Escapes),
            (Op::Read, "etc/passwd", Got::Escapes),
            (Op::Read, "rootfs/etc/passwd", Got::Escapes),
            (Op::Read, "proc-root/etc/passwd", Got::Escapes),
            (Op::Read, "fds/0", Got::Escapes),
            (Op::Read, "zero", Got::Escapes),
            (Op::List, "etc", Got::Escapes),
            (Op::List, "rootfs", Got::Escapes),
            (Op::List, "fds", Got::Escapes),
            (Op::Stat, "etc/passwd", Got::Escapes),
            (Op::Stat, "passwd", Got::Stat(EntryKind::Other, passwd_len)),
        ],
    );
    assert_eq!(fs::read("/etc/passwd").ok(), passwd_before);
}

#[test]
fn relative_symlinks_that_climb_out_are_refused() {
    let fx = Fx::new();
    let len = fx.link("climb", "../outside/secret.txt");
    fx.link("a/b/climb", "../../../outside/secret.txt");
    fx.link("up", "..");
    fx.link("a/up2", "../..");
    fx.link("dangling", "../outside/new.txt");
    fx.link("dangling-dir", "../outside/newdir");
    let sb = fx.sandbox();
    check_table(
        &fx,
        &sb,
        &[
            (Op::Read, "climb", Got::Escapes),
            (Op::Read, "a/b/climb", Got::Escapes),
            (Op::Read, "up/outside/secret.txt", Got::Escapes),
            (Op::Read, "a/up2/outside/secret.txt", Got::Escapes),
            (Op::Write, "climb", Got::Escapes),
            (Op::Write, "a/b/climb", Got::Escapes),
            (Op::Write, "up/outside/new.txt", Got::Escapes),
            (Op::Write, "up/outside/secret.txt", Got::Escapes),
            (Op::Write, "a/up2/outside/dir/new.txt", Got::Escapes),
            (Op::Write, "dangling", Got::Escapes),
            (Op::Write, "dangling-dir/new.txt", Got::Escapes),
            (Op::Mkdir, "dangling-dir", Got::Escapes),
            (Op::Mkdir, "dangling-dir/x", Got::Escapes),
            (Op::Mkdir, "up/outside/dir/x", Got::Escapes),
            (Op::List, "up", Got::Escapes),
            (Op::List, "up/outside", Got::Escapes),
            (Op::Stat, "up/outside/secret.txt", Got::Escapes),
            (Op::Stat, "climb", Got::Stat(EntryKind::Other, len)),
            (Op::Read, "dangling", Got::Escapes),
        ],
    );
    assert!(!fx.outside.join("new.txt").exists());
    assert!(!fx.outside.join("newdir").exists());
}

#[test]
fn a_chain_of_symlinks_ending_outside_is_refused() {
    let fx = Fx::new();
    let l1_len = fx.link("l1", "l2");
    fx.link("l2", fx.secret());
    fx.link("d1", "sub/d2");
    fx.link("sub/d2", "../d3");
    fx.link("d3", "../outside");
    fx.link(".skills/pdf/SKILL.md", "../../l1");
    let sb = fx.sandbox();
    check_table(
        &fx,
        &sb,
        &[
            (Op::Read, "l1", Got::Escapes),
            (Op::Read, ".skills/pdf/SKILL.md", Got::Escapes),
            (Op::Read, "d1/secret.txt", Got::Escapes),
            (Op::Write, "l1", Got::Escapes),
            (Op::Write, ".skills/pdf/SKILL.md", Got::Escapes),
            (Op::Write, "d1/new.txt", Got::Escapes),
            (Op::Write, "d1/dir/new.txt", Got::Escapes),
            (Op::List, "d1", Got::Escapes),
            (Op::List, "d1/dir", Got::Escapes),
            (Op::Mkdir, "d1/x", Got::Escapes),
            (Op::Stat, "d1/secret.txt", Got::Escapes),
            (Op::Stat, "l1", Got::Stat(EntryKind::Other, l1_len)),
        ],
    );
}

#[test]
fn symlink_loops_fail_without_hanging() {
    let fx = Fx::new();
    let len = fx.link("loop", "loop");
    fx.link("la", "lb");
    fx.link("lb", "la");
    fx.link(".skills/pdf", "../.skills/pdf");
    let sb = fx.sandbox();
    check_table(
        &fx,
        &sb,
        &[
            (Op::Read, "loop", Got::Escapes),
            (Op::Read, "la", Got::Escapes),
            (Op::Read, "la/x", Got::Escapes),
            (Op::Read, ".skills/pdf/SKILL.md", Got::Escapes),
            (Op::Write, "loop", Got::Escapes),
            (Op::Write, "la/x", Got::Escapes),
            (Op::Write, ".skills/pdf/SKILL.md", Got::Escapes),
            (Op::List, "loop", Got::Escapes),
            (Op::List, ".skills/pdf", Got::Escapes),
            (Op::Mkdir, "loop/x", Got::Escapes),
            (Op::Mkdir, ".skills/pdf", Got::Escapes),
            (Op::Stat, "loop", Got::Stat(EntryKind::Other, len)),
            (Op::Stat, "la/x", Got::Escapes),
        ],
    );
}

#[test]
fn symlinks_that_stay_inside_the_workspace_are_followed() {
    let fx = Fx::new();
    fs::create_dir_all(fx.ws.join("real")).unwrap();
    fs::write(fx.ws.join("real/f.txt"), b"inside\n").unwrap();
    let alias_len = fx.link("alias", "real");
    fx.link(".skills/pdf/ref.md", "../../real/f.txt");
    fx.link("a/up", "../real");
    fx.link("a/self", ".");
    let sb = fx.sandbox();
    let inside = || Got::Read(b"inside\n".to_vec());
    check_table(
        &fx,
        &sb,
        &[
            (Op::Read, "alias/f.txt", inside()),
            (Op::Read, ".skills/pdf/ref.md", inside()),
            (Op::Read, "a/up/f.txt", inside()),
            (Op::Read, "a/self/self/up/f.txt", inside()),
            (Op::Stat, "alias", Got::Stat(EntryKind::Other, alias_len)),
            (Op::Stat, "alias/f.txt", Got::Stat(EntryKind::File, 7)),
            (Op::List, "alias", Got::List(vec![DirEntry { name: "f.txt".into(), kind: EntryKind::File, size: 7 }])),
            (Op::Write, "alias/g.txt", Got::Wrote),
            (Op::Mkdir, "alias/sub", Got::Made),
        ],
    );
    assert_eq!(fs::read(fx.ws.join("real/g.txt")).unwrap(), PAYLOAD);
    assert!(fx.ws.join("real/sub").is_dir());
    // A final symlink is never written through, even one that stays inside.
    fx.link("f-link", "real/f.txt");
    check(&fx, &sb, Op::Write, "f-link", &Got::Escapes);
    assert_eq!(fs::read(fx.ws.join("real/f.txt")).unwrap(), b"inside\n");
    // `RESOLVE_BENEATH` refuses every absolute symlink, even one naming a folder of the workspace: safe.
    fx.link("abs-alias", fx.ws.join("real"));
    check(&fx, &sb, Op::Read, "abs-alias/f.txt", &Got::Escapes);
    check(&fx, &sb, Op::Write, "abs-alias/h.txt", &Got::Escapes);
    assert!(!fx.ws.join("real/h.txt").exists());
}

/// `create_dir_all` resolves each component beneath the folder before it rather than beneath the root, so a
/// symlink that climbs to a sibling folder (still inside the workspace) can be read through but not written
/// through.
#[test]
fn writing_through_an_inside_symlink_that_climbs_to_a_sibling_works_like_reading() {
    let fx = Fx::new();
    fs::create_dir_all(fx.ws.join("real")).unwrap();
    fx.link("a/up", "../real");
    let sb = fx.sandbox();
    check(&fx, &sb, Op::Mkdir, "a/up/sub", &Got::Made);
    check(&fx, &sb, Op::Write, "a/up/g.txt", &Got::Wrote);
    assert_eq!(fs::read(fx.ws.join("real/g.txt")).unwrap(), PAYLOAD);
}

#[test]
fn writing_an_existing_path_whose_last_part_links_outside_leaves_the_target_alone() {
    let fx = Fx::new();
    fs::write(fx.ws.join("plain.txt"), b"plain").unwrap();
    fx.link("notes.txt", fx.secret());
    fx.link("docs/readme.md", "../../outside/dir/inner.txt");
    fx.link("docs/new.md", fx.outside.join("created-by-write.md"));
    let sb = fx.sandbox();
    for path in ["notes.txt", "docs/readme.md", "docs/new.md"] {
        check(&fx, &sb, Op::Write, path, &Got::Escapes);
    }
    assert!(!fx.outside.join("created-by-write.md").exists());
    assert_eq!(fs::read(fx.outside.join("dir/inner.txt")).unwrap(), CANARY);
    // The link is still there and the plain file still writable.
    assert!(fs::symlink_metadata(fx.ws.join("notes.txt")).unwrap().file_type().is_symlink());
    check(&fx, &sb, Op::Write, "plain.txt", &Got::Wrote);
}

/// Runs `f` on another thread; `None` if it has not finished within `secs`.
fn within<T: Send + 'static>(secs: u64, f: impl FnOnce() -> T + Send + 'static) -> (Option<T>, mpsc::Receiver<T>) {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    (rx.recv_timeout(Duration::from_secs(secs)).ok(), rx)
}

fn mkfifo(path: &Path) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let status = Command::new("mkfifo").arg(path).status().expect("mkfifo runs");
    assert!(status.success(), "mkfifo {}", path.display());
}

#[test]
fn a_fifo_in_the_workspace_is_refused_promptly() {
    let mut fx = Fx::new();
    mkfifo(&fx.ws.join("pipe"));
    mkfifo(&fx.outside.join("pipe"));
    fx.rebase();
    fx.link(".skills/pdf/SKILL.md", "../../pipe");
    let out_len = fx.link("out-pipe", fx.outside.join("pipe"));
    let table = [
        (Op::Read, "pipe", Got::WrongKind("file")),
        (Op::Read, ".skills/pdf/SKILL.md", Got::WrongKind("file")),
        (Op::Read, "out-pipe", Got::Escapes),
        (Op::Stat, "pipe", Got::Stat(EntryKind::Other, 0)),
        (Op::List, "pipe", Got::WrongKind("folder")),
        (Op::Mkdir, "pipe", Got::WrongKind("folder")),
        (Op::Mkdir, "pipe/x", Got::WrongKind("folder")),
        (Op::Write, "pipe/x", Got::WrongKind("folder")),
        (Op::Write, "out-pipe", Got::Escapes),
        (Op::Stat, "out-pipe", Got::Stat(EntryKind::Other, out_len)),
        (Op::List, "out-pipe", Got::Escapes),
        (Op::Mkdir, "out-pipe", Got::Escapes),
    ];
    // Every attempt runs on another thread, so a regression that opens a FIFO blocking fails instead of hanging.
    let attempts: Vec<(Op, &str)> = table.iter().map(|(op, path, _)| (*op, *path)).collect();
    let ws = fx.ws.clone();
    let (got, _rx) = within(5, move || {
        let sb = Sandbox::open(&ws).unwrap();
        attempts.into_iter().map(|(op, path)| run(&sb, op, path)).collect::<Vec<_>>()
    });
    let got = got.expect("an operation on a FIFO hung");
    for ((op, path, expected), got) in table.iter().zip(&got) {
        assert_eq!(got, expected, "{op:?} {path:?}");
    }
    assert_eq!(got.len(), table.len());
    fx.assert_outside_untouched("the FIFO attempts");
}

/// Writing over a FIFO opens it for writing without `O_NONBLOCK`, which waits for a reader that never comes.
#[test]
fn writing_over_a_fifo_in_the_workspace_fails_promptly() {
    let fx = Fx::new();
    let fifo = fx.ws.join("pipe");
    mkfifo(&fifo);
    let ws = fx.ws.clone();
    let (got, rx) = within(5, move || run(&Sandbox::open(&ws).unwrap(), Op::Write, "pipe"));
    if got.is_none() {
        // Let the stuck writer go: open the other end and drain it.
        let drained = String::from_utf8_lossy(&fs::read(&fifo).unwrap()).into_owned();
        let late = rx.recv_timeout(Duration::from_secs(5));
        panic!("writing a FIFO hung until a reader came (then wrote {drained:?} and returned {late:?})");
    }
    assert_ne!(got, Some(Got::Wrote));
}

#[test]
fn a_hard_link_to_a_file_outside_is_never_written_through() {
    let mut fx = Fx::new();
    fs::hard_link(fx.secret(), fx.ws.join("linked.txt")).unwrap();
    fx.rebase();
    let sb = fx.sandbox();
    let err = sb.write("linked.txt", b"overwritten").unwrap_err();
    assert!(matches!(err, SandboxError::Io { .. }), "{err:?}");
    fx.assert_outside_untouched("writing through a hard link");
}
