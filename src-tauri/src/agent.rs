//! The agent panel's side of the app: open sessions, their running turns, shell approvals.
//! Holds the host that streams a turn to the UI and the panel's views; the loop is skilldeck-agent's.

use crate::error::{ApiError, ApiResult};
use serde::{Deserialize, Serialize};
use skilldeck_agent::config::{Config, OFFLINE};
use skilldeck_agent::events::{AgentEvent, Host, ShellAnswer, ShellQuestion, WriteQuestion};
use skilldeck_agent::replay::{ReplayItem, replay};
use skilldeck_agent::session::{AgentError, Session, SessionOptions};
use skilldeck_agent::shown;
use skilldeck_agent::transcript::{self, Record, SessionSummary, TranscriptError, TurnEnd};
use skilldeck_core::SkillRegistry;
use skilldeck_store::SkilldeckHome;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

/// What a turn's channel carries to the UI: the loop's events, and the panel's own.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
#[serde(untagged)]
pub enum PanelEvent {
    /// An event of the loop, as the CLI gets it too.
    Agent(AgentEvent),
    /// Something only the panel says.
    Panel(PanelNotice),
}

/// The panel's own events.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum PanelNotice {
    /// The turn runs in this session (sent first, so a new session's id is known at once).
    Session {
        /// The session's id.
        id: String,
        /// Its workspace.
        workspace: PathBuf,
        /// Who answers.
        provider: String,
    },
    /// The loop asks whether to run a shell command; answer with `agent_answer`. Its texts are as
    /// shown (`skilldeck_agent::shown::question`), not as run.
    Approval {
        /// The question's id.
        id: u64,
        /// The command, whether it would run sandboxed, and which grant covers it.
        #[serde(flatten)]
        question: ShellQuestion,
        /// Where it would run.
        workspace: PathBuf,
    },
    /// The loop asks whether `write_file` may write a file that runs code later (a git hook, a
    /// build file); answer with `agent_answer`.
    WriteApproval {
        /// The question's id.
        id: u64,
        /// The path, why it asks, and how many bytes.
        #[serde(flatten)]
        question: WriteQuestion,
        /// The workspace it is in.
        workspace: PathBuf,
    },
}

/// A provider the picker offers.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct ProviderView {
    /// Its name in config.toml (`offline` is built in).
    pub name: String,
    /// Who answers, for people.
    pub label: String,
    /// `offline`, `openai` or `anthropic`.
    pub kind: String,
    /// Why it cannot be used now (a missing key, a missing setting), if it cannot.
    pub problem: Option<String>,
}

/// What the panel needs to open: the providers, the default one, past sessions.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct SetupView {
    /// Every provider, `offline` first.
    pub providers: Vec<ProviderView>,
    /// The one preselected.
    pub default_provider: String,
    /// Where the settings live.
    pub config_path: PathBuf,
    /// Why config.toml could not be read, when it could not (the offline provider still works).
    pub config_error: Option<String>,
    /// Past sessions, newest first.
    pub sessions: Vec<SessionSummary>,
}

/// A past session, as reopened: what it showed, in order.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct SessionView {
    /// Its id.
    pub id: String,
    /// Its workspace.
    pub workspace: PathBuf,
    /// Who answered last.
    pub provider: String,
    /// When it began.
    pub created: String,
    /// What it showed, as shown live (`skilldeck_agent::shown::replay_item`).
    pub items: Vec<ReplayItem>,
}

/// One request from the panel.
#[derive(Debug, Clone, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct SendRequest {
    /// The session to continue; none starts a new one on `workspace`.
    pub session_id: Option<String>,
    /// The workspace folder of a new session.
    pub workspace: Option<String>,
    /// The provider's name.
    pub provider: String,
    /// What the user asked.
    pub prompt: String,
    /// Whether shell commands may use the network in this turn (config.toml may allow it always).
    #[serde(default)]
    pub network: bool,
}

