//! The Debian package, checked from its installed files only. `scripts/check-package` builds the
//! `.deb`, unpacks it into a scratch root and runs these tests with `SKILLDECK_INSTALLED_ROOT`
//! naming that root; they are `#[ignore]`d in the ordinary run, which has no package to look at.
//! Nothing here uses the checkout's binaries, its `.tools/models` or `SKILLDECK_MODELS_DIR`: the
//! CLI and the app must find their models in the installed layout by themselves.

use serde_json::{Value, json};
use skilldeck_e2e::{Session, root};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BUNDLED: [&str; 4] = ["change-review", "commit-messages", "skill-authoring", "workspace-notes"];

/// The scratch root the package was unpacked into.
fn installed_root() -> PathBuf {
    let root = std::env::var_os("SKILLDECK_INSTALLED_ROOT")
        .map(PathBuf::from)
        .unwrap_or_else(|| panic!("SKILLDECK_INSTALLED_ROOT is not set: scripts/check-package runs these tests"));
    assert!(root.join("usr/bin/skilldeck").is_file(), "no usr/bin/skilldeck under {}", root.display());
    root
}

/// The commit this checkout is at, which the package was built from.
fn head() -> String {
    let out = Command::new("git").args(["rev-parse", "HEAD"]).current_dir(root()).output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

/// Runs the installed `skilldeck` as a user would: a clean environment (no SKILLDECK_MODELS_DIR,
/// no variable of the checkout's), its own HOME and store.
fn installed_cli(root: &Path, home: &Path, args: &[&str]) -> Output {
    let bin = root.join("usr/bin/skilldeck");
    Command::new(&bin)
        .args(args)
        .env_clear()
        .env("PATH", format!("{}:/usr/bin:/bin", root.join("usr/bin").display()))
        .env("HOME", home.join("user"))
        .env("SKILLDECK_HOME", home.join("store"))
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", bin.display()))
}

fn ok(out: &Output, what: &str) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{what}: {}\n{stdout}\n{}", out.status, String::from_utf8_lossy(&out.stderr));
    stdout
}

#[test]
#[ignore = "run by scripts/check-package against the unpacked .deb"]
fn the_installed_cli_lists_ranks_by_meaning_and_serves_mcp() {
    let root = installed_root();
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(tmp.path().join("user")).unwrap();

    let version = ok(&installed_cli(&root, tmp.path(), &["--version"]), "--version");
    let expected = format!("skilldeck {} (commit {}, ", env!("CARGO_PKG_VERSION"), &head()[..12]);
    assert!(version.starts_with(&expected), "{version}");

    let list = ok(&installed_cli(&root, tmp.path(), &["list"]), "list");
    for name in BUNDLED {
        assert!(list.contains(name), "{name} missing from the installed CLI's list:\n{list}");
    }

    // The models were found beside the program, in usr/share/skilldeck/models, with no
    // variable pointing there.
    let status = ok(&installed_cli(&root, tmp.path(), &["model", "status"]), "model status");
    let models = root.join("usr/share/skilldeck/models");
    assert!(status.contains("ranking by meaning: on"), "{status}");
    assert!(status.contains(&format!("multilingual-e5-small-q4 ({}", models.display())), "{status}");
    assert!(status.contains("all-MiniLM-L6-v2"), "{status}");
    // ... and rank by meaning: a request that shares no word with the skill it should find.
    let found = installed_cli(&root, tmp.path(), &["find", "jot down thoughts so I remember them tomorrow", "--json"]);
    let found: Value = serde_json::from_str(&ok(&found, "find")).unwrap();
    assert_eq!(found["matches"][0]["name"], "workspace-notes", "{found}");
    assert!(found["matches"][0]["why"].as_str().unwrap().contains("close in meaning"), "{found}");

    // The MCP server, driven by the official Python SDK (scripts/setup-tests installs it).
    let py = root_tools().join("mcp-python/bin/python");
    assert!(py.is_file(), "{} is missing: run scripts/setup-tests", py.display());
    let script = skilldeck_e2e::root().join("crates/skilldeck-cli/tests/mcp_clients/python_client.py");
    let workspace = tmp.path().join("workspace");
    std::fs::create_dir_all(&workspace).unwrap();
    let config = json!({
        "command": [root.join("usr/bin/skilldeck"), "mcp", "--workspace", workspace],
        "env": {"HOME": tmp.path().join("user"), "SKILLDECK_HOME": tmp.path().join("store"), "PATH": "/usr/bin:/bin"},
        "skill": "commit-messages",
        "reference": "references/examples.md",
        "rounds": 1,
    });
    let out = Command::new(&py).arg(script).arg(config.to_string()).output().unwrap();
    let report: Value = serde_json::from_str(&ok(&out, "the MCP client")).unwrap();
    assert_eq!(report["serverName"], "skilldeck", "{report}");
    let tools: Vec<&str> = report["tools"].as_array().unwrap().iter().filter_map(|t| t["name"].as_str()).collect();
    assert!(tools.contains(&"view_skill"), "{report}");
    assert_eq!(report["l2"]["isError"], false, "{report}");
    assert!(report["l2"]["text"].to_string().contains("commit-messages"), "{report}");
    assert_eq!(report["l3"]["isError"], false, "{report}");
    assert!(workspace.join(".skills/commit-messages/SKILL.md").is_file(), "view_skill mounted nothing: {report}");
    assert_eq!(report["hostile"]["isError"], true, "{report}");
}

