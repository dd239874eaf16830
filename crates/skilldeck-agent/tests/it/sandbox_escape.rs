//! Escapes from the shell tool's OS sandbox, tried for real: secrets in the environment and the
//! home folder (where variables move them, behind links, with the home folder as the workspace),
//! TCP fast open and MPTCP around the port rule, Unix sockets with the network off, and the
//! resources a command may take. Each runs commands through `shell::run` as the agent does.
//!
//! Tests that need the process's own environment (`ShellSandbox::new` reads it, as sessions
//! do) run this binary again, with `SKILLDECK_ESCAPE_INNER` and the variables set, on one test:
//! the tests share a process and its environment otherwise.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use serde_json::{Value, json};
use skilldeck_agent::tools::host::HostEnv;
use skilldeck_agent::tools::limits::ResourceLimits;
use skilldeck_agent::tools::sandbox::{NetworkPorts, SandboxChoice, SandboxSettings, ShellSandbox};
use skilldeck_agent::tools::shell::{self, ShellLimits};
use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// Whether commands can be sandboxed here; says why not when they cannot.
fn can_sandbox() -> bool {
    let probe = ShellSandbox::new(SandboxSettings::default(), Path::new("/"), Path::new("/nonexistent"));
    if !probe.is_sandboxed() {
        skilldeck_testkit::require(
            "sandbox",
            &probe.describe(),
            "install bubblewrap (apt-get install bubblewrap; scripts/setup does)",
        );
    }
    probe.is_sandboxed()
}

fn has_python() -> bool {
    let ok = std::process::Command::new("python3").args(["-c", "pass"]).status().is_ok_and(|s| s.success());
    if !ok {
        skilldeck_testkit::require("python3", "python3 is not installed", "apt-get install python3");
    }
    ok
}

/// A folder outside `/tmp` (which the sandbox replaces).
fn scratch() -> tempfile::TempDir {
    tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap()
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

async fn run(sb: &ShellSandbox, ws: &Path, script: &str) -> Value {
    shell::run(sb, ws, script, ShellLimits::default(), &CancellationToken::new()).await.unwrap()
}

fn stdout(out: &Value) -> &str {
    out["stdout"].as_str().unwrap()
}

/// Whether this process is the one `rerun` started.
fn inner() -> bool {
    std::env::var_os("SKILLDECK_ESCAPE_INNER").is_some()
}

/// Runs test `name` of this binary again with `vars` set, and checks it passed.
fn rerun(name: &str, vars: &[(&str, std::ffi::OsString)]) {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([&skilldeck_testkit::test_name(module_path!(), name), "--exact", "--nocapture", "--test-threads=1"])
        .env("SKILLDECK_ESCAPE_INNER", "1")
        .envs(vars.iter().map(|(k, v)| (k, v)))
        .output()
        .unwrap();
    assert_inner_passed(&out);
}

/// Checks that the run of one inner test in `out` passed.
fn assert_inner_passed(out: &std::process::Output) {
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success() && text.contains("1 passed"), "{text}");
}

// ---- 5: secrets in the environment ----

#[test]
fn only_allow_listed_variables_reach_commands() {
    if !can_sandbox() {
        return;
    }
    let secrets = [
        ("DATABASE_URL", "postgres://u:SECRET@db/x"),
        ("GH_PAT", "SECRET-gh"),
        ("BW_SESSION", "SECRET-bw"),
        ("OP_SESSION_my", "SECRET-op"),
        ("MYSQL_PWD", "SECRET-mysql"),
        ("SENTRY_DSN", "https://SECRET@sentry.example/1"),
    ];
    let vars: Vec<(&str, std::ffi::OsString)> = secrets.iter().map(|(k, v)| (*k, (*v).into())).collect();
    rerun("inner_environment", &vars);
}

#[tokio::test]
async fn inner_environment() {
    if !inner() {
        return;
    }
    let ws = scratch();
    for choice in [SandboxChoice::Auto, SandboxChoice::None] {
        let settings = SandboxSettings { choice, ..SandboxSettings::default() };
        let sb = ShellSandbox::new(settings, ws.path(), &ws.path().join("sd"));
        let out = run(&sb, ws.path(), "env").await;
        assert!(!stdout(&out).contains("SECRET"), "{choice:?}: {out}");
        assert!(stdout(&out).contains("PATH="), "{choice:?}: {out}");
    }
}

