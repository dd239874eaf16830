//! `skilldeck mcp`: serves the store's listing and `view_skill` to MCP clients over stdio.
//! Holds argument parsing and wiring only; the server is skilldeck-mcp's.

use crate::context::Ctx;
use crate::output::Outcome;
use anyhow::Context as _;
use clap::Args;
use skilldeck_agent::config::Config;
use skilldeck_agent::session::SessionOptions;
use skilldeck_mcp::clients::{Client, snippet};
use skilldeck_mcp::http::{ENDPOINT, HttpListener, new_token};
use skilldeck_mcp::{DEFAULT_DEBOUNCE, ServeOptions};
use skilldeck_skill::Scope;
use std::path::PathBuf;
use std::sync::Arc;

/// `skilldeck mcp`'s arguments.
#[derive(Debug, Args)]
pub struct McpArgs {
    /// Mount skills into this folder (default: the client's first file:// root).
    #[arg(long)]
    workspace: Option<PathBuf>,
    /// Only skills of this scope (repeatable; default: every scope).
    #[arg(long)]
    scope: Vec<Scope>,
    /// Serve Streamable HTTP on this loopback address (127.0.0.1:PORT) instead of stdio, behind
    /// a bearer token: SKILLDECK_MCP_TOKEN's, else a new one printed on standard error.
    #[arg(long, value_name = "ADDR")]
    http: Option<std::net::SocketAddr>,
    /// Print the settings that add this server to CLIENT (claude-desktop, claude-code, cursor,
    /// codex, vscode, goose) and exit.
    #[arg(long, value_name = "CLIENT", value_parser = Client::parse)]
    config: Option<Client>,
    /// Add Skilldeck to (or remove it from) other clients' settings, or list them.
    #[command(subcommand)]
    action: Option<super::mcp_install::McpAction>,
}

/// Prints the snippet for `client` (and, on standard error, where it goes), naming this very binary so a client that does not share
/// the shell's PATH still finds it.
fn print_config(client: Client) -> anyhow::Result<Outcome> {
    let exe = std::env::current_exe().context("could not tell where this skilldeck binary is")?;
    let command = exe.to_str().context("the path of this skilldeck binary is not UTF-8")?;
    let s = snippet(client, command);
    // Where and why on standard error, so standard output is exactly the snippet.
    eprintln!("{}; documented at {}", s.location, s.doc);
    crate::output::outln!("{}", s.text.trim_end());
    Ok(Outcome::Ok)
}

/// Serves MCP on standard input and output until the client closes them. Standard output
/// carries only the protocol; messages for people go to standard error.
pub fn run(args: McpArgs) -> anyhow::Result<Outcome> {
    if let Some(action) = args.action {
        return super::mcp_install::run(action);
    }
    if let Some(client) = args.config {
        return print_config(client);
    }
    let ctx = Ctx::open()?;
    let config_path = ctx.storage().home().config_path();
    // Read afresh on every listing: `skilldeck disable` or a new budget takes effect live.
    let listing_options = Arc::new(move || {
        let config = Config::load(&config_path).map_err(|e| e.to_string())?;
        // `find_skills` is offered as the settings enable it for the built-in loop.
        SessionOptions::for_default_provider(&config).map(|o| o.listing).map_err(|e| e.to_string())
    });
    let options = ServeOptions {
        workspace: args.workspace,
        scopes: args.scope,
        listing_options,
        debounce: DEFAULT_DEBOUNCE,
        hold: ctx.registry.hold(),
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("could not start the async runtime")?;
    match args.http {
        None => rt.block_on(skilldeck_mcp::serve_stdio(ctx.registry, options))?,
        Some(addr) => rt.block_on(serve_http(ctx, options, addr))?,
    }
    // A blocked read of stdin must not keep the process alive once the session is over.
    rt.shutdown_background();
    Ok(Outcome::Ok)
}

/// The environment variable holding the HTTP bearer token.
const TOKEN_ENV: &str = "SKILLDECK_MCP_TOKEN";

/// The shortest bearer token taken from the environment (Skilldeck's own has 43 characters).
const MIN_TOKEN_CHARS: usize = 32;

async fn serve_http(ctx: Ctx, options: ServeOptions, addr: std::net::SocketAddr) -> anyhow::Result<()> {
    let listener = HttpListener::bind(addr).await?;
    let url = format!("http://{}{ENDPOINT}", listener.local_addr()?);
    let token = match std::env::var(TOKEN_ENV) {
        Ok(t) if !t.trim().is_empty() => {
            let t = t.trim();
            if t.chars().count() < MIN_TOKEN_CHARS {
                anyhow::bail!(
                    "{TOKEN_ENV} is {} characters long; a bearer token must have at least {MIN_TOKEN_CHARS}, \
                     or anyone on this machine could guess it. Unset it and Skilldeck makes a strong one, or set \
                     a longer one (such as the output of `openssl rand -base64 32`)",
                    t.chars().count()
                );
            }
            eprintln!("skilldeck mcp: serving {url} (bearer token from {TOKEN_ENV})");
            t.to_owned()
        }
        _ => {
            let t = new_token()?;
            eprintln!("skilldeck mcp: serving {url}\nAuthorization: Bearer {t}");
            t
        }
    };
    listener.serve(ctx.storage().clone(), options, token).await?;
    Ok(())
}
