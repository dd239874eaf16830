//! `skilldeck targets` and `skilldeck sync`: the agent tools' skill folders, each skill's state
//! there, and bringing them up to date (copy mode).

use crate::context::Ctx;
use crate::output::Outcome;
use anyhow::Context as _;
use skilldeck_targets::agent_fields::Verdict;
use skilldeck_targets::config::TargetsConfig;
use skilldeck_targets::env::Env;
use skilldeck_targets::export::Exports;
use skilldeck_targets::plan::{Action, TargetPlan};
use skilldeck_targets::record::{Mode, Records};
use skilldeck_targets::report;
use skilldeck_targets::source::{Store, WantedSet};
use skilldeck_targets::target::{self, Level, Target};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// What `sync` was asked.
#[derive(Debug, Clone, Default)]
pub struct SyncArgs {
    /// Only these targets (tool ids or configured names).
    pub names: Vec<String>,
    /// A project whose folders are synced too.
    pub project: Option<PathBuf>,
    /// Plan only.
    pub dry_run: bool,
    /// Print JSON.
    pub json: bool,
    /// Drifted skills to replace after keeping the edited copy.
    pub overwrite: Vec<String>,
    /// `copy` or `link`, when asked.
    pub mode: Option<Mode>,
    /// Targets delivered every chosen skill even past their listing budget (`all`: every one).
    pub over_budget: Vec<String>,
}

/// Parses `--mode`.
pub fn parse_mode(s: &str) -> Result<Mode, String> {
    match s {
        "copy" => Ok(Mode::Copy),
        "link" => Ok(Mode::Link),
        _ => Err(format!("unknown mode {s:?}: use `copy` or `link`")),
    }
}

/// The enabled valid skills, user shadowing system: what every target gets by default.
pub(crate) fn wanted(ctx: &Ctx) -> anyhow::Result<WantedSet> {
    let disabled = ctx.config()?.listing.disabled;
    Ok(skilldeck_targets::source::enabled_skills(&ctx.registry, &disabled)?)
}

/// The project folder, made absolute; an error naming it when it cannot be opened.
pub(crate) fn project_dir(project: Option<&Path>) -> anyhow::Result<Option<PathBuf>> {
    project
        .map(|p| {
            std::fs::canonicalize(p).with_context(|| {
                format!("the project folder {} cannot be opened; give an existing folder", p.display())
            })
        })
        .transpose()
}

/// Every known tool and configured target, with their folders.
pub(crate) fn resolve(ctx: &Ctx, project: Option<&Path>) -> anyhow::Result<Vec<Target>> {
    let config = TargetsConfig::load(&ctx.storage().home().config_path())?;
    Ok(target::resolve(&Env::from_process(), &config, project)?)
}

/// The level's word.
pub(crate) fn level(l: Level) -> &'static str {
    match l {
        Level::User => "user",
        Level::Project => "project",
        Level::Custom => "custom",
    }
}

/// Every target's folders read against the store, as a plain sync would leave them: a chosen
/// skill the fit to the agents' budgets keeps out is not `missing` (it is named in `left_out`).
fn settled(
    ctx: &Ctx,
    config: &TargetsConfig,
    env: &Env,
    project: Option<&Path>,
) -> anyhow::Result<Vec<report::TargetReport>> {
    use skilldeck_targets::budget::fit;
    let targets = target::resolve(env, config, project)?;
    let wanted = wanted(ctx)?;
    let mut views = report::report(targets.clone(), &wanted, &Records::new(ctx.storage().home().root()));
    let folders = target::chosen(&targets, &[])?;
    let pinned = ctx.config()?.listing.pinned;
    let ask = fit::Ask {
        targets: &targets,
        reports: &views,
        folders: &folders,
        wanted: &wanted,
        config,
        env,
        project,
        pinned: &pinned,
        over_budget: &BTreeSet::new(),
    };
    let delivery = fit::deliver(&ask);
    delivery.apply_to(&mut views);
    Ok(views)
}

