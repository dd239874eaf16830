//! What a sync delivers to each folder so that each agent stays within the budget of its own
//! skills listing, every skill reaches each agent once, and a target switched off loses what
//! Skilldeck put there.
//!
//! For every folder of the run, the skills it takes (`source::narrow`; none for a target
//! switched off) are weighed in order — pinned skills first, then the ones the agents reading
//! the folder use most (`usage`), then the rest (no validator warnings first, then the
//! shortest entries, so the most skills fit whole) — and each is delivered when every agent
//! reading the folder still has room for its whole entry, beside what the agent reads anyway
//! (skills Skilldeck did not write, edited ones, its own system or plugin skills, folders not
//! synced now). An agent the user lets go over (`over_budget`) or whose rule has no cap takes
//! everything. Shared folders (`~/.agents/skills`, Claude Code's folders, which other agents
//! also read) are filled first; an agent's own folder then leaves out what it already reads in
//! one of them at the same level (user or project). Reads only: the sync carries out what this chooses.

use crate::budget::per_target::{AgentSide, listed};
use crate::budget::rules::{Found, Listed, Override, Rule, Shown, Simulated};
use crate::budget::usage;
use crate::config::TargetsConfig;
use crate::env::Env;
use crate::plan::{Fit, LeftOut, Listing, Once, TargetPlan};
use crate::report::{FolderReport, TargetReport, folders_read};
use crate::source::{Wanted, WantedSet, narrow};
use crate::state::SkillState;
use crate::target::{Folder, Level, Target};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// What a sync is asked to deliver.
pub struct Ask<'a> {
    /// Every target, resolved.
    pub targets: &'a [Target],
    /// Every target's folders as they are now (`report::report`).
    pub reports: &'a [TargetReport],
    /// The folders this run syncs.
    pub folders: &'a [Folder],
    /// The skills every target gets unless narrowed (`source::enabled_skills`).
    pub wanted: &'a WantedSet,
    /// config.toml's `[targets]`: context windows and `over_budget`.
    pub config: &'a TargetsConfig,
    /// Where the agents' settings and transcripts are.
    pub env: &'a Env,
    /// The project synced too, when one is.
    pub project: Option<&'a Path>,
    /// Skills always delivered first (config.toml's `[listing] pinned`).
    pub pinned: &'a BTreeSet<String>,
    /// Targets delivered every chosen skill even past their budget (`sync --over-budget`), on
    /// top of those with `over_budget = true` in config.toml; `all` for every target.
    pub over_budget: &'a BTreeSet<String>,
}

/// What each folder gets, and what each agent's listing becomes.
#[derive(Debug, Default)]
pub struct Delivery {
    /// Each folder of the run with the skills chosen for it.
    pub folders: Vec<(Folder, WantedSet)>,
    /// Per folder (same order): the skills kept out to fit.
    pub left_out: Vec<Vec<LeftOut>>,
    /// Per folder (same order): the skills its agent reads in another folder.
    pub once: Vec<Vec<Once>>,
    /// Each agent whose listing rule is known and that reads a folder of the run.
    pub fits: Vec<Fit>,
}

impl Delivery {
    /// Puts what was kept out of each folder, and each agent's listing, on the plans made from
    /// `folders` (the same order; a plan of a folder synced as another's gets none).
    pub fn annotate(&self, plans: &mut [TargetPlan]) {
        let mut fitted = BTreeSet::new();
        for (i, p) in plans.iter_mut().enumerate() {
            if p.same_as.is_some() {
                continue;
            }
            p.left_out = self.left_out.get(i).cloned().unwrap_or_default();
            p.once = self.once.get(i).cloned().unwrap_or_default();
            if fitted.insert(p.target.clone()) {
                p.fit = self.fits.iter().find(|f| f.target == p.target).cloned();
            }
        }
    }
}