/// How a request ended.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct SendOutcome {
    /// The session it ran in.
    pub session_id: String,
    /// How the turn ended.
    pub end: TurnEnd,
}

struct Live {
    provider: String,
    session: Arc<tokio::sync::Mutex<Session>>,
    /// When it was opened, to let the oldest idle sessions go first.
    stamp: u64,
}

/// How many sessions stay open in memory; older idle ones are reopened from their transcript.
const KEEP_OPEN: usize = 8;

/// Closes the oldest idle sessions past `KEEP_OPEN` (their transcripts stay on disk).
fn evict_idle(live: &mut HashMap<String, Live>) {
    while live.len() > KEEP_OPEN {
        let oldest = live
            .iter()
            .filter(|(_, l)| l.session.try_lock().is_ok())
            .min_by_key(|(_, l)| l.stamp)
            .map(|(id, _)| id.clone());
        match oldest {
            Some(id) => live.remove(&id),
            None => return,
        };
    }
}

fn busy() -> ApiError {
    ApiError::new("turn_running", "this session is still answering; wait for it or stop it")
}

/// The panel's state: sessions opened for a turn, stop buttons, open approval questions.
#[derive(Default)]
pub struct AgentPanel {
    sessions: Mutex<HashMap<String, Live>>,
    running: Mutex<HashMap<String, CancellationToken>>,
    questions: Mutex<HashMap<u64, oneshot::Sender<ShellAnswer>>>,
    next_question: AtomicU64,
    next_use: AtomicU64,
}

impl std::fmt::Debug for AgentPanel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentPanel").finish_non_exhaustive()
    }
}

fn agent_error(e: AgentError) -> ApiError {
    let code = match &e {
        AgentError::Workspace { .. } | AgentError::Refused(_) => "workspace_invalid",
        AgentError::Transcript(TranscriptError::NotFound { .. }) => "session_not_found",
        AgentError::Transcript(TranscriptError::InUse { .. }) => "session_in_use",
        _ => "agent_failed",
    };
    let err = ApiError::new(code, e.to_string());
    match &e {
        AgentError::Workspace { path, source: skilldeck_mount::sandbox::SandboxError::NotFound { .. } } => {
            err.arg("path", path.display()).arg("missing", true)
        }
        AgentError::Workspace { path, .. } => err.arg("path", path.display()),
        AgentError::Refused(refused) => err.arg("path", &refused.path),
        _ => err,
    }
}

/// The agent settings in config.toml; the defaults when there is none.
pub fn config(home: &SkilldeckHome) -> ApiResult<Config> {
    Config::load(&home.config_path()).map_err(|e| ApiError::new("config_invalid", e.to_string()))
}

/// The providers, the default and past sessions. A broken config.toml still leaves `offline`.
pub fn setup(home: &SkilldeckHome) -> ApiResult<SetupView> {
    let (config, config_error) = match config(home) {
        Ok(c) => (c, None),
        Err(e) => (Config::default(), Some(e.message)),
    };
    let mut names: Vec<&str> = vec![OFFLINE];
    names.extend(config.providers.keys().map(String::as_str).filter(|n| *n != OFFLINE));
    let providers = names
        .into_iter()
        .map(|name| {
            let built = config.provider(name).map_err(|e| e.to_string()).and_then(|pc| {
                let kind = pc.api;
                pc.build().map(|p| p.info()).map_err(|e| format!("{kind:?} provider: {e}"))
            });
            match built {
                Ok(info) => ProviderView { name: name.to_owned(), label: info.label, kind: info.kind, problem: None },
                Err(problem) => ProviderView {
                    name: name.to_owned(),
                    label: name.to_owned(),
                    kind: String::new(),
                    problem: Some(problem),
                },
            }
        })
        .collect();
    let sessions =
        transcript::list(&home.sessions_dir()).map_err(|e| ApiError::new("sessions_unreadable", e.to_string()))?;
    Ok(SetupView {
        providers,
        default_provider: config.default_provider,
        config_path: home.config_path(),
        config_error,
        sessions,
    })
}

