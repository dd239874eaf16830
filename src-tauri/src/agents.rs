//! The Agents view's backend: the agent tools' skill folders read against the store, sync
//! plans and syncs, auto-sync, and the one card per agent that puts its folders, Skilldeck's
//! MCP server in its settings and its own listing's budget together with the next step to
//! take. Holds the glue between the app's state and skilldeck-targets / skilldeck-mcp; every
//! decision about what is ours, drifted or foreign is the crates'.

use crate::error::{ApiError, ApiResult};
use crate::mcp_clients::McpClientView;
use crate::state::AppState;
use serde::Serialize;
use skilldeck_mcp::install::State as McpState;
use skilldeck_targets::budget::TargetBudget;
use skilldeck_targets::budget::overrides;
use skilldeck_targets::budget::rules::Override;
use skilldeck_targets::config::TargetsConfig;
use skilldeck_targets::env::Env;
use skilldeck_targets::export::Exports;
use skilldeck_targets::plan::TargetPlan;
use skilldeck_targets::record::Records;
use skilldeck_targets::report::TargetReport;
use skilldeck_targets::source::{Store, WantedSet};
use skilldeck_targets::state::SkillState;
use skilldeck_targets::sync::Syncer;
use skilldeck_targets::target::{self, Folder, Target};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The event sent after the app synced the auto targets, with what it did.
pub const SYNCED: &str = "agents://synced";

/// A project folder given by the UI, made absolute; `None` for none or an empty path.
pub fn project_dir(project: Option<&str>) -> ApiResult<Option<PathBuf>> {
    let Some(p) = project.map(str::trim).filter(|p| !p.is_empty()) else { return Ok(None) };
    std::fs::canonicalize(p).map(Some).map_err(|e| {
        ApiError::new(
            "project_not_found",
            format!("the project folder {p} cannot be opened ({e}); choose an existing folder"),
        )
        .arg("path", p)
    })
}

/// Every known tool and configured target with its folders, for `project` too when given.
pub fn targets(state: &AppState, project: Option<&Path>) -> ApiResult<Vec<Target>> {
    let config = TargetsConfig::load(&state.storage().home().config_path())?;
    Ok(target::resolve(&Env::from_process(), &config, project)?)
}

/// The skills every target gets unless narrowed: enabled, valid, yours over bundled.
pub fn wanted(state: &AppState) -> ApiResult<WantedSet> {
    Ok(skilldeck_targets::source::enabled_skills(&state.registry, &state.disabled())?)
}

/// The records of what Skilldeck wrote where.
pub fn records(state: &AppState) -> Records {
    Records::new(state.storage().home().root())
}

/// The folders of the named targets (every active one when none is named), planned
/// (`dry_run`) or synced; drifted skills in `overwrite` are replaced after their edit is kept.
pub fn sync(
    state: &AppState,
    project: Option<&Path>,
    names: &[String],
    overwrite: &[String],
    dry_run: bool,
) -> ApiResult<Vec<TargetPlan>> {
    let targets = targets(state, project)?;
    let folders = target::chosen(&targets, names)?;
    run(state, (targets, &folders), project, overwrite, dry_run)
}

/// Plans or syncs `folders` of `targets` with what fits each agent's listing budget (past it
/// where config.toml says `over_budget = true`).
fn run(
    state: &AppState,
    (targets, folders): (Vec<Target>, &[Folder]),
    project: Option<&Path>,
    overwrite: &[String],
    dry_run: bool,
) -> ApiResult<Vec<TargetPlan>> {
    use skilldeck_targets::budget::fit;
    let wanted = wanted(state)?;
    let source = Store::new(state.storage());
    let syncer = Syncer {
        records: records(state),
        source: &source,
        overwrite: overwrite.iter().cloned().collect::<BTreeSet<_>>(),
        mode: None,
        exports: Exports::new(state.storage().home().root()),
    };
    let config = TargetsConfig::load(&state.storage().home().config_path())?;
    let env = Env::from_process();
    let reports = skilldeck_targets::report::report(targets.clone(), &wanted, &syncer.records);
    let ask = fit::Ask {
        targets: &targets,
        reports: &reports,
        folders,
        wanted: &wanted,
        config: &config,
        env: &env,
        project,
        pinned: &state.pinned(),
        over_budget: &BTreeSet::new(),
    };
    Ok(fit::sync(&syncer, &ask, dry_run))
}

