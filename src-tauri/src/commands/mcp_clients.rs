//! The "Use in other agents" view: every known MCP client, Skilldeck's state in its settings
//! file, and adding or removing our entry there. The editing is skilldeck-mcp's `install`.

use crate::error::{ApiError, ApiResult};
use serde::Serialize;
use skilldeck_mcp::clients::{Client, snippet};
use skilldeck_mcp::install::{self, Action, Applied, ClientStatus, InstallError, Locations};
use std::path::{Path, PathBuf};

/// One client as the view shows it.
#[derive(Debug, Clone, Serialize)]
pub struct McpClientView {
    /// Detected or not, the file, Skilldeck's state in it.
    #[serde(flatten)]
    pub status: ClientStatus,
    /// Where the snippet goes, for adding it by hand.
    pub location: &'static str,
    /// The snippet.
    pub snippet: String,
    /// The client's documentation of the format.
    pub doc: &'static str,
}

/// What Add or Remove would do, for the confirmation.
#[derive(Debug, Clone, Serialize)]
pub struct McpClientPlan {
    /// What would happen (`unchanged` when nothing would).
    pub action: Action,
    /// The file that would change.
    pub path: PathBuf,
    /// Whether a backup of it would be written first (it exists).
    pub backup: bool,
}

/// Every known client with Skilldeck's state in its settings, and the snippet for each.
#[tauri::command]
pub async fn mcp_clients() -> ApiResult<Vec<McpClientView>> {
    // Without a skilldeck command the view still shows every file; Add says what is missing.
    let command = cli().unwrap_or_else(|_| "skilldeck".to_owned());
    let statuses = install::statuses(&locations()?, &command);
    Ok(Client::ALL
        .iter()
        .zip(statuses)
        .map(|(&c, status)| {
            let s = snippet(c, &command);
            McpClientView { status, location: s.location, snippet: s.text, doc: s.doc }
        })
        .collect())
}

/// What adding (`remove` false) or removing Skilldeck would do to `client`'s file; writes nothing.
#[tauri::command]
pub async fn mcp_client_plan(client: String, remove: bool) -> ApiResult<McpClientPlan> {
    let plan = plan(&client, remove)?;
    Ok(McpClientPlan { action: plan.action, backup: plan.before.is_some(), path: plan.path })
}

/// Adds (`remove` false) or removes Skilldeck in `client`'s file: a backup first, then the
/// new file; only our entry changes.
#[tauri::command]
pub async fn mcp_client_apply(client: String, remove: bool) -> ApiResult<Applied> {
    install::apply(&plan(&client, remove)?).map_err(api)
}

fn plan(client: &str, remove: bool) -> ApiResult<install::Plan> {
    let client = Client::parse(client).map_err(|m| ApiError::new("mcp_client_unknown", m))?;
    let file = locations()?.config_file(client);
    if remove { install::plan_uninstall(&file) } else { install::plan_install(&file, &cli()?) }.map_err(api)
}

fn locations() -> ApiResult<Locations> {
    Locations::from_env().ok_or_else(|| ApiError::new("no_home", "no home folder is known (HOME is not set)"))
}

/// The `skilldeck` command clients will run: the one installed beside this app, else the one
/// on PATH.
fn cli() -> ApiResult<String> {
    let name = format!("skilldeck{}", std::env::consts::EXE_SUFFIX);
    let beside = std::env::current_exe().ok().and_then(|e| e.parent().map(|d| d.join(&name)));
    let on_path = || {
        std::env::var_os("PATH").and_then(|p| std::env::split_paths(&p).map(|d| d.join(&name)).find(|p| p.is_file()))
    };
    let found = beside.filter(|p| p.is_file()).or_else(on_path);
    found.as_deref().and_then(Path::to_str).map(str::to_owned).ok_or_else(|| {
        ApiError::new(
            "mcp_cli_missing",
            "the skilldeck command is not installed beside the app or on PATH; install it first",
        )
    })
}

fn api(e: InstallError) -> ApiError {
    let (code, path) = match &e {
        InstallError::Unparsable { path, .. } => ("mcp_config_unparsable", path),
        InstallError::Shape { path, .. } => ("mcp_config_unsupported", path),
        InstallError::Changed(path) => ("mcp_config_changed", path),
        InstallError::Io { path, .. } => ("io", path),
    };
    ApiError::new(code, e.to_string()).arg("path", path.display())
}
