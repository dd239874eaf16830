//! `skilldeck mcp`: an MCP server over Skilldeck's store, built on `rmcp`, the official Rust SDK.
//! Holds the server, its tool, workspace resolution, the per-revision mount memo and the live
//! listing; knows nothing of the agent loop or the CLI, which hands it the listing options.

mod catalog;
pub mod clients;
mod error;
pub mod http;
mod incoming;
pub mod install;
mod live;
mod memo;
mod search;
mod server;
mod slot;
mod stdio;
mod tool;
mod workspace;

pub use catalog::SCHEME;
pub use error::McpError;
pub use search::{find_output_schema, find_skills_tool};
pub use server::SkilldeckServer;
pub use tool::{OUTPUT_SCHEMA_ERROR_CODES, instructions, output_schema, view_skill_tool};
pub use workspace::path_from_file_uri;

use rmcp::ServiceExt as _;
use skilldeck_core::listing::ListingOptions;
use skilldeck_core::{Scope, SkillRegistry};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// Reads the listing options afresh (config.toml may change while the server runs): the
/// caller's knowledge of budgets, tiers and switched-off skills.
pub type ListingOptionsFn = Arc<dyn Fn() -> Result<ListingOptions, String> + Send + Sync>;

/// How long store changes settle before the listing is rebuilt and clients are told. A batch
/// is reported at the latest four periods after its first change, so within about a second.
pub const DEFAULT_DEBOUNCE: Duration = Duration::from_millis(250);

/// What the server serves and where it mounts.
#[derive(Clone)]
pub struct ServeOptions {
    /// Mount into this folder; without it, into the client's first `file://` root.
    pub workspace: Option<PathBuf>,
    /// Only skills of these scopes; empty means the listing options' scopes.
    pub scopes: Vec<Scope>,
    /// Where the listing options come from.
    pub listing_options: ListingOptionsFn,
    /// How long store changes settle before `notifications/tools/list_changed`.
    pub debounce: Duration,
}

impl std::fmt::Debug for ServeOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServeOptions")
            .field("workspace", &self.workspace)
            .field("scopes", &self.scopes)
            .field("debounce", &self.debounce)
            .finish_non_exhaustive()
    }
}

/// Serves MCP over this process's standard input and output until the client closes them.
/// Must run inside a Tokio runtime with I/O and time enabled.
pub async fn serve_stdio(registry: SkillRegistry, options: ServeOptions) -> Result<(), McpError> {
    let server = SkilldeckServer::new(registry, options)?;
    server.watch(tokio::runtime::Handle::current());
    let (read, write) = rmcp::transport::stdio_pipes();
    let transport = stdio::StdioLines::new(read, write);
    let running = server.serve(transport).await.map_err(|e| McpError::Start(e.to_string()))?;
    running.waiting().await.map_err(|e| McpError::Stopped(e.to_string()))?;
    Ok(())
}
