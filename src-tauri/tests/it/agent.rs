//! The agent panel's backend: a turn streamed to the panel, a session reopened as it was shown,
//! shell approvals answered from the UI, and the stop button. Real files, a loopback model server.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

#[path = "../../../crates/skilldeck-agent/tests/it/common/loopback.rs"]
mod loopback;

use loopback::{Loopback, Reply, openai_text, openai_tools};
use serde_json::{Value, json};
use skilldeck_agent::events::ShellAnswer;
use skilldeck_app::agent::{PanelEvent, SendOutcome, SendRequest};
use skilldeck_app::state::AppState;
use skilldeck_skill::{RelPath, Scope, SkillFiles, SkillName};
use skilldeck_store::SkilldeckHome;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

struct Fx {
    tmp: tempfile::TempDir,
    state: Arc<AppState>,
}

impl Fx {
    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(tmp.path().join("ws")).unwrap();
        let state = Arc::new(AppState::open(SkilldeckHome::new(tmp.path().join("home"))).unwrap());
        let files: SkillFiles = [
            (
                RelPath::parse("SKILL.md").unwrap(),
                b"---\nname: pdf\ndescription: Extract text and tables from PDF files\n---\n# PDF\nRead references/guide.md.\n"
                    .to_vec(),
            ),
            (RelPath::parse("references/guide.md").unwrap(), b"Use pdfplumber.".to_vec()),
        ]
        .into_iter()
        .collect();
        state.registry.write_skill(Scope::User, &SkillName::parse("pdf").unwrap(), &files).unwrap();
        Self { tmp, state }
    }

    fn workspace(&self) -> std::path::PathBuf {
        self.tmp.path().join("ws")
    }

    fn config(&self, text: &str) {
        std::fs::write(self.tmp.path().join("home/config.toml"), text).unwrap();
    }

    /// Starts a turn; its events arrive on the returned receiver as JSON, as the UI gets them.
    fn send(
        &self,
        request: SendRequest,
    ) -> (tokio::task::JoinHandle<Result<SendOutcome, skilldeck_app::error::ApiError>>, mpsc::UnboundedReceiver<Value>)
    {
        let (tx, rx) = mpsc::unbounded_channel();
        let state = Arc::clone(&self.state);
        let task = tokio::spawn(async move {
            let emit = move |e: PanelEvent| {
                let _ = tx.send(serde_json::to_value(&e).unwrap());
            };
            state.agent.send(state.storage().home(), &state.registry, request, emit).await
        });
        (task, rx)
    }

    fn request(&self, session: Option<&str>, provider: &str, prompt: &str) -> SendRequest {
        SendRequest {
            session_id: session.map(str::to_owned),
            workspace: Some(self.workspace().display().to_string()),
            provider: provider.into(),
            prompt: prompt.into(),
            network: false,
        }
    }
}

async fn next_of(rx: &mut mpsc::UnboundedReceiver<Value>, kind: &str) -> Value {
    tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            let e = rx.recv().await.expect("the turn ended first");
            if e["type"] == kind {
                return e;
            }
        }
    })
    .await
    .unwrap_or_else(|_| panic!("no {kind} event"))
}

async fn drain(mut rx: mpsc::UnboundedReceiver<Value>) -> Vec<Value> {
    let mut out = Vec::new();
    while let Some(e) = rx.recv().await {
        out.push(e);
    }
    out
}