/// A past session replayed, without opening it for a turn (nothing is written).
pub fn session_view(home: &SkilldeckHome, id: &str) -> ApiResult<SessionView> {
    let not_found =
        || ApiError::new("session_not_found", format!("no session {id:?}; the list shows the sessions there are"));
    let path = transcript::path_of(&home.sessions_dir(), id).map_err(|_| not_found())?;
    if !path.is_file() {
        return Err(not_found());
    }
    let records = transcript::read(&path).map_err(|e| ApiError::new("session_unreadable", e.to_string()))?;
    let Some(Record::Session { workspace, provider, created, .. }) = records.first() else {
        return Err(not_found());
    };
    let last = records.iter().rev().find_map(|r| match r {
        Record::Resumed { provider, .. } => Some(provider.label.clone()),
        _ => None,
    });
    Ok(SessionView {
        id: id.to_owned(),
        workspace: workspace.clone(),
        provider: last.unwrap_or_else(|| provider.label.clone()),
        created: created.clone(),
        items: replay(&records).iter().map(shown::replay_item).collect(),
    })
}

/// The host of one turn: its events go to `emit`; shell questions wait for `AgentPanel::answer`.
/// Both go out as `shown` makes them (escapes, bidi and invisible characters written visibly), the
/// same as the CLI prints them; the session keeps and runs the original text.
struct PanelHost<'a, F> {
    panel: &'a AgentPanel,
    emit: F,
    workspace: PathBuf,
}

/// Forgets a question when its turn stops waiting for the answer.
struct Asked<'a>(&'a AgentPanel, u64);

impl Drop for Asked<'_> {
    fn drop(&mut self) {
        if let Ok(mut q) = self.0.questions.lock() {
            q.remove(&self.1);
        }
    }
}

#[async_trait::async_trait]
impl<F: Fn(PanelEvent) + Send + Sync> Host for PanelHost<'_, F> {
    fn event(&self, event: &AgentEvent) {
        (self.emit)(PanelEvent::Agent(shown::event(event)));
    }

    async fn approve_shell(&self, question: &ShellQuestion) -> ShellAnswer {
        let workspace = self.workspace.clone();
        self.ask(|id| PanelNotice::Approval { id, question: shown::question(question), workspace }).await
    }

    async fn approve_write(&self, question: &WriteQuestion) -> ShellAnswer {
        let workspace = self.workspace.clone();
        self.ask(|id| PanelNotice::WriteApproval { id, question: shown::write_question(question), workspace }).await
    }
}

impl<F: Fn(PanelEvent) + Send + Sync> PanelHost<'_, F> {
    /// Shows the question `notice(id)` and waits for `AgentPanel::answer`; a question that cannot
    /// be kept is denied.
    async fn ask(&self, notice: impl FnOnce(u64) -> PanelNotice) -> ShellAnswer {
        let (tx, rx) = oneshot::channel();
        let id = self.panel.next_question.fetch_add(1, Ordering::Relaxed) + 1;
        match self.panel.questions.lock() {
            Ok(mut q) => q.insert(id, tx),
            Err(_) => return ShellAnswer::Deny,
        };
        let _asked = Asked(self.panel, id);
        (self.emit)(PanelEvent::Panel(notice(id)));
        rx.await.unwrap_or(ShellAnswer::Deny)
    }
}

impl AgentPanel {
    /// Answers approval question `id`. An answer to a question no longer asked is refused.
    pub fn answer(&self, id: u64, answer: ShellAnswer) -> ApiResult<()> {
        let tx = self.questions.lock().ok().and_then(|mut q| q.remove(&id));
        match tx.map(|tx| tx.send(answer)) {
            Some(Ok(())) => Ok(()),
            _ => Err(ApiError::new("question_gone", "that command is no longer waiting for an answer")),
        }
    }

