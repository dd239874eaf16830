//! The team scope in the app: its refresh state, a refresh on demand and in the background,
//! publishing a user skill to the team, and Settings → Team's remotes (list, add, test,
//! remove). Each calls `skilldeck-remote`, as the CLI does.

use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use serde::Serialize;
use skilldeck_remote::cache::Cache;
use skilldeck_remote::credentials::{Source, resolve};
use skilldeck_remote::{Remote, TEAM_REMOTE, When, sync_team};
use skilldeck_skill::{Scope, SkillName};
use tauri::{Emitter as _, Manager as _, State};

/// The event sent after every team refresh (background or asked for), with a `TeamStatus`.
pub const TEAM_STATUS: &str = "team://status";

/// How the team scope stands, for the sidebar's group header.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct TeamStatus {
    /// Whether `[remotes.team]` is configured.
    pub configured: bool,
    /// Its url.
    pub url: Option<String>,
    /// When it was last refreshed successfully (RFC 3339, UTC).
    pub last_refresh: Option<String>,
    /// Why the last refresh failed; `None` when it worked (the offline marker).
    pub offline: Option<String>,
    /// Skills the last refresh skipped (a damaged newest revision), one line each: they keep
    /// their last good revision.
    pub problems: Vec<String>,
}

fn status(state: &AppState) -> ApiResult<TeamStatus> {
    let Some(cfg) = skilldeck_remote::team::team_config(state.storage())? else {
        return Ok(TeamStatus::default());
    };
    let st = Cache::new(state.storage().home().root(), TEAM_REMOTE).state()?;
    Ok(TeamStatus {
        configured: true,
        url: Some(cfg.url),
        last_refresh: st.last_refresh,
        offline: st.last_error,
        problems: st.problems.iter().map(|p| p.line()).collect(),
    })
}

/// The team scope's state as last refreshed (no request is sent).
#[tauri::command]
pub async fn team_status(state: State<'_, AppState>) -> ApiResult<TeamStatus> {
    status(&state)
}

/// Refreshes the team scope now; offline, the last known revisions stay and the status says so.
#[tauri::command]
pub async fn team_refresh<R: tauri::Runtime>(
    app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
) -> ApiResult<TeamStatus> {
    sync_team(state.storage(), When::Always).await?;
    let st = status(&state)?;
    let _ = app.emit(TEAM_STATUS, &st);
    Ok(st)
}

/// What publishing `name` would do: the remote and the revision it would most likely get.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct PublishPreview {
    /// The remote's name.
    pub remote: String,
    /// Its url.
    pub url: String,
    /// The next revision as the store stands now (another machine may take it first; the
    /// publish then takes the one after).
    pub next_revision: u64,
}

fn open_team(state: &AppState) -> ApiResult<(Remote, String)> {
    let cfg = skilldeck_remote::team::team_config(state.storage())?.ok_or_else(|| {
        ApiError::new("remote_unknown", "no team store: add one with `skilldeck remote add team s3://BUCKET/PREFIX`")
    })?;
    Ok((Remote::with_config(state.storage().home().root(), TEAM_REMOTE, &cfg)?, cfg.url))
}

/// The confirmation's facts for publishing the user skill `name` to the team.
#[tauri::command]
pub async fn team_publish_preview(state: State<'_, AppState>, name: String) -> ApiResult<PublishPreview> {
    let (remote, url) = open_team(&state)?;
    let revs = remote.store().revisions(&name).await?;
    Ok(PublishPreview { remote: TEAM_REMOTE.to_owned(), url, next_revision: revs.last().copied().unwrap_or(0) + 1 })
}

/// What a publish did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct Published {
    /// The revision the team store gave it.
    pub revision: u64,
    /// Files uploaded (the rest were there already).
    pub uploaded: usize,
}

/// Publishes the user skill `name` as the team's next revision, then refreshes the team scope.
#[tauri::command]
pub async fn team_publish<R: tauri::Runtime>(
    app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    name: String,
) -> ApiResult<Published> {
    let skill = SkillName::parse(&name).map_err(|e| ApiError::new("name_invalid", e.to_string()))?;
    let files = state.storage().snapshot(Scope::User, &skill)?.files;
    let (remote, _) = open_team(&state)?;
    let report = remote.publish(&skill, &files).await?;
    sync_team(state.storage(), When::Always).await?;
    let _ = app.emit(TEAM_STATUS, &status(&state)?);
    Ok(Published { revision: report.revision, uploaded: report.uploaded_blobs })
}