/// What an auto-sync did, for the UI's note.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct AutoSynced {
    /// The targets synced, by name.
    pub targets: Vec<String>,
    /// Skills written, replaced or removed in all.
    pub changes: usize,
    /// Drifted or clashing skills left alone.
    pub skipped: usize,
    /// Folders that could not be synced, with why.
    pub errors: Vec<String>,
}

/// Syncs every target marked `auto = true` (their user-level folders, and the project folders
/// that exist). Returns `None` when no target is marked.
pub fn auto_sync(state: &AppState) -> ApiResult<Option<AutoSynced>> {
    let targets = targets(state, None)?;
    let folders = target::auto(&targets);
    if folders.is_empty() {
        return Ok(None);
    }
    let auto: Vec<&Target> = targets.iter().filter(|t| !t.off && t.folders.iter().any(|f| f.auto)).collect();
    let plans = run(state, (targets.clone(), &folders), None, &[], false)?;
    let mut out = AutoSynced { targets: auto.iter().map(|t| t.name.clone()).collect(), ..AutoSynced::default() };
    for p in &plans {
        out.changes += p.done;
        out.skipped += p.actions.len() - p.changes();
        if let Some(e) = &p.error {
            out.errors.push(format!("{} ({}): {e}", p.target, p.path.display()));
        }
    }
    Ok(Some(out))
}

/// Scans every folder of every tool and configured target (and the project's) for skills.
pub fn scan(state: &AppState, project: Option<&Path>) -> ApiResult<skilldeck_targets::scan::ScanReport> {
    use skilldeck_targets::scan;
    let targets = targets(state, project)?;
    let folders = scan::inputs(&targets, &wanted(state)?);
    Ok(scan::scan(state.storage(), &records(state), &folders))
}

// ---------- one card per agent ----------

/// MCP clients that are the same agent as a target with another id: VS Code's Copilot agent
/// mode reads the GitHub Copilot folders (`.github/skills`, `~/.copilot/skills`).
const SAME_AGENT: &[(&str, &str)] = &[("vscode", "github-copilot")];

/// The target id an MCP client's card is merged into (its own id when no target has it).
fn card_id(client: &str) -> &str {
    SAME_AGENT.iter().find(|(c, _)| *c == client).map_or(client, |(_, t)| t)
}

/// One agent as the Agents view shows it: how it gets skills (its folders, Skilldeck's MCP
/// server, or both), what its own listing does to them, and the next step.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct AgentCard {
    /// The target's id (`claude-code`), or the MCP client's for an agent with no folders.
    pub id: String,
    /// The name people know it by.
    pub name: String,
    /// Whether it is installed here (its folders' tool or its MCP client found).
    pub detected: bool,
    /// Its skill folders with each skill's state there; `None` when Skilldeck knows none.
    pub folders: Option<TargetReport>,
    /// Skilldeck's MCP server in its settings; `None` when Skilldeck cannot install it there.
    pub mcp: Option<McpClientView>,
    /// What its own listing does to the skills in its folders, for agents whose rule is known.
    pub budget: Option<TargetBudget>,
    /// What the agent's own settings say about skills by name, where they can say more than
    /// on and off (Claude Code's `skillOverrides`: `name-only`, `user-invocable-only`, `off`);
    /// empty for other agents or when the settings cannot be read (the budget says why).
    pub own_settings: BTreeMap<String, &'static str>,
    /// What to do next, for the UI to say in its language.
    pub next: Step,
    /// The same in English (for logs and as the UI's fallback).
    pub next_text: String,
}

/// The Agents view's data: one card per agent, and the skills that can be delivered.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct AgentsMerged {
    /// Every agent either mechanism knows, the targets' order first.
    pub agents: Vec<AgentCard>,
    /// The skills every target gets unless narrowed (enabled, valid), by name.
    pub skills: Vec<String>,
}