    /// Stops the turn running in session `id`, if one is; says whether one was.
    pub fn stop(&self, id: &str) -> bool {
        let token = self.running.lock().ok().and_then(|r| r.get(id).cloned());
        token.inspect(CancellationToken::cancel).is_some()
    }

    /// The session a request runs in: kept from an earlier turn with the same provider, reopened
    /// from its transcript, or new.
    fn session_for(
        &self,
        home: &SkilldeckHome,
        registry: &Arc<SkillRegistry>,
        request: &SendRequest,
    ) -> ApiResult<Arc<tokio::sync::Mutex<Session>>> {
        let config = config(home)?;
        let pc = config.provider(&request.provider).map_err(|e| ApiError::new("provider_unknown", e.to_string()))?;
        if let Some(id) = &request.session_id
            && let Ok(live) = self.sessions.lock()
            && let Some(l) = live.get(id)
        {
            if l.provider == request.provider {
                return Ok(Arc::clone(&l.session));
            }
            // Another provider reopens the transcript; never while a turn still writes to it.
            if l.session.try_lock().is_err() {
                return Err(busy());
            }
        }
        // The old session lets go of the transcript (and its lock) before it is reopened.
        if let Some(id) = &request.session_id
            && let Ok(mut live) = self.sessions.lock()
        {
            live.remove(id);
        }
        let provider = pc.build().map_err(|e| {
            ApiError::new("provider_unavailable", format!("the provider {:?} cannot be used: {e}", request.provider))
        })?;
        let opts = SessionOptions::from_config(&config, &pc);
        let registry = Arc::clone(registry);
        let session = match (&request.session_id, &request.workspace) {
            (Some(id), _) => Session::resume(home, id, registry, provider, opts),
            (None, Some(ws)) if !ws.trim().is_empty() => {
                Session::create(home, registry, Path::new(ws.trim()), provider, opts)
            }
            (None, _) => {
                return Err(ApiError::new("workspace_missing", "choose a workspace folder for the session first"));
            }
        }
        .map_err(agent_error)?;
        let id = session.id().to_owned();
        let session = Arc::new(tokio::sync::Mutex::new(session));
        if let Ok(mut live) = self.sessions.lock() {
            let stamp = self.next_use.fetch_add(1, Ordering::Relaxed);
            live.insert(id, Live { provider: request.provider.clone(), session: Arc::clone(&session), stamp });
            evict_idle(&mut live);
        }
        Ok(session)
    }

    /// Runs one turn of `request`, streaming its events to `emit`. One turn at a time a session.
    pub async fn send(
        &self,
        home: &SkilldeckHome,
        registry: &Arc<SkillRegistry>,
        request: SendRequest,
        emit: impl Fn(PanelEvent) + Send + Sync,
    ) -> ApiResult<SendOutcome> {
        if request.prompt.trim().is_empty() {
            return Err(ApiError::new("prompt_empty", "type a request first"));
        }
        let session = self.session_for(home, registry, &request)?;
        let Ok(mut session) = session.try_lock_owned() else {
            return Err(busy());
        };
        let id = session.id().to_owned();
        let cancel = CancellationToken::new();
        if let Ok(mut r) = self.running.lock() {
            r.insert(id.clone(), cancel.clone());
        }
        let workspace = session.workspace().to_owned();
        emit(PanelEvent::Panel(PanelNotice::Session {
            id: id.clone(),
            workspace: workspace.clone(),
            provider: session.provider().info().label,
        }));
        session.allow_network(request.network);
        let host = PanelHost { panel: self, emit, workspace };
        let end = session.run_turn(request.prompt.trim(), &host, &cancel).await;
        if let Ok(mut r) = self.running.lock() {
            r.remove(&id);
        }
        Ok(SendOutcome { session_id: id, end: end.map_err(agent_error)? })
    }
}
