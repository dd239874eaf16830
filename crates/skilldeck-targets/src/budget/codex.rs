//! Codex's listing rule, from `codex-rs/core-skills/src/render.rs` of `openai/codex` (read
//! December 2026: `default_skill_metadata_budget`, `render_skill_lines_from_lines`,
//! `render_lines_with_description_budget`, `ordered_skills_for_budget`):
//! - the budget is 2% of the model's context window in estimated tokens (bytes / 4, rounded
//!   up), or 8,000 characters when the window is unknown;
//! - each skill is one line, `- name: description (file: /path/to/SKILL.md)`, costed with its
//!   line end; with no description, `- name: (file: …)`;
//! - when every line fits whole, all are whole; else, when every line fits without its
//!   description, the room left is shared out one character at a time, skill by skill, in
//!   listing order, so descriptions are shortened evenly (short ones whole, their share going
//!   to the long ones); else every description is removed and skills are taken in order while
//!   they fit, the rest left out ("Exceeded skills context budget … not included in the
//!   model-visible skills list");
//! - the order is the repository's skills before the user's, then by name, then by path.
//!
//! Codex's `SkillFrontmatter` (`core-skills/src/loader.rs`) reads neither
//! `disable-model-invocation` nor `when_to_use`: such a skill is listed like any other. Its
//! own switch is `[[skills.config]]` with `enabled = false` in `config.toml`
//! (`core-skills/src/config_rules.rs`). Only the skills
//! `SkillLoadOutcome::allowed_skills_for_implicit_invocation` keeps are listed
//! (`core-skills/src/model.rs`): enabled ones whose `agents/openai.yaml` does not say
//! `policy.allow_implicit_invocation: false`; the others cost nothing and the model never
//! sees them (the user still invokes them with `$name`). Not modelled: the shorter path
//! aliases Codex tries when the absolute paths do not fit (they can only leave more room).
//! The default window is the 272,000 tokens of Codex's fallback model metadata
//! (`codex-rs/models-manager/src/model_info.rs`).

use crate::budget::rules::{HiddenBy, Listed, Override, Shown, Simulated, SkillBudget, Unit};

/// The context window assumed when none is configured, in tokens.
pub const DEFAULT_WINDOW: u64 = 272_000;
/// The share of the window the listing gets, in percent.
pub const PERCENT: u64 = 2;
/// The budget in characters when the window is unknown.
pub const UNKNOWN_WINDOW_CHARS: usize = 8_000;
/// Where the rule was read.
pub const SOURCE: &str = "https://github.com/openai/codex/blob/main/codex-rs/core-skills/src/render.rs";

/// The budget for a window of `window` tokens (`None`: unknown): its unit and size.
pub fn budget(window: Option<u64>) -> (Unit, usize) {
    match window.filter(|w| *w > 0) {
        Some(w) => (Unit::Tokens, usize::try_from(w.saturating_mul(PERCENT) / 100).unwrap_or(usize::MAX).max(1)),
        None => (Unit::Chars, UNKNOWN_WINDOW_CHARS),
    }
}

/// What a text costs: characters, or tokens estimated as bytes / 4 rounded up.
fn cost(unit: Unit, chars: usize, bytes: usize) -> usize {
    match unit {
        Unit::Chars => chars,
        Unit::Tokens => bytes.div_ceil(4),
    }
}

/// One listed line: the skill and its line's sizes without a description.
struct Line<'a> {
    skill: &'a Listed,
    /// Bytes of the description's first `n` characters, at `n` (from 0).
    prefix: Vec<usize>,
    /// Characters and bytes of `- name: (file: path)` and its line end.
    bare: (usize, usize),
}

impl Line<'_> {
    fn bare_cost(&self, unit: Unit) -> usize {
        cost(unit, self.bare.0, self.bare.1)
    }

    /// The cost with the first `n` characters of the description (`n` > 0 adds them and a space).
    fn cost_with(&self, unit: Unit, n: usize) -> usize {
        if n == 0 {
            return self.bare_cost(unit);
        }
        let bytes = self.prefix.get(n).copied().unwrap_or_else(|| self.prefix.last().copied().unwrap_or(0));
        cost(unit, self.bare.0 + n + 1, self.bare.1 + bytes + 1)
    }

    fn chars(&self) -> usize {
        self.prefix.len() - 1
    }
}

