//! Opening the store for a command: the home, recovery, bundled skills, and name resolution.
//! Holds what every store-touching command does first; not the commands themselves.

use crate::output;
use anyhow::{Context as _, bail};
use skilldeck_agent::config::{Config, HoldAt};
use skilldeck_agent::session::SessionOptions;
use skilldeck_core::SkillRegistry;
use skilldeck_core::semantic::Semantic;
use skilldeck_remote::{Offline, TeamSync, When};
use skilldeck_select::listing::ListingOptions;
use skilldeck_skill::{Scope, SkillName};
use skilldeck_store::{FsStorage, SkilldeckHome, bundled};

/// The one line saying the team scope is offline and how old its revisions are.
pub fn offline_line(off: &Offline) -> String {
    let when = off.last_refresh.as_deref().unwrap_or("never");
    format!("offline: the team store could not be refreshed ({}); team skills as of {when}", off.reason)
}

/// The opened store and its registry.
pub struct Ctx {
    /// The registry over the store.
    pub registry: SkillRegistry,
}

impl Ctx {
    /// Opens `$SKILLDECK_HOME`, recovers from any crash and installs bundled skills.
    pub fn open() -> anyhow::Result<Self> {
        let home = SkilldeckHome::from_env()?;
        let storage = FsStorage::open(home.clone())
            .with_context(|| format!("could not open the skill store in {}", home.root().display()))?;
        bundled::install(&storage).context("could not install the bundled skills")?;
        // A config.toml that cannot be read holds at the default (`high`): never less.
        let config = Config::load(&home.config_path()).ok();
        let hold = config.as_ref().map_or(HoldAt::High, |c| c.audit.hold);
        let chosen = config.as_ref().and_then(|c| c.listing.model.as_deref());
        let semantic = std::sync::Arc::new(Semantic::for_home(home.root(), chosen));
        Ok(Self { registry: SkillRegistry::new(storage).with_hold(hold.level()).with_semantic(semantic) })
    }

    /// `open`, then the team scope brought up to date when its last refresh is older than
    /// `[remotes.team] refresh_secs`: for commands that read the listing. Offline (or refused),
    /// the last known team revisions stay and one line on stderr says so; the sync is returned
    /// for `--json` output.
    pub fn open_listing() -> anyhow::Result<(Self, TeamSync)> {
        let ctx = Self::open()?;
        let sync = ctx.sync_team(When::IfStale);
        Ok((ctx, sync))
    }

    /// Brings the team scope up to date (see `skilldeck_remote::team`), saying on stderr when
    /// it is offline or could not be updated; never fails the command.
    pub fn sync_team(&self, when: When) -> TeamSync {
        let synced = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(anyhow::Error::from)
            .and_then(|rt| Ok(rt.block_on(skilldeck_remote::sync_team(self.storage(), when))?));
        match synced {
            Ok(sync) => {
                if let Some(off) = &sync.offline {
                    eprintln!("{}", offline_line(off));
                }
                for p in &sync.problems {
                    eprintln!("{}", output::problem_line(skilldeck_remote::TEAM_REMOTE, p));
                }
                sync
            }
            Err(e) => {
                eprintln!("warning: the team scope was not updated ({e:#}); showing its last known revisions");
                TeamSync { configured: true, ..TeamSync::default() }
            }
        }
    }

    /// The store.
    pub fn storage(&self) -> &FsStorage {
        self.registry.storage()
    }

    /// The settings in config.toml (the defaults when there is none).
    pub fn config(&self) -> anyhow::Result<Config> {
        Ok(Config::load(&self.storage().home().config_path())?)
    }

    /// What a session with the default provider is shown: config.toml's budget, tier and the
    /// skills switched off.
    pub fn listing_options(&self) -> anyhow::Result<ListingOptions> {
        Ok(SessionOptions::for_default_provider(&self.config()?)?.listing)
    }

    /// Finds `name` in `scope`, or when no scope is given, in `user`, then `team`, then `system`
    /// (the shadowing order).
    pub fn resolve(&self, name: &str, scope: Option<Scope>) -> anyhow::Result<(Scope, SkillName)> {
        let parsed = SkillName::parse(name).with_context(|| format!("{name:?} is not a skill name"))?;
        let scopes: Vec<Scope> = match scope {
            Some(s) => vec![s],
            None => Scope::ALL.iter().rev().copied().collect(),
        };
        for s in &scopes {
            if self.storage().skill_dir(*s, &parsed).is_dir() {
                return Ok((*s, parsed));
            }
        }
        let all: Vec<String> =
            Scope::ALL.iter().flat_map(|s| self.storage().list_skills_sync(*s).unwrap_or_default()).collect();
        let close = skilldeck_skill::name::suggestions(name, all.iter().map(String::as_str));
        let hint = if close.is_empty() {
            "`skilldeck list` shows every skill".to_owned()
        } else {
            format!("did you mean {}?", close.join(", "))
        };
        match scope {
            Some(s) => bail!("no skill {name:?} in the {s} scope; {hint}"),
            None => bail!("no skill {name:?}; {hint}"),
        }
    }
}