/// Every agent's card, for `project` too when given: the targets' folders read against the
/// store, each agent's listing budget, and Skilldeck's state in each MCP client's settings.
pub fn merged(state: &AppState, project: Option<&Path>) -> ApiResult<AgentsMerged> {
    let config = TargetsConfig::load(&state.storage().home().config_path())?;
    let env = Env::from_process();
    let wanted = wanted(state)?;
    let targets = target::resolve(&env, &config, project)?;
    let mut reports = skilldeck_targets::report::report(targets.clone(), &wanted, &records(state));
    // As a plain sync would leave them: what the fit keeps out is not "missing".
    let folders = target::chosen(&targets, &[])?;
    let ask = skilldeck_targets::budget::fit::Ask {
        targets: &targets,
        reports: &reports,
        folders: &folders,
        wanted: &wanted,
        config: &config,
        env: &env,
        project,
        pinned: &state.pinned(),
        over_budget: &BTreeSet::new(),
    };
    let delivery = skilldeck_targets::budget::fit::deliver(&ask);
    delivery.apply_to(&mut reports);
    let budgets = skilldeck_targets::budget::budgets(&reports, &config, &env, project);
    let clients = crate::mcp_clients::views()?;
    let mut agents = merge(reports, budgets, clients);
    if let Some(claude) = agents.iter_mut().find(|a| a.id == "claude-code") {
        let files = overrides::claude_files(&env, project);
        claude.own_settings = overrides::claude(&files)
            .unwrap_or_default()
            .into_iter()
            .filter(|(_, o)| *o != Override::On)
            .map(|(name, o)| (name, overrides::claude_word(o)))
            .collect();
        claude.decide();
    }
    Ok(AgentsMerged { agents, skills: wanted.into_keys().collect() })
}

/// Puts each target's folders, its budget and the MCP client that is the same agent on one
/// card; MCP clients with no folders get a card of their own, after the targets.
pub fn merge(targets: Vec<TargetReport>, budgets: Vec<TargetBudget>, clients: Vec<McpClientView>) -> Vec<AgentCard> {
    let mut budgets = budgets;
    let mut clients: Vec<Option<McpClientView>> = clients.into_iter().map(Some).collect();
    let mut take_client = |id: &str| {
        clients.iter_mut().find(|c| c.as_ref().is_some_and(|c| card_id(c.status.id) == id)).and_then(Option::take)
    };
    let mut cards: Vec<AgentCard> = targets
        .into_iter()
        .map(|t| {
            let budget = budgets.iter().position(|b| b.target == t.id).map(|i| budgets.swap_remove(i));
            let mcp = take_client(&t.id);
            card(t.id.clone(), t.name.clone(), Some(t), mcp, budget)
        })
        .collect();
    for c in clients.into_iter().flatten() {
        cards.push(card(c.status.id.to_owned(), c.status.name.to_owned(), None, Some(c), None));
    }
    cards
}

fn card(
    id: String,
    name: String,
    folders: Option<TargetReport>,
    mcp: Option<McpClientView>,
    budget: Option<TargetBudget>,
) -> AgentCard {
    let mut card = AgentCard {
        id,
        name,
        detected: false,
        folders,
        mcp,
        budget,
        own_settings: BTreeMap::new(),
        next: Step::NotFound,
        next_text: String::new(),
    };
    card.decide();
    card
}

impl AgentCard {
    /// Works out `detected` and the next step from what the card holds.
    fn decide(&mut self) {
        let mut facts = Facts::of(self.folders.as_ref(), self.mcp.as_ref(), self.budget.as_ref());
        // A skill the user set to names only in the agent's own settings is so by choice.
        if let (Some(b), Some(squeeze)) = (&self.budget, facts.budget.as_mut()) {
            let chosen = b
                .simulated
                .skills
                .iter()
                .filter(|k| k.worst.as_str() == "name-only" && self.own_settings.get(&k.name) == Some(&"name-only"))
                .count();
            squeeze.names -= chosen.min(squeeze.names);
            squeeze.least_names -= chosen.min(squeeze.least_names);
        }
        self.detected = facts.detected;
        self.next = next_step(&facts);
        self.next_text = sentence(&self.name, &self.next);
    }
}

/// What the next step is computed from, read off one agent's card.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Facts {
    /// Installed here.
    pub detected: bool,
    /// Its folders, when Skilldeck knows any.
    pub folders: Option<FolderFacts>,
    /// Skilldeck's state in its MCP settings, when Skilldeck can install its server there.
    pub mcp: Option<Mcp>,
    /// What its listing does to the skills in its folders, when its rule is known.
    pub budget: Option<Squeeze>,
}

