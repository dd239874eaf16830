//! `skilldeck mcp`: an MCP server over Skilldeck's store, built on `rmcp`, the official Rust SDK.
//! Holds the server, its tool, workspace resolution, the per-revision mount memo and the live
//! listing; the client settings installer (`install`) and, through its file handling, per-skill
//! switches in the agents' own settings (`switches`). Knows nothing of the agent loop or the
//! CLI, which hands it the listing options.

mod catalog;
pub mod clients;
mod error;
pub mod http;
mod incoming;
pub mod install;
mod live;
mod memo;
mod options;
mod search;
mod serve;
mod served;
mod server;
mod skills_ext;
mod slot;
mod stdio;
pub mod switches;
mod tool;
mod workspace;

pub use catalog::SCHEME;
pub use error::McpError;
pub use options::{DEFAULT_DEBOUNCE, ListingOptionsFn, ServeOptions};
pub use search::{find_output_schema, find_skills_tool};
pub use serve::serve_stdio;
pub use server::SkilldeckServer;
pub use tool::{OUTPUT_SCHEMA_ERROR_CODES, instructions, output_schema, view_skill_tool};
pub use workspace::path_from_file_uri;
