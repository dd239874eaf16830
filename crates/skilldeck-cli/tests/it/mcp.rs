//! `skilldeck mcp` driven by MCP clients we did not write (the official Python and TypeScript
//! SDKs), over stdio and Streamable HTTP,
//! and by raw JSON-RPC lines for what no well-behaved client sends.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use serde_json::{Value, json};
use std::fs;
use std::io::{BufRead as _, BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_skilldeck");

/// The client script, kept beside this test.
fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_clients/python_client.py")
}

/// The Python of the venv `scripts/setup` makes, or `None` (with a loud message) when it is
/// missing and the tests were not asked for. With SKILLDECK_MCP_TESTS set (CI), a missing venv
/// fails the test.
pub(crate) fn python() -> Option<PathBuf> {
    let py = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.tools/mcp-python/bin/python");
    if py.exists() {
        return Some(py);
    }
    if std::env::var_os("SKILLDECK_MCP_TESTS").is_some() {
        panic!("SKILLDECK_MCP_TESTS is set but {} is missing: run scripts/setup", py.display());
    }
    eprintln!(
        "\n!!! SKIPPED: the MCP client tests need the official Python SDK in .tools/mcp-python; run scripts/setup \
         (scripts/test sets SKILLDECK_MCP_TESTS=1, which makes this a failure instead of a skip) !!!\n"
    );
    None
}

/// The `node` able to load the official TypeScript SDK that `scripts/setup` installs, skipped
/// (loudly) like the Python one.
fn node_sdk() -> Option<PathBuf> {
    let modules = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.tools/mcp-node/node_modules");
    if modules.join("@modelcontextprotocol/sdk").exists() {
        return Some(modules);
    }
    if std::env::var_os("SKILLDECK_MCP_TESTS").is_some() {
        panic!("SKILLDECK_MCP_TESTS is set but {} is missing: run scripts/setup", modules.display());
    }
    eprintln!("\n!!! SKIPPED: the TypeScript MCP client test needs .tools/mcp-node; run scripts/setup !!!\n");
    None
}

pub(crate) struct Env {
    tmp: tempfile::TempDir,
}

impl Env {
    /// A store holding `alpha` v:1 (with a reference) and a `v2/alpha` ready to import.
    pub(crate) fn new() -> Self {
        let env = Self { tmp: tempfile::tempdir().unwrap() };
        env.skill("v1", "Alpha does things", "# Alpha v1\nUse it.", "guide one");
        env.skill("v2", "Alpha does things better", "# Alpha v2", "guide two");
        fs::create_dir_all(env.workspace()).unwrap();
        env.skilldeck(&["import", env.path("v1/alpha").to_str().unwrap()]);
        env
    }

    pub(crate) fn path(&self, rel: &str) -> PathBuf {
        self.tmp.path().join(rel)
    }

    pub(crate) fn home(&self) -> PathBuf {
        self.path("home")
    }

    pub(crate) fn workspace(&self) -> PathBuf {
        self.path("work space")
    }

    fn skill(&self, dir: &str, description: &str, body: &str, guide: &str) {
        let d = self.path(dir).join("alpha");
        fs::create_dir_all(d.join("references")).unwrap();
        fs::write(d.join("SKILL.md"), format!("---\nname: alpha\ndescription: {description}\n---\n{body}\n")).unwrap();
        fs::write(d.join("references/guide.md"), guide).unwrap();
    }

    fn skilldeck(&self, args: &[&str]) -> String {
        let out = Command::new(BIN).args(args).env("SKILLDECK_HOME", self.home()).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    }

