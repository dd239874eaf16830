//! `-v`: the events a bug report needs go to stderr, never a secret or a skill's text; without
//! `-v` nothing changes, and the CLI writes no log file.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use skilldeck_sources::testing::{GitHttpServer, GitRepo};
use std::path::Path;
use std::process::{Command, Output};

/// A token that must appear in no output.
const TOKEN: &str = "ghp_logtokenlogtoken0123456789";
/// A line of a skill's body that must appear in no log line.
const BODY: &str = "BODY-MARKER-do-not-log-7f3a91";
/// An API key in the environment that must appear in no output.
const API_KEY: &str = "sk-ant-LOGLEAKTESTKEY0123456789";

fn skilldeck(home: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_skilldeck"))
        .args(args)
        .env("SKILLDECK_HOME", home)
        .env_remove("SKILLDECK_LOG")
        .env("ANTHROPIC_API_KEY", API_KEY)
        .env("OPENAI_API_KEY", API_KEY)
        .env("GIT_TERMINAL_PROMPT", "0")
        .output()
        .unwrap()
}

/// The log lines of `stderr` (each starts with its UTC time), without the command's own output.
fn log_lines(stderr: &str) -> String {
    stderr
        .lines()
        .filter(|l| l.starts_with("20") && l.split(' ').next().is_some_and(|t| t.ends_with('Z')))
        .collect::<Vec<_>>()
        .join("\n")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn assert_no_secret(what: &str, s: &str) {
    assert!(!s.contains(TOKEN), "{what} shows the token:\n{s}");
    assert!(!s.contains(API_KEY), "{what} shows the API key:\n{s}");
    assert!(!s.contains(BODY), "{what} shows the skill's body:\n{s}");
}

/// A Git repository over HTTP holding one skill whose body is `BODY`.
fn served_repo() -> (GitRepo, tempfile::TempDir, GitHttpServer) {
    let repo = GitRepo::new().unwrap();
    repo.write(
        "skills/leaky/SKILL.md",
        format!("---\nname: leaky\ndescription: A skill whose body must stay out of logs.\n---\n\n{BODY}\n"),
    )
    .unwrap();
    repo.commit("leaky").unwrap();
    let root = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(repo.bare(), root.path().join("repo.git")).unwrap();
    let server = GitHttpServer::start(root.path(), None).unwrap();
    (repo, root, server)
}

#[test]
fn verbose_add_logs_the_events_but_no_token_key_or_skill_text() {
    let (_repo, _root, server) = served_repo();
    // A token written as the URL's user name: sent for this fetch, masked in every line.
    let url = server.url("repo.git").replacen("http://", &format!("http://{TOKEN}@"), 1);
    let home = tempfile::tempdir().unwrap();

    // A password in the URL is refused; the refusal is logged, the password is not.
    let with_password = server.url("repo.git").replacen("http://", &format!("http://user:{TOKEN}@"), 1);
    let out = skilldeck(home.path(), &["-v", "add", &with_password, "--all"]);
    let stderr = text(&out.stderr);
    assert!(!out.status.success() && stderr.contains("ERROR") && stderr.contains("command failed"), "{stderr}");
    assert_no_secret("stderr", &stderr);

    let out = skilldeck(home.path(), &["-v", "add", &url, "--all"]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{stdout}{stderr}");
    assert!(home.path().join("skills/user/leaky/SKILL.md").is_file(), "{stdout}{stderr}");
    for expected in ["skilldeck started", "source fetched", "skill written", "skill=leaky", "import finished"] {
        assert!(stderr.contains(expected), "no {expected:?} in the log:\n{stderr}");
    }
    assert!(stderr.contains("command{name=\"add\"}"), "the command's span names it:\n{stderr}");
    assert!(stderr.contains("fetch{source=http://127.0.0.1:"), "the source is shown without its token:\n{stderr}");
    assert_no_secret("stdout", &stdout);
    assert_no_secret("stderr", &stderr);

    // Debug level and the store's reads of the skill (list, show, audit) leak nothing either.
    for args in [&["-vv", "list"][..], &["-vv", "show", "leaky"], &["-vv", "audit", "leaky"], &["-vv", "cat", "leaky"]]
    {
        let out = skilldeck(home.path(), args);
        assert_no_secret(&format!("{args:?}'s stderr"), &text(&out.stderr));
    }
    // `cat` prints the body on stdout, as it should: the check above is on the log alone.
}

#[test]
fn without_v_the_output_is_unchanged_and_no_log_file_is_written() {
    let home = tempfile::tempdir().unwrap();
    let skill = tempfile::tempdir().unwrap();
    let dir = skill.path().join("plain");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("SKILL.md"), format!("---\nname: plain\ndescription: A plain skill.\n---\n\n{BODY}\n"))
        .unwrap();

    let quiet = skilldeck(home.path(), &["import", dir.to_str().unwrap()]);
    assert!(quiet.status.success(), "{}", text(&quiet.stderr));
    assert_eq!(text(&quiet.stderr), "", "no log line without -v");

    let quiet = skilldeck(home.path(), &["list"]);
    let loud = skilldeck(home.path(), &["-v", "list"]);
    assert_eq!(quiet.stdout, loud.stdout, "-v changes stderr only");
    assert_eq!(text(&quiet.stderr), "");
    assert!(text(&loud.stderr).contains("skilldeck started"), "{}", text(&loud.stderr));

    // The import was logged with -v too, by name and revision only.
    let again = skilldeck(home.path(), &["-v", "import", dir.to_str().unwrap()]);
    let stderr = text(&again.stderr);
    assert!(stderr.contains("import unchanged") && stderr.contains("skill=plain"), "{stderr}");
    assert_no_secret("stderr", &stderr);

    // $SKILLDECK_LOG refines the filter: the store's debug events only.
    let out = Command::new(env!("CARGO_BIN_EXE_skilldeck"))
        .args(["-v", "list"])
        .env("SKILLDECK_HOME", home.path())
        .env("SKILLDECK_LOG", "off")
        .output()
        .unwrap();
    assert_eq!(text(&out.stderr), "", "SKILLDECK_LOG=off silences -v");

    assert!(!home.path().join("logs").exists(), "the CLI writes no log file");
}

/// A model server that refuses every request with 401, keeping what it was sent.
fn refusing_model_server() -> (String, std::thread::JoinHandle<String>) {
    use std::io::{Read as _, Write as _};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let handle = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        stream.set_read_timeout(Some(std::time::Duration::from_secs(5))).unwrap();
        let mut got = Vec::new();
        let mut buf = [0u8; 8192];
        while let Ok(n) = stream.read(&mut buf) {
            if n == 0 {
                break;
            }
            got.extend_from_slice(&buf[..n]);
            let text = String::from_utf8_lossy(&got);
            if let Some((head, body)) = text.split_once("\r\n\r\n") {
                let len = head
                    .lines()
                    .find_map(|l| l.to_ascii_lowercase().strip_prefix("content-length:").map(|v| v.trim().to_owned()))
                    .and_then(|v| v.parse::<usize>().ok())
                    .unwrap_or(0);
                if body.len() >= len {
                    break;
                }
            }
        }
        let body = "{\"error\":{\"message\":\"invalid key\"}}";
        let reply = format!(
            "HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        let _ = stream.write_all(reply.as_bytes());
        String::from_utf8_lossy(&got).into_owned()
    });
    (url, handle)
}

