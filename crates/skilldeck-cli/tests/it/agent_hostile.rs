//! `skilldeck agent` against a hostile model: a loopback OpenAI-compatible server whose scripted
//! replies try to turn a pre-approved grant, an unasked write or a chosen workspace into running
//! code the user never approved, or to flood a turn.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use serde_json::{Value, json};
use std::fs;
use std::io::Write as _;
use std::os::unix::fs::{PermissionsExt as _, symlink};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::model;
use model::{serve, sse_call, sse_calls, sse_text};

const BIN: &str = env!("CARGO_BIN_EXE_skilldeck");

struct Env {
    tmp: tempfile::TempDir,
}

impl Env {
    fn new() -> Self {
        let env = Self { tmp: tempfile::tempdir().unwrap() };
        fs::create_dir_all(env.workspace()).unwrap();
        fs::create_dir_all(env.user_home()).unwrap();
        env
    }

    /// Skilldeck's data folder.
    fn home(&self) -> PathBuf {
        self.tmp.path().join("data")
    }

    /// The user's home folder (`HOME`).
    fn user_home(&self) -> PathBuf {
        self.tmp.path().join("user")
    }

    fn workspace(&self) -> PathBuf {
        self.tmp.path().join("ws")
    }

    fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new(BIN);
        c.args(args)
            .env("SKILLDECK_HOME", self.home())
            .env("HOME", self.user_home())
            .env("SKILLDECK_API_KEY", "sk-loopback")
            .stdin(Stdio::null());
        c
    }

    /// One request to the scripted model `replies` in `workspace`: the exit code, stdout, stderr.
    fn agent_in(&self, workspace: &Path, replies: Vec<String>, extra: &[&str]) -> (Option<i32>, String, String) {
        let (url, _rx) = serve(replies);
        let w = workspace.to_str().unwrap();
        let mut args = vec!["agent", "--workspace", w, "--api", "openai", "--base-url", &url, "--model", "m"];
        args.extend_from_slice(extra);
        args.push("go");
        let out: Output = self.cmd(&args).output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    fn agent(&self, replies: Vec<String>, extra: &[&str]) -> (String, String) {
        let (code, out, err) = self.agent_in(&self.workspace(), replies, extra);
        assert_eq!(code, Some(0), "stdout: {out}\nstderr: {err}");
        (out, err)
    }

    fn transcripts_size(&self) -> u64 {
        fs::read_dir(self.home().join("sessions")).unwrap().map(|e| e.unwrap().metadata().unwrap().len()).sum()
    }
}

fn sandboxed() -> bool {
    Command::new("bwrap")
        .args(["--ro-bind", "/", "/", "--unshare-net", "true"])
        .output()
        .is_ok_and(|o| o.status.success())
}

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// A repository with one committed file, changed since.
fn repository(ws: &Path) {
    git(ws, &["init", "-q"]);
    fs::write(ws.join("f.txt"), "one\n").unwrap();
    git(ws, &["add", "f.txt"]);
    git(ws, &["commit", "-qm", "first"]);
    fs::write(ws.join("f.txt"), "two\n").unwrap();
}

