//! Claude Code's listing rule, from its skills documentation
//! (<https://code.claude.com/docs/en/skills>, sections "Skill descriptions are cut short",
//! "Restrict Claude's skill access" and "Override skill visibility from settings"; read
//! December 2026):
//! - "The listing always contains every skill name"; its budget "scales at 1% of the model's
//!   context window" (`skillListingBudgetFraction`, default 0.01), counted in characters, at
//!   about 4 characters per token (a 200,000-token window gives 8,000 characters, the figure
//!   the docs' tools report); `SLASH_COMMAND_TOOL_CHAR_BUDGET` pins it instead.
//! - "each entry's combined text is capped at 1,536 characters regardless of budget" (the
//!   `description` with `when_to_use`; `skillListingMaxDescChars`).
//! - "When the listing overflows, Claude Code drops descriptions starting with the skills you
//!   invoke least": the order is Claude Code's, by use, so only the best case (the skill used
//!   most) and the worst (used least) are shown.
//! - `disable-model-invocation: true` "removes the skill from Claude's context entirely";
//!   `skillOverrides` `"name-only"` lists the name only, `"user-invocable-only"` and `"off"` hide it.
//!
//! How an entry is written is not published: it is estimated as `- name: description` and a
//! line end, and a name-only entry as `- name` and a line end.

use crate::budget::rules::{Found, HiddenBy, Listed, Override, Shown, Simulated, SkillBudget, Unit};

/// The context window assumed when none is configured, in tokens (the 200K window of Claude
/// Code's default models).
pub const DEFAULT_WINDOW: u64 = 200_000;
/// The share of the window the listing gets, in percent (`skillListingBudgetFraction` 0.01).
pub const PERCENT: u64 = 1;
/// Characters per token, as Claude Code counts the budget.
pub const CHARS_PER_TOKEN: u64 = 4;
/// The most characters of one entry's description and `when_to_use`.
pub const MAX_DESCRIPTION: usize = 1_536;
/// Where the rule was read.
pub const SOURCE: &str = "https://code.claude.com/docs/en/skills#skill-descriptions-are-cut-short";

/// The listing's budget in characters for a context window of `window` tokens.
pub fn budget_chars(window: u64) -> usize {
    let chars = window.saturating_mul(PERCENT).saturating_mul(CHARS_PER_TOKEN) / 100;
    usize::try_from(chars).unwrap_or(usize::MAX)
}

/// The text Claude Code lists for the skill: its description, then its `when_to_use`.
fn listed_text(l: &Listed) -> String {
    match l.when_to_use.as_deref().map(str::trim).filter(|w| !w.is_empty()) {
        Some(w) if l.description.trim().is_empty() => w.to_owned(),
        Some(w) => format!("{} {w}", l.description.trim()),
        None => l.description.trim().to_owned(),
    }
}

/// One listed skill: its name's cost, its description's characters (all, and as capped).
struct Entry {
    name_cost: usize,
    chars: usize,
    capped: usize,
}

impl Entry {
    /// The description's cost: `: ` and the capped text; nothing without one.
    fn extra(&self) -> usize {
        if self.capped == 0 { 0 } else { self.capped + 2 }
    }

    /// Its fate with its description kept.
    fn kept(&self) -> Shown {
        if self.capped < self.chars { Shown::Shortened { kept: self.capped, of: self.chars } } else { Shown::Full }
    }
}

/// A skill whose description the budget may drop (its entry), or its fixed fate and cost.
type Row = (String, Found, Result<Entry, (Shown, usize)>);

