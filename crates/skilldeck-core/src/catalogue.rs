//! The registry as selection's [`Catalogue`]: its cached entries across scopes, less the skills
//! the audit holds back, are what the listing and `find_skills` are built from, by whoever
//! asks (agent loop, MCP server, CLI, app).

use crate::registry::SkillRegistry;
use crate::semantic::Readiness;
use skilldeck_select::catalogue::Catalogue;
use skilldeck_select::find::{self, Found};
use skilldeck_select::listing::{self, Listing, ListingOptions};
use skilldeck_select::ranker::{Query, SkillSet};
use skilldeck_skill::entry::{ListedEntry, Scope};
use skilldeck_store::FsStorage;
use skilldeck_store::StorageError;

impl Catalogue for SkillRegistry {
    type Error = StorageError;

    fn entries(&self, scopes: &[Scope]) -> Result<Vec<ListedEntry>, StorageError> {
        let mut entries = self.list_metas_across(scopes)?;
        entries.retain(|l| !self.is_held(&l.entry));
        Ok(entries)
    }

    fn listing(&self, opts: &ListingOptions) -> Result<Listing, StorageError> {
        self.listing_for(opts, &Query::default())
    }

    fn listing_for(&self, opts: &ListingOptions, query: &Query) -> Result<Listing, StorageError> {
        let entries = self.entries(&opts.scopes)?;
        if !query.text().is_empty() {
            self.ready_by_meaning(&entries);
        }
        let listing = listing::build_ranked(&entries, opts, query);
        self.keep_line_tokens(&opts.scopes);
        Ok(listing)
    }

    fn find_skills(&self, opts: &ListingOptions, query: &str, limit: usize) -> Result<Vec<Found>, StorageError> {
        let entries = self.entries(&opts.scopes)?;
        self.ready_by_meaning(&entries);
        Ok(find::find(&entries, opts, query, limit))
    }
}

impl SkillRegistry {
    /// Where ranking by meaning stands for the skills of `scopes` (computing a few missing
    /// vectors on the spot, as a ranking would); `None` when the registry ranks by words only.
    pub fn meaning(&self, scopes: &[Scope]) -> Result<Option<Readiness>, StorageError> {
        let Some(semantic) = self.semantic() else { return Ok(None) };
        Ok(Some(semantic.prepare_keeping(&SkillSet::of(&self.entries(scopes)?), || self.stored_set())))
    }

    /// The set of the skills of `scopes` the listing and `find_skills` rank (for indexing it).
    pub fn ranked_set(&self, scopes: &[Scope]) -> Result<std::sync::Arc<SkillSet>, StorageError> {
        Ok(SkillSet::of(&self.entries(scopes)?))
    }

    /// Every skill of the store that can be ranked, in every scope, held or not: whose vectors
    /// the vector cache keeps whichever scopes a client ranks (`Semantic::index_keeping`).
    /// `None` when the store cannot be listed (the cache then keeps the ranked set's only).
    pub fn stored_set(&self) -> Option<std::sync::Arc<SkillSet>> {
        Some(SkillSet::of(&self.list_metas_across(&Scope::ALL).ok()?))
    }

    /// Gives the set of `entries` (the one the listing and `find_skills` build on: sets are
    /// cached by their entries) its vectors when it can; ranking stays lexical otherwise.
    fn ready_by_meaning(&self, entries: &[ListedEntry]) {
        if let Some(semantic) = self.semantic() {
            semantic.prepare_keeping(&SkillSet::of(entries), || self.stored_set());
        }
    }
}

/// The registry's store, for `view_skill`, which copies a skill's files from it.
impl AsRef<FsStorage> for SkillRegistry {
    fn as_ref(&self) -> &FsStorage {
        self.storage()
    }
}