impl Delivery {
    /// Makes `reports` (read before this delivery was chosen, the same folders) say what a sync
    /// will do: a chosen skill this delivery keeps out of a folder, or that its agent reads in
    /// another folder, is not "missing" there (a sync would not write it); it is named in the
    /// folder's `left_out` or `once` instead, and the counts follow.
    pub fn apply_to(&self, reports: &mut [TargetReport]) {
        let chosen: BTreeMap<&Path, &WantedSet> = self.folders.iter().map(|(f, w)| (f.path.as_path(), w)).collect();
        let kept_out: BTreeMap<&Path, &Vec<LeftOut>> =
            self.folders.iter().zip(&self.left_out).map(|((f, _), l)| (f.path.as_path(), l)).collect();
        let once: BTreeMap<&Path, &Vec<Once>> =
            self.folders.iter().zip(&self.once).map(|((f, _), o)| (f.path.as_path(), o)).collect();
        for f in reports.iter_mut().flat_map(|t| t.folders.iter_mut()) {
            let path = f.folder.path.clone();
            let Some(wanted) = chosen.get(path.as_path()) else { continue };
            let before = f.skills.len();
            f.skills.retain(|s| s.state != SkillState::Missing || wanted.contains_key(&s.name));
            if f.skills.len() != before {
                f.counts.clear();
                for s in &f.skills {
                    *f.counts.entry(s.state.as_str()).or_insert(0) += 1;
                }
            }
            f.left_out =
                kept_out.get(path.as_path()).map(|l| l.iter().map(|x| x.name.clone()).collect()).unwrap_or_default();
            f.once = once.get(path.as_path()).map(|o| o.iter().map(|x| x.name.clone()).collect()).unwrap_or_default();
        }
    }
}

/// An agent with a known listing rule, as this run changes what it reads.
struct Reader {
    id: String,
    name: String,
    side: AgentSide,
    /// The folders it reads.
    reads: Vec<PathBuf>,
    /// Delivered whole whatever the budget.
    over: bool,
    /// Times each skill was used.
    used_counts: BTreeMap<String, u32>,
    /// What it reads whatever this run does.
    fixed: Vec<Listed>,
    /// What this run delivers into folders it reads.
    delivered: Vec<Listed>,
    /// Chosen skills kept out.
    kept_out: Vec<Listed>,
    /// The cost of everything it will read, whole.
    spent: usize,
    /// Chosen skills it gets through another folder.
    once: usize,
}

impl Reader {
    /// Whether its budget limits what it is delivered.
    fn limits(&self) -> bool {
        self.side.capped() && !self.over
    }

    /// What `l`'s whole entry costs in its listing (nothing when its settings hide it).
    fn cost(&self, l: &Listed) -> usize {
        let mut one = [l.clone()];
        self.side.apply(&mut one);
        self.side.simulate(&one).skills.first().map_or(0, |s| s.cost)
    }
}

