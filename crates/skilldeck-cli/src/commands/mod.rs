//! The `skilldeck` subcommands, one module per group.
//! Each `run` returns an `Outcome` or an error; exit codes are decided in `main`.

pub mod add;
pub mod adopt;
pub mod agent;
pub mod agent_skill;
pub mod audit;
pub mod authoring;
pub mod autosync;
pub mod eval;
pub mod find;
pub mod import;
pub mod key;
pub mod list;
pub mod mcp;
pub mod mcp_install;
pub mod model;
pub mod model_hub;
pub mod model_install;
pub mod prompt;
pub mod refusals;
pub mod remote;
pub mod rename;
pub mod revisions;
pub mod scan;
pub mod show;
pub mod sources;
pub mod switch;
pub mod targets;
pub mod targets_window;
pub mod transfer;
pub mod trust;
pub mod validate;
pub mod view;
