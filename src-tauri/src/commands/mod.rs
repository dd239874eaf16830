//! The commands the UI invokes: each takes state and arguments, calls the core, maps the error.
//! Grouped by what they touch; no logic of their own beyond shaping views.

pub mod add_source;
pub mod agent;
pub mod agents;
pub mod authoring;
pub mod collection;
pub mod evals;
pub mod mcp_clients;
pub mod revisions;
pub mod risks;
pub mod settings;
pub mod skills;
pub mod source;
pub mod team;
pub mod transfer;
pub mod updates;