#[tokio::test]
async fn variables_named_in_config_are_passed() {
    if !can_sandbox() {
        return;
    }
    let ws = scratch();
    let host = HostEnv::from_vars([("PATH", "/usr/bin:/bin"), ("MY_VAR", "mine"), ("OTHER_VAR", "SECRET")]);
    let settings = SandboxSettings { env: vec!["MY_VAR".into()], ..SandboxSettings::default() };
    let sb = ShellSandbox::with_host(settings, ws.path(), &ws.path().join("sd"), &host);
    let out = run(&sb, ws.path(), "env").await;
    assert!(stdout(&out).contains("MY_VAR=mine"), "{out}");
    assert!(!stdout(&out).contains("SECRET"), "{out}");
}

// ---- 5: secrets in files ----

/// A home folder full of secrets (each file holds `SECRET`), its toolchains, and secrets moved
/// out of it by variables; returns the variables pointing there.
struct SecretHome {
    _root: tempfile::TempDir,
    home: PathBuf,
    outside: PathBuf,
}

impl SecretHome {
    fn new() -> Self {
        let root = scratch();
        let home = root.path().join("home");
        let outside = root.path().join("outside");
        for (i, p) in [
            ".ssh/id_ed25519",
            ".claude.json",
            ".claude/.credentials.json",
            ".codex/auth.json",
            ".config/git/credentials",
            ".git-credentials",
            ".pgpass",
            ".my.cnf",
            ".cache/huggingface/token",
            ".kaggle/kaggle.json",
            ".config/sops/age/keys.txt",
            ".ollama/id_ed25519",
            ".cursor/mcp.json",
            ".bash_history",
            ".netrc",
            ".cargo/credentials.toml",
            ".aws/credentials",
        ]
        .iter()
        .enumerate()
        {
            write(&home.join(p), &format!("SECRET-{i}\n"));
        }
        write(&home.join("projects/private/notes.txt"), "PRIVATE notes\n");
        write(&home.join(".gitconfig"), "[user]\n\tname = Tester\n");
        write(&home.join(".cargo/config.toml"), "# cargo settings\n");
        write(&outside.join("claude/.credentials.json"), "SECRET-claude-moved\n");
        write(&outside.join("codex/auth.json"), "SECRET-codex-moved\n");
        write(&outside.join("xdg/gh/hosts.yml"), "SECRET-gh-moved\n");
        write(&outside.join("aws-credentials"), "SECRET-aws-moved\n");
        Self { _root: root, home, outside }
    }

    fn vars(&self) -> Vec<(&'static str, PathBuf)> {
        vec![
            ("HOME", self.home.clone()),
            ("CLAUDE_CONFIG_DIR", self.outside.join("claude")),
            ("CODEX_HOME", self.outside.join("codex")),
            ("XDG_CONFIG_HOME", self.outside.join("xdg")),
            ("AWS_SHARED_CREDENTIALS_FILE", self.outside.join("aws-credentials")),
        ]
    }

    fn os_vars(&self) -> Vec<(&'static str, std::ffi::OsString)> {
        self.vars().into_iter().map(|(k, v)| (k, v.into_os_string())).collect()
    }

    fn host(&self) -> HostEnv {
        let mut vars: Vec<(String, std::ffi::OsString)> =
            self.vars().into_iter().map(|(k, v)| (k.to_owned(), v.into_os_string())).collect();
        vars.push(("PATH".into(), std::env::var_os("PATH").unwrap()));
        HostEnv::from_vars(vars)
    }

    /// A script that prints every secret (and private file) it can read, then the settings it
    /// should read.
    fn probe(&self) -> String {
        format!(
            "grep -rhE 'SECRET|PRIVATE' {} {} 2>/dev/null; cat {}/.gitconfig {}/.cargo/config.toml; echo end",
            self.home.display(),
            self.outside.display(),
            self.home.display(),
            self.home.display()
        )
    }
}

