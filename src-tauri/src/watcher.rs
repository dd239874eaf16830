//! Live updates: disk changes become new revisions where the content changed, then one
//! debounced `skills://changed` event (config.toml too), then the auto-sync targets synced.
//! Holds the glue only; the watching is skilldeck-core's.

use crate::state::AppState;
use skilldeck_core::registry::ListedEntry;
use skilldeck_skill::SkillName;
use skilldeck_store::SkilldeckHome;
use skilldeck_store::trust::TRUST_FILE;
use skilldeck_store::watch::{SkillChange, SkillWatcher, StoreChange};
use std::collections::HashMap;
use std::os::unix::fs::MetadataExt as _;
use std::time::Duration;
use tauri::{Emitter as _, Manager as _};

/// The event the UI reloads on.
pub const CHANGED: &str = "skills://changed";

/// How long changes settle before they are reported.
const DEBOUNCE: Duration = Duration::from_millis(250);

/// Starts watching the store of `state`, reporting to the app's windows.
pub fn start<R: tauri::Runtime>(state: &AppState, app: tauri::AppHandle<R>) -> Result<SkillWatcher, notify::Error> {
    SkillWatcher::start(state.storage().home(), DEBOUNCE, move |changes: Vec<StoreChange>| changed(&app, &changes))
}

/// Handles changes seen on disk: edits become revisions, the registry forgets, the windows
/// reload, the auto-sync targets follow.
pub fn changed<R: tauri::Runtime>(app: &tauri::AppHandle<R>, changes: &[StoreChange]) {
    let state = app.state::<AppState>();
    for c in changes {
        // config.toml and trust.json are read afresh by every command; the event alone
        // makes the UI reload.
        let StoreChange::Skill(c) = c else { continue };
        if let Some(name) = c.name.as_deref().and_then(|n| SkillName::parse(n).ok()) {
            // An edit made outside the app becomes a new revision once.
            let _ = state.storage().adopt_external_edit(c.scope, &name);
        }
        state.registry.invalidate(c.scope, c.name.as_deref());
    }
    let mut new_model = false;
    if changes.contains(&StoreChange::Config) {
        // The audit's hold, the background intervals and the ranking model follow the file
        // at once.
        crate::settings::config_changed(&state);
        new_model = crate::settings::follow_model(&state);
    }
    let _ = app.emit(CHANGED, changes);
    auto_sync(&state, app);
    if new_model || changes.iter().any(|c| matches!(c, StoreChange::Skill(_))) {
        crate::meaning::index_in_background(app.clone());
    }
}

/// What config.toml and trust.json are at a moment: each one's inode, size and time of change
/// (both are replaced by rename), or nothing when missing.
pub type SettingsStamps = [Option<(u64, u64, i64, i64)>; 2];

/// The settings files' stamps now, for [`settings_changed`].
pub fn settings_stamps(home: &SkilldeckHome) -> SettingsStamps {
    let stamp =
        |p: &std::path::Path| std::fs::symlink_metadata(p).ok().map(|m| (m.ino(), m.len(), m.ctime(), m.ctime_nsec()));
    [stamp(&home.config_path()), stamp(&home.root().join(TRUST_FILE))]
}

/// The settings files changed since `before` was taken, as changes.
pub fn settings_changed(home: &SkilldeckHome, before: &SettingsStamps) -> Vec<StoreChange> {
    let now = settings_stamps(home);
    [StoreChange::Config, StoreChange::Trust]
        .into_iter()
        .zip(before.iter().zip(&now))
        .filter(|(_, (b, n))| b != n)
        .map(|(c, _)| c)
        .collect()
}

/// The skills whose listing differs between `before` and `after` (added, gone, or another
/// revision or content), as changes of each.
pub fn differences(before: &[ListedEntry], after: &[ListedEntry]) -> Vec<StoreChange> {
    let key = |l: &ListedEntry| ((l.entry.scope, l.entry.name.clone()), (l.entry.revision, l.entry.digest));
    let was: HashMap<_, _> = before.iter().map(key).collect();
    let now: HashMap<_, _> = after.iter().map(key).collect();
    let mut changed: Vec<StoreChange> = was
        .iter()
        .filter(|(k, v)| now.get(*k) != Some(*v))
        .chain(now.iter().filter(|(k, _)| !was.contains_key(*k)))
        .map(|((scope, name), _)| StoreChange::Skill(SkillChange { scope: *scope, name: Some(name.clone()) }))
        .collect();
    changed.sort();
    changed
}

/// Syncs the targets marked `auto = true` and tells the windows what was done, when anything
/// was (or failed). The targets' own folders are not watched, so this never feeds itself.
pub fn auto_sync<R: tauri::Runtime>(state: &AppState, app: &tauri::AppHandle<R>) {
    match crate::agents::auto_sync(state) {
        Ok(Some(done)) if done.changes > 0 || !done.errors.is_empty() => {
            let _ = app.emit(crate::agents::SYNCED, &done);
        }
        Ok(_) => {}
        Err(e) => eprintln!("skilldeck-app: auto-sync failed: {}", e.message),
    }
}
