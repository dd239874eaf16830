//! `skilldeck mcp install|uninstall|clients`: Skilldeck in other MCP clients' settings files.
//! Holds argument handling and printing; the editing is skilldeck-mcp's `install` module.

use crate::output::Outcome;
use anyhow::Context as _;
use clap::Subcommand;
use skilldeck_mcp::clients::{Client, snippet};
use skilldeck_mcp::install::{self, Action, Locations, Plan, State};

/// `skilldeck mcp`'s subcommands.
#[derive(Debug, Subcommand)]
pub enum McpAction {
    /// Add Skilldeck to CLIENT's MCP settings (or bring our entry up to date). Only the
    /// `skilldeck` entry changes; a backup of the file is written first.
    Install {
        /// claude-desktop, claude-code, cursor, codex, vscode or goose.
        #[arg(value_parser = Client::parse)]
        client: Client,
        /// Show what would change, write nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Remove Skilldeck from CLIENT's MCP settings (a backup of the file is written first).
    Uninstall {
        /// claude-desktop, claude-code, cursor, codex, vscode or goose.
        #[arg(value_parser = Client::parse)]
        client: Client,
        /// Show what would change, write nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Every known client: detected or not, its settings file, whether Skilldeck is in it.
    Clients {
        /// Print JSON for scripts.
        #[arg(long)]
        json: bool,
    },
}

/// This binary's path, the command clients will run.
fn command() -> anyhow::Result<String> {
    let exe = std::env::current_exe().context("could not tell where this skilldeck binary is")?;
    Ok(exe.to_str().context("the path of this skilldeck binary is not UTF-8")?.to_owned())
}

fn locations() -> anyhow::Result<Locations> {
    Locations::from_env().context("no home folder is known (HOME is not set): cannot find the clients' settings")
}

/// Runs one subcommand.
pub fn run(action: McpAction) -> anyhow::Result<Outcome> {
    match action {
        McpAction::Install { client, dry_run } => {
            let file = locations()?.config_file(client);
            let command = command()?;
            let plan = install::plan_install(&file, &command).map_err(|e| with_snippet(&e, client, &command))?;
            execute(&plan, dry_run)
        }
        McpAction::Uninstall { client, dry_run } => {
            let file = locations()?.config_file(client);
            execute(&install::plan_uninstall(&file)?, dry_run)
        }
        McpAction::Clients { json } => clients(json),
    }
}

/// An install error, followed by the snippet to add by hand.
fn with_snippet(e: &install::InstallError, client: Client, command: &str) -> anyhow::Error {
    let s = snippet(client, command);
    anyhow::anyhow!("{e}\nTo add it by hand — {}:\n{}", s.location, s.text.trim_end())
}

fn execute(plan: &Plan, dry_run: bool) -> anyhow::Result<Outcome> {
    let path = plan.path.display();
    let client = plan.client.name();
    let what = match plan.action {
        Action::Unchanged => {
            crate::output::outln!("{client}: {path} already as wanted; nothing to do");
            return Ok(Outcome::Ok);
        }
        Action::Create => format!("create {path} holding only Skilldeck"),
        Action::Add => format!("add Skilldeck to {path}"),
        Action::Replace => format!("update Skilldeck's entry in {path}"),
        Action::Remove => format!("remove Skilldeck from {path}"),
    };
    if dry_run {
        crate::output::outln!("{client}: would {what} (dry run, nothing written)");
        let before = plan.before.as_deref().map(String::from_utf8_lossy).unwrap_or_default();
        let diff = similar::TextDiff::from_lines(before.as_ref(), plan.after.as_str());
        crate::output::outln!("{}", diff.unified_diff().context_radius(2).header("before", "after"));
        return Ok(Outcome::Ok);
    }
    let applied = install::apply(plan)?;
    match &applied.backup {
        Some(b) => crate::output::outln!("{client}: did {what}; the old file is kept as {}", b.display()),
        None => crate::output::outln!("{client}: did {what}"),
    }
    Ok(Outcome::Ok)
}

fn clients(json: bool) -> anyhow::Result<Outcome> {
    let all = install::statuses(&locations()?, &command()?);
    if json {
        crate::output::json(&all)?;
        return Ok(Outcome::Ok);
    }
    for c in &all {
        let state = match &c.state {
            State::NotInstalled => "not installed".to_owned(),
            State::Installed => "installed".to_owned(),
            State::Outdated => "installed, outdated (run `skilldeck mcp install` again)".to_owned(),
            State::Unreadable { error } => format!("unreadable: {error}"),
        };
        let seen = if c.detected { "detected" } else { "not detected" };
        crate::output::outln!("{:<15} {:<13} {:<40} {}", c.id, seen, c.path.display(), state);
    }
    Ok(Outcome::Ok)
}
