//! Importing: the preview shown before anything is written, and the import itself.

use crate::error::ApiResult;
use crate::state::AppState;
use crate::views::{DiagView, ImportPreviewView, ImportedView};
use skilldeck_core::Scope;
use skilldeck_core::grants::GrantRequest;
use skilldeck_core::import;
use skilldeck_core::trust::Trust;
use std::path::Path;
use tauri::State;

/// Reads a folder, `SKILL.md` or `.zip`/`.skill` archive and says what importing it would do.
#[tauri::command]
pub async fn import_preview(state: State<'_, AppState>, path: String, scope: Scope) -> ApiResult<ImportPreviewView> {
    let loaded = import::load(Path::new(path.trim()), state.storage().limits(), &mut |_, _| {})?;
    let p = import::preview(state.storage(), scope, &loaded);
    Ok(ImportPreviewView {
        name: p.name.to_string(),
        scope,
        file_count: p.file_count,
        total_bytes: p.total_bytes,
        valid: p.valid,
        diagnostics: loaded.validation.diagnostics.iter().map(DiagView::from).collect(),
        next_revision: p.next_revision.0,
        is_new: p.is_new,
        skipped: loaded.skipped,
        grants: p.grants.into(),
    })
}

/// Imports through the one upload path, as the skill's next revision; with `trust`, also
/// approves its `allowed-tools` (the preview showed them).
#[tauri::command]
pub async fn import_skill(
    state: State<'_, AppState>,
    path: String,
    scope: Scope,
    trust: Option<bool>,
) -> ApiResult<ImportedView> {
    let loaded = import::load(Path::new(path.trim()), state.storage().limits(), &mut |_, _| {})?;
    let out = state.registry.write_skill(scope, &loaded.name, &loaded.files)?;
    let meta = &loaded.validation.meta;
    let mut approvals = Trust::load(state.storage().home())?;
    if trust == Some(true) && GrantRequest::of(meta).asks_for_shell() {
        approvals.approve(scope, out.name.as_str(), meta)?;
    }
    Ok(ImportedView {
        name: out.name.to_string(),
        scope,
        revision: out.revision.0,
        digest: out.digest.short(),
        grants: approvals.view(scope, out.name.as_str(), meta).into(),
    })
}
