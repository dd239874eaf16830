//! Deleting (to history), the history view, and restoring a revision as a new one.

use crate::error::ApiResult;
use crate::state::AppState;
use crate::views::{HistoryRow, ImportedView};
use skilldeck_core::storage::RevisionEvent;
use skilldeck_core::{Revision, Scope, SkillName};
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
                RevisionEvent::Restore { from } => format!("restore:{from}"),
                RevisionEvent::Delete => "delete".to_owned(),
                RevisionEvent::Recovered => "recovered".to_owned(),
            },
            current: e.current,
            restorable: e.restorable,
        })
        .collect())
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
    })
}

/// A deleted skill that its history can bring back.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct DeletedRow {
    /// Its scope.
    pub scope: Scope,
    /// Its name.
    pub name: String,
    /// The revision that was deleted.
    pub revision: u64,
}

/// Skills deleted and not restored, in both scopes.
#[tauri::command]
pub async fn deleted_skills(state: State<'_, AppState>) -> ApiResult<Vec<DeletedRow>> {
    let mut out = Vec::new();
    for scope in Scope::ALL {
        for (name, rev) in state.storage().deleted_skills_sync(scope)? {
            out.push(DeletedRow { scope, name: name.to_string(), revision: rev.0 });
        }
    }
    Ok(out)
}
