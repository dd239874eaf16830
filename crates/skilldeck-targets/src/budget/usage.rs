//! Which skills an agent's user actually uses, read from the agent's own session transcripts:
//! Claude Code's `projects/*/*.jsonl` (its Skill tool's `"skill": "NAME"` input, and any
//! `…/skills/NAME/SKILL.md` it read) and Codex's `sessions/**/*.jsonl` (the `SKILL.md` paths it
//! opens). The newest transcripts are read first, at most `MAX_BYTES` in all, so a long history
//! costs a bounded read. Reads only; a transcript that cannot be read is passed over.

use crate::budget::rules::Rule;
use crate::env::Env;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// The most bytes of transcripts read for one agent.
pub const MAX_BYTES: u64 = 32 << 20;

/// How deep below the transcripts' folder files are looked for (Codex: `YYYY/MM/DD/file`).
const MAX_DEPTH: usize = 5;

/// How many times each skill was used in the agent's newest transcripts, by name; empty for an
/// agent whose transcripts Skilldeck does not know how to read, or that has none.
pub fn usage(rule: Rule, env: &Env) -> BTreeMap<String, u32> {
    let Some(root) = transcripts(rule, env) else { return BTreeMap::new() };
    let mut files = Vec::new();
    collect(&root, 0, &mut files);
    // Newest first.
    files.sort_by_key(|f| std::cmp::Reverse(f.0));
    let mut counts = BTreeMap::new();
    let mut read = 0u64;
    for (_, _, path) in files {
        if read >= MAX_BYTES {
            break;
        }
        // At most what is left of the bound, whatever one file holds (a transcript can be huge).
        let Ok(file) = std::fs::File::open(&path) else { continue };
        let mut bytes = Vec::new();
        if std::io::Read::read_to_end(&mut std::io::Read::take(file, MAX_BYTES - read), &mut bytes).is_err() {
            continue;
        }
        read = read.saturating_add(u64::try_from(bytes.len()).unwrap_or(u64::MAX));
        count(&String::from_utf8_lossy(&bytes), &mut counts);
    }
    counts
}

/// The folder holding the agent's transcripts.
fn transcripts(rule: Rule, env: &Env) -> Option<PathBuf> {
    match rule {
        Rule::ClaudeCode => {
            env.var("CLAUDE_CONFIG_DIR").or_else(|| env.home().map(|h| h.join(".claude"))).map(|d| d.join("projects"))
        }
        Rule::Codex => {
            env.var("CODEX_HOME").or_else(|| env.home().map(|h| h.join(".codex"))).map(|d| d.join("sessions"))
        }
        Rule::Gemini => None,
    }
}

/// Every `.jsonl` file below `dir`, with its modification time and size (links not followed).
fn collect(dir: &Path, depth: usize, out: &mut Vec<(SystemTime, u64, PathBuf)>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let Ok(kind) = e.file_type() else { continue };
        let path = e.path();
        if kind.is_dir() && depth < MAX_DEPTH {
            collect(&path, depth + 1, out);
        } else if kind.is_file()
            && path.extension().is_some_and(|x| x == "jsonl")
            && let Ok(m) = e.metadata()
        {
            out.push((m.modified().unwrap_or(SystemTime::UNIX_EPOCH), m.len(), path));
        }
    }
}

/// Counts the skills a transcript's text shows used: a Skill tool call's `"skill":"NAME"`, or a
/// path `…/skills/NAME/SKILL.md` (as written in JSON, where `/` may be escaped as `\/`).
pub fn count(text: &str, counts: &mut BTreeMap<String, u32>) {
    for key in ["\"skill\":\"", "\"skill\": \""] {
        for (at, _) in text.match_indices(key) {
            let rest = &text[at + key.len()..];
            if let Some(end) = rest.find('"') {
                add(&rest[..end], counts);
            }
        }
    }
    for (at, _) in text.match_indices("/SKILL.md") {
        let before = text[..at].trim_end_matches('\\');
        let Some(slash) = before.rfind('/') else { continue };
        let name = &before[slash + 1..];
        if before[..slash].trim_end_matches('\\').ends_with("skills") {
            add(name, counts);
        }
    }
}

/// Counts `name` when it is a valid skill name.
fn add(name: &str, counts: &mut BTreeMap<String, u32>) {
    if skilldeck_skill::SkillName::parse(name).is_ok() {
        *counts.entry(name.to_owned()).or_insert(0) += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skill_tool_calls_and_skill_paths_are_counted() {
        let mut counts = BTreeMap::new();
        let claude = r#"{"type":"tool_use","name":"Skill","input":{"skill":"pdf"}}
{"type":"tool_use","name":"Read","input":{"file_path":"/home/u/.claude/skills/xlsx/SKILL.md"}}
{"type":"tool_use","name":"Skill","input":{"skill": "pdf"}}"#;
        count(claude, &mut counts);
        let codex = r#"{"cmd":"cat /home/u/.agents\/skills\/using-git-worktrees\/SKILL.md","x":"/tmp/notes/SKILL.md"}"#;
        count(codex, &mut counts);
        assert_eq!(counts.get("pdf"), Some(&2));
        assert_eq!(counts.get("xlsx"), Some(&1));
        assert_eq!(counts.get("using-git-worktrees"), Some(&1));
        assert_eq!(counts.get("notes"), None, "a SKILL.md outside a skills folder is not a use");
        let mut odd = BTreeMap::new();
        count(r#"{"skill":"Not A Name"}"#, &mut odd);
        assert!(odd.is_empty());
    }

    #[test]
    fn the_newest_transcripts_are_read_per_agent() {
        let home = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let day = home.path().join(".codex/sessions/2026/12/06");
        std::fs::create_dir_all(&day).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(day.join("rollout-1.jsonl"), "open /h/.codex/skills/xlsx/SKILL.md\n")
            .unwrap_or_else(|e| panic!("{e}"));
        let env = Env::with_home(home.path());
        assert_eq!(usage(Rule::Codex, &env).get("xlsx"), Some(&1));
        assert!(usage(Rule::ClaudeCode, &env).is_empty(), "no Claude Code transcripts here");
    }

    #[test]
    fn a_huge_transcript_is_read_only_up_to_the_bound() {
        let home = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let dir = home.path().join(".claude/projects/p");
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
        let mut text = String::from("{\"skill\":\"early\"}\n");
        text.push_str(&" ".repeat(usize::try_from(MAX_BYTES).unwrap_or(usize::MAX)));
        text.push_str("{\"skill\":\"late\"}\n");
        std::fs::write(dir.join("big.jsonl"), text).unwrap_or_else(|e| panic!("{e}"));
        let counts = usage(Rule::ClaudeCode, &Env::with_home(home.path()));
        assert_eq!(counts.get("early"), Some(&1));
        assert_eq!(counts.get("late"), None, "past the bound, nothing is read");
    }
}
