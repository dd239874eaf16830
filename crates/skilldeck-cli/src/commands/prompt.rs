//! `skilldeck prompt`: the L1 listing exactly as a model gets it.

use crate::Outcome;
use crate::context::Ctx;
use crate::output;
use skilldeck_core::Tier;
use skilldeck_core::listing::ListingOptions;

/// Prints the listing text, or with `json` the whole listing with its token estimate.
pub fn run(budget: usize, tier: Tier, json: bool) -> anyhow::Result<Outcome> {
    let ctx = Ctx::open()?;
    let opts = ListingOptions { budget_tokens: budget, tier, ..ListingOptions::default() };
    let listing = ctx.registry.listing(&opts)?;
    if json {
        output::json(&listing)?;
    } else if !listing.text.is_empty() {
        crate::outln!("{}", listing.text);
    }
    Ok(Outcome::Ok)
}
