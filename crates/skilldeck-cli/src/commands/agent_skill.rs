//! `skilldeck agent-skill off|on|name-only|list AGENT [NAME]`: a skill switched off (or back
//! on) in an agent's own settings, without deleting it — for skills Skilldeck did not deliver
//! (built-in, plugin or foreign ones) as much as its own. Holds argument handling and
//! printing; the editing is skilldeck-mcp's `switches`, the files' places skilldeck-targets'.

use crate::output::Outcome;
use anyhow::Context as _;
use clap::Subcommand;
use skilldeck_mcp::switches::{self, Agent, Switch, SwitchPlan};
use skilldeck_targets::budget::{overrides, own};
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
    /// The skills AGENT's settings switch, and how, and the agent's own skills (Codex's
    /// system skills, the skills of Claude Code's enabled plugins) with theirs.
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
    if plan.agent == Agent::Codex && plan.to == Switch::Off {
        let file = settings_file(plan.agent)?;
        if own_skills(plan.agent, &file).iter().any(|o| o.name == plan.skill) {
            crate::output::outln!(
                "{} is one of Codex's system skills: Codex puts its files back at each start, and this setting keeps \
                 it out all the same.",
                plan.skill
            );
        }
    }
    Ok(Outcome::Ok)
}

/// One row of `list`: a skill the settings name, or one of the agent's own skills.
#[derive(Debug, serde::Serialize)]
struct Row {
    name: String,
    setting: Switch,
    /// For the agent's own skills: `system` (Codex) or the plugin's id (Claude Code).
    #[serde(skip_serializing_if = "Option::is_none")]
    own: Option<String>,
}

/// The agent's own skills (Codex's system skills, Claude Code's enabled plugins' skills);
/// a warning on standard error, and none, when they cannot be read.
fn own_skills(agent: Agent, file: &std::path::Path) -> Vec<own::OwnSkill> {
    let env = Env::from_process();
    let got = match agent {
        Agent::Codex => overrides::codex(file).map(|c| own::codex_system(&env, !c.bundled_off)),
        Agent::ClaudeCode => own::claude_plugin_skills(&env, None),
    };
    got.unwrap_or_else(|e| {
        eprintln!("warning: {e}");
        Vec::new()
    })
}

fn list(agent: Agent, json: bool) -> anyhow::Result<Outcome> {
    let file = settings_file(agent)?;
    let switched = switches::list(agent, &file)?;
    let own = own_skills(agent, &file);
    let from = |name: &str| own.iter().find(|o| o.name == name).map(|o| o.from.clone());
    let mut rows: Vec<Row> = switched.iter().map(|(n, s)| Row { name: n.clone(), setting: *s, own: from(n) }).collect();
    for o in &own {
        if !rows.iter().any(|r| r.name == o.name) {
            rows.push(Row { name: o.name.clone(), setting: Switch::On, own: Some(o.from.clone()) });
        }
    }
    if json {
        crate::output::json(&rows)?;
        return Ok(Outcome::Ok);
    }
    if rows.is_empty() {
        crate::output::outln!("{}'s settings switch no skill, and it has no skills of its own.", agent.name());
    }
    for r in &rows {
        let own = r.own.as_deref().map(|o| format!("  ({o})")).unwrap_or_default();
        crate::output::outln!("{:<20} {}{own}", r.setting.as_str(), r.name);
    }
    Ok(Outcome::Ok)
}