/// The checkout's `.tools/` (the test clients), not the package's.
fn root_tools() -> PathBuf {
    skilldeck_e2e::root().join(".tools")
}

#[test]
#[ignore = "run by scripts/check-package against the unpacked .deb"]
fn the_installed_desktop_entry_and_icons_are_valid() {
    let root = installed_root();
    let entry = root.join("usr/share/applications/dev.skilldeck.app.desktop");
    let out = Command::new("desktop-file-validate").arg(&entry).output().unwrap_or_else(|e| {
        panic!("cannot run desktop-file-validate ({e}): scripts/setup-tests installs desktop-file-utils")
    });
    let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success() && said.trim().is_empty(), "desktop-file-validate: {said}");
    let text = std::fs::read_to_string(&entry).unwrap();
    assert!(text.lines().any(|l| l == "Exec=skilldeck-app"), "{text}");
    assert!(root.join("usr/bin/skilldeck-app").is_file());
    // The icon it names, at the sizes a menu and a dock ask for, and as SVG.
    assert!(text.lines().any(|l| l == "Icon=skilldeck"), "{text}");
    for size in ["32x32", "128x128", "256x256", "512x512"] {
        let png = root.join(format!("usr/share/icons/hicolor/{size}/apps/skilldeck.png"));
        let bytes = std::fs::read(&png).unwrap_or_else(|e| panic!("{}: {e}", png.display()));
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "{}", png.display());
    }
    assert!(root.join("usr/share/icons/hicolor/scalable/apps/skilldeck.svg").is_file());
}

#[tokio::test]
#[ignore = "run by scripts/check-package against the unpacked .deb"]
async fn the_installed_app_opens_on_the_bundled_skills_and_says_what_it_was_built_from() {
    if !skilldeck_e2e::enabled("installed_app") {
        panic!("SKILLDECK_E2E=1 with a display is needed: scripts/check-package runs this under xvfb-run");
    }
    let root = installed_root();
    let app = root.join("usr/bin/skilldeck-app");
    assert_eq!(
        std::env::var_os("SKILLDECK_APP_BIN").map(PathBuf::from),
        Some(app.clone()),
        "scripts/check-package points SKILLDECK_APP_BIN at the installed app"
    );
    let s = Session::start_in("installed", |_| {}, &[("SKILLDECK_MODELS_DIR", None)]).await;
    s.wait_text("#sidebar", 20, |t| BUNDLED.iter().all(|name| t.contains(name))).await;
    s.screenshot("skills").await;

    // Storage: the shipped models, found in the installed layout.
    s.click("#settings-btn").await;
    s.click("#settings-tab-storage").await;
    let model = s.wait_text("#settings-model", 20, |t| t.contains("multilingual-e5-small-q4")).await;
    assert!(model.contains("share/skilldeck/models"), "{model}");

    // About: the version and the commit, as `skilldeck --version` says them.
    s.click("#settings-tab-about").await;
    let version = s.wait_text("#about-version", 10, |t| t != "…").await;
    assert_eq!(version, format!("Skilldeck {}", env!("CARGO_PKG_VERSION")));
    let commit = s.text_of("#about-commit").await;
    assert!(commit.starts_with(&format!("commit {}, ", &head()[..12])), "{commit}");
    assert_eq!(s.text_of("#about-program").await, app.display().to_string());
    s.screenshot("about").await;

    // The whole X display, as a person would see the window (WebDriver's picture is the page).
    let display = std::env::var("DISPLAY").unwrap_or_default();
    let shot = skilldeck_e2e::root().join("tests/output/installed-window.png");
    let out = Command::new("import").args(["-display", &display, "-window", "root"]).arg(&shot).output().unwrap();
    assert!(out.status.success(), "import: {}", String::from_utf8_lossy(&out.stderr));
}
