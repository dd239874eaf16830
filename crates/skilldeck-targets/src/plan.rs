//! The sync plan: per target folder, what would be written, replaced, removed or skipped and
//! why. `sync --dry-run` prints it, a UI previews it, and `sync` carries out exactly it.

use crate::keep::Keep;
use crate::record::Mode;
use crate::source::{Source, WantedSet};
use crate::state::{Observed, SkillState};
use crate::target::Level;
use serde::Serialize;
use skilldeck_skill::{Digest, Revision, Scope};
use std::collections::BTreeSet;
use std::path::PathBuf;

/// One step of a plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(tag = "action", rename_all = "snake_case")]
#[ts(rename = "PlanAction")]
pub enum Action {
    /// A chosen skill not there yet is written.
    Write {
        /// The skill.
        name: String,
        /// Its scope in the store.
        scope: Scope,
        /// The revision written.
        revision: Revision,
        /// A copy, or a link to an export.
        mode: Mode,
    },
    /// A skill of ours is replaced by the store's current revision.
    Replace {
        /// The skill.
        name: String,
        /// Its scope in the store.
        scope: Scope,
        /// The revision there now.
        from: Revision,
        /// The revision written.
        to: Revision,
        /// A copy, or a link to an export.
        mode: Mode,
        /// What happens to the edited copy first, when it drifted and `--overwrite` named it:
        /// the revisions that keep it in History (planned, then made).
        #[serde(skip_serializing_if = "Option::is_none")]
        keep: Option<Keep>,
    },
    /// A skill of ours, unchanged and no longer chosen, is removed.
    Remove {
        /// The skill.
        name: String,
        /// The revision there.
        revision: Revision,
    },
    /// Nothing is done to this skill, for the reason given.
    Skip {
        /// The skill.
        name: String,
        /// Why.
        #[serde(flatten)]
        reason: SkipReason,
    },
}

impl Action {
    /// The skill the step is about.
    pub fn name(&self) -> &str {
        match self {
            Self::Write { name, .. }
            | Self::Replace { name, .. }
            | Self::Remove { name, .. }
            | Self::Skip { name, .. } => name,
        }
    }
}

/// Why a skill is skipped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum SkipReason {
    /// A folder Skilldeck did not write has the chosen skill's name: it is left alone.
    Foreign {
        /// The digest of what is there (none for a link or a file).
        #[serde(skip_serializing_if = "Option::is_none")]
        theirs: Option<Digest>,
        /// The digest of the store's revision.
        #[serde(skip_serializing_if = "Option::is_none")]
        ours: Option<Digest>,
    },
    /// Ours, but edited there since it was written: kept until `--overwrite NAME`.
    Drifted {
        /// The revision written.
        revision: Revision,
        /// The digest of what is there now.
        #[serde(skip_serializing_if = "Option::is_none")]
        theirs: Option<Digest>,
    },
}

impl SkipReason {
    /// A sentence for people, saying what to do.
    pub fn describe(&self) -> String {
        let d = |d: &Option<Digest>| d.map_or_else(|| "not a folder".to_owned(), |d| d.short());
        match self {
            Self::Foreign { theirs, ours } => format!(
                "a folder Skilldeck did not write has this name ({} there, {} in Skilldeck); it is left alone — rename or remove it to let Skilldeck deliver its own",
                d(theirs),
                d(ours)
            ),
            Self::Drifted { revision, theirs } => format!(
                "edited there since revision {revision} was written ({} now); kept as it is — `skilldeck sync --overwrite NAME` keeps the edit in the skill's History, then replaces it",
                d(theirs)
            ),
        }
    }
}

/// The plan for one target folder, and after a sync, how it went.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct TargetPlan {
    /// The tool id or configured target name.
    pub target: String,
    /// User, project or custom.
    pub level: Level,
    /// The folder.
    pub path: PathBuf,
    /// The steps, by skill name.
    pub actions: Vec<Action>,
    /// The skills already in sync there.
    pub unchanged: Vec<String>,
    /// Another target listed earlier is this same folder (a link to it): synced once, there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub same_as: Option<String>,
    /// Why the folder could not be planned or synced; the other targets go on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The error's stable code.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_code: Option<&'static str>,
    /// Link mode was asked but links cannot be made in this folder: why, and that the skills
    /// were copied instead.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link_fallback: Option<String>,
    /// How many steps were carried out (0 for a dry run).
    pub done: usize,
    /// Skills chosen for this folder and kept out of it so that the agents reading it stay
    /// within their listing budgets (what is ours there of them is removed).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub left_out: Vec<LeftOut>,
    /// Skills chosen for this folder that its agent already reads in another folder (a shared
    /// one, such as `~/.agents/skills` for Codex): delivered once, there.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub once: Vec<Once>,
    /// What this target's agent's listing becomes after the sync, on the first folder of each
    /// target whose agent's listing rule is known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fit: Option<Fit>,
}