/// Chooses what each folder of the run gets (see the module's documentation).
pub fn deliver(ask: &Ask<'_>) -> Delivery {
    let by_path: BTreeMap<&Path, &FolderReport> =
        ask.reports.iter().flat_map(|t| &t.folders).map(|f| (f.folder.path.as_path(), f)).collect();
    let synced: BTreeSet<&Path> = ask.folders.iter().map(|f| f.path.as_path()).collect();
    let mut readers = readers(ask, &by_path, &synced);
    // What each folder holds that this run leaves as it is, by name.
    let mut present: BTreeMap<PathBuf, BTreeSet<String>> = BTreeMap::new();
    for (path, f) in &by_path {
        let stays = |s: &&crate::state::Observed| {
            s.state != SkillState::Missing && (!synced.contains(path) || stays_put(s.state))
        };
        present.insert(path.to_path_buf(), f.skills.iter().filter(stays).map(|s| s.name.clone()).collect());
    }
    let off = |id: &str| ask.targets.iter().any(|t| t.id == id && t.off);
    let mut out = Delivery {
        folders: ask
            .folders
            .iter()
            .map(|f| (f.clone(), if off(&f.target) { WantedSet::new() } else { narrow(ask.wanted, f) }))
            .collect(),
        left_out: vec![Vec::new(); ask.folders.len()],
        once: vec![Vec::new(); ask.folders.len()],
        fits: Vec::new(),
    };
    let shared: BTreeSet<&str> = crate::known::KNOWN.iter().flat_map(|k| k.also.iter().copied()).collect();
    let mut order: Vec<usize> = (0..ask.folders.len()).collect();
    order.sort_by_key(|&i| !shared.contains(ask.folders[i].target.as_str()));
    let mut done: BTreeSet<PathBuf> = BTreeSet::new();
    for i in order {
        let folder = ask.folders[i].clone();
        if !done.insert(folder.path.clone()) {
            continue;
        }
        let others = other_folders_read(ask, &folder);
        let chosen = std::mem::take(&mut out.folders[i].1);
        let mut keep = WantedSet::new();
        let mut candidates = Vec::new();
        for (name, w) in chosen {
            let there = present.get(&folder.path).is_some_and(|p| p.contains(&name));
            match others.iter().find(|o| present.get(*o).is_some_and(|p| p.contains(&name))) {
                Some(elsewhere) if !there => {
                    out.once[i].push(Once { name: name.clone(), folder: elsewhere.clone() });
                    for r in readers.iter_mut().filter(|r| r.id == folder.target) {
                        r.once += 1;
                    }
                }
                // Already there and staying (not ours, or edited): the plan says why it is left.
                _ if there => {
                    keep.insert(name, w);
                }
                _ => candidates.push((name, w)),
            }
        }
        let found = if folder.level == Level::Project { Found::Repo } else { Found::User };
        let reading: Vec<usize> = (0..readers.len()).filter(|&r| readers[r].reads.contains(&folder.path)).collect();
        let entries: Vec<(String, Wanted, Listed, Vec<usize>)> = candidates
            .into_iter()
            .map(|(name, w)| {
                let l = planned(&w, &folder.path, found);
                let costs = reading.iter().map(|&r| readers[r].cost(&l)).collect();
                (name, w, l, costs)
            })
            .collect();
        let mut entries = entries;
        entries.sort_by_cached_key(|(name, w, _, costs)| {
            let uses: u32 = reading.iter().map(|&r| readers[r].used_counts.get(name).copied().unwrap_or(0)).sum();
            let cost = costs.iter().copied().max().unwrap_or(0);
            (!ask.pinned.contains(name), std::cmp::Reverse(uses), w.card.warnings, cost, name.clone())
        });
        for (name, w, l, costs) in entries {
            let over: Vec<String> = reading
                .iter()
                .zip(&costs)
                .filter(|&(&r, &c)| readers[r].limits() && readers[r].spent + c > readers[r].side.size)
                .map(|(&r, _)| readers[r].id.clone())
                .collect();
            if over.is_empty() || ask.pinned.contains(&name) {
                for (&r, &c) in reading.iter().zip(&costs) {
                    readers[r].spent += c;
                    readers[r].delivered.push(l.clone());
                }
                present.entry(folder.path.clone()).or_default().insert(name.clone());
                keep.insert(name, w);
            } else {
                for &r in &reading {
                    readers[r].kept_out.push(l.clone());
                }
                out.left_out[i].push(LeftOut { name, agents: over });
            }
        }
        out.folders[i].1 = keep;
    }
    out.fits = readers.into_iter().filter(|r| r.reads.iter().any(|p| synced.contains(p.as_path()))).map(fit).collect();
    out
}

/// Whether a skill in a synced folder stays as it is whatever is chosen: not Skilldeck's, or
/// edited there since.
fn stays_put(state: SkillState) -> bool {
    matches!(state, SkillState::Foreign | SkillState::Drifted)
}

/// The other folders at `folder`'s level that the agent of its target reads (the shared folders
/// it also reads). A project's folders are not trimmed by the user's own: a project folder is
/// often committed for everyone working on the project, who do not share the user's folders.
fn other_folders_read(ask: &Ask<'_>, folder: &Folder) -> Vec<PathBuf> {
    let Some(t) = ask.reports.iter().find(|t| t.id == folder.target) else { return Vec::new() };
    folders_read(t, ask.reports)
        .into_iter()
        .filter(|f| f.folder.level == folder.level && f.folder.path != folder.path)
        .map(|f| f.folder.path.clone())
        .collect()
}