fn check_probe(out: &Value) {
    assert!(!stdout(out).contains("SECRET"), "{out}");
    assert!(!stdout(out).contains("PRIVATE"), "{out}");
    assert!(stdout(out).contains("name = Tester"), "{out}");
    assert!(stdout(out).contains("# cargo settings"), "{out}");
    assert!(stdout(out).ends_with("end\n"), "{out}");
}

#[test]
fn the_home_folder_shows_only_toolchains_and_moved_secrets_stay_hidden() {
    if !can_sandbox() {
        return;
    }
    let h = SecretHome::new();
    let mut vars = h.os_vars();
    vars.push(("SKILLDECK_ESCAPE_PROBE", h.probe().into()));
    rerun("inner_home", &vars);
}

#[tokio::test]
async fn inner_home() {
    if !inner() {
        return;
    }
    let ws = scratch();
    let probe = std::env::var("SKILLDECK_ESCAPE_PROBE").unwrap();
    let sb = ShellSandbox::new(SandboxSettings::default(), ws.path(), &ws.path().join("sd"));
    check_probe(&run(&sb, ws.path(), &probe).await);
}

#[tokio::test]
async fn home_paths_in_config_are_readable() {
    if !can_sandbox() {
        return;
    }
    let h = SecretHome::new();
    write(&h.home.join("notes/todo.txt"), "buy milk\n");
    let ws = scratch();
    let settings = SandboxSettings { home_paths: vec!["~/notes".into()], ..SandboxSettings::default() };
    let sb = ShellSandbox::with_host(settings, ws.path(), &ws.path().join("sd"), &h.host());
    let out = run(&sb, ws.path(), &format!("cat {}/notes/todo.txt; {}", h.home.display(), h.probe())).await;
    assert!(stdout(&out).starts_with("buy milk\n"), "{out}");
    check_probe(&out);
}

// ---- 3: the masks hold whatever the workspace ----

#[test]
fn with_the_home_folder_as_workspace_secrets_and_skilldeck_home_stay_hidden() {
    if !can_sandbox() {
        return;
    }
    let h = SecretHome::new();
    rerun("inner_home_as_workspace", &h.os_vars());
}

#[tokio::test]
async fn inner_home_as_workspace() {
    if !inner() {
        return;
    }
    let home = PathBuf::from(std::env::var_os("HOME").unwrap());
    let skilldeck_home = home.join(".skilldeck");
    write(&skilldeck_home.join("config.toml"), "# SECRET-skilldeck\n");
    write(&skilldeck_home.join("trust.json"), "{\"SECRET\": 1}\n");
    for ws in [home.clone(), home.join("projects")] {
        let sb = ShellSandbox::new(SandboxSettings::default(), &ws, &skilldeck_home);
        let script = format!(
            "grep -rh SECRET {home} {sd} 2>/dev/null; touch {ws}/written && echo wrote",
            home = home.join(".ssh").display(),
            sd = skilldeck_home.display(),
            ws = ws.display()
        );
        let out = run(&sb, &ws, &script).await;
        assert_eq!(stdout(&out), "wrote\n", "workspace {}: {out}", ws.display());
        let out = run(&sb, &ws, &format!("cat {}/.claude.json {}/.pgpass", home.display(), home.display())).await;
        assert!(!stdout(&out).contains("SECRET"), "workspace {}: {out}", ws.display());
    }
}

// ---- 11: links, dangling links, files where folders are expected ----