#[tokio::test]
async fn an_offline_turn_streams_the_chip_and_the_answer_and_reopens_as_shown() {
    let fx = Fx::new();
    let setup = skilldeck_app::agent::setup(fx.state.storage().home()).unwrap();
    assert_eq!(setup.default_provider, "offline");
    assert_eq!(setup.providers[0].name, "offline");
    assert_eq!(setup.providers[0].label, "offline (no language model)");
    assert!(setup.sessions.is_empty());

    let (task, rx) = fx.send(fx.request(None, "offline", "Extract the tables from a PDF"));
    let outcome = task.await.unwrap().unwrap();
    assert_eq!(outcome.end, skilldeck_agent::TurnEnd::Answered);
    let events = drain(rx).await;
    let kinds: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(kinds.first(), Some(&"session"), "the session's id comes first: {kinds:?}");
    assert_eq!(events[0]["id"], outcome.session_id.as_str());
    assert_eq!(events[0]["provider"], "offline (no language model)");
    assert!(kinds.contains(&"tool_started") && kinds.contains(&"text_delta"));
    assert_eq!(kinds.last(), Some(&"turn_ended"));
    let chip = events.iter().find(|e| e["type"] == "tool_finished").unwrap();
    assert_eq!(
        chip,
        &json!({
            "type": "tool_finished", "call_id": "offline_1", "name": "view_skill", "ok": true,
            "display": "Skill activated: pdf v:1", "version": "1",
            "client_view": {"skillName": "pdf", "path": null, "content": "Skill activated."}
        })
    );
    let answer: String =
        events.iter().filter(|e| e["type"] == "text_delta").map(|e| e["text"].as_str().unwrap()).collect();
    assert!(answer.starts_with("[offline router: no language model]"), "{answer}");
    assert_eq!(
        std::fs::read_to_string(fx.workspace().join(".skills/pdf/references/guide.md")).unwrap(),
        "Use pdfplumber."
    );

    // The session is listed, and reopening it shows the same chip and answer without writing.
    let setup = skilldeck_app::agent::setup(fx.state.storage().home()).unwrap();
    assert_eq!(setup.sessions.len(), 1);
    assert_eq!(setup.sessions[0].id, outcome.session_id);
    let transcript = fx.tmp.path().join(format!("home/sessions/{}.jsonl", outcome.session_id));
    let before = std::fs::read(&transcript).unwrap();
    let view = skilldeck_app::agent::session_view(fx.state.storage().home(), &outcome.session_id).unwrap();
    assert_eq!(std::fs::read(&transcript).unwrap(), before, "viewing writes nothing");
    let items = serde_json::to_value(&view.items).unwrap();
    assert_eq!(items[0], json!({"type": "user", "text": "Extract the tables from a PDF"}));
    let mut replayed_chip = chip.clone();
    replayed_chip["type"] = "tool".into();
    replayed_chip["arguments"] = json!({"name": "pdf"});
    assert_eq!(items[1], replayed_chip);
    assert_eq!(items[2], json!({"type": "assistant", "text": answer}));

    // The next request continues the same session.
    let (task, rx) = fx.send(fx.request(Some(&outcome.session_id), "offline", "And the PDF guide.md?"));
    assert_eq!(task.await.unwrap().unwrap().session_id, outcome.session_id);
    drop(drain(rx).await);
    let err = skilldeck_app::agent::session_view(fx.state.storage().home(), "nope").unwrap_err();
    assert_eq!(err.code, "session_not_found");
}

#[tokio::test]
async fn bad_requests_get_clear_errors_and_write_nothing() {
    let fx = Fx::new();
    let sessions = fx.tmp.path().join("home/sessions");
    let mut req = fx.request(None, "offline", "hello");
    req.workspace = Some(fx.tmp.path().join("missing").display().to_string());
    let (task, _rx) = fx.send(req);
    assert_eq!(task.await.unwrap().unwrap_err().code, "workspace_invalid");
    let (task, _rx) = fx.send(fx.request(None, "nobody", "hello"));
    let err = task.await.unwrap().unwrap_err();
    assert_eq!(err.code, "provider_unknown");
    assert!(err.message.contains("offline"), "{}", err.message);
    let (task, _rx) = fx.send(fx.request(None, "offline", "   "));
    assert_eq!(task.await.unwrap().unwrap_err().code, "prompt_empty");
    fx.config("[providers.cloud]\napi = \"openai\"\nbase_url = \"http://127.0.0.1:9\"\nmodel = \"m\"\napi_key_env = \"SKILLDECK_TEST_UNSET_KEY\"\n");
    let setup = skilldeck_app::agent::setup(fx.state.storage().home()).unwrap();
    let cloud = setup.providers.iter().find(|p| p.name == "cloud").unwrap();
    assert!(cloud.problem.as_deref().unwrap().contains("SKILLDECK_TEST_UNSET_KEY"), "{cloud:?}");
    let (task, _rx) = fx.send(fx.request(None, "cloud", "hello"));
    assert_eq!(task.await.unwrap().unwrap_err().code, "provider_unavailable");
    assert_eq!(std::fs::read_dir(&sessions).map(|d| d.count()).unwrap_or(0), 0, "no transcript was started");
    fx.config("default_provider = 3\n");
    let setup = skilldeck_app::agent::setup(fx.state.storage().home()).unwrap();
    assert!(setup.config_error.is_some());
    assert_eq!(setup.providers.len(), 1, "offline still works with a broken config.toml");
}

