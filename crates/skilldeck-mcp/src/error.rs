//! The server's errors: what stops it from starting or serving.
//! Tool failures are not here: they are `view_skill` results, data for the model.

/// Why the server could not start or stopped abnormally.
#[derive(Debug, thiserror::Error)]
pub enum McpError {
    /// The store could not be read to build the listing.
    #[error("could not read the skill store: {0}")]
    Store(#[from] skilldeck_store::StorageError),
    /// The listing options (config.toml) could not be read.
    #[error("could not read the listing settings: {0}")]
    Settings(String),
    /// `--workspace` is not a usable folder.
    #[error("cannot use {path} as the workspace: {reason}")]
    Workspace {
        /// The folder given.
        path: String,
        /// Why not.
        reason: String,
    },
    /// The MCP session could not be set up (the client went away during `initialize`, or
    /// spoke something other than MCP).
    #[error("the MCP session did not start: {0}")]
    Start(String),
    /// The MCP session ended with an error.
    #[error("the MCP session ended with an error: {0}")]
    Stopped(String),
    /// The HTTP listener could not be set up or failed.
    #[error("{0}")]
    Http(String),
}