/// What Codex's rule does to `skills` with `budget` in `unit`. The skills come back in
/// Codex's listing order.
pub fn simulate(skills: &[Listed], unit: Unit, budget: usize) -> Simulated {
    let mut ordered: Vec<&Listed> = skills.iter().collect();
    ordered.sort_by(|a, b| a.found.cmp(&b.found).then_with(|| a.name.cmp(&b.name)).then(a.skill_md.cmp(&b.skill_md)));
    let (off, listed): (Vec<&Listed>, Vec<&Listed>) =
        ordered.into_iter().partition(|l| l.setting == Override::Off || !l.implicit_invocation);
    let lines: Vec<Line<'_>> = listed
        .iter()
        .map(|&skill| {
            let bare = format!("- {}: (file: {})\n", skill.name, skill.skill_md.to_string_lossy().replace('\\', "/"));
            let prefix = std::iter::once(0)
                .chain(skill.description.chars().scan(0, |sum, c| {
                    *sum += c.len_utf8();
                    Some(*sum)
                }))
                .collect();
            Line { skill, prefix, bare: (bare.chars().count(), bare.len()) }
        })
        .collect();
    let full: usize = lines.iter().map(|l| l.cost_with(unit, l.chars())).sum();
    let names_only: usize = lines.iter().map(|l| l.bare_cost(unit)).sum();

    let mut shown: Vec<Shown> = Vec::with_capacity(lines.len());
    let used;
    if full <= budget {
        shown.extend(lines.iter().map(|_| Shown::Full));
        used = full;
    } else if names_only <= budget {
        let kept = share_out(&lines, unit, budget - names_only);
        used = lines.iter().zip(&kept).map(|(l, &k)| l.cost_with(unit, k)).sum();
        for (l, &k) in lines.iter().zip(&kept) {
            let of = l.chars();
            shown.push(match k {
                _ if k == of => Shown::Full,
                0 => Shown::NameOnly,
                _ => Shown::Shortened { kept: k, of },
            });
        }
    } else {
        let mut spent = 0usize;
        for l in &lines {
            let c = l.bare_cost(unit);
            if spent + c <= budget {
                spent += c;
                shown.push(if l.chars() == 0 { Shown::Full } else { Shown::NameOnly });
            } else {
                shown.push(Shown::Omitted);
            }
        }
        used = spent;
    }
    let squeezed = shown.iter().filter(|s| s.squeezed()).count();
    let mut out: Vec<SkillBudget> = lines
        .iter()
        .zip(shown)
        .map(|(l, s)| SkillBudget {
            name: l.skill.name.clone(),
            best: s,
            worst: s,
            cost: l.cost_with(unit, l.chars()),
            name_cost: l.bare_cost(unit),
            found: l.skill.found,
        })
        .collect();
    out.extend(off.iter().map(|l| {
        let by = if l.setting == Override::Off { HiddenBy::SettingOff } else { HiddenBy::NoImplicitInvocation };
        let hidden = Shown::Hidden { by };
        SkillBudget { name: l.name.clone(), best: hidden, worst: hidden, cost: 0, name_cost: 0, found: l.found }
    }));
    Simulated { unit, budget, full, names_only, used, squeezed: (squeezed, squeezed), skills: out }
}