#[test]
fn a_model_call_is_logged_by_provider_model_and_status_never_by_key_or_prompt() {
    let home = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    let (url, server) = refusing_model_server();
    let prompt = "PROMPT-MARKER-please-summarise-91c2";
    let out = Command::new(env!("CARGO_BIN_EXE_skilldeck"))
        .args(["-vv", "agent", "--workspace", workspace.path().to_str().unwrap()])
        .args(["--api", "openai", "--base-url", &url, "--model", "test-model", prompt])
        .env("SKILLDECK_HOME", home.path())
        .env("SKILLDECK_API_KEY", API_KEY)
        .env_remove("SKILLDECK_LOG")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let sent = server.join().unwrap();
    assert!(sent.contains(API_KEY) && sent.contains(prompt), "the server got the key and prompt: {sent}");

    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    let log = log_lines(&stderr);
    assert!(log.contains("provider{kind=\"openai\" model=test-model}"), "{log}");
    assert!(log.contains("provider refused the request") && log.contains("status=401"), "{log}");
    assert!(!stderr.contains(API_KEY) && !text(&out.stdout).contains(API_KEY), "the key is shown:\n{stderr}");
    assert!(!log.contains(prompt), "the prompt is logged:\n{log}");
    // The provider's event carries the status, not its answer; the answer reaches the log only
    // as part of the error the user is shown (`command failed`), exactly as printed.
    let call = log.lines().find(|l| l.contains("provider refused the request")).unwrap();
    assert!(!call.contains("invalid key"), "{call}");
    // The skills listed to the model (the bundled ones' text) are in no log line either.
    let bundled = std::fs::read_to_string(home.path().join("skills/system/skill-authoring/SKILL.md")).unwrap();
    let line = bundled.lines().rev().find(|l| l.trim().len() > 30).unwrap();
    assert!(!log.contains(line.trim()), "a skill's text is logged: {line}");
}

