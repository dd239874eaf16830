//! The integration tests of `skilldeck-cli`, one module a file, linked into one test binary
//! (one link for the whole suite instead of one per file).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod add;
mod agent;
mod agent_hostile;
mod agent_skill;
mod audit;
mod authoring;
mod auto_sync;
mod cli;
mod eval;
mod export_held;
mod keychain;
mod link_mode;
mod logs;
mod mcp;
mod mcp_add;
mod mcp_conformance;
mod mcp_install;
mod mcp_skills;
mod meaning;
mod model;
mod no_links;
mod overwrite;
mod remote;
mod rename;
mod scan_adopt;
mod sources_env;
mod sources_lock;
mod sync_budget;
mod targets;
mod targets_budget;
mod team_env;
mod team_scope;
mod untrusted_files;
mod validate_for;
mod world;
