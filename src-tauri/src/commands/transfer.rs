//! Importing: the preview shown before anything is written, and the import itself.

use crate::error::ApiResult;
use crate::state::AppState;
use crate::views::{DiagView, ImportPreviewView, ImportedView};
use skilldeck_core::Scope;
use skilldeck_core::import;
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
    })
}

/// Imports through the one upload path, as the skill's next revision.
#[tauri::command]
pub async fn import_skill(state: State<'_, AppState>, path: String, scope: Scope) -> ApiResult<ImportedView> {
    let loaded = import::load(Path::new(path.trim()), state.storage().limits(), &mut |_, _| {})?;
    let out = state.registry.write_skill(scope, &loaded.name, &loaded.files)?;
    Ok(ImportedView { name: out.name.to_string(), scope, revision: out.revision.0, digest: out.digest.short() })
}
