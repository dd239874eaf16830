//! The harness for desktop end-to-end tests: a temp store, tauri-driver on its own ports, a
//! WebDriver session on the real app, and screenshots saved for people to look at.
//! Holds set-up and tear-down; the tests themselves are in `tests/`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

pub mod collection;
pub mod git_http;

use fantoccini::{Client, ClientBuilder, Locator};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Whether end-to-end tests are switched on (`SKILLDECK_E2E=1`, as `scripts/test` sets after
/// installing the driver and starting a display). Says so when they are not.
pub fn enabled(test: &str) -> bool {
    let on = std::env::var("SKILLDECK_E2E").is_ok_and(|v| v == "1");
    if !on {
        eprintln!("{test}: not run: set SKILLDECK_E2E=1 with a display and tauri-driver (scripts/test does)");
    }
    on
}

fn app_binary() -> PathBuf {
    std::env::var_os("SKILLDECK_APP_BIN").map_or_else(|| root().join("target/debug/skilldeck-app"), PathBuf::from)
}

/// The variables that move the agent tools' folders (beside HOME): a session clears them, so
/// the machine's own Claude Code or Codex folders never reach a test.
const TOOL_VARS: [&str; 3] = ["CLAUDE_CONFIG_DIR", "CODEX_HOME", "XDG_CONFIG_HOME"];

/// The HOME a session's app and CLI run with, beside its store (`home`): empty unless a test
/// fills it, so what the machine's user has in `~/.claude` and the like never shows in a test,
/// and nothing a test syncs lands there.
pub fn user_home_of(home: &Path) -> PathBuf {
    home.with_file_name("user-home")
}

/// Writes a valid user skill `name` at revision 1 straight into the store at `home` (before the
/// app starts): a `SKILL.md` with `description` and a heading, and its `.version`.
pub fn stored_skill(home: &Path, name: &str, description: &str) {
    let d = home.join(format!("skills/user/{name}"));
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("SKILL.md"), format!("---\nname: {name}\ndescription: {description}\n---\n# {name}\n"))
        .unwrap();
    std::fs::write(d.join(".version"), "1\n").unwrap();
}

/// Runs the `skilldeck` CLI on this session's store (built by `cargo test` in `scripts/test`),
/// with the session's HOME.
pub fn cli(home: &Path, args: &[&str]) -> std::process::Output {
    let bin =
        std::env::var_os("SKILLDECK_CLI_BIN").map_or_else(|| root().join("target/debug/skilldeck"), PathBuf::from);
    let mut command = Command::new(&bin);
    for var in TOOL_VARS {
        command.env_remove(var);
    }
    command
        .args(args)
        .env("SKILLDECK_HOME", home)
        .env("HOME", user_home_of(home))
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", bin.display()))
}

fn driver_binary() -> PathBuf {
    std::env::var_os("TAURI_DRIVER").map_or_else(|| root().join(".tools/bin/tauri-driver"), PathBuf::from)
}

/// One running app under WebDriver, with its own store.
pub struct Session {
    /// The WebDriver client.
    pub client: Client,
    /// The temp folder: `home/` is `SKILLDECK_HOME`, `src/` holds skills to import.
    pub tmp: tempfile::TempDir,
    driver: Child,
    name: String,
}

/// Two ports nobody listens on now (the OS picks them), so parallel runs and leftovers never
/// collide. Both are held while the second is picked: taken one after the other, the OS could
/// give the first again, and the driver then fails to start with both on one port.
fn free_ports() -> (u16, u16) {
    let bind = || std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let (a, b) = (bind(), bind());
    (a.local_addr().unwrap().port(), b.local_addr().unwrap().port())
}

impl Session {
    /// Starts tauri-driver and the app for test `name`.
    pub async fn start(name: &str) -> Self {
        Self::start_with(name, |_| {}).await
    }

    /// Starts tauri-driver and the app for test `name`, once `prepare` has filled the store's
    /// home (the folder it is given) as a test needs it at launch.
    pub async fn start_with(name: &str, prepare: impl FnOnce(&Path)) -> Self {
        Self::start_in(name, prepare, &[]).await
    }