#[test]
fn links_and_odd_files_at_secret_paths_neither_break_commands_nor_show_secrets() {
    use std::os::unix::fs::symlink;
    if !can_sandbox() {
        return;
    }
    let h = SecretHome::new();
    // ~/.ssh is a link into dotfiles, ~/.gnupg one out of the home folder; ~/.netrc dangles;
    // ~/.docker and ~/.kube are files where folders are expected; ~/.cargo links out of the
    // home folder, its credentials with it; ~/.gitconfig links into dotfiles.
    std::fs::remove_dir_all(h.home.join(".ssh")).unwrap();
    write(&h.home.join("dotfiles/ssh/id_rsa"), "SECRET-dotfiles-ssh\n");
    symlink("dotfiles/ssh", h.home.join(".ssh")).unwrap();
    write(&h.outside.join("gnupg/private-keys-v1.d/k.key"), "SECRET-gnupg\n");
    symlink(h.outside.join("gnupg"), h.home.join(".gnupg")).unwrap();
    std::fs::remove_file(h.home.join(".netrc")).unwrap();
    symlink("nowhere/netrc", h.home.join(".netrc")).unwrap();
    write(&h.home.join(".docker"), "SECRET-docker-file\n");
    write(&h.home.join(".kube"), "SECRET-kube-file\n");
    let cargo = h.outside.join("cargo");
    std::fs::rename(h.home.join(".cargo"), &cargo).unwrap();
    symlink(&cargo, h.home.join(".cargo")).unwrap();
    std::fs::rename(h.home.join(".gitconfig"), h.home.join("dotfiles/gitconfig")).unwrap();
    symlink("dotfiles/gitconfig", h.home.join(".gitconfig")).unwrap();
    let script = format!(
        "cat {o}/cargo/credentials.toml {o}/gnupg/private-keys-v1.d/k.key {h}/.ssh/id_rsa 2>/dev/null; {p}",
        o = h.outside.display(),
        h = h.home.display(),
        p = h.probe()
    );
    let mut vars = h.os_vars();
    vars.push(("SKILLDECK_ESCAPE_PROBE", script.into()));
    rerun("inner_links", &vars);
}

#[tokio::test]
async fn inner_links() {
    if !inner() {
        return;
    }
    let home = PathBuf::from(std::env::var_os("HOME").unwrap());
    let probe = std::env::var("SKILLDECK_ESCAPE_PROBE").unwrap();
    let ws = scratch();
    for workspace in [ws.path(), home.as_path()] {
        let sb = ShellSandbox::new(SandboxSettings::default(), workspace, &ws.path().join("sd"));
        let out = run(&sb, workspace, &probe).await;
        assert_eq!(out["exitCode"], json!(0), "workspace {}: {out}", workspace.display());
        if workspace == home {
            // The home folder as the workspace shows its own files, but no secret.
            assert!(!stdout(&out).contains("SECRET"), "{out}");
            assert!(stdout(&out).ends_with("end\n"), "{out}");
        } else {
            check_probe(&out);
        }
    }
}

// ---- descriptors the process inherited ----

/// Runs test `name` of this binary again from bash, with descriptors 8 (the folder `home`),
/// 9 and 12 (the file `log`, appending) left open without close-on-exec, as a shell's
/// `exec 8<~` or a desktop session leaves them.
fn rerun_with_descriptors(name: &str, home: &Path, log: &Path) {
    let out = std::process::Command::new("bash")
        .args(["-c", r#"exec 8<"$1" 9>>"$2" 12>>"$2"; exec "$0" "$3" --exact --nocapture --test-threads=1"#])
        .arg(std::env::current_exe().unwrap())
        .arg(home)
        .arg(log)
        .arg(skilldeck_testkit::test_name(module_path!(), name))
        .env("SKILLDECK_ESCAPE_INNER", "1")
        .env("ESCAPE_HOME", home)
        .output()
        .unwrap();
    assert_inner_passed(&out);
}

#[test]
fn no_inherited_descriptor_reaches_a_command() {
    if !can_sandbox() {
        return;
    }
    let root = scratch();
    let home = root.path().join("home");
    write(&home.join(".ssh/id_rsa"), "SECRET-key\n");
    write(&home.join(".bashrc"), "# rc\n");
    let log = root.path().join("log");
    write(&log, "");
    rerun_with_descriptors("inner_inherited_descriptors", &home, &log);
    assert_eq!(std::fs::read_to_string(home.join(".bashrc")).unwrap(), "# rc\n");
    assert_eq!(std::fs::read_to_string(&log).unwrap(), "", "a command wrote through an inherited descriptor");
}

#[tokio::test]
async fn inner_inherited_descriptors() {
    if !inner() {
        return;
    }
    let home = PathBuf::from(std::env::var_os("ESCAPE_HOME").unwrap());
    // The descriptors are really there in this process, pointing where the outer test opened them.
    assert_eq!(std::fs::read_link("/proc/self/fd/8").unwrap(), home);
    let ws = scratch();
    let script = "ls /proc/self/fd; cat /proc/self/fd/8/.ssh/id_rsa; echo pwned >> /proc/self/fd/8/.bashrc; \
                  echo pwned >&9; echo pwned >> /proc/self/fd/12; true";
    for choice in [SandboxChoice::Auto, SandboxChoice::None] {
        let settings = SandboxSettings { choice, ..SandboxSettings::default() };
        let sb = ShellSandbox::new(settings, ws.path(), &ws.path().join("sd"));
        let out = run(&sb, ws.path(), script).await;
        assert!(!stdout(&out).contains("SECRET"), "{choice:?}: {out}");
        let fds: Vec<&str> = stdout(&out).lines().take_while(|l| l.parse::<u32>().is_ok()).collect();
        assert!(fds.iter().all(|fd| fd.parse::<u32>().unwrap() <= 3), "{choice:?}: descriptors {fds:?} reached it");
    }
}

// ---- 6: around the TCP port rule ----

/// A TCP service on 127.0.0.1 answering `pong` to what it reads; what it read, by connection.
fn pong_server() -> (u16, std::sync::mpsc::Receiver<Vec<u8>>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for mut conn in listener.incoming().flatten() {
            conn.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
            let mut buf = [0u8; 64];
            let n = conn.read(&mut buf).unwrap_or(0);
            let _ = conn.write_all(b"pong");
            let _ = tx.send(buf[..n].to_vec());
        }
    });
    (port, rx)
}

