//! Changes to the `[targets.NAME]` tables of config.toml made by the app's Agents view (a skill
//! switched on or off for one tool, auto-sync, copy or link, the tool itself on or off),
//! written in place.
//! The user's comments, layout and other tables are kept (toml_edit); a file that does not
//! read is reported, never rewritten; a change that would leave it unreadable is never written.

use crate::config::TargetsConfig;
use crate::error::TargetError;
use skilldeck_store::config_file;
use std::path::Path;
use toml_edit::{Array, DocumentMut, Item, Table, Value};

/// Switches skill `skill` on or off for target `target`. With a `skills` list the list gains or
/// loses it; otherwise the `exclude` list does (and, for a target taking skills by `tags`, a
/// skill switched on is named in `skills`). Returns whether the file changed.
pub fn set_skill(path: &Path, target: &str, skill: &str, on: bool) -> Result<bool, TargetError> {
    edit(path, target, |t| {
        let listed = t.get("skills").and_then(Item::as_array).is_some();
        let by_tag = t.get("tags").and_then(Item::as_array).is_some_and(|a| !a.is_empty());
        if on {
            remove(t, "exclude", skill);
            // With a `skills` list, or `tags` that may not cover it, the skill is named.
            if listed || by_tag {
                add(t, "skills", skill);
            }
        } else if listed {
            remove(t, "skills", skill);
        } else {
            add(t, "exclude", skill);
        }
    })
}

/// Follows skill `from` renamed to `new` (`skilldeck rename`) in every `[targets.NAME]` table:
/// in `skills` and `exclude` the old name becomes the new one (once), each value's comments
/// kept. Returns the targets whose table changed, sorted.
pub fn rename_skill(path: &Path, from: &str, new: &str) -> Result<Vec<String>, TargetError> {
    let shown = path.display().to_string();
    let mut changed = Vec::new();
    config_file::edit::<TargetError>(path, |text| {
        TargetsConfig::parse(text, &shown)?;
        let mut doc: DocumentMut = text.parse().map_err(|e: toml_edit::TomlError| TargetError::Config {
            path: shown.clone(),
            message: e.message().to_owned(),
        })?;
        let Some(targets) = doc.get_mut("targets").and_then(Item::as_table_mut) else { return Ok(None) };
        for (target, item) in targets.iter_mut() {
            let Some(table) = item.as_table_mut() else { continue };
            let mut hit = false;
            for key in ["skills", "exclude"] {
                let Some(list) = table.get_mut(key).and_then(Item::as_array_mut) else { continue };
                if !list.iter().any(|v| v.as_str() == Some(from)) {
                    continue;
                }
                hit = true;
                if list.iter().any(|v| v.as_str() == Some(new)) {
                    list.retain(|v| v.as_str() != Some(from));
                    continue;
                }
                for v in list.iter_mut().filter(|v| v.as_str() == Some(from)) {
                    let decor = v.decor().clone();
                    *v = Value::from(new);
                    *v.decor_mut() = decor;
                }
            }
            if hit {
                changed.push(target.get().to_owned());
            }
        }
        let out = doc.to_string();
        if out == text {
            return Ok(None);
        }
        TargetsConfig::parse(&out, &shown)?;
        Ok(Some(out))
    })?;
    changed.sort();
    Ok(changed)
}

/// Sets `auto = true|false` for `target`. Returns whether the file changed.
pub fn set_auto(path: &Path, target: &str, on: bool) -> Result<bool, TargetError> {
    edit(path, target, |t| {
        t.insert("auto", Item::Value(Value::from(on)));
    })
}

/// Sets `mode = "copy"|"link"` for `target`: how its skills are delivered from the next sync.
/// Returns whether the file changed.
pub fn set_mode(path: &Path, target: &str, mode: crate::record::Mode) -> Result<bool, TargetError> {
    edit(path, target, |t| {
        t.insert("mode", Item::Value(Value::from(mode.as_str())));
    })
}