/// Every active agent whose listing rule is known, with what it reads whatever this run does.
fn readers(ask: &Ask<'_>, by_path: &BTreeMap<&Path, &FolderReport>, synced: &BTreeSet<&Path>) -> Vec<Reader> {
    let mut out = Vec::new();
    for t in ask.reports.iter().filter(|t| t.active && !t.off) {
        let Some(rule) = Rule::for_target(&t.id) else { continue };
        let cfg = ask.config.targets.get(&t.id);
        let side = AgentSide::read(rule, cfg.and_then(|c| c.context_window), ask.env, ask.project);
        let reads: Vec<PathBuf> = folders_read(t, ask.reports).into_iter().map(|f| f.folder.path.clone()).collect();
        let mut fixed = Vec::new();
        for path in &reads {
            let Some(f) = by_path.get(path.as_path()) else { continue };
            let found = if f.folder.level == Level::Project { Found::Repo } else { Found::User };
            for s in &f.skills {
                let stays = s.state != SkillState::Missing && (!synced.contains(path.as_path()) || stays_put(s.state));
                if let Some(l) = stays.then(|| listed(&s.name, &path.join(&s.name).join("SKILL.md"), found)).flatten() {
                    fixed.push(l);
                }
            }
        }
        side.apply(&mut fixed);
        fixed.extend(side.own.iter().cloned());
        let over = ask.over_budget.contains("all")
            || ask.over_budget.contains(&t.id)
            || cfg.and_then(|c| c.over_budget) == Some(true);
        let spent = side.simulate(&fixed).full;
        out.push(Reader {
            id: t.id.clone(),
            name: t.name.clone(),
            used_counts: usage::usage(rule, ask.env),
            side,
            reads,
            over,
            fixed,
            delivered: Vec::new(),
            kept_out: Vec::new(),
            spent,
            once: 0,
        });
    }
    out
}

/// Skill `w` as an agent will list it once delivered into `folder`.
fn planned(w: &Wanted, folder: &Path, found: Found) -> Listed {
    Listed {
        name: w.name.to_string(),
        description: w.card.description.clone(),
        when_to_use: w.card.when_to_use.clone(),
        model_invocable: w.card.model_invocable,
        implicit_invocation: true,
        setting: Override::On,
        found,
        skill_md: folder.join(w.name.as_str()).join("SKILL.md"),
    }
}

/// An agent's listing before and after, from what it reads.
fn fit(r: Reader) -> Fit {
    let with = |extra: &[&[Listed]]| {
        let mut all = r.fixed.clone();
        for e in extra {
            all.extend(e.iter().cloned());
        }
        r.side.apply(&mut all);
        listing(&r.side.simulate(&all), r.side.rule.by_use())
    };
    let mut left_out: Vec<String> = r.kept_out.iter().map(|l| l.name.clone()).collect();
    left_out.sort();
    left_out.dedup();
    Fit {
        after: with(&[&r.delivered]),
        everything: with(&[&r.delivered, &r.kept_out]),
        target: r.id,
        name: r.name,
        unit: r.side.unit,
        budget: r.side.capped().then_some(r.side.size),
        over_budget: r.over,
        by_use: r.side.rule.by_use(),
        delivered: r.delivered.len(),
        left_out,
        once: r.once,
    }
}

/// Counts what a simulated listing does (the worst case where the agent decides by use).
fn listing(s: &Simulated, by_use: bool) -> Listing {
    let mut out = Listing { cost: s.full, ..Listing::default() };
    for k in &s.skills {
        match if by_use { k.worst } else { k.best } {
            Shown::Full => out.full += 1,
            Shown::Shortened { .. } => out.shortened += 1,
            Shown::NameOnly => out.name_only += 1,
            Shown::Omitted => out.omitted += 1,
            Shown::Hidden { .. } => out.hidden += 1,
        }
    }
    out
}

/// Plans (`dry_run`) or syncs the run's folders with what fits (`deliver`), each plan saying
/// what was kept out and what its agent's listing becomes.
pub fn sync(syncer: &crate::sync::Syncer<'_>, ask: &Ask<'_>, dry_run: bool) -> Vec<TargetPlan> {
    let delivery = deliver(ask);
    let mut plans = syncer.run_each(&delivery.folders, dry_run);
    delivery.annotate(&mut plans);
    plans
}
