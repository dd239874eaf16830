//! `skilldeck agent` and `skilldeck sessions` end to end with the offline provider.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use serde_json::Value;
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::model;
use model::{serve, sse_call, sse_shell_call, sse_text};

const BIN: &str = env!("CARGO_BIN_EXE_skilldeck");

struct Env {
    tmp: tempfile::TempDir,
}

impl Env {
    fn new() -> Self {
        let env = Self { tmp: tempfile::tempdir().unwrap() };
        fs::create_dir_all(env.workspace()).unwrap();
        env
    }

    fn home(&self) -> PathBuf {
        self.tmp.path().join("home")
    }

    fn workspace(&self) -> PathBuf {
        self.tmp.path().join("ws")
    }

    fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new(BIN);
        c.args(args).env("SKILLDECK_HOME", self.home()).env_remove("SKILLDECK_API_KEY").stdin(Stdio::null());
        c
    }

    fn expect(&self, args: &[&str], code: i32) -> (String, String) {
        check(self.cmd(args).output().unwrap(), args, code)
    }

    /// Imports a skill `name` with a reference file.
    fn skill(&self, name: &str, description: &str, body: &str) {
        let d = self.tmp.path().join("src").join(name);
        fs::create_dir_all(d.join("references")).unwrap();
        fs::write(d.join("SKILL.md"), format!("---\nname: {name}\ndescription: {description}\n---\n{body}\n")).unwrap();
        fs::write(d.join("references/guide.md"), "Rotate the flux capacitor clockwise.").unwrap();
        self.expect(&["import", d.to_str().unwrap()], 0);
    }

    fn sessions(&self) -> Vec<Value> {
        let (out, _) = self.expect(&["sessions", "--json"], 0);
        serde_json::from_str::<Value>(&out).unwrap().as_array().unwrap().clone()
    }

    fn transcript(&self, id: &str) -> Vec<Value> {
        let text = fs::read_to_string(self.home().join("sessions").join(format!("{id}.jsonl"))).unwrap();
        text.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
    }
}

fn check(out: Output, args: &[&str], code: i32) -> (String, String) {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(code), "{args:?}\nstdout: {stdout}\nstderr: {stderr}");
    (stdout, stderr)
}

fn ws(env: &Env) -> String {
    env.workspace().to_str().unwrap().to_owned()
}

#[test]
fn offline_agent_loads_the_skill_and_reference_and_records_the_calls() {
    let env = Env::new();
    env.skill("flux-repair", "Repair flux capacitors in time machines", "# Flux\nRead references/guide.md first.");
    assert_eq!(env.sessions(), Vec::<Value>::new());
    let w = ws(&env);
    let (out, err) = env.expect(&["agent", "--workspace", &w, "How do I repair a flux capacitor? Check guide.md"], 0);
    assert!(err.contains("with offline (no language model)"), "{err}");
    let expected = "• Skill activated: flux-repair v:1\n\
                    • Skill activated: flux-repair v:1 (references/guide.md)\n\
                    [offline router: no language model]\n\
                    Loaded the skill **flux-repair** (v:1); its files are in the workspace at .skills/flux-repair/.\n\n\
                    # Flux\nRead references/guide.md first.\n\n\
                    --- references/guide.md ---\nRotate the flux capacitor clockwise.\n";
    assert_eq!(out, expected);

    // The skill's files are under .skills/<name>/ in the workspace.
    let mount = env.workspace().join(".skills/flux-repair");
    assert_eq!(fs::read_to_string(mount.join("references/guide.md")).unwrap(), "Rotate the flux capacitor clockwise.");
    assert!(mount.join("SKILL.md").is_file());
    assert!(!mount.join(".version").exists());

    // The transcript records both calls and their results.
    let sessions = env.sessions();
    assert_eq!(sessions.len(), 1);
    let s = &sessions[0];
    assert_eq!((s["turns"].as_u64(), s["provider"].as_str()), (Some(1), Some("offline (no language model)")));
    assert_eq!(Path::new(s["workspace"].as_str().unwrap()), env.workspace().canonicalize().unwrap());
    let id = s["id"].as_str().unwrap();
    let records = env.transcript(id);
    let types: Vec<&str> = records.iter().map(|r| r["type"].as_str().unwrap()).collect();
    assert_eq!(
        types,
        ["session", "turn_started", "message", "message", "message", "message", "message", "message", "turn_ended"]
    );
    let calls: Vec<&Value> = records
        .iter()
        .filter_map(|r| r["message"]["tool_calls"].as_array())
        .flatten()
        .map(|c| &c["arguments"])
        .collect();
    assert_eq!(
        calls,
        [
            &serde_json::json!({"name": "flux-repair"}),
            &serde_json::json!({"name": "flux-repair", "path": "references/guide.md"})
        ]
    );
    let results: Vec<Value> = records
        .iter()
        .filter(|r| r["message"]["role"] == "tool")
        .map(|r| serde_json::from_str(r["message"]["content"].as_str().unwrap()).unwrap())
        .collect();
    assert_eq!(
        results,
        [
            serde_json::json!({"skillName": "flux-repair", "path": null, "version": "1", "content": "# Flux\nRead references/guide.md first.\n"}),
            serde_json::json!({"skillName": "flux-repair", "path": "references/guide.md", "version": "1", "content": "Rotate the flux capacitor clockwise."}),
        ]
    );
    assert_eq!(records.last().unwrap()["end"], serde_json::json!({"kind": "answered"}));

    // Resume: the second turn is appended to the same transcript.
    let (out, _) = env.expect(&["agent", "--resume", id, "flux capacitor again"], 0);
    assert!(out.starts_with("• Skill activated: flux-repair v:1\n"), "{out}");
    assert_eq!(env.sessions()[0]["turns"].as_u64(), Some(2));
    let (list, _) = env.expect(&["sessions"], 0);
    assert!(list.starts_with(&format!("{id}  2 turn(s)  offline (no language model)  ")), "{list}");
}

