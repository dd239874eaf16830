//! The `skilldeck` subcommands, one module per group.
//! Each `run` returns an `Outcome` or an error; exit codes are decided in `main`.

pub mod agent;
pub mod import;
pub mod list;
pub mod prompt;
pub mod remote;
pub mod revisions;
pub mod show;
pub mod switch;
pub mod targets;
pub mod transfer;
pub mod trust;
pub mod validate;
pub mod view;
