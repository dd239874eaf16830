//! `skilldeck trust` and `skilldeck untrust`: the user's approval of a skill's `allowed-tools`
//! and of its audit findings, and how a skill's requested tools are printed wherever they are
//! shown.

use crate::context::Ctx;
use crate::output::Outcome;
use anyhow::Context as _;
use skilldeck_core::Scope;
use skilldeck_core::trust::{GrantState, GrantsView, Trust};

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

/// Prints which files changed between the revision whose findings the user approved (its
/// digest as recorded, `approved`) and the live one (`now`), when they differ: an approval
/// covers the content it was given for, so the user sees what is new before approving again.
fn print_changed_since(
    ctx: &Ctx,
    scope: Scope,
    name: &skilldeck_core::SkillName,
    approved: &str,
    now: &skilldeck_core::digest::Digest,
) -> anyhow::Result<()> {
    let same = |d: &skilldeck_core::digest::Digest| d.short() == approved || d.long() == approved;
    if same(now) {
        return Ok(());
    }
    let storage = ctx.storage();
    let history = storage.history_sync(scope, name)?;
    let Some(then) = history.iter().rev().find(|h| h.digest.as_ref().is_some_and(same)) else {
        crate::output::outln!(
            "{name} changed since you approved its findings ({approved}); that revision is no longer kept."
        );
        return Ok(());
    };
    let old = storage.revision_files(scope, name, then.revision)?;
    let live = storage.snapshot(scope, name)?.files;
    let mut changes = Vec::new();
    for (path, bytes) in live.iter() {
        match old.get(path.as_str()) {
            None => changes.push(format!("{} (new)", visible(path.as_str()))),
            Some(before) if before != bytes => changes.push(format!("{} (changed)", visible(path.as_str()))),
            Some(_) => {}
        }
    }
    for (path, _) in old.iter().filter(|(p, _)| live.get(p.as_str()).is_none()) {
        changes.push(format!("{} (removed)", visible(path.as_str())));
    }
    crate::output::outln!(
        "Changed since you approved its findings in {} ({approved}); look at these before approving again:",
        crate::output::badge(Some(&then.revision.to_string()))
    );
    for c in changes {
        crate::output::outln!("  - {c}");
    }
    Ok(())
}

/// A path as the user may safely see it: control characters shown, never sent to the terminal.
fn visible(path: &str) -> String {
    skilldeck_core::visible::visible_line(path).into_owned()
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
    // The findings first: what the user approves is shown before it is approved.
    let report = skilldeck_core::audits::audit_stored(ctx.storage(), scope, name.as_str())?;
    let summary = report.summary();
    let findings = !summary.marks.is_empty();
    if findings {
        let digest = ctx.registry.digest(scope, name.as_str())?;
        // An approval covers the content it was given for: what changed since is shown first.
        if let Some(before) = trust.findings_approval(scope, name.as_str()) {
            print_changed_since(&ctx, scope, &name, &before.digest, &digest)?;
        }
        let held = !ctx.registry.held_by(&entry).is_empty();
        let serious: Vec<_> = report
            .findings
            .iter()
            .filter(|f| f.severity >= skilldeck_core::audit::RiskLevel::Medium)
            .cloned()
            .collect();
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