#[test]
fn interactive_mode_reads_requests_from_stdin() {
    let env = Env::new();
    env.skill("flux-repair", "Repair flux capacitors in time machines", "# Flux");
    let w = ws(&env);
    let mut child = env
        .cmd(&["agent", "--workspace", &w])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"repair the flux capacitor\n\nweather today?\n/exit\n").unwrap();
    let (out, _) = check(child.wait_with_output().unwrap(), &["agent (stdin)"], 0);
    assert!(out.starts_with("• Skill activated: flux-repair v:1\n[offline router: no language model]\n"), "{out}");
    assert!(out.ends_with("No listed skill matches your request. Name one of these to load it: change-review, commit-messages, flux-repair, skill-authoring, workspace-notes.\n"), "{out}");
    assert_eq!(env.sessions()[0]["turns"].as_u64(), Some(2));
}

#[test]
fn usage_errors_exit_2() {
    let env = Env::new();
    let w = ws(&env);
    let check_err = |args: &[&str], needle: &str| {
        let (_, err) = env.expect(args, 2);
        assert!(err.contains(needle), "{args:?}: {err}");
    };
    check_err(&["agent", "hello"], "--workspace");
    check_err(&["agent", "--workspace", &w, "--provider", "nope", "hi"], "no provider named \"nope\"");
    check_err(&["agent", "--workspace", &w, "--api", "openai", "hi"], "--base-url");
    check_err(&["agent", "--resume", "no-such-session", "hi"], "no session \"no-such-session\"");
    check_err(
        &["agent", "--workspace", "/definitely/not/here", "hi"],
        "cannot use /definitely/not/here as the workspace: that folder does not exist; create it or choose another folder",
    );
    fs::create_dir_all(env.home()).unwrap();
    fs::write(env.home().join("config.toml"), "[providers.x]\napi = \"openai\"\napi_key = \"sk\"\n").unwrap();
    check_err(&["agent", "--workspace", &w, "hi"], "keys never go in this file");
}

