//! The watcher: changes made on disk to the skill folders, config.toml and trust.json, debounced, as
//! skill-level changes. Holds the watches and their wiring; what to do about a change is the caller's.

mod change;
mod classify;
mod folders;
mod settle;

pub use change::{SkillChange, StoreChange};
pub use classify::change_for;

use crate::home::SkilldeckHome;
use crate::storage::Scope;
use folders::WatchedFolders;
use notify::{RecommendedWatcher, RecursiveMode, Watcher as _};
use std::sync::{Arc, Mutex, Weak, mpsc};
use std::time::Duration;

/// Watches `skills/`, `config.toml` and `trust.json` under a home until dropped.
pub struct SkillWatcher {
    _watcher: Arc<Mutex<RecommendedWatcher>>,
}

impl std::fmt::Debug for SkillWatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SkillWatcher")
    }
}

impl SkillWatcher {
    /// Starts watching; `on_change` gets each batch once the store has been quiet for
    /// `debounce`, sorted, one entry per skill (and one per settings file).
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
        let watcher = notify::recommended_watcher(move |result: notify::Result<notify::Event>| {
            // An error (the kernel's queue overflowed, a watch lost) may hide any change.
            let changes = match result {
                Ok(event) => classify::changes_in(&owned, &event),
                Err(_) => classify::everything(),
            };
            if !changes.is_empty() {
                let _ = tx.send(changes);
            }
        })?;
        let skills = home.root().join("skills");
        for scope in Scope::ALL {
            let dir = home.scope_dir(scope);
            std::fs::create_dir_all(&dir).map_err(|e| notify::Error::io(e).add_path(dir))?;
        }
        // Taken before the watch begins: whatever it holds, the walk below finds and watches.
        let mut folders = WatchedFolders::read(home);
        let watcher = Arc::new(Mutex::new(watcher));
        if let Ok(mut w) = watcher.lock() {
            // Recursive: the scope folders (where folders are exchanged), and every skill's files.
            w.watch(&skills, RecursiveMode::Recursive)?;
            // config.toml and trust.json are replaced by rename (our own edits and most
            // editors'), so their folder is watched, not the files; only events naming them count.
            w.watch(home.root(), RecursiveMode::NonRecursive)?;
        }
        // The settling thread holds the watcher weakly: dropping `SkillWatcher` stops the
        // watching, which drops the sender, which ends the thread.
        let weak = Arc::downgrade(&watcher);
        let owned = home.clone();
        std::thread::Builder::new()
            .name("skilldeck-watch".into())
            .spawn(move || {
                settle::run(&rx, debounce, &mut |changes| {
                    rewatch(&weak, &owned, &mut folders, &changes);
                    on_change(changes);
                });
            })
            .map_err(notify::Error::io)?;
        Ok(Self { _watcher: watcher })
    }
}

/// Watches again the folders of the skills that changed. The recursive watch follows a folder
/// exchange by the two rename pairs it sees; should it read them in two goes it would drop the
/// watch of the new folder, and edits inside it would go unseen. A scope reported whole is read
/// once, and only its new or replaced folders are watched again (see `folders`). Watching a
/// folder that is watched already changes nothing but costs a walk of it.
fn rewatch(
    watcher: &Weak<Mutex<RecommendedWatcher>>,
    home: &SkilldeckHome,
    folders: &mut WatchedFolders,
    changes: &[StoreChange],
) {
    let Some(watcher) = watcher.upgrade() else { return };
    let Ok(mut watcher) = watcher.lock() else { return };
    for change in changes {
        let dirs = match change {
            StoreChange::Skill(SkillChange { scope, name: Some(name) }) => {
                let dir = home.scope_dir(*scope).join(name);
                folders.skill_changed(*scope, &dir);
                vec![dir]
            }
            StoreChange::Skill(SkillChange { scope, name: None }) => folders.scope_changed(home, *scope),
            StoreChange::Config | StoreChange::Trust => continue,
        };
        for dir in dirs.iter().filter(|d| d.is_dir()) {
            // A folder gone again meanwhile is reported by its own event.
            let _ = watcher.watch(dir, RecursiveMode::Recursive);
        }
    }
}