/// How many description characters each line keeps when `room` is shared out one character
/// at a time, line by line in order, each step taken only when its cost still fits.
fn share_out(lines: &[Line<'_>], unit: Unit, room: usize) -> Vec<usize> {
    let mut kept = vec![0usize; lines.len()];
    let mut extra = vec![0usize; lines.len()];
    let mut left = room;
    loop {
        let mut changed = false;
        for (i, l) in lines.iter().enumerate() {
            if kept[i] >= l.chars() {
                continue;
            }
            let next = l.cost_with(unit, kept[i] + 1) - l.bare_cost(unit);
            let delta = next.saturating_sub(extra[i]);
            if delta <= left {
                kept[i] += 1;
                extra[i] = next;
                left -= delta;
                changed = true;
            }
        }
        if !changed {
            return kept;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::rules::Found;

    fn skill(name: &str, description: &str, found: Found) -> Listed {
        Listed {
            name: name.to_owned(),
            description: description.to_owned(),
            when_to_use: None,
            model_invocable: true,
            implicit_invocation: true,
            setting: Override::On,
            found,
            skill_md: format!("/s/{name}/SKILL.md").into(),
        }
    }

    /// `- name: (file: /s/name/SKILL.md)` and a line end, in characters.
    fn bare(name: &str) -> usize {
        format!("- {name}: (file: /s/{name}/SKILL.md)\n").len()
    }

    #[test]
    fn the_budget_is_two_percent_in_tokens_or_eight_thousand_chars() {
        assert_eq!(budget(Some(272_000)), (Unit::Tokens, 5_440));
        assert_eq!(budget(Some(200_000)), (Unit::Tokens, 4_000));
        assert_eq!(budget(Some(99)), (Unit::Tokens, 1));
        assert_eq!(budget(None), (Unit::Chars, 8_000));
    }

    #[test]
    fn descriptions_are_shortened_evenly_before_any_skill_is_left_out() {
        let a = skill("alpha-skill", "abcdef", Found::Repo);
        let b = skill("beta-skill", "uvwxyz", Found::Repo);
        // Room for the bare lines and six more characters: each description's first
        // character costs two (itself and the space), so two and two.
        let room = bare("alpha-skill") + bare("beta-skill") + 6;
        let s = simulate(&[b, a], Unit::Chars, room);
        assert_eq!(s.skills[0].name, "alpha-skill", "listing order is by name");
        assert_eq!(s.skills[0].best, Shown::Shortened { kept: 2, of: 6 });
        assert_eq!(s.skills[1].best, Shown::Shortened { kept: 2, of: 6 });
        assert_eq!(s.squeezed, (2, 2));
        assert_eq!(s.used, room);
    }

    #[test]
    fn a_short_description_stays_whole_and_its_share_goes_to_a_long_one() {
        let short = skill("short-skill", "x", Found::Repo);
        let long = skill("long-skill", "abcdefghi", Found::Repo);
        let room = bare("short-skill") + bare("long-skill") + 11;
        let s = simulate(&[short, long], Unit::Chars, room);
        assert_eq!(s.skills[0].best, Shown::Shortened { kept: 8, of: 9 });
        assert_eq!(s.skills[1].best, Shown::Full);
    }

    #[test]
    fn past_the_bare_lines_repository_skills_come_first_and_the_rest_are_left_out() {
        let user = skill("a-user-skill", "desc", Found::User);
        let repo = skill("z-repo-skill", "desc", Found::Repo);
        let s = simulate(&[user, repo], Unit::Chars, bare("z-repo-skill"));
        assert_eq!(s.skills[0].name, "z-repo-skill");
        assert_eq!(s.skills[0].best, Shown::NameOnly);
        assert_eq!(s.skills[1].best, Shown::Omitted);
    }

    #[test]
    fn a_skill_switched_off_is_hidden_and_disable_model_invocation_is_not_read() {
        let mut off = skill("off", "desc", Found::User);
        off.setting = Override::Off;
        let mut manual = skill("manual", "desc", Found::User);
        manual.model_invocable = false;
        let s = simulate(&[off, manual], Unit::Chars, 8_000);
        assert_eq!(s.skills[0].name, "manual");
        assert_eq!(s.skills[0].best, Shown::Full);
        assert_eq!(s.skills[1].best, Shown::Hidden { by: HiddenBy::SettingOff });
    }

    #[test]
    fn a_skill_codex_may_not_invoke_on_its_own_is_not_listed_and_costs_nothing() {
        let mut explicit = skill("explicit", "desc", Found::User);
        explicit.implicit_invocation = false;
        let plain = skill("plain", "desc", Found::User);
        let s = simulate(&[explicit, plain], Unit::Chars, 8_000);
        assert_eq!(s.skills[0].name, "plain");
        assert_eq!(s.skills[1].best, Shown::Hidden { by: HiddenBy::NoImplicitInvocation });
        assert_eq!(s.full, bare("plain") + 5, "only the listed line: its description and a space");
    }

    #[test]
    fn system_skills_come_after_the_users_and_are_left_out_first() {
        let system = skill("a-system-skill", "desc", Found::System);
        let user = skill("z-user-skill", "desc", Found::User);
        let s = simulate(&[system, user], Unit::Chars, bare("z-user-skill"));
        assert_eq!((s.skills[0].name.as_str(), s.skills[0].best), ("z-user-skill", Shown::NameOnly));
        assert_eq!((s.skills[1].found, s.skills[1].best), (Found::System, Shown::Omitted));
    }

    #[test]
    fn tokens_are_bytes_over_four_rounded_up() {
        let s = simulate(&[skill("a", "bc", Found::User)], Unit::Tokens, 100);
        // "- a: bc (file: /s/a/SKILL.md)\n" is 30 bytes: 8 tokens.
        assert_eq!(s.full, 8);
    }

    /// 20, 100 and 500 skills with 200-character descriptions against 5,440 tokens (272K
    /// window), computed by hand. Each bare line `- skill-NNNN: (file: /s/skill-NNNN/SKILL.md)`
    /// and its line end is 45 bytes (12 tokens); whole, 45 + 201 = 246 bytes (62 tokens).
    #[test]
    fn twenty_hundred_and_five_hundred_skills_by_hand() {
        let many = |n: usize| {
            (0..n).map(|i| skill(&format!("skill-{i:04}"), &"d".repeat(200), Found::User)).collect::<Vec<_>>()
        };
        assert_eq!(bare("skill-0000"), 45);
        let s = simulate(&many(20), Unit::Tokens, 5_440);
        assert_eq!((s.full, s.squeezed), (20 * 62, (0, 0)));
        // 100: 6,200 > 5,440; bare 1,200 fits: descriptions shortened, none left out.
        let s = simulate(&many(100), Unit::Tokens, 5_440);
        assert_eq!((s.full, s.names_only), (6_200, 1_200));
        assert_eq!(s.squeezed, (100, 100));
        assert!(s.skills.iter().all(|k| matches!(k.best, Shown::Shortened { .. })));
        assert!(s.used <= 5_440);
        // 500: bare lines alone 6,000 > 5,440: 453 fit (5,436), 47 are left out.
        let s = simulate(&many(500), Unit::Tokens, 5_440);
        let omitted = s.skills.iter().filter(|k| k.best == Shown::Omitted).count();
        assert_eq!(omitted, 47);
        assert_eq!(s.used, 453 * 12);
        assert_eq!(s.skills[452].best, Shown::NameOnly);
        assert_eq!(s.skills[453].best, Shown::Omitted);
    }
}
