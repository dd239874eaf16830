//! Mounting skills: the workspace sandbox, the read-only mount of a skill's files and the
//! `view_skill` tool with its results. Reads skills from the store; never writes one.

pub mod mount;
pub mod sandbox;
pub mod view_result;
pub mod view_skill;
pub mod workspace_guard;