async fn with_ports_limited(script: &str) -> Value {
    let ws = scratch();
    let settings =
        SandboxSettings { network: true, network_ports: NetworkPorts::Only(vec![443]), ..SandboxSettings::default() };
    let sb = ShellSandbox::new(settings, ws.path(), &ws.path().join("sd"));
    run(&sb, ws.path(), script).await
}

fn ports_test_can_run() -> bool {
    if !can_sandbox() || !has_python() {
        return false;
    }
    if !skilldeck_agent::tools::confine::ports_available() {
        skilldeck_testkit::require(
            "landlock",
            "this kernel has no Landlock TCP port rules",
            "use Linux 6.7 or later with Landlock on",
        );
        return false;
    }
    true
}

#[tokio::test]
async fn tcp_fast_open_does_not_reach_an_unlisted_port() {
    if !ports_test_can_run() {
        return;
    }
    let (port, got) = pong_server();
    let client = format!(
        "import socket\ns = socket.socket()\ns.sendto(b'ping', socket.MSG_FASTOPEN, ('127.0.0.1', {port}))\ns.settimeout(3)\nprint(s.recv(4))"
    );
    let out = with_ports_limited(&format!("python3 -c \"{client}\"")).await;
    assert!(!stdout(&out).contains("pong"), "{out}");
    assert!(got.recv_timeout(Duration::from_millis(500)).is_err(), "the service heard from the sandbox: {out}");
    // Outside the sandbox the same client is answered: the test can fail.
    let host = std::process::Command::new("python3").args(["-c", &client]).output().unwrap();
    assert!(String::from_utf8_lossy(&host.stdout).contains("pong"), "{host:?}");
}

#[tokio::test]
async fn tcp_fast_open_connect_and_mptcp_do_not_reach_an_unlisted_port() {
    if !ports_test_can_run() {
        return;
    }
    let (port, got) = pong_server();
    let mptcp = format!(
        "import socket\ns = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 262)\ns.settimeout(3)\ns.connect(('127.0.0.1', {port}))\ns.send(b'ping')\nprint(s.recv(4))"
    );
    let fastopen_connect = format!(
        "import socket\ns = socket.socket()\ns.settimeout(3)\ns.setsockopt(socket.IPPROTO_TCP, 30, 1)\ns.connect(('127.0.0.1', {port}))\ns.send(b'ping')\nprint(s.recv(4))"
    );
    for client in [mptcp, fastopen_connect] {
        let out = with_ports_limited(&format!("python3 -c \"{client}\"")).await;
        assert!(!stdout(&out).contains("pong"), "{out}");
        assert!(got.recv_timeout(Duration::from_millis(500)).is_err(), "the service heard from the sandbox: {out}");
    }
    // Listed, the port is reached by a plain client: the rule is by port.
    let ws = scratch();
    let settings =
        SandboxSettings { network: true, network_ports: NetworkPorts::Only(vec![port]), ..SandboxSettings::default() };
    let sb = ShellSandbox::new(settings, ws.path(), &ws.path().join("sd"));
    let plain = format!(
        "python3 -c \"import socket; s = socket.create_connection(('127.0.0.1', {port}), timeout=3); s.send(b'ping'); print(s.recv(4))\""
    );
    assert!(stdout(&run(&sb, ws.path(), &plain).await).contains("pong"));
}

