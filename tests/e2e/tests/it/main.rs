//! The integration tests of `e2e`, one module a file, linked into one test binary
//! (one link for the whole suite instead of one per file).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod add_source;
mod adopt_sourced;
mod agent_budget;
mod agents;
mod audit;
mod authoring;
mod desktop;
mod evals;
mod installed;
mod journey;
mod listing_try;
mod long_sidebar;
/// A loopback model server speaking the providers' wire formats (the agent crate's own).
#[path = "../../../../crates/skilldeck-agent/tests/it/common/loopback.rs"]
mod loopback;
mod mcp_clients;
mod meaning;
mod overwrite;
mod settings;
mod team;
mod updates;
