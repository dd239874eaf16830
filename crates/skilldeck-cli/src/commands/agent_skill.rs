//! `skilldeck agent-skill off|on|name-only|list AGENT [NAME]`: a skill switched off (or back
//! on) in an agent's own settings, without deleting it — for skills Skilldeck did not deliver
//! (built-in, plugin or foreign ones) as much as its own. Holds argument handling and
//! printing; the editing is skilldeck-mcp's `switches`, the files' places skilldeck-targets'.

use crate::output::Outcome;
use anyhow::Context as _;
use clap::Subcommand;
use skilldeck_mcp::switches::{self, Agent, Switch, SwitchPlan};
use skilldeck_targets::budget::overrides;
use skilldeck_targets::env::Env;
use std::path::PathBuf;

/// Parses an agent id.
fn parse_agent(s: &str) -> Result<Agent, String> {
    Agent::parse(s).ok_or_else(|| format!("unknown agent {s:?}: use claude-code or codex"))
}

/// `skilldeck agent-skill`'s subcommands.
#[derive(Debug, Subcommand)]
pub enum AgentSkillAction {
    /// Switch NAME off in AGENT's own settings: Claude Code's `skillOverrides` ("off") in
    /// settings.json, Codex's `[[skills.config]]` `enabled = false` in config.toml. The skill's
    /// files stay; a backup of the settings file is written first.
    Off {
        /// claude-code or codex.
        #[arg(value_parser = parse_agent)]
        agent: Agent,
        /// The skill's name.
        name: String,
        /// Show the change, write nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Take the setting back: NAME listed as its SKILL.md says.
    On {
        /// claude-code or codex.
        #[arg(value_parser = parse_agent)]
        agent: Agent,
        /// The skill's name.
        name: String,
        /// Show the change, write nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Claude Code only: list NAME by its name alone ("name-only"), freeing its description's
    /// room in the listing budget.
    NameOnly {
        /// claude-code.
        #[arg(value_parser = parse_agent)]
        agent: Agent,
        /// The skill's name.
        name: String,
        /// Show the change, write nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// The skills AGENT's settings switch, and how.
    List {
        /// claude-code or codex.
        #[arg(value_parser = parse_agent)]
        agent: Agent,
        /// Print JSON for scripts.
        #[arg(long)]
        json: bool,
    },
}

/// The agent's settings file.
fn settings_file(agent: Agent) -> anyhow::Result<PathBuf> {
    let env = Env::from_process();
    let file = match agent {
        Agent::ClaudeCode => overrides::claude_settings(&env),
        Agent::Codex => overrides::codex_config(&env),
    };
    file.context("no home folder is known (HOME is not set): cannot find the agent's settings")
}

/// Runs one subcommand.
pub fn run(action: AgentSkillAction) -> anyhow::Result<Outcome> {
    let (agent, name, to, dry_run) = match action {
        AgentSkillAction::Off { agent, name, dry_run } => (agent, name, Switch::Off, dry_run),
        AgentSkillAction::On { agent, name, dry_run } => (agent, name, Switch::On, dry_run),
        AgentSkillAction::NameOnly { agent, name, dry_run } => (agent, name, Switch::NameOnly, dry_run),
        AgentSkillAction::List { agent, json } => return list(agent, json),
    };
    let plan = switches::plan(agent, &settings_file(agent)?, &name, to)?;
    execute(&plan, dry_run)
}

fn execute(plan: &SwitchPlan, dry_run: bool) -> anyhow::Result<Outcome> {
    let agent = plan.agent.name();
    let path = plan.path.display();
    let what = match plan.to {
        Switch::On => format!("switch {} back on", plan.skill),
        Switch::Off => format!("switch {} off", plan.skill),
        other => format!("set {} to {}", plan.skill, other.as_str()),
    };
    if !plan.changed {
        crate::output::outln!("{agent}: {path} already says so; nothing to do");
        return Ok(Outcome::Ok);
    }
    if dry_run {
        crate::output::outln!("{agent}: would {what} in {path} (dry run, nothing written)");
        let before = plan.before.as_deref().map(String::from_utf8_lossy).unwrap_or_default();
        let diff = similar::TextDiff::from_lines(before.as_ref(), plan.after.as_str());
        crate::output::outln!("{}", diff.unified_diff().context_radius(2).header("before", "after"));
        return Ok(Outcome::Ok);
    }
    match switches::apply(plan)? {
        Some(b) => crate::output::outln!("{agent}: did {what} in {path}; the old file is kept as {}", b.display()),
        None => crate::output::outln!("{agent}: did {what} in {path}"),
    }
    crate::output::outln!("{agent} reads it when it starts a new session.");
    Ok(Outcome::Ok)
}

fn list(agent: Agent, json: bool) -> anyhow::Result<Outcome> {
    let all = switches::list(agent, &settings_file(agent)?)?;
    if json {
        let rows: Vec<_> = all.iter().map(|(n, s)| serde_json::json!({ "name": n, "setting": s })).collect();
        crate::output::json(&rows)?;
        return Ok(Outcome::Ok);
    }
    if all.is_empty() {
        crate::output::outln!("{}'s settings switch no skill.", agent.name());
    }
    for (name, s) in &all {
        crate::output::outln!("{:<20} {name}", s.as_str());
    }
    Ok(Outcome::Ok)
}
