//! The real binary against hostile files: `validate`, `list`, `cat` and `prompt` on pipes, links
//! out of a skill and oversized files. Every run has a deadline, so a reader that blocks fails.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use serde_json::Value;
use std::fs;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_skilldeck");

/// The store's limit for one file (the default upload limit).
const FILE_LIMIT: u64 = 32 << 20;

/// What a run printed and how it exited.
#[derive(Debug)]
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs `cmd`, killing it and failing the test when it has not exited within a minute.
fn run_within_a_minute(mut cmd: Command) -> Run {
    let mut child = cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let drain = |mut pipe: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut s = String::new();
            let _ = pipe.read_to_string(&mut s);
            s
        })
    };
    let out = drain(Box::new(child.stdout.take().unwrap()));
    let err = drain(Box::new(child.stderr.take().unwrap()));
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{cmd:?} did not exit within a minute: a reader blocked");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Run { code: status.code(), stdout: out.join().unwrap(), stderr: err.join().unwrap() }
}

/// A temp SKILLDECK_HOME and a folder for sources and files outside the store.
struct Env {
    tmp: tempfile::TempDir,
}

impl Env {
    fn new() -> Self {
        let env = Self { tmp: tempfile::tempdir().unwrap() };
        fs::create_dir_all(env.outside()).unwrap();
        fs::write(env.outside().join("secret.md"), "---\nname: pdf\ndescription: stolen\n---\nsecret\n").unwrap();
        env
    }

    fn outside(&self) -> PathBuf {
        self.tmp.path().join("outside")
    }

    fn run(&self, args: &[&str]) -> Run {
        let mut c = Command::new(BIN);
        c.args(args).env("SKILLDECK_HOME", self.tmp.path().join("home")).env_remove("SKILLDECK_TEST_CRASH_AT");
        run_within_a_minute(c)
    }

    /// Runs and expects exit `code`.
    fn expect(&self, args: &[&str], code: i32) -> Run {
        let run = self.run(args);
        assert_eq!(run.code, Some(code), "{args:?}: {run:#?}");
        run
    }

    /// A valid skill folder `src/pdf` outside the store.
    fn source(&self) -> PathBuf {
        let d = self.tmp.path().join("src/pdf");
        fs::create_dir_all(d.join("references")).unwrap();
        fs::write(d.join("SKILL.md"), "---\nname: pdf\ndescription: Extract text\n---\nbody\n").unwrap();
        fs::write(d.join("references/guide.md"), "guide").unwrap();
        d
    }

    /// The folder of the skill `pdf` imported into the store.
    fn stored(&self) -> PathBuf {
        let src = self.source();
        self.expect(&["import", src.to_str().unwrap()], 0);
        self.tmp.path().join("home/skills/user/pdf")
    }
}

fn mkfifo(path: &Path) {
    assert!(Command::new("mkfifo").arg(path).status().unwrap().success());
}

