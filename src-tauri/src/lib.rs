//! The Skilldeck desktop app: a Tauri 2 shell whose commands are thin calls into skilldeck-core.
//! Holds start-up, state and wiring; the UI is the static `ui/` folder.

pub mod agent;
pub mod agents;
pub mod bindings;
pub mod commands;
pub mod error;
pub mod evals;
pub mod file_view;
pub mod links;
pub mod logging;
pub mod markdown;
pub mod mcp_clients;
pub mod meaning;
pub mod rename;
pub mod settings;
pub mod sources;
pub mod state;
pub mod trace;
pub mod update_slot;
pub mod updates;
pub mod views;
pub mod watcher;

use state::AppState;
use tauri::{Emitter as _, Manager as _};

/// Says why the app cannot open a window here, if it cannot.
pub fn display_available() -> Result<(), String> {
    if cfg!(target_os = "linux")
        && std::env::var_os("DISPLAY").is_none()
        && std::env::var_os("WAYLAND_DISPLAY").is_none()
    {
        return Err("no display found (DISPLAY and WAYLAND_DISPLAY are unset); run it in a desktop session, \
                    or under `xvfb-run -a` for a virtual one"
            .to_owned());
    }
    Ok(())
}

/// Why the app failed to start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The skill store could not be opened.
    #[error("could not open the skill store: {0}")]
    Store(#[from] error::ApiError),
    /// Tauri failed.
    #[error("the window system failed: {0}")]
    Tauri(#[from] tauri::Error),
}

/// Every command the UI may invoke.
#[macro_export]
macro_rules! handlers {
    () => {
        tauri::generate_handler![
            $crate::commands::skills::list_skills,
            $crate::commands::evals::skill_evals,
            $crate::commands::evals::skill_eval_records,
            $crate::commands::evals::save_eval_queries,
            $crate::commands::evals::run_trigger_evals,
            $crate::commands::evals::stop_evals,
            $crate::commands::evals::save_eval_cases,
            $crate::commands::evals::run_output_evals,
            $crate::commands::evals::improve_description,
            $crate::commands::skills::skill_detail,
            $crate::commands::skills::read_skill_file,
            $crate::commands::source::skill_source,
            $crate::commands::source::reveal_skill_in_folder,
            $crate::commands::skills::listing_preview,
            $crate::commands::skills::set_skill_enabled,
            $crate::commands::skills::set_skill_pinned,
            $crate::commands::skills::search_by_meaning,
            $crate::commands::skills::set_skill_trust,
            $crate::commands::risks::approve_skill_findings,
            $crate::commands::skills::set_listing_budget,
            $crate::commands::skills::set_listing_suggest,
            $crate::commands::skills::ui_ready,
            $crate::commands::skills::ui_trace,
            $crate::commands::transfer::import_preview,
            $crate::commands::transfer::import_skill,
            $crate::commands::collection::import_layout,
            $crate::commands::collection::import_collection_preview,
            $crate::commands::collection::import_collection,
            $crate::commands::add_source::source_look,
            $crate::commands::add_source::source_install,
            $crate::commands::add_source::source_preview_as,
            $crate::commands::add_source::source_forget,
            $crate::commands::updates::sources_updates,
            $crate::commands::updates::sources_check_now,
            $crate::commands::updates::source_update_diff,
            $crate::commands::updates::sources_update,
            $crate::commands::revisions::delete_skill,
            $crate::commands::revisions::skill_history,
            $crate::commands::revisions::restore_skill,
            $crate::commands::revisions::rename_skill,
            $crate::commands::revisions::revision_files,
            $crate::commands::revisions::read_revision_file,
            $crate::commands::revisions::deleted_skills,
            $crate::commands::authoring::skill_templates,
            $crate::commands::authoring::skill_name_check,
            $crate::commands::authoring::skill_new,
            $crate::commands::authoring::draft_open,
            $crate::commands::authoring::drafts_open,
            $crate::commands::authoring::draft_write,
            $crate::commands::authoring::draft_add_file,
            $crate::commands::authoring::draft_add_paths,
            $crate::commands::authoring::draft_remove,
            $crate::commands::authoring::draft_move,
            $crate::commands::authoring::draft_check,
            $crate::commands::authoring::draft_fix,
            $crate::commands::authoring::draft_save,
            $crate::commands::authoring::draft_discard,
            $crate::commands::authoring::draft_open_in_editor,
            $crate::commands::authoring::revision_diff,
            $crate::commands::agent::agent_setup,
            $crate::commands::agent::agent_session,
            $crate::commands::agent::agent_send,
            $crate::commands::agent::agent_stop,
            $crate::commands::agent::agent_answer,
            $crate::commands::agent::agent_markdown,
            $crate::commands::skills::open_link,
            $crate::commands::agents::agents_overview,
            $crate::commands::agents::agents_plan,
            $crate::commands::agents::agents_sync,
            $crate::commands::agents::agents_set_skill,
            $crate::commands::agents::agents_set_auto,
            $crate::commands::agents::agents_set_enabled,
            $crate::commands::agents::agents_set_over_budget,
            $crate::commands::agents::agents_set_mode,
            $crate::commands::agents::agents_drift,
            $crate::commands::agents::agents_scan,
            $crate::commands::agents::agents_adopt,
            $crate::commands::agents::agents_agent_skill,
            $crate::commands::mcp_clients::mcp_client_plan,
            $crate::commands::mcp_clients::mcp_client_apply,
            $crate::commands::team::team_status,
            $crate::commands::team::team_refresh,
            $crate::commands::team::team_publish_preview,
            $crate::commands::team::team_publish,
            $crate::commands::team::team_remotes,
            $crate::commands::team::team_add_remote,
            $crate::commands::team::team_remove_remote,
            $crate::commands::team::team_test_remote,
            $crate::commands::settings::settings_view,
            $crate::commands::settings::settings_save_provider,
            $crate::commands::settings::settings_remove_provider,
            $crate::commands::settings::settings_set_provider_key,
            $crate::commands::settings::settings_remove_provider_key,
            $crate::commands::settings::settings_default_provider,
            $crate::commands::settings::settings_test_provider,
            $crate::commands::settings::settings_save_shell,
            $crate::commands::settings::settings_storage,
            $crate::commands::settings::about,
            $crate::commands::settings::settings_clear_parse_cache,
            $crate::commands::settings::settings_set_audit_hold,
            $crate::commands::settings::settings_save_sources,
            $crate::commands::settings::settings_clear_vector_cache,
            $crate::commands::settings::settings_use_model,
            $crate::commands::settings::open_log_folder,
            $crate::commands::team::team_set_refresh,
        ]
    };
}

/// The builder with the app's state, plugins and commands, for `run` and for tests.
pub fn builder<R: tauri::Runtime>(state: AppState) -> tauri::Builder<R> {
    tauri::Builder::<R>::new()
        .plugin(tauri_plugin_dialog::init())
        .plugin(links::navigation_guard())
        .manage(state)
        .invoke_handler(handlers!())
        .on_window_event(|window, event| {
            // A folder or archive dropped anywhere on the window opens the import preview.
            if let tauri::WindowEvent::DragDrop(tauri::DragDropEvent::Drop { paths, .. }) = event {
                let paths: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
                let _ = window.emit("skills://dropped", paths);
            }
        })
}

/// Opens the store on the embedded defaults (`$SKILLDECK_HOME` or the data dir, the bundled
/// skills), starts the watcher and runs the app until its window closes.
pub fn run(started: std::time::Instant) -> Result<(), StartError> {
    // The log first, so the store's own start-up (recovery, bundled skills) is in it.
    let home = skilldeck_store::SkilldeckHome::from_env();
    let log = logging::init(home.as_ref().ok().map(|h| h.logs_dir()).as_deref());
    tracing::info!(
        version = env!("CARGO_PKG_VERSION"),
        os = std::env::consts::OS,
        arch = std::env::consts::ARCH,
        home = %home.as_ref().map(|h| h.root().display().to_string()).unwrap_or_else(|e| e.to_string()),
        log_dir = %log.dir.as_ref().map(|d| d.display().to_string()).unwrap_or_else(|| "none (stderr only)".to_owned()),
        "skilldeck-app started"
    );
    let state =
        AppState::open_default(started).inspect_err(|e| tracing::error!(error = %e, "could not open the store"))?;
    trace::since_start(started, "store opened");
    let app = builder::<tauri::Wry>(state)
        .setup(move |app| {
            trace::since_start(started, "setup begins");
            watch_and_warm_up(app.handle().clone(), started);
            commands::team::refresh_in_background(app.handle().clone());
            updates::check_in_background(app.handle().clone());
            Ok(())
        })
        .build(tauri::generate_context!())?;
    // The event loop may end the process without returning here, so the log's writer is flushed
    // (its guard dropped) on the exit event rather than at the end of this function.
    let mut log = Some(log);
    app.run(move |_, event| {
        if let tauri::RunEvent::Exit = event {
            tracing::info!("skilldeck-app exiting");
            drop(log.take());
        }
    });
    Ok(())
}

/// Lists the store once, then watches it, on a thread of its own: the window waits for neither,
/// the page's first `list_skills` finds the registry's cache filled, and it does not wait for
/// the watch (taking thousands of skill folders into it takes seconds). Once the watch is up the
/// store is listed again from disk, and whatever changed between the two listings, which the
/// watch began too late to see, is handled as a change it saw.
fn watch_and_warm_up<R: tauri::Runtime>(app: tauri::AppHandle<R>, started: std::time::Instant) {
    let spawned = std::thread::Builder::new().name("skilldeck-start".into()).spawn(move || {
        let state = app.state::<AppState>();
        let all = &skilldeck_skill::Scope::ALL;
        let settings_before = watcher::settings_stamps(state.storage().home());
        let first = state.exclusively(|| state.registry.list_metas_across(all));
        trace::since_start(started, "store listed ahead of the page");
        match watcher::start(&state, app.clone()) {
            Ok(w) => state.keep_watcher(w),
            Err(e) => tracing::warn!(error = %e, "live updates are off"),
        }
        trace::since_start(started, "watcher started");
        if let Ok(first) = first {
            let again = state.exclusively(|| {
                all.iter().for_each(|s| state.registry.invalidate(*s, None));
                state.registry.list_metas_across(all)
            });
            let settings = watcher::settings_changed(state.storage().home(), &settings_before);
            match again.map(|again| [watcher::differences(&first, &again), settings].concat()) {
                Ok(missed) if missed.is_empty() => {}
                Ok(missed) => watcher::changed(&app, &missed),
                Err(e) => tracing::warn!(error = %e, "the store could not be listed again once watched"),
            }
            trace::since_start(started, "changes made before the watch began caught up");
        }
        // Changes made while the app was closed reach the auto-sync targets now.
        watcher::auto_sync(&state, &app);
        // A store from before history kept each revision's own copy gets them, once.
        for scope in skilldeck_skill::Scope::ALL {
            match state.storage().keep_current_copies(scope) {
                Ok(0) => {}
                Ok(n) => tracing::info!(scope = scope.as_str(), copies = n, "current revisions copied into history"),
                Err(e) => {
                    tracing::warn!(scope = scope.as_str(), error = %e, "current revisions not copied into history")
                }
            }
        }
        // Then the skills' vectors, when many are missing (a first start, a large import).
        meaning::index_in_background(app.clone());
    });
    if let Err(e) = spawned {
        tracing::warn!(error = %e, "live updates are off");
    }
}
