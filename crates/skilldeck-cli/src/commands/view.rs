//! `skilldeck view` and `skilldeck tool-spec`: the real `view_skill` tool from a terminal.

use crate::context::Ctx;
use crate::output;
use crate::output::Outcome;
use anyhow::Context as _;
use skilldeck_mount::sandbox::Sandbox;
use skilldeck_mount::view_skill::{Turn, view_skill};
use std::path::Path;

/// A turn id unique to this call.
fn fresh_turn_id() -> String {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    format!("cli-{nanos}-{}", std::process::id())
}

/// Runs `view_skill` against `workspace` and prints the result JSON exactly as a model gets it.
/// An error result is data, so it still exits 0.
pub fn view(name: &str, path: Option<&str>, workspace: &Path, turn: Option<String>) -> anyhow::Result<Outcome> {
    let (ctx, _) = Ctx::open_listing()?;
    let sandbox =
        Sandbox::open(workspace).with_context(|| format!("cannot use {} as the workspace", workspace.display()))?;
    let mut turn = Turn::begin(&ctx.registry, &ctx.listing_options()?, turn.unwrap_or_else(fresh_turn_id))?;
    let mut input = serde_json::json!({ "name": name });
    if let Some(p) = path {
        input["path"] = p.into();
    }
    let result = view_skill(&ctx.registry, &sandbox, &mut turn, &input);
    // Exactly as the model gets it: serde escapes the control characters of its strings.
    crate::output::rawln!("{}", serde_json::to_string(&result)?);
    Ok(Outcome::Ok)
}

/// Prints this turn's `view_skill` spec.
pub fn tool_spec(json: bool) -> anyhow::Result<Outcome> {
    let ctx = Ctx::open()?;
    let turn = Turn::begin(&ctx.registry, &ctx.listing_options()?, fresh_turn_id())?;
    let spec = turn.spec();
    if json {
        output::json(&spec)?;
        return Ok(Outcome::Ok);
    }
    match spec {
        None => crate::output::outln!("No skill is listed, so view_skill is not offered this turn."),
        Some(s) => {
            crate::output::outln!("{}\n\n{}\n", s.name, s.description);
            crate::output::outln!("name: one of {}", turn.listing().names().join(", "));
            crate::output::outln!("path: optional, a file inside the skill");
        }
    }
    Ok(Outcome::Ok)
}
