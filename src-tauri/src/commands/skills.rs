//! Reading skills: the sidebar list, one skill's detail, one file, and the listing preview.

use crate::error::ApiResult;
use crate::state::AppState;
use crate::views::{DiagView, FileRow, FileView, GrantsRow, ListingView, ProfileView, SkillDetail, SkillRow};
use rayon::prelude::*;
use skilldeck_select::catalogue::Catalogue;
use skilldeck_skill::{RelPath, Scope, SkillName};
use skilldeck_store::trust::Trust;
use tauri::State;

/// Every skill in both scopes, valid or not, sorted by name.
#[tauri::command]
pub async fn list_skills(state: State<'_, AppState>) -> ApiResult<Vec<SkillRow>> {
    crate::trace::since_start(state.started, "list_skills called");
    let t0 = std::time::Instant::now();
    let disabled = state.disabled();
    // An unreadable trust file approves nothing: every requested tool shows as not approved.
    let trust = Trust::load(state.storage().home()).unwrap_or_default();
    crate::trace::took("list_skills, config and trust read", t0);
    let t1 = std::time::Instant::now();
    let entries = state.list_all()?;
    crate::trace::took("list_skills, registry listed", t1);
    let pinned = state.pinned();
    // On every core: at 20,000 skills the rows take longer than the listing itself.
    let rows: Vec<SkillRow> = entries
        .par_iter()
        .map(|l| {
            let content = state.registry.trust_content(l.entry.scope, &l.entry.name).ok().flatten();
            SkillRow { pinned: pinned.contains(&l.entry.name), ..SkillRow::new(l, &disabled, &trust, content.as_ref()) }
                .judged(&state.registry, &l.entry)
        })
        .collect();
    crate::trace::took("list_skills, whole command", t0);
    if crate::trace::on() {
        let t2 = std::time::Instant::now();
        let bytes = serde_json::to_vec(&rows).map_or(0, |b| b.len());
        crate::trace::took(&format!("list_skills, JSON of {} KiB (a copy)", bytes / 1024), t2);
    }
    Ok(rows)
}

/// One skill: its row, problems, files, digest and what the audit finds in it.
#[tauri::command]
pub async fn skill_detail(state: State<'_, AppState>, scope: Scope, name: String) -> ApiResult<SkillDetail> {
    let entries = state.list_all()?;
    let listed = entries
        .iter()
        .find(|l| l.entry.scope == scope && l.entry.name == name)
        .ok_or_else(|| crate::error::ApiError::new("skill_not_found", format!("no skill {name:?} in {scope}")))?;
    let skill = SkillName::parse(&name)?;
    let files = state.storage().read_tree_sync(scope, &skill)?;
    // One read of the approvals serves the row's marker and the grants box.
    let trust = Trust::load(state.storage().home())?;
    let content = state.registry.trust_content(scope, &name)?;
    let audit = crate::commands::risks::audit_view(&state, &trust, scope, &name)?;
    Ok(SkillDetail {
        row: SkillRow {
            pinned: state.pinned().contains(&listed.entry.name),
            ..SkillRow::new(listed, &state.disabled(), &trust, content.as_ref())
        }
        .judged(&state.registry, &listed.entry),
        diagnostics: listed.entry.diagnostics.iter().map(DiagView::from).collect(),
        files: files.into_iter().map(|f| FileRow { path: f.path.to_string(), size: f.size }).collect(),
        digest: state.registry.digest(scope, &name)?.short(),
        grants: trust.view(scope, &name, &listed.entry.meta, content.as_ref()).into(),
        audit,
        origin: origin(&state, scope, &name),
    })
}

/// Where user skill `name` came from, when `sources.json` says it came from a source; none for
/// other scopes and when the file cannot be read (the CLI's `outdated` reports that).
fn origin(state: &AppState, scope: Scope, name: &str) -> Option<crate::sources::OriginView> {
    if scope != Scope::User {
        return None;
    }
    let installed = skilldeck_sources::installed::InstalledSkills::load(state.storage().home()).ok()?;
    installed.get(name).map(|r| crate::sources::OriginView::of(&r.source))
}

