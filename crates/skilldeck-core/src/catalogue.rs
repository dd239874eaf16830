//! The registry as selection's [`Catalogue`]: its cached entries across scopes, less the skills
//! the audit holds back, are what the listing and `find_skills` are built from, by whoever
//! asks (agent loop, MCP server, CLI, app).

use crate::registry::SkillRegistry;
use skilldeck_select::catalogue::Catalogue;
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
}

/// The registry's store, for `view_skill`, which copies a skill's files from it.
impl AsRef<FsStorage> for SkillRegistry {
    fn as_ref(&self) -> &FsStorage {
        self.storage()
    }
}