#[tokio::test]
async fn shell_commands_wait_for_the_panel_and_the_stop_button_ends_the_turn() {
    let fx = Fx::new();
    let server = Loopback::start().await;
    fx.config(&format!("[providers.local]\napi = \"openai\"\nbase_url = \"{}\"\nmodel = \"m\"\n", server.url));

    // Allowed: the command runs in the workspace.
    server.push(Reply::sse(openai_tools(&[("call_1", "shell", json!({"command": "echo hi > out.txt"}))])));
    server.push(Reply::sse(openai_text("done")));
    let (task, mut rx) = fx.send(fx.request(None, "local", "write it"));
    let asked = next_of(&mut rx, "approval").await;
    assert_eq!(asked["command"], "echo hi > out.txt");
    assert!(asked["sandbox"].as_str().unwrap().contains("sandbox"), "{asked}");
    assert!(asked["sandboxed"].is_boolean(), "{asked}");
    fx.state.agent.answer(asked["id"].as_u64().unwrap(), ShellAnswer::Session).unwrap();
    let outcome = task.await.unwrap().unwrap();
    assert_eq!(outcome.end, skilldeck_agent::TurnEnd::Answered);
    assert_eq!(std::fs::read_to_string(fx.workspace().join("out.txt")).unwrap(), "hi\n");
    let id = outcome.session_id;

    // Refused: the model is told, nothing runs.
    server.push(Reply::sse(openai_tools(&[("call_2", "shell", json!({"command": "touch refused"}))])));
    server.push(Reply::sse(openai_text("ok")));
    let (task, mut rx) = fx.send(fx.request(Some(&id), "local", "again"));
    let asked = next_of(&mut rx, "approval").await;
    fx.state.agent.answer(asked["id"].as_u64().unwrap(), ShellAnswer::Deny).unwrap();
    let done = next_of(&mut rx, "tool_finished").await;
    assert_eq!(done["ok"], false);
    assert_eq!(done["client_view"]["error"]["code"], "shell_denied");
    task.await.unwrap().unwrap();
    assert!(!fx.workspace().join("refused").exists());

    // Stopped while the question is open: the turn ends at once, a second send is refused meanwhile.
    server.push(Reply::sse(openai_tools(&[("call_3", "shell", json!({"command": "touch never"}))])));
    server.push(Reply::sse(openai_text("after")));
    let (task, mut rx) = fx.send(fx.request(Some(&id), "local", "third"));
    let asked = next_of(&mut rx, "approval").await;
    let (busy, _rx2) = fx.send(fx.request(Some(&id), "local", "meanwhile"));
    assert_eq!(busy.await.unwrap().unwrap_err().code, "turn_running");
    let (other, _rx3) = fx.send(fx.request(Some(&id), "offline", "with another provider"));
    assert_eq!(other.await.unwrap().unwrap_err().code, "turn_running", "no second writer on the transcript");
    let started = Instant::now();
    assert!(fx.state.agent.stop(&id));
    let outcome = task.await.unwrap().unwrap();
    assert_eq!(outcome.end, skilldeck_agent::TurnEnd::Cancelled);
    assert!(started.elapsed() < Duration::from_secs(3));
    assert_eq!(
        fx.state.agent.answer(asked["id"].as_u64().unwrap(), ShellAnswer::Once).unwrap_err().code,
        "question_gone"
    );
    assert!(!fx.state.agent.stop(&id), "nothing runs any more");
    assert!(!fx.workspace().join("never").exists());

    // The session goes on after the stop.
    let (task, _rx) = fx.send(fx.request(Some(&id), "local", "fourth"));
    assert_eq!(task.await.unwrap().unwrap().end, skilldeck_agent::TurnEnd::Answered);
    assert_eq!(server.requests().len(), 6);

    // Allowed for the session: the same command runs again without a question.
    std::fs::remove_file(fx.workspace().join("out.txt")).unwrap();
    server.push(Reply::sse(openai_tools(&[("call_4", "shell", json!({"command": "echo hi > out.txt"}))])));
    server.push(Reply::sse(openai_text("again")));
    let (task, mut rx) = fx.send(fx.request(Some(&id), "local", "fifth"));
    let started = next_of(&mut rx, "tool_started").await;
    assert_eq!(started["preapproved_by"], "you, for this session");
    assert_eq!(task.await.unwrap().unwrap().end, skilldeck_agent::TurnEnd::Answered);
    assert_eq!(std::fs::read_to_string(fx.workspace().join("out.txt")).unwrap(), "hi\n");

    // Another provider continues the same session: the transcript is let go of, then reopened.
    let (task, _rx) = fx.send(fx.request(Some(&id), "offline", "now offline: extract a PDF"));
    let outcome = task.await.unwrap().unwrap();
    assert_eq!((outcome.session_id.as_str(), outcome.end), (id.as_str(), skilldeck_agent::TurnEnd::Answered));
    let view = skilldeck_app::agent::session_view(fx.state.storage().home(), &id).unwrap();
    assert_eq!(view.provider, "offline (no language model)");
}

/// Whether `text` holds a character a screen would act on or hide (`\n` allowed).
fn holds_hidden(text: &str) -> bool {
    skilldeck_skill::visible::first_hidden(text, true).is_some()
}

