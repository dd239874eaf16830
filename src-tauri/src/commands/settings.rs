//! The Settings view's commands: read config.toml's settings, change them through
//! `skilldeck_agent::config_edit` (the CLI's edit path: comments kept, the result checked before
//! it replaces the file) and hand the change to the running app, test a provider with one tiny
//! request, and the store on disk with its caches.

use crate::error::{ApiError, ApiResult};
use crate::settings::{self, AboutView, SettingsView, StorageView, config_error};
use crate::state::AppState;
use skilldeck_agent::config::ShellConfig;
use skilldeck_agent::config_edit::{self, ProviderForm, SourcesForm};
use skilldeck_store::watch::StoreChange;
use tauri::{AppHandle, Emitter as _, Manager as _, Runtime, State};

/// What the Settings view shows from config.toml (read afresh each time).
#[tauri::command]
pub async fn settings_view(state: State<'_, AppState>) -> ApiResult<SettingsView> {
    Ok(settings::view(state.storage().home()))
}

/// Adds provider `name` (`adding`: refused when one of that name exists) or changes it; returns
/// the view as it is afterwards. A bad value is refused with config.toml's own message.
#[tauri::command]
pub async fn settings_save_provider(
    state: State<'_, AppState>,
    name: String,
    form: ProviderForm,
    adding: bool,
) -> ApiResult<SettingsView> {
    let home = state.storage().home();
    let name = name.trim();
    if adding && settings::view(home).providers.iter().any(|p| p.name == name) {
        return Err(ApiError::new(
            "provider_exists",
            format!("there is a provider named {name:?} already; choose another name or edit that one"),
        )
        .arg("name", name));
    }
    config_edit::set_provider(&home.config_path(), name, &form).map_err(config_error)?;
    Ok(settings::view(home))
}

/// Removes provider `name` (and `default_provider` when it named it).
#[tauri::command]
pub async fn settings_remove_provider(state: State<'_, AppState>, name: String) -> ApiResult<SettingsView> {
    let home = state.storage().home();
    config_edit::remove_provider(&home.config_path(), &name).map_err(config_error)?;
    Ok(settings::view(home))
}

/// Keeps `key` for provider `name` in the system keychain (never config.toml), as `skilldeck
/// key set` does; the provider uses it when its `api_key_env` variable is not set.
#[tauri::command]
pub async fn settings_set_provider_key(
    state: State<'_, AppState>,
    name: String,
    key: String,
) -> ApiResult<SettingsView> {
    let home = state.storage().home();
    let config = skilldeck_agent::config::Config::load(&home.config_path()).map_err(config_error)?;
    config.provider(&name).map_err(config_error)?;
    skilldeck_agent::keychain::set(&name, &key).map_err(keychain_error)?;
    Ok(settings::view(home))
}

/// Removes provider `name`'s key from the system keychain.
#[tauri::command]
pub async fn settings_remove_provider_key(state: State<'_, AppState>, name: String) -> ApiResult<SettingsView> {
    skilldeck_agent::keychain::remove(&name).map_err(keychain_error)?;
    Ok(settings::view(state.storage().home()))
}

fn keychain_error(e: skilldeck_agent::keychain::KeychainError) -> crate::error::ApiError {
    crate::error::ApiError::new(e.code(), e.to_string())
}

/// Makes `name` the default provider.
#[tauri::command]
pub async fn settings_default_provider(state: State<'_, AppState>, name: String) -> ApiResult<SettingsView> {
    let home = state.storage().home();
    config_edit::set_default_provider(&home.config_path(), &name).map_err(config_error)?;
    Ok(settings::view(home))
}

/// Sends provider `name` one tiny request through the provider code a session uses; returns
/// the start of its answer, or what went wrong in plain words.
#[tauri::command]
pub async fn settings_test_provider(state: State<'_, AppState>, name: String) -> ApiResult<String> {
    let provider = settings::provider(state.storage().home(), &name)?;
    skilldeck_agent::provider::probe::probe(provider.as_ref())
        .await
        .map_err(|e| ApiError::new("provider_test_failed", e.to_string()))
}

/// Writes `[shell]` (the Sandbox section) key by key.
#[tauri::command]
pub async fn settings_save_shell(state: State<'_, AppState>, shell: ShellConfig) -> ApiResult<SettingsView> {
    let home = state.storage().home();
    config_edit::set_shell(&home.config_path(), &shell).map_err(config_error)?;
    Ok(settings::view(home))
}

/// Sets `[audit] hold` (`high`, `critical` or `off`); the registry holds by it at once, and
/// the skills list is sent again so held skills show or lose their mark.
#[tauri::command]
pub async fn settings_set_audit_hold<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    hold: String,
) -> ApiResult<SettingsView> {
    let home = state.storage().home();
    config_edit::set_audit_hold(&home.config_path(), &hold).map_err(config_error)?;
    settings::config_changed(&state);
    let _ = app.emit(crate::watcher::CHANGED, [StoreChange::Config]);
    Ok(settings::view(home))
}

