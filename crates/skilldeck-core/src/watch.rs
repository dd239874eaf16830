//! The watcher: changes made on disk to the skill folders, debounced, as skill-level changes.
//! Holds path-to-skill mapping and the debouncer; what to do about a change is the caller's.

use crate::home::SkilldeckHome;
use crate::storage::Scope;
use notify::{EventKind, RecursiveMode};
use notify_debouncer_full::{DebounceEventResult, Debouncer, RecommendedCache, new_debouncer};
use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

/// One changed skill, or a whole scope when the name is unknown.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub struct SkillChange {
    /// The scope.
    pub scope: Scope,
    /// The skill's folder name; `None` when the change is to the scope itself.
    pub name: Option<String>,
}

/// Watches `skills/` under a home until dropped.
pub struct SkillWatcher {
    _debouncer: Debouncer<notify::RecommendedWatcher, RecommendedCache>,
}

impl std::fmt::Debug for SkillWatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SkillWatcher")
    }
}

/// Maps a changed path to the skill it belongs to. Hidden entries (staging folders, records)
/// and paths outside `skills/<scope>/` map to nothing.
pub fn change_for(home: &SkilldeckHome, path: &Path) -> Option<SkillChange> {
    for scope in Scope::ALL {
        let Ok(rest) = path.strip_prefix(home.scope_dir(scope)) else { continue };
        let mut parts = rest.components();
        return match parts.next() {
            None => Some(SkillChange { scope, name: None }),
            Some(first) => {
                let name = first.as_os_str().to_str()?;
                (!name.starts_with('.')).then(|| SkillChange { scope, name: Some(name.to_owned()) })
            }
        };
    }
    None
}

impl SkillWatcher {
    /// Starts watching; `on_change` gets each debounced batch, one entry per skill.
    pub fn start(
        home: &SkilldeckHome,
        debounce: Duration,
        on_change: impl Fn(Vec<SkillChange>) + Send + 'static,
    ) -> Result<Self, notify::Error> {
        let owned = home.clone();
        let mut debouncer = new_debouncer(debounce, None, move |result: DebounceEventResult| {
            let Ok(events) = result else { return };
            // Reads are no change: inotify also reports every open, and the app's own reads after a
            // change would otherwise report a change again, for ever.
            let changes: BTreeSet<SkillChange> = events
                .iter()
                .filter(|e| !matches!(e.kind, EventKind::Access(_)))
                .flat_map(|e| e.paths.iter())
                .filter_map(|p| change_for(&owned, p))
                .collect();
            if !changes.is_empty() {
                on_change(changes.into_iter().collect());
            }
        })?;
        let root = home.root().join("skills");
        std::fs::create_dir_all(&root).map_err(notify::Error::io)?;
        debouncer.watch(&root, RecursiveMode::Recursive)?;
        Ok(Self { _debouncer: debouncer })
    }
}
