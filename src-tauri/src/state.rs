//! `AppState`: what the commands share, kept in `tauri::State`.
//! Holds the registry over the store, the agent panel and the watcher's handle; no UI logic.

use crate::agent::AgentPanel;
use crate::error::ApiError;
use skilldeck_agent::session::SessionOptions;
use skilldeck_core::SkillRegistry;
use skilldeck_core::registry::ListedEntry;
use skilldeck_select::listing::ListingOptions;
use skilldeck_skill::Scope;
use skilldeck_store::watch::SkillWatcher;
use skilldeck_store::{FsStorage, SkilldeckHome, bundled};
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, PoisonError};

/// Woken whenever config.toml changes (a Settings write, or the watcher seeing an edit; see
/// `settings::config_changed`): the background loops that read an interval from it (the update
/// check, the team refresh) wait on it beside their timers, so a new interval counts at once.
pub static CONFIG_CHANGED: tokio::sync::Notify = tokio::sync::Notify::const_new();

/// The app's shared state.
#[derive(Debug)]
pub struct AppState {
    /// The registry over the store (shared with agent sessions).
    pub registry: Arc<SkillRegistry>,
    /// The agent panel's sessions and questions.
    pub agent: AgentPanel,
    /// The Evals view's runs under way.
    pub evals: crate::evals::EvalsPanel,
    /// When the process started, for the start-up trace.
    pub started: std::time::Instant,
    /// Sources fetched by "Add from…" and not yet installed or cancelled.
    pub sources: crate::sources::PendingFetches,
    /// The last check for updates of sourced skills, with what it fetched.
    pub updates: crate::update_slot::Updates,
    watcher: Mutex<Option<SkillWatcher>>,
    /// Held while the whole store is listed (see `exclusively`).
    listing: Mutex<()>,
}

impl AppState {
    /// Opens the store at `home`, recovering from any crash and installing the bundled skills.
    pub fn open(home: SkilldeckHome) -> Result<Self, ApiError> {
        // config.toml's `[audit] hold`; one that cannot be read holds at the default, never less.
        let config = skilldeck_agent::config::Config::load(&home.config_path()).ok();
        let hold = config.as_ref().map_or(skilldeck_agent::config::HoldAt::High, |c| c.audit.hold);
        let chosen = config.as_ref().and_then(|c| c.listing.model.as_deref());
        let semantic = Arc::new(skilldeck_core::semantic::Semantic::for_home(home.root(), chosen));
        let storage = FsStorage::open(home)?;
        bundled::install(&storage)?;
        Ok(Self {
            registry: Arc::new(
                SkillRegistry::new(storage).with_hold(hold.level()).with_semantic(semantic).with_digests(true),
            ),
            agent: AgentPanel::default(),
            evals: crate::evals::EvalsPanel::default(),
            started: std::time::Instant::now(),
            sources: crate::sources::PendingFetches::default(),
            updates: crate::update_slot::Updates::default(),
            watcher: Mutex::new(None),
            listing: Mutex::new(()),
        })
    }

    /// Opens `$SKILLDECK_HOME`, or the platform data folder; `started` is when the process began.
    pub fn open_default(started: std::time::Instant) -> Result<Self, ApiError> {
        let home = SkilldeckHome::from_env().map_err(|e| ApiError::new("home_missing", e.to_string()))?;
        Ok(Self { started, ..Self::open(home)? })
    }

    /// Every skill in every scope, from the registry's cache when it is filled.
    pub fn list_all(&self) -> Result<Vec<ListedEntry>, ApiError> {
        Ok(self.exclusively(|| self.registry.list_metas_across(&Scope::ALL))?)
    }

    /// Runs `f` while no whole-store listing (`list_all`) can run: start-up lists the store
    /// this way so the page's first listing waits for its cache rather than read every skill
    /// a second time.
    pub fn exclusively<T>(&self, f: impl FnOnce() -> T) -> T {
        let _one_at_a_time = self.listing.lock().unwrap_or_else(PoisonError::into_inner);
        f()
    }

    /// The store.
    pub fn storage(&self) -> &FsStorage {
        self.registry.storage()
    }

    /// What a session with the default provider is shown: config.toml's budget, tier and the
    /// skills switched off.
    pub fn listing_options(&self) -> Result<ListingOptions, ApiError> {
        let config = crate::agent::config(self.storage().home())?;
        let opts = SessionOptions::for_default_provider(&config)
            .map_err(|e| ApiError::new("config_invalid", e.to_string()))?;
        Ok(opts.listing)
    }

    /// The skills switched off for agents; none when config.toml cannot be read (the agent
    /// panel and the listing preview report that).
    pub fn disabled(&self) -> BTreeSet<String> {
        crate::agent::config(self.storage().home()).map(|c| c.listing.disabled).unwrap_or_default()
    }

    /// The skills pinned in config.toml; none when it cannot be read (the listing preview
    /// reports that).
    pub fn pinned(&self) -> BTreeSet<String> {
        crate::agent::config(self.storage().home()).map(|c| c.listing.pinned).unwrap_or_default()
    }

    /// Keeps the watcher alive as long as the app.
    pub fn keep_watcher(&self, w: SkillWatcher) {
        if let Ok(mut slot) = self.watcher.lock() {
            *slot = Some(w);
        }
    }
}