    /// Like `start_with`, with the app's environment changed: each `(name, Some(value))` set,
    /// each `(name, None)` removed. (HOME is already the session's own, `user_home_of`.)
    pub async fn start_in(name: &str, prepare: impl FnOnce(&Path), env: &[(&str, Option<&Path>)]) -> Self {
        let tmp = tempfile::tempdir().unwrap();
        prepare(&tmp.path().join("home"));
        let (port, native_port) = free_ports();
        let log = std::fs::File::create(tmp.path().join("driver.log")).unwrap();
        let mut command = Command::new(driver_binary());
        let user_home = user_home_of(&tmp.path().join("home"));
        std::fs::create_dir_all(&user_home).unwrap();
        command.env("HOME", &user_home);
        for var in TOOL_VARS {
            command.env_remove(var);
        }
        for (k, v) in env {
            match v {
                Some(v) => command.env(k, v),
                None => command.env_remove(k),
            };
        }
        let driver = command
            .args(["--port", &port.to_string(), "--native-port", &native_port.to_string()])
            .env("SKILLDECK_HOME", tmp.path().join("home"))
            // The webview's own storage (language, splitter widths) is the session's, so no
            // test starts from what another one left.
            .env("XDG_DATA_HOME", tmp.path().join("xdg-data"))
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", driver_binary().display()));
        let mut caps = serde_json::Map::new();
        caps.insert("tauri:options".into(), serde_json::json!({"application": app_binary()}));
        let url = format!("http://127.0.0.1:{port}");
        let started = Instant::now();
        let client = loop {
            match ClientBuilder::rustls().unwrap().capabilities(caps.clone()).connect(&url).await {
                Ok(c) => break c,
                Err(e) if started.elapsed() < Duration::from_secs(20) => {
                    let _ = e;
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
                Err(e) => panic!("no WebDriver session on {url}: {e}"),
            }
        };
        let s = Self { client, tmp, driver, name: name.to_owned() };
        s.wait_for("body[data-ready='true']").await;
        s
    }

    /// The store's home.
    pub fn home(&self) -> PathBuf {
        self.tmp.path().join("home")
    }

    /// The HOME the app and `cli` run with (see `user_home_of`).
    pub fn user_home(&self) -> PathBuf {
        user_home_of(&self.home())
    }

    /// Writes a skill folder `src/<dir>` with `SKILL.md` (frontmatter + body) and a reference.
    pub fn skill_source(&self, dir: &str, front: &str, body: &str) -> PathBuf {
        let d = self.tmp.path().join("src").join(dir);
        std::fs::create_dir_all(d.join("references")).unwrap();
        std::fs::write(d.join("SKILL.md"), format!("---\n{front}---\n{body}\n")).unwrap();
        std::fs::write(d.join("references/guide.md"), "# Guide\n").unwrap();
        d
    }

    /// Waits up to 10 s for an element. A live update may replace the element while it is
    /// being found (WebKit then answers "stale element"): that is tried again, like absence.
    pub async fn wait_for(&self, css: &str) -> fantoccini::elements::Element {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            match self.client.find(Locator::Css(css)).await {
                Ok(e) => return e,
                Err(e) if Instant::now() > deadline => panic!("{}: no {css}: {e}", self.name),
                Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
            }
        }
    }