/// The requested tools of skill `name` in `scope` as stored now, and whether they are in force.
pub(crate) fn grants_of(state: &AppState, scope: Scope, name: &str) -> ApiResult<GrantsRow> {
    let meta = state.registry.get(scope, name)?.map(|e| e.meta.clone()).unwrap_or_default();
    let content = state.registry.trust_content(scope, name)?;
    Ok(Trust::load(state.storage().home())?.view(scope, name, &meta, content.as_ref()).into())
}

/// Approves (`trusted: true`) or withdraws the approval of a skill's `allowed-tools`; returns
/// the grants as they now stand.
#[tauri::command]
pub async fn set_skill_trust(
    state: State<'_, AppState>,
    scope: Scope,
    name: String,
    trusted: bool,
) -> ApiResult<GrantsRow> {
    let skill = SkillName::parse(&name)?;
    let entry = state
        .registry
        .get(scope, skill.as_str())?
        .ok_or_else(|| crate::error::ApiError::new("skill_not_found", format!("no skill {name:?} in {scope}")))?;
    let mut trust = Trust::load(state.storage().home())?;
    let content = state.registry.trust_content(scope, skill.as_str())?;
    if trusted {
        trust.approve(scope, skill.as_str(), &entry.meta, content.as_ref())?;
    } else {
        trust.revoke(scope, skill.as_str())?;
    }
    Ok(trust.view(scope, skill.as_str(), &entry.meta, content.as_ref()).into())
}

/// One file of a skill, shaped for the viewer.
#[tauri::command]
pub async fn read_skill_file(
    state: State<'_, AppState>,
    scope: Scope,
    name: String,
    path: String,
) -> ApiResult<FileView> {
    let skill = SkillName::parse(&name)?;
    let rel = RelPath::parse(&path)?;
    let bytes = state.storage().read_raw_file_sync(scope, &skill, &rel)?;
    Ok(crate::file_view::file_view(&path, bytes))
}

/// The skills `query` finds as `find_skills` does (words, and meaning when the model is on),
/// best first, at most `limit` (default 8): the sidebar shows those its literal filter missed
/// below its matches. Only skills a model may be listed are ranked (not switched off, held or
/// invalid).
#[tauri::command]
pub async fn search_by_meaning(
    state: State<'_, AppState>,
    query: String,
    limit: Option<usize>,
) -> ApiResult<Vec<crate::views::MeaningHit>> {
    let query = query.trim();
    if query.is_empty() {
        return Ok(Vec::new());
    }
    let opts = state.listing_options()?;
    let found = state.registry.find_skills(&opts, query, limit.unwrap_or(8).min(50))?;
    Ok(found.into_iter().map(|f| crate::views::MeaningHit { scope: f.scope, name: f.name, why: f.why }).collect())
}

/// The L1 listing a model would get now: what config.toml gives a session with the default
/// provider (its budget, tier, pinned and switched-off skills), with `budget` instead when
/// given, for a conversation whose latest user message is `request` (the same call as
/// `skilldeck prompt --request`), narrowed by the `.skilldeck.toml` profile of `workspace`.
#[tauri::command]
pub async fn listing_preview(
    state: State<'_, AppState>,
    budget: Option<usize>,
    request: Option<String>,
    workspace: Option<String>,
) -> ApiResult<ListingView> {
    let mut opts = state.listing_options()?;
    if let Some(b) = budget {
        opts.budget_tokens = b;
    }
    let mut profile = None;
    if let Some(ws) = workspace.as_deref().map(str::trim).filter(|w| !w.is_empty()) {
        let ws = std::path::Path::new(ws);
        opts.profile = skilldeck_agent::profile::load(ws)
            .map_err(|e| crate::error::ApiError::new("profile_invalid", e.to_string()))?;
        profile = opts.profile.as_ref().map(|p| ProfileView {
            path: ws.join(skilldeck_agent::profile::PROFILE_FILE).display().to_string(),
            skills: p.skills.iter().cloned().collect(),
            tags: p.tags.iter().cloned().collect(),
        });
    }
    let query = skilldeck_select::ranker::Query::new(request.as_deref().unwrap_or_default());
    let meaning = crate::meaning::status(&state);
    let l = state.registry.listing_for(&opts, &query)?;
    Ok(ListingView {
        listed: l.skills.len(),
        text: l.text,
        estimated_tokens: l.estimated_tokens,
        budget_tokens: l.budget_tokens,
        shortened: l.shortened,
        skills: l.skills,
        ranked: l.ranked,
        more: l.more,
        profile,
        meaning,
    })
}