/// What Claude Code's rule does to `skills` with a budget of `budget` characters.
pub fn simulate(skills: &[Listed], budget: usize) -> Simulated {
    // Each skill: its entry when listed with a description that may go, its fixed fate otherwise.
    let mut rows: Vec<Row> = Vec::new();
    for l in skills {
        let name_cost = l.name.chars().count() + 3;
        let fixed = match (l.model_invocable, l.setting) {
            (false, _) => Some((Shown::Hidden { by: HiddenBy::UserInvokedOnly }, 0)),
            (_, Override::Off) => Some((Shown::Hidden { by: HiddenBy::SettingOff }, 0)),
            (_, Override::UserOnly) => Some((Shown::Hidden { by: HiddenBy::SettingUserOnly }, 0)),
            (_, Override::NameOnly) => Some((Shown::NameOnly, name_cost)),
            (true, Override::On) => None,
        };
        let row = match fixed {
            Some(f) => Err(f),
            None => {
                let chars = listed_text(l).chars().count();
                Ok(Entry { name_cost, chars, capped: chars.min(MAX_DESCRIPTION) })
            }
        };
        rows.push((l.name.clone(), l.found, row));
    }
    let fixed_cost: usize = rows.iter().filter_map(|(_, _, r)| r.as_ref().err().map(|f| f.1)).sum();
    let entries: Vec<&Entry> = rows.iter().filter_map(|(_, _, r)| r.as_ref().ok()).collect();
    let names_only = fixed_cost + entries.iter().map(|e| e.name_cost).sum::<usize>();
    let full = names_only + entries.iter().map(|e| e.extra()).sum::<usize>();
    let over = full.saturating_sub(budget);

    let extras: Vec<usize> = entries.iter().map(|e| e.extra()).collect();
    let capped: Vec<bool> = entries.iter().map(|e| e.capped < e.chars).collect();
    // The fewest descriptions dropped (largest first) and the most (smallest first).
    let (few, few_freed) = drop_until(&extras, over, true);
    let (many, _) = drop_until(&extras, over, false);
    let squeezed_with = |dropped: &[bool]| dropped.iter().zip(&capped).filter(|(d, c)| **d || **c).count();
    let squeezed = (squeezed_with(&few[..]), squeezed_with(&many[..]));

    let out = rows
        .into_iter()
        .map(|(name, found, row)| match row {
            Err((shown, cost)) => SkillBudget { name, best: shown, worst: shown, cost, name_cost: cost, found },
            Ok(e) => {
                let cost = e.name_cost + e.extra();
                let (best, worst) = if over == 0 || e.extra() == 0 {
                    (e.kept(), e.kept())
                } else if names_only + e.extra() <= budget {
                    (e.kept(), Shown::NameOnly)
                } else {
                    (Shown::NameOnly, Shown::NameOnly)
                };
                SkillBudget { name, best, worst, cost, name_cost: e.name_cost, found }
            }
        })
        .collect();
    Simulated {
        unit: Unit::Chars,
        budget,
        full,
        names_only,
        used: full.saturating_sub(few_freed).max(names_only.min(full)),
        squeezed,
        skills: out,
    }
}

