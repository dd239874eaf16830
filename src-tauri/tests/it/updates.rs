//! Updates of sourced skills through the real IPC path, against a Git repository served on
//! loopback: a check counts exactly the skills whose content changed upstream, the diff shows
//! the change, Update makes one new revision and the next check finds nothing, a skill changed
//! here is held back unless forced, and offline the last answer stays (also after a restart),
//! flagged as not checked.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use serde_json::{Value, json};
use skilldeck_app::state::AppState;
use skilldeck_sources::testing::{GitHttpServer, GitRepo};
use skilldeck_store::SkilldeckHome;
use std::path::{Path, PathBuf};
use tauri::test::{MockRuntime, get_ipc_response};
use tauri::{WebviewWindow, WebviewWindowBuilder};

struct App {
    _app: tauri::App<MockRuntime>,
    webview: WebviewWindow<MockRuntime>,
    key: String,
}

impl App {
    fn open(home: &Path) -> Self {
        let state = AppState::open(SkilldeckHome::new(home)).unwrap();
        let app = skilldeck_app::builder::<MockRuntime>(state).build(tauri::generate_context!()).unwrap();
        let webview = WebviewWindowBuilder::new(&app, "main", Default::default()).build().unwrap();
        let key = app.invoke_key().to_owned();
        Self { _app: app, webview, key }
    }

    fn invoke(&self, cmd: &str, body: Value) -> Result<Value, Value> {
        get_ipc_response(
            &self.webview,
            tauri::webview::InvokeRequest {
                cmd: cmd.into(),
                callback: tauri::ipc::CallbackFn(0),
                error: tauri::ipc::CallbackFn(1),
                url: "tauri://localhost".parse().unwrap(),
                body: tauri::ipc::InvokeBody::Json(body),
                headers: Default::default(),
                invoke_key: self.key.clone(),
            },
        )
        .map(|b| b.deserialize::<Value>().unwrap())
    }

    fn ok(&self, cmd: &str, body: Value) -> Value {
        self.invoke(cmd, body.clone()).unwrap_or_else(|e| panic!("{cmd} {body}: {e}"))
    }

    fn check(&self) -> Value {
        self.ok("sources_check_now", json!({}))
    }

    /// The revision of user skill `name`, from the sidebar's listing.
    fn revision(&self, name: &str) -> Value {
        let list = self.ok("list_skills", json!({}));
        let skill = list.as_array().unwrap().iter().find(|s| s["scope"] == "user" && s["name"] == name).unwrap();
        skill["revision"].clone()
    }
}