/// Sets `enabled = true|false` for `target`. Returns whether the file changed.
pub fn set_enabled(path: &Path, target: &str, on: bool) -> Result<bool, TargetError> {
    edit(path, target, |t| {
        t.insert("enabled", Item::Value(Value::from(on)));
    })
}

/// Sets `over_budget = true` for `target` (every chosen skill delivered there even past its
/// listing's budget), or removes it (`false`: deliver what fits). Returns whether the file
/// changed.
pub fn set_over_budget(path: &Path, target: &str, on: bool) -> Result<bool, TargetError> {
    edit(path, target, |t| {
        if on {
            t.insert("over_budget", Item::Value(Value::from(true)));
        } else {
            t.remove("over_budget");
        }
    })
}

/// Sets `context_window = tokens` for `target` (what its listing budget is a share of), or
/// removes it (`None`: the tool's default again). Returns whether the file changed.
pub fn set_context_window(path: &Path, target: &str, tokens: Option<u64>) -> Result<bool, TargetError> {
    let tokens = tokens.map(i64::try_from).transpose().map_err(|_| TargetError::Config {
        path: path.display().to_string(),
        message: "the context window is too large; give a number of tokens such as 200000".to_owned(),
    })?;
    edit(path, target, |t| match tokens {
        Some(n) => {
            t.insert("context_window", Item::Value(Value::from(n)));
        }
        None => {
            t.remove("context_window");
        }
    })
}

fn add(t: &mut Table, key: &str, skill: &str) {
    let item = t.entry(key).or_insert(Item::Value(Value::Array(Array::new())));
    if let Some(a) = item.as_array_mut()
        && !a.iter().any(|v| v.as_str() == Some(skill))
    {
        a.push(skill);
    }
}

fn remove(t: &mut Table, key: &str, skill: &str) {
    if let Some(a) = t.get_mut(key).and_then(Item::as_array_mut) {
        a.retain(|v| v.as_str() != Some(skill));
    }
}

/// Applies `change` to `[targets.<target>]` (made when missing), keeping everything else. The
/// file must read before and after, or nothing is written. Returns whether it changed.
fn edit(path: &Path, target: &str, change: impl FnOnce(&mut Table)) -> Result<bool, TargetError> {
    let shown = path.display().to_string();
    let invalid = |message: String| TargetError::Config { path: shown.clone(), message };
    // Read, changed and written under config.toml's writers' lock (`config_file::edit`).
    config_file::edit(path, |text| {
        TargetsConfig::parse(text, &shown)?;
        let mut doc: DocumentMut = text.parse().map_err(|e: toml_edit::TomlError| invalid(e.message().to_owned()))?;
        let targets = doc.entry("targets").or_insert_with(|| {
            let mut t = Table::new();
            t.set_implicit(true);
            Item::Table(t)
        });
        let targets = targets.as_table_mut().ok_or_else(|| invalid("`targets` must be a table".to_owned()))?;
        let table = targets
            .entry(target)
            .or_insert_with(|| Item::Table(Table::new()))
            .as_table_mut()
            .ok_or_else(|| invalid(format!("`targets.{target}` must be a table")))?;
        change(table);
        let out = doc.to_string();
        if out == text {
            return Ok(None);
        }
        TargetsConfig::parse(&out, &shown)?;
        Ok(Some(out))
    })
}

impl From<config_file::ConfigFileError> for TargetError {
    fn from(e: config_file::ConfigFileError) -> Self {
        TargetError::io(e.action, &e.path)(e.source)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(text: &str) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap_or_else(|e| unreachable!("{e}"));
        let path = dir.path().join("config.toml");
        std::fs::write(&path, text).unwrap_or_else(|e| unreachable!("{e}"));
        (dir, path)
    }

    fn read(path: &Path) -> String {
        std::fs::read_to_string(path).unwrap_or_default()
    }

