//! A target's listing budget: the skills in the folders its agent reads (what is there now,
//! Skilldeck's or not), read as the agent reads them, with the agent's own switches, run
//! through its rule, and what to switch off or shorten to fit.

use crate::budget::overrides::BudgetSetting;
use crate::budget::rules::{Found, Listed, Override, Rule, Simulated, Unit};
use crate::budget::{claude, codex, gemini, overrides, own};
use crate::config::TargetsConfig;
use crate::env::Env;
use crate::report::{FolderReport, TargetReport};
use crate::state::SkillState;
use crate::target::Level;
use serde::Serialize;
use skilldeck_skill::codex_yaml;
use skilldeck_skill::validate::{ValidateOptions, validate_text};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// One agent's listing budget.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct TargetBudget {
    /// The tool id (`claude-code`).
    pub target: String,
    /// Its name.
    pub name: String,
    /// Whose rule.
    pub rule: Rule,
    /// Where the rule was read.
    pub source: &'static str,
    /// The folders read (the agent's own, and the shared ones it also reads).
    pub folders: Vec<PathBuf>,
    /// The context window the budget is a share of, in tokens (`None`: unknown).
    pub context_window: Option<u64>,
    /// Whether that window is config.toml's (`context_window`) rather than the agent's default.
    pub window_configured: bool,
    /// What the rule does.
    #[serde(flatten)]
    pub simulated: Simulated,
    /// Whether the agent decides by use: the order is its own, best and worst cases shown.
    pub by_use: bool,
    /// Skills chosen for its folders and not delivered yet (a sync adds them).
    pub missing: Vec<String>,
    /// Skills whose `SKILL.md` could not be read (left out of the count).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unreadable: Vec<String>,
    /// Why the agent's own settings could not be read, when they could not (then none of its
    /// switches are counted).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub settings_error: Option<String>,
    /// A listing budget the agent's own settings set in place of its share of the window
    /// (Claude Code's `SLASH_COMMAND_TOOL_CHAR_BUDGET`, Codex's `[skills]
    /// max_context_tokens`), when one does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget_setting: Option<BudgetSetting>,
    /// The fewest skills (largest entries first) whose switching off would let every listed
    /// description fit whole; empty when it fits.
    pub switch_off: Vec<String>,
    /// What to do, in words.
    pub advice: Vec<String>,
}

impl Rule {
    /// The context window assumed when config.toml gives none, in tokens.
    pub fn default_window(self) -> u64 {
        match self {
            Self::ClaudeCode => claude::DEFAULT_WINDOW,
            Self::Codex => codex::DEFAULT_WINDOW,
            Self::Gemini => gemini::DEFAULT_WINDOW,
        }
    }

    /// Where the rule was read.
    pub fn source(self) -> &'static str {
        match self {
            Self::ClaudeCode => claude::SOURCE,
            Self::Codex => codex::SOURCE,
            Self::Gemini => gemini::SOURCE,
        }
    }
}

/// The budgets of the targets among `reports` whose agent's rule is known, over the folders
/// each agent reads (`report::folders_read`: Codex also reads the shared `.agents/skills`
/// folders, the `agents` target's).
pub fn budgets(
    reports: &[TargetReport],
    config: &TargetsConfig,
    env: &Env,
    project: Option<&Path>,
) -> Vec<TargetBudget> {
    reports
        .iter()
        .filter_map(|t| Rule::for_target(&t.id).map(|rule| (t, rule)))
        .map(|(t, rule)| {
            let read = crate::report::folders_read(t, reports);
            let configured = config.targets.get(&t.id).and_then(|c| c.context_window);
            one(t, rule, &read, configured, env, project)
        })
        .collect()
}

