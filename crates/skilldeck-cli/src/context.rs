//! Opening the store for a command: the home, recovery, bundled skills, and name resolution.
//! Holds what every store-touching command does first; not the commands themselves.

use anyhow::{Context as _, bail};
use skilldeck_agent::config::Config;
use skilldeck_agent::session::SessionOptions;
use skilldeck_core::listing::ListingOptions;
use skilldeck_core::{FsStorage, Scope, SkillName, SkillRegistry, SkilldeckHome, bundled};

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
        Ok(Self { registry: SkillRegistry::new(storage) })
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

    /// Finds `name` in `scope`, or when no scope is given, in `user` then `system`.
    pub fn resolve(&self, name: &str, scope: Option<Scope>) -> anyhow::Result<(Scope, SkillName)> {
        let parsed = SkillName::parse(name).with_context(|| format!("{name:?} is not a skill name"))?;
        let scopes: Vec<Scope> = match scope {
            Some(s) => vec![s],
            None => vec![Scope::User, Scope::System],
        };
        for s in &scopes {
            if self.storage().skill_dir(*s, &parsed).is_dir() {
                return Ok((*s, parsed));
            }
        }
        let all: Vec<String> =
            Scope::ALL.iter().flat_map(|s| self.storage().list_skills_sync(*s).unwrap_or_default()).collect();
        let close = skilldeck_core::name::suggestions(name, all.iter().map(String::as_str));
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