/// A skill kept out of a folder to keep the agents reading it within their budgets.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct LeftOut {
    /// The skill.
    pub name: String,
    /// The agents (target ids) whose budget it would break.
    pub agents: Vec<String>,
}

/// A skill not delivered into a folder because its agent reads it in another one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct Once {
    /// The skill.
    pub name: String,
    /// The folder its agent reads it in.
    pub folder: PathBuf,
}

/// What an agent's skills listing becomes, counted by what it does to the skills.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct Listing {
    /// What it costs with every description whole, in the budget's unit.
    pub cost: usize,
    /// Skills listed with their whole description.
    pub full: usize,
    /// Skills whose description is cut short.
    pub shortened: usize,
    /// Skills listed by name only.
    pub name_only: usize,
    /// Skills left out of the listing for lack of room.
    pub omitted: usize,
    /// Skills kept from the model on purpose (user-invoked only, switched off in the agent).
    pub hidden: usize,
}

/// One agent's listing before a sync is carried out: after it, and if every chosen skill were
/// delivered; which stayed out to fit, and whether the user chose to go over.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct Fit {
    /// The target id (`claude-code`).
    pub target: String,
    /// The agent's name.
    pub name: String,
    /// The unit of `budget` and the listings' costs.
    pub unit: crate::budget::Unit,
    /// The listing's budget; `None` when the agent's rule has no cap (Gemini CLI).
    pub budget: Option<usize>,
    /// The user chose to deliver every chosen skill here even past the budget
    /// (`over_budget = true` in config.toml, or `sync --over-budget`).
    pub over_budget: bool,
    /// Where the agent decides by use (Claude Code), the counts are its worst case.
    pub by_use: bool,
    /// The listing after this sync (the agent's own skills and others' folders included).
    pub after: Listing,
    /// The listing if every chosen skill were delivered.
    pub everything: Listing,
    /// Chosen skills delivered after this sync.
    pub delivered: usize,
    /// Chosen skills kept out to fit, by name.
    pub left_out: Vec<String>,
    /// Chosen skills the agent gets through a shared folder it also reads.
    pub once: usize,
}

impl Fit {
    /// The consequence in one sentence, as `sync` prints it.
    pub fn describe(&self) -> String {
        let unit = self.unit.as_str();
        let shape = |l: &Listing| {
            let mut parts = vec![format!("{} whole", l.full)];
            for (n, word) in [(l.shortened, "shortened"), (l.name_only, "names only"), (l.omitted, "left out")] {
                if n > 0 {
                    parts.push(format!("{n} {word}"));
                }
            }
            parts.join(", ")
        };
        let worst = if self.by_use { " (worst case)" } else { "" };
        let Some(budget) = self.budget else {
            return format!(
                "{}: every skill listed whole, no cap: {} {unit} of every request ({} skills)",
                self.name, self.after.cost, self.after.full
            );
        };
        let pct = |cost: usize| (cost * 100).checked_div(budget).unwrap_or(0);
        let mut out = format!(
            "{}: listing {} of {budget} {unit} ({}%) — {}{worst}",
            self.name,
            self.after.cost,
            pct(self.after.cost),
            shape(&self.after)
        );
        if !self.left_out.is_empty() {
            out.push_str(&format!(
                "; {} of {} chosen skills stay out to keep within budget (pinned first, then the ones used most, then the rest)",
                self.left_out.len(),
                self.delivered + self.left_out.len()
            ));
        }
        if self.over_budget && self.after.cost > budget {
            out.push_str("; over budget, as chosen (over_budget)");
        }
        out
    }