#[test]
fn a_bundled_git_grant_does_not_run_what_the_repository_config_names() {
    if !sandboxed() {
        let why = "bubblewrap cannot make a sandbox here, so no grant pre-approves anything";
        skilldeck_testkit::require(
            "sandbox",
            why,
            "install bubblewrap (apt-get install bubblewrap; scripts/setup does)",
        );
        return;
    }
    let script =
        "#!/bin/sh\ntouch \"$(git rev-parse --show-toplevel 2>/dev/null || pwd)/pwned\"\ncat \"$1\" 2>/dev/null\n";
    for (config, attributes) in [
        ("[diff]\n\texternal = ./.git/x.sh\n", None),
        ("[core]\n\tfsmonitor = ./.git/x.sh\n", None),
        ("[diff \"evil\"]\n\ttextconv = ./.git/x.sh\n", Some("*.txt diff=evil\n")),
        ("[include]\n\tpath = extra\n", None),
    ] {
        let env = Env::new();
        let ws = env.workspace();
        repository(&ws);
        fs::write(ws.join(".git/x.sh"), script).unwrap();
        fs::set_permissions(ws.join(".git/x.sh"), fs::Permissions::from_mode(0o755)).unwrap();
        fs::write(ws.join(".git/extra"), "[diff]\n\texternal = ./.git/x.sh\n").unwrap();
        let mut text = fs::read_to_string(ws.join(".git/config")).unwrap();
        text.push_str(config);
        fs::write(ws.join(".git/config"), text).unwrap();
        if let Some(a) = attributes {
            fs::write(ws.join(".gitattributes"), a).unwrap();
        }
        let (out, err) = env.agent(
            vec![
                sse_call("view_skill", json!({"name": "change-review"})),
                sse_call("shell", json!({"command": "git diff"})),
                sse_text("done"),
            ],
            &[],
        );
        assert!(err.contains("refused shell command `git diff`"), "{config}: {err}\n{out}");
        assert!(!ws.join("pwned").exists(), "{config}: the repository's program ran pre-approved\n{out}");
    }

    // A plain clone's config runs nothing: the grant covers `git diff`, which runs unasked.
    let env = Env::new();
    repository(&env.workspace());
    let (out, err) = env.agent(
        vec![
            sse_call("view_skill", json!({"name": "change-review"})),
            sse_call("shell", json!({"command": "git diff"})),
            sse_text("done"),
        ],
        &[],
    );
    assert!(!err.contains("refused"), "{err}");
    assert!(out.contains("(pre-approved by change-review (Bash(git diff:*)))"), "{out}");

    // Nor does it cover an option that writes where git runs code from.
    let (_, err) = env.agent(
        vec![
            sse_call("view_skill", json!({"name": "change-review"})),
            sse_call("shell", json!({"command": "git diff --output=.git/hooks/post-checkout"})),
            sse_text("done"),
        ],
        &[],
    );
    assert!(err.contains("refused shell command `git diff --output=.git/hooks/post-checkout`"), "{err}");
    assert!(!env.workspace().join(".git/hooks/post-checkout").exists());
}

#[test]
fn write_file_makes_no_executable_and_asks_before_files_that_run_code_later() {
    let env = Env::new();
    let ws = env.workspace();
    fs::create_dir_all(ws.join(".git/hooks")).unwrap();
    symlink(".git/hooks", ws.join("hooks")).unwrap();
    let hook = "#!/bin/sh\ntouch /tmp/pwned\n";
    let asked = [
        ".git/hooks/pre-commit",
        ".GIT/config",
        "sub/.git/hooks/post-checkout",
        "hooks/pre-push",
        ".envrc",
        ".vscode/tasks.json",
        "Makefile",
        "package.json",
        ".skilldeck.toml",
    ];
    let mut calls: Vec<(&str, Value)> =
        asked.iter().map(|p| ("write_file", json!({"path": p, "content": hook}))).collect();
    calls.push(("write_file", json!({"path": "tools/run.sh", "content": hook})));
    let (out, err) = env.agent(vec![sse_calls(&calls), sse_text("done")], &[]);
    for p in asked {
        assert!(err.contains(&format!("refused writing `{p}`")), "{p}: {err}\n{out}");
        assert!(!ws.join(p).exists() || fs::read_to_string(ws.join(p)).unwrap() != hook, "{p} was written");
    }
    assert!(!ws.join(".git/hooks/pre-push").exists());
    // An ordinary file is written without asking, and is not executable though it starts with `#!`.
    let mode = fs::metadata(ws.join("tools/run.sh")).unwrap().permissions().mode();
    assert_eq!(mode & 0o111, 0, "tools/run.sh is executable: {mode:o}");

    // With --yes the hook is written, and still not executable: git will not run it.
    env.agent(
        vec![sse_call("write_file", json!({"path": ".git/hooks/pre-commit", "content": hook})), sse_text("ok")],
        &["--yes"],
    );
    let mode = fs::metadata(ws.join(".git/hooks/pre-commit")).unwrap().permissions().mode();
    assert_eq!(mode & 0o111, 0, "the hook is executable: {mode:o}");
}