/// What an agent brings to its own listing, whatever is in the folders Skilldeck delivers to:
/// its own skills (Codex's system skills, Claude Code's plugins' skills), its settings, and the
/// budget its rule gives it.
pub(crate) struct AgentSide {
    /// The rule.
    pub rule: Rule,
    /// Its own skills, as listed.
    pub own: Vec<Listed>,
    /// The folders its own skills were found in.
    pub own_folders: Vec<PathBuf>,
    /// Own skills whose `SKILL.md` could not be read.
    pub unreadable: Vec<String>,
    /// Why its settings could not be read, when they could not.
    pub error: Option<String>,
    /// Its settings.
    settings: Settings,
    /// The window the budget is a share of (`None`: unknown).
    pub window: Option<u64>,
    /// The budget's unit and size.
    pub unit: Unit,
    /// The budget.
    pub size: usize,
}

impl AgentSide {
    /// Reads the agent's own skills and settings; `configured` is config.toml's `context_window`.
    pub(crate) fn read(rule: Rule, configured: Option<u64>, env: &Env, project: Option<&Path>) -> Self {
        let mut own = Vec::new();
        let mut own_folders = Vec::new();
        let mut unreadable = Vec::new();
        let (settings, error) = match own_skills(rule, env, project) {
            Ok((skills, settings)) => {
                for o in skills {
                    if let Some(folder) = o.skill_md.parent().and_then(Path::parent) {
                        own_folders.push(folder.to_path_buf());
                    }
                    match listed(&o.name, &o.skill_md, o.found) {
                        // Claude Code lists a plugin's skill by its namespaced folder name.
                        Some(mut l) => {
                            if o.found == Found::Plugin {
                                l.name = o.name;
                            }
                            own.push(l)
                        }
                        None => unreadable.push(o.name),
                    }
                }
                (settings, None)
            }
            Err(e) => (Settings::default(), Some(e)),
        };
        let window = match (rule, configured) {
            (Rule::Codex, Some(0)) => None,
            (_, Some(w)) => Some(w),
            (_, None) => Some(rule.default_window()),
        };
        let (unit, size) = match rule {
            Rule::ClaudeCode => (
                Unit::Chars,
                settings
                    .budget
                    .as_ref()
                    .map(|b| b.size)
                    .unwrap_or_else(|| claude::budget_chars(window.unwrap_or(claude::DEFAULT_WINDOW))),
            ),
            Rule::Codex => match &settings.budget {
                Some(b) => (Unit::Tokens, b.size),
                None => codex::budget(window),
            },
            Rule::Gemini => (Unit::Chars, usize::MAX),
        };
        apply_settings(rule, &mut own, &settings);
        Self { rule, own, own_folders, unreadable, error, settings, window, unit, size }
    }

    /// Sets each skill's `setting` from the agent's own settings.
    pub(crate) fn apply(&self, skills: &mut [Listed]) {
        apply_settings(self.rule, skills, &self.settings);
    }

    /// What the agent's rule does to `skills` (its own skills are not added here).
    pub(crate) fn simulate(&self, skills: &[Listed]) -> Simulated {
        match self.rule {
            Rule::ClaudeCode => claude::simulate(skills, self.size),
            Rule::Codex => codex::simulate(skills, self.unit, self.size),
            Rule::Gemini => gemini::simulate(skills),
        }
    }

    /// Whether the rule caps the listing (Gemini CLI lists every skill whole).
    pub(crate) fn capped(&self) -> bool {
        self.rule != Rule::Gemini
    }
}

