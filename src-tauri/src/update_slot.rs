//! The app state's slot for the update check of sourced skills: the last check kept with its
//! fetched folders, one check or update at a time, and whether one runs. Beneath `state.rs` and
//! `updates.rs` (which runs the checks), so neither has to import the other both ways.

use skilldeck_sources::check::Checked;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, PoisonError};

/// The check's state in the app.
#[derive(Debug, Default)]
pub struct Updates {
    /// The last check's result, with the folders its outdated skills were fetched into.
    kept: Mutex<Option<Arc<Checked>>>,
    /// Held while a check or an update runs: one at a time.
    running: tokio::sync::Mutex<()>,
    /// Whether a check runs now.
    checking: AtomicBool,
}

impl Updates {
    /// Whether a check runs now.
    pub(crate) fn checking(&self) -> &AtomicBool {
        &self.checking
    }

    /// Waits for a running check or update to end; the guard keeps others out until dropped.
    pub async fn one_at_a_time(&self) -> tokio::sync::MutexGuard<'_, ()> {
        self.running.lock().await
    }

    /// The last check, with its fetched folders.
    pub(crate) fn kept(&self) -> Option<Arc<Checked>> {
        self.kept.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// Keeps `checked` as the last check.
    pub(crate) fn keep(&self, checked: Checked) -> Arc<Checked> {
        let checked = Arc::new(checked);
        *self.kept.lock().unwrap_or_else(PoisonError::into_inner) = Some(checked.clone());
        checked
    }
}
