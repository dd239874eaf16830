//! The Evals view's commands: a skill's queries and cases, saving its queries, running its
//! trigger evals over a channel, and Stop. The work is in `crate::evals`.

use crate::error::ApiResult;
use crate::evals::{
    CaseRow, EvalProgress, EvalsView, ImproveProgress, ImproveView, OutputRequest, OutputRunView, QueryRow, RecordRow,
    TriggerRunView,
};
use crate::state::AppState;
use skilldeck_skill::{Scope, SkillName};
use tauri::State;
use tauri::ipc::Channel;

/// The skill's trigger queries, output cases and past eval results.
#[tauri::command]
pub async fn skill_evals(state: State<'_, AppState>, scope: Scope, name: String) -> ApiResult<EvalsView> {
    crate::evals::view(&state.registry, scope, &SkillName::parse(&name)?)
}

/// The skill's past eval results, newest first (History's column): only its log is read.
#[tauri::command]
pub async fn skill_eval_records(state: State<'_, AppState>, scope: Scope, name: String) -> ApiResult<Vec<RecordRow>> {
    Ok(crate::evals::records(state.storage(), scope, &SkillName::parse(&name)?))
}

/// Stores the queries as the skill's `evals/eval_queries.json`, a new revision; returns it.
#[tauri::command]
pub async fn save_eval_queries(
    state: State<'_, AppState>,
    scope: Scope,
    name: String,
    queries: Vec<QueryRow>,
) -> ApiResult<u64> {
    crate::evals::save_queries(&state.registry, scope, &SkillName::parse(&name)?, &queries)
}

/// Runs the skill's trigger queries with `provider`, `runs` times each, telling `progress`.
#[tauri::command]
pub async fn run_trigger_evals(
    state: State<'_, AppState>,
    scope: Scope,
    name: String,
    provider: String,
    runs: u16,
    progress: Channel<EvalProgress>,
) -> ApiResult<TriggerRunView> {
    let name = SkillName::parse(&name)?;
    state.evals.run_triggers(&state.registry, scope, &name, &provider, runs, teller(progress)).await
}

/// Stops the skill's running evals; `false` when none ran.
#[tauri::command]
pub fn stop_evals(state: State<'_, AppState>, scope: Scope, name: String) -> bool {
    state.evals.stop(scope, &name)
}

/// Stores the cases as the skill's `evals/evals.json`, a new revision; returns it.
#[tauri::command]
pub async fn save_eval_cases(
    state: State<'_, AppState>,
    scope: Scope,
    name: String,
    cases: Vec<CaseRow>,
) -> ApiResult<u64> {
    crate::evals::save_cases(&state.registry, scope, &SkillName::parse(&name)?, &cases)
}

/// Runs the skill's output cases with the skill and the baseline, telling `progress`.
#[tauri::command]
pub async fn run_output_evals(
    state: State<'_, AppState>,
    scope: Scope,
    name: String,
    request: OutputRequest,
    progress: Channel<EvalProgress>,
) -> ApiResult<OutputRunView> {
    let name = SkillName::parse(&name)?;
    state.evals.run_outputs(&state.registry, scope, &name, &request, teller(progress)).await
}

/// Runs the description optimizer with `provider`; the winner is offered as a draft.
#[tauri::command]
pub async fn improve_description(
    state: State<'_, AppState>,
    scope: Scope,
    name: String,
    provider: String,
    runs: u16,
    progress: Channel<ImproveProgress>,
) -> ApiResult<ImproveView> {
    let name = SkillName::parse(&name)?;
    state.evals.improve(&state.registry, scope, &name, &provider, runs, teller(progress)).await
}

/// What a run calls with its progress: each step sent to the page over `channel` (a page that
/// went away loses the message, not the run).
fn teller<T: tauri::ipc::IpcResponse + Send + Sync>(channel: Channel<T>) -> impl Fn(T) + Send + Sync {
    move |p| {
        let _ = channel.send(p);
    }
}