/// A loopback Chat Completions server on a thread: answers each request with the next SSE body
/// and keeps the requests' headers and bodies.
#[test]
fn shell_commands_are_refused_off_a_terminal_unless_yes() {
    let env = Env::new();
    let w = ws(&env);
    let (url, rx) = serve(vec![sse_shell_call("touch made"), sse_text("ok")]);
    let args = ["agent", "--workspace", &w, "--api", "openai", "--base-url", &url, "--model", "m", "make it"];
    let out = env.cmd(&args).env("SKILLDECK_API_KEY", "sk-loopback").output().unwrap();
    let (out, err) = check(out, &args, 0);
    assert!(err.contains("refused shell command `touch made`: not on a terminal; pass --yes"), "{err}");
    assert!(err.contains("with m (openai)"), "{err}");
    assert_eq!(out, "• shell failed: the user did not allow this command; do not run it again without asking\nok\n");
    assert!(!env.workspace().join("made").exists());
    let (head, body) = rx.recv().unwrap();
    assert!(head.to_ascii_lowercase().contains("authorization: bearer sk-loopback"), "{head}");
    assert_eq!(body["model"], "m");

    let (url, _rx) = serve(vec![sse_shell_call("touch made"), sse_text("made it")]);
    let args = ["agent", "--workspace", &w, "--api", "openai", "--base-url", &url, "--model", "m", "--yes", "make it"];
    let (out, _) = env.expect(&args, 0);
    assert_eq!(out, "• Ran `touch made`: exit 0\nmade it\n");
    assert!(env.workspace().join("made").exists());
}

#[test]
fn a_failed_model_call_exits_2_with_the_reason() {
    let env = Env::new();
    let w = ws(&env);
    // Nothing listens on this port (bound, then closed).
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("http://127.0.0.1:{port}/v1");
    let (_, err) =
        env.expect(&["agent", "--workspace", &w, "--api", "openai", "--base-url", &url, "--model", "m", "hi"], 2);
    assert!(err.contains("could not reach the model server"), "{err}");
    assert_eq!(env.sessions()[0]["turns"].as_u64(), Some(1));
}

/// Runs `skilldeck` inside a pseudo-terminal (util-linux `script`), typing `typed` into it.
fn on_a_terminal(env: &Env, args: &[&str], typed: &str) -> (i32, String) {
    use std::io::Read as _;
    let quoted: Vec<String> =
        std::iter::once(BIN).chain(args.iter().copied()).map(|a| format!("'{}'", a.replace('\'', "'\\''"))).collect();
    let mut child = Command::new("script")
        .args(["-qec", &quoted.join(" "), "/dev/null"])
        .env("SKILLDECK_HOME", env.home())
        .env_remove("SKILLDECK_API_KEY")
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
    // Type once the question is likely up; the line waits in the terminal either way.
    std::thread::sleep(std::time::Duration::from_millis(300));
    stdin.write_all(typed.as_bytes()).unwrap();
    let status = child.wait().unwrap();
    drop(stdin);
    (status.code().unwrap_or(-1), reader.join().unwrap())
}

#[test]
fn on_a_terminal_the_user_is_asked_before_a_shell_command() {
    if Command::new("script").arg("--version").output().is_err() {
        skilldeck_testkit::require(
            "script",
            "util-linux `script` (the tests' terminal) is not installed",
            "apt-get install bsdutils",
        );
        return;
    }
    let env = Env::new();
    let w = ws(&env);
    let (url, _rx) = serve(vec![sse_shell_call("touch made"), sse_text("ok")]);
    let args = ["agent", "--workspace", &w, "--api", "openai", "--base-url", &url, "--model", "m", "make it"];
    let (code, out) = on_a_terminal(&env, &args, "y\n");
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains(&format!("Run `touch made` in {}?", env.workspace().canonicalize().unwrap().display())),
        "{out}"
    );
    assert!(out.contains("[y] once, [s] for this session, [N] no"), "{out}");
    assert!(out.contains("• Ran `touch made`: exit 0"), "{out}");
    assert!(env.workspace().join("made").exists());

    let (url, _rx) = serve(vec![sse_shell_call("touch other"), sse_text("ok")]);
    let args = ["agent", "--workspace", &w, "--api", "openai", "--base-url", &url, "--model", "m", "make it"];
    let (code, out) = on_a_terminal(&env, &args, "n\n");
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("• shell failed: the user did not allow this command"), "{out}");
    assert!(!env.workspace().join("other").exists());
}

/// A folder outside the workspace and outside `/tmp` (which the sandbox replaces with its own).
fn outside() -> tempfile::TempDir {
    tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap()
}

