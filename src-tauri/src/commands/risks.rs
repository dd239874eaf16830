//! The skill view's Risks panel: what the audit finds in a stored skill, and the user's approval
//! of those findings, which releases a skill the audit holds back. No rules of its own.

use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use crate::views::{Assessor, AuditView};
use skilldeck_skill::{Scope, SkillName};
use skilldeck_store::audits;
use skilldeck_store::trust::{Trust, changed_since_approval};
use tauri::State;

/// The audit of skill `name` in `scope` as stored now, assessed against `trust`.
pub(crate) fn audit_view(state: &AppState, trust: &Trust, scope: Scope, name: &str) -> ApiResult<AuditView> {
    let snapshot = state.storage().snapshot_dir(scope, name)?;
    let report = audits::audit_with_skipped(&snapshot.files, &snapshot.skipped);
    let mut view = Assessor { trust, hold: state.registry.hold() }.view(scope, name, report.findings);
    // An approval covers the files it was given for: what changed since is shown with it.
    if let Ok(skill) = SkillName::parse(name) {
        let now = snapshot.files.digest();
        view.changed_since =
            changed_since_approval(state.storage(), trust, scope, &skill, &snapshot.files, &now)?.map(|mut c| {
                for (path, _) in &mut c.files {
                    *path = crate::views::shown(path);
                }
                c
            });
    }
    Ok(view)
}

/// Approves the audit findings of skill `name` in `scope`, as `skilldeck trust` does, when its
/// files still have `digest` (the one the Risks panel showed; else `skill_changed`, and nothing
/// is approved). Returns the findings as they now stand.
#[tauri::command]
pub async fn approve_skill_findings(
    state: State<'_, AppState>,
    scope: Scope,
    name: String,
    digest: String,
) -> ApiResult<AuditView> {
    let skill = SkillName::parse(&name)?;
    // The files approved are the files audited: one read serves the digest and the audit.
    let snapshot = state.storage().snapshot_dir(scope, skill.as_str())?;
    let now = snapshot.files.digest();
    if now.short() != digest {
        return Err(ApiError::new(
            "skill_changed",
            format!("{name} changed since its findings were shown ({digest} is now {}); read them again", now.short()),
        )
        .arg("name", &name));
    }
    let report = audits::audit_with_skipped(&snapshot.files, &snapshot.skipped);
    let mut trust = Trust::load(state.storage().home())?;
    trust.approve_findings(scope, skill.as_str(), &now, &report.summary())?;
    Ok(Assessor { trust: &trust, hold: state.registry.hold() }.view(scope, skill.as_str(), report.findings))
}
