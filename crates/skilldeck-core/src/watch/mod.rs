//! The watcher: changes made on disk to the skill folders and config.toml, debounced, as
//! skill-level changes. Holds the watches and their wiring; what to do about a change is the caller's.

mod classify;
mod settle;

pub use classify::change_for;

use crate::home::SkilldeckHome;
use crate::storage::Scope;
use notify::{RecommendedWatcher, RecursiveMode, Watcher as _};
use std::sync::mpsc;
use std::time::Duration;

/// One changed skill, or a whole scope when the name is unknown.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub struct SkillChange {
    /// The scope.
    pub scope: Scope,
    /// The skill's folder name; `None` when the change is to the scope itself.
    pub name: Option<String>,
}

/// Something in the store that changed on disk.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum StoreChange {
    /// A skill, or a whole scope.
    Skill(SkillChange),
    /// `config.toml` (the per-skill switches, listing options, providers).
    Config,
}

/// Watches `skills/` and `config.toml` under a home until dropped.
pub struct SkillWatcher {
    _watcher: RecommendedWatcher,
}

impl std::fmt::Debug for SkillWatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SkillWatcher")
    }
}

impl SkillWatcher {
    /// Starts watching; `on_change` gets each batch once the store has been quiet for
    /// `debounce`, sorted, one entry per skill (and one for config.toml).
    ///
    /// The events are taken raw, not through a debouncer that stitches renames together: a
    /// new revision goes live by exchanging the skill's folder with its staging sibling, two
    /// renames that such stitching folds into a rename of the staging folder onto itself.
    pub fn start(
        home: &SkilldeckHome,
        debounce: Duration,
        on_change: impl Fn(Vec<StoreChange>) + Send + 'static,
    ) -> Result<Self, notify::Error> {
        let (tx, rx) = mpsc::channel::<Vec<StoreChange>>();
        let owned = home.clone();
        let mut watcher = notify::recommended_watcher(move |result: notify::Result<notify::Event>| {
            // An error (the kernel's queue overflowed, a watch lost) may hide any change.
            let changes = match result {
                Ok(event) => classify::changes_in(&owned, &event),
                Err(_) => classify::everything(),
            };
            if !changes.is_empty() {
                let _ = tx.send(changes);
            }
        })?;
        std::thread::Builder::new()
            .name("skilldeck-watch".into())
            .spawn(move || settle::run(&rx, debounce, &on_change))
            .map_err(notify::Error::io)?;
        let skills = home.root().join("skills");
        for scope in Scope::ALL {
            let dir = home.scope_dir(scope);
            std::fs::create_dir_all(&dir).map_err(|e| notify::Error::io(e).add_path(dir))?;
        }
        // Recursive: the scope folders (where folders are exchanged), and every skill's files.
        watcher.watch(&skills, RecursiveMode::Recursive)?;
        // config.toml is replaced by rename (our own edits and most editors'), so its folder
        // is watched, not the file; only events naming config.toml count.
        watcher.watch(home.root(), RecursiveMode::NonRecursive)?;
        Ok(Self { _watcher: watcher })
    }
}
