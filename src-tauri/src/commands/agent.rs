//! The agent panel's commands: providers and past sessions, a turn streamed over a channel,
//! its stop button and shell approvals. The work is in `crate::agent`.

use crate::agent::{PanelEvent, SendOutcome, SendRequest, SessionView, SetupView};
use crate::error::ApiResult;
use crate::state::AppState;
use skilldeck_agent::events::ShellAnswer;
use tauri::State;
use tauri::ipc::Channel;

/// The providers (offline preselected unless config.toml names another default) and past sessions.
#[tauri::command]
pub async fn agent_setup(state: State<'_, AppState>) -> ApiResult<SetupView> {
    crate::agent::setup(state.storage().home())
}

/// A past session as it was shown; nothing is written until the user sends in it.
#[tauri::command]
pub async fn agent_session(state: State<'_, AppState>, id: String) -> ApiResult<SessionView> {
    crate::agent::session_view(state.storage().home(), &id)
}

/// Runs one turn, streaming its events over `events`; returns how it ended.
#[tauri::command]
pub async fn agent_send(
    state: State<'_, AppState>,
    request: SendRequest,
    events: Channel<PanelEvent>,
) -> ApiResult<SendOutcome> {
    let emit = move |e: PanelEvent| {
        let _ = events.send(e);
    };
    state.agent.send(state.storage().home(), &state.registry, request, emit).await
}

/// Stops the turn running in session `id`; `false` when none was running.
#[tauri::command]
pub fn agent_stop(state: State<'_, AppState>, id: String) -> bool {
    state.agent.stop(&id)
}

/// Answers a shell approval question: `deny`, `once` or `session`.
#[tauri::command]
pub fn agent_answer(state: State<'_, AppState>, id: u64, answer: ShellAnswer) -> ApiResult<()> {
    state.agent.answer(id, answer)
}

/// An answer's Markdown as sanitized HTML, shown once its text is complete. Control, bidi and
/// invisible characters, including those Markdown makes from entities (`&#x202E;`), are shown as
/// escapes: the serialized HTML holds every other character as itself, so this covers them all.
#[tauri::command]
pub fn agent_markdown(text: String) -> String {
    skilldeck_skill::visible::visible(&crate::markdown::to_safe_html(&text)).into_owned()
}
