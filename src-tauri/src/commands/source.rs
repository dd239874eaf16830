//! The skill view's diagnostics helpers: the raw `SKILL.md` (frontmatter included) and showing a
//! stored skill in the system's file manager (editing goes through a draft: `authoring.rs`). Paths come from the store, never the UI.

use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use crate::views::SourceView;
use skilldeck_skill::{RelPath, Scope, SkillName};
use std::path::PathBuf;
use tauri::State;

/// `SKILL.md` (or the file at `path`, for an audit finding's line) exactly as stored,
/// frontmatter included, for the line-numbered source view. Bytes that are not UTF-8 show as
/// `�` (and `lossy` says so); `read_skill_file` stays the rendered view.
#[tauri::command]
pub async fn skill_source(
    state: State<'_, AppState>,
    scope: Scope,
    name: String,
    path: Option<String>,
) -> ApiResult<SourceView> {
    let skill = SkillName::parse(&name)?;
    let rel = match path {
        Some(p) => RelPath::parse(&p)?,
        None => skill_md()?,
    };
    let bytes = state.storage().read_raw_file_sync(scope, &skill, &rel)?;
    Ok(SourceView::new(&bytes))
}

/// Shows the stored skill's `SKILL.md` in the system's file manager (the folder when the skill
/// has no `SKILL.md`).
#[tauri::command]
pub async fn reveal_skill_in_folder(state: State<'_, AppState>, scope: Scope, name: String) -> ApiResult<()> {
    let path = match skill_md_path(&state, scope, &name) {
        Err(e) if e.code == "file_not_found" => state.storage().stored_dir(scope, &SkillName::parse(&name)?)?,
        other => other?,
    };
    tauri_plugin_opener::reveal_item_in_dir(&path).map_err(|e| open_failed(&path, &e))
}

fn skill_md() -> ApiResult<RelPath> {
    Ok(RelPath::parse("SKILL.md")?)
}

/// Where the stored skill `name` in `scope` keeps its `SKILL.md`, resolved by the store.
fn skill_md_path(state: &AppState, scope: Scope, name: &str) -> ApiResult<PathBuf> {
    let skill = SkillName::parse(name)?;
    Ok(state.storage().stored_file(scope, &skill, &skill_md()?)?)
}

/// A launcher's failure in words a user can act on: most often no application is set to open
/// that kind of file; the launcher's own words come last, for whoever reads the log.
pub(crate) fn open_failed(path: &std::path::Path, e: &tauri_plugin_opener::Error) -> ApiError {
    let kind = path.extension().map_or_else(|| "such".to_owned(), |x| format!(".{}", x.to_string_lossy()));
    ApiError::new(
        "open_failed",
        format!(
            "the system could not open {}: no application is set to open {kind} files here, or it failed to start. \
             Choose a default application for {kind} files (for Markdown: `xdg-mime default \
             org.gnome.TextEditor.desktop text/markdown`, or your editor's), or use Show in folder. ({e})",
            path.display()
        ),
    )
    .arg("path", path.display().to_string())
    .arg("kind", kind)
}
