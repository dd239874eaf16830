//! The Updates dialog's commands: where sourced skills stand, a check now, what an update would
//! change in a skill (per-file diffs of the folder the check fetched), and the update itself (one
//! new revision per skill, recorded in `sources.json`; a skill changed here only when forced).
//! The check's state is `updates.rs`; what an update takes is `skilldeck_sources::apply`.

use super::collection::{progress_sender, task_failed};
use crate::error::{ApiError, ApiResult};
use crate::sources::OriginView;
use crate::state::AppState;
use crate::updates::{self, UpdatesView, sources_file};
use serde::Serialize;
use skilldeck_skill::{Scope, SkillName};
use skilldeck_sources::apply;
use skilldeck_sources::check::{Check, Status};
use skilldeck_sources::installed::InstalledSkills;
use skilldeck_sources::last_check::LastCheck;
use skilldeck_store::import::{self, ImportState};
use skilldeck_targets::diff::{self, FileDiff};
use tauri::{AppHandle, Emitter as _, Runtime, State};

/// Where sourced skills stand as last checked (nothing is fetched).
#[tauri::command]
pub async fn sources_updates(state: State<'_, AppState>) -> ApiResult<UpdatesView> {
    updates::view(&state)
}

/// Checks every sourced skill now; offline, each keeps its last answer and says it could not be
/// checked.
#[tauri::command]
pub async fn sources_check_now<R: Runtime>(app: AppHandle<R>, state: State<'_, AppState>) -> ApiResult<UpdatesView> {
    let _one = state.updates.one_at_a_time().await;
    updates::check_locked(&app, &state).await?;
    updates::view(&state)
}

/// What updating one skill would change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct UpdateDiff {
    /// The skill.
    pub name: String,
    /// What is installed, from where.
    pub from: OriginView,
    /// What the update brings.
    pub to: OriginView,
    /// The current revision's label in the diffs (`v:3`).
    pub current: String,
    /// Whether it was changed here since it was installed (the diff then shows that edit undone).
    pub changed_here: bool,
    /// The files that differ between the current revision and the update, by path.
    pub files: Vec<FileDiff>,
}

/// The per-file unified diffs between skill `name`'s current revision and the content its
/// source holds now: the very folder an update would install (checked again when the last check
/// no longer speaks for it).
#[tauri::command]
pub async fn source_update_diff<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    name: String,
) -> ApiResult<UpdateDiff> {
    let skill = SkillName::parse(&name)?;
    let _one = state.updates.one_at_a_time().await;
    let checked = updates::fresh_for(&app, &state, std::slice::from_ref(&name)).await?;
    let c = outdated(&checked.checks, &name)?;
    let Status::Outdated { new, dir, .. } = &c.status else { return Err(not_outdated(c)) };
    let snap = state.storage().snapshot(Scope::User, &skill)?;
    let current = snap.revision.map_or_else(|| "current".to_owned(), |r| format!("v:{r}"));
    let to = OriginView::of(new);
    let files = diff::compare(&snap.files, &current, dir, &to.resolved)
        .map_err(|e| ApiError::new("io_error", format!("could not compare {name} with its update: {e}")))?;
    Ok(UpdateDiff {
        name: c.name.clone(),
        from: OriginView::of(&c.installed.source),
        to,
        current,
        changed_here: c.changed_here,
        files,
    })
}

/// What an update did to one skill.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct UpdateResult {
    /// The skill.
    pub name: String,
    /// `updated`, `unchanged` (already that content), `held` (changed here, not forced),
    /// `refused` (the import refused it), or the check's state when it had no update:
    /// `up_to_date`, `gone`, `could_not_check`.
    pub state: &'static str,
    /// The new revision (`updated`) or the current one (`unchanged`).
    pub revision: Option<u64>,
    /// Where it now comes from (`updated`, `unchanged`).
    pub to: Option<OriginView>,
    /// Why (`held`, `refused`, `gone`, `could_not_check`).
    #[ts(as = "Option<crate::bindings::ApiErrorShape>")]
    pub error: Option<ApiError>,
}