/// An agent's folders, counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FolderFacts {
    /// A plain sync delivers to them (the tool is switched on).
    pub on: bool,
    /// Skills Skilldeck wrote there (in sync, outdated or edited), by name.
    pub delivered: usize,
    /// Skills chosen for them and not there yet.
    pub missing: usize,
}

/// Skilldeck's server in an agent's MCP settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum Mcp {
    /// Not there.
    NotInstalled,
    /// There, as Skilldeck writes it.
    Installed,
    /// There, but another binary or older arguments.
    Outdated,
    /// The settings file cannot be read.
    Unreadable,
}

impl Mcp {
    /// Whether the agent gets skills through it (an outdated entry still runs).
    pub fn serves(self) -> bool {
        matches!(self, Self::Installed | Self::Outdated)
    }
}

/// What an agent's listing does to the skills in its folders, in the worst case where the
/// agent decides by use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Squeeze {
    /// Skills it lists (not hidden on purpose).
    pub listed: usize,
    /// Listed as a bare name (at most, where the agent chooses by use).
    pub names: usize,
    /// Listed as a bare name at least (the same as `names` unless the agent chooses by use).
    pub least_names: usize,
    /// Left out for lack of room.
    pub omitted: usize,
    /// Listed with a shortened description.
    pub shortened: usize,
    /// The agent chooses by use: these are at most.
    pub by_use: bool,
}

impl Facts {
    /// The facts of one card.
    pub fn of(folders: Option<&TargetReport>, mcp: Option<&McpClientView>, budget: Option<&TargetBudget>) -> Self {
        let folder_facts = folders.map(|t| {
            let names = |want: &[SkillState]| {
                t.folders
                    .iter()
                    .flat_map(|f| &f.skills)
                    .filter(|s| want.contains(&s.state))
                    .map(|s| s.name.as_str())
                    .collect::<BTreeSet<_>>()
                    .len()
            };
            FolderFacts {
                on: t.active && !t.off,
                delivered: names(&[SkillState::InSync, SkillState::Outdated, SkillState::Drifted]),
                missing: names(&[SkillState::Missing]),
            }
        });
        let mcp_state = mcp.map(|c| match c.status.state {
            McpState::NotInstalled => Mcp::NotInstalled,
            McpState::Installed => Mcp::Installed,
            McpState::Outdated => Mcp::Outdated,
            McpState::Unreadable { .. } => Mcp::Unreadable,
        });
        let squeeze = budget.map(|b| {
            let count = |shown: &str| b.simulated.skills.iter().filter(|k| k.worst.as_str() == shown).count();
            let (omitted, shortened) = (count("omitted"), count("shortened"));
            // Where the agent chooses by use, how many lose their description is a range: the
            // one `targets --budget` gives (the rule's fewest and most), not each skill's worst.
            let (least, most) = if b.by_use {
                let (least, most) = b.simulated.squeezed;
                (least.saturating_sub(omitted + shortened), most.saturating_sub(omitted + shortened))
            } else {
                (count("name-only"), count("name-only"))
            };
            Squeeze {
                listed: b.simulated.skills.len() - count("hidden"),
                names: most,
                least_names: least,
                omitted,
                shortened,
                by_use: b.by_use,
            }
        });
        Facts {
            detected: folders.is_some_and(|t| t.detected) || mcp.is_some_and(|c| c.status.detected),
            folders: folder_facts,
            mcp: mcp_state,
            budget: squeeze,
        }
    }
}

/// The next step for one agent, most pressing first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Step {
    /// Not installed here, and nothing set up for it.
    NotFound,
    /// It gets no skills from Skilldeck: turn on folder delivery (`folders`) or add the MCP
    /// server (`mcp`), whichever it has.
    NoDelivery {
        /// It has folders to deliver to.
        folders: bool,
        /// Skilldeck's MCP server can be added to it.
        mcp: bool,
    },
    /// Its MCP settings file cannot be read (the agent may not read it either).
    McpUnreadable,
    /// Its own listing has no room for every description.
    OverBudget {
        /// Skills listed as bare names (at most, when `up_to`).
        names: usize,
        /// Skills listed as bare names at least (the same as `names` unless `up_to`).
        least: usize,
        /// Skills left out.
        omitted: usize,
        /// Skills with shortened descriptions.
        shortened: usize,
        /// Counts are at most: the agent chooses by use.
        up_to: bool,
        /// Skilldeck's MCP server: `None` when it cannot be added, else whether it is there.
        mcp: Option<bool>,
    },
    /// Skills chosen for its folders are not there yet.
    Unsynced {
        /// How many.
        missing: usize,
    },
    /// Skilldeck's entry in its MCP settings is outdated.
    McpOutdated,
    /// Every skill in its folders keeps its whole description in its listing.
    Fits {
        /// Skills it lists.
        skills: usize,
    },
    /// It gets skills, and nothing is wrong that Skilldeck can see.
    Ready {
        /// Skills delivered to its folders.
        skills: usize,
        /// It has Skilldeck's MCP server.
        mcp: bool,
    },
}

