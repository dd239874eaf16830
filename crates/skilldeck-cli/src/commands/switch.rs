//! `skilldeck enable`, `skilldeck disable` and `skilldeck budget`: the per-skill switch and the
//! listing budget, kept in config.toml.

use crate::context::Ctx;
use crate::output::Outcome;
use anyhow::Context as _;
use skilldeck_agent::config_edit;

/// Switches `name` on or off for agents; says what changed.
pub fn set_enabled(name: &str, enabled: bool) -> anyhow::Result<Outcome> {
    let ctx = Ctx::open()?;
    // Switching off a skill that exists (with suggestions otherwise); switching on any name, so a
    // deleted skill's leftover entry can be cleared.
    if !enabled {
        ctx.resolve(name, None)?;
    }
    let path = ctx.storage().home().config_path();
    let changed = config_edit::set_skill_enabled(&path, name, enabled)
        .with_context(|| format!("could not update {}", path.display()))?;
    let what = match (enabled, changed) {
        (false, true) => "is now off for agents: it is no longer listed",
        (false, false) => "was already off for agents",
        (true, true) => "is offered to agents again",
        (true, false) => "was already offered to agents",
    };
    crate::output::outln!("{name} {what} ({}).", path.display());
    super::autosync::print(&super::autosync::after_change())?;
    Ok(Outcome::Ok)
}

/// Pins `name` (always in full in a ranked listing) or unpins it; says what changed.
pub fn set_pinned(name: &str, pinned: bool) -> anyhow::Result<Outcome> {
    let ctx = Ctx::open()?;
    // Pinning a skill that exists (with suggestions otherwise); unpinning any name, so a deleted
    // skill's leftover entry can be cleared.
    if pinned {
        ctx.resolve(name, None)?;
    }
    let path = ctx.storage().home().config_path();
    let changed = config_edit::set_skill_pinned(&path, name, pinned)
        .with_context(|| format!("could not update {}", path.display()))?;
    let what = match (pinned, changed) {
        (true, true) => "is pinned: always in full in the listing",
        (true, false) => "was already pinned",
        (false, true) => "is no longer pinned",
        (false, false) => "was not pinned",
    };
    crate::output::outln!("{name} {what} ({}).", path.display());
    Ok(Outcome::Ok)
}

/// Prints the listing budget, or sets it to `tokens`.
pub fn budget(tokens: Option<usize>) -> anyhow::Result<Outcome> {
    let ctx = Ctx::open()?;
    let path = ctx.storage().home().config_path();
    match tokens {
        None => {
            crate::output::outln!(
                "The listing budget is {} tokens ({}).",
                ctx.config()?.listing.budget_tokens,
                path.display()
            )
        }
        Some(n) => {
            let changed = config_edit::set_budget_tokens(&path, n)
                .with_context(|| format!("could not update {}", path.display()))?;
            let what = if changed { "is now" } else { "was already" };
            crate::output::outln!("The listing budget {what} {n} tokens ({}).", path.display());
        }
    }
    Ok(Outcome::Ok)
}

/// Prints whether agent turns name the closest skills (`[listing] suggest`), or sets it.
pub fn suggest(on: Option<bool>) -> anyhow::Result<Outcome> {
    let ctx = Ctx::open()?;
    let path = ctx.storage().home().config_path();
    let word = |on: bool| if on { "on" } else { "off" };
    match on {
        None => crate::output::outln!(
            "Naming the closest skills to the model in each turn is {} ({}).",
            word(ctx.config()?.listing.suggest),
            path.display()
        ),
        Some(on) => {
            let changed = config_edit::set_listing_suggest(&path, on)
                .with_context(|| format!("could not update {}", path.display()))?;
            let what = if changed { "is now" } else { "was already" };
            crate::output::outln!(
                "Naming the closest skills to the model in each turn {what} {} ({}).",
                word(on),
                path.display()
            );
        }
    }
    Ok(Outcome::Ok)
}