#[tokio::test]
async fn the_panel_gets_commands_and_answers_with_escapes_shown_and_runs_the_original() {
    let fx = Fx::new();
    let server = Loopback::start().await;
    fx.config(&format!("[providers.local]\napi = \"openai\"\nbase_url = \"{}\"\nmodel = \"m\"\n", server.url));
    // The model's command would read "Run `ls -la`" where \r and zero-width/bidi controls are drawn
    // as nothing; its answer hides a reordering and a terminal title in plain text and in Markdown.
    let hostile = "echo PWNED > hidden.txt #\u{1b}[2K\r\u{200B}Run `ls -la";
    let shown = "echo PWNED > hidden.txt #\\e[2K\\r\\u{200B}Run `ls -la";
    server.push(Reply::sse(openai_tools(&[("call_1", "shell", json!({"command": hostile}))])));
    server.push(Reply::sse(openai_text("done \u{202E}txt.exe \u{1b}]0;t\u{7}")));
    let (task, mut rx) = fx.send(fx.request(None, "local", "go"));
    let mut events = Vec::new();
    while events.last().is_none_or(|e: &Value| e["type"] != "approval") {
        events.push(tokio::time::timeout(Duration::from_secs(10), rx.recv()).await.unwrap().unwrap());
    }
    let asked = events.last().unwrap().clone();
    assert_eq!(asked["command"], shown);
    fx.state.agent.answer(asked["id"].as_u64().unwrap(), ShellAnswer::Once).unwrap();
    let outcome = task.await.unwrap().unwrap();
    events.extend(drain(rx).await);
    let started = events.iter().find(|e| e["type"] == "tool_started").unwrap();
    assert_eq!(started["arguments"]["command"], shown);
    let chip = events.iter().find(|e| e["type"] == "tool_finished").unwrap();
    assert_eq!(chip["display"], format!("Ran `{shown}`: exit 0"));
    let answer: String =
        events.iter().filter(|e| e["type"] == "text_delta").map(|e| e["text"].as_str().unwrap()).collect();
    assert_eq!(answer, "done \\u{202E}txt.exe \\e]0;t\\x07");
    // JSON writes C0 controls as \u escapes but bidi and zero-width characters as they are.
    for e in &events {
        assert!(!holds_hidden(&e.to_string()), "{e}");
    }
    // What ran is what the model wrote.
    assert_eq!(std::fs::read_to_string(fx.workspace().join("hidden.txt")).unwrap(), "PWNED\n");

    // Reopened, the session shows the same.
    let view = skilldeck_app::agent::session_view(fx.state.storage().home(), &outcome.session_id).unwrap();
    let items = serde_json::to_value(&view.items).unwrap();
    assert_eq!(items[1]["arguments"]["command"], shown);
    assert_eq!(items[1]["display"], format!("Ran `{shown}`: exit 0"));
    assert_eq!(items[2]["text"], answer);

    // Markdown turns entities into characters: the rendered answer shows those as escapes too.
    let html = skilldeck_app::commands::agent::agent_markdown("a &#x202E;b &#8203;c &#27;[2K".into());
    assert!(html.contains("a \\u{202E}b \\u{200B}c \\e[2K"), "{html}");
    assert!(!holds_hidden(&html), "{html}");
}

#[tokio::test]
async fn a_write_that_runs_code_later_waits_for_the_panel_and_a_refused_workspace_says_why() {
    let fx = Fx::new();
    let server = Loopback::start().await;
    fx.config(&format!("[providers.local]\napi = \"openai\"\nbase_url = \"{}\"\nmodel = \"m\"\n", server.url));
    let hook = json!({"path": ".git/hooks/pre-commit", "content": "#!/bin/sh\ntouch pwned\n"});
    server.push(Reply::sse(openai_tools(&[("call_1", "write_file", hook.clone())])));
    server.push(Reply::sse(openai_text("done")));
    let (task, mut rx) = fx.send(fx.request(None, "local", "write the hook"));
    let asked = next_of(&mut rx, "write_approval").await;
    assert_eq!(asked["path"], ".git/hooks/pre-commit");
    assert!(asked["reason"].as_str().unwrap().contains("git runs hooks"), "{asked}");
    fx.state.agent.answer(asked["id"].as_u64().unwrap(), ShellAnswer::Deny).unwrap();
    let done = next_of(&mut rx, "tool_finished").await;
    assert_eq!(done["client_view"]["error"]["code"], "write_denied");
    task.await.unwrap().unwrap();
    assert!(!fx.workspace().join(".git/hooks/pre-commit").exists());

    // Skilldeck's data folder is no workspace: the approvals kept there would be the model's to write.
    let mut req = fx.request(None, "offline", "hello");
    req.workspace = Some(fx.tmp.path().join("home").display().to_string());
    let (task, _rx) = fx.send(req);
    let err = task.await.unwrap().unwrap_err();
    assert_eq!(err.code, "workspace_invalid");
    assert!(err.message.contains("Skilldeck's data folder"), "{}", err.message);
}
