//! Skilldeck's MCP server in an agent's settings, from its card in the Agents view: what adding
//! or removing our entry would do, and doing it. The editing is skilldeck-mcp's `install`; the
//! clients' states come with the Agents view's cards (`agents_overview`).

use crate::error::ApiResult;
use crate::mcp_clients::{self as clients, api};
use serde::Serialize;
use skilldeck_mcp::install::{self, Action, Applied};
use std::path::PathBuf;

/// What Add or Remove would do, for the confirmation.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct McpClientPlan {
    /// What would happen (`unchanged` when nothing would).
    pub action: Action,
    /// The file that would change.
    pub path: PathBuf,
    /// Whether a backup of it would be written first (it exists).
    pub backup: bool,
}

/// What adding (`remove` false) or removing Skilldeck would do to `client`'s file; writes nothing.
#[tauri::command]
pub async fn mcp_client_plan(client: String, remove: bool) -> ApiResult<McpClientPlan> {
    let plan = clients::plan(&client, remove)?;
    Ok(McpClientPlan { action: plan.action, backup: plan.before.is_some(), path: plan.path })
}

/// Adds (`remove` false) or removes Skilldeck in `client`'s file: a backup first, then the
/// new file; only our entry changes.
#[tauri::command]
pub async fn mcp_client_apply(client: String, remove: bool) -> ApiResult<Applied> {
    install::apply(&clients::plan(&client, remove)?).map_err(api)
}
