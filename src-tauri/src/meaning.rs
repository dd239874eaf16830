//! Ranking by meaning in the app: the skills' vectors computed on a thread of their own when
//! many are missing (at start, after an import), with progress sent to the windows, so the
//! window never waits on the model; rankings use words only until the vectors are in.

use crate::state::AppState;
use serde::Serialize;
use skilldeck_core::semantic::Readiness;
use std::sync::atomic::{AtomicBool, Ordering};
use tauri::{Emitter as _, Manager as _};

/// The event carrying [`MeaningView`] while vectors are computed and when they are done.
pub const PROGRESS: &str = "meaning://progress";

/// Whether an indexing thread runs (one at a time; a change during one is picked up by the
/// next ranking, or the next indexing).
static RUNNING: AtomicBool = AtomicBool::new(false);

/// Whether an indexing was asked for since the running thread last began a round: it then runs
/// another, so one asked for while a round ends (the vectors cleared in Settings → Storage) is
/// never lost.
static AGAIN: AtomicBool = AtomicBool::new(false);

/// Where ranking by meaning stands, for the listing preview.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct MeaningView {
    /// `ready`, `indexing`, `pending` or `off`.
    pub state: &'static str,
    /// The models' ids (the main one's, and its companion's), when there is a model.
    pub model: Option<String>,
    /// Vectors computed so far (while indexing).
    pub done: usize,
    /// Vectors to compute, or skills in all.
    pub total: usize,
    /// Why it is off, in words a user can act on.
    pub reason: Option<String>,
}

impl MeaningView {
    /// The view of `readiness` for a model named `model`.
    pub fn of(readiness: &Readiness, model: Option<String>) -> Self {
        let (state, done, total, reason) = match readiness {
            Readiness::Ready => ("ready", 0, 0, None),
            Readiness::Pending { missing, total, .. } if RUNNING.load(Ordering::Relaxed) => {
                ("indexing", total - missing, *total, None)
            }
            Readiness::Pending { missing, total, .. } => ("pending", total - missing, *total, None),
            Readiness::Off(r) => ("off", 0, 0, Some(r.clone())),
        };
        Self { state, model, done, total, reason }
    }
}

/// Where ranking by meaning stands for what the default provider's sessions are listed.
pub fn status(state: &AppState) -> Option<MeaningView> {
    let semantic = state.registry.semantic()?;
    let opts = state.listing_options().ok()?;
    let readiness = state.registry.meaning(&opts.scopes).ok()??;
    Some(MeaningView::of(&readiness, semantic.model_dir().map(|_| semantic.label())))
}

/// Computes the missing vectors of the listed skills on a thread of its own, sending
/// [`PROGRESS`] as it goes; does nothing when there is no model. While a thread runs, the
/// call asks it for one more round (the vectors may have been cleared meanwhile).
pub fn index_in_background<R: tauri::Runtime>(app: tauri::AppHandle<R>) {
    AGAIN.store(true, Ordering::SeqCst);
    if RUNNING.swap(true, Ordering::SeqCst) {
        return;
    }
    let spawned = std::thread::Builder::new().name("skilldeck-meaning".into()).spawn(move || {
        let state = app.state::<AppState>();
        loop {
            while AGAIN.swap(false, Ordering::SeqCst) {
                run(&state, &app);
            }
            RUNNING.store(false, Ordering::SeqCst);
            // Asked for between the last round and now, and no other thread took it: go on.
            if !AGAIN.load(Ordering::SeqCst) || RUNNING.swap(true, Ordering::SeqCst) {
                break;
            }
        }
        if let Some(v) = status(&state) {
            let _ = app.emit(PROGRESS, &v);
        }
    });
    if spawned.is_err() {
        RUNNING.store(false, Ordering::SeqCst);
    }
}

fn run<R: tauri::Runtime>(state: &AppState, app: &tauri::AppHandle<R>) {
    let Some(semantic) = state.registry.semantic() else { return };
    if semantic.off_reason().is_some() {
        return;
    }
    let Ok(opts) = state.listing_options() else { return };
    let Ok(set) = state.registry.ranked_set(&opts.scopes) else { return };
    let model = Some(semantic.label());
    let mut last = std::time::Instant::now();
    let indexed = semantic.index_keeping(
        &set,
        || state.registry.stored_set(),
        |done, total| {
            // A few updates a second at most: the page redraws its line on each.
            if done == 0 || done == total || last.elapsed() >= std::time::Duration::from_millis(250) {
                last = std::time::Instant::now();
                let view = MeaningView { state: "indexing", model: model.clone(), done, total, reason: None };
                let _ = app.emit(PROGRESS, &view);
            }
        },
    );
    if let Err(e) = indexed {
        eprintln!("skilldeck-app: ranking by meaning is off: {e}");
    }
}