    /// Runs the Python client with `config` (merged over the defaults) and returns its report.
    fn client(&self, py: &Path, config: Value) -> Value {
        let mut full = json!({
            "command": [BIN, "mcp"],
            "env": {"SKILLDECK_HOME": self.home()},
            "roots": null,
            "import_v2": null,
            "skill": "alpha",
            "reference": "references/guide.md",
            "rounds": 5,
        });
        for (k, v) in config.as_object().unwrap() {
            full[k] = v.clone();
        }
        let out = Command::new(py).arg(script()).arg(full.to_string()).output().unwrap();
        assert!(
            out.status.success(),
            "the Python client failed\nstdout: {}\nstderr: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    }
}

/// `file://` plus the path with spaces escaped (the only unsafe character these paths hold).
fn file_uri(p: &Path) -> String {
    format!("file://{}", p.to_str().unwrap().replace(' ', "%20"))
}

/// The files under `dir`, relative and sorted, hidden ones included.
fn tree(dir: &Path) -> Vec<String> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
        for e in fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                out.push(p.strip_prefix(root).unwrap().to_str().unwrap().to_owned());
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// The result a call reports: text and structuredContent must be the same JSON.
fn result(report: &Value, key: &str) -> (bool, Value) {
    let r = &report[key];
    assert_eq!(r["text"], r["structured"], "{key}: text content and structuredContent differ");
    (r["isError"].as_bool().unwrap(), r["structured"].clone())
}

#[test]
fn python_sdk_client_lists_loads_and_sees_a_new_revision_live_with_its_roots() {
    let Some(py) = python() else { return };
    live_scenario(&py, &Env::new(), json!({}));
}

#[test]
fn the_same_over_streamable_http_with_the_bearer_token() {
    let Some(py) = python() else { return };
    let env = Env::new();
    let http = Http::start(&env, "test-token-1-0123456789abcdefghijklmnop");
    live_scenario(&py, &env, json!({"url": http.url, "token": "test-token-1-0123456789abcdefghijklmnop"}));
}

/// A `skilldeck mcp --http` on a free loopback port, killed when dropped.
pub(crate) struct Http {
    child: std::process::Child,
    pub(crate) url: String,
    port: u16,
}

impl Http {
    pub(crate) fn start(env: &Env, token: &str) -> Self {
        let mut child = Command::new(BIN)
            .args(["mcp", "--http", "127.0.0.1:0"])
            .env("SKILLDECK_HOME", env.home())
            .env("SKILLDECK_MCP_TOKEN", token)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stderr.take().unwrap()).read_line(&mut line).unwrap();
        let url =
            line.split_whitespace().find(|w| w.starts_with("http://")).unwrap_or_else(|| panic!("{line}")).to_owned();
        let port = url.trim_start_matches("http://127.0.0.1:").trim_end_matches("/mcp").parse().unwrap();
        Self { child, url, port }
    }

    /// The status code of a raw POST of an initialize request with `headers`.
    fn status(&self, headers: &[&str]) -> u16 {
        let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#;
        self.post(body, headers).0
    }

    /// The status code and body of a raw POST of `body` with `headers`.
    fn post(&self, body: &str, headers: &[&str]) -> (u16, String) {
        use std::io::Read as _;
        let mut s = std::net::TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        let mut req = format!(
            "POST /mcp HTTP/1.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n",
            body.len()
        );
        if !headers.iter().any(|h| h.starts_with("Host:")) {
            req.push_str(&format!("Host: 127.0.0.1:{}\r\n", self.port));
        }
        for h in headers {
            req.push_str(h);
            req.push_str("\r\n");
        }
        req.push_str("\r\n");
        req.push_str(body);
        s.write_all(req.as_bytes()).unwrap();
        let mut head = [0u8; 12];
        s.read_exact(&mut head).unwrap();
        let status = String::from_utf8_lossy(&head[9..12]).parse().unwrap();
        let mut rest = Vec::new();
        if status != 200 {
            // Refusals are short and the connection closes; a 200 may be a stream that stays.
            s.read_to_end(&mut rest).unwrap();
        }
        let rest = String::from_utf8_lossy(&rest);
        (status, rest.split_once("\r\n\r\n").map(|(_, b)| b.to_owned()).unwrap_or_default())
    }
}

impl Drop for Http {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn http_refuses_a_bad_token_a_foreign_origin_and_a_foreign_host_and_serves_loopback_origins() {
    let env = Env::new();
    let http = Http::start(&env, "right-token-0123456789abcdefghijklmnopq");
    assert_eq!(http.status(&[]), 401, "no token");
    assert_eq!(http.status(&["Authorization: Bearer wrong-token"]), 401, "wrong token");
    assert_eq!(
        http.status(&["Authorization: Bearer right-token-0123456789abcdefghijklmnopq", "Origin: https://evil.example"]),
        403,
        "a web page"
    );
    assert_eq!(
        http.status(&[
            "Authorization: Bearer right-token-0123456789abcdefghijklmnopq",
            "Origin: http://evil.example:80"
        ]),
        403,
        "a web page over HTTP"
    );
    // This machine's own origins are served (they still need the token).
    for origin in ["http://localhost", "http://localhost:6274", "http://127.0.0.1:3000", "http://[::1]:8080"] {
        let header = format!("Origin: {origin}");
        assert_eq!(
            http.status(&["Authorization: Bearer right-token-0123456789abcdefghijklmnopq", &header]),
            200,
            "{origin}"
        );
        assert_eq!(http.status(&["Authorization: Bearer wrong-token", &header]), 401, "{origin} without the token");
    }
    let rebound = format!("Host: evil.example:{}", http.port);
    assert_eq!(
        http.status(&["Authorization: Bearer right-token-0123456789abcdefghijklmnopq", &rebound]),
        403,
        "DNS rebinding"
    );
    assert_eq!(http.status(&["Authorization: Bearer right-token-0123456789abcdefghijklmnopq"]), 200);
    // A short token of the user's is refused, not served behind.
    let out = Command::new(BIN)
        .args(["mcp", "--http", "127.0.0.1:0"])
        .env("SKILLDECK_HOME", env.home())
        .env("SKILLDECK_MCP_TOKEN", "secret")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("SKILLDECK_MCP_TOKEN is 6 characters long") && err.contains("at least 32"), "{err}");
    // Only loopback addresses are served.
    let out =
        Command::new(BIN).args(["mcp", "--http", "0.0.0.0:0"]).env("SKILLDECK_HOME", env.home()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a loopback address"));
}

/// The scenario both SDKs run: roots (the second one never used), a subscription, and a
/// `skilldeck import` of v:2 while connected. `transport` adds the command or the URL.
fn live_config(env: &Env, transport: Value) -> Value {
    let mut config = json!({
        "roots": [file_uri(&env.workspace()), file_uri(&env.path("second root"))],
        "import_v2": [BIN, "import", env.path("v2/alpha")],
        "subscribe": "skill://alpha/SKILL.md",
        "skill": "alpha",
        "reference": "references/guide.md",
    });
    for (k, v) in transport.as_object().unwrap() {
        config[k] = v.clone();
    }
    config
}

/// Connects (over `transport`), lists, loads, then imports v:2 while connected.
fn live_scenario(py: &Path, env: &Env, transport: Value) {
    let before = env.skilldeck(&["prompt"]);
    let report = env.client(py, live_config(env, transport));
    check_live(env, &before, &report);
}

/// What a client of the live scenario must have seen, and the files it must have left.
fn check_live(env: &Env, before: &str, report: &Value) {
    let report = report.clone();
    assert_eq!(report["serverName"], "skilldeck");
    assert_eq!(report["toolsListChanged"], true);
    let listing = before.trim_end();
    assert!(listing.contains("- **alpha** (v:1): Alpha does things\n"), "{listing}");
    assert!(report["instructions"].as_str().unwrap().contains(listing));
    assert!(report["instructions"].as_str().unwrap().contains("load it again with view_skill"));

    // tools/list: one tool, its enum exactly the listed skills, the listing in its description.
    let tools = report["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 1);
    let names: Vec<&str> =
        listing.lines().filter_map(|l| l.strip_prefix("- **")).map(|l| l.split("**").next().unwrap()).collect();
    assert_eq!(tools[0]["name"], "view_skill");
    assert_eq!(tools[0]["enum"], json!(names));
    assert_eq!(tools[0]["required"], json!(["name"]));
    assert_eq!(tools[0]["hasOutputSchema"], true);
    let description = tools[0]["description"].as_str().unwrap();
    assert!(description.contains(listing) && description.contains("load it again with view_skill"), "{description}");

    // L2: the instructions, mounted into the client's first file:// root; L3: a reference.
    assert_eq!(
        result(&report, "l2"),
        (false, json!({"skillName": "alpha", "path": null, "version": "1", "content": "# Alpha v1\nUse it.\n"}))
    );
    assert_eq!(
        result(&report, "l3"),
        (false, json!({"skillName": "alpha", "path": "references/guide.md", "version": "1", "content": "guide one"}))
    );
    // Hostile and unknown input: error results, data for the model.
    let (is_error, hostile) = result(&report, "hostile");
    assert!(is_error);
    assert_eq!(hostile["error"]["code"], "skill_path_invalid");
    assert_eq!(hostile["path"], "../../etc/passwd");
    let (is_error, unknown) = result(&report, "unknown");
    assert!(is_error);
    assert_eq!(unknown["error"]["code"], "skill_not_found");
    assert!(unknown["error"]["message"].as_str().unwrap().contains("Did you mean alpha?"));

    // `skilldeck import` of v:2 while connected: list_changed arrives, the listing shows v:2,
    // the next call mounts v:2.
    assert_eq!(report["import"]["code"], 0, "{}", report["import"]);
    assert_eq!(report["listChanged"], true, "no notifications/tools/list_changed within 10 s");
    assert_eq!(
        report["notifications"],
        json!([
            "notifications/prompts/list_changed",
            "notifications/resources/list_changed",
            "notifications/resources/updated",
            "notifications/tools/list_changed",
            "updated skill://alpha/SKILL.md"
        ])
    );
    let after = report["toolsAfter"][0]["description"].as_str().unwrap();
    let listing_after = env.skilldeck(&["prompt"]);
    assert!(listing_after.contains("- **alpha** (v:2): Alpha does things better\n"), "{listing_after}");
    assert!(after.contains(listing_after.trim_end()), "{after}");
    assert_eq!(
        result(&report, "l2After"),
        (false, json!({"skillName": "alpha", "path": null, "version": "2", "content": "# Alpha v2\n"}))
    );
    let mounted = env.workspace().join(".skills/alpha");
    assert_eq!(tree(&mounted), ["SKILL.md", "references/guide.md"], "no .version in the mount");
    assert_eq!(fs::read_to_string(mounted.join("references/guide.md")).unwrap(), "guide two");
    assert!(!env.path("second root").exists(), "only the first root is the workspace");
}

#[test]
fn python_sdk_client_without_roots_mounts_into_the_workspace_flag() {
    let Some(py) = python() else { return };
    let env = Env::new();
    let ws = env.workspace();
    let report =
        env.client(&py, json!({"command": [BIN, "mcp", "--workspace", ws, "--scope", "user"], "catalog": true}));
    // --scope user: the bundled skills are not listed.
    assert_eq!(report["tools"][0]["enum"], json!(["alpha"]));
    // Its files as resources, the template for any of them, and the skill as a prompt.
    assert_eq!(report["resources"], json!(["skill://alpha/SKILL.md", "skill://alpha/references/guide.md"]));
    assert_eq!(report["templates"], json!(["skill://{name}/{+path}"]));
    assert_eq!(
        report["resource"],
        json!([{"uri": "skill://alpha/references/guide.md", "mime": "text/markdown", "text": "guide one"}])
    );
    assert_eq!(report["prompts"], json!([{"name": "alpha", "description": "Alpha does things"}]));
    let prompt = &report["prompt"];
    assert_eq!(prompt.as_array().unwrap().len(), 1);
    assert_eq!(prompt[0]["role"], "user");
    assert!(prompt[0]["text"].as_str().unwrap().ends_with("\n\n# Alpha v1\nUse it.\n"), "{prompt}");
    assert_eq!(result(&report, "l2").1["version"], "1");
    assert_eq!(tree(&ws.join(".skills/alpha")), ["SKILL.md", "references/guide.md"]);
}

#[test]
fn roots_changed_by_the_client_move_the_next_mount_to_the_new_first_root() {
    let Some(py) = python() else { return };
    let env = Env::new();
    let other = env.path("other");
    fs::create_dir_all(&other).unwrap();
    let report = env.client(&py, json!({"roots": [file_uri(&env.workspace())], "roots_after": [file_uri(&other)]}));
    assert_eq!(result(&report, "l2").1["version"], "1");
    assert_eq!(result(&report, "l2NewRoot").1["version"], "1");
    assert_eq!(tree(&env.workspace().join(".skills/alpha")), ["SKILL.md", "references/guide.md"]);
    assert_eq!(tree(&other.join(".skills/alpha")), ["SKILL.md", "references/guide.md"]);
}

#[test]
fn python_sdk_client_with_no_workspace_gets_an_error_result_saying_how_to_set_one() {
    let Some(py) = python() else { return };
    let env = Env::new();
    let report = env.client(&py, json!({}));
    let (is_error, l2) = result(&report, "l2");
    assert!(is_error);
    assert_eq!(l2["error"]["code"], "skill_copy_failed");
    let message = l2["error"]["message"].as_str().unwrap();
    assert!(message.contains("--workspace DIR") && message.contains("roots"), "{message}");
    // A hostile path is still called what it is.
    let (is_error, hostile) = result(&report, "hostile");
    assert!(is_error);
    assert_eq!(hostile["error"]["code"], "skill_path_invalid");
    assert!(!env.workspace().join(".skills").exists());
}

/// A raw session: JSON-RPC lines in, lines out.
struct Raw {
    child: std::process::Child,
    out: BufReader<std::process::ChildStdout>,
}

impl Raw {
    fn start(env: &Env) -> Self {
        let mut child = Command::new(BIN)
            .args(["mcp", "--workspace"])
            .arg(env.workspace())
            .env("SKILLDECK_HOME", env.home())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let out = BufReader::new(child.stdout.take().unwrap());
        Self { child, out }
    }

    /// Kills the server after `secs` seconds, so a reply that never comes fails the test (a
    /// read of the closed output) instead of hanging it.
    fn deadline(&self, secs: u64) {
        let pid = self.child.id().to_string();
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_secs(secs));
            let _ = Command::new("kill").arg(&pid).status();
        });
    }