fn one(
    t: &TargetReport,
    rule: Rule,
    read: &[&FolderReport],
    configured: Option<u64>,
    env: &Env,
    project: Option<&Path>,
) -> TargetBudget {
    let mut skills = Vec::new();
    let mut missing = BTreeSet::new();
    let mut unreadable = Vec::new();
    let mut folders: Vec<PathBuf> = Vec::new();
    for f in read {
        folders.push(f.folder.path.clone());
        let found = if f.folder.level == Level::Project { Found::Repo } else { Found::User };
        for s in &f.skills {
            if s.state == SkillState::Missing {
                missing.insert(s.name.clone());
                continue;
            }
            let skill_md = f.folder.path.join(&s.name).join("SKILL.md");
            match listed(&s.name, &skill_md, found) {
                Some(l) => skills.push(l),
                None => unreadable.push(s.name.clone()),
            }
        }
    }
    let side = AgentSide::read(rule, configured, env, project);
    for f in &side.own_folders {
        if !folders.contains(f) {
            folders.push(f.clone());
        }
    }
    unreadable.extend(side.unreadable.iter().cloned());
    side.apply(&mut skills);
    skills.extend(side.own.iter().cloned());
    let simulated = side.simulate(&skills);
    let window = side.window;
    let switch_off = to_switch_off(&simulated);
    let advice = match rule {
        Rule::Gemini => gemini_advice(&t.name, &simulated, window.unwrap_or(gemini::DEFAULT_WINDOW)),
        _ => advice(rule, &t.name, &simulated, &switch_off),
    };
    TargetBudget {
        target: t.id.clone(),
        name: t.name.clone(),
        rule,
        source: rule.source(),
        folders,
        context_window: window,
        window_configured: configured.is_some(),
        simulated,
        by_use: rule.by_use(),
        missing: missing.into_iter().collect(),
        unreadable,
        settings_error: side.error.clone(),
        budget_setting: side.settings.budget.clone(),
        switch_off,
        advice,
    }
}

/// The skill at `skill_md` as a listing reads it; `None` when its `SKILL.md` cannot be read.
pub(crate) fn listed(name: &str, skill_md: &Path, found: Found) -> Option<Listed> {
    let text = std::fs::read_to_string(skill_md).ok()?;
    let meta = validate_text(&text, ValidateOptions::default()).meta;
    Some(Listed {
        name: meta.name.clone().unwrap_or_else(|| name.to_owned()),
        description: meta.description.clone().unwrap_or_default(),
        when_to_use: meta.when_to_use(),
        model_invocable: meta.model_invocable(),
        implicit_invocation: skill_md
            .parent()
            .and_then(|d| std::fs::read_to_string(d.join(codex_yaml::PATH)).ok())
            .is_none_or(|t| codex_yaml::implicit_invocation(&t)),
        setting: Override::On,
        found,
        skill_md: skill_md.to_owned(),
    })
}

/// What an agent's own settings say that the budget needs: each skill's switch, and a budget
/// set in place of the agent's share of the window.
#[derive(Debug, Default)]
struct Settings {
    claude: BTreeMap<String, Override>,
    codex: overrides::CodexSwitches,
    /// Gemini CLI: skills on at all, and the names switched off (lower case).
    gemini: Option<(bool, BTreeSet<String>)>,
    budget: Option<BudgetSetting>,
}

/// The agent's own skills (Codex's system skills, Claude Code's plugins' skills) and its
/// settings; an error when a settings file does not parse.
fn own_skills(rule: Rule, env: &Env, project: Option<&Path>) -> Result<(Vec<own::OwnSkill>, Settings), String> {
    match rule {
        Rule::ClaudeCode => {
            let claude = overrides::claude(&overrides::claude_files(env, project))?;
            let budget = overrides::claude_budget(env);
            let plugins = own::claude_plugin_skills(env, project)?;
            Ok((plugins, Settings { claude, budget, ..Settings::default() }))
        }
        Rule::Codex => {
            let codex = match overrides::codex_config(env) {
                Some(path) => overrides::codex(&path)?,
                None => overrides::CodexSwitches::default(),
            };
            let system = own::codex_system(env, !codex.bundled_off);
            let budget = codex.budget.clone();
            Ok((system, Settings { codex, budget, ..Settings::default() }))
        }
        Rule::Gemini => {
            let gemini = overrides::gemini(&overrides::gemini_files(env, project))?;
            Ok((Vec::new(), Settings { gemini: Some(gemini), ..Settings::default() }))
        }
    }
}

/// Sets each skill's `setting` from the agent's own settings.
fn apply_settings(rule: Rule, skills: &mut [Listed], settings: &Settings) {
    for s in skills {
        s.setting = match rule {
            Rule::ClaudeCode => settings.claude.get(&s.name).copied().unwrap_or(Override::On),
            Rule::Codex => settings.codex.get(&s.name, &s.skill_md),
            Rule::Gemini => match &settings.gemini {
                Some((false, _)) => Override::Off,
                Some((true, off)) if off.contains(&s.name.to_lowercase()) => Override::Off,
                _ => Override::On,
            },
        };
    }
}