/// The next step, computed from the facts.
pub fn next_step(f: &Facts) -> Step {
    let folders_on = f.folders.is_some_and(|x| x.on);
    let mcp_on = f.mcp.is_some_and(Mcp::serves);
    if !f.detected && !folders_on && !mcp_on {
        return Step::NotFound;
    }
    if !folders_on && !mcp_on {
        if f.folders.is_none() && f.mcp == Some(Mcp::Unreadable) {
            return Step::McpUnreadable;
        }
        return Step::NoDelivery { folders: f.folders.is_some(), mcp: f.mcp.is_some_and(|m| m != Mcp::Unreadable) };
    }
    if let Some(b) = f.budget
        && b.names + b.omitted + b.shortened > 0
    {
        return Step::OverBudget {
            names: b.names,
            least: b.least_names,
            omitted: b.omitted,
            shortened: b.shortened,
            up_to: b.by_use,
            mcp: f.mcp.map(Mcp::serves),
        };
    }
    if let Some(x) = f.folders
        && x.on
        && x.missing > 0
    {
        return Step::Unsynced { missing: x.missing };
    }
    if f.mcp == Some(Mcp::Unreadable) {
        return Step::McpUnreadable;
    }
    if f.mcp == Some(Mcp::Outdated) {
        return Step::McpOutdated;
    }
    match f.budget {
        Some(b) if folders_on && b.listed > 0 => Step::Fits { skills: b.listed },
        _ => Step::Ready { skills: if folders_on { f.folders.map_or(0, |x| x.delivered) } else { 0 }, mcp: mcp_on },
    }
}

fn skills(n: usize) -> String {
    if n == 1 { "1 skill".to_owned() } else { format!("{n} skills") }
}