/// Which of `extras` are dropped, largest first (`largest`) or smallest first, until `over`
/// is freed (or none is left), and how much that frees.
fn drop_until(extras: &[usize], over: usize, largest: bool) -> (Vec<bool>, usize) {
    let mut order: Vec<usize> = (0..extras.len()).filter(|&i| extras[i] > 0).collect();
    order.sort_by_key(|&i| extras[i]);
    if largest {
        order.reverse();
    }
    let mut dropped = vec![false; extras.len()];
    let mut freed = 0;
    for i in order {
        if freed >= over {
            break;
        }
        dropped[i] = true;
        freed += extras[i];
    }
    (dropped, freed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skill(name: &str, description_chars: usize) -> Listed {
        Listed {
            name: name.to_owned(),
            description: "d".repeat(description_chars),
            when_to_use: None,
            model_invocable: true,
            implicit_invocation: true,
            setting: Override::On,
            found: Found::User,
            skill_md: format!("/h/.claude/skills/{name}/SKILL.md").into(),
        }
    }

    #[test]
    fn the_budget_is_one_percent_of_the_window_at_four_chars_a_token() {
        assert_eq!(budget_chars(200_000), 8_000);
        assert_eq!(budget_chars(1_000_000), 40_000);
    }

    #[test]
    fn under_budget_every_description_is_whole_and_a_long_one_is_capped() {
        // "- aaaa" + line end = 7, ": " + 10 = 12: 19 each; the long one 7 + 2 + 1536.
        let skills = [skill("aaaa", 10), skill("bbbb", 10), skill("cccc", 2000)];
        let s = simulate(&skills, 8_000);
        assert_eq!(s.full, 19 + 19 + 7 + 2 + 1536);
        assert_eq!(s.names_only, 21);
        assert_eq!(s.skills[0].best, Shown::Full);
        assert_eq!(s.skills[2].best, Shown::Shortened { kept: 1536, of: 2000 });
        assert_eq!(s.squeezed, (1, 1));
    }

    #[test]
    fn over_budget_the_worst_case_is_name_only_and_the_best_keeps_what_fits() {
        // Three skills of 19 + one of 7 + 2 + 100 = 109: full 166, names 28. Budget 100.
        let skills = [skill("aaaa", 10), skill("bbbb", 10), skill("cccc", 10), skill("dddd", 100)];
        let s = simulate(&skills, 100);
        assert_eq!((s.full, s.names_only), (166, 28));
        assert_eq!((s.skills[0].best, s.skills[0].worst), (Shown::Full, Shown::NameOnly));
        // 28 + 102 > 100: even used most, its description cannot fit.
        assert_eq!((s.skills[3].best, s.skills[3].worst), (Shown::NameOnly, Shown::NameOnly));
        // Over by 66: dropping the large one frees 102 (one skill); the small ones first free
        // 12 each, so all four go.
        assert_eq!(s.squeezed, (1, 4));
        assert_eq!(s.used, 166 - 102);
    }

    #[test]
    fn hidden_and_overridden_skills_cost_what_the_agent_lists() {
        let mut hidden = skill("hidden", 50);
        hidden.model_invocable = false;
        let mut off = skill("off", 50);
        off.setting = Override::Off;
        let mut short = skill("short", 50);
        short.setting = Override::NameOnly;
        let s = simulate(&[hidden, off, short], 8_000);
        assert_eq!(s.skills[0].best, Shown::Hidden { by: HiddenBy::UserInvokedOnly });
        assert_eq!(s.skills[1].best, Shown::Hidden { by: HiddenBy::SettingOff });
        assert_eq!(s.skills[2].best, Shown::NameOnly);
        assert_eq!(s.full, "short".len() + 3);
        assert_eq!(s.squeezed, (0, 0));
    }

    #[test]
    fn when_to_use_counts_with_the_description() {
        let mut s = skill("aaaa", 10);
        s.when_to_use = Some("w".repeat(5));
        assert_eq!(simulate(&[s], 8_000).full, 7 + 2 + 16);
    }

    /// 20, 100 and 500 skills of 200-character descriptions and 10-character names against
    /// the default 8,000 characters, computed by hand: each entry 13 + 202 = 215.
    #[test]
    fn twenty_hundred_and_five_hundred_skills_by_hand() {
        let many = |n: usize| (0..n).map(|i| skill(&format!("skill-{i:04}"), 200)).collect::<Vec<_>>();
        let s = simulate(&many(20), 8_000);
        assert_eq!((s.full, s.squeezed), (20 * 215, (0, 0)));
        // 100: 21,500 > 8,000, over by 13,500; each drop frees 202: 67 drops (13,534).
        let s = simulate(&many(100), 8_000);
        assert_eq!((s.full, s.names_only), (21_500, 1_300));
        assert_eq!(s.squeezed, (67, 67));
        assert_eq!((s.skills[0].best, s.skills[0].worst), (Shown::Full, Shown::NameOnly));
        // 500: names alone 6,500; over by 99,500: 493 drops (99,586), 7 keep theirs.
        let s = simulate(&many(500), 8_000);
        assert_eq!(s.squeezed, (493, 493));
        assert_eq!(s.used, 107_500 - 493 * 202);
    }
}