/// The fewest listed skills, largest entries first, whose switching off frees what the
/// listing is over by.
fn to_switch_off(s: &Simulated) -> Vec<String> {
    let over = s.full.saturating_sub(s.budget);
    let mut by_cost: Vec<_> = s.skills.iter().filter(|k| k.cost > 0).collect();
    by_cost.sort_by(|a, b| b.cost.cmp(&a.cost).then_with(|| a.name.cmp(&b.name)));
    let mut freed = 0;
    let mut out = Vec::new();
    for k in by_cost {
        if freed >= over {
            break;
        }
        freed += k.cost;
        out.push(k.name.clone());
    }
    out
}

/// Gemini CLI has no cap: what its listing costs every request, and how to make it smaller.
fn gemini_advice(agent: &str, s: &Simulated, window: u64) -> Vec<String> {
    let listed = s.skills.iter().filter(|k| k.cost > 0).count();
    if listed == 0 {
        return Vec::new();
    }
    // About 4 characters a token, as the other agents count.
    let tokens = s.full.div_ceil(4);
    let per_mille = u64::try_from(tokens).unwrap_or(u64::MAX).saturating_mul(1000).checked_div(window).unwrap_or(0);
    vec![format!(
        "{agent} lists every skill whole, with no cap: these {listed} skills take {} characters (about {tokens} \
         tokens, {}.{}% of its {window}-token window) of every request. Switch off the ones it does not need \
         (`skills.disabled` in ~/.gemini/settings.json), or reach them through Skilldeck's MCP server.",
        s.full,
        per_mille / 10,
        per_mille % 10
    )]
}

fn advice(rule: Rule, agent: &str, s: &Simulated, switch_off: &[String]) -> Vec<String> {
    let unit = s.unit.as_str();
    if s.full <= s.budget {
        return Vec::new();
    }
    let mut out = Vec::new();
    let over = s.full - s.budget;
    match rule {
        Rule::ClaudeCode => {
            let (least, most) = s.squeezed;
            let how_many = if least == most { least.to_string() } else { format!("between {least} and {most}") };
            out.push(format!(
                "{agent}'s listing needs {} of its {} {unit}: {how_many} skills will reach the model as names only. \
                 Which ones is {agent}'s choice (it keeps the descriptions of the skills used most), so the worst \
                 case is shown.",
                s.full, s.budget
            ));
        }
        Rule::Gemini => {}
        Rule::Codex => {
            let omitted = s.skills.iter().filter(|k| k.best == crate::budget::Shown::Omitted).count();
            if omitted > 0 {
                out.push(format!(
                    "{agent}'s listing needs {} of its {} {unit} even as bare names: {omitted} skills are left out of \
                     what the model sees, and every description is removed.",
                    s.names_only, s.budget
                ));
            } else {
                out.push(format!(
                    "{agent}'s listing needs {} of its {} {unit}: {} descriptions are shortened to fit.",
                    s.full, s.budget, s.squeezed.0
                ));
            }
        }
    }
    out.push(format!(
        "Over by {over} {unit}. Switching off {} (or shortening their descriptions) would leave every description \
         whole; `skilldeck agent-skill off {} NAME` switches one off in {agent} without deleting it, or deliver \
         fewer skills there and reach the rest through Skilldeck's MCP server.",
        list(switch_off),
        if rule == Rule::ClaudeCode { "claude-code" } else { "codex" },
    ));
    out
}

/// Names joined for a sentence, the first eight and a count of the rest.
fn list(names: &[String]) -> String {
    const SHOWN: usize = 8;
    let mut text = names.iter().take(SHOWN).cloned().collect::<Vec<_>>().join(", ");
    if names.len() > SHOWN {
        text.push_str(&format!(" and {} more", names.len() - SHOWN));
    }
    text
}
