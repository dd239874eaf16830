//! `Catalogue`: what selection asks of wherever skills are kept (the entries of some scopes,
//! with shadowing marked), and the listing and search built from those entries.

use crate::find::{self, Found};
use crate::listing::{self, Listing, ListingOptions};
use crate::ranker::Query;
use skilldeck_skill::entry::{ListedEntry, Scope};

/// A source of catalogue entries. Implement `entries`; the listing and `find_skills` come with
/// it, built from those entries here, so the source never knows how skills are chosen.
pub trait Catalogue {
    /// Why the entries could not be had.
    type Error;

    /// Every skill in `scopes`, sorted by name then scope, with shadowing marked.
    fn entries(&self, scopes: &[Scope]) -> Result<Vec<ListedEntry>, Self::Error>;

    /// The L1 listing for a session.
    fn listing(&self, opts: &ListingOptions) -> Result<Listing, Self::Error> {
        Ok(listing::build(&self.entries(&opts.scopes)?, opts))
    }

    /// The L1 listing for a turn of a conversation: ranked against `query` when not every
    /// skill fits the budget in full.
    fn listing_for(&self, opts: &ListingOptions, query: &Query) -> Result<Listing, Self::Error> {
        Ok(listing::build_ranked(&self.entries(&opts.scopes)?, opts, query))
    }

    /// `find_skills`: the skills that best match `query` among every skill the session may be
    /// listed, shown or not.
    fn find_skills(&self, opts: &ListingOptions, query: &str, limit: usize) -> Result<Vec<Found>, Self::Error> {
        Ok(find::find(&self.entries(&opts.scopes)?, opts, query, limit))
    }
}
