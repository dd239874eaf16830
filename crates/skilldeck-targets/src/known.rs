//! The table of known agent tools: where each reads skills (user level and project level), how
//! to tell it is installed, and which environment variables move its folders.
//!
//! Each row cites where its paths come from. "Confirmed" means the path was found in the tool's
//! own documentation (or a page quoting it) while this table was written; rows that say "not
//! confirmed" follow the tool's usual layout and should be checked before relying on them.

use crate::env::Env;
use std::path::PathBuf;

/// How one folder of a tool is found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathRule {
    /// `$HOME/<rel>`.
    Home(&'static str),
    /// `$<var>/<sub>` when the variable is set, else `$HOME/<home_rel>/<sub>`.
    EnvOrHome {
        /// The variable that moves the tool's folder.
        var: &'static str,
        /// The default folder, relative to home.
        home_rel: &'static str,
        /// The part below that folder (may be empty).
        sub: &'static str,
    },
    /// `$XDG_CONFIG_HOME/<rel>`, default `$HOME/.config/<rel>`.
    XdgConfig(&'static str),
}

impl PathRule {
    /// The path in `env`; `None` without a home folder (and no variable to use instead).
    pub fn resolve(self, env: &Env) -> Option<PathBuf> {
        let join = |base: PathBuf, rel: &str| if rel.is_empty() { base } else { base.join(rel) };
        match self {
            Self::Home(rel) => env.home().map(|h| h.join(rel)),
            Self::EnvOrHome { var, home_rel, sub } => {
                let base = env.var(var).or_else(|| env.home().map(|h| h.join(home_rel)))?;
                Some(join(base, sub))
            }
            Self::XdgConfig(rel) => {
                let base = env.var("XDG_CONFIG_HOME").or_else(|| env.home().map(|h| h.join(".config")))?;
                Some(base.join(rel))
            }
        }
    }
}

/// One agent tool Skilldeck knows how to deliver skills to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KnownTool {
    /// The stable id used on the command line and in config.toml (`[targets.<id>]`).
    pub id: &'static str,
    /// The name shown to people.
    pub name: &'static str,
    /// The tool counts as installed when this folder exists.
    pub detect: PathRule,
    /// Its user-level skills folder.
    pub user: PathRule,
    /// Its project-level skills folders, relative to the project.
    pub project: &'static [&'static str],
    /// The environment variables that move its folders.
    pub env: &'static [&'static str],
    /// The other targets whose folders this agent reads too (`agents`: the shared
    /// `.agents/skills` folders; `claude-code`: `.claude/skills`), as its own documentation or
    /// source says: one skill in two of them reaches it twice.
    pub also: &'static [&'static str],
}