/// Pins a skill (always in full in a ranked listing) or unpins it, in config.toml's
/// `[listing] pinned` with the user's comments kept; returns whether anything changed.
#[tauri::command]
pub async fn set_skill_pinned(state: State<'_, AppState>, name: String, pinned: bool) -> ApiResult<bool> {
    let name = SkillName::parse(&name)?;
    // Pinning a skill that exists, in any scope; unpinning any name, so a deleted skill's
    // leftover entry can be cleared (as `skilldeck pin` and `unpin` do).
    if pinned && !Scope::ALL.iter().any(|&scope| state.registry.get(scope, name.as_str()).ok().flatten().is_some()) {
        return Err(crate::error::ApiError::new(
            "skill_not_found",
            format!("no skill named {name:?}: only a stored skill can be pinned"),
        )
        .arg("name", name.as_str()));
    }
    skilldeck_agent::config_edit::set_skill_pinned(&state.storage().home().config_path(), name.as_str(), pinned)
        .map_err(|e| crate::error::ApiError::new("config_invalid", e.to_string()))
}

/// Sets the listing's token budget in config.toml, as `skilldeck budget` does; returns whether
/// anything changed.
#[tauri::command]
pub async fn set_listing_budget(state: State<'_, AppState>, tokens: usize) -> ApiResult<bool> {
    skilldeck_agent::config_edit::set_budget_tokens(&state.storage().home().config_path(), tokens)
        .map_err(|e| crate::error::ApiError::new("config_invalid", e.to_string()))
}

/// Switches whether agent turns name the closest skills to the model (`[listing] suggest`, as
/// `skilldeck suggest` does); returns whether anything changed.
#[tauri::command]
pub async fn set_listing_suggest(state: State<'_, AppState>, suggest: bool) -> ApiResult<bool> {
    skilldeck_agent::config_edit::set_listing_suggest(&state.storage().home().config_path(), suggest)
        .map_err(|e| crate::error::ApiError::new("config_invalid", e.to_string()))
}

/// Switches a skill on or off for agents (kept in config.toml); returns whether anything changed.
#[tauri::command]
pub async fn set_skill_enabled(state: State<'_, AppState>, name: String, enabled: bool) -> ApiResult<bool> {
    let name = SkillName::parse(&name)?;
    skilldeck_agent::config_edit::set_skill_enabled(&state.storage().home().config_path(), name.as_str(), enabled)
        .map_err(|e| crate::error::ApiError::new("config_invalid", e.to_string()))
}

/// The UI calls this once the skill list is on screen. With `SKILLDECK_TRACE_STARTUP=1` the
/// time since the process started goes to stderr, for `scripts/bench-app`.
#[tauri::command]
pub async fn ui_ready(state: State<'_, AppState>) -> ApiResult<u64> {
    let ms = state.started.elapsed().as_millis() as u64;
    if std::env::var_os("SKILLDECK_TRACE_STARTUP").is_some_and(|v| v == "1") {
        eprintln!("skilldeck-app: skill list shown {ms} ms after start (pid {})", std::process::id());
    }
    Ok(ms)
}

/// With `SKILLDECK_TRACE_UI=1`, prints a timing the UI measured (`label: N ms`) to stderr for
/// `scripts/bench-app`; returns whether tracing is on, so the UI measures only then.
#[tauri::command]
pub async fn ui_trace(label: String, ms: f64) -> bool {
    let on = std::env::var_os("SKILLDECK_TRACE_UI").is_some_and(|v| v == "1");
    if on && !label.is_empty() {
        eprintln!("skilldeck-app: trace {label}: {ms:.1} ms");
    }
    on
}

/// Opens an http, https or mailto link from rendered Markdown in the system browser; any other
/// address is refused with the reason.
#[tauri::command]
pub async fn open_link(url: String) -> ApiResult<()> {
    crate::links::open_external(&url).map_err(|e| crate::error::ApiError::new(e.code(), e.to_string()))
}
