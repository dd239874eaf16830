//! "Add from…" through the real IPC path, against a Git repository served on loopback: Look
//! fetches and previews without writing, Install stores exactly the chosen skills with their
//! provenance and records them in sources.json, the skill view and History say where from, a
//! name taken by a skill from elsewhere is refused, and a source that cannot be reached writes
//! nothing.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use serde_json::{Value, json};
use skilldeck_app::state::AppState;
use skilldeck_sources::testing::{GitHttpServer, GitRepo};
use skilldeck_store::SkilldeckHome;
use tauri::test::{MockRuntime, get_ipc_response};
use tauri::{WebviewWindow, WebviewWindowBuilder};

struct Fx {
    tmp: tempfile::TempDir,
    _app: tauri::App<MockRuntime>,
    webview: WebviewWindow<MockRuntime>,
    key: String,
}

impl Fx {
    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let state = AppState::open(SkilldeckHome::new(tmp.path().join("home"))).unwrap();
        let app = skilldeck_app::builder::<MockRuntime>(state).build(tauri::generate_context!()).unwrap();
        let webview = WebviewWindowBuilder::new(&app, "main", Default::default()).build().unwrap();
        let key = app.invoke_key().to_owned();
        Self { tmp, _app: app, webview, key }
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

    fn home(&self) -> std::path::PathBuf {
        self.tmp.path().join("home")
    }
}

/// A repository with three skills and a marketplace whose one plugin holds two of them.
fn repo() -> (GitRepo, String) {
    let repo = GitRepo::new().unwrap();
    for name in ["alpha", "beta", "gamma"] {
        repo.skill(&format!("skills/{name}"), name).unwrap();
    }
    repo.write(
        ".claude-plugin/marketplace.json",
        r#"{"name": "fixture", "owner": {"name": "t"}, "plugins": [
             {"name": "docs", "description": "Document skills", "source": "./",
              "skills": ["./skills/alpha", "./skills/beta"]}]}"#,
    )
    .unwrap();
    let commit = repo.commit("three skills").unwrap();
    (repo, commit)
}

fn states(look: &Value) -> Vec<(String, String)> {
    look["preview"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| (i["location"].as_str().unwrap().to_owned(), i["state"].as_str().unwrap().to_owned()))
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter().map(|(a, b)| ((*a).to_owned(), (*b).to_owned())).collect()
}

#[test]
fn look_previews_install_stores_the_chosen_skills_with_their_source() {
    let fx = Fx::new();
    let (repo, commit) = repo();
    let server = GitHttpServer::start(repo.root(), None).unwrap();
    let url = server.url("repo.git");
    let host = url.trim_start_matches("http://").trim_end_matches(".git").to_owned();

    let look = fx.ok("source_look", json!({"source": url, "reference": null}));
    assert_eq!(states(&look), pairs(&[("skills/alpha", "new"), ("skills/beta", "new"), ("skills/gamma", "new")]));
    assert_eq!(
        look["plugins"],
        json!([{"name": "docs", "description": "Document skills", "skills": ["skills/alpha", "skills/beta"]}])
    );
    assert_eq!(look["origin"]["resolved"], json!(&commit[..7]));
    assert_eq!(look["origin"]["link"], json!(url.trim_end_matches(".git")));
    assert!(!fx.home().join("skills/user/alpha").exists(), "Look wrote nothing");
    assert!(!fx.home().join("sources.json").exists(), "Look wrote nothing");

    let token = look["token"].clone();
    let report = fx.ok("source_install", json!({"token": token, "paths": ["skills/alpha", "skills/gamma"]}));
    assert_eq!((report["imported"].clone(), report["refused"].clone()), (json!(2), json!(0)));
    let installed: Vec<&str> =
        report["items"].as_array().unwrap().iter().map(|i| i["location"].as_str().unwrap()).collect();
    assert_eq!(installed, ["skills/alpha", "skills/gamma"]);
    assert!(fx.home().join("skills/user/alpha/SKILL.md").is_file());
    assert!(!fx.home().join("skills/user/beta").exists(), "an unticked skill stays out");
    let sources: Value = serde_json::from_slice(&std::fs::read(fx.home().join("sources.json")).unwrap()).unwrap();
    assert_eq!(sources["skills"]["gamma"]["source"]["path"], json!("skills/gamma"));
    assert_eq!(sources["skills"]["gamma"]["source"]["resolved"], json!(commit));

    // The token is spent: the fetched source went with the install.
    let again = fx.invoke("source_install", json!({"token": token, "paths": ["skills/beta"]})).unwrap_err();
    assert_eq!(again["code"], json!("source_expired"));

    // The skill view and History say where it came from.
    let detail = fx.ok("skill_detail", json!({"scope": "user", "name": "alpha"}));
    let from = format!("{host}@{}, skills/alpha", &commit[..7]);
    assert_eq!(detail["origin"]["short"], json!(from));
    let history = fx.ok("skill_history", json!({"scope": "user", "name": "alpha"}));
    assert_eq!(history[0]["event"], json!(format!("sourced:{from}")));

    // Looking again: what came in is identical; a skill of the same name made here is refused.
    let made = fx.tmp.path().join("made/beta");
    std::fs::create_dir_all(&made).unwrap();
    std::fs::write(made.join("SKILL.md"), "---\nname: beta\ndescription: Made here.\n---\n# beta\n").unwrap();
    fx.ok("import_skill", json!({"path": made.display().to_string(), "scope": "user", "trust": false}));
    let look = fx.ok("source_look", json!({"source": url, "reference": "main"}));
    assert_eq!(
        states(&look),
        pairs(&[("skills/alpha", "identical"), ("skills/beta", "refused"), ("skills/gamma", "identical")])
    );
    assert_eq!(look["preview"]["items"][1]["error"]["code"], json!("source_clash"));
    assert!(fx.ok("source_forget", json!({"token": look["token"]})).as_bool().unwrap());

    // A local repository's path is a source too, and gives the same skills.
    let local = fx.ok("source_look", json!({"source": repo.work().display().to_string(), "reference": null}));
    assert_eq!(local["preview"]["items"].as_array().unwrap().len(), 3);
    assert_eq!(local["origin"]["link"], Value::Null, "no web page for a local repository");
}

#[test]
fn a_source_that_cannot_be_fetched_says_why_and_writes_nothing() {
    let fx = Fx::new();
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let err = fx
        .invoke("source_look", json!({"source": format!("http://127.0.0.1:{closed}/repo.git"), "reference": null}))
        .unwrap_err();
    assert_eq!(err["code"], json!("source_unreachable"), "{err}");
    let (repo, _) = repo();
    let server = GitHttpServer::start(repo.root(), None).unwrap();
    let err =
        fx.invoke("source_look", json!({"source": server.url("repo.git"), "reference": "no-such-branch"})).unwrap_err();
    assert_eq!(err["code"], json!("source_ref_not_found"), "{err}");
    let err = fx.invoke("source_look", json!({"source": "not a source at all", "reference": null})).unwrap_err();
    assert_eq!(err["code"], json!("source_invalid"), "{err}");
    assert!(!fx.home().join("sources.json").exists());
    let stored: Vec<_> = std::fs::read_dir(fx.home().join("skills/user"))
        .map(|d| d.flatten().map(|e| e.file_name()).filter(|n| !n.to_string_lossy().starts_with('.')).collect())
        .unwrap_or_default();
    assert!(stored.is_empty(), "{stored:?}");
}
