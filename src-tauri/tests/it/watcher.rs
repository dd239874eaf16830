//! Live updates through the app's own wiring (mock runtime, no display): a change made by
//! another writer, as the CLI does from a terminal, is announced and then served.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use serde_json::{Value, json};
use skilldeck_app::state::AppState;
use skilldeck_app::watcher::{self, CHANGED};
use skilldeck_skill::{RelPath, Scope, SkillFiles, SkillName};
use skilldeck_store::watch::{SkillChange, StoreChange};
use skilldeck_store::{FsStorage, SkilldeckHome};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use tauri::test::{MockRuntime, get_ipc_response};
use tauri::{Listener as _, Manager as _, WebviewWindow, WebviewWindowBuilder};

/// How long an announcement may take before the test calls it lost: only a hang fails.
const WITHIN: Duration = Duration::from_secs(10);

struct Fx {
    home: SkilldeckHome,
    _tmp: tempfile::TempDir,
    _app: tauri::App<MockRuntime>,
    webview: WebviewWindow<MockRuntime>,
    key: String,
    changed: mpsc::Receiver<Value>,
}

impl Fx {
    /// The app over a store holding `user/pdf` at revision 1, its watcher running and live.
    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let home = SkilldeckHome::new(tmp.path().join("home"));
        let state = AppState::open(home.clone()).unwrap();
        state.storage().write_skill_sync(Scope::User, &SkillName::parse("pdf").unwrap(), &pdf("one")).unwrap();
        let app = skilldeck_app::builder::<MockRuntime>(state).build(tauri::generate_context!()).unwrap();
        let webview = WebviewWindowBuilder::new(&app, "main", Default::default()).build().unwrap();
        let (tx, changed) = mpsc::channel();
        app.listen_any(CHANGED, move |e| {
            let _ = tx.send(serde_json::from_str(e.payload()).unwrap());
        });
        let state = app.state::<AppState>();
        state.keep_watcher(watcher::start(&state, app.handle().clone()).unwrap());
        let key = app.invoke_key().to_owned();
        let fx = Self { home, _tmp: tmp, _app: app, webview, key, changed };
        // Cached as a window showing it would have it.
        assert_eq!(fx.ok("skill_detail", json!({"scope": "user", "name": "pdf"}))["version"], "1");
        // Live, as in an app open a while: a change made now is announced.
        std::fs::create_dir(fx.home.root().join("skills/user/warm-up")).unwrap();
        fx.announced(&json!({"kind": "skill", "scope": "user", "name": "warm-up"}));
        fx
    }

    fn ok(&self, cmd: &str, body: Value) -> Value {
        let request = tauri::webview::InvokeRequest {
            cmd: cmd.into(),
            callback: tauri::ipc::CallbackFn(0),
            error: tauri::ipc::CallbackFn(1),
            url: "tauri://localhost".parse().unwrap(),
            body: tauri::ipc::InvokeBody::Json(body.clone()),
            headers: Default::default(),
            invoke_key: self.key.clone(),
        };
        let response = get_ipc_response(&self.webview, request).unwrap_or_else(|e| panic!("{cmd} {body}: {e}"));
        response.deserialize::<Value>().unwrap()
    }

    /// Waits until an announcement names `change`; the changes it held, or a failure after `WITHIN`.
    fn announced(&self, change: &Value) -> Value {
        let deadline = Instant::now() + WITHIN;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let payload = self.changed.recv_timeout(left).unwrap_or_else(|_| panic!("{change} was never announced"));
            if payload.as_array().is_some_and(|a| a.contains(change)) {
                return payload;
            }
        }
    }
}

fn pdf(description: &str) -> SkillFiles {
    let md = format!("---\nname: pdf\ndescription: {description}\n---\nbody\n");
    [(RelPath::parse("SKILL.md").unwrap(), md.into_bytes())].into_iter().collect()
}

#[test]
fn another_writers_new_revision_and_config_switch_reach_the_open_app() {
    let fx = Fx::new();
    // A second revision from another writer (the CLI's `import`): an exchange of folders.
    let other = FsStorage::open(fx.home.clone()).unwrap();
    other.write_skill_sync(Scope::User, &SkillName::parse("pdf").unwrap(), &pdf("two")).unwrap();
    fx.announced(&json!({"kind": "skill", "scope": "user", "name": "pdf"}));
    let detail = fx.ok("skill_detail", json!({"scope": "user", "name": "pdf"}));
    assert_eq!((&detail["version"], &detail["description"]), (&json!("2"), &json!("two")), "{detail}");

    // `skilldeck disable pdf` from a terminal rewrites config.toml.
    skilldeck_agent::config_edit::set_skill_enabled(&fx.home.config_path(), "pdf", false).unwrap();
    fx.announced(&json!({"kind": "config"}));
    let row = fx.ok("skill_detail", json!({"scope": "user", "name": "pdf"}));
    assert_eq!(row["enabled"], false, "{row}");
}

#[test]
fn what_changed_between_two_listings_is_told_skill_by_skill() {
    // Start-up lists the store before it watches it; a change made in between is found by
    // listing again once watched, and handled as a change the watch saw.
    let tmp = tempfile::tempdir().unwrap();
    let state = AppState::open(SkilldeckHome::new(tmp.path().join("home"))).unwrap();
    let name = |n: &str| SkillName::parse(n).unwrap();
    for n in ["pdf", "gone", "kept"] {
        state.storage().write_skill_sync(Scope::User, &name(n), &pdf("one")).unwrap();
    }
    let before = state.list_all().unwrap();
    assert!(watcher::differences(&before, &before).is_empty());

    state.storage().write_skill_sync(Scope::User, &name("pdf"), &pdf("two")).unwrap();
    state.storage().write_skill_sync(Scope::User, &name("new"), &pdf("one")).unwrap();
    state.storage().delete_skill_sync(Scope::User, &name("gone")).unwrap();
    // An edit in place, as an editor makes it: the same revision, other content.
    let kept = state.storage().skill_dir(Scope::User, &name("kept")).join("SKILL.md");
    std::fs::write(&kept, std::fs::read_to_string(&kept).unwrap().replace("one", "edited")).unwrap();
    for scope in Scope::ALL {
        state.registry.invalidate(scope, None);
    }
    let after = state.list_all().unwrap();
    let skill = |n: &str| StoreChange::Skill(SkillChange { scope: Scope::User, name: Some(n.into()) });
    assert_eq!(watcher::differences(&before, &after), vec![skill("gone"), skill("kept"), skill("new"), skill("pdf")]);
}

#[test]
fn a_settings_file_changed_before_the_watch_began_is_told() {
    let tmp = tempfile::tempdir().unwrap();
    let home = SkilldeckHome::new(tmp.path().join("home"));
    std::fs::create_dir_all(home.root()).unwrap();
    std::fs::write(home.config_path(), "[listing]\n").unwrap();
    let before = watcher::settings_stamps(&home);
    assert!(watcher::settings_changed(&home, &before).is_empty());
    // Replaced by rename with text of the same length, as an editor saves it.
    let staged = home.root().join("config.toml.tmp");
    std::fs::write(&staged, "[agent]\n\n\n").unwrap();
    std::fs::rename(&staged, home.config_path()).unwrap();
    assert_eq!(watcher::settings_changed(&home, &before), vec![StoreChange::Config]);
    std::fs::write(home.root().join("trust.json"), "{}").unwrap();
    assert_eq!(watcher::settings_changed(&home, &before), vec![StoreChange::Config, StoreChange::Trust]);
}