    /// What delivering every chosen skill would do, when the fit kept some out.
    pub fn describe_everything(&self) -> Option<String> {
        let budget = self.budget?;
        if self.left_out.is_empty() {
            return None;
        }
        let e = &self.everything;
        let unit = self.unit.as_str();
        let squeezed = e.shortened + e.name_only + e.omitted;
        Some(format!(
            "delivering all {} would need {} of {budget} {unit} ({}%): {squeezed} of the {} skills in its listing would lose their description; `skilldeck sync --over-budget {}` does it",
            self.delivered + self.left_out.len(),
            e.cost,
            (e.cost * 100).checked_div(budget).unwrap_or(0),
            squeezed + e.full,
            self.target
        ))
    }
}

impl TargetPlan {
    /// An empty plan for a folder.
    pub fn new(target: &str, level: Level, path: PathBuf) -> Self {
        Self {
            target: target.to_owned(),
            level,
            path,
            actions: Vec::new(),
            unchanged: Vec::new(),
            same_as: None,
            error: None,
            error_code: None,
            link_fallback: None,
            done: 0,
            left_out: Vec::new(),
            once: Vec::new(),
            fit: None,
        }
    }

    /// The steps that change the folder (not the skips).
    pub fn changes(&self) -> usize {
        self.actions.iter().filter(|a| !matches!(a, Action::Skip { .. })).count()
    }
}

/// The steps for one folder from what was observed there. `overwrite` holds the drifted skills
/// to replace anyway, after keeping the edited copy in History (`Source::plan_keep`).
/// `mode` is the mode asked for (`--mode`, or the target's `mode` in config.toml): skills in
/// the other mode are replaced; without one, new skills are copies and the others keep theirs.
pub fn steps(
    observed: &[Observed],
    wanted: &WantedSet,
    overwrite: &BTreeSet<String>,
    source: &dyn Source,
    mode: Option<Mode>,
) -> (Vec<Action>, Vec<String>) {
    let kept = |o: &Observed| mode.or(o.owned.as_ref().map(|w| w.mode)).unwrap_or(Mode::Copy);
    let mut actions = Vec::new();
    let mut unchanged = Vec::new();
    for o in observed {
        let want = wanted.get(&o.name);
        let name = o.name.clone();
        match (o.state, want) {
            (SkillState::InSync, Some(w)) if o.owned.as_ref().is_some_and(|m| m.mode != kept(o)) => {
                actions.push(Action::Replace {
                    name,
                    scope: w.scope,
                    from: w.revision,
                    to: w.revision,
                    mode: kept(o),
                    keep: None,
                })
            }
            (SkillState::InSync, _) => unchanged.push(name),
            (SkillState::Missing, Some(w)) => {
                actions.push(Action::Write { name, scope: w.scope, revision: w.revision, mode: kept(o) })
            }
            (SkillState::Outdated, Some(w)) => actions.push(Action::Replace {
                name,
                scope: w.scope,
                from: o.revision.unwrap_or(Revision(0)),
                to: w.revision,
                mode: kept(o),
                keep: None,
            }),
            (SkillState::Drifted, Some(w)) if overwrite.contains(&o.name) => {
                // A link pointed elsewhere keeps what it points to; one edited through holds
                // the edit in Skilldeck's export, which is kept like an edited copy.
                let keep = source.plan_keep(w, o.digest, o.link && o.edited_export.is_none());
                // Kept in History, the revision the target gets is the one restoring the store's.
                let to = match keep {
                    Keep::History { restore, .. } => restore,
                    Keep::UserHistory { .. } | Keep::Nothing { .. } => w.revision,
                };
                actions.push(Action::Replace {
                    keep: Some(keep),
                    name,
                    scope: w.scope,
                    from: o.revision.unwrap_or(Revision(0)),
                    to,
                    mode: kept(o),
                })
            }
            (SkillState::Drifted, _) => actions.push(Action::Skip {
                name,
                reason: SkipReason::Drifted { revision: o.revision.unwrap_or(Revision(0)), theirs: o.digest },
            }),
            (SkillState::Foreign, Some(w)) => actions.push(Action::Skip {
                name,
                reason: SkipReason::Foreign { theirs: o.digest, ours: source.digest(w).ok() },
            }),
            (SkillState::Unselected, _) => {
                actions.push(Action::Remove { name, revision: o.revision.unwrap_or(Revision(0)) })
            }
            // Foreign and not chosen: not ours to mention. Missing or outdated without a wanted
            // entry cannot happen.
            (SkillState::Foreign | SkillState::Missing | SkillState::Outdated, _) => {}
        }
    }
    (actions, unchanged)
}