/// The step as a sentence in English (the UI has it in every language it speaks).
pub fn sentence(agent: &str, step: &Step) -> String {
    match *step {
        Step::NotFound => format!("{agent} was not found on this computer"),
        Step::NoDelivery { folders: true, mcp: true } => {
            format!("{agent} gets no skills from Skilldeck: add the MCP server or turn on folder delivery")
        }
        Step::NoDelivery { folders: true, mcp: false } => {
            format!("{agent} gets no skills from Skilldeck: turn on folder delivery")
        }
        Step::NoDelivery { folders: false, .. } => format!("{agent} gets no skills from Skilldeck: add the MCP server"),
        Step::McpUnreadable => {
            format!("Skilldeck cannot read {agent}'s settings file: fix it, or add the entry by hand")
        }
        Step::OverBudget { names, least, omitted, shortened, up_to, mcp } => {
            let remedy = match mcp {
                Some(false) => "sync to fit its budget, or use MCP",
                Some(true) => "sync to fit its budget (the MCP server already offers every skill)",
                None => "sync to fit its budget, or shorten their descriptions",
            };
            let range = format!("Between {least} and ");
            let up = if up_to && least < names { range.as_str() } else { "" };
            let parts: Vec<(usize, &str)> =
                [(names, "as names only"), (omitted, "not at all"), (shortened, "with shortened descriptions")]
                    .into_iter()
                    .filter(|(n, _)| *n > 0)
                    .collect();
            let mut out = String::new();
            for (i, (n, how)) in parts.iter().enumerate() {
                if i == 0 {
                    out = format!("{up}{} would reach {agent} {how}", skills(*n));
                } else {
                    out.push_str(&format!(", {n} {how}"));
                }
            }
            format!("{out}: {remedy}")
        }
        Step::Unsynced { missing } => {
            format!(
                "{} chosen for {agent} {} not in its folders yet: sync now",
                skills(missing),
                if missing == 1 { "is" } else { "are" }
            )
        }
        Step::McpOutdated => format!("Skilldeck's entry in {agent}'s settings is outdated: update it"),
        Step::Fits { skills: 1 } => format!("Its one skill fits in {agent}'s listing"),
        Step::Fits { skills: n } => format!("All {n} skills fit in {agent}'s listing"),
        Step::Ready { skills: 0, mcp: true } => format!("{agent} gets every skill through Skilldeck's MCP server"),
        Step::Ready { skills: 0, mcp: false } => format!("Delivery to {agent} is on, but no skill is chosen for it"),
        Step::Ready { skills: n, mcp: false } => format!("{agent} gets {} from its folders", skills(n)),
        Step::Ready { skills: n, mcp: true } => {
            format!("{agent} gets {} from its folders and every skill through MCP", skills(n))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use skilldeck_mcp::install::ClientStatus;

    fn facts(folders: Option<(bool, usize, usize)>, mcp: Option<Mcp>, budget: Option<Squeeze>) -> Facts {
        Facts {
            detected: true,
            folders: folders.map(|(on, delivered, missing)| FolderFacts { on, delivered, missing }),
            mcp,
            budget,
        }
    }

    fn squeeze(listed: usize, names: usize, omitted: usize, shortened: usize, by_use: bool) -> Squeeze {
        // By use, the fewest bare names are taken as a third of the most (`between`).
        let least_names = if by_use { names / 3 } else { names };
        Squeeze { listed, names, least_names, omitted, shortened, by_use }
    }

    fn say(f: &Facts) -> String {
        sentence("Claude Code", &next_step(f))
    }

    #[test]
    fn over_budget_says_how_many_reach_the_agent_as_names_and_what_to_do() {
        // 80 delivered, 63 as bare names at worst (Claude Code chooses by use), no MCP yet.
        let f = facts(Some((true, 80, 0)), Some(Mcp::NotInstalled), Some(squeeze(80, 63, 0, 0, true)));
        assert_eq!(
            next_step(&f),
            Step::OverBudget { names: 63, least: 21, omitted: 0, shortened: 0, up_to: true, mcp: Some(false) }
        );
        assert_eq!(
            say(&f),
            "Between 21 and 63 skills would reach Claude Code as names only: sync to fit its budget, or use MCP"
        );
        // Codex's rule is not by use, leaves some out and shortens others; MCP already there.
        let f = facts(Some((true, 40, 0)), Some(Mcp::Installed), Some(squeeze(40, 10, 3, 5, false)));
        assert_eq!(
            sentence("Codex", &next_step(&f)),
            "10 skills would reach Codex as names only, 3 not at all, 5 with shortened descriptions: \
             sync to fit its budget (the MCP server already offers every skill)"
        );
        // An agent Skilldeck cannot add its server to: shorten instead.
        let f = facts(Some((true, 2, 0)), None, Some(squeeze(2, 0, 0, 1, false)));
        assert_eq!(
            say(&f),
            "1 skill would reach Claude Code with shortened descriptions: sync to fit its budget, or shorten their descriptions"
        );
        // Over budget matters more than a pending sync.
        let f = facts(Some((true, 20, 4)), Some(Mcp::NotInstalled), Some(squeeze(20, 1, 0, 0, false)));
        assert!(matches!(next_step(&f), Step::OverBudget { names: 1, .. }));
    }

    #[test]
    fn everything_fitting_says_so_and_a_pending_sync_comes_first() {
        let f = facts(Some((true, 12, 0)), Some(Mcp::NotInstalled), Some(squeeze(12, 0, 0, 0, true)));
        assert_eq!(next_step(&f), Step::Fits { skills: 12 });
        assert_eq!(say(&f), "All 12 skills fit in Claude Code's listing");
        let f = facts(Some((true, 1, 0)), None, Some(squeeze(1, 0, 0, 0, false)));
        assert_eq!(say(&f), "Its one skill fits in Claude Code's listing");
        let f = facts(Some((true, 9, 3)), Some(Mcp::Installed), Some(squeeze(9, 0, 0, 0, true)));
        assert_eq!(say(&f), "3 skills chosen for Claude Code are not in its folders yet: sync now");
        // No budget rule known (Cursor): what it gets.
        let f = facts(Some((true, 5, 0)), Some(Mcp::Installed), None);
        assert_eq!(
            sentence("Cursor", &next_step(&f)),
            "Cursor gets 5 skills from its folders and every skill through MCP"
        );
        let f = facts(Some((false, 0, 0)), Some(Mcp::Installed), None);
        assert_eq!(sentence("Cursor", &next_step(&f)), "Cursor gets every skill through Skilldeck's MCP server");
        let f = facts(Some((true, 5, 0)), Some(Mcp::Outdated), None);
        assert_eq!(sentence("Cursor", &next_step(&f)), "Skilldeck's entry in Cursor's settings is outdated: update it");
    }

    #[test]
    fn no_delivery_names_the_mechanisms_the_agent_has() {
        let f = facts(Some((false, 0, 0)), Some(Mcp::NotInstalled), None);
        assert_eq!(next_step(&f), Step::NoDelivery { folders: true, mcp: true });
        assert_eq!(say(&f), "Claude Code gets no skills from Skilldeck: add the MCP server or turn on folder delivery");
        let f = facts(Some((false, 0, 0)), None, None);
        assert_eq!(
            sentence("Gemini CLI", &next_step(&f)),
            "Gemini CLI gets no skills from Skilldeck: turn on folder delivery"
        );
        let f = facts(None, Some(Mcp::NotInstalled), None);
        assert_eq!(
            sentence("Claude Desktop", &next_step(&f)),
            "Claude Desktop gets no skills from Skilldeck: add the MCP server"
        );
        // Its settings cannot be read, and it has no folders: the file is what to fix.
        let f = facts(None, Some(Mcp::Unreadable), None);
        assert_eq!(next_step(&f), Step::McpUnreadable);
        // With folders delivering, a settings file nobody can read still comes up once they are
        // in order.
        let f = facts(Some((true, 4, 0)), Some(Mcp::Unreadable), None);
        assert_eq!(
            sentence("Codex", &next_step(&f)),
            "Skilldeck cannot read Codex's settings file: fix it, or add the entry by hand"
        );
        // Neither installed nor set up.
        let f = Facts { detected: false, ..facts(Some((false, 0, 0)), Some(Mcp::NotInstalled), None) };
        assert_eq!(sentence("Windsurf", &next_step(&f)), "Windsurf was not found on this computer");
        // A skill delivered by hand to a folder whose delivery is off: still no delivery.
        let f = facts(Some((false, 3, 0)), Some(Mcp::NotInstalled), Some(squeeze(3, 0, 0, 0, true)));
        assert!(matches!(next_step(&f), Step::NoDelivery { .. }));
    }

    fn target(id: &str, name: &str, detected: bool) -> TargetReport {
        TargetReport {
            id: id.to_owned(),
            name: name.to_owned(),
            detected,
            active: detected,
            off: false,
            auto: false,
            folders: Vec::new(),
            duplicates: Vec::new(),
        }
    }

    fn client(id: &'static str, name: &'static str, state: McpState) -> McpClientView {
        McpClientView {
            status: ClientStatus { id, name, detected: true, path: PathBuf::from("/x"), exists: true, state },
            location: "",
            snippet: String::new(),
            doc: "",
        }
    }

    #[test]
    fn one_card_per_agent_whichever_mechanism_knows_it() {
        let cards = merge(
            vec![target("claude-code", "Claude Code", true), target("github-copilot", "GitHub Copilot", false)],
            Vec::new(),
            vec![
                client("claude-desktop", "Claude Desktop", McpState::NotInstalled),
                client("claude-code", "Claude Code", McpState::Installed),
                client("vscode", "VS Code", McpState::Installed),
            ],
        );
        let ids: Vec<&str> = cards.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["claude-code", "github-copilot", "claude-desktop"]);
        assert_eq!(cards[0].mcp.as_ref().map(|c| c.status.id), Some("claude-code"));
        // VS Code's Copilot is the GitHub Copilot card; its MCP client found makes it detected.
        assert_eq!(cards[1].mcp.as_ref().map(|c| c.status.id), Some("vscode"));
        assert!(cards[1].detected);
        assert!(cards[2].folders.is_none());
        assert_eq!(cards[2].next, Step::NoDelivery { folders: false, mcp: true });
        assert_eq!(cards[0].next, Step::Ready { skills: 0, mcp: true });
    }
}