/// Lists every tool and configured target, its folders and the skills in each with their state.
pub fn list(project: Option<&Path>, json: bool) -> anyhow::Result<Outcome> {
    let ctx = Ctx::open()?;
    let project = project_dir(project)?;
    let config = TargetsConfig::load(&ctx.storage().home().config_path())?;
    let env = Env::from_process();
    let views = settled(&ctx, &config, &env, project.as_deref())?;
    if json {
        crate::output::json(&views)?;
        return Ok(Outcome::Ok);
    }
    for t in &views {
        let mark = match (t.detected, t.active) {
            (_, true) => "synced",
            (true, false) => "detected, switched off",
            (false, false) => "not detected",
        };
        crate::output::outln!("{} ({}) — {mark}", t.name, t.id);
        for f in &t.folders {
            let exists = if f.folder.exists { "" } else { " (not there yet)" };
            crate::output::outln!("  {} {}{exists}", level(f.folder.level), f.folder.path.display());
            if let Some(e) = &f.error {
                crate::output::outln!("    error: {e}");
            }
            for s in &f.skills {
                let rev = match (s.revision, s.store_revision) {
                    (Some(a), Some(b)) if a != b => format!(" r{a} (store r{b})"),
                    (Some(a), _) => format!(" r{a}"),
                    (None, Some(b)) => format!(" (store r{b})"),
                    (None, None) => String::new(),
                };
                crate::output::outln!("    {:<11} {}{rev}", s.state.as_str(), s.name);
                for v in &s.agent_fields {
                    let verdict = match v.verdict {
                        Verdict::Ignored => "ignored",
                        Verdict::Invalid => "invalid",
                    };
                    crate::output::outln!("      {verdict}: {}", v.why);
                }
            }
        }
        for f in t.folders.iter().filter(|f| !f.left_out.is_empty()) {
            crate::output::outln!(
                "  {} chosen skills stay out of {} to keep within the listing budget (`sync --over-budget {}` delivers them)",
                f.left_out.len(),
                f.folder.path.display(),
                t.id
            );
        }
        for d in &t.duplicates {
            let folders: Vec<String> = d.folders.iter().map(|f| f.display().to_string()).collect();
            crate::output::outln!(
                "  warning: {} is in {}, each read by {}: it meets the skill twice (or one copy hides the \
                 other); keep it in one",
                d.name,
                folders.join(" and "),
                t.name
            );
        }
    }
    Ok(Outcome::Ok)
}

/// Prints what each agent's own listing does to the skills in its folders (`targets --budget`).
pub fn budget(project: Option<&Path>, json: bool) -> anyhow::Result<Outcome> {
    let ctx = Ctx::open()?;
    let project = project_dir(project)?;
    let config = TargetsConfig::load(&ctx.storage().home().config_path())?;
    let env = Env::from_process();
    let views = settled(&ctx, &config, &env, project.as_deref())?;
    let budgets = skilldeck_targets::budget::budgets(&views, &config, &env, project.as_deref());
    if json {
        crate::output::json(&budgets)?;
        return Ok(Outcome::Ok);
    }
    for b in &budgets {
        print_budget(b)?;
    }
    Ok(Outcome::Ok)
}

/// A meter of `used` out of `budget`, twenty cells wide (`#` used, `!` past the budget).
fn meter(used: usize, budget: usize) -> String {
    const CELLS: usize = 20;
    let filled = if budget == 0 { CELLS } else { (used * CELLS).div_ceil(budget).min(CELLS) };
    let mark = if used > budget { '!' } else { '#' };
    format!("[{}{}]", mark.to_string().repeat(filled), ".".repeat(CELLS - filled))
}

/// Why a skill is not in the listing, in a few words.
fn hidden_why(by: skilldeck_targets::budget::rules::HiddenBy) -> &'static str {
    use skilldeck_targets::budget::rules::HiddenBy;
    match by {
        HiddenBy::UserInvokedOnly => "user-invoked only: disable-model-invocation",
        HiddenBy::NoImplicitInvocation => "user-invoked only: agents/openai.yaml allow_implicit_invocation false",
        HiddenBy::SettingUserOnly => "user-invocable-only in the agent's settings",
        HiddenBy::SettingOff => "switched off in the agent's settings",
    }
}

