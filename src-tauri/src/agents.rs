//! The Agents view's backend: the agent tools' skill folders read against the store, sync
//! plans and syncs, and auto-sync. Holds the glue between the app's state and
//! skilldeck-targets; every decision about what is ours, drifted or foreign is the crate's.

use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use serde::Serialize;
use skilldeck_targets::config::TargetsConfig;
use skilldeck_targets::env::Env;
use skilldeck_targets::export::Exports;
use skilldeck_targets::plan::TargetPlan;
use skilldeck_targets::record::Records;
use skilldeck_targets::source::{Store, WantedSet};
use skilldeck_targets::sync::Syncer;
use skilldeck_targets::target::{self, Folder, Target};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The event sent after the app synced the auto targets, with what it did.
pub const SYNCED: &str = "agents://synced";

/// A project folder given by the UI, made absolute; `None` for none or an empty path.
pub fn project_dir(project: Option<&str>) -> ApiResult<Option<PathBuf>> {
    let Some(p) = project.map(str::trim).filter(|p| !p.is_empty()) else { return Ok(None) };
    std::fs::canonicalize(p).map(Some).map_err(|e| {
        ApiError::new(
            "project_not_found",
            format!("the project folder {p} cannot be opened ({e}); choose an existing folder"),
        )
        .arg("path", p)
    })
}

/// Every known tool and configured target with its folders, for `project` too when given.
pub fn targets(state: &AppState, project: Option<&Path>) -> ApiResult<Vec<Target>> {
    let config = TargetsConfig::load(&state.storage().home().config_path())?;
    Ok(target::resolve(&Env::from_process(), &config, project)?)
}

/// The skills every target gets unless narrowed: enabled, valid, yours over bundled.
pub fn wanted(state: &AppState) -> ApiResult<WantedSet> {
    Ok(skilldeck_targets::source::enabled_skills(&state.registry, &state.disabled())?)
}

/// The records of what Skilldeck wrote where.
pub fn records(state: &AppState) -> Records {
    Records::new(state.storage().home().root())
}

/// The folders of the named targets (every active one when none is named), planned
/// (`dry_run`) or synced; drifted skills in `overwrite` are replaced after their edit is kept.
pub fn sync(
    state: &AppState,
    project: Option<&Path>,
    names: &[String],
    overwrite: &[String],
    dry_run: bool,
) -> ApiResult<Vec<TargetPlan>> {
    let targets = targets(state, project)?;
    let folders = target::chosen(&targets, names)?;
    run(state, &folders, overwrite, dry_run)
}

fn run(state: &AppState, folders: &[Folder], overwrite: &[String], dry_run: bool) -> ApiResult<Vec<TargetPlan>> {
    let wanted = wanted(state)?;
    let source = Store::new(state.storage());
    let syncer = Syncer {
        records: records(state),
        source: &source,
        overwrite: overwrite.iter().cloned().collect::<BTreeSet<_>>(),
        mode: None,
        exports: Exports::new(state.storage().home().root()),
    };
    Ok(syncer.run(folders, &wanted, dry_run))
}

/// What an auto-sync did, for the UI's note.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct AutoSynced {
    /// The targets synced, by name.
    pub targets: Vec<String>,
    /// Skills written, replaced or removed in all.
    pub changes: usize,
    /// Drifted or clashing skills left alone.
    pub skipped: usize,
    /// Folders that could not be synced, with why.
    pub errors: Vec<String>,
}

/// Syncs every target marked `auto = true` (their user-level folders, and the project folders
/// that exist). Returns `None` when no target is marked.
pub fn auto_sync(state: &AppState) -> ApiResult<Option<AutoSynced>> {
    let targets = targets(state, None)?;
    let folders = target::auto(&targets);
    if folders.is_empty() {
        return Ok(None);
    }
    let auto: Vec<&Target> = targets.iter().filter(|t| !t.off && t.folders.iter().any(|f| f.auto)).collect();
    let plans = run(state, &folders, &[], false)?;
    let mut out = AutoSynced { targets: auto.iter().map(|t| t.name.clone()).collect(), ..AutoSynced::default() };
    for p in &plans {
        out.changes += p.done;
        out.skipped += p.actions.len() - p.changes();
        if let Some(e) = &p.error {
            out.errors.push(format!("{} ({}): {e}", p.target, p.path.display()));
        }
    }
    Ok(Some(out))
}

/// Scans every folder of every tool and configured target (and the project's) for skills.
pub fn scan(state: &AppState, project: Option<&Path>) -> ApiResult<skilldeck_targets::scan::ScanReport> {
    use skilldeck_targets::scan;
    let targets = targets(state, project)?;
    let folders = scan::inputs(&targets, &wanted(state)?);
    Ok(scan::scan(state.storage(), &records(state), &folders))
}