// ---- 7: Unix sockets with the network off ----

#[test]
fn with_the_network_off_no_unix_socket_outside_is_reached() {
    if !can_sandbox() || !has_python() {
        return;
    }
    let h = SecretHome::new();
    let mut vars = h.os_vars();
    vars.push(("SKILLDECK_ESCAPE_PROBE", h.outside.join("service.sock").into()));
    rerun("inner_unix_sockets", &vars);
}

#[tokio::test]
async fn inner_unix_sockets() {
    if !inner() {
        return;
    }
    let home = PathBuf::from(std::env::var_os("HOME").unwrap());
    // A terminal's socket in the home folder, and a service's outside it (in a folder the
    // sandbox shows read-only).
    let in_home = home.join(".local/share/wezterm/sock");
    let outside = PathBuf::from(std::env::var_os("SKILLDECK_ESCAPE_PROBE").unwrap());
    let listeners: Vec<std::os::unix::net::UnixListener> = [&in_home, &outside]
        .iter()
        .map(|p| {
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            let l = std::os::unix::net::UnixListener::bind(p).unwrap();
            l.set_nonblocking(true).unwrap();
            l
        })
        .collect();
    let ws = scratch();
    let sb = ShellSandbox::new(SandboxSettings::default(), ws.path(), &ws.path().join("sd"));
    for path in [&in_home, &outside] {
        let client = format!(
            "python3 -c \"import socket; s = socket.socket(socket.AF_UNIX); s.connect('{}'); print('connected')\"",
            path.display()
        );
        let out = run(&sb, ws.path(), &client).await;
        assert!(!stdout(&out).contains("connected"), "{}: {out}", path.display());
    }
    for l in &listeners {
        assert!(l.accept().is_err(), "a host socket took a connection from the sandbox");
    }
    // Socket pairs, which reach nothing outside, still work.
    let pair = "python3 -c \"import socket; a, b = socket.socketpair(); a.send(b'x'); print(b.recv(1))\"";
    assert_eq!(stdout(&run(&sb, ws.path(), pair).await), "b'x'\n");
}

// ---- 9: resources ----

async fn limited(limits: ResourceLimits, script: &str) -> Value {
    let ws = scratch();
    let settings = SandboxSettings { limits, ..SandboxSettings::default() };
    let sb = ShellSandbox::new(settings, ws.path(), &ws.path().join("sd"));
    run(&sb, ws.path(), script).await
}

#[tokio::test]
async fn memory_is_bounded_and_the_note_says_so() {
    if !can_sandbox() || !has_python() {
        return;
    }
    let limits = ResourceLimits { max_memory_mib: 256, ..ResourceLimits::default() };
    let out = limited(limits, "python3 -c \"b = bytearray(1024 << 20); print('allocated')\"").await;
    assert!(!stdout(&out).contains("allocated"), "{out}");
    assert!(out["note"].as_str().unwrap().contains("256 MiB"), "{out}");
    assert!(out["note"].as_str().unwrap().contains("[shell] max_memory_mib"), "{out}");
}

#[tokio::test]
async fn where_a_cgroup_bounds_the_command_its_processes_share_the_memory() {
    if !can_sandbox() || !has_python() {
        return;
    }
    // Three processes of 160 MiB each: each under the limit, together over it.
    let limits = ResourceLimits { max_memory_mib: 256, ..ResourceLimits::default() };
    let one = "python3 -c \"import time; b = b'x' * (160 << 20); print('allocated'); time.sleep(2)\"";
    let out = limited(limits, &format!("{one} & {one} & {one} & wait")).await;
    if stdout(&out).matches("allocated").count() == 3 {
        let why = format!("no cgroup can be made here, so only each process is bounded ({out})");
        skilldeck_testkit::require(
            "cgroup",
            &why,
            "run the tests as root on a cgroup v2 system, or with a delegated cgroup",
        );
        return;
    }
    let note = out["note"].as_str().unwrap_or_default();
    assert!(note.contains("killed: it used more than the 256 MiB memory limit ([shell] max_memory_mib)"), "{out}");
}

