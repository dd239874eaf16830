//! `skilldeck trust` and `skilldeck untrust`: the user's approval of a skill's `allowed-tools`
//! and of its audit findings, and how a skill's requested tools are printed wherever they are
//! shown.

use crate::context::Ctx;
use crate::output::Outcome;
use anyhow::Context as _;
use skilldeck_skill::Scope;
use skilldeck_store::trust::{ChangedSince, FileChange, GrantState, GrantsView, Trust, changed_since_approval};

/// Prints what a skill asks for, a warning for broad requests, and whether it is in force.
pub fn print_grants(grants: &GrantsView, name: &str, indent: &str) -> std::io::Result<()> {
    if grants.requested.is_empty() {
        return Ok(());
    }
    crate::output::outln!("{indent}allowed-tools asks to:");
    for t in &grants.requested {
        crate::output::outln!("{indent}  {} {}: {}", if t.broad { "!" } else { "-" }, t.pattern, t.plain);
    }
    if grants.broad {
        crate::output::outln!(
            "{indent}WARNING: this lets the skill run any command without asking (inside the sandbox). Approve it only if you trust its author."
        );
    }
    let state = match grants.state {
        GrantState::None => return Ok(()),
        GrantState::Bundled => "in force: bundled with Skilldeck".to_owned(),
        GrantState::Trusted => "in force: you approved it".to_owned(),
        GrantState::Untrusted => format!("NOT in force: every command is asked until you run `skilldeck trust {name}`"),
        GrantState::Changed => {
            format!(
                "NOT in force: it changed since you approved it; run `skilldeck trust {name}` to approve the new one"
            )
        }
    };
    crate::output::outln!("{indent}{state}");
    Ok(())
}

/// Prints which files changed since the revision whose findings the user approved (see
/// `trust::changed_since_approval`): the user sees what is new before approving again.
fn print_changed_since(changed: &ChangedSince, name: &skilldeck_skill::SkillName) -> std::io::Result<()> {
    let approved = &changed.approved;
    let Some(revision) = changed.revision else {
        crate::output::outln!(
            "{name} changed since you approved its findings ({approved}); that revision is no longer kept."
        );
        return Ok(());
    };
    crate::output::outln!(
        "Changed since you approved its findings in {} ({approved}); look at these before approving again:",
        crate::output::badge(Some(&revision.to_string()))
    );
    for (path, change) in &changed.files {
        let what = match change {
            FileChange::New => "new",
            FileChange::Changed => "changed",
            FileChange::Removed => "removed",
        };
        crate::output::outln!("  - {path} ({what})");
    }
    Ok(())
}

/// Approves (or with `approve` false, withdraws) skill `name`'s `allowed-tools`.
pub fn set(name: &str, scope: Option<Scope>, approve: bool) -> anyhow::Result<Outcome> {
    let ctx = Ctx::open()?;
    let (scope, name) = ctx.resolve(name, scope)?;
    let entry = ctx.registry.get(scope, name.as_str())?.with_context(|| format!("{name} vanished while reading"))?;
    let home = ctx.storage().home();
    let mut trust = Trust::load(home)?;
    let content = ctx.registry.trust_content(scope, name.as_str())?;
    let content = content.as_ref();
    if !approve {
        let had = trust.revoke(scope, name.as_str())?;
        crate::output::outln!(
            "{name} ({scope}): {}",
            if had {
                "approval withdrawn; its allowed-tools no longer pre-approve commands, and its audit findings hold it again"
            } else {
                "had no approval to withdraw"
            }
        );
        return Ok(Outcome::Ok);
    }
    // The findings first: what the user approves is shown before it is approved. One read of the
    // folder serves the audit, the digest approved and what changed since the last approval.
    let snapshot = ctx.storage().snapshot_dir(scope, name.as_str())?;
    let report = skilldeck_store::audits::audit_with_skipped(&snapshot.files, &snapshot.skipped);
    let summary = report.summary();
    let findings = !summary.marks.is_empty();
    if findings {
        let digest = snapshot.files.digest();
        // An approval covers the content it was given for: what changed since is shown first.
        if let Some(changed) = changed_since_approval(ctx.storage(), &trust, scope, &name, &snapshot.files, &digest)? {
            print_changed_since(&changed, &name)?;
        }
        let held = !ctx.registry.held_by(&entry).is_empty();
        let serious: Vec<_> =
            report.findings.iter().filter(|f| f.severity >= skilldeck_audit::RiskLevel::Medium).cloned().collect();
        crate::output::outln!(
            "Approving {} audit finding(s) of {name} ({scope}, {}){}:",
            serious.len(),
            crate::output::badge(entry.version.as_deref()),
            if held { ", which held it back" } else { "" }
        );
        super::audit::print_findings(&serious, "  ")?;
        trust.approve_findings(scope, name.as_str(), &digest, &summary)?;
        crate::output::outln!(
            "{name} is listed to models, offered over MCP and synced again. A revision with a new finding is held again."
        );
    }
    let view = trust.view(scope, name.as_str(), &entry.meta, content);
    match view.state {
        GrantState::None => {
            if !findings {
                crate::output::outln!(
                    "{name} ({scope}) asks for no shell commands and the audit found nothing to approve."
                );
            }
            return Ok(Outcome::Ok);
        }
        GrantState::Bundled => {
            crate::output::outln!(
                "{name} ({scope}) is bundled with Skilldeck; its allowed-tools are in force as shipped."
            );
            return Ok(Outcome::Ok);
        }
        GrantState::Trusted | GrantState::Untrusted | GrantState::Changed => {}
    }
    trust.approve(scope, name.as_str(), &entry.meta, content)?;
    crate::output::outln!(
        "Approved the allowed-tools of {name} ({scope}, {}):",
        crate::output::badge(entry.version.as_deref())
    );
    let approved = trust.view(scope, name.as_str(), &entry.meta, content);
    print_grants(&approved, name.as_str(), "  ")?;
    crate::output::outln!(
        "A revision with other files or other allowed-tools asks again; `skilldeck untrust {name}` withdraws it."
    );
    Ok(Outcome::Ok)
}