fn print_budget(b: &skilldeck_targets::budget::TargetBudget) -> anyhow::Result<()> {
    use skilldeck_targets::budget::Shown;
    use skilldeck_targets::budget::rules::Found;
    let s = &b.simulated;
    let unit = s.unit.as_str();
    let window = match (b.context_window, b.window_configured) {
        (Some(w), true) => format!("{w}-token window (config.toml)"),
        (Some(w), false) => format!("{w}-token window (default; set [targets.{}] context_window)", b.target),
        (None, _) => "window unknown".to_owned(),
    };
    let window = match &b.budget_setting {
        Some(set) => format!("budget set by {} (in place of the window's share)", set.from),
        None => window,
    };
    let pct = (s.full * 100).checked_div(s.budget).unwrap_or(0);
    crate::output::outln!("{} ({}) — {window}", b.name, b.target);
    if b.rule == skilldeck_targets::budget::Rule::Gemini {
        crate::output::outln!("  {} {unit}, every description whole: no cap, nothing shortened", s.full);
    } else {
        crate::output::outln!(
            "  {} {} of {} {unit} with every description whole ({pct}%)",
            meter(s.full, s.budget),
            s.full,
            s.budget
        );
    }
    if let Some(e) = &b.settings_error {
        crate::output::outln!("  warning: {e}");
    }
    let mut by_state: std::collections::BTreeMap<&str, Vec<String>> = std::collections::BTreeMap::new();
    for k in &s.skills {
        let shown = if b.by_use { k.worst } else { k.best };
        let own = match k.found {
            Found::System => " [system]",
            Found::Plugin => " [plugin]",
            Found::Repo | Found::User => "",
        };
        let label = match shown {
            Shown::Shortened { kept, of } => format!("{}{own} ({kept} of {of} chars)", k.name),
            Shown::Hidden { by } => format!("{}{own} ({})", k.name, hidden_why(by)),
            _ => format!("{}{own}", k.name),
        };
        by_state.entry(shown.as_str()).or_default().push(label);
    }
    let differ = s.skills.iter().any(|k| k.best != k.worst);
    let worst = if differ { " (worst case)" } else { "" };
    for state in ["full", "shortened", "name-only", "omitted", "hidden"] {
        if let Some(names) = by_state.get(state) {
            crate::output::outln!("  {state}{worst}: {}", names.join(", "));
        }
    }
    if !b.missing.is_empty() {
        crate::output::outln!("  not delivered yet: {}", b.missing.join(", "));
    }
    if !b.unreadable.is_empty() {
        crate::output::outln!("  not counted (SKILL.md unreadable): {}", b.unreadable.join(", "));
    }
    for a in &b.advice {
        crate::output::outln!("  {a}");
    }
    crate::output::outln!("  rule: {}", b.source);
    Ok(())
}

/// Brings the chosen targets up to date, or with `dry_run` prints what it would do.
pub fn sync(args: SyncArgs) -> anyhow::Result<Outcome> {
    let ctx = Ctx::open()?;
    let project = project_dir(args.project.as_deref())?;
    let targets = resolve(&ctx, project.as_deref())?;
    let folders = target::chosen(&targets, &args.names)?;
    let known: Vec<&str> = targets.iter().map(|t| t.id.as_str()).collect();
    if let Some(bad) = args.over_budget.iter().find(|n| *n != "all" && !known.contains(&n.as_str())) {
        anyhow::bail!("--over-budget {bad}: no such target; use one of {} or `all`", known.join(", "));
    }
    let source = Store::new(ctx.storage());
    let syncer = skilldeck_targets::sync::Syncer {
        records: Records::new(ctx.storage().home().root()),
        source: &source,
        overwrite: args.overwrite.iter().cloned().collect::<BTreeSet<_>>(),
        mode: args.mode,
        exports: Exports::new(ctx.storage().home().root()),
    };
    let over: BTreeSet<String> = args.over_budget.iter().cloned().collect();
    let plans = fitted(&ctx, &syncer, (targets, &folders), project.as_deref(), &over, args.dry_run)?;
    let failed = plans.iter().any(|p| p.error.is_some());
    if args.json {
        crate::output::json(&plans)?;
    } else {
        print_plans(&plans, args.dry_run)?;
    }
    for name in &args.overwrite {
        let used = plans
            .iter()
            .flat_map(|p| &p.actions)
            .any(|a| matches!(a, Action::Replace { name: n, keep: Some(_), .. } if n == name));
        if !used {
            eprintln!(
                "warning: --overwrite {name}: it is not drifted in any target synced, so nothing was overwritten"
            );
        }
    }
    if failed {
        eprintln!("error: some targets could not be synced (see above); the others were");
        return Ok(Outcome::Refused);
    }
    Ok(Outcome::Ok)
}