#[tokio::test]
async fn processes_are_bounded_and_the_note_says_so() {
    if !can_sandbox() {
        return;
    }
    let limits = ResourceLimits { max_processes: 40, ..ResourceLimits::default() };
    let out = limited(limits, "for i in $(seq 80); do sleep 3 & done; wait; echo finished").await;
    assert!(out["note"].as_str().unwrap_or_default().contains("[shell] max_processes"), "{out}");
}

#[tokio::test]
async fn file_size_and_tmp_are_bounded_and_the_note_says_so() {
    if !can_sandbox() {
        return;
    }
    let limits = ResourceLimits { max_file_size_mib: 1, ..ResourceLimits::default() };
    let out = limited(limits, "head -c 2000000 /dev/zero > big && echo wrote").await;
    assert!(!stdout(&out).contains("wrote"), "{out}");
    assert!(out["note"].as_str().unwrap().contains("[shell] max_file_size_mib"), "{out}");
    let limits = ResourceLimits { tmp_size_mib: 4, ..ResourceLimits::default() };
    let out = limited(limits, "head -c 8000000 /dev/zero > /tmp/big && echo wrote").await;
    assert!(!stdout(&out).contains("wrote"), "{out}");
    assert!(out["note"].as_str().unwrap().contains("[shell] tmp_size_mib"), "{out}");
}

#[tokio::test]
async fn by_default_a_command_cannot_take_the_machine() {
    if !can_sandbox() {
        return;
    }
    // More processes than the default allows (the shell gives up when it cannot fork)…
    let d = ResourceLimits::default();
    let script = format!("for i in $(seq {}); do sleep 5 & done; echo started all", d.max_processes + 100);
    let out = limited(d, &script).await;
    assert!(!stdout(&out).contains("started all"), "{out}");
    assert!(out["note"].as_str().unwrap_or_default().contains("[shell] max_processes"), "{out}");
    // … and a /tmp of at most the default size, not half the machine's memory.
    let out = limited(d, "df -m /tmp | tail -1").await;
    let tmp_mib: u64 =
        stdout(&out).split_whitespace().nth(1).and_then(|n| n.parse().ok()).unwrap_or_else(|| panic!("{out}"));
    assert!(tmp_mib <= d.tmp_size_mib, "{out}");
}

// ---- real tools still work ----

#[tokio::test]
async fn git_cargo_and_python_work_in_the_sandbox() {
    if !can_sandbox() {
        return;
    }
    // In /tmp: no Cargo.toml above (a workspace of the repository would take the crate in).
    let ws = tempfile::tempdir().unwrap();
    let sb = ShellSandbox::new(SandboxSettings::default(), ws.path(), &ws.path().join("sd"));
    let out = run(&sb, ws.path(), "git init -q . && git status --short && echo git-ok").await;
    assert!(stdout(&out).ends_with("git-ok\n"), "{out}");
    let have = |p: &str| std::process::Command::new(p).arg("--version").output().is_ok_and(|o| o.status.success());
    if have("cargo") {
        let script = "cargo --version && cargo init -q --name tiny --vcs none . && cargo build -q --offline && ./target/debug/tiny";
        let out = run(&sb, ws.path(), script).await;
        assert!(stdout(&out).ends_with("Hello, world!\n"), "{out}");
    }
    if have("node") && have("npm") {
        let out = run(&sb, ws.path(), "node -e 'console.log(1 + 1)' && npm --version >/dev/null && echo node-ok").await;
        assert_eq!(stdout(&out), "2\nnode-ok\n", "{out}");
    }
    if have_python() {
        let out =
            run(&sb, ws.path(), "python3 -c 'print(1)' && python3 -m pip --version >/dev/null && echo py-ok").await;
        assert_eq!(stdout(&out), "1\npy-ok\n", "{out}");
    }
}

fn have_python() -> bool {
    has_python()
}
