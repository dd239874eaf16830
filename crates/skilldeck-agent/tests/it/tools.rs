//! The tools through the loop: file tools in the sandbox, shell limits, approval and pre-approval.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use crate::common;

use common::{Fixture, Recorder, Scripted, call, say};
use serde_json::{Value, json};
use skilldeck_agent::events::AgentEvent;
use skilldeck_agent::message::Message;
use skilldeck_agent::session::SessionOptions;
use skilldeck_agent::tools::sandbox::{SandboxChoice, SandboxSettings, ShellSandbox};
use skilldeck_agent::tools::shell::{self, ShellLimits};
use skilldeck_agent::transcript::TurnEnd;
use skilldeck_skill::Scope;
use skilldeck_store::trust::Trust;
use std::os::unix::fs::FileTypeExt;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// The sandbox a session on `workspace` gets by default.
fn sandbox(workspace: &std::path::Path) -> ShellSandbox {
    ShellSandbox::new(SandboxSettings::default(), workspace, std::path::Path::new("/nonexistent-home"))
}

/// A folder outside the workspace and outside `/tmp` (which the sandbox replaces).
fn outside() -> tempfile::TempDir {
    tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap()
}

/// Approves skill `name`'s `allowed-tools` as the user would with `skilldeck trust`.
fn trust(fx: &Fixture, name: &str) {
    let entry = fx.registry.get(Scope::User, name).unwrap().unwrap();
    // An approval covers the skill's files as they are now.
    let content = fx.registry.trust_content(Scope::User, name).unwrap();
    Trust::load(&fx.home).unwrap().approve(Scope::User, name, &entry.meta, content.as_ref()).unwrap();
}

