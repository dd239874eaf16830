//! What the Settings view shows: config.toml's providers (with whether each key variable is
//! set, never its value), `[shell]`, the listing's settings, `[audit]`, `[sources]`, and the
//! store's size on disk with the embedding model and its vectors. Holds the shaping, and
//! [`config_changed`], which hands a new config.toml to the parts of the running app that hold
//! its settings; every write goes through `skilldeck_agent::config_edit`.

use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use serde::Serialize;
use skilldeck_agent::config::{Api, Config, HoldAt, OFFLINE, ShellConfig};
use skilldeck_agent::config_edit::BUDGET_RANGE;
use skilldeck_core::semantic::Semantic;
use skilldeck_skill::Tier;
use skilldeck_sources::config::SourcesConfig;
use skilldeck_store::SkilldeckHome;
use std::path::{Path, PathBuf};

/// Hands config.toml as it is now to the running app: the registry's audit hold level (one
/// that cannot be read holds at the default, never less, as at start), and a wake-up for the
/// loops waiting on [`crate::state::CONFIG_CHANGED`]. Returns whether the hold level changed.
pub fn config_changed(state: &AppState) -> bool {
    let hold = Config::load(&state.storage().home().config_path()).map_or(HoldAt::High, |c| c.audit.hold);
    let changed = state.registry.set_hold(hold.level());
    crate::state::CONFIG_CHANGED.notify_waiters();
    changed
}

/// Takes config.toml's `[listing] model` into the running app when it names another model
/// than the one ranking (chosen in Settings, or by `skilldeck model use` while the app runs);
/// returns whether it switched. The caller starts computing the new model's vectors.
pub fn follow_model(state: &AppState) -> bool {
    let home = state.storage().home();
    let chosen = Config::load(&home.config_path()).ok().and_then(|c| c.listing.model);
    let want = skilldeck_core::semantic::Semantic::for_home(home.root(), chosen.as_deref());
    let current = state.registry.semantic();
    if current.is_some_and(|s| s.model_id() == want.model_id() && s.model_dir() == want.model_dir()) {
        return false;
    }
    state.registry.set_semantic(std::sync::Arc::new(want));
    true
}

/// One `[providers.NAME]` as the Models section lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
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
    /// Which system keychain keeps a key for it (Settings › Models, `skilldeck key set`), if
    /// one does; used when the variable is not set. Never the key.
    pub keychain: Option<skilldeck_agent::keychain::Keychain>,
    /// The model's tier.
    pub tier: Tier,
    /// The context window, in tokens.
    pub context_window: usize,
}

/// The listing's settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct ListingSettings {
    /// `[listing] budget_tokens`.
    pub budget_tokens: usize,
    /// The smallest and largest budgets accepted.
    pub budget_range: (usize, usize),
    /// `[listing] pinned`.
    pub pinned: Vec<String>,
    /// `[listing] suggest`: whether agent turns name the closest skills to the model.
    pub suggest: bool,
    /// The tier of the default provider, which decides which skills are listed.
    pub tier: Tier,
}

/// Everything the Settings view shows from config.toml.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
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
    /// `[audit] hold` as written (the default when absent).
    pub audit_hold: HoldAt,
    /// `[sources]`.
    pub sources: SourcesSettings,
}

/// `[sources]` as written and as in force, with the running update check's schedule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct SourcesSettings {
    /// `github` as written, when it is.
    pub github: Option<String>,
    /// `gitlab` as written, when it is.
    pub gitlab: Option<String>,
    /// `check_every` as written, when it is.
    pub check_every: Option<String>,
    /// GitHub's base URL in force.
    pub github_in_force: String,
    /// GitLab's base URL in force.
    pub gitlab_in_force: String,
    /// The check interval in force, in seconds; `None`: checks are off.
    pub check_every_secs: Option<u64>,
    /// Why `[sources]` cannot be read, when it cannot (the defaults are shown).
    pub error: Option<String>,
    /// What the running update check last read: its interval (`None`: off) and when it will
    /// next check (milliseconds since 1970); `None` before it first ran.
    pub checker: Option<crate::updates::Schedule>,
}

fn sources_settings(config: &Config, path: &Path) -> SourcesSettings {
    let written = |key: &str| config.sources.get(key).and_then(|v| v.as_str()).map(str::to_owned);
    let (in_force, error) = match SourcesConfig::load(path) {
        Ok(c) => (c, None),
        Err(e) => (SourcesConfig::default(), Some(e.to_string())),
    };
    SourcesSettings {
        github: written("github"),
        gitlab: written("gitlab"),
        check_every: written("check_every"),
        github_in_force: in_force.hosts.github,
        gitlab_in_force: in_force.hosts.gitlab,
        check_every_secs: in_force.check_every.map(|d| d.as_secs()),
        error,
        checker: crate::updates::schedule(),
    }
}

/// `[sources]`'s own reading (`skilldeck-sources`), as `config_edit::set_sources` checks a
/// new text with: its message when it refuses it.
pub fn check_sources(text: &str) -> Result<(), String> {
    SourcesConfig::parse(text, "config.toml").map(drop).map_err(|e| match e {
        skilldeck_sources::config::SourcesConfigError::Invalid { message, .. } => format!("[sources] {message}"),
        other => other.to_string(),
    })
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
            keychain: match p.api {
                Api::Offline => None,
                Api::Openai | Api::Anthropic => {
                    skilldeck_agent::keychain::get(name).ok().flatten().map(|(_, kept)| kept)
                }
            },
            tier: p.tier,
            context_window: p.context_window,
        })
        .collect();
    let tier = config.provider(&config.default_provider).map_or(Tier::Ultra, |p| p.tier);
    let sources = sources_settings(&config, &config_path);
    SettingsView {
        audit_hold: config.audit.hold,
        sources,
        config_path,
        config_error,
        default_provider: config.default_provider.clone(),
        providers,
        listing: ListingSettings {
            budget_tokens: config.listing.budget_tokens,
            budget_range: (*BUDGET_RANGE.start(), *BUDGET_RANGE.end()),
            pinned: config.listing.pinned.iter().cloned().collect(),
            suggest: config.listing.suggest,
            tier,
        },
        shell: config.shell,
        shell_defaults: ShellConfig::default(),
    }
}

