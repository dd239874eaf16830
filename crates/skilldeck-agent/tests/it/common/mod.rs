//! Shared test fixtures: a temp home with a skill store, a workspace, and a recording host.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs, dead_code)]

pub mod loopback;

use skilldeck_agent::events::{AgentEvent, Host, ShellAnswer, ShellQuestion, WriteQuestion};
use skilldeck_agent::provider::Provider;
use skilldeck_agent::session::{Session, SessionOptions};
use skilldeck_core::SkillRegistry;
use skilldeck_skill::files::SkillFiles;
use skilldeck_skill::{RelPath, Scope, SkillName};
use skilldeck_store::{FsStorage, SkilldeckHome};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

pub struct Fixture {
    pub tmp: tempfile::TempDir,
    pub home: SkilldeckHome,
    pub registry: Arc<SkillRegistry>,
}

impl Fixture {
    pub fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let home = SkilldeckHome::new(tmp.path().join("home"));
        let storage = FsStorage::open(home.clone()).unwrap();
        std::fs::create_dir_all(tmp.path().join("ws")).unwrap();
        Self { tmp, home, registry: Arc::new(SkillRegistry::new(storage)) }
    }

    pub fn workspace(&self) -> PathBuf {
        self.tmp.path().join("ws").canonicalize().unwrap()
    }

    /// Uploads a user skill with `front` (frontmatter lines, no `name`), `body` and extra files.
    pub fn skill(&self, name: &str, front: &str, body: &str, extra: &[(&str, &str)]) {
        let mut files = SkillFiles::new();
        let md = format!("---\nname: {name}\n{front}---\n{body}\n");
        files.insert(RelPath::parse("SKILL.md").unwrap(), md.into_bytes());
        for (p, c) in extra {
            files.insert(RelPath::parse(p).unwrap(), c.as_bytes().to_vec());
        }
        self.registry.write_skill(Scope::User, &SkillName::parse(name).unwrap(), &files).unwrap();
    }

    pub fn session(&self, provider: Arc<dyn Provider>, opts: SessionOptions) -> Session {
        Session::create(&self.home, Arc::clone(&self.registry), &self.workspace(), provider, opts).unwrap()
    }
}

/// Records every event; answers approval questions with `allow`.
pub struct Recorder {
    pub events: Mutex<Vec<AgentEvent>>,
    pub asked: Mutex<Vec<String>>,
    pub questions: Mutex<Vec<ShellQuestion>>,
    pub allow: bool,
}

impl Recorder {
    pub fn new(allow: bool) -> Self {
        Self { events: Mutex::new(Vec::new()), asked: Mutex::new(Vec::new()), questions: Mutex::new(Vec::new()), allow }
    }

    pub fn take(&self) -> Vec<AgentEvent> {
        std::mem::take(&mut *self.events.lock().unwrap())
    }

    /// The display lines of finished tools.
    pub fn displays(&self) -> Vec<String> {
        self.events
            .lock()
            .unwrap()
            .iter()
            .filter_map(|e| match e {
                AgentEvent::ToolFinished { outcome, .. } => Some(outcome.display.clone()),
                _ => None,
            })
            .collect()
    }

    pub fn text(&self) -> String {
        self.events
            .lock()
            .unwrap()
            .iter()
            .filter_map(|e| match e {
                AgentEvent::TextDelta { text } => Some(text.as_str()),
                _ => None,
            })
            .collect()
    }
}

#[async_trait::async_trait]
impl Host for Recorder {
    fn event(&self, event: &AgentEvent) {
        self.events.lock().unwrap().push(event.clone());
    }

    async fn approve_shell(&self, question: &ShellQuestion) -> ShellAnswer {
        self.asked.lock().unwrap().push(question.command.clone());
        self.questions.lock().unwrap().push(question.clone());
        if self.allow { ShellAnswer::Once } else { ShellAnswer::Deny }
    }

    async fn approve_write(&self, question: &WriteQuestion) -> ShellAnswer {
        self.asked.lock().unwrap().push(format!("write {}", question.path));
        if self.allow { ShellAnswer::Once } else { ShellAnswer::Deny }
    }
}

use skilldeck_agent::message::{ModelRequest, StopReason, StreamEvent, ToolCall};
use skilldeck_agent::provider::{EventStream, ProviderError, ProviderInfo};
use std::collections::VecDeque;
use tokio_util::sync::CancellationToken;

/// A provider that plays back scripted replies and keeps every request.
pub struct Scripted {
    pub replies: Mutex<VecDeque<Vec<StreamEvent>>>,
    pub requests: Mutex<Vec<ModelRequest>>,
}

impl Scripted {
    pub fn new(replies: Vec<Vec<StreamEvent>>) -> Arc<Self> {
        Arc::new(Self { replies: Mutex::new(replies.into()), requests: Mutex::new(Vec::new()) })
    }

    pub fn requests(&self) -> Vec<ModelRequest> {
        self.requests.lock().unwrap().clone()
    }
}

/// A reply that calls one tool.
pub fn call(id: &str, name: &str, arguments: serde_json::Value) -> Vec<StreamEvent> {
    vec![
        StreamEvent::ToolCall { call: ToolCall { id: id.into(), name: name.into(), arguments } },
        StreamEvent::Finish { stop: StopReason::ToolUse },
    ]
}

/// A reply that answers with text.
pub fn say(text: &str) -> Vec<StreamEvent> {
    vec![StreamEvent::TextDelta { text: text.into() }, StreamEvent::Finish { stop: StopReason::EndTurn }]
}

#[async_trait::async_trait]
impl Provider for Scripted {
    fn info(&self) -> ProviderInfo {
        ProviderInfo { kind: "scripted".into(), model: "script".into(), label: "scripted test model".into() }
    }

    async fn stream(&self, request: &ModelRequest, _cancel: &CancellationToken) -> Result<EventStream, ProviderError> {
        self.requests.lock().unwrap().push(request.clone());
        let reply = self.replies.lock().unwrap().pop_front().unwrap_or_else(|| say("(script over)"));
        Ok(Box::pin(futures_util::stream::iter(reply.into_iter().map(Ok))))
    }
}
