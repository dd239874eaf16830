//! The skill store: revisions and their records and seals, history, the journal and recovery,
//! imports, config.toml's one writer, the parse cache, the watcher, trust grants, the audit of what it holds and the bundled
//! skills, on the file system.

pub mod audits;
pub mod bundled;
pub mod config_file;
pub mod drafts;
pub mod entries;
mod framed;
pub mod home;
pub mod import;
pub mod parse_cache;
pub mod read_check;
pub mod safe_read;
pub mod storage;
pub mod trust;
pub mod vector_cache;
pub mod watch;

pub use home::SkilldeckHome;
pub use storage::{FsStorage, Revision, Scope, SkillStorage, StorageError};
