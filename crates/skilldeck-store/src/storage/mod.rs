//! Storage: the skill store on the file system, in layers (see docs/architecture.md): seals and
//! trees at the bottom, then history, markers and records, scans, writes and deletes, `FsStorage`.
//! This file only names the modules and hands on what the crates above use.

mod adopt;
mod batch;
mod contract;
mod delete;
mod error;
mod fs;
mod history;
mod journal;
mod lock;
mod marker;
mod record;
mod recover;
mod rename;
mod scan;
pub mod seal;
pub mod stamps;
mod team;
pub mod tree;
mod write;

pub(crate) use history::now as now_rfc3339;
pub(crate) use marker::{STAGING_PREFIX, staging_owner};
pub(crate) use scan::snapshot;

pub use batch::{BatchResult, WriteBatch};
pub use contract::SkillStorage;
pub use delete::DeleteOutcome;
pub use error::{Result, StorageError};
pub use fs::FsStorage;
pub use history::{HistoryEntry, RevisionEvent};
pub use rename::RenameOutcome;
pub use tree::{Snapshot, Summary, TreeEntry};
pub use write::WriteOutcome;

pub use skilldeck_skill::entry::{Revision, Scope};