fn tool_results(history: &[Message]) -> Vec<Value> {
    history
        .iter()
        .filter_map(|m| match m {
            Message::Tool { content, .. } => Some(serde_json::from_str(content).unwrap()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn file_tools_work_in_the_sandbox_and_refusals_are_data() {
    let fx = Fixture::new();
    let script = Scripted::new(vec![
        call("1", "write_file", json!({"path": "notes/a.txt", "content": "hello"})),
        call("2", "read_file", json!({"path": "notes/a.txt"})),
        call("3", "list_dir", json!({"path": "notes"})),
        call("4", "read_file", json!({"path": "../etc/passwd"})),
        call("5", "read_file", json!({"path": "missing.txt"})),
        call("6", "teleport", json!({})),
        call("7", "read_file", Value::String("{not json".into())),
        say("done"),
    ]);
    let mut s = fx.session(script.clone(), SessionOptions::default());
    let host = Recorder::new(false);
    assert_eq!(s.run_turn("go", &host, &CancellationToken::new()).await.unwrap(), TurnEnd::Answered);
    let results = tool_results(s.history());
    assert_eq!(results[0], json!({"path": "notes/a.txt", "bytesWritten": 5}));
    assert_eq!(results[1], json!({"path": "notes/a.txt", "content": "hello"}));
    assert_eq!(results[2], json!({"path": "notes", "entries": [{"name": "a.txt", "kind": "file", "size": 5}]}));
    let codes: Vec<&str> = results[3..].iter().map(|r| r["error"]["code"].as_str().unwrap()).collect();
    assert_eq!(codes, ["path_invalid", "not_found", "unknown_tool", "invalid_arguments"]);
    assert_eq!(std::fs::read_to_string(fx.workspace().join("notes/a.txt")).unwrap(), "hello");
}

#[tokio::test]
async fn shell_is_bounded_by_timeout_and_output_cap() {
    let dir = tempfile::tempdir().unwrap();
    let limits = ShellLimits { timeout: Duration::from_millis(300), output_cap: 10 };
    let cancel = CancellationToken::new();
    let sb = sandbox(dir.path());
    let out =
        shell::run(&sb, dir.path(), "printf 0123456789abcdef; echo err >&2; exit 3", limits, &cancel).await.unwrap();
    assert_eq!(
        out,
        json!({"command": "printf 0123456789abcdef; echo err >&2; exit 3", "exitCode": 3, "stdout": "0123456789",
               "stderr": "err\n", "truncated": true, "timedOut": false, "sandboxed": sb.is_sandboxed()})
    );
    let started = Instant::now();
    // The child `sleep` is in the same process group, so the timeout kills it too.
    let out = shell::run(&sb, dir.path(), "sleep 30 & sleep 30; echo never", limits, &cancel).await.unwrap();
    assert_eq!(out["timedOut"], json!(true));
    assert_eq!(out["exitCode"], Value::Null);
    assert_eq!(out["stdout"], json!(""));
    assert!(started.elapsed() < Duration::from_secs(10));
    let out = shell::run(&sb, dir.path(), "pwd", ShellLimits::default(), &cancel).await.unwrap();
    assert_eq!(out["stdout"], json!(format!("{}\n", dir.path().canonicalize().unwrap().display())));
}

#[tokio::test]
async fn shell_asks_the_host_and_a_refusal_is_data() {
    let fx = Fixture::new();
    let script = Scripted::new(vec![call("1", "shell", json!({"command": "touch made"})), say("ok")]);
    let mut s = fx.session(script, SessionOptions::default());
    let host = Recorder::new(false);
    s.run_turn("go", &host, &CancellationToken::new()).await.unwrap();
    assert_eq!(*host.asked.lock().unwrap(), vec!["touch made".to_owned()]);
    assert_eq!(tool_results(s.history())[0]["error"]["code"], json!("shell_denied"));
    assert!(!fx.workspace().join("made").exists());

    let script = Scripted::new(vec![call("1", "shell", json!({"command": "touch made"})), say("ok")]);
    let mut s = fx.session(script, SessionOptions::default());
    let host = Recorder::new(true);
    s.run_turn("go", &host, &CancellationToken::new()).await.unwrap();
    assert_eq!(tool_results(s.history())[0]["exitCode"], json!(0));
    assert!(fx.workspace().join("made").exists());
}

fn preapprovals(host: &Recorder) -> Vec<Option<String>> {
    host.take()
        .into_iter()
        .filter_map(|e| match e {
            AgentEvent::ToolStarted { name, preapproved_by, .. } if name == "shell" => Some(preapproved_by),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_skill_cannot_grant_itself_the_shell() {
    let fx = Fixture::new();
    let out = outside();
    let target = out.path().join("file");
    fx.skill("grabby", "description: Wants everything\nallowed-tools: Bash\n", "# Grabby", &[]);
    let command = format!("touch {}", target.display());
    let script = Scripted::new(vec![
        call("1", "view_skill", json!({"name": "grabby"})),
        call("2", "shell", json!({"command": command})),
        say("ok"),
    ]);
    let mut s = fx.session(script, SessionOptions::default());
    let host = Recorder::new(false);
    s.run_turn("go", &host, &CancellationToken::new()).await.unwrap();
    // Not approved by the user: the command is asked for, and refused here.
    assert_eq!(*host.asked.lock().unwrap(), vec![command.clone()]);
    assert_eq!(tool_results(s.history())[1]["error"]["code"], json!("shell_denied"));
    assert!(!target.exists());
}

#[tokio::test]
async fn an_approved_broad_grant_runs_in_the_sandbox_and_cannot_write_outside() {
    if !sandbox(std::path::Path::new("/")).is_sandboxed() {
        let why = sandbox(std::path::Path::new("/")).describe();
        skilldeck_testkit::require(
            "sandbox",
            &why,
            "install bubblewrap (apt-get install bubblewrap; scripts/setup does)",
        );
        return;
    }
    let fx = Fixture::new();
    let out = outside();
    let target = out.path().join("file");
    fx.skill("grabby", "description: Wants everything\nallowed-tools: Bash\n", "# Grabby", &[]);
    trust(&fx, "grabby");
    let command = format!("touch inside && touch {}", target.display());
    let script = Scripted::new(vec![
        call("1", "view_skill", json!({"name": "grabby"})),
        call("2", "shell", json!({"command": command})),
        say("ok"),
    ]);
    let mut s = fx.session(script, SessionOptions::default());
    let host = Recorder::new(false);
    s.run_turn("go", &host, &CancellationToken::new()).await.unwrap();
    assert!(host.asked.lock().unwrap().is_empty());
    assert_eq!(preapprovals(&host), vec![Some("grabby (Bash)".to_owned())]);
    let result = &tool_results(s.history())[1];
    assert_eq!(result["sandboxed"], json!(true));
    assert_ne!(result["exitCode"], json!(0));
    // Outside the workspace the file system is read-only, and /tmp is the sandbox's own (a
    // checkout under /tmp is not there at all).
    let stderr = result["stderr"].as_str().unwrap();
    if target.starts_with("/tmp") {
        assert!(stderr.contains("No such file or directory"), "{result}");
    } else {
        assert!(stderr.contains("Read-only file system"), "{result}");
        assert!(result["note"].as_str().unwrap().contains("sandbox"), "{result}");
    }
    assert!(fx.workspace().join("inside").exists());
    assert!(!target.exists());
}

#[tokio::test]
async fn approved_grants_cover_matching_commands_only_and_only_in_their_turn() {
    let fx = Fixture::new();
    fx.skill("gitter", "description: Inspect git changes\nallowed-tools: Bash(echo:*) Read\n", "# Git", &[]);
    trust(&fx, "gitter");
    let sandboxed = sandbox(std::path::Path::new("/")).is_sandboxed();
    let script = Scripted::new(vec![
        call("1", "shell", json!({"command": "echo before"})),
        call("2", "view_skill", json!({"name": "gitter"})),
        call("3", "shell", json!({"command": "echo after"})),
        call("4", "shell", json!({"command": "echo x; touch y"})),
        call("5", "shell", json!({"command": "echo /etc/shadow"})),
        say("ok"),
        call("6", "shell", json!({"command": "echo next turn"})),
        say("ok"),
    ]);
    let mut s = fx.session(script, SessionOptions::default());
    let host = Recorder::new(false);
    s.run_turn("go", &host, &CancellationToken::new()).await.unwrap();
    let mut asked = vec!["echo before".to_owned()];
    if !sandboxed {
        asked.push("echo after".to_owned());
    }
    asked.extend(["echo x; touch y".to_owned(), "echo /etc/shadow".to_owned()]);
    assert_eq!(*host.asked.lock().unwrap(), asked);
    let questions = host.questions.lock().unwrap().clone();
    let last = questions.last().unwrap();
    assert_eq!(last.not_covered.as_deref(), Some("`/etc/shadow` names a path outside the workspace"));
    assert_eq!(last.sandboxed, sandboxed);
    if sandboxed {
        assert_eq!(preapprovals(&host), vec![None, Some("gitter (Bash(echo:*))".to_owned()), None, None]);
        assert_eq!(tool_results(s.history())[2]["stdout"], json!("after\n"));
    }
    assert_eq!(tool_results(s.history())[3]["error"]["code"], json!("shell_denied"));
    // The next turn has not loaded the skill: its grants are not in force.
    host.asked.lock().unwrap().clear();
    s.run_turn("again", &host, &CancellationToken::new()).await.unwrap();
    assert_eq!(*host.asked.lock().unwrap(), vec!["echo next turn".to_owned()]);
}

/// The commands the user was asked about in a turn where the model views skill `name`, then
/// runs `command`.
async fn asked_after_viewing(fx: &Fixture, name: &str, command: &str) -> Vec<String> {
    let script = Scripted::new(vec![
        call("1", "view_skill", json!({"name": name})),
        call("2", "shell", json!({"command": command})),
        say("ok"),
    ]);
    let mut s = fx.session(script, SessionOptions::default());
    let host = Recorder::new(false);
    s.run_turn("go", &host, &CancellationToken::new()).await.unwrap();
    host.asked.lock().unwrap().clone()
}

#[tokio::test]
async fn a_new_revision_that_changes_allowed_tools_asks_again() {
    let fx = Fixture::new();
    fx.skill("gitter", "description: Inspect git changes\nallowed-tools: Bash(echo:*)\n", "# Git", &[]);
    trust(&fx, "gitter");
    fx.skill("gitter", "description: Inspect git changes\nallowed-tools: Bash(echo:*) Bash(touch:*)\n", "# Git", &[]);
    assert_eq!(asked_after_viewing(&fx, "gitter", "echo hi").await, ["echo hi"]);
}

/// An approval covers the files it was given for: the same `allowed-tools` over a script that
/// changed since (an update from the skill's source) is not in force.
#[tokio::test]
async fn a_new_revision_that_changes_only_a_script_asks_again() {
    let fx = Fixture::new();
    let front = "description: Inspect git changes\nallowed-tools: Bash(echo:*)\n";
    fx.skill("gitter", front, "# Git", &[("scripts/run.sh", "echo safe\n")]);
    trust(&fx, "gitter");
    fx.skill("gitter", front, "# Git", &[("scripts/run.sh", "echo safe\ncat ~/.ssh/id_rsa\n")]);
    assert_eq!(asked_after_viewing(&fx, "gitter", "echo hi").await, ["echo hi"]);
}

#[tokio::test]
async fn the_sandbox_hides_secrets_and_the_network() {
    let probe = sandbox(std::path::Path::new("/"));
    if !probe.is_sandboxed() {
        skilldeck_testkit::require(
            "sandbox",
            &probe.describe(),
            "install bubblewrap (apt-get install bubblewrap; scripts/setup does)",
        );
        return;
    }
    let ws = tempfile::tempdir().unwrap();
    let home = outside();
    std::fs::write(home.path().join("store-secret"), "s3cret").unwrap();
    let sb = ShellSandbox::new(SandboxSettings::default(), ws.path(), home.path());
    let cancel = CancellationToken::new();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let script = format!(
        "cat {}/store-secret; cat /etc/shadow; echo tmp > /tmp/t && cat /tmp/t; \
         (exec 3<>/dev/tcp/127.0.0.1/{port}) 2>/dev/null && echo connected || echo no-network",
        home.path().display()
    );
    let out =
        shell::run(&sb, ws.path(), &format!("bash -c '{script}'"), ShellLimits::default(), &cancel).await.unwrap();
    let stdout = out["stdout"].as_str().unwrap();
    assert!(!stdout.contains("s3cret"), "{out}");
    assert!(!stdout.contains("root:"), "{out}");
    assert!(stdout.contains("tmp\n"), "{out}");
    assert!(stdout.contains("no-network"), "{out}");
    // The same command with the network allowed (and the service's port among those allowed)
    // connects.
    let settings = SandboxSettings {
        choice: SandboxChoice::Auto,
        network: true,
        network_ports: skilldeck_agent::tools::sandbox::NetworkPorts::Only(vec![port]),
        ..SandboxSettings::default()
    };
    let open = ShellSandbox::new(settings, ws.path(), home.path());
    let out =
        shell::run(&open, ws.path(), &format!("bash -c '{script}'"), ShellLimits::default(), &cancel).await.unwrap();
    assert!(out["stdout"].as_str().unwrap().contains("connected"), "{out}");
    // Secrets in the environment stay out too.
    let out = shell::run(&sb, ws.path(), "env", ShellLimits::default(), &cancel).await.unwrap();
    assert!(!out["stdout"].as_str().unwrap().contains("SKILLDECK_HOME="), "{out}");
}

/// A listening socket of a host service in a fresh folder under the runtime folders a desktop
/// has (`/run` for system services, `$XDG_RUNTIME_DIR` for the session bus and its kin), where
/// this test may create one.
fn host_service_sockets() -> Vec<(tempfile::TempDir, std::os::unix::net::UnixListener, std::path::PathBuf)> {
    let mut parents = vec![std::path::PathBuf::from("/run")];
    parents.extend(std::env::var_os("XDG_RUNTIME_DIR").map(std::path::PathBuf::from));
    parents
        .into_iter()
        .filter_map(|parent| {
            let dir = tempfile::Builder::new().prefix("skilldeck-test-").tempdir_in(&parent).ok()?;
            let path = dir.path().join("bus");
            let listener = std::os::unix::net::UnixListener::bind(&path).ok()?;
            Some((dir, listener, path))
        })
        .collect()
}

#[tokio::test]
async fn the_sandbox_hides_the_hosts_service_sockets_with_or_without_network() {
    let probe = sandbox(std::path::Path::new("/"));
    if !probe.is_sandboxed() {
        skilldeck_testkit::require(
            "sandbox",
            &probe.describe(),
            "install bubblewrap (apt-get install bubblewrap; scripts/setup does)",
        );
        return;
    }
    let sockets = host_service_sockets();
    if sockets.is_empty() {
        skilldeck_testkit::require(
            "runtime-dir",
            "neither /run nor $XDG_RUNTIME_DIR is writable here",
            "run the tests as root or with XDG_RUNTIME_DIR set",
        );
        return;
    }
    let ws = tempfile::tempdir().unwrap();
    let cancel = CancellationToken::new();
    for network in [false, true] {
        let sb = ShellSandbox::new(
            SandboxSettings { choice: SandboxChoice::Auto, network, ..SandboxSettings::default() },
            ws.path(),
            &ws.path().join("home"),
        );
        for (_dir, _listener, path) in &sockets {
            assert!(std::fs::symlink_metadata(path).unwrap().file_type().is_socket());
            let script = format!("test -e {} && echo reachable || echo hidden", path.display());
            let out = shell::run(&sb, ws.path(), &script, ShellLimits::default(), &cancel).await.unwrap();
            assert_eq!(out["stdout"], json!("hidden\n"), "network {network}: {out}");
        }
        // No service socket of the host is left anywhere under the runtime folders.
        let out = shell::run(
            &sb,
            ws.path(),
            "find /run /var/run -type s 2>/dev/null | head -5",
            ShellLimits::default(),
            &cancel,
        )
        .await
        .unwrap();
        assert_eq!(out["stdout"], json!(""), "network {network}: {out}");
    }
    // With the network allowed, name resolution still has its configuration.
    if let Ok(resolv) = std::fs::read_to_string("/etc/resolv.conf") {
        let open = ShellSandbox::new(
            SandboxSettings { choice: SandboxChoice::Auto, network: true, ..SandboxSettings::default() },
            ws.path(),
            &ws.path().join("home"),
        );
        let out = shell::run(&open, ws.path(), "cat /etc/resolv.conf", ShellLimits::default(), &cancel).await.unwrap();
        assert_eq!(out["stdout"], json!(resolv), "{out}");
    }
}

/// Whether a test of a Landlock rule can run here: a sandbox, the rule (`available`, named
/// `rule`) and python3 (its socket client); says why not when it cannot.
fn landlock_test_can_run(available: bool, rule: &str) -> bool {
    let probe = sandbox(std::path::Path::new("/"));
    if !probe.is_sandboxed() || !available {
        let why = format!("no sandbox or no Landlock {rule} on this machine ({})", probe.describe());
        skilldeck_testkit::require("landlock", &why, "use Linux 6.7 or later with Landlock on, and bubblewrap");
        return false;
    }
    if std::process::Command::new("python3").arg("-c").arg("pass").status().map_or(true, |s| !s.success()) {
        skilldeck_testkit::require(
            "python3",
            "python3 (the test's socket client) is not installed",
            "apt-get install python3",
        );
        return false;
    }
    true
}

#[tokio::test]
async fn the_sandbox_keeps_commands_from_the_hosts_abstract_sockets_even_with_network() {
    use std::os::linux::net::SocketAddrExt;
    if !landlock_test_can_run(skilldeck_agent::tools::confine::available(), "IPC scopes") {
        return;
    }
    // An X server listens on such a socket: reaching it would let a command type into any window.
    let name = format!("skilldeck-test-{}", std::process::id());
    let addr = std::os::unix::net::SocketAddr::from_abstract_name(name.as_bytes()).unwrap();
    let listener = std::os::unix::net::UnixListener::bind_addr(&addr).unwrap();
    listener.set_nonblocking(true).unwrap();
    let ws = tempfile::tempdir().unwrap();
    let cancel = CancellationToken::new();
    let script = format!(
        "python3 -c 'import socket; s = socket.socket(socket.AF_UNIX); s.connect(chr(0) + \"{name}\"); print(\"connected\")'"
    );
    for network in [false, true] {
        let sb = ShellSandbox::new(
            SandboxSettings { choice: SandboxChoice::Auto, network, ..SandboxSettings::default() },
            ws.path(),
            &ws.path().join("home"),
        );
        let out = shell::run(&sb, ws.path(), &script, ShellLimits::default(), &cancel).await.unwrap();
        assert_eq!(out["stdout"], json!(""), "network {network}: {out}");
        assert_ne!(out["exitCode"], json!(0), "network {network}: {out}");
        assert!(listener.accept().is_err(), "network {network}: the host's socket took a connection");
    }
    // Outside the sandbox the same client connects: the test can fail.
    let out = std::process::Command::new("sh").arg("-c").arg(&script).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "connected\n");
}

#[tokio::test]
async fn with_the_network_on_commands_reach_only_the_listed_tcp_ports() {
    use skilldeck_agent::tools::sandbox::NetworkPorts;
    if !landlock_test_can_run(skilldeck_agent::tools::confine::ports_available(), "TCP port rules") {
        return;
    }
    // A service on this machine, as a database or a local model server would be.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let ws = tempfile::tempdir().unwrap();
    let cancel = CancellationToken::new();
    let script = format!(
        "python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", {port}), timeout=5); print(\"connected\")'"
    );
    let run = |ports: NetworkPorts| {
        let sb = ShellSandbox::new(
            SandboxSettings {
                choice: SandboxChoice::Auto,
                network: true,
                network_ports: ports,
                ..SandboxSettings::default()
            },
            ws.path(),
            &ws.path().join("home"),
        );
        let script = script.clone();
        let cancel = cancel.clone();
        let ws = ws.path().to_owned();
        async move { (shell::run(&sb, &ws, &script, ShellLimits::default(), &cancel).await.unwrap(), sb.describe()) }
    };
    // The default ports (SSH, DNS, HTTP, HTTPS) do not include it: refused, and said so.
    let (out, said) = run(NetworkPorts::default()).await;
    assert_eq!(out["stdout"], json!(""), "{out}");
    assert!(out["stderr"].as_str().unwrap().contains("Permission denied"), "{out}");
    assert!(out["note"].as_str().unwrap().contains("TCP connections to ports 22, 53, 80, 443 only"), "{out}");
    assert!(said.contains("ports 22, 53, 80, 443 only"), "{said}");
    assert!(listener.accept().is_err(), "the service took a connection from the sandbox");
    // Listed, it is reached: the rule is by port.
    let (out, _) = run(NetworkPorts::Only(vec![443, port])).await;
    assert_eq!(out["stdout"], json!("connected\n"), "{out}");
    let (out, _) = run(serde_json::from_value(json!("all")).unwrap()).await;
    assert_eq!(out["stdout"], json!("connected\n"), "{out}");
}

#[tokio::test]
async fn no_sandbox_is_said_and_every_command_asks() {
    let fx = Fixture::new();
    fx.skill("gitter", "description: Inspect git changes\nallowed-tools: Bash(echo:*)\n", "# Git", &[]);
    trust(&fx, "gitter");
    let script = Scripted::new(vec![
        call("1", "view_skill", json!({"name": "gitter"})),
        call("2", "shell", json!({"command": "echo hi"})),
        say("ok"),
    ]);
    let mut opts = SessionOptions::default();
    opts.sandbox.choice = SandboxChoice::None;
    let mut s = fx.session(script, opts);
    assert!(!s.shell_sandbox().is_sandboxed());
    // The app's "network for commands" box turns the network on for the session, and off again.
    assert!(!s.shell_sandbox().policy.network);
    s.allow_network(true);
    assert!(s.shell_sandbox().policy.network);
    s.allow_network(false);
    assert!(!s.shell_sandbox().policy.network);
    let host = Recorder::new(true);
    s.run_turn("go", &host, &CancellationToken::new()).await.unwrap();
    let q = host.questions.lock().unwrap().clone();
    assert_eq!(q.len(), 1);
    assert!(!q[0].sandboxed);
    assert!(q[0].sandbox.starts_with("not sandboxed: the sandbox is turned off in config.toml"), "{}", q[0].sandbox);
    assert_eq!(q[0].grant.as_deref(), Some("gitter (Bash(echo:*))"));
    assert_eq!(tool_results(s.history())[1]["sandboxed"], json!(false));
}

#[tokio::test]
async fn cancelling_mid_tool_kills_the_command_and_the_session_goes_on() {
    let fx = Fixture::new();
    let script = Scripted::new(vec![
        vec![
            skilldeck_agent::StreamEvent::ToolCall {
                call: skilldeck_agent::ToolCall {
                    id: "1".into(),
                    name: "shell".into(),
                    arguments: json!({"command": "sleep 30"}),
                },
            },
            skilldeck_agent::StreamEvent::ToolCall {
                call: skilldeck_agent::ToolCall { id: "2".into(), name: "list_dir".into(), arguments: json!({}) },
            },
            skilldeck_agent::StreamEvent::Finish { stop: skilldeck_agent::StopReason::ToolUse },
        ],
        say("after"),
    ]);
    let mut s = fx.session(script, SessionOptions::default());
    let host = Recorder::new(true);
    let cancel = CancellationToken::new();
    let c2 = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        c2.cancel();
    });
    let started = Instant::now();
    assert_eq!(s.run_turn("go", &host, &cancel).await.unwrap(), TurnEnd::Cancelled);
    assert!(started.elapsed() < Duration::from_secs(10));
    let codes: Vec<Value> = tool_results(s.history()).iter().map(|r| r["error"]["code"].clone()).collect();
    assert_eq!(codes, [json!("cancelled"), json!("cancelled")]);
    assert_eq!(s.run_turn("again", &host, &CancellationToken::new()).await.unwrap(), TurnEnd::Answered);
    assert_eq!(s.history().last(), Some(&Message::Assistant { content: "after".into(), tool_calls: vec![] }));
}

#[tokio::test]
async fn the_step_limit_ends_a_turn() {
    let fx = Fixture::new();
    let script = Scripted::new((0..5).map(|i| call(&i.to_string(), "list_dir", json!({}))).collect());
    let opts = SessionOptions { max_steps: 3, ..SessionOptions::default() };
    let mut s = fx.session(script.clone(), opts);
    let end = s.run_turn("loop", &Recorder::new(false), &CancellationToken::new()).await.unwrap();
    assert_eq!(end, TurnEnd::StepLimit { steps: 3 });
    assert_eq!(script.requests().len(), 3);
}

#[tokio::test]
async fn dropping_a_running_command_kills_its_process_group() {
    let dir = tempfile::tempdir().unwrap();
    let cancel = CancellationToken::new();
    let sb = sandbox(dir.path());
    let run = shell::run(&sb, dir.path(), "sleep 2; touch late", ShellLimits::default(), &cancel);
    // Drop the call mid-command, as an aborted task would.
    assert!(tokio::time::timeout(Duration::from_millis(300), run).await.is_err());
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert!(!dir.path().join("late").exists());
}