/// Updates the skills `names` (every outdated one when empty) from what the check fetched, in one
/// store batch: one new revision each, recording its new source; `sources.json` follows. A skill
/// changed here since it was installed is held back unless `force` (its edit stays in History).
#[tauri::command]
pub async fn sources_update<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    names: Vec<String>,
    force: bool,
) -> ApiResult<Vec<UpdateResult>> {
    let _one = state.updates.one_at_a_time().await;
    let checked = updates::fresh_for(&app, &state, &names).await?;
    let chosen = apply::choose(&checked, &names, |_| Ok::<_, std::convert::Infallible>(force))
        .unwrap_or_else(|never| match never {});
    let taken: Vec<Check> = chosen.taken.iter().map(|c| (*c).clone()).collect();
    let mut results: Vec<UpdateResult> = Vec::new();
    for c in &chosen.held {
        let message = format!(
            "{} was changed here since it was installed; updating replaces that edit (it stays in History)",
            c.name
        );
        results.push(result(&c.name, "held", None, None, Some(ApiError::new("source_changed_here", message))));
    }
    for name in &names {
        if let Some(c) = checked.checks.iter().find(|c| &c.name == name)
            && !matches!(c.status, Status::Outdated { .. })
        {
            let (state, error) = match &c.status {
                Status::Gone { reason } => ("gone", Some(ApiError::new("source_gone", reason.clone()))),
                Status::CouldNotCheck { reason } => {
                    ("could_not_check", Some(ApiError::new("source_unreachable", reason.clone())))
                }
                Status::UpToDate | Status::Outdated { .. } => ("up_to_date", None),
            };
            results.push(result(name, state, None, None, error));
        } else if !checked.checks.iter().any(|c| &c.name == name) {
            let message = format!("{name} did not come from a source");
            results.push(result(name, "refused", None, None, Some(ApiError::new("source_not_sourced", message))));
        }
    }
    if !taken.is_empty() {
        let storage = state.storage().clone();
        let progress_app = app.clone();
        let (report, installed) = tauri::async_runtime::spawn_blocking(move || -> ApiResult<_> {
            let taken: Vec<&Check> = taken.iter().collect();
            let mut progress = progress_sender(progress_app);
            // An edit made on disk becomes a revision of its own first, labelled by its bytes.
            apply::keep_edits(&storage, &taken)?;
            let report =
                import::import_batch(&storage, Scope::User, &apply::requests(&taken), storage.limits(), &mut progress)?;
            let mut installed = InstalledSkills::load(storage.home()).map_err(sources_file)?;
            let recorded = apply::record(&mut installed, &taken, &report);
            installed.save().map_err(sources_file)?;
            let mut last = LastCheck::load(storage.home());
            for name in &recorded {
                if let Some(rec) = installed.get(name) {
                    last.updated(name, rec);
                }
            }
            let _ = last.save();
            Ok((report, installed))
        })
        .await
        .map_err(task_failed)??;
        state.registry.invalidate(Scope::User, None);
        for item in &report.items {
            let Some(c) = apply::taken_for(&chosen.taken, &item.source) else { continue };
            let to = installed.get(&c.name).map(|r| OriginView::of(&r.source));
            results.push(match &item.state {
                ImportState::Imported { revision, .. } => result(&c.name, "updated", Some(revision.0), to, None),
                ImportState::Unchanged { revision } => result(&c.name, "unchanged", Some(revision.0), to, None),
                ImportState::Refused { error } => {
                    result(&c.name, "refused", None, None, Some(ApiError::new(&error.code, error.message.clone())))
                }
            });
        }
        for e in &report.errors {
            if let Some(c) = apply::taken_for(&chosen.taken, &e.source) {
                let error = ApiError::new(&e.error.code, e.error.message.clone());
                results.push(result(&c.name, "refused", None, None, Some(error)));
            }
        }
    }
    results.sort_by(|a, b| a.name.cmp(&b.name));
    if let Ok(v) = updates::view(&state) {
        let _ = app.emit(updates::SOURCES_CHECKED, &v);
    }
    Ok(results)
}

fn result(
    name: &str,
    state: &'static str,
    revision: Option<u64>,
    to: Option<OriginView>,
    error: Option<ApiError>,
) -> UpdateResult {
    UpdateResult { name: name.to_owned(), state, revision, to, error }
}

fn outdated<'a>(checks: &'a [Check], name: &str) -> ApiResult<&'a Check> {
    checks
        .iter()
        .find(|c| c.name == name)
        .ok_or_else(|| ApiError::new("source_not_sourced", format!("{name} did not come from a source")))
}

fn not_outdated(c: &Check) -> ApiError {
    match &c.status {
        Status::CouldNotCheck { reason } => {
            ApiError::new("source_unreachable", format!("could not ask the source of {}: {reason}", c.name))
        }
        Status::Gone { reason } => ApiError::new("source_gone", reason.clone()),
        Status::UpToDate | Status::Outdated { .. } => {
            ApiError::new("source_up_to_date", format!("{} is up to date with its source", c.name))
        }
    }
}
