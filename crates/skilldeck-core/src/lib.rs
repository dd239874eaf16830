//! The Skilldeck core: what a skill is and how skills are kept, found and listed.
//! It holds no UI or desktop types; the CLI and the desktop app are thin layers over it.

pub mod bundled;
pub mod diag_args;
pub mod diagnostic;
pub mod digest;
pub mod files;
pub mod find;
pub mod frontmatter;
pub mod grants;
pub mod home;
pub mod import;
pub mod listing;
pub mod meta;
pub mod mount;
pub mod name;
mod parse_cache;
pub mod ranker;
pub mod registry;
pub mod relpath;
pub mod safe_read;
pub mod sandbox;
pub mod spec;
pub mod storage;
pub mod tokens;
pub mod trust;
pub mod validate;
pub mod view_result;
pub mod view_skill;
pub mod visible;
pub mod watch;
pub mod workspace_guard;
pub mod yaml_bounds;
pub mod yaml_explain;

pub use diagnostic::{DiagCode, Diagnostic, Severity};
pub use digest::Digest;
pub use files::{SkillFiles, UploadLimits};
pub use home::SkilldeckHome;
pub use meta::{ExtraFields, JsonText, SkillMeta, Tier};
pub use name::SkillName;
pub use registry::{DiskCacheStats, SkillEntry, SkillRegistry};
pub use relpath::RelPath;
pub use storage::{FsStorage, Revision, Scope, SkillStorage, StorageError};

/// The version of this build of Skilldeck, checked against a skill's `compatibility`.
pub const APP_VERSION: &str = env!("CARGO_PKG_VERSION");