/// Refreshes the team scope at start and then whenever `refresh_secs` has passed, on the async
/// runtime: the window never waits for it. Each round sends `TEAM_STATUS`. A change to
/// config.toml (a new interval from Settings) wakes it to read the interval again.
pub fn refresh_in_background<R: tauri::Runtime>(app: tauri::AppHandle<R>) {
    tauri::async_runtime::spawn(async move {
        loop {
            let mut woken = std::pin::pin!(crate::state::CONFIG_CHANGED.notified());
            woken.as_mut().enable();
            let state = app.state::<AppState>();
            let interval = match skilldeck_remote::team::team_config(state.storage()) {
                Ok(Some(cfg)) => {
                    if let Err(e) = sync_team(state.storage(), When::IfStale).await {
                        eprintln!("skilldeck-app: the team scope was not refreshed: {e}");
                    }
                    if let Ok(st) = status(&state) {
                        let _ = app.emit(TEAM_STATUS, &st);
                    }
                    cfg.refresh_interval()
                }
                // No team store (yet): look again in a minute, in case one is added.
                Ok(None) | Err(_) => std::time::Duration::from_secs(60),
            };
            let _ = tokio::time::timeout(interval.max(std::time::Duration::from_secs(30)), woken).await;
        }
    });
}

/// One `[remotes.NAME]` as Settings → Team lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct RemoteRow {
    /// Its name (`team` feeds the team scope).
    pub name: String,
    /// `s3://bucket/prefix`.
    pub url: String,
    /// The S3-compatible endpoint, when not AWS.
    pub endpoint: Option<String>,
    /// The region, when set.
    pub region: Option<String>,
    /// How old the team scope may get before it is refreshed, in seconds.
    pub refresh_secs: u64,
    /// When it was last refreshed (RFC 3339, UTC).
    pub last_refresh: Option<String>,
    /// Why the last refresh failed.
    pub last_error: Option<String>,
}

/// The remotes and where their credentials come from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct RemotesView {
    /// Every remote in config.toml.
    pub remotes: Vec<RemoteRow>,
    /// Where the credentials were found (never the keys), or why none were.
    pub credentials: String,
    /// Whether any were found.
    pub credentials_found: bool,
}

fn remotes_view(state: &AppState) -> ApiResult<RemotesView> {
    let home = state.storage().home();
    let mut remotes = Vec::new();
    for (name, cfg) in skilldeck_remote::config::load_remotes(&home.config_path())? {
        let st = Cache::new(home.root(), &name).state()?;
        remotes.push(RemoteRow {
            refresh_secs: cfg.refresh_interval().as_secs(),
            name,
            url: cfg.url,
            endpoint: cfg.endpoint,
            region: cfg.region,
            last_refresh: st.last_refresh,
            last_error: st.last_error,
        });
    }
    let (credentials, credentials_found) = match resolve("team", &|v| std::env::var(v).ok()) {
        Ok((_, Source::Environment)) => {
            ("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the environment".to_owned(), true)
        }
        Ok((_, Source::Profile { profile, file })) => (format!("profile {profile:?} in {}", file.display()), true),
        Err(e) => (e.to_string(), false),
    };
    Ok(RemotesView { remotes, credentials, credentials_found })
}

/// The remotes in config.toml and where their credentials come from.
#[tauri::command]
pub async fn team_remotes(state: State<'_, AppState>) -> ApiResult<RemotesView> {
    remotes_view(&state)
}

/// Adds `[remotes.NAME]` as `skilldeck remote add` does (comments kept, a bad name or url
/// refused with its message).
#[tauri::command]
pub async fn team_add_remote(
    state: State<'_, AppState>,
    name: String,
    url: String,
    endpoint: Option<String>,
    region: Option<String>,
) -> ApiResult<RemotesView> {
    let filled = |v: Option<String>| v.map(|s| s.trim().to_owned()).filter(|s| !s.is_empty());
    let cfg = skilldeck_remote::RemoteConfig {
        endpoint: filled(endpoint),
        region: filled(region),
        ..skilldeck_remote::RemoteConfig::new(url.trim())
    };
    skilldeck_remote::config::add_remote(&state.storage().home().config_path(), name.trim(), &cfg)?;
    remotes_view(&state)
}

/// Sets how old the team scope may get before it is refreshed (`[remotes.NAME] refresh_secs`,
/// through `config_edit`; `None`: the default); the running refresh takes it at once.
#[tauri::command]
pub async fn team_set_refresh(state: State<'_, AppState>, name: String, secs: Option<u64>) -> ApiResult<RemotesView> {
    skilldeck_agent::config_edit::set_remote_refresh_secs(&state.storage().home().config_path(), &name, secs)
        .map_err(crate::settings::config_error)?;
    crate::settings::config_changed(&state);
    remotes_view(&state)
}

/// Removes `[remotes.NAME]` as `skilldeck remote remove` does.
#[tauri::command]
pub async fn team_remove_remote(state: State<'_, AppState>, name: String) -> ApiResult<RemotesView> {
    skilldeck_remote::config::remove_remote(&state.storage().home().config_path(), &name)?;
    remotes_view(&state)
}

/// Lists remote `name`'s skills once, to tell whether its address and credentials work;
/// returns how many revisions of how many skills it holds.
#[tauri::command]
pub async fn team_test_remote(state: State<'_, AppState>, name: String) -> ApiResult<(usize, usize)> {
    let remote = Remote::open(state.storage().home().root(), &name)?;
    let (keys, _) = remote.store().manifest_keys().await?;
    let skills: std::collections::BTreeSet<&str> = keys.iter().map(|(s, _)| s.as_str()).collect();
    Ok((skills.len(), keys.len()))
}
