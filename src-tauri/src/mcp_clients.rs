//! Skilldeck's MCP server in the agents' settings: every known MCP client, Skilldeck's state in
//! its settings file, the snippet to add by hand, and the plan that adds or removes our entry.
//! Glue between the app and skilldeck-mcp's `install`, which does every edit; the Agents view
//! shows it on each agent's card.

use crate::error::{ApiError, ApiResult};
use serde::Serialize;
use skilldeck_mcp::clients::{Client, snippet};
use skilldeck_mcp::install::{self, ClientStatus, InstallError, Locations};
use std::path::Path;

/// One client as the Agents view shows it.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
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

/// Every known client with Skilldeck's state in its settings, and the snippet for each.
pub fn views() -> ApiResult<Vec<McpClientView>> {
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

/// What adding (`remove` false) or removing Skilldeck would do to `client`'s file.
pub fn plan(client: &str, remove: bool) -> ApiResult<install::Plan> {
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

/// An install error as the UI shows it, with the file it is about.
pub fn api(e: InstallError) -> ApiError {
    let (code, path) = match &e {
        InstallError::Unparsable { path, .. } => ("mcp_config_unparsable", path),
        InstallError::Shape { path, .. } => ("mcp_config_unsupported", path),
        InstallError::Changed(path) => ("mcp_config_changed", path),
        InstallError::Io { path, .. } => ("io", path),
    };
    ApiError::new(code, e.to_string()).arg("path", path.display())
}
