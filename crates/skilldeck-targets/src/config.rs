//! The `[targets]` table of config.toml: users' own targets, and per-target choices for the
//! known tools. Other tables in the file are left to their own readers.
//!
//! ```toml
//! [targets.work-notes]          # a folder of your own
//! path = "~/notes/skills"
//! skills = ["commit-messages"]  # only these (default: every enabled valid skill)
//!
//! [targets.cursor]              # a known tool, by its id
//! skills = ["change-review"]
//! tags = ["review"]             # and every skill tagged with one of these
//! exclude = ["drafts"]          # never these
//! auto = true                   # kept in sync as skills change
//! enabled = false               # never sync to it, even when detected (true: even when not)
//!
//! [targets.claude-code]
//! context_window = 1000000      # tokens; sizes the agent's skills listing (`targets --budget`)
//! over_budget = true            # deliver every chosen skill even past the listing's budget
//! ```

use crate::error::TargetError;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One `[targets.NAME]` table.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TargetConfig {
    /// The folder, for a target of the user's own (`~/` is the home folder). Not used for a
    /// known tool's id.
    #[serde(default)]
    pub path: Option<PathBuf>,
    /// Only these skills go there; every enabled valid skill when absent.
    #[serde(default)]
    pub skills: Option<Vec<String>>,
    /// Skills tagged with one of these (frontmatter `tags` or `metadata.tags`) go there too; with
    /// `skills`, a skill named or tagged goes; with neither, every enabled valid skill.
    #[serde(default)]
    pub tags: Option<Vec<String>>,
    /// These skills never go there (the app's per-tool switches write this list).
    #[serde(default)]
    pub exclude: Option<Vec<String>>,
    /// `false`: never synced; `true`: synced even when the tool is not detected.
    #[serde(default)]
    pub enabled: Option<bool>,
    /// `copy` (the default) or `link`: how skills are delivered there.
    #[serde(default)]
    pub mode: Option<crate::record::Mode>,
    /// Synced after every CLI command that changes skills (import, restore, delete, enable,
    /// disable), and by the app when the store changes.
    #[serde(default)]
    pub auto: Option<bool>,
    /// The context window of the model the tool runs, in tokens: what its skills listing's
    /// budget is a share of (`targets --budget`). The tool's default when absent; `0` for
    /// Codex means unknown (its rule then counts 8,000 characters).
    #[serde(default)]
    pub context_window: Option<u64>,
    /// `true`: every chosen skill is delivered there even when the agent's listing then goes
    /// past its budget (descriptions shortened or dropped). By default a sync delivers what
    /// fits (`budget::fit`).
    #[serde(default)]
    pub over_budget: Option<bool>,
}

/// Every `[targets.NAME]` table, by name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TargetsConfig {
    /// The tables.
    pub targets: BTreeMap<String, TargetConfig>,
}

#[derive(Deserialize)]
struct FileShape {
    #[serde(default)]
    targets: BTreeMap<String, TargetConfig>,
}

impl TargetsConfig {
    /// Reads the `[targets]` table of `path`; empty when the file or the table is missing.
    pub fn load(path: &Path) -> Result<Self, TargetError> {
        match std::fs::read_to_string(path) {
            Ok(text) => Self::parse(&text, &path.display().to_string()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Self::default()),
            Err(e) => Err(TargetError::io("read", path)(e)),
        }
    }

    /// Parses the file's text (`shown` names it in messages). A `[targets.NAME]` with neither a
    /// known tool's id nor a `path` is refused.
    pub fn parse(text: &str, shown: &str) -> Result<Self, TargetError> {
        let invalid = |message: String| TargetError::Config { path: shown.to_owned(), message };
        // Only the shape is reported, never a value: the file may hold other tables' secrets.
        let file: FileShape = toml::from_str(text).map_err(|e| invalid(e.message().to_owned()))?;
        for (name, t) in &file.targets {
            if crate::known::by_id(name).is_some() {
                continue;
            }
            match &t.path {
                None => {
                    return Err(invalid(format!(
                        "[targets.{name}] has no `path` and {name:?} is not a known tool; give it a path = \"…\""
                    )));
                }
                Some(p) if !absolute(p) => {
                    return Err(invalid(format!(
                        "[targets.{name}] `path` is empty or relative, so it would depend on the folder skilldeck runs in; write a full path, such as path = \"~/skills\" or path = \"/srv/skills\""
                    )));
                }
                Some(_) => {}
            }
        }
        Ok(Self { targets: file.targets })
    }
}

/// Whether a target's `path` names one folder wherever skilldeck runs: absolute, or under the
/// home folder (`~`, `~/…`).
fn absolute(path: &Path) -> bool {
    path.is_absolute() || path.starts_with("~")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_targets_and_leaves_other_tables_alone() {
        let text = "default_provider = \"offline\"\n[listing]\nbudget_tokens = 9\n[targets.mine]\npath = \"~/s\"\nskills = [\"a\"]\n[targets.cursor]\nenabled = false\n";
        let c = TargetsConfig::parse(text, "config.toml").ok().unwrap_or_default();
        assert_eq!(c.targets.len(), 2);
        assert_eq!(c.targets["mine"].skills.as_deref(), Some(&["a".to_owned()][..]));
        assert_eq!(c.targets["cursor"].enabled, Some(false));
    }

    #[test]
    fn a_custom_targets_path_is_absolute_or_under_home() {
        let parse = |path: &str| TargetsConfig::parse(&format!("[targets.mine]\npath = {path:?}\n"), "config.toml");
        for bad in ["", "skills", "./skills", "../skills", "~skills"] {
            let e = parse(bad).err().map(|e| e.to_string()).unwrap_or_default();
            assert!(e.contains("write a full path"), "{bad:?}: {e}");
        }
        for good in ["/srv/skills", "~", "~/skills"] {
            assert!(parse(good).is_ok(), "{good:?}");
        }
        // A known tool's `path` is not used, so it is not checked.
        assert!(TargetsConfig::parse("[targets.cursor]\npath = \"x\"\n", "config.toml").is_ok());
    }

    #[test]
    fn a_custom_target_needs_a_path() {
        let e = TargetsConfig::parse("[targets.mine]\nskills = []\n", "config.toml");
        assert!(matches!(e, Err(TargetError::Config { .. })));
    }
}