/// Each skill's `(name, state)` in a view.
fn states(view: &Value) -> Vec<(String, String)> {
    view["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["name"].as_str().unwrap().to_owned(), s["state"].as_str().unwrap().to_owned()))
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter().map(|(a, b)| ((*a).to_owned(), (*b).to_owned())).collect()
}

fn edit(repo: &GitRepo, name: &str, line: &str) -> String {
    repo.write(
        &format!("skills/{name}/SKILL.md"),
        format!("---\nname: {name}\ndescription: The {name} skill.\n---\n\n# {name}\n\n{line}\n"),
    )
    .unwrap();
    repo.commit(&format!("{name}: {line}")).unwrap()
}

fn home_of(tmp: &tempfile::TempDir) -> PathBuf {
    tmp.path().join("home")
}

#[test]
fn a_check_counts_what_changed_upstream_update_brings_it_and_offline_keeps_the_last_answer() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = GitRepo::new().unwrap();
    edit(&repo, "alpha", "First.");
    edit(&repo, "beta", "First.");
    let server = GitHttpServer::start(repo.root(), None).unwrap();
    let app = App::open(&home_of(&tmp));

    // Nothing sourced: nothing to count.
    let empty = app.ok("sources_updates", json!({}));
    assert_eq!((empty["sourced"].clone(), empty["outdated"].clone()), (json!(0), json!(0)));

    let look = app.ok("source_look", json!({"source": server.url("repo.git"), "reference": null}));
    app.ok("source_install", json!({"token": look["token"], "paths": ["skills/alpha", "skills/beta"]}));
    let before = app.ok("sources_updates", json!({}));
    assert_eq!(states(&before), pairs(&[("alpha", "unknown"), ("beta", "unknown")]), "not checked yet");

    // Up to date; then alpha changes upstream: exactly one update.
    let view = app.check();
    assert_eq!(states(&view), pairs(&[("alpha", "up_to_date"), ("beta", "up_to_date")]));
    assert_eq!(view["outdated"], json!(0));
    let commit = edit(&repo, "alpha", "Second, better.");
    let view = app.check();
    assert_eq!(states(&view), pairs(&[("alpha", "outdated"), ("beta", "up_to_date")]));
    assert_eq!((view["outdated"].clone(), view["couldNotCheck"].clone()), (json!(1), json!(0)));
    assert_eq!(view["skills"][0]["to"]["resolved"], json!(&commit[..7]));
    assert_eq!(view["skills"][0]["changedHere"], json!(false));
    assert!(home_of(&tmp).join("sources-check.json").is_file());

    // The diff shows the change, against the current revision.
    let diff = app.ok("source_update_diff", json!({"name": "alpha"}));
    assert_eq!(diff["current"], json!("v:1"));
    let files = diff["files"].as_array().unwrap();
    assert_eq!(files.len(), 1, "{diff}");
    assert_eq!((files[0]["path"].clone(), files[0]["change"].clone()), (json!("SKILL.md"), json!("modified")));
    let unified = files[0]["unified"].as_str().unwrap();
    assert!(unified.contains("-First.") && unified.contains("+Second, better."), "{unified}");

    // Update: one new revision, recorded; the indicator's count drops at once, and so does the
    // next check's.
    let done = app.ok("sources_update", json!({"names": ["alpha"], "force": false}));
    assert_eq!(done.as_array().unwrap().len(), 1, "{done}");
    assert_eq!((done[0]["state"].clone(), done[0]["revision"].clone()), (json!("updated"), json!(2)));
    assert_eq!(app.revision("alpha"), json!(2));
    assert_eq!(app.revision("beta"), json!(1), "a neighbour is not touched");
    let sources: Value = serde_json::from_slice(&std::fs::read(home_of(&tmp).join("sources.json")).unwrap()).unwrap();
    assert_eq!(sources["skills"]["alpha"]["source"]["resolved"], json!(commit));
    assert_eq!(app.ok("sources_updates", json!({}))["outdated"], json!(0));
    let view = app.check();
    assert_eq!(states(&view), pairs(&[("alpha", "up_to_date"), ("beta", "up_to_date")]));
    let again = app.ok("sources_update", json!({"names": ["alpha"], "force": false}));
    assert_eq!(again[0]["state"], json!("up_to_date"));
    assert_eq!(app.revision("alpha"), json!(2), "nothing to update makes no revision");

    // beta changed here and upstream: held back without force, replaced with it.
    let local = tmp.path().join("local/beta");
    std::fs::create_dir_all(&local).unwrap();
    std::fs::write(local.join("SKILL.md"), "---\nname: beta\ndescription: The beta skill.\n---\n\n# beta\n\nMine.\n")
        .unwrap();
    app.ok("import_skill", json!({"path": local.display().to_string(), "scope": "user", "trust": false}));
    edit(&repo, "beta", "Upstream.");
    let view = app.check();
    assert_eq!(states(&view), pairs(&[("alpha", "up_to_date"), ("beta", "outdated")]));
    assert_eq!(view["skills"][1]["changedHere"], json!(true));
    let held = app.ok("sources_update", json!({"names": [], "force": false}));
    assert_eq!((held[0]["name"].clone(), held[0]["state"].clone()), (json!("beta"), json!("held")));
    assert_eq!(held[0]["error"]["code"], json!("source_changed_here"));
    assert_eq!(app.revision("beta"), json!(2), "held back: the edit stays");
    let forced = app.ok("sources_update", json!({"names": ["beta"], "force": true}));
    assert_eq!((forced[0]["state"].clone(), forced[0]["revision"].clone()), (json!("updated"), json!(3)));
    let history = app.ok("skill_history", json!({"scope": "user", "name": "beta"}));
    assert!(history.as_array().unwrap().len() >= 3, "the edit stays in History: {history}");

    // Offline: the last answer (alpha outdated again) stays, flagged; also after a restart.
    edit(&repo, "alpha", "Third.");
    assert_eq!(app.check()["outdated"], json!(1));
    drop(server);
    let view = app.check();
    assert_eq!(states(&view), pairs(&[("alpha", "outdated"), ("beta", "up_to_date")]));
    assert_eq!((view["outdated"].clone(), view["couldNotCheck"].clone()), (json!(1), json!(2)));
    assert!(view["skills"][0]["couldNotCheck"].is_string(), "{view}");
    let offline = app.ok("sources_update", json!({"names": ["alpha"], "force": false}));
    assert_eq!(offline[0]["state"], json!("could_not_check"), "{offline}");
    assert_eq!(app.revision("alpha"), json!(2));
    drop(app);
    let reopened = App::open(&home_of(&tmp));
    let view = reopened.ok("sources_updates", json!({}));
    assert_eq!(states(&view), pairs(&[("alpha", "outdated"), ("beta", "up_to_date")]));
    assert_eq!(view["couldNotCheck"], json!(2));
    let err = reopened.invoke("source_update_diff", json!({"name": "alpha"})).unwrap_err();
    assert_eq!(err["code"], json!("source_unreachable"), "{err}");
}