    /// Waits up to `secs` for the text of `css` to satisfy `ok`; returns the last text.
    pub async fn wait_text(&self, css: &str, secs: u64, ok: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            let text = self.text_of(css).await;
            if ok(&text) {
                return text;
            }
            if Instant::now() > deadline {
                self.screenshot("failure").await;
                panic!("{}: {css} never matched; last text: {text:?}", self.name);
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// The text content of the first element matching `css` (empty when there is none).
    pub async fn text_of(&self, css: &str) -> String {
        let script = "const e = document.querySelector(arguments[0]); return e ? e.textContent : '';";
        match self.client.execute(script, vec![serde_json::json!(css)]).await {
            Ok(serde_json::Value::String(s)) => s,
            _ => String::new(),
        }
    }

    /// Waits up to 10 s for `script` to return true.
    pub async fn wait_until(&self, what: &str, script: &str) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while !matches!(self.client.execute(script, vec![]).await, Ok(serde_json::Value::Bool(true))) {
            if Instant::now() > deadline {
                self.screenshot("failure").await;
                panic!("{}: {what} never happened", self.name);
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Clicks an element, finding it again if a live update re-rendered it in between.
    pub async fn click(&self, css: &str) {
        let mut last = String::new();
        for _ in 0..20 {
            match self.wait_for(css).await.click().await {
                Ok(()) => {
                    self.settle().await;
                    return;
                }
                Err(e) => last = e.to_string(),
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("{}: click {css}: {last}", self.name);
    }

    /// Expands the Agents view's card of `agent`. The first-start offer can slide in above the
    /// cards while a click is on its way, so the click may land beside the card's header: the
    /// header is clicked again until the card says it is expanded (a click that lands expands
    /// it at once, so none is undone).
    pub async fn open_agent_card(&self, agent: &str) {
        let toggle = format!(".tool-card[data-tool='{agent}'] .agent-toggle");
        let expanded =
            format!("return document.querySelector(\"{toggle}\")?.getAttribute('aria-expanded') === 'true';");
        for _ in 0..5 {
            self.click(&toggle).await;
            if matches!(self.client.execute(&expanded, vec![]).await, Ok(serde_json::Value::Bool(true))) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(300)).await;
        }
        panic!("{}: the {agent} card did not expand", self.name);
    }

    /// Waits (up to 10 s) until the viewer has what the last click asked for: the app marks
    /// `body[data-loading]` while a skill or file is fetched, and the next click must not land
    /// on a pane about to be redrawn.
    pub async fn settle(&self) {
        let deadline = Instant::now() + Duration::from_secs(10);
        let busy = "return document.body.dataset.loading === 'true';";
        while matches!(self.client.execute(busy, vec![]).await, Ok(serde_json::Value::Bool(true))) {
            if Instant::now() > deadline {
                panic!("{}: the viewer was still loading after 10 s", self.name);
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }

    /// Types into an input after clearing it. A section that re-renders after a save can
    /// replace the input between finding it and typing (WebKit: "stale element"): it is then
    /// found again and typed into anew, up to 10 s.
    pub async fn type_into(&self, css: &str, text: &str) {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let e = self.wait_for(css).await;
            let typed = match e.clear().await {
                Ok(()) => e.send_keys(text).await,
                Err(err) => Err(err),
            };
            match typed {
                Ok(()) => return,
                Err(fantoccini::error::CmdError::Standard(w))
                    if w.error == fantoccini::error::ErrorStatus::StaleElementReference
                        && Instant::now() < deadline =>
                {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                Err(err) => panic!("{}: could not type into {css}: {err}", self.name),
            }
        }
    }

    /// Switches the window's language (`en`, `zh`) as the language menu does. The choice is
    /// kept in the webview's storage, which every session on this machine shares.
    pub async fn set_language(&self, code: &str) {
        let script =
            "const l = document.querySelector('#lang'); l.value = arguments[0]; l.dispatchEvent(new Event('change'));";
        self.client.execute(script, vec![serde_json::json!(code)]).await.unwrap();
    }

    /// Saves a screenshot as `tests/output/<test>-<label>.png` for people to look at.
    pub async fn screenshot(&self, label: &str) -> PathBuf {
        let dir = root().join("tests/output");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("{}-{label}.png", self.name));
        // WebKit paints asynchronously, and under load its snapshot can lag the page by
        // several changes: wait for two painted frames, then a moment, so the picture shows
        // the state the test just checked.
        let frames = "const done = arguments[arguments.length - 1]; \
                      requestAnimationFrame(() => requestAnimationFrame(() => done(true)));";
        let _ = self.client.execute_async(frames, vec![]).await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        if let Ok(png) = self.client.screenshot().await {
            std::fs::write(&path, png).unwrap();
        }
        path
    }

    /// Imports a folder through the dialog's path field; returns the preview's version text.
    pub async fn import_via_dialog(&self, path: &Path) -> String {
        self.click("#import-btn").await;
        self.type_into("#import-path", &path.display().to_string()).await;
        self.click("#import-check").await;
        let preview = self.wait_text("#preview-version", 10, |t| !t.is_empty()).await;
        self.click("#import-confirm").await;
        // The import is done when its dialog closes; until then the modal dialog takes every
        // click (the sidebar may already show the skill: the watcher saw the files land).
        self.wait_until("the import dialog closes", "return !document.querySelector('#import-dialog').open;").await;
        preview
    }

    /// Ends the session (closing the app) and stops the driver cleanly.
    pub async fn finish(mut self) {
        let _ = self.client.clone().close().await;
        self.stop_driver();
    }

    /// Stops tauri-driver with SIGTERM (it takes WebKitWebDriver and the app with it), then waits.
    fn stop_driver(&mut self) {
        if let Ok(Some(_)) = self.driver.try_wait() {
            return;
        }
        let _ = Command::new("kill").arg("-TERM").arg(self.driver.id().to_string()).status();
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.driver.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

impl Drop for Session {
    /// A test that fails before `finish` still leaves no driver or app running behind it.
    fn drop(&mut self) {
        self.stop_driver();
    }
}