#[test]
fn the_mcp_server_logs_its_start_and_each_tool_by_name_never_the_arguments_or_the_skill() {
    use std::io::{BufRead as _, Write as _};
    let home = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    let skill = tempfile::tempdir().unwrap();
    let dir = skill.path().join("leaky");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("SKILL.md"), format!("---\nname: leaky\ndescription: A leaky skill.\n---\n\n{BODY}\n"))
        .unwrap();
    assert!(skilldeck(home.path(), &["import", dir.to_str().unwrap()]).status.success());

    let mut child = Command::new(env!("CARGO_BIN_EXE_skilldeck"))
        .args(["-v", "mcp", "--workspace", workspace.path().to_str().unwrap()])
        .env("SKILLDECK_HOME", home.path())
        .env_remove("SKILLDECK_LOG")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#;
    writeln!(stdin, "{init}").unwrap();
    out.read_line(&mut line).unwrap();
    writeln!(stdin, r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#).unwrap();
    let call =
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"view_skill","arguments":{"name":"leaky"}}}"#;
    writeln!(stdin, "{call}").unwrap();
    line.clear();
    out.read_line(&mut line).unwrap();
    assert!(line.contains(BODY), "the skill reaches the client: {line}");
    drop(stdin);
    let status = child.wait().unwrap();
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert!(status.success(), "{stderr}");

    let log = log_lines(&stderr);
    assert!(log.contains("mcp server started") && log.contains("transport=\"stdio\""), "{log}");
    assert!(log.contains("mcp server stopped"), "{log}");
    let request = log.lines().find(|l| l.contains("mcp request")).unwrap_or_else(|| panic!("{log}"));
    assert!(request.contains("tool=view_skill") && !request.contains("leaky"), "{request}");
    assert_no_secret("stderr", &stderr);
}

#[test]
fn a_skilldeck_log_that_is_no_filter_is_said_and_the_default_used() {
    let home = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_skilldeck"))
        .args(["-v", "list"])
        .env("SKILLDECK_HOME", home.path())
        .env("SKILLDECK_LOG", "skilldeck=loud")
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("SKILLDECK_LOG is not a filter; using the default"), "{stderr}");
    assert!(stderr.contains("skilldeck started"), "the default filter is in force: {stderr}");
}
