//! `skilldeck enable` and `skilldeck disable`: the per-skill switch, kept in config.toml.

use crate::Outcome;
use crate::context::Ctx;
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
    crate::outln!("{name} {what} ({}).", path.display());
    Ok(Outcome::Ok)
}
