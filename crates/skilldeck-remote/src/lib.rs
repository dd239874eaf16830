//! The team store: skills with revisions on S3-compatible object storage, read through a
//! local cache and materialised into the core's team scope. The layout and contract are in
//! docs/guide/team-store.md; the core knows only the team scope, not the store.

pub mod cache;
pub mod config;
pub mod credentials;
pub mod error;
mod file_entry;
pub mod layout;
pub mod manifest;
#[cfg(feature = "moto-harness")]
pub mod moto;
pub mod problem;
pub mod remote;
pub mod store;
pub mod team;
pub mod untrusted;

pub use config::RemoteConfig;
pub use credentials::Credentials;
pub use error::{RemoteError, Result};
pub use manifest::{Event, Manifest};
pub use problem::SkillProblem;
pub use remote::{GcReport, Listing, Offline, RefreshReport, Remote, SkillSummary};
pub use store::{PublishReport, RemoteStore};
pub use team::{TEAM_REMOTE, TeamSync, When, sync_team};