/// Every known tool, in the order they are listed.
pub const KNOWN: &[KnownTool] = &[
    // Claude Code: "Personal ~/.claude/skills/<name>/SKILL.md; Project .claude/skills/<name>/SKILL.md"
    // (code.claude.com/docs/en/skills; confirmed from pages quoting it). CLAUDE_CONFIG_DIR moves
    // ~/.claude (Claude Code's settings/env-var docs; not re-found in this search).
    KnownTool {
        id: "claude-code",
        name: "Claude Code",
        detect: PathRule::EnvOrHome { var: "CLAUDE_CONFIG_DIR", home_rel: ".claude", sub: "" },
        user: PathRule::EnvOrHome { var: "CLAUDE_CONFIG_DIR", home_rel: ".claude", sub: "skills" },
        project: &[".claude/skills"],
        env: &["CLAUDE_CONFIG_DIR"],
        also: &[],
    },
    // Codex: skills in $CODEX_HOME/skills (default ~/.codex/skills), and at repo scope
    // .agents/skills (developers.openai.com/codex/skills; confirmed: openai/codex docs and the
    // discussion #9682 / just-every/code#540 quoting "USER $HOME/.agents/skills, REPO .agents/skills",
    // with ~/.codex/skills kept for compatibility). Source: `skill_roots_from_layer_stack_inner`
    // and `repo_agents_skill_roots` in codex-rs/core-skills/src/loader.rs read $CODEX_HOME/skills,
    // ~/.agents/skills and every .agents/skills from the project root down to the working folder
    // (plus its own system skills, see budget/own.rs): so it also reads the `agents` folders.
    KnownTool {
        id: "codex",
        name: "Codex",
        detect: PathRule::EnvOrHome { var: "CODEX_HOME", home_rel: ".codex", sub: "" },
        user: PathRule::EnvOrHome { var: "CODEX_HOME", home_rel: ".codex", sub: "skills" },
        project: &[".agents/skills"],
        env: &["CODEX_HOME"],
        also: &["agents"],
    },
    // The cross-agent folders ~/.agents/skills and <project>/.agents/skills, read by Codex,
    // Gemini CLI, OpenCode, GitHub Copilot, Cursor and Windsurf (confirmed in opencode.ai/docs/skills,
    // geminicli.com/docs/cli/using-agent-skills, docs.github.com .../add-skills).
    KnownTool {
        id: "agents",
        name: "Cross-agent (.agents)",
        detect: PathRule::Home(".agents"),
        user: PathRule::Home(".agents/skills"),
        project: &[".agents/skills"],
        env: &[],
        also: &[],
    },
    // Cursor: ~/.cursor/skills and .cursor/skills (cursor.com/docs/context/skills describes
    // discovery; the paths were confirmed only from pages quoting it, e.g. brooks-lint's setup).
    KnownTool {
        id: "cursor",
        name: "Cursor",
        detect: PathRule::Home(".cursor"),
        user: PathRule::Home(".cursor/skills"),
        project: &[".cursor/skills"],
        env: &[],
        also: &[],
    },
    // Gemini CLI: "User Skills ~/.gemini/skills/ … Workspace Skills .gemini/skills/"
    // (geminicli.com/docs/cli/using-agent-skills; confirmed). It also reads the `.agents/skills`
    // alias at both levels (`SkillManager.discoverSkills` in packages/core/src/skills/
    // skillManager.ts of google-gemini/gemini-cli: `getUserAgentSkillsDir`,
    // `getProjectAgentSkillsDir`).
    KnownTool {
        id: "gemini-cli",
        name: "Gemini CLI",
        detect: PathRule::Home(".gemini"),
        user: PathRule::Home(".gemini/skills"),
        project: &[".gemini/skills"],
        env: &[],
        also: &["agents"],
    },
    // OpenCode: "Global config ~/.config/opencode/skills/<name>/SKILL.md; Project config
    // .opencode/skills/<name>/SKILL.md" (opencode.ai/docs/skills; confirmed). XDG_CONFIG_HOME
    // moving ~/.config follows OpenCode's XDG layout (not stated on that page). The same page's
    // "Discovery" table: "Global compatibility ~/.claude/skills, ~/.agents/skills … Project
    // compatibility .claude/skills, .agents/skills": it also reads Claude Code's and the shared
    // folders.
    KnownTool {
        id: "opencode",
        name: "OpenCode",
        detect: PathRule::XdgConfig("opencode"),
        user: PathRule::XdgConfig("opencode/skills"),
        project: &[".opencode/skills"],
        env: &["XDG_CONFIG_HOME"],
        also: &["claude-code", "agents"],
    },
    // GitHub Copilot: project .github/skills (or .claude/skills, .agents/skills), personal
    // ~/.copilot/skills (docs.github.com/en/copilot/.../add-skills; confirmed). It reads all
    // three at each level: "project skills … .github/skills, .claude/skills, or .agents/skills
    // … personal skills … ~/.copilot/skills, ~/.claude/skills, or ~/.agents/skills"
    // (docs.github.com/en/copilot/how-tos/use-copilot-agents/cloud-agent/create-skills).
    KnownTool {
        id: "github-copilot",
        name: "GitHub Copilot",
        detect: PathRule::Home(".copilot"),
        user: PathRule::Home(".copilot/skills"),
        project: &[".github/skills"],
        env: &[],
        also: &["claude-code", "agents"],
    },
    // Windsurf: project .windsurf/skills, user ~/.codeium/windsurf/skills (not ~/.windsurf)
    // (docs.windsurf.com/windsurf/cascade/skills; confirmed from pages quoting it).
    KnownTool {
        id: "windsurf",
        name: "Windsurf",
        detect: PathRule::Home(".codeium/windsurf"),
        user: PathRule::Home(".codeium/windsurf/skills"),
        project: &[".windsurf/skills"],
        env: &[],
        also: &[],
    },
    // Goose: global ~/.config/goose/skills (block.github.io/goose/docs/guides/context-engineering/
    // using-skills; confirmed). Project .goose/skills: from dyoshikawa/rulesync#1115; the docs
    // excerpt found was cut off before the project paths, so not confirmed there.
    KnownTool {
        id: "goose",
        name: "Goose",
        detect: PathRule::XdgConfig("goose"),
        user: PathRule::XdgConfig("goose/skills"),
        project: &[".goose/skills"],
        env: &["XDG_CONFIG_HOME"],
        also: &[],
    },
    // Cline: project .cline/skills (or .clinerules/skills), global ~/.cline/skills
    // (docs.cline.bot/customization/skills "Where skills live"; confirmed).
    KnownTool {
        id: "cline",
        name: "Cline",
        detect: PathRule::Home(".cline"),
        user: PathRule::Home(".cline/skills"),
        project: &[".cline/skills"],
        env: &[],
        also: &[],
    },
    // Roo Code: project .roo/skills (docs.roocode.com/features/skills; confirmed), global
    // ~/.roo/skills (RooCodeInc/Roo-Code#10513; the docs page excerpt did not show it).
    KnownTool {
        id: "roo-code",
        name: "Roo Code",
        detect: PathRule::Home(".roo"),
        user: PathRule::Home(".roo/skills"),
        project: &[".roo/skills"],
        env: &[],
        also: &[],
    },
    // Kilo Code: ~/.kilocode/skills and .kilocode/skills. kilo.ai/docs/features/skills was
    // found but its excerpt named no folders: NOT confirmed.
    KnownTool {
        id: "kilo-code",
        name: "Kilo Code",
        detect: PathRule::Home(".kilocode"),
        user: PathRule::Home(".kilocode/skills"),
        project: &[".kilocode/skills"],
        env: &[],
        also: &[],
    },
];