/// Writes `[sources]` (hosts and the update check's interval), refused with `[sources]`'s own
/// message when it would not read; the running update check takes the interval at once.
#[tauri::command]
pub async fn settings_save_sources(state: State<'_, AppState>, form: SourcesForm) -> ApiResult<SettingsView> {
    let home = state.storage().home();
    config_edit::set_sources(&home.config_path(), &form, settings::check_sources).map_err(config_error)?;
    settings::config_changed(&state);
    Ok(settings::view(home))
}

/// What this app is: its version, the commit it was built from, the running program.
#[tauri::command]
pub fn about() -> AboutView {
    settings::about()
}

/// Where the store is and what it takes on disk, with the embedding model and its vectors
/// (walks the folder, off the UI's thread).
#[tauri::command]
pub async fn settings_storage<R: Runtime>(app: AppHandle<R>) -> ApiResult<StorageView> {
    tauri::async_runtime::spawn_blocking(move || settings::storage(&app.state::<AppState>()))
        .await
        .map_err(|e| ApiError::new("io_error", format!("could not measure the store: {e}")))
}

/// Removes the vector cache (the skills' vectors for ranking by meaning) and starts computing
/// them again in the background; only the computing is lost. Returns the bytes freed.
#[tauri::command]
pub async fn settings_clear_vector_cache<R: Runtime>(app: AppHandle<R>) -> ApiResult<u64> {
    let worker = app.clone();
    let freed = tauri::async_runtime::spawn_blocking(move || {
        let state = worker.state::<AppState>();
        state.registry.semantic().map_or(Ok(0), |s| s.clear_vectors())
    })
    .await
    .map_err(|e| ApiError::new("io_error", format!("could not remove the vector cache: {e}")))?
    .map_err(|e| ApiError::new("io_error", format!("could not remove the vector cache: {e}")).arg("reason", e))?;
    crate::meaning::index_in_background(app);
    Ok(freed)
}

/// Chooses the installed embedding model that ranks by meaning (`None` or the shipped id: the
/// shipped model): written to config.toml's `[listing] model` as `skilldeck model use` writes
/// it, taken by the running app at once, and the skills' vectors for it computed in the
/// background. Returns the Storage section's figures with the new model.
#[tauri::command]
pub async fn settings_use_model<R: Runtime>(app: AppHandle<R>, id: Option<String>) -> ApiResult<StorageView> {
    let worker = app.clone();
    let view = tauri::async_runtime::spawn_blocking(move || -> ApiResult<StorageView> {
        let state = worker.state::<AppState>();
        let home = state.storage().home();
        let chosen = id.filter(|i| !i.is_empty() && i != skilldeck_embed::DEFAULT_MODEL_ID);
        if let Some(id) =
            chosen.as_ref().filter(|id| !skilldeck_core::semantic::installed_models(home.root()).contains(id))
        {
            return Err(ApiError::new(
                "model_not_installed",
                format!("{id} is not installed; run `skilldeck model install {id}` first"),
            )
            .arg("id", id));
        }
        config_edit::set_listing_model(&home.config_path(), chosen.as_deref()).map_err(config_error)?;
        settings::follow_model(&state);
        settings::config_changed(&state);
        Ok(settings::storage(&state))
    })
    .await
    .map_err(|e| ApiError::new("io_error", format!("could not switch the model: {e}")))??;
    crate::meaning::index_in_background(app);
    Ok(view)
}

/// Removes the parse cache; the next listing parses every skill again. Returns the bytes freed.
#[tauri::command]
pub async fn settings_clear_parse_cache(state: State<'_, AppState>) -> ApiResult<u64> {
    skilldeck_store::parse_cache::clear(state.storage().home().root())
        .map_err(|e| ApiError::new("io_error", format!("could not remove the parse cache: {e}")).arg("reason", e))
}

/// Opens the log folder (`<data folder>/logs/`) in the system's file manager, making it first
/// if the app has not written there yet.
#[tauri::command]
pub async fn open_log_folder(state: State<'_, AppState>) -> ApiResult<String> {
    let dir = state.storage().home().logs_dir();
    std::fs::create_dir_all(&dir).map_err(|e| {
        ApiError::new("open_failed", format!("could not make {}: {e}", dir.display())).arg("path", dir.display())
    })?;
    tracing::info!(dir = %dir.display(), "opening the log folder");
    tauri_plugin_opener::open_path(&dir, None::<&str>).map_err(|e| {
        ApiError::new("open_failed", format!("could not hand {} to the system: {e}", dir.display()))
            .arg("path", dir.display())
    })?;
    Ok(dir.display().to_string())
}
