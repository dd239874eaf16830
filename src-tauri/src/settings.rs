//! What the Settings view shows: config.toml's providers (with whether each key variable is
//! set, never its value), `[shell]`, the listing's settings, and the store's size on disk.
//! Holds the shaping only; every write goes through `skilldeck_agent::config_edit`.

use crate::error::{ApiError, ApiResult};
use serde::Serialize;
use skilldeck_agent::config::{Api, Config, OFFLINE, ShellConfig};
use skilldeck_agent::config_edit::BUDGET_RANGE;
use skilldeck_core::{SkilldeckHome, Tier};
use std::path::{Path, PathBuf};

/// One `[providers.NAME]` as the Models section lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderRow {
    /// Its name.
    pub name: String,
    /// The wire format.
    pub api: Api,
    /// The server's address, when set.
    pub base_url: Option<String>,
    /// The model, when set.
    pub model: Option<String>,
    /// The NAME of the variable holding its key, when it takes one.
    pub api_key_env: Option<String>,
    /// Whether that variable is set (non-empty) in the app's environment; `None` without one.
    pub key_present: Option<bool>,
    /// The model's tier.
    pub tier: Tier,
    /// The context window, in tokens.
    pub context_window: usize,
}

/// The listing's settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ListingSettings {
    /// `[listing] budget_tokens`.
    pub budget_tokens: usize,
    /// The smallest and largest budgets accepted.
    pub budget_range: (usize, usize),
    /// `[listing] pinned`.
    pub pinned: Vec<String>,
    /// The tier of the default provider, which decides which skills are listed.
    pub tier: Tier,
}

/// Everything the Settings view shows from config.toml.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SettingsView {
    /// config.toml's path.
    pub config_path: PathBuf,
    /// Why config.toml cannot be read, when it cannot: nothing can be changed until it is fixed.
    pub config_error: Option<String>,
    /// `default_provider`.
    pub default_provider: String,
    /// The configured providers, by name (`offline` is built in and not listed).
    pub providers: Vec<ProviderRow>,
    /// `[shell]` as in force (defaults filled in).
    pub shell: ShellConfig,
    /// `[shell]`'s defaults, shown beside each field.
    pub shell_defaults: ShellConfig,
    /// The listing's settings.
    pub listing: ListingSettings,
}

/// Whether the environment variable `name` is set to something.
fn present(name: &str) -> bool {
    std::env::var_os(name).is_some_and(|v| !v.is_empty())
}

/// The Settings view of the config.toml under `home`; a file that cannot be read gives the
/// defaults with its error.
pub fn view(home: &SkilldeckHome) -> SettingsView {
    let config_path = home.config_path();
    let (config, config_error) = match Config::load(&config_path) {
        Ok(c) => (c, None),
        Err(e) => (Config::default(), Some(e.to_string())),
    };
    let providers = config
        .providers
        .iter()
        .filter(|(name, _)| name.as_str() != OFFLINE)
        .map(|(name, p)| ProviderRow {
            name: name.clone(),
            api: p.api,
            base_url: p.base_url.clone(),
            model: p.model.clone(),
            api_key_env: p.api_key_env.clone(),
            key_present: p.api_key_env.as_deref().map(present),
            tier: p.tier,
            context_window: p.context_window,
        })
        .collect();
    let tier = config.provider(&config.default_provider).map_or(Tier::Ultra, |p| p.tier);
    SettingsView {
        config_path,
        config_error,
        default_provider: config.default_provider.clone(),
        providers,
        listing: ListingSettings {
            budget_tokens: config.listing.budget_tokens,
            budget_range: (*BUDGET_RANGE.start(), *BUDGET_RANGE.end()),
            pinned: config.listing.pinned.iter().cloned().collect(),
            tier,
        },
        shell: config.shell,
        shell_defaults: ShellConfig::default(),
    }
}

/// The store on disk, for the Storage section.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StorageView {
    /// `$SKILLDECK_HOME`.
    pub home: PathBuf,
    /// Whether `SKILLDECK_HOME` chose it (otherwise it is the platform's data folder).
    pub from_env: bool,
    /// Bytes of every file under it.
    pub home_bytes: u64,
    /// Files under it.
    pub home_files: u64,
    /// Bytes of the parse cache (`cache/<scope>.skills`).
    pub parse_cache_bytes: u64,
}

/// Adds up the files under `dir`, never following a link; what cannot be read counts as 0.
fn usage(dir: &Path) -> (u64, u64) {
    let (mut bytes, mut files) = (0, 0);
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for e in entries.flatten() {
            let Ok(meta) = e.path().symlink_metadata() else { continue };
            if meta.is_dir() {
                todo.push(e.path());
            } else {
                bytes += meta.len();
                files += 1;
            }
        }
    }
    (bytes, files)
}

/// The Storage section's figures for `home` (walks the whole folder).
pub fn storage(home: &SkilldeckHome) -> StorageView {
    let root = home.root();
    let (home_bytes, home_files) = usage(root);
    StorageView {
        home: root.to_path_buf(),
        from_env: std::env::var_os("SKILLDECK_HOME").is_some_and(|v| Path::new(&v) == root),
        home_bytes,
        home_files,
        parse_cache_bytes: skilldeck_core::parse_cache::size(root),
    }
}

/// A config.toml error as the UI gets it: the same words the CLI prints.
pub fn config_error(e: skilldeck_agent::config::ConfigError) -> ApiError {
    ApiError::new("config_invalid", e.to_string())
}

/// Provider `name` from config.toml, built as a session would build it.
pub fn provider(home: &SkilldeckHome, name: &str) -> ApiResult<std::sync::Arc<dyn skilldeck_agent::Provider>> {
    let config = Config::load(&home.config_path()).map_err(config_error)?;
    let pc = config.provider(name).map_err(config_error)?;
    pc.build().map_err(|e| ApiError::new("provider_test_failed", e.to_string()))
}