/// The known tool with this id.
pub fn by_id(id: &str) -> Option<&'static KnownTool> {
    KNOWN.iter().find(|t| t.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn twelve_or_more_tools_with_unique_ids() {
        assert!(KNOWN.len() >= 12);
        let mut ids: Vec<&str> = KNOWN.iter().map(|t| t.id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), KNOWN.len());
    }

    #[test]
    fn the_folders_an_agent_also_reads_are_known_targets() {
        for t in KNOWN {
            for other in t.also {
                assert!(by_id(other).is_some() && *other != t.id, "{} also reads {other}", t.id);
            }
        }
        assert_eq!(by_id("github-copilot").map(|t| t.also), Some(&["claude-code", "agents"][..]));
        assert_eq!(by_id("claude-code").map(|t| t.also), Some(&[][..]), "Claude Code reads no .agents/skills");
    }

    #[test]
    fn env_overrides_move_the_folders() {
        let env = Env::with_home("/h");
        let claude = by_id("claude-code").map(|t| t.user.resolve(&env));
        assert_eq!(claude, Some(Some(PathBuf::from("/h/.claude/skills"))));
        let env = env.var_set("CLAUDE_CONFIG_DIR", "/c").var_set("CODEX_HOME", "/x").var_set("XDG_CONFIG_HOME", "/cfg");
        let user = |id: &str| by_id(id).and_then(|t| t.user.resolve(&env));
        assert_eq!(user("claude-code").as_deref(), Some(Path::new("/c/skills")));
        assert_eq!(user("codex").as_deref(), Some(Path::new("/x/skills")));
        assert_eq!(user("opencode").as_deref(), Some(Path::new("/cfg/opencode/skills")));
        assert_eq!(user("agents").as_deref(), Some(Path::new("/h/.agents/skills")));
    }
}