/// What this app is, for the About section: the version and the commit it was built from (as
/// `skilldeck --version` says them) and the program that is running.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct AboutView {
    /// The release version (`0.1.0`).
    pub version: String,
    /// The full hash of the commit built from, when the build knew it.
    pub commit: Option<String>,
    /// That commit's date (`YYYY-MM-DD`), when known.
    pub commit_date: Option<String>,
    /// The one line to quote in a report: `0.1.0 (commit 17a2352c1f0e, 2026-12-06)`.
    pub line: String,
    /// The running program's path (`/usr/bin/skilldeck-app` when installed from the package).
    pub program: Option<PathBuf>,
}

/// The About section's facts.
pub fn about() -> AboutView {
    AboutView {
        version: skilldeck_version::VERSION.to_owned(),
        commit: skilldeck_version::commit().map(str::to_owned),
        commit_date: skilldeck_version::commit_date().map(str::to_owned),
        line: skilldeck_version::describe(),
        program: std::env::current_exe().ok(),
    }
}

/// The store on disk, for the Storage section.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
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
    /// The sentence-embedding model ranking by meaning uses, when one was found.
    pub model: Option<ModelView>,
    /// The English companion ranking requests in English beside it, when one was found.
    pub companion: Option<CompanionView>,
    /// Why ranking by meaning is off, when it is.
    pub model_off: Option<String>,
    /// The vector cache's file (`cache/vectors-<model>.bin`).
    pub vector_cache: PathBuf,
    /// The size in bytes of every model's vector cache file, the companion's too (0 when there
    /// is none).
    pub vector_cache_bytes: u64,
    /// Where ranking by meaning stands for the listed skills (vectors computed or missing).
    pub meaning: Option<crate::meaning::MeaningView>,
    /// The models installed in `$SKILLDECK_HOME/models/`, by id.
    pub installed: Vec<String>,
    /// The model config.toml's `[listing] model` chooses (`None`: the shipped one).
    pub chosen: Option<String>,
}

/// The embedding model as found at start.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct ModelView {
    /// Its id (its folder's name).
    pub id: String,
    /// Its folder.
    pub dir: PathBuf,
    /// Where it was found: `home` (`$SKILLDECK_HOME/models`), `env` (`SKILLDECK_MODELS_DIR`)
    /// or `program` (beside the program).
    pub found_in: &'static str,
    /// Bytes of its files.
    pub bytes: u64,
}

/// The English companion model as found at start.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct CompanionView {
    /// Its id (its folder's name).
    pub id: String,
    /// Its folder.
    pub dir: PathBuf,
    /// Bytes of its files.
    pub bytes: u64,
    /// Why it is left out, when it did not load.
    pub error: Option<String>,
}

fn companion_view(semantic: &Semantic) -> Option<CompanionView> {
    let (id, dir) = semantic.companion()?;
    let error = semantic.companion_error();
    Some(CompanionView { id: id.to_owned(), dir: dir.to_path_buf(), bytes: usage(dir).0, error })
}

fn model_view(root: &Path, semantic: &Semantic) -> Option<ModelView> {
    let dir = semantic.model_dir()?;
    let env = std::env::var_os("SKILLDECK_MODELS_DIR").map(PathBuf::from);
    let found_in = if dir.starts_with(root.join("models")) {
        "home"
    } else if env.is_some_and(|e| dir.starts_with(e)) {
        "env"
    } else {
        "program"
    };
    Some(ModelView { id: semantic.model_id().to_owned(), dir: dir.to_path_buf(), found_in, bytes: usage(dir).0 })
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

/// The Storage section's figures for the app's store (walks the whole folder).
pub fn storage(state: &AppState) -> StorageView {
    let home = state.storage().home();
    let root = home.root();
    let (home_bytes, home_files) = usage(root);
    let semantic = state.registry.semantic();
    let semantic = semantic.as_deref();
    let vector_cache = semantic.map_or_else(
        || skilldeck_store::vector_cache::path(root, skilldeck_embed::DEFAULT_MODEL_ID),
        |s| s.vector_cache_path(),
    );
    StorageView {
        home: root.to_path_buf(),
        from_env: std::env::var_os("SKILLDECK_HOME").is_some_and(|v| Path::new(&v) == root),
        home_bytes,
        home_files,
        parse_cache_bytes: skilldeck_store::parse_cache::size(root),
        model: semantic.and_then(|s| model_view(root, s)),
        companion: semantic.and_then(companion_view),
        model_off: semantic.and_then(|s| s.off_reason()),
        vector_cache_bytes: semantic
            .map_or_else(|| vec![vector_cache.clone()], Semantic::vector_cache_paths)
            .iter()
            .map(|p| std::fs::metadata(p).map_or(0, |m| m.len()))
            .sum(),
        vector_cache,
        meaning: crate::meaning::status(state),
        installed: skilldeck_core::semantic::installed_models(root),
        chosen: Config::load(&home.config_path()).ok().and_then(|c| c.listing.model),
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