    #[test]
    fn switching_a_skill_off_keeps_comments_and_other_tables() {
        let (_d, path) = file("# mine\ndefault_provider = \"offline\" # keep\n[listing]\nbudget_tokens = 900\n");
        assert!(set_skill(&path, "claude-code", "pdf", false).unwrap_or(false));
        let text = read(&path);
        assert!(
            text.starts_with("# mine\ndefault_provider = \"offline\" # keep\n[listing]\nbudget_tokens = 900\n"),
            "{text}"
        );
        let c = TargetsConfig::parse(&text, "c").unwrap_or_default();
        assert_eq!(c.targets["claude-code"].exclude.as_deref(), Some(&["pdf".to_owned()][..]));
        assert!(set_skill(&path, "claude-code", "pdf", true).unwrap_or(false));
        let c = TargetsConfig::parse(&read(&path), "c").unwrap_or_default();
        assert_eq!(c.targets["claude-code"].exclude.as_deref(), Some(&[][..]));
        assert!(!set_skill(&path, "claude-code", "pdf", true).unwrap_or(true), "nothing to change");
    }

    #[test]
    fn a_skills_list_gains_and_loses_the_skill() {
        let (_d, path) = file("[targets.cursor]\nskills = [\"a\"]\n");
        assert!(set_skill(&path, "cursor", "b", true).unwrap_or(false));
        assert!(set_skill(&path, "cursor", "a", false).unwrap_or(false));
        let c = TargetsConfig::parse(&read(&path), "c").unwrap_or_default();
        assert_eq!(c.targets["cursor"].skills.as_deref(), Some(&["b".to_owned()][..]));
        assert_eq!(c.targets["cursor"].exclude, None);
    }

    #[test]
    fn a_skill_switched_on_for_a_target_taking_tags_is_named() {
        let (_d, path) = file("[targets.cursor]\ntags = [\"review\"]\n");
        assert!(set_skill(&path, "cursor", "pdf", true).unwrap_or(false));
        let c = TargetsConfig::parse(&read(&path), "c").unwrap_or_default();
        assert_eq!(c.targets["cursor"].skills.as_deref(), Some(&["pdf".to_owned()][..]));
    }

    #[test]
    fn auto_and_enabled_are_set() {
        let (_d, path) = file("");
        assert!(set_auto(&path, "codex", true).unwrap_or(false));
        assert!(set_enabled(&path, "codex", false).unwrap_or(false));
        assert!(set_mode(&path, "codex", crate::record::Mode::Link).unwrap_or(false));
        let c = TargetsConfig::parse(&read(&path), "c").unwrap_or_default();
        assert_eq!((c.targets["codex"].auto, c.targets["codex"].enabled), (Some(true), Some(false)));
        assert_eq!(c.targets["codex"].mode, Some(crate::record::Mode::Link));
    }

    #[test]
    fn the_context_window_is_set_and_taken_back_keeping_comments() {
        let (_d, path) = file("# mine\n[targets.codex] # the tool\nauto = true\n");
        assert!(set_context_window(&path, "codex", Some(1_000_000)).unwrap_or(false));
        let text = read(&path);
        assert!(text.starts_with("# mine\n[targets.codex] # the tool\nauto = true\n"), "{text}");
        let c = TargetsConfig::parse(&text, "c").unwrap_or_default();
        assert_eq!(c.targets["codex"].context_window, Some(1_000_000));
        assert!(set_context_window(&path, "codex", None).unwrap_or(false));
        assert_eq!(read(&path), "# mine\n[targets.codex] # the tool\nauto = true\n");
    }

    #[test]
    fn a_target_that_is_neither_a_known_tool_nor_configured_is_refused_and_nothing_written() {
        let (_d, path) = file("# mine\n");
        assert!(matches!(set_auto(&path, "no-such-tool", true), Err(TargetError::Config { .. })));
        assert!(matches!(set_skill(&path, "no-such-tool", "pdf", false), Err(TargetError::Config { .. })));
        assert_eq!(read(&path), "# mine\n");
    }

    #[test]
    fn a_broken_file_is_reported_and_left_alone() {
        let (_d, path) = file("[targets\nnot toml");
        assert!(matches!(set_auto(&path, "codex", true), Err(TargetError::Config { .. })));
        assert_eq!(read(&path), "[targets\nnot toml");
    }
}
