//! The Skilldeck catalogue: the registry (`registry`), which joins the store to what a skill is
//! and caches each skill's parse, and ranking by meaning (`semantic`), which joins the
//! embedding model to the ranker's dense half.
//!
//! The crates beneath are named directly by the crates that use them: `skilldeck-skill` (what a
//! skill is), `skilldeck-store` (the store), `skilldeck-select` (listing and search),
//! `skilldeck-mount` (the sandbox and `view_skill`) and `skilldeck-audit` (the audit's rules).
//! See `docs/architecture.md`.

pub mod authoring;
mod catalogue;
pub mod registry;
pub mod rename;
pub mod semantic;

pub use registry::{DiskCacheStats, SkillRegistry};
