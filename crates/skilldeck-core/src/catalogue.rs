//! The registry as selection's [`Catalogue`]: its cached entries across scopes are what the
//! listing and `find_skills` are built from, by whoever asks (agent loop, MCP server, CLI, app).

use crate::registry::SkillRegistry;
use skilldeck_select::catalogue::Catalogue;
use skilldeck_skill::entry::{ListedEntry, Scope};
use skilldeck_store::FsStorage;
use skilldeck_store::StorageError;

impl Catalogue for SkillRegistry {
    type Error = StorageError;

    fn entries(&self, scopes: &[Scope]) -> Result<Vec<ListedEntry>, StorageError> {
        self.list_metas_across(scopes)
    }
}

/// The registry's store, for `view_skill`, which copies a skill's files from it.
impl AsRef<FsStorage> for SkillRegistry {
    fn as_ref(&self) -> &FsStorage {
        self.storage()
    }
}
