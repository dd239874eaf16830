//! Deleting (to history), the history view, and restoring a revision as a new one.

use crate::error::ApiResult;
use crate::state::AppState;
use crate::views::{FileRow, FileView, HistoryRow, ImportedView};
use skilldeck_skill::{RelPath, Revision, Scope, SkillName};
use skilldeck_store::storage::RevisionEvent;
use tauri::State;

/// Moves a skill to history; returns the revision moved, for an undo.
#[tauri::command]
pub async fn delete_skill(state: State<'_, AppState>, scope: Scope, name: String) -> ApiResult<u64> {
    Ok(state.registry.delete_skill(scope, &SkillName::parse(&name)?)?.revision.0)
}

/// A skill's revisions, newest first, with dates and digests (also for a deleted skill).
#[tauri::command]
pub async fn skill_history(state: State<'_, AppState>, scope: Scope, name: String) -> ApiResult<Vec<HistoryRow>> {
    let entries = state.storage().history_sync(scope, &SkillName::parse(&name)?)?;
    Ok(entries
        .into_iter()
        .map(|e| HistoryRow {
            revision: e.revision.0,
            digest: e.digest.map(|d| d.short()),
            at: e.at,
            event: match e.event {
                RevisionEvent::Upload => "upload".to_owned(),
                RevisionEvent::Bundled => "bundled".to_owned(),
                RevisionEvent::External => "external".to_owned(),
                RevisionEvent::Edit => "edit".to_owned(),
                RevisionEvent::Restore { from } => format!("restore:{from}"),
                RevisionEvent::Delete => "delete".to_owned(),
                RevisionEvent::Recovered => "recovered".to_owned(),
                RevisionEvent::DriftKept { target } => format!("drift_kept:{target}"),
                RevisionEvent::Mirrored => "team".to_owned(),
                RevisionEvent::Sourced { source } => format!("sourced:{}", source.short()),
                RevisionEvent::Renamed { from } => format!("renamed:{from}"),
            },
            current: e.current,
            restorable: e.restorable,
        })
        .collect())
}

/// The files of one revision (current or kept in history), for its read-only view.
#[tauri::command]
pub async fn revision_files(
    state: State<'_, AppState>,
    scope: Scope,
    name: String,
    revision: u64,
) -> ApiResult<Vec<FileRow>> {
    let files = state.storage().revision_files(scope, &SkillName::parse(&name)?, Revision(revision))?;
    Ok(files.iter().map(|(path, bytes)| FileRow { path: path.to_string(), size: bytes.len() as u64 }).collect())
}

/// One file of one revision, shaped for the viewer like a current file.
#[tauri::command]
pub async fn read_revision_file(
    state: State<'_, AppState>,
    scope: Scope,
    name: String,
    revision: u64,
    path: String,
) -> ApiResult<FileView> {
    let skill = SkillName::parse(&name)?;
    let files = state.storage().revision_files(scope, &skill, Revision(revision))?;
    let rel = RelPath::parse(&path)?;
    let bytes = files.get(rel.as_str()).ok_or_else(|| {
        crate::error::ApiError::new("file_not_found", format!("v:{revision} of {name} has no file {path}"))
    })?;
    Ok(crate::file_view::file_view(&path, bytes.to_vec()))
}

/// Makes a new revision with the content of `revision`.
#[tauri::command]
pub async fn restore_skill(
    state: State<'_, AppState>,
    scope: Scope,
    name: String,
    revision: u64,
) -> ApiResult<ImportedView> {
    let out = state.registry.restore(scope, &SkillName::parse(&name)?, Revision(revision))?;
    Ok(ImportedView {
        grants: super::skills::grants_of(&state, scope, out.name.as_str())?,
        name: out.name.to_string(),
        scope,
        revision: out.revision.0,
        digest: out.digest.short(),
        unchanged: false,
    })
}

/// Renames skill `name` to `to` in `scope`: its last revision is stored again under `to`, and
/// its history, draft, approvals, pin and switch, target lists and source follow it. Returns
/// the new revision. A clash is refused (`name_taken`, `name_has_history`) with nothing changed.
#[tauri::command]
pub async fn rename_skill(state: State<'_, AppState>, scope: Scope, name: String, to: String) -> ApiResult<u64> {
    let (from, to) = (SkillName::parse(&name)?, SkillName::parse(&to)?);
    let done = skilldeck_core::rename::rename_skill(&state.registry, scope, &from, &to)?;
    for warning in done.outcome.warnings.iter().chain(&crate::rename::follow(state.storage(), &done)) {
        tracing::warn!(skill = %to, from = %from, "{warning}");
    }
    Ok(done.outcome.revision.0)
}

/// A deleted skill that its history can bring back.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, ts_rs::TS)]
pub struct DeletedRow {
    /// Its scope.
    pub scope: Scope,
    /// Its name.
    pub name: String,
    /// The revision that was deleted.
    pub revision: u64,
}

/// Skills deleted and not restored, in the scopes local edits can change (a team skill goes
/// when the team store drops it, and comes back only from there).
#[tauri::command]
pub async fn deleted_skills(state: State<'_, AppState>) -> ApiResult<Vec<DeletedRow>> {
    let mut out = Vec::new();
    for scope in Scope::ALL.into_iter().filter(|s| !s.is_read_only()) {
        for (name, rev) in state.storage().deleted_skills_sync(scope)? {
            out.push(DeletedRow { scope, name: name.to_string(), revision: rev.0 });
        }
    }
    Ok(out)
}
