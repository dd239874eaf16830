//! Gemini CLI's listing, from its source (`google-gemini/gemini-cli`, read December 2026):
//! - `renderAgentSkills` (`packages/core/src/prompts/snippets.ts`) writes every enabled skill
//!   into the system prompt, inside `<available_skills>`, as `  <skill>`, `<name>`,
//!   `<description>` and `<location>` (the `SKILL.md` path) lines and `  </skill>`, the entries
//!   joined by line ends. There is no budget: nothing is shortened or left out, so every
//!   description reaches the model whole and every one takes room in every request.
//! - `SkillManager.getSkills` (`packages/core/src/skills/skillManager.ts`) lists the skills not
//!   `disabled`; `setDisabledSkills` marks those the settings' `skills.disabled` names, in any
//!   case (`packages/cli/src/config/settingsSchema.ts`: merged as a union of the user's
//!   `~/.gemini/settings.json` and the workspace's `.gemini/settings.json`), and
//!   `skills.enabled: false` turns skills off altogether.
//! - A name found twice keeps the later folder's skill (`addSkillsWithPrecedence`, folders read
//!   in `discoverSkills`: `~/.gemini/skills`, `~/.agents/skills`, then the workspace's
//!   `.gemini/skills` and `.agents/skills`).
//!
//! The default window is `DEFAULT_TOKEN_LIMIT`, 1,048,576 tokens
//! (`packages/core/src/core/tokenLimits.ts`); it only says what share of it the listing takes.
//! Gemini CLI's own built-in skills, shipped inside its package, are not counted.

use crate::budget::rules::{Found, HiddenBy, Listed, Override, Shown, Simulated, SkillBudget, Unit};
use std::collections::BTreeMap;

/// The context window assumed when none is configured, in tokens.
pub const DEFAULT_WINDOW: u64 = 1_048_576;
/// Where the rule was read.
pub const SOURCE: &str = "https://github.com/google-gemini/gemini-cli/blob/main/packages/core/src/prompts/snippets.ts";

/// One skill's entry, and its line end.
fn entry(name: &str, description: &str, location: &str) -> usize {
    let text = format!(
        "  <skill>\n    <name>{name}</name>\n    <description>{description}</description>\n    <location>{location}</location>\n  </skill>\n"
    );
    text.chars().count()
}

/// Which of two skills of one name Gemini CLI keeps: the workspace's over the user's, and
/// within a level `.agents/skills` over `.gemini/skills`.
fn precedence(l: &Listed) -> (bool, bool) {
    (l.found == Found::Repo, l.skill_md.to_string_lossy().replace('\\', "/").contains("/.agents/skills/"))
}

/// What Gemini CLI's listing does to `skills`: every skill it reads listed whole, the ones
/// its settings switch off hidden. The budget is what the listing costs (it has no cap).
pub fn simulate(skills: &[Listed]) -> Simulated {
    let mut kept: BTreeMap<&str, &Listed> = BTreeMap::new();
    for l in skills {
        match kept.get(l.name.as_str()) {
            Some(k) if precedence(k) > precedence(l) => {}
            _ => {
                kept.insert(&l.name, l);
            }
        }
    }
    let mut out = Vec::new();
    for l in kept.values() {
        let location = l.skill_md.to_string_lossy();
        let (best, cost, name_cost) = if l.setting == Override::Off {
            (Shown::Hidden { by: HiddenBy::SettingOff }, 0, 0)
        } else {
            (Shown::Full, entry(&l.name, l.description.trim(), &location), entry(&l.name, "", &location))
        };
        out.push(SkillBudget { name: l.name.clone(), best, worst: best, cost, name_cost, found: l.found });
    }
    let full = out.iter().map(|k| k.cost).sum();
    let names_only = out.iter().map(|k| k.name_cost).sum();
    Simulated { unit: Unit::Chars, budget: full, full, names_only, used: full, squeezed: (0, 0), skills: out }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skill(name: &str, description: &str, skill_md: &str, found: Found) -> Listed {
        Listed {
            name: name.to_owned(),
            description: description.to_owned(),
            when_to_use: None,
            model_invocable: true,
            implicit_invocation: true,
            setting: Override::On,
            found,
            skill_md: skill_md.into(),
        }
    }

    /// By hand: `  <skill>` (9) + `    <name>pdf</name>` (20) + `    <description>Read
    /// PDFs.</description>` (41) + `    <location>/s/SKILL.md</location>` (36) + `  </skill>`
    /// (10), each with its line end: 121.
    #[test]
    fn every_skill_is_listed_whole_at_the_cost_of_its_entry() {
        let s = simulate(&[skill("pdf", "Read PDFs.", "/s/SKILL.md", Found::User)]);
        assert_eq!(s.full, 121);
        assert_eq!((s.budget, s.squeezed, s.skills[0].best), (s.full, (0, 0), Shown::Full));
        assert_eq!(s.names_only, s.full - "Read PDFs.".len());
    }

    #[test]
    fn a_switched_off_skill_costs_nothing_and_the_workspace_wins_a_name() {
        let mut off = skill("old", "d", "/h/.gemini/skills/old/SKILL.md", Found::User);
        off.setting = Override::Off;
        let user = skill("pdf", "user's", "/h/.agents/skills/pdf/SKILL.md", Found::User);
        let repo = skill("pdf", "workspace's", "/p/.gemini/skills/pdf/SKILL.md", Found::Repo);
        let s = simulate(&[off, repo, user]);
        assert_eq!(s.skills.len(), 2);
        assert_eq!(s.skills[0].best, Shown::Hidden { by: HiddenBy::SettingOff });
        assert_eq!(s.skills[1].cost, entry("pdf", "workspace's", "/p/.gemini/skills/pdf/SKILL.md"));
        assert_eq!(s.full, s.skills[1].cost);
    }

    /// 20, 100 and 500 skills of 200-character descriptions: nothing is ever squeezed, and the
    /// listing grows by each entry: here 10 + 28 + 232 + 48 + 11 = 329 characters each, line
    /// ends included (the description line alone is 17 + 200 + 14).
    #[test]
    fn twenty_hundred_and_five_hundred_skills_by_hand() {
        let many = |n: usize| {
            (0..n)
                .map(|i| {
                    let name = format!("skill-{i:04}");
                    skill(&name, &"d".repeat(200), &format!("/s/{name}/SKILL.md"), Found::User)
                })
                .collect::<Vec<_>>()
        };
        for n in [20, 100, 500] {
            let s = simulate(&many(n));
            assert_eq!((s.full, s.squeezed), (n * 329, (0, 0)), "{n}");
            assert!(s.skills.iter().all(|k| k.best == Shown::Full));
        }
    }
}
