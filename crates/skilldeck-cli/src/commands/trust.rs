//! `skilldeck trust` and `skilldeck untrust`: the user's approval of a skill's `allowed-tools`,
//! and how a skill's requested tools are printed wherever they are shown.

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
                "approval withdrawn; its allowed-tools no longer pre-approve commands"
            } else {
                "had no approval to withdraw"
            }
        );
        return Ok(Outcome::Ok);
    }
    let view = trust.view(scope, name.as_str(), &entry.meta, content);
    match view.state {
        GrantState::None => {
            crate::output::outln!("{name} ({scope}) asks for no shell commands; there is nothing to approve.");
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
    let again = if scope == Scope::Team {
        "A team revision with other files or other allowed-tools asks again"
    } else {
        "A revision that changes allowed-tools asks again"
    };
    crate::output::outln!("{again}; `skilldeck untrust {name}` withdraws it.");
    Ok(Outcome::Ok)
}