/// A hostile `SKILL.md`: a label, how to plant it (at the path, with the outside folder), the
/// diagnostic code it must get and words its message must hold.
type Hostile = (&'static str, fn(&Path, &Path), &'static str, &'static str);

/// Ways to make a skill's `SKILL.md` hostile, and the diagnostic each must get.
fn hostile_skill_mds() -> Vec<Hostile> {
    vec![
        (
            "a named pipe",
            |md, _| mkfifo(md),
            "skill_md_not_regular",
            "is a named pipe (FIFO), not a regular file; a skill holds only regular files, so replace it with one",
        ),
        (
            "a link to /dev/zero",
            |md, _| std::os::unix::fs::symlink("/dev/zero", md).unwrap(),
            "skill_md_not_regular",
            "is a symbolic link, and Skilldeck never follows links inside a skill",
        ),
        (
            "a link to a file outside",
            |md, outside| std::os::unix::fs::symlink(outside.join("secret.md"), md).unwrap(),
            "skill_md_not_regular",
            "is a symbolic link, and Skilldeck never follows links inside a skill",
        ),
        (
            "oversized (sparse)",
            |md, _| fs::File::create(md).unwrap().set_len(FILE_LIMIT + 1).unwrap(),
            "skill_md_too_large",
            "the limit for one file is 33554432 bytes, so shrink it or move it out of the skill",
        ),
    ]
}

/// The one diagnostic of the first report, as `(code, message)`.
fn only_diagnostic(json: &str) -> (String, String) {
    let v: Value = serde_json::from_str(json).unwrap();
    let d = v[0]["diagnostics"].as_array().unwrap();
    assert_eq!(d.len(), 1, "{v}");
    (d[0]["code"].as_str().unwrap().to_owned(), d[0]["message"].as_str().unwrap().to_owned())
}

#[test]
fn validate_refuses_hostile_skill_mds_without_hanging() {
    for (label, plant, code, says) in hostile_skill_mds() {
        let env = Env::new();
        let src = env.source();
        let md = src.join("SKILL.md");
        fs::remove_file(&md).unwrap();
        plant(&md, &env.outside());
        for target in [&src, &md] {
            let run = env.expect(&["validate", "--json", target.to_str().unwrap()], 1);
            let (got, message) = only_diagnostic(&run.stdout);
            assert_eq!(got, code, "{label}: {run:#?}");
            assert!(message.contains(says), "{label}: {message}");
        }
    }
}

#[test]
fn list_cat_and_prompt_refuse_hostile_stored_skill_mds_without_hanging() {
    for (label, plant, code, says) in hostile_skill_mds() {
        let env = Env::new();
        let md = env.stored().join("SKILL.md");
        fs::remove_file(&md).unwrap();
        plant(&md, &env.outside());
        let list: Value = serde_json::from_str(&env.expect(&["list", "--json", "--scope", "user"], 0).stdout).unwrap();
        let row = (list[0]["name"].as_str(), list[0]["valid"].as_bool(), list[0]["diagnostics"][0]["code"].as_str());
        assert_eq!(row, (Some("pdf"), Some(false), Some(code)), "{label}: {list}");
        let cat = env.expect(&["cat", "pdf"], 2);
        assert!(cat.stderr.contains(says) && cat.stdout.is_empty(), "{label}: {cat:#?}");
        assert!(!env.expect(&["prompt"], 0).stdout.contains("pdf"), "{label}: an invalid skill is never listed");
    }
}

#[test]
fn cat_never_follows_a_folder_link_out_of_the_skill() {
    let env = Env::new();
    let dir = env.stored();
    std::os::unix::fs::symlink("/etc", dir.join("etcdir")).unwrap();
    std::os::unix::fs::symlink(env.outside(), dir.join("references/more")).unwrap();
    for path in ["etcdir/passwd", "references/more/secret.md"] {
        let cat = env.expect(&["cat", "pdf", path], 2);
        let link = path.rsplit_once('/').unwrap().0;
        let says = format!("{link} is a symbolic link, and Skilldeck never follows links inside a skill");
        assert!(cat.stderr.contains(&says) && cat.stdout.is_empty(), "{path}: {cat:#?}");
    }
    // The skill itself stays valid and readable.
    assert_eq!(env.expect(&["cat", "pdf", "references/guide.md"], 0).stdout, "guide");
}

#[test]
fn cat_refuses_pipes_and_oversized_files_in_a_skill() {
    let env = Env::new();
    let dir = env.stored();
    mkfifo(&dir.join("references/pipe"));
    fs::File::create(dir.join("references/big.bin")).unwrap().set_len(FILE_LIMIT + 1).unwrap();
    let cases = [
        ("references/pipe", "references/pipe is a named pipe (FIFO), not a regular file"),
        ("references/big.bin", "references/big.bin is 33554433 bytes; the limit for one file is 33554432 bytes"),
    ];
    for (path, says) in cases {
        let cat = env.expect(&["cat", "pdf", path], 2);
        assert!(cat.stderr.contains(says) && cat.stdout.is_empty(), "{path}: {cat:#?}");
    }
    let list: Value = serde_json::from_str(&env.expect(&["list", "--json", "--scope", "user"], 0).stdout).unwrap();
    assert_eq!(list[0]["valid"], true, "files no reader needs do not make the skill invalid: {list}");
}

/// The first character of `text` a terminal acts on: a C0 control but line feed and tab, DEL,
/// or a C1 control (U+0080–U+009F; U+009B is a one-character CSI), with its offset.
fn raw_control(text: &str) -> Option<(usize, char)> {
    text.char_indices().find(|&(_, c)| (c.is_control() && c != '\n' && c != '\t') || ('\u{80}'..='\u{9f}').contains(&c))
}

/// Issue 42, item 4: a description written with YAML escapes (`"\e]52;c;…\a"` writes the
/// clipboard of the terminal that prints it; `\e[1A\e[2K` erases the line above; U+009B is CSI)
/// and a folder named with escapes reach no terminal raw: `list`, `show`, `prompt`, `find` and
/// `validate` print them as visible escapes, and `validate --strict` refuses the description.
#[test]
fn terminal_escapes_in_a_skill_are_shown_never_sent_to_the_terminal() {
    let env = Env::new();
    let src = env.tmp.path().join("src/clipboard");
    fs::create_dir_all(&src).unwrap();
    let md = "---\nname: clipboard\n\
              description: \"Formats PDF files.\\e]52;c;QkFTRTY0\\a\\x9b2K\\e[1A\\e[2Kx\"\n\
              compatibility: \"any\\e[8m\"\nlicense: \"MIT\\r\\e[2KGPL\"\n---\n\n# Steps\n\nRun it.\n";
    fs::write(src.join("SKILL.md"), md).unwrap();
    // A folder made by hand in the store, named with escapes (a source's `skills/\e[1A\e[2Kx/`).
    let hostile = env.tmp.path().join("home/skills/user/x\u{1b}[1A\u{1b}[2Ky");
    fs::create_dir_all(&hostile).unwrap();
    fs::write(hostile.join("SKILL.md"), "---\nname: x\ndescription: \"a\\e]0;title\\a\"\n---\nbody\n").unwrap();
    // Lenient import keeps the skill (a warning), so it is listed to models and shown.
    let import = env.expect(&["import", src.to_str().unwrap()], 0);
    let desc = "Formats PDF files.\\e]52;c;QkFTRTY0\\x07\\u{9B}2K\\e[1A\\e[2Kx";
    let runs = [
        (vec!["import", src.to_str().unwrap()], import, ""),
        (vec!["list"], env.expect(&["list"], 0), "Formats PDF files.\\e]52;c;QkFTRTY0\\x07\\u{9B}2K"),
        (vec!["show", "clipboard"], env.expect(&["show", "clipboard"], 0), desc),
        (vec!["prompt"], env.expect(&["prompt"], 0), desc),
        (vec!["find", "formats pdf files"], env.expect(&["find", "formats pdf files"], 0), desc),
        (vec!["validate", "--strict"], env.expect(&["validate", "--strict", src.to_str().unwrap()], 1), ""),
        (vec!["validate", "folder"], env.expect(&["validate", hostile.to_str().unwrap()], 1), "x\\e[1A\\e[2Ky"),
    ];
    for (args, run, shows) in &runs {
        for (stream, text) in [("stdout", &run.stdout), ("stderr", &run.stderr)] {
            assert_eq!(raw_control(text), None, "{args:?} {stream} holds a raw control character: {text:?}");
        }
        assert!(run.stdout.contains(shows), "{args:?} shows {shows:?}: {run:#?}");
    }
    let show = &runs[2].1.stdout;
    assert!(show.contains("compatibility: any\\e[8m") && show.contains("license: MIT\\r\\e[2KGPL"), "{show}");
    assert!(show.contains("warning[description_control_chars] line 3:"), "{show}");
    let list = &runs[1].1.stdout;
    assert!(list.lines().any(|l| l.starts_with("x\\e[1A\\e[2Ky") && l.contains("INVALID")), "{list}");
    // The listing a model gets: the same line as docs/contracts.md's, with the escapes visible.
    assert!(runs[3].1.stdout.contains(&format!("- **clipboard** (v:1): {desc}")), "{}", runs[3].1.stdout);
    // Strict validation refuses it, saying which character, where, and how to fix it.
    let strict = &runs[5].1.stdout;
    assert!(
        strict.contains(
            "error[description_control_chars] line 3: `description` holds the control character ESC (U+001B, shown \
             as \\e) and 4 more at character 19 of its value"
        ),
        "{strict}"
    );
    assert!(strict.contains("fix: Remove the control character"), "{strict}");
    let json = env.expect(&["validate", "--strict", "--json", src.to_str().unwrap()], 1);
    let v: Value = serde_json::from_str(&json.stdout).unwrap();
    let d = &v[0]["diagnostics"][0];
    assert_eq!(
        (d["code"].as_str(), d["line"].as_u64(), d["severity"].as_str()),
        (Some("description_control_chars"), Some(3), Some("error")),
        "{v}"
    );
    assert_eq!(d["args"]["char"], "U+001B", "{v}");
    // JSON keeps the text as written: a program reads the real characters, escaped by JSON.
    let list: Value = serde_json::from_str(&env.expect(&["list", "--json", "--scope", "user"], 0).stdout).unwrap();
    let row = list.as_array().unwrap().iter().find(|r| r["name"] == "clipboard").unwrap();
    assert!(row["description"].as_str().unwrap().contains("\u{1b}]52;c;QkFTRTY0\u{7}"), "{row}");
}
