//! The Agents view: one card per agent with its skill folders and each skill's state there,
//! Skilldeck's MCP server in its settings, what its own listing budget does to its skills and
//! the next step; the sync plan and the sync, per-tool switches (a skill, auto-sync, the tool
//! itself), the agent's own per-skill switches, and a drifted skill's edits as diffs.

use crate::agents::{self, project_dir};
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use serde::Serialize;
use skilldeck_skill::SkillName;
use skilldeck_sources::origins::{self, Origins, Sourced, Unfollowed};
use skilldeck_sources::setup;
use skilldeck_sources::skills_cli::SkillsCliLocks;
use skilldeck_targets::adopt::{self, AdoptReport, AdoptRequest, KnownSources};
use skilldeck_targets::config_edit;
use skilldeck_targets::diff::{self, FileDiff};
use skilldeck_targets::plan::TargetPlan;
use skilldeck_targets::record::{self, Mode};
use skilldeck_targets::scan::ScanReport;
use std::path::PathBuf;
use tauri::{Emitter as _, State};

/// Sets skill `skill` to `to` (`on`, `off`, `name-only`) in agent `agent`'s own settings
/// (Claude Code's `skillOverrides`, Codex's `[[skills.config]]`), as `skilldeck agent-skill`
/// does: a backup first, only that entry changed. Returns whether the file changed.
#[tauri::command]
pub async fn agents_agent_skill(agent: String, skill: String, to: String) -> ApiResult<bool> {
    use skilldeck_mcp::switches::{self, Agent, Switch, SwitchError};
    use skilldeck_targets::budget::overrides;
    let agent = Agent::parse(&agent).ok_or_else(|| {
        ApiError::new("unknown_agent", format!("unknown agent {agent:?}: use claude-code or codex"))
            .arg("agent", &agent)
    })?;
    let to = match to.as_str() {
        "on" => Switch::On,
        "off" => Switch::Off,
        "name-only" => Switch::NameOnly,
        other => {
            return Err(ApiError::new("bad_switch", format!("unknown setting {other:?}: use on, off or name-only")));
        }
    };
    let env = skilldeck_targets::env::Env::from_process();
    let file = match agent {
        Agent::ClaudeCode => overrides::claude_settings(&env),
        Agent::Codex => overrides::codex_config(&env),
    }
    .ok_or_else(|| ApiError::new("no_home", "no home folder is known (HOME is not set)"))?;
    let api = |e: SwitchError| {
        let code = match &e {
            SwitchError::Unparsable { .. } => "agent_settings_unparsable",
            SwitchError::File(_) => "agent_settings_unwritable",
        };
        ApiError::new(code, e.to_string()).arg("path", file.display())
    };
    let plan = switches::plan(agent, &file, &skill, to).map_err(api)?;
    switches::apply(&plan).map_err(api)?;
    Ok(plan.changed)
}

/// One card per agent (every target and every MCP client, merged where they are one agent):
/// its folders with each skill's state there, Skilldeck's MCP server in its settings, what its
/// own listing does to its skills (as `skilldeck targets --budget`), and the next step; and the
/// skills that can be delivered.
#[tauri::command]
pub async fn agents_overview(state: State<'_, AppState>, project: Option<String>) -> ApiResult<agents::AgentsMerged> {
    let project = project_dir(project.as_deref())?;
    agents::merged(&state, project.as_deref())
}

/// What `agents_sync` would do, writing nothing: the plan the view shows before a sync.
#[tauri::command]
pub async fn agents_plan(
    state: State<'_, AppState>,
    project: Option<String>,
    targets: Vec<String>,
    overwrite: Vec<String>,
) -> ApiResult<Vec<TargetPlan>> {
    let project = project_dir(project.as_deref())?;
    agents::sync(&state, project.as_deref(), &targets, &overwrite, true)
}

/// Syncs the named targets (every active one when none is named).
#[tauri::command]
pub async fn agents_sync(
    state: State<'_, AppState>,
    project: Option<String>,
    targets: Vec<String>,
    overwrite: Vec<String>,
) -> ApiResult<Vec<TargetPlan>> {
    let project = project_dir(project.as_deref())?;
    agents::sync(&state, project.as_deref(), &targets, &overwrite, false)
}

/// Switches one skill on or off for one tool (config.toml `[targets.ID] exclude`/`skills`).
#[tauri::command]
pub async fn agents_set_skill(state: State<'_, AppState>, target: String, skill: String, on: bool) -> ApiResult<bool> {
    SkillName::parse(&skill)?;
    Ok(config_edit::set_skill(&state.storage().home().config_path(), &target, &skill, on)?)
}

/// Switches auto-sync on or off for one tool; switched on, the tool is synced at once and the
/// result sent as an `agents://synced` event.
#[tauri::command]
pub async fn agents_set_auto<R: tauri::Runtime>(
    app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    target: String,
    on: bool,
) -> ApiResult<bool> {
    let changed = config_edit::set_auto(&state.storage().home().config_path(), &target, on)?;
    if on && let Some(done) = agents::auto_sync(&state)? {
        let _ = app.emit(agents::SYNCED, &done);
    }
    Ok(changed)
}

/// Chooses how a tool's skills are delivered from the next sync: `copy` or `link`.
#[tauri::command]
pub async fn agents_set_mode(state: State<'_, AppState>, target: String, mode: Mode) -> ApiResult<bool> {
    Ok(config_edit::set_mode(&state.storage().home().config_path(), &target, mode)?)
}

