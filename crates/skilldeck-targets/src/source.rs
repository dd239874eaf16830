//! What should be in the targets: the skills chosen from the store, and reading one whole
//! revision of each when it is written.

use crate::error::TargetError;
use serde::Serialize;
use skilldeck_core::{Digest, FsStorage, Revision, Scope, SkillFiles, SkillName};
use std::collections::BTreeMap;

/// A skill chosen for the targets: the store's current revision of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Wanted {
    /// Its name (a valid skill name).
    pub name: SkillName,
    /// The scope it is stored in (user shadows system).
    pub scope: Scope,
    /// Its revision now.
    pub revision: Revision,
}

/// The chosen skills, by name.
pub type WantedSet = BTreeMap<String, Wanted>;

/// Where skills are read from when they are written to a target.
pub trait Source {
    /// The skill's files now (one revision whole) and that revision.
    fn files(&self, want: &Wanted) -> Result<(Revision, SkillFiles), TargetError>;
    /// The digest of the skill's current revision.
    fn digest(&self, want: &Wanted) -> Result<Digest, TargetError> {
        Ok(self.files(want)?.1.digest())
    }
}

/// The file-system store as a source.
#[derive(Debug, Clone, Copy)]
pub struct Store<'a>(pub &'a FsStorage);

impl Source for Store<'_> {
    fn files(&self, want: &Wanted) -> Result<(Revision, SkillFiles), TargetError> {
        let snap = self.0.snapshot(want.scope, &want.name)?;
        Ok((snap.revision.unwrap_or(want.revision), snap.files))
    }
}