/// Plans (`dry_run`) or syncs `folders` of `targets` with what fits each agent's listing
/// budget (`budget::fit`), past it for the targets in `over`.
pub(crate) fn fitted(
    ctx: &Ctx,
    syncer: &skilldeck_targets::sync::Syncer<'_>,
    (targets, folders): (Vec<Target>, &[target::Folder]),
    project: Option<&Path>,
    over: &BTreeSet<String>,
    dry_run: bool,
) -> anyhow::Result<Vec<TargetPlan>> {
    use skilldeck_targets::budget::fit;
    let wanted = wanted(ctx)?;
    let config = TargetsConfig::load(&ctx.storage().home().config_path())?;
    let pinned = ctx.config()?.listing.pinned;
    let env = Env::from_process();
    let reports = report::report(targets.clone(), &wanted, &syncer.records);
    let ask = fit::Ask {
        targets: &targets,
        reports: &reports,
        folders,
        wanted: &wanted,
        config: &config,
        env: &env,
        project,
        pinned: &pinned,
        over_budget: over,
    };
    Ok(fit::sync(syncer, &ask, dry_run))
}

/// ` (link)` for a link, nothing for a copy.
fn how(mode: Mode) -> &'static str {
    match mode {
        Mode::Copy => "",
        Mode::Link => " (link)",
    }
}

/// Names for one line: the first twelve, then how many more.
fn short_list(names: &[&str]) -> String {
    const SHOWN: usize = 12;
    let mut text = names.iter().take(SHOWN).copied().collect::<Vec<_>>().join(", ");
    if names.len() > SHOWN {
        text.push_str(&format!(" and {} more", names.len() - SHOWN));
    }
    text
}

fn print_plans(plans: &[TargetPlan], dry_run: bool) -> anyhow::Result<()> {
    if plans.is_empty() {
        crate::output::outln!(
            "No agent tool detected and no target configured; `skilldeck targets` lists the known ones."
        );
        return Ok(());
    }
    let verb = |now: &'static str, later: &'static str| if dry_run { later } else { now };
    for p in plans {
        crate::output::outln!("{} [{}] {}", p.target, level(p.level), p.path.display());
        if let Some(first) = &p.same_as {
            crate::output::outln!("  same folder as {first}: synced there");
            continue;
        }
        for a in &p.actions {
            match a {
                Action::Write { name, revision, mode, .. } => {
                    crate::output::outln!("  {} {name} r{revision}{}", verb("wrote  ", "write  "), how(*mode))
                }
                Action::Replace { name, from, to, keep, mode, .. } => {
                    crate::output::outln!("  {} {name} r{from} -> r{to}{}", verb("replaced", "replace "), how(*mode));
                    if let Some(k) = keep {
                        crate::output::outln!("    {}", k.describe(dry_run));
                    }
                }
                Action::Remove { name, revision } => {
                    crate::output::outln!("  {} {name} r{revision}", verb("removed", "remove "))
                }
                Action::Skip { name, reason } => crate::output::outln!("  skip    {name}: {}", reason.describe()),
            }
        }
        if let Some(f) = &p.link_fallback {
            crate::output::outln!("  note: {f}");
        }
        if !p.once.is_empty() {
            let names: Vec<&str> = p.once.iter().map(|o| o.name.as_str()).collect();
            let folders: BTreeSet<String> = p.once.iter().map(|o| o.folder.display().to_string()).collect();
            crate::output::outln!(
                "  once: {} skills reach {} through {} already, so they are not delivered here too: {}",
                names.len(),
                p.target,
                folders.into_iter().collect::<Vec<_>>().join(" and "),
                short_list(&names)
            );
        }
        if !p.left_out.is_empty() {
            let names: Vec<&str> = p.left_out.iter().map(|l| l.name.as_str()).collect();
            let agents: BTreeSet<&str> = p.left_out.iter().flat_map(|l| l.agents.iter().map(String::as_str)).collect();
            crate::output::outln!(
                "  left out: {} skills, to keep {} within budget: {}",
                names.len(),
                agents.into_iter().collect::<Vec<_>>().join(" and "),
                short_list(&names)
            );
        }
        if let Some(fit) = &p.fit {
            crate::output::outln!("  {}", fit.describe());
            if let Some(all) = fit.describe_everything() {
                crate::output::outln!("  {all}");
            }
        }
        if let Some(e) = &p.error {
            crate::output::outln!("  error: {e}");
        } else if p.actions.is_empty() {
            crate::output::outln!("  up to date ({} skills)", p.unchanged.len());
        } else if !p.unchanged.is_empty() {
            crate::output::outln!("  {} already up to date", p.unchanged.len());
        }
    }
    Ok(())
}