    fn send(&mut self, line: &str) {
        let stdin = self.child.stdin.as_mut().unwrap();
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    fn recv(&mut self) -> Value {
        let mut line = String::new();
        self.out.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line:?}"))
    }

    /// Initializes asking for `asked`; the server must agree on `agreed`.
    fn initialize(&mut self, asked: &str, agreed: &str) {
        self.send(
            &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": asked, "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}})
            .to_string(),
        );
        let init = self.recv();
        assert_eq!(init["result"]["protocolVersion"], agreed, "{init}");
        assert_eq!(init["result"]["capabilities"]["tools"]["listChanged"], true, "{init}");
        self.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    }
}

#[test]
fn a_client_asking_for_a_version_the_server_does_not_speak_gets_its_newest_handshake_version() {
    let env = Env::new();
    for asked in ["2026-07-28", "2099-01-01"] {
        let mut raw = Raw::start(&env);
        raw.initialize(asked, "2025-11-25");
    }
}

#[test]
fn bad_json_rpc_gets_errors_and_the_session_goes_on() {
    let env = Env::new();
    let mut raw = Raw::start(&env);
    raw.initialize("2025-06-18", "2025-06-18");
    // An unknown method and an unknown tool: JSON-RPC errors, with their ids.
    raw.send(r#"{"jsonrpc":"2.0","id":1,"method":"no/such/method"}"#);
    let r = raw.recv();
    assert_eq!((r["id"].clone(), r["error"]["code"].clone()), (json!(1), json!(-32601)), "{r}");
    raw.send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"rm_rf","arguments":{}}}"#);
    let r = raw.recv();
    assert_eq!(r["id"], 2);
    assert!(r["error"]["message"].as_str().unwrap().contains("view_skill"), "{r}");
    // Arguments of the wrong type: an error result, not a crash.
    raw.send(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"view_skill","arguments":{"name":"alpha","path":7}}}"#);
    let r = raw.recv();
    assert_eq!(r["result"]["isError"], true, "{r}");
    assert_eq!(r["result"]["structuredContent"]["error"]["code"], "skill_path_invalid");
    // A line that is not JSON is dropped (or answered with a parse error); the session goes on.
    raw.send("{this is not json");
    raw.send(
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"view_skill","arguments":{"name":"alpha"}}}"#,
    );
    let mut r = raw.recv();
    if r.get("id") != Some(&json!(4)) {
        assert_eq!(r["error"]["code"], -32700, "{r}");
        r = raw.recv();
    }
    assert_eq!(r["result"]["structuredContent"]["version"], "1", "{r}");
    // A line over the 16 MiB limit is dropped; the session goes on.
    raw.send(&format!(r#"{{"jsonrpc":"2.0","id":5,"method":"ping","params":{{"pad":"{}"}}}}"#, "x".repeat(17 << 20)));
    raw.send(r#"{"jsonrpc":"2.0","id":6,"method":"ping"}"#);
    let mut r = raw.recv();
    if r.get("id") != Some(&json!(6)) {
        assert!(r.get("error").is_some(), "{r}");
        r = raw.recv();
    }
    assert_eq!(r["id"], 6, "{r}");
    // The client going away ends the server cleanly.
    drop(raw.child.stdin.take());
    let status = raw.child.wait().unwrap();
    assert!(status.success(), "{status}");
}

#[test]
fn unparsable_lines_and_wrong_params_get_the_json_rpc_errors_the_spec_names() {
    let env = Env::new();
    let mut raw = Raw::start(&env);
    raw.deadline(60);
    raw.initialize("2025-11-25", "2025-11-25");
    // Not JSON: Parse error, id null, and the next line is served.
    raw.send("{{{");
    let r = raw.recv();
    assert_eq!((r["id"].clone(), r["error"]["code"].clone()), (Value::Null, json!(-32700)), "{r}");
    assert!(r.as_object().unwrap().contains_key("id"), "id is null, not missing: {r}");
    // Nested past the parser's depth limit: the same, no crash, no hang.
    raw.send(&"[".repeat(200_000));
    let r = raw.recv();
    assert_eq!((r["id"].clone(), r["error"]["code"].clone()), (Value::Null, json!(-32700)), "{r}");
    raw.send(&format!(
        r#"{{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{{"name":"view_skill","arguments":{}1{}}}}}"#,
        "[".repeat(200_000),
        "]".repeat(200_000)
    ));
    let r = raw.recv();
    assert_eq!(r["error"]["code"], -32700, "{r}");
    raw.send(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
    let r = raw.recv();
    assert_eq!((r["id"].clone(), r["result"].clone()), (json!(1), json!({})), "{r}");
    // JSON that is no request: Invalid Request, with its id.
    raw.send(r#"{"jsonrpc":"2.0","id":2}"#);
    let r = raw.recv();
    assert_eq!((r["id"].clone(), r["error"]["code"].clone()), (json!(2), json!(-32600)), "{r}");
    // tools/call whose arguments are a string: Invalid params, not Method not found.
    raw.send(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"view_skill","arguments":"x"}}"#);
    let r = raw.recv();
    assert_eq!((r["id"].clone(), r["error"]["code"].clone()), (json!(3), json!(-32602)), "{r}");
    assert!(r["error"]["message"].as_str().unwrap().contains("tools/call"), "{r}");
    raw.send(r#"{"jsonrpc":"2.0","id":4,"method":"ping"}"#);
    assert_eq!(raw.recv()["id"], 4);
    drop(raw.child.stdin.take());
    assert!(raw.child.wait().unwrap().success());

    // Over HTTP a body that is not JSON is a 400 with the Parse error, not a 415.
    let http = Http::start(&env, "right-token-0123456789abcdefghijklmnopq");
    let (status, body) = http.post("{{{", &["Authorization: Bearer right-token-0123456789abcdefghijklmnopq"]);
    assert_eq!(status, 400, "{body}");
    let r: Value = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{e}: {body}"));
    assert_eq!((r["id"].clone(), r["error"]["code"].clone()), (Value::Null, json!(-32700)), "{r}");
    let (status, _) = http.post("{{{", &[]);
    assert_eq!(status, 401, "the token is still checked first");
}

#[test]
fn config_prints_exactly_the_snippet_on_stdout_and_where_it_goes_on_stderr() {
    let out = Command::new(BIN).args(["mcp", "--config", "cursor"]).output().unwrap();
    assert!(out.status.success());
    let snippet: Value = serde_json::from_slice(&out.stdout).unwrap();
    let exe = fs::canonicalize(BIN).unwrap();
    assert_eq!(snippet, json!({"mcpServers": {"skilldeck": {"command": exe, "args": ["mcp"]}}}));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("~/.cursor/mcp.json") && stderr.contains("https://"), "{stderr}");
    let bad = Command::new(BIN).args(["mcp", "--config", "emacs"]).output().unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("use one of claude-desktop"));
}

#[test]
fn many_concurrent_calls_each_get_their_answer_and_the_skill_is_mounted_whole_once() {
    let env = Env::new();
    let mut raw = Raw::start(&env);
    raw.initialize("2025-11-25", "2025-11-25");
    let calls = 64;
    for id in 1..=calls {
        let args = match id % 3 {
            0 => json!({"name": "alpha"}),
            1 => json!({"name": "alpha", "path": "references/guide.md"}),
            _ => json!({"name": "alpha", "path": "/etc/passwd"}),
        };
        raw.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "view_skill", "arguments": args}}).to_string());
    }
    let mut seen = std::collections::BTreeMap::new();
    for _ in 1..=calls {
        let r = raw.recv();
        let id = r["id"].as_u64().unwrap();
        let s = &r["result"]["structuredContent"];
        let got = s["content"].as_str().or(s["error"]["code"].as_str()).unwrap().to_owned();
        assert!(seen.insert(id, got).is_none(), "two answers for {id}");
    }
    for (id, got) in &seen {
        let want = match id % 3 {
            0 => "# Alpha v1\nUse it.\n",
            1 => "guide one",
            _ => "skill_path_invalid",
        };
        assert_eq!(got, want, "call {id}");
    }
    assert_eq!(seen.len(), calls as usize);
    let skills = env.workspace().join(".skills");
    let record: Value = serde_json::from_slice(&fs::read(skills.join(".alpha.mount.json")).unwrap()).unwrap();
    assert_eq!(record["revision"], 1);
    assert_eq!(tree(&skills.join("alpha")), ["SKILL.md", "references/guide.md"]);
    // Nothing staged is left beside the mount.
    let mut left: Vec<String> =
        fs::read_dir(&skills).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    left.sort();
    assert_eq!(left, [".alpha.mount.json", ".gitignore", "alpha"]);
}

