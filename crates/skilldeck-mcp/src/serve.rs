//! Serving MCP over standard input and output: the server on the line transport of `stdio`.

use crate::error::McpError;
use crate::options::ServeOptions;
use crate::server::SkilldeckServer;
use crate::stdio;
use rmcp::ServiceExt as _;
use skilldeck_core::SkillRegistry;

/// Serves MCP over this process's standard input and output until the client closes them.
/// Must run inside a Tokio runtime with I/O and time enabled.
pub async fn serve_stdio(registry: SkillRegistry, options: ServeOptions) -> Result<(), McpError> {
    let server = SkilldeckServer::new(registry, options)?;
    server.watch(tokio::runtime::Handle::current());
    let shared = std::sync::Arc::clone(&server.shared);
    let (read, write) = rmcp::transport::stdio_pipes();
    let transport = stdio::StdioLines::new(read, write);
    let running = server.serve(transport).await.map_err(|e| McpError::Start(e.to_string()))?;
    tracing::info!(transport = "stdio", "mcp server started");
    let stopped = running.waiting().await.map_err(|e| McpError::Stopped(e.to_string()));
    tracing::info!(transport = "stdio", "mcp server stopped");
    // The caller exits once this returns, without waiting for blocking work: a copy into the
    // workspace still under way must finish first, or its staging folder stays behind.
    let _ = tokio::task::spawn_blocking(move || shared.close_mounts()).await;
    stopped?;
    Ok(())
}