/// Switches a tool on or off for syncs (`enabled`).
#[tauri::command]
pub async fn agents_set_enabled(state: State<'_, AppState>, target: String, on: bool) -> ApiResult<bool> {
    Ok(config_edit::set_enabled(&state.storage().home().config_path(), &target, on)?)
}

/// Lets a tool's agent be delivered every chosen skill even past its listing's budget (`on`),
/// or back to what fits (config.toml `[targets.ID] over_budget`). Returns whether it changed.
#[tauri::command]
pub async fn agents_set_over_budget(state: State<'_, AppState>, target: String, on: bool) -> ApiResult<bool> {
    Ok(config_edit::set_over_budget(&state.storage().home().config_path(), &target, on)?)
}

/// What was edited in the drifted skill `name` in the folder `folder`: per file, the diff from
/// the revision Skilldeck wrote there to the copy as it is now.
#[tauri::command]
pub async fn agents_drift(state: State<'_, AppState>, folder: String, name: String) -> ApiResult<Vec<FileDiff>> {
    let skill = SkillName::parse(&name)?;
    let folder = PathBuf::from(folder);
    let (id, _) = record::folder_id(&folder);
    let record = agents::records(&state).load(&id)?;
    let owned = record.skills.get(&name).ok_or_else(|| {
        ApiError::new("not_ours", format!("{name} in {} was not written by Skilldeck", folder.display()))
            .arg("name", &name)
            .arg("path", folder.display())
    })?;
    let written = state.storage().revision_files(owned.scope, &skill, owned.revision)?;
    diff::drift(&written, &format!("v:{}", owned.revision), &folder.join(&name)).map_err(|e| {
        ApiError::new("io_error", format!("could not read {}: {e}", folder.join(&name).display()))
            .arg("path", folder.join(&name).display())
            .arg("reason", e)
    })
}

/// Every skill found in the agent tools' folders: copies grouped by content, validity, and how
/// each stands against the store, with what the `skills` CLI's lockfiles say of where each came
/// from. Reads only.
#[tauri::command]
pub async fn agents_scan(state: State<'_, AppState>, project: Option<String>) -> ApiResult<ScanView> {
    let project = project_dir(project.as_deref())?;
    let report = agents::scan(&state, project.as_deref())?;
    Ok(ScanView { report, skills_cli: SkillsCliLocks::read(project.as_deref()) })
}

/// The scan, and the `skills` CLI's lockfiles (the same shape as `skilldeck scan --json`).
#[derive(Debug, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct ScanView {
    /// The scan.
    #[serde(flatten)]
    pub report: ScanReport,
    /// The `skills` CLI's lockfiles read, and those that could not be.
    pub skills_cli: SkillsCliLocks,
}

/// What adopting did, and the sources recorded for skills the `skills` CLI installed.
#[derive(Debug, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct AdoptView {
    /// What adopting did.
    #[serde(flatten)]
    pub done: AdoptReport,
    /// The skills whose source was recorded, so updates can follow them.
    pub sources: Vec<Sourced>,
    /// The skills whose source a lockfile named but that could not be followed, each with why.
    pub unfollowed: Vec<Unfollowed>,
}

/// Brings the named skills found in the tools' folders into your skills (identical content
/// makes no new revision) and makes those copies Skilldeck's; `from` takes the copy in one
/// tool when they differ.
#[tauri::command]
pub async fn agents_adopt(
    state: State<'_, AppState>,
    project: Option<String>,
    names: Vec<String>,
    from: Option<String>,
) -> ApiResult<AdoptView> {
    if names.is_empty() {
        return Err(ApiError::new("nothing_chosen", "choose the skills to bring in"));
    }
    let project = project_dir(project.as_deref())?;
    let report = agents::scan(&state, project.as_deref())?;
    // The sources the `skills` CLI names for these skills, fetched once per source, off the
    // window's thread: a skill whose source is found comes in with it, as `skilldeck adopt`.
    let locks = SkillsCliLocks::read(project.as_deref());
    let origins = if names.iter().any(|n| locks.entry(n).is_some()) {
        let storage = state.storage().clone();
        let wanted = names.clone();
        tauri::async_runtime::spawn_blocking(move || {
            let (hosts, config) = setup::fetch_config(&storage)?;
            Ok::<_, setup::SetupError>(origins::of_named(wanted.iter().map(String::as_str), &locks, &hosts, &config))
        })
        .await
        .map_err(|e| ApiError::new("task_failed", e.to_string()))?
        .map_err(|e| ApiError::new("config_invalid", e.to_string()))?
    } else {
        Origins::default()
    };
    let known: KnownSources =
        origins.found.iter().map(|(n, o)| (n.clone(), (o.digest, o.provenance.clone()))).collect();
    let req = AdoptRequest { names, from, disabled: state.disabled() };
    let done = adopt::adopt_with_sources(state.storage(), &agents::records(&state), &report, &req, &known);
    for a in &done.adopted {
        state.registry.invalidate(skilldeck_skill::Scope::User, Some(&a.name));
    }
    let in_user_scope = done.adopted.iter().filter(|a| a.outcome.in_user_scope()).map(|a| (a.name.clone(), a.digest));
    let sources = origins::record(state.storage().home(), in_user_scope, &origins)
        .map_err(|e| ApiError::new("sources_unreadable", e.to_string()))?;
    Ok(AdoptView { done, sources, unfollowed: origins.unfollowed })
}
