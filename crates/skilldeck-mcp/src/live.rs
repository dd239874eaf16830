//! Live updates: the store's watcher rebuilds the listing, and a changed listing becomes
//! `notifications/tools/list_changed`, and any changed skill `notifications/resources/list_changed`
//! (it is in skills/list whether or not the listing has room for it). Holds the glue only; the
//! watching is skilldeck-core's.

use crate::catalog::SCHEME;
use crate::server::SkilldeckServer;
use rmcp::service::SubscriptionSink;
use skilldeck_skill::SkillName;
use skilldeck_store::watch::{SkillWatcher, StoreChange};
use std::sync::atomic::Ordering;

impl SkilldeckServer {
    /// Watches the store for as long as the server lives: each settled batch of changes (an
    /// import, a restore, a delete, a switch in config.toml, an edit on disk) rebuilds the
    /// listing, and when what clients see changed, they are told. Without a watcher (the
    /// system refused one) the server still works, reading the store at every request; that
    /// is said on standard error.
    pub fn watch(&self, runtime: tokio::runtime::Handle) {
        // The watcher lives in the server's state and holds it weakly, so dropping the last
        // handle on the server (its session ended) stops the watching too.
        let weak = std::sync::Arc::downgrade(&self.shared);
        let home = self.shared.registry.storage().home().clone();
        let started = SkillWatcher::start(&home, self.shared.options.debounce, move |changes: Vec<StoreChange>| {
            let Some(shared) = weak.upgrade() else { return };
            let mut touched = Vec::new();
            for change in &changes {
                let StoreChange::Skill(c) = change else { continue };
                if let Some(name) = c.name.as_deref().and_then(|n| SkillName::parse(n).ok()) {
                    // An edit made on disk becomes a new revision once, as in the app.
                    let _ = shared.registry.storage().adopt_external_edit(c.scope, &name);
                }
                shared.registry.invalidate(c.scope, c.name.as_deref());
                touched.push(c.name.clone());
            }
            // The subscribed resources of the skills that changed (all of them for a whole scope).
            let updated: Vec<String> = match shared.subscribed.lock() {
                Ok(set) => changed_of(set.iter(), &touched),
                Err(_) => Vec::new(),
            };
            // The same for each subscriptions/listen, by the resources its filter accepted.
            let listeners: Vec<(SubscriptionSink, Vec<String>)> = match shared.listeners.lock() {
                Ok(l) => l
                    .iter()
                    .map(|sink| {
                        let uris = sink.accepted().resource_subscriptions.as_deref().unwrap_or_default();
                        (sink.clone(), changed_of(uris.iter(), &touched))
                    })
                    .collect(),
                Err(_) => Vec::new(),
            };
            if !updated.is_empty()
                && let Some(peer) = shared.peer.get().cloned()
            {
                runtime.spawn(async move {
                    for uri in updated {
                        let _ =
                            peer.notify_resource_updated(rmcp::model::ResourceUpdatedNotificationParam::new(uri)).await;
                    }
                });
            }
            let changed = match shared.refresh() {
                Ok(changed) => changed,
                Err(e) => {
                    eprintln!("skilldeck mcp: {e}; the previous listing stays");
                    false
                }
            };
            // Every served skill is in the resources and in skills/list, listed to models or
            // not (past the listing's budget): any skill that changed changes those.
            let served_changed = changed || !touched.is_empty();
            if served_changed && let Some(peer) = shared.peer.get().cloned() {
                runtime.spawn(async move {
                    // A client gone meanwhile is no error of ours.
                    if changed {
                        let _ = peer.notify_tool_list_changed().await;
                        let _ = peer.notify_prompt_list_changed().await;
                    }
                    let _ = peer.notify_resource_list_changed().await;
                });
            }
            // A listener hears only what its filter accepted (the sink refuses the rest).
            for (sink, uris) in listeners {
                runtime.spawn(async move {
                    for uri in uris {
                        let _ = sink.notify_resource_updated(uri).await;
                    }
                    if changed {
                        let _ = sink.notify_tool_list_changed().await;
                        let _ = sink.notify_prompt_list_changed().await;
                    }
                    if served_changed {
                        let _ = sink.notify_resource_list_changed().await;
                    }
                });
            }
        });
        match started {
            Ok(w) => {
                if let Ok(mut slot) = self.shared.watcher.lock() {
                    *slot = Some(w);
                }
                self.shared.live.store(true, Ordering::Relaxed);
            }
            Err(e) => eprintln!(
                "skilldeck mcp: cannot watch the store ({e}); changes are picked up at each request, \
                 and clients are not told of them"
            ),
        }
    }
}

/// The resource URIs among `uris` that belong to a skill in `touched` (every one when a whole
/// scope changed: a `None`).
fn changed_of<'a>(uris: impl Iterator<Item = &'a String>, touched: &[Option<String>]) -> Vec<String> {
    uris.filter(|uri| {
        touched.iter().any(|name| match name {
            None => true,
            Some(n) => {
                uri.strip_prefix(SCHEME).and_then(|r| r.strip_prefix(n.as_str())).is_some_and(|r| r.starts_with('/'))
            }
        })
    })
    .cloned()
    .collect()
}
