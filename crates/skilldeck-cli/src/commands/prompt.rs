//! `skilldeck prompt`: the L1 listing exactly as a model gets it.

use crate::Outcome;
use crate::context::Ctx;
use crate::output;
use skilldeck_core::Tier;

/// Prints the listing text, or with `json` the whole listing with its token estimate. The
/// budget and tier default to what config.toml gives the default provider.
pub fn run(budget: Option<usize>, tier: Option<Tier>, json: bool) -> anyhow::Result<Outcome> {
    let ctx = Ctx::open()?;
    let mut opts = ctx.listing_options()?;
    opts.budget_tokens = budget.unwrap_or(opts.budget_tokens);
    opts.tier = tier.unwrap_or(opts.tier);
    let listing = ctx.registry.listing(&opts)?;
    if json {
        output::json(&listing)?;
    } else if !listing.text.is_empty() {
        crate::outln!("{}", listing.text);
    }
    Ok(Outcome::Ok)
}