#[test]
fn a_client_leaving_mid_call_ends_the_server_cleanly_with_no_half_mount() {
    let env = Env::new();
    let mut raw = Raw::start(&env);
    raw.initialize("2025-11-25", "2025-11-25");
    for id in 1..=8 {
        raw.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "view_skill", "arguments": {"name": "alpha"}}}).to_string());
    }
    drop(raw.child.stdin.take());
    drop(raw.out);
    let status = raw.child.wait().unwrap();
    assert!(status.code().is_some(), "killed by a signal: {status}");
    let skills = env.workspace().join(".skills");
    if skills.join("alpha").exists() {
        assert_eq!(tree(&skills.join("alpha")), ["SKILL.md", "references/guide.md"]);
    }
    if skills.exists() {
        for e in fs::read_dir(&skills).unwrap() {
            let name = e.unwrap().file_name().into_string().unwrap();
            assert!(name == "alpha" || name == ".alpha.mount.json" || name == ".gitignore", "left behind: {name}");
        }
    }
}

/// Runs the TypeScript client with `config` and returns its report.
fn ts_client(modules: &Path, config: Value) -> Value {
    // ESM resolves packages beside the script: run a copy placed next to the SDK's node_modules.
    let script = modules.parent().unwrap().join("ts_client.mjs");
    fs::copy(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_clients/ts_client.mjs"), &script).unwrap();
    let out = Command::new("node").arg(&script).arg(config.to_string()).output().unwrap();
    assert!(out.status.success(), "node failed: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn typescript_sdk_client_lists_loads_and_sees_a_new_revision_live() {
    let Some(modules) = node_sdk() else { return };
    let env = Env::new();
    let before = env.skilldeck(&["prompt"]);
    let transport = json!({"command": [BIN, "mcp"], "env": {"SKILLDECK_HOME": env.home()}});
    let report = ts_client(&modules, live_config(&env, transport));
    check_live(&env, &before, &report);
}

#[test]
fn typescript_sdk_over_streamable_http_with_the_bearer_token_and_a_bad_one_refused() {
    let Some(modules) = node_sdk() else { return };
    let env = Env::new();
    let before = env.skilldeck(&["prompt"]);
    let http = Http::start(&env, "ts-token-1-0123456789abcdefghijklmnopqrs");
    let transport = json!({
        "url": http.url, "token": "ts-token-1-0123456789abcdefghijklmnopqrs", "bad_token": "ts-token-2-0123456789abcdefghijklmnopqrs", "env": {"SKILLDECK_HOME": env.home()},
    });
    let report = ts_client(&modules, live_config(&env, transport));
    let refused = &report["badToken"];
    assert_eq!(refused["refused"], true, "{refused}");
    assert_eq!(refused["code"], 401, "{refused}");
    assert!(refused["message"].as_str().unwrap().contains("Authorization: Bearer TOKEN"), "{refused}");
    check_live(&env, &before, &report);
}

#[test]
fn several_sessions_mounting_into_one_workspace_at_once_leave_one_whole_mount() {
    // Four clients (say an editor and three agents in one project), each firing calls at once;
    // two leave mid-call. Whatever interleaving happens, the workspace ends with one whole
    // mount of the current revision and nothing staged beside it.
    let env = Env::new();
    let mut sessions: Vec<Raw> = (0..4).map(|_| Raw::start(&env)).collect();
    for raw in &mut sessions {
        raw.initialize("2025-11-25", "2025-11-25");
    }
    for raw in &mut sessions {
        for id in 1..=16 {
            let args = if id % 2 == 0 {
                json!({"name": "alpha"})
            } else {
                json!({"name": "alpha", "path": "references/guide.md"})
            };
            raw.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "view_skill", "arguments": args}}).to_string());
        }
    }
    let leaving: Vec<Raw> = sessions.drain(..2).collect();
    for mut raw in leaving {
        drop(raw.child.stdin.take());
        drop(raw.out);
        let status = raw.child.wait().unwrap();
        assert!(status.code().is_some(), "killed by a signal: {status}");
    }
    for raw in &mut sessions {
        let mut answers = 0;
        while answers < 16 {
            let r = raw.recv();
            let Some(id) = r["id"].as_u64() else { continue };
            let s = &r["result"]["structuredContent"];
            let want = if id % 2 == 0 { "# Alpha v1\nUse it.\n" } else { "guide one" };
            assert_eq!(s["content"], want, "call {id}: {r}");
            answers += 1;
        }
        drop(raw.child.stdin.take());
        assert!(raw.child.wait().unwrap().success());
    }
    let skills = env.workspace().join(".skills");
    assert_eq!(tree(&skills.join("alpha")), ["SKILL.md", "references/guide.md"]);
    assert_eq!(
        fs::read_to_string(skills.join("alpha/SKILL.md")).unwrap(),
        "---\nname: alpha\ndescription: Alpha does things\n---\n# Alpha v1\nUse it.\n"
    );
    let mut left: Vec<String> =
        fs::read_dir(&skills).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    left.sort();
    assert_eq!(left, [".alpha.mount.json", ".gitignore", "alpha"], "nothing staged is left beside the mount");
}

