//! `skilldeck prompt`: the L1 listing exactly as a model gets it, for a request if one is given.

use crate::context::Ctx;
use crate::output;
use crate::output::Outcome;
use skilldeck_core::semantic::Readiness;
use skilldeck_select::catalogue::Catalogue;
use skilldeck_select::ranker::Query;
use skilldeck_skill::Tier;

/// Prints the listing text, or with `json` the whole listing with its o200k token count and
/// each skill's rank and how it is shown. The budget and tier default to what config.toml
/// gives the default provider; with `request` the listing is the one for a conversation whose
/// latest user message it is.
pub fn run(budget: Option<usize>, tier: Option<Tier>, request: Option<&str>, json: bool) -> anyhow::Result<Outcome> {
    let (ctx, _) = Ctx::open_listing()?;
    let mut opts = ctx.listing_options()?;
    opts.budget_tokens = budget.unwrap_or(opts.budget_tokens);
    opts.tier = tier.unwrap_or(opts.tier);
    // With a request, once: whether it was ranked by meaning too, and if not why.
    let meaning = match request.filter(|r| !r.trim().is_empty()) {
        Some(_) => ctx.registry.meaning(&opts.scopes)?,
        None => None,
    };
    let note = meaning.as_ref().and_then(super::model::note);
    let listing = ctx.registry.listing_for(&opts, &Query::new(request.unwrap_or_default()))?;
    if json {
        let mut value = serde_json::to_value(&listing)?;
        if let (Some(m), Some(obj)) = (&meaning, value.as_object_mut()) {
            obj.insert("ranked_by_meaning".to_owned(), (*m == Readiness::Ready).into());
            obj.insert("meaning_note".to_owned(), note.as_deref().map(|n| n.trim_start_matches("note: ")).into());
        }
        output::json(&value)?;
    } else {
        if let Some(n) = &note {
            crate::output::errln!("{n}");
        }
    }
    if !json && !listing.text.is_empty() {
        crate::output::outln!("{}", listing.text);
    }
    Ok(Outcome::Ok)
}
