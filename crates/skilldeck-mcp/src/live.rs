//! Live updates: the store's watcher rebuilds the listing, and a changed listing becomes
//! `notifications/tools/list_changed`. Holds the glue only; the watching is skilldeck-core's.

use crate::server::SkilldeckServer;
use skilldeck_core::SkillName;
use skilldeck_core::watch::{SkillWatcher, StoreChange};
use std::sync::atomic::Ordering;

impl SkilldeckServer {
    /// Watches the store until the returned watcher is dropped: each settled batch of changes
    /// (an import, a restore, a delete, a switch in config.toml, an edit on disk) rebuilds the
    /// listing, and when what clients see changed, they are told. Without a watcher (the
    /// system refused one) the server still works, reading the store at every request; that
    /// is said on standard error.
    pub fn watch(&self, runtime: tokio::runtime::Handle) -> Option<SkillWatcher> {
        let shared = std::sync::Arc::clone(&self.shared);
        let home = shared.registry.storage().home().clone();
        let started = SkillWatcher::start(&home, shared.options.debounce, move |changes: Vec<StoreChange>| {
            for change in &changes {
                let StoreChange::Skill(c) = change else { continue };
                if let Some(name) = c.name.as_deref().and_then(|n| SkillName::parse(n).ok()) {
                    // An edit made on disk becomes a new revision once, as in the app.
                    let _ = shared.registry.storage().adopt_external_edit(c.scope, &name);
                }
                shared.registry.invalidate(c.scope, c.name.as_deref());
            }
            match shared.refresh() {
                Ok(true) => {
                    if let Some(peer) = shared.peer.get().cloned() {
                        runtime.spawn(async move {
                            // A client gone meanwhile is no error of ours.
                            let _ = peer.notify_tool_list_changed().await;
                            let _ = peer.notify_resource_list_changed().await;
                            let _ = peer.notify_prompt_list_changed().await;
                        });
                    }
                }
                Ok(false) => {}
                Err(e) => eprintln!("skilldeck mcp: {e}; the previous listing stays"),
            }
        });
        match started {
            Ok(w) => {
                shared_live(self);
                Some(w)
            }
            Err(e) => {
                eprintln!(
                    "skilldeck mcp: cannot watch the store ({e}); changes are picked up at each request, \
                     and clients are not told of them"
                );
                None
            }
        }
    }
}

fn shared_live(server: &SkilldeckServer) {
    server.shared.live.store(true, Ordering::Relaxed);
}