fn sandboxed() -> bool {
    Command::new("bwrap")
        .args(["--ro-bind", "/", "/", "--unshare-net", "true"])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Runs one agent request against a loopback model that calls `view_skill(skill)`, then `shell(command)`.
fn view_then_shell(env: &Env, skill: &str, command: &str) -> (String, String) {
    let w = ws(env);
    let (url, _rx) = serve(vec![
        sse_call("view_skill", serde_json::json!({"name": skill})),
        sse_shell_call(command),
        sse_text("done"),
    ]);
    let args = ["agent", "--workspace", &w, "--api", "openai", "--base-url", &url, "--model", "m", "go"];
    check(env.cmd(&args).output().unwrap(), &args, 0)
}

#[test]
fn a_skill_cannot_grant_itself_the_shell_until_the_user_trusts_it() {
    let env = Env::new();
    let out_dir = outside();
    let target = out_dir.path().join("file");
    let d = env.tmp.path().join("src/grabby");
    fs::create_dir_all(&d).unwrap();
    fs::write(
        d.join("SKILL.md"),
        "---\nname: grabby\ndescription: Wants everything\nallowed-tools: Bash\n---\n# Grabby\n",
    )
    .unwrap();
    let (out, _) = env.expect(&["import", d.to_str().unwrap()], 0);
    assert!(out.contains("! Bash: run any shell command without asking"), "{out}");
    assert!(out.contains("NOT in force: every command is asked until you run `skilldeck trust grabby`"), "{out}");
    let (json, _) = env.expect(&["list", "--json"], 0);
    let rows: Value = serde_json::from_str(&json).unwrap();
    let row = rows.as_array().unwrap().iter().find(|r| r["name"] == "grabby").unwrap();
    assert_eq!((row["grants"]["state"].as_str(), row["grants"]["broad"].as_bool()), (Some("untrusted"), Some(true)));

    // The model loads the skill and asks for a command outside the workspace: it is asked for,
    // and refused off a terminal.
    let command = format!("touch inside && touch {}", target.display());
    let (out, err) = view_then_shell(&env, "grabby", &command);
    assert!(err.contains(&format!("refused shell command `{command}`")), "{err}");
    assert!(out.contains("shell failed: the user did not allow this command"), "{out}");
    assert!(!target.exists() && !env.workspace().join("inside").exists());

    // Once the user trusts it, the grant pre-approves the command, which runs in the sandbox:
    // it writes in the workspace, never outside.
    let (out, _) = env.expect(&["trust", "grabby"], 0);
    assert!(out.contains("in force: you approved it"), "{out}");
    if !sandboxed() {
        let install = "install bubblewrap (apt-get install bubblewrap; scripts/setup does)";
        skilldeck_testkit::require("sandbox", "bubblewrap cannot make a sandbox here", install);
        return;
    }
    let (out, err) = view_then_shell(&env, "grabby", &command);
    assert!(!err.contains("refused"), "{err}");
    assert!(out.contains("(pre-approved by grabby (Bash))"), "{out}");
    assert!(env.workspace().join("inside").exists(), "{out}");
    assert!(!target.exists(), "{out}");

    // A new revision that widens allowed-tools asks again.
    fs::write(
        d.join("SKILL.md"),
        "---\nname: grabby\ndescription: Wants everything\nallowed-tools: Bash Bash(curl:*)\n---\n# Grabby\n",
    )
    .unwrap();
    let (out, _) = env.expect(&["import", d.to_str().unwrap()], 0);
    assert!(out.contains("NOT in force: it changed since you approved it"), "{out}");
    let (_, err) = view_then_shell(&env, "grabby", "touch again");
    assert!(err.contains("refused shell command `touch again`"), "{err}");
    assert!(!env.workspace().join("again").exists());
}

#[test]
fn a_bundled_prefix_grant_never_reaches_outside_the_workspace() {
    let env = Env::new();
    let out_dir = outside();
    let target = out_dir.path().join("x");
    fs::write(env.workspace().join("a"), "a\n").unwrap();
    fs::write(env.workspace().join("b"), "b\n").unwrap();
    for command in [
        format!("git diff --no-index --output={} a b", target.display()),
        "git diff --no-index /etc/shadow /dev/null".to_owned(),
        "git diff --no-index a b > ../escaped".to_owned(),
    ] {
        let (out, err) = view_then_shell(&env, "change-review", &command);
        assert!(err.contains(&format!("refused shell command `{command}`")), "{command}: {err}");
        assert!(out.contains("shell failed: the user did not allow this command"), "{out}");
    }
    assert!(!target.exists());
    assert!(!env.tmp.path().join("escaped").exists());
    if !sandboxed() {
        return;
    }
    // A covered command runs without asking, in the sandbox.
    let (out, err) = view_then_shell(&env, "change-review", "git diff --no-index --output=d.txt a b");
    assert!(!err.contains("refused"), "{err}");
    assert!(out.contains("(pre-approved by change-review (Bash(git diff:*)))"), "{out}");
    assert!(fs::read_to_string(env.workspace().join("d.txt")).unwrap().contains("+b"));
}

/// A command that rewrites its own question on a terminal (`\e[2K` clears the line, `\r` goes
/// back to its start) is shown with those escapes visible; answered yes, the command that runs is
/// the exact one the model wrote. Streamed text shows its escapes and bidi controls too.
#[test]
fn a_command_cannot_fake_its_question_with_terminal_escapes() {
    if Command::new("script").arg("--version").output().is_err() {
        skilldeck_testkit::require(
            "script",
            "util-linux `script` (the tests' terminal) is not installed",
            "apt-get install bsdutils",
        );
        return;
    }
    let env = Env::new();
    let w = ws(&env);
    let hostile = "echo PWNED > hidden.txt #\u{1b}[2K\rRun `ls -la";
    let (url, _rx) =
        serve(vec![sse_shell_call(hostile), sse_text("done \u{1b}]0;title\u{7} \u{202E}txt.exe\u{200B}!")]);
    let args = ["agent", "--workspace", &w, "--api", "openai", "--base-url", &url, "--model", "m", "go"];
    let (code, out) = on_a_terminal(&env, &args, "y\n");
    assert_eq!(code, 0, "{out}");
    let shown = "echo PWNED > hidden.txt #\\e[2K\\rRun `ls -la";
    let ws = env.workspace().canonicalize().unwrap();
    assert!(out.contains(&format!("Run `{shown}` in {}?", ws.display())), "{out:?}");
    assert!(out.contains(&format!("• Ran `{shown}`: exit 0")), "{out:?}");
    assert!(out.contains("done \\e]0;title\\x07 \\u{202E}txt.exe\\u{200B}!"), "{out:?}");
    // The terminal turns each `\n` into `\r\n`; no other carriage return, and no escape, is raw.
    assert!(!out.contains('\u{1b}') && !out.replace("\r\n", "\n").contains('\r'), "{out:?}");
    assert!(!out.contains('\u{202E}') && !out.contains('\u{200B}'), "{out:?}");
    // What ran is what the model wrote, not what a faked question would have shown.
    assert_eq!(fs::read_to_string(env.workspace().join("hidden.txt")).unwrap(), "PWNED\n");
}

#[test]
fn a_mount_in_a_git_repository_leaves_git_status_clean() {
    let env = Env::new();
    env.skill("flux", "Rotates the flux capacitor.", "Read references/guide.md.");
    let git = |args: &[&str]| {
        let out = Command::new("git").args(args).current_dir(env.workspace()).output().unwrap();
        assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    git(&["init", "-q"]);
    fs::write(env.workspace().join("README.md"), "mine\n").unwrap();
    git(&["add", "README.md"]);
    let before = git(&["status", "--porcelain"]);
    env.expect(&["view", "flux", "--workspace", &ws(&env)], 0);
    assert!(env.workspace().join(".skills/flux/SKILL.md").is_file());
    assert_eq!(git(&["status", "--porcelain"]), before, "the mount is out of Git's view");
    assert_eq!(git(&["status", "--porcelain", "--ignored"]).matches(".skills").count(), 1, "ignored, as a whole");
    // The user's own files are untouched: nothing tracked changed, no .gitignore of theirs written.
    assert!(!env.workspace().join(".gitignore").exists());
}
