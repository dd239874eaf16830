//! `SkillStorage`: the contract every backend of the store keeps, over scopes (the
//! file-system one is `fs::FsStorage`).

use super::delete::DeleteOutcome;
use super::error::Result;
use super::history::HistoryEntry;
use super::tree::TreeEntry;
use super::write::WriteOutcome;
use skilldeck_skill::files::SkillFiles;
use skilldeck_skill::name::SkillName;
use skilldeck_skill::relpath::RelPath;
use skilldeck_skill::scope::{Revision, Scope};

/// A skill store over scopes. Async so a remote backend can come later; `FsStorage` is the
/// desktop one.
#[async_trait::async_trait]
pub trait SkillStorage: Send + Sync {
    /// The folder names of the skills in `scope`, sorted (valid names or not).
    async fn list_skills(&self, scope: Scope) -> Result<Vec<String>>;
    /// The files of a skill: relative paths, sorted, never `.version`.
    async fn read_tree(&self, scope: Scope, name: &SkillName) -> Result<Vec<TreeEntry>>;
    /// A file's bytes as stored.
    async fn read_raw_file(&self, scope: Scope, name: &SkillName, path: &RelPath) -> Result<Vec<u8>>;
    /// A file as text; `SKILL.md` with its frontmatter stripped.
    async fn read_file(&self, scope: Scope, name: &SkillName, path: &RelPath) -> Result<String>;
    /// The one upload path: stores `files` as the skill's next revision.
    async fn write_skill(&self, scope: Scope, name: &SkillName, files: SkillFiles) -> Result<WriteOutcome>;
    /// Moves the skill to history (recoverable with `restore`). Returns the revision moved, and
    /// any bookkeeping that failed once it had moved.
    async fn delete_skill(&self, scope: Scope, name: &SkillName) -> Result<DeleteOutcome>;
    /// The skill's revisions, newest first.
    async fn history(&self, scope: Scope, name: &SkillName) -> Result<Vec<HistoryEntry>>;
    /// Makes a new revision with the content of `revision`.
    async fn restore(&self, scope: Scope, name: &SkillName, revision: Revision) -> Result<WriteOutcome>;
}