#[test]
fn the_home_folder_and_folders_that_hold_it_or_secrets_are_refused_as_the_workspace() {
    let env = Env::new();
    let home = env.user_home();
    fs::create_dir_all(home.join(".ssh")).unwrap();
    fs::create_dir_all(env.home()).unwrap();
    for (dir, why) in [
        (home.clone(), "is your home folder"),
        (env.tmp.path().to_owned(), "holds your home folder"),
        (PathBuf::from("/"), "the whole file system"),
        (PathBuf::from("/etc"), "system folder"),
        (home.join(".ssh"), "secrets"),
        (env.home(), "Skilldeck's data folder"),
    ] {
        let (code, out, err) =
            env.agent_in(&dir, vec![sse_call("write_file", json!({"path": "trust.json", "content": "{}"}))], &[]);
        assert_ne!(code, Some(0), "{}: {out}", dir.display());
        assert!(err.contains(why) && err.contains("choose a project folder"), "{}: {err}", dir.display());
    }
    assert!(!home.join("trust.json").exists() && !env.home().join("trust.json").exists());

    // Inside a fit workspace, a symlink to Skilldeck's data folder leads nowhere.
    symlink(env.home(), env.workspace().join("data")).unwrap();
    let (out, _) = env.agent(
        vec![sse_call("write_file", json!({"path": "data/trust.json", "content": "{}"})), sse_text("ok")],
        &["--yes"],
    );
    assert!(out.contains("leads outside the workspace"), "{out}");
    assert!(!env.home().join("trust.json").exists());
}

#[test]
fn one_reply_of_400_calls_runs_at_most_the_cap_and_the_turn_stays_bounded() {
    let env = Env::new();
    fs::write(env.workspace().join("big.txt"), "x".repeat(256 * 1024)).unwrap();
    let calls: Vec<(&str, Value)> = (0..400).map(|_| ("read_file", json!({"path": "big.txt"}))).collect();
    let reply = sse_calls(&calls);
    let started = std::time::Instant::now();
    let (out, _) = env.agent(vec![reply.clone(), reply, sse_text("done")], &[]);
    let took = started.elapsed();
    assert!(out.contains("at most 64 tool calls"), "{}", &out[..out.len().min(2000)]);
    assert!(out.contains("over the 4194304-byte limit"), "{}", &out[..out.len().min(2000)]);
    let size = env.transcripts_size();
    assert!(size < 16 * 1024 * 1024, "the transcript is {size} bytes");
    eprintln!("two replies of 400 read_file calls: transcript {size} bytes, {took:?}");
}

/// Runs `skilldeck` inside a pseudo-terminal (util-linux `script`), typing `typed` into it.
fn on_a_terminal(env: &Env, args: &[&str], typed: &str) -> (i32, String) {
    use std::io::Read as _;
    let quoted: Vec<String> =
        std::iter::once(BIN).chain(args.iter().copied()).map(|a| format!("'{}'", a.replace('\'', "'\\''"))).collect();
    let mut child = Command::new("script")
        .args(["-qec", &quoted.join(" "), "/dev/null"])
        .env("SKILLDECK_HOME", env.home())
        .env("HOME", env.user_home())
        .env("SKILLDECK_API_KEY", "sk-loopback")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        stdout.read_to_string(&mut s).unwrap();
        s
    });
    std::thread::sleep(std::time::Duration::from_millis(300));
    stdin.write_all(typed.as_bytes()).unwrap();
    let status = child.wait().unwrap();
    drop(stdin);
    (status.code().unwrap_or(-1), reader.join().unwrap())
}

#[test]
fn on_a_terminal_the_user_is_asked_before_a_write_that_runs_code_later() {
    if Command::new("script").arg("--version").output().is_err() {
        skilldeck_testkit::require(
            "script",
            "util-linux `script` (the tests' terminal) is not installed",
            "apt-get install bsdutils",
        );
        return;
    }
    let env = Env::new();
    let w = env.workspace().to_str().unwrap().to_owned();
    for (typed, written) in [("n\n", false), ("y\n", true)] {
        let (url, _rx) = serve(vec![sse_call("write_file", json!({"path": ".envrc", "content": "x"})), sse_text("ok")]);
        let args = ["agent", "--workspace", &w, "--api", "openai", "--base-url", &url, "--model", "m", "go"];
        let (code, out) = on_a_terminal(&env, &args, typed);
        assert_eq!(code, 0, "{out}");
        assert!(out.contains("Write `.envrc` (1 bytes) in "), "{out}");
        assert!(out.contains("direnv runs .envrc"), "{out}");
        assert_eq!(env.workspace().join(".envrc").exists(), written, "{typed:?}: {out}");
    }
}