#[test]
fn python_sdk_client_finds_an_unlisted_skill_sees_the_enum_grow_and_loads_it() {
    let Some(py) = python() else { return };
    let env = Env::new();
    // A store the 200-token listing cannot show whole: 40 look-alike skills and one that is
    // named after no word of the request.
    let user = env.home().join("skills/user");
    for i in 0..40 {
        let d = user.join(format!("report-{i:02}"));
        fs::create_dir_all(&d).unwrap();
        let md = format!(
            "---\nname: report-{i:02}\ndescription: Prepare quarterly revenue report number {i} with charts for the board\n---\n# Steps\n"
        );
        fs::write(d.join("SKILL.md"), md).unwrap();
    }
    let hidden = user.join("zz-parser-debugging");
    fs::create_dir_all(&hidden).unwrap();
    fs::write(
        hidden.join("SKILL.md"),
        "---\nname: zz-parser-debugging\ndescription: Debug recursive-descent parsers that report wrong line numbers\n---\n# Parser\n",
    )
    .unwrap();
    fs::write(env.home().join("config.toml"), "[listing]\nbudget_tokens = 200\n").unwrap();
    let ws = env.workspace();
    let report = env.client(
        &py,
        json!({
            "command": [BIN, "mcp", "--workspace", ws, "--scope", "user"],
            "skill": "zz-parser-debugging",
            "find": "parser reports wrong line numbers",
        }),
    );
    let tools = report["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["view_skill", "find_skills"], "search is offered while the listing is partial");
    let find = &tools[1];
    assert_eq!(find["hasOutputSchema"], true);
    assert_eq!(find["required"], json!(["query"]));
    // Before: the skill is neither in the enum nor in the listing, and every enum name is shown.
    let view = &tools[0];
    let enum_before: Vec<&str> = view["enum"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    let description = view["description"].as_str().unwrap();
    assert!(!enum_before.contains(&"zz-parser-debugging"), "{enum_before:?}");
    assert!(enum_before.len() < 41, "the enum never holds the whole store: {}", enum_before.len());
    for n in &enum_before {
        assert!(description.contains(&format!("- **{n}**")), "{n} is in the enum but not shown");
    }
    assert!(description.contains("more skills are not listed here. Call `find_skills`"), "{description}");
    // The search finds it, as text and structuredContent alike.
    let (is_error, found) = result(&report, "found");
    assert!(!is_error, "{found}");
    assert_eq!(found["query"], "parser reports wrong line numbers");
    assert_eq!(found["matches"][0]["name"], "zz-parser-debugging");
    assert_eq!(found["matches"][0]["description"], "Debug recursive-descent parsers that report wrong line numbers");
    assert!(found["matches"][0]["why"].as_str().unwrap().contains("parser"), "{found}");
    // The client is told, and the enum now holds it; view_skill mounts it.
    assert_eq!(report["listChanged"], true);
    let after = &report["toolsAfter"][0];
    let enum_after: Vec<&str> = after["enum"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    assert!(enum_after.contains(&"zz-parser-debugging"), "{enum_after:?}");
    let described = after["description"].as_str().unwrap();
    assert!(described.contains("- **zz-parser-debugging**"), "{described}");
    for n in &enum_after {
        assert!(described.contains(&format!("- **{n}**")), "{n} is in the enum but neither shown nor found");
    }
    let (is_error, l2) = result(&report, "l2");
    assert!(!is_error, "{l2}");
    assert_eq!(l2["skillName"], "zz-parser-debugging");
    assert!(ws.join(".skills/zz-parser-debugging/SKILL.md").is_file());
    // A blank query is an error result that says what to give.
    let (is_error, empty) = result(&report, "emptyQuery");
    assert!(is_error);
    assert_eq!(empty["error"]["code"], "query_missing");
}

#[test]
fn a_store_that_fits_offers_no_find_skills() {
    let Some(py) = python() else { return };
    let env = Env::new();
    let ws = env.workspace();
    let report = env.client(&py, json!({"command": [BIN, "mcp", "--workspace", ws, "--scope", "user"]}));
    let names: Vec<&str> = report["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["view_skill"]);
}

/// Imports `name` with `extra` frontmatter lines into `env`'s store.
fn import_with(env: &Env, name: &str, extra: &str) {
    let d = env.path("more").join(name);
    fs::create_dir_all(&d).unwrap();
    fs::write(d.join("SKILL.md"), format!("---\nname: {name}\ndescription: The {name} skill\n{extra}---\n# {name}\n"))
        .unwrap();
    env.skilldeck(&["import", d.to_str().unwrap()]);
}

#[test]
fn a_skill_kept_from_models_is_not_offered_and_one_kept_from_users_is_no_prompt() {
    let env = Env::new();
    import_with(&env, "manual", "disable-model-invocation: true\n");
    import_with(&env, "background", "user-invocable: false\n");
    // Still in the store and `list`: only the model is not offered it.
    assert!(env.skilldeck(&["list"]).contains("manual"));
    let mut raw = Raw::start(&env);
    raw.deadline(60);
    raw.initialize("2025-11-25", "2025-11-25");
    let mut ask = |id: u32, method: &str, params: Value| {
        raw.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string());
        raw.recv()
    };
    let tools = ask(1, "tools/list", json!({}));
    let view = tools["result"]["tools"].as_array().unwrap().iter().find(|t| t["name"] == "view_skill").unwrap().clone();
    let listed = view["inputSchema"]["properties"]["name"]["enum"].as_array().unwrap();
    assert!(listed.contains(&json!("alpha")) && listed.contains(&json!("background")), "{listed:?}");
    assert!(!listed.contains(&json!("manual")), "{listed:?}");
    assert!(!view["description"].as_str().unwrap().contains("manual"), "not in the listing text either");
    let resources = ask(2, "resources/list", json!({}));
    let uris: Vec<&str> =
        resources["result"]["resources"].as_array().unwrap().iter().map(|r| r["uri"].as_str().unwrap()).collect();
    assert!(uris.iter().all(|u| !u.contains("manual")), "{uris:?}");
    assert!(uris.iter().any(|u| u.starts_with("skill://background/")), "{uris:?}");
    let prompts = ask(3, "prompts/list", json!({}));
    let names: Vec<&str> =
        prompts["result"]["prompts"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert!(names.contains(&"alpha"), "{names:?}");
    assert!(
        !names.contains(&"background") && !names.contains(&"manual"),
        "{names:?}: `background` is only for the model, `manual` for no model"
    );
    let got = ask(4, "prompts/get", json!({"name": "background"}));
    assert!(got["error"]["message"].as_str().unwrap().contains("user-invocable: false"), "{got}");
    let call = ask(5, "tools/call", json!({"name": "view_skill", "arguments": {"name": "manual"}}));
    assert_eq!(call["result"]["structuredContent"]["error"]["code"], "skill_not_found", "{call}");
    let instructions = ask(6, "tools/call", json!({"name": "view_skill", "arguments": {"name": "background"}}));
    assert_eq!(instructions["result"]["isError"], false, "{instructions}");
}
