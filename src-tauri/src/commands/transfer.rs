//! Importing: the preview shown before anything is written, and the import itself.

use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use crate::views::{Assessor, DiagView, ImportPreviewView, ImportedView};
use skilldeck_skill::Scope;
use skilldeck_skill::grants::GrantRequest;
use skilldeck_store::audits;
use skilldeck_store::import;
use skilldeck_store::trust::Trust;
use std::path::{Path, PathBuf};
use tauri::State;

/// Reads a folder, `SKILL.md` or `.zip`/`.skill` archive and says what importing it would do,
/// with what the audit finds in its files and whether that would hold it back.
#[tauri::command]
pub async fn import_preview(state: State<'_, AppState>, path: String, scope: Scope) -> ApiResult<ImportPreviewView> {
    let scope = user_scope(scope)?;
    let loaded = import::load(&typed_path(&path)?, state.storage().limits(), &mut |_, _| {})?;
    let p = import::preview(state.storage(), scope, &loaded);
    // An unreadable trust file approves nothing: every finding shows as unapproved.
    let trust = Trust::load(state.storage().home()).unwrap_or_default();
    let report = audits::audit_with_skipped(&loaded.files, &loaded.skipped);
    let audit = Assessor { trust: &trust, hold: state.registry.hold() }.view(scope, p.name.as_str(), report.findings);
    Ok(ImportPreviewView {
        name: p.name.to_string(),
        scope,
        file_count: p.file_count,
        total_bytes: p.total_bytes,
        valid: p.valid,
        diagnostics: loaded.validation.diagnostics.iter().map(DiagView::from).collect(),
        next_revision: p.next_revision.0,
        is_new: p.is_new,
        identical: p.identical,
        current_revision: p.current_revision.map(|r| r.0),
        skipped: loaded.skipped,
        grants: p.grants.into(),
        audit,
    })
}

/// Imports through the one upload path, as the skill's next revision, unless its files equal
/// the current revision's (then nothing is written and `unchanged` says so); with `trust`,
/// also approves its `allowed-tools` (the preview showed them).
#[tauri::command]
pub async fn import_skill(
    state: State<'_, AppState>,
    path: String,
    scope: Scope,
    trust: Option<bool>,
) -> ApiResult<ImportedView> {
    let scope = user_scope(scope)?;
    let loaded = import::load(&typed_path(&path)?, state.storage().limits(), &mut |_, _| {})?;
    let out = import::store(state.storage(), scope, &loaded)?;
    state.registry.invalidate(scope, Some(loaded.name.as_str()));
    let meta = &loaded.validation.meta;
    let mut approvals = Trust::load(state.storage().home())?;
    let name = loaded.name.as_str();
    // An approval covers exactly the files stored (or found equal) here.
    let content = Some(out.digest());
    if trust == Some(true) && GrantRequest::of(meta).asks_for_shell() {
        approvals.approve(scope, name, meta, content.as_ref())?;
    }
    Ok(ImportedView {
        name: name.to_owned(),
        scope,
        revision: out.revision().0,
        digest: out.digest().short(),
        unchanged: out.is_unchanged(),
        grants: approvals.view(scope, name, meta, content.as_ref()).into(),
    })
}

/// The app imports into the user's skills only: bundled skills come with Skilldeck.
pub(crate) fn user_scope(scope: Scope) -> ApiResult<Scope> {
    match scope {
        Scope::User => Ok(scope),
        Scope::System => Err(ApiError::new(
            "scope_refused",
            "bundled (system) skills come with Skilldeck; import into your own skills instead",
        )),
        Scope::Team => Err(ApiError::new(
            "scope_refused",
            "team skills come from the team store; import into your own skills, then publish to the team",
        )),
    }
}

/// A path as people type or paste it: `~/skills/pdf`, `file:///home/me/pdf.zip`, or plain.
pub(crate) fn typed_path(typed: &str) -> ApiResult<PathBuf> {
    let typed = typed.trim();
    if typed.starts_with("file://") {
        let url = tauri::Url::parse(typed)
            .map_err(|e| ApiError::new("path_invalid", format!("{typed} is not a file address: {e}")))?;
        return url
            .to_file_path()
            .map_err(|()| ApiError::new("path_invalid", format!("{typed} does not name a file on this computer")));
    }
    let home = || std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from);
    match typed.strip_prefix('~') {
        Some(rest) if rest.is_empty() || rest.starts_with('/') => match home() {
            Some(h) => Ok(h.join(rest.trim_start_matches('/'))),
            None => Err(ApiError::new("path_invalid", "~ cannot be expanded: HOME is not set; type the whole path")),
        },
        _ => Ok(Path::new(typed).to_path_buf()),
    }
}

#[cfg(test)]
mod tests {
    use super::typed_path;
    use std::path::PathBuf;

    #[test]
    fn typed_paths_expand_home_and_file_addresses() {
        let home = PathBuf::from(std::env::var("HOME").unwrap());
        assert_eq!(typed_path(" ~/skills/pdf ").unwrap(), home.join("skills/pdf"));
        assert_eq!(typed_path("~").unwrap(), home);
        assert_eq!(typed_path("file:///tmp/my%20skill.zip").unwrap(), PathBuf::from("/tmp/my skill.zip"));
        assert_eq!(typed_path("~other/x").unwrap(), PathBuf::from("~other/x"));
        assert_eq!(typed_path("/srv/skills").unwrap(), PathBuf::from("/srv/skills"));
        assert_eq!(typed_path("file://server/x").unwrap_err().code, "path_invalid");
    }
}
