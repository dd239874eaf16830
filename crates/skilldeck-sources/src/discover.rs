//! Skills found in a written tree, where agents and publishers put them: a root `SKILL.md`,
//! `skills/*/`, `.claude/skills/*/`, `.agents/skills/*/`, `plugins/*/skills/*/`, the plugins of a
//! `.claude-plugin/marketplace.json`, and a bounded search for any other folder holding a
//! `SKILL.md`. It reads only the tree it is given: no network, no Git, no writes.
//!
//! A folder found by the search is not searched further: a skill inside another skill's folder
//! counts as part of the outer one, unless it stands in one of the known locations above.

use std::collections::BTreeSet;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// Bounds of the search for skills outside the known locations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DiscoverOptions {
    /// How deep below the root to look (the root is depth 0).
    pub max_depth: usize,
    /// How many skill folders to find before stopping.
    pub max_skills: usize,
}

impl Default for DiscoverOptions {
    /// Depth 6, at most 5,000 skills.
    fn default() -> Self {
        Self { max_depth: 6, max_skills: 5000 }
    }
}

/// What a tree holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Discovery {
    /// The skills, sorted by path.
    pub skills: Vec<Found>,
    /// The plugins of `.claude-plugin/marketplace.json`, in its order.
    pub plugins: Vec<Plugin>,
    /// Its plugins whose skills live in another repository, in its order.
    pub elsewhere: Vec<RemotePlugin>,
    /// What could not be read or followed, sorted.
    pub problems: Vec<DiscoveryProblem>,
}

/// A marketplace plugin whose skills live in another Git repository
/// (`{"source": "github", "repo": …}` or `{"source": "url", "url": …}`, with `ref` or `sha`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemotePlugin {
    /// Its name.
    pub name: String,
    /// Its description, if any.
    pub description: Option<String>,
    /// The repository, as `skilldeck add` takes it (`owner/repo`, a Git URL).
    pub source: String,
    /// The commit (`sha`) or else the branch or tag (`ref`) the marketplace pins it to.
    pub reference: Option<String>,
}

impl RemotePlugin {
    /// The plugin at `source` (a marketplace entry's `source` object), when it is a Git
    /// repository Skilldeck can fetch. Claude Code's plugin marketplaces documentation names
    /// the shapes: `github` with `repo`, `url` with a Git `url`, each with an optional `ref`
    /// and `sha` (the commit, which wins); `git-subdir` and `npm` are not followed.
    /// A `url` whose scheme a marketplace may not name (anything but `https://` and `http://`:
    /// `file://` would read this computer's repositories, `ssh://` and `git@host:` would present
    /// the user's SSH keys to a host the marketplace chose) is `Err` with that URL, credentials
    /// hidden.
    fn of(name: &str, description: Option<&str>, source: &serde_json::Value) -> Option<Result<Self, String>> {
        let text =
            |key: &str| source.get(key).and_then(serde_json::Value::as_str).map(str::trim).filter(|v| !v.is_empty());
        let shorthand = |r: &&str| {
            let parts: Vec<&str> = r.split('/').collect();
            parts.len() == 2
                && parts.iter().all(|p| {
                    !p.is_empty()
                        && !p.starts_with('.')
                        && p.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
                })
        };
        let repo = match text("source")? {
            "github" => text("repo").filter(shorthand)?,
            "url" => {
                let url = text("url").filter(|u| u.contains("://") || u.starts_with("git@") || u.contains(':'))?;
                let scheme = url.split_once("://").map(|(scheme, _)| scheme.to_ascii_lowercase());
                if !matches!(scheme.as_deref(), Some("https" | "http")) {
                    return Some(Err(crate::redact::url(url)));
                }
                url
            }
            _ => return None,
        };
        Some(Ok(Self {
            name: name.to_owned(),
            description: description.map(str::to_owned),
            source: repo.to_owned(),
            reference: text("sha").or_else(|| text("ref")).map(str::to_owned),
        }))
    }
}

/// One skill folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// The frontmatter's `name` when readable, else the folder's name.
    pub name: String,
    /// Its path inside the tree, `/`-separated; `.` for the root.
    pub path: String,
    /// Its folder on disk.
    pub dir: PathBuf,
}

/// A plugin of a marketplace: a named group of skills.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plugin {
    /// The plugin's name.
    pub name: String,
    /// Its description, if any.
    pub description: Option<String>,
    /// Paths of its skills inside the tree (as in [`Found::path`]), sorted.
    pub skills: Vec<String>,
}

/// Something in the tree that discovery could not read or follow.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct DiscoveryProblem {
    /// The path inside the tree it is about.
    pub path: String,
    /// What is wrong.
    pub kind: DiscoveryProblemKind,
}

/// What discovery could not read or follow.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum DiscoveryProblemKind {
    /// `marketplace.json` is not valid JSON of the marketplace shape.
    BadMarketplace {
        /// What the parser said.
        reason: String,
    },
    /// A plugin whose source is elsewhere (a GitHub repository, a Git URL, a package): its
    /// skills are not in this tree.
    RemotePlugin {
        /// The plugin's name.
        plugin: String,
        /// Where it lives, as `skilldeck add` takes it, when that is a Git repository.
        source: Option<String>,
    },
    /// A plugin in another repository at an address of a kind a marketplace may not name
    /// (`file://`, `ssh://`, `git@host:`…; only `https://` and `http://` are followed).
    SchemeRefused {
        /// The plugin's name.
        plugin: String,
        /// The address it names, credentials hidden.
        url: String,
    },
    /// A plugin path that climbs out of the tree.
    PathLeavesTree {
        /// The plugin's name.
        plugin: String,
    },
    /// A skill a plugin names that has no `SKILL.md`.
    MissingSkill {
        /// The plugin's name.
        plugin: String,
    },
    /// The search stopped at the limit; more skills may exist.
    TooManySkills {
        /// The limit.
        limit: usize,
    },
    /// A symbolic link whose target is outside the skill that holds it.
    SymlinkLeavesSkill {
        /// The link's target.
        target: String,
        /// The skill's path.
        skill: String,
    },
}

/// Folders under which each subfolder may be a skill.
const SKILL_PARENTS: [&str; 3] = ["skills", ".claude/skills", ".agents/skills"];

/// Folders the search never enters.
const SKIPPED: [&str; 3] = [".git", "node_modules", "__pycache__"];

/// Hidden folders the search does enter.
const HIDDEN_ALLOWED: [&str; 3] = [".claude", ".agents", ".claude-plugin"];

/// Finds the skills under `root`.
pub fn discover(root: &Path, opts: &DiscoverOptions) -> Discovery {
    let mut found: BTreeSet<String> = BTreeSet::new();
    let mut problems = Vec::new();
    if root.join("SKILL.md").is_file() {
        found.insert(".".into());
    }
    for parent in SKILL_PARENTS {
        found.extend(skill_children(root, parent));
    }
    for plugin in subdirs(root, "plugins") {
        found.extend(skill_children(root, &format!("{plugin}/skills")));
    }
    let (plugins, elsewhere) = marketplace(root, &mut found, &mut problems);
    // A skill at the root holds the whole tree: only the known locations count beside it.
    if !found.contains(".") {
        search(root, opts, &mut found, &mut problems);
    }
    let skills = found
        .into_iter()
        .map(|path| {
            let dir = if path == "." { root.to_path_buf() } else { root.join(&path) };
            let name = skill_name(&dir).unwrap_or_else(|| {
                let folder = if path == "." { root.file_name() } else { Path::new(&path).file_name() };
                folder.map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
            });
            Found { name, path, dir }
        })
        .collect();
    problems.sort();
    problems.dedup();
    Discovery { skills, plugins, elsewhere, problems }
}

impl Discovery {
    /// The skill whose folder holds `path` (a `/`-separated path inside the tree), innermost first.
    pub fn skill_holding(&self, path: &str) -> Option<&Found> {
        self.skills
            .iter()
            .filter(|s| s.path == "." || path.starts_with(&format!("{}/", s.path)))
            .max_by_key(|s| if s.path == "." { 0 } else { s.path.len() })
    }

    /// Of the symbolic links `(path, target)` in the tree (not written, so not seen by
    /// [`discover`]), those whose target lies outside the skill holding them.
    pub fn symlinks_leaving_skills<'a>(
        &self,
        links: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Vec<DiscoveryProblem> {
        let mut out: Vec<DiscoveryProblem> = links
            .into_iter()
            .filter_map(|(path, target)| {
                let skill = self.skill_holding(path)?;
                let base = if skill.path == "." { "" } else { skill.path.as_str() };
                crate::git::link_leaves(path, target, base).then(|| DiscoveryProblem {
                    path: path.to_string(),
                    kind: DiscoveryProblemKind::SymlinkLeavesSkill {
                        target: target.to_string(),
                        skill: skill.path.clone(),
                    },
                })
            })
            .collect();
        out.sort();
        out
    }
}

/// Subfolders of `root/parent` holding a `SKILL.md`, as tree paths.
fn skill_children(root: &Path, parent: &str) -> Vec<String> {
    subdirs(root, parent).into_iter().filter(|path| root.join(path).join("SKILL.md").is_file()).collect()
}

/// Subfolders of `root/parent` (not symlinks), as tree paths.
fn subdirs(root: &Path, parent: &str) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(root.join(parent)) else { return Vec::new() };
    entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| e.file_name().to_str().map(|name| format!("{parent}/{name}")))
        .collect()
}

/// The bounded search: folders holding a `SKILL.md`, not entering those already found.
fn search(root: &Path, opts: &DiscoverOptions, found: &mut BTreeSet<String>, problems: &mut Vec<DiscoveryProblem>) {
    let mut stack: Vec<(String, usize)> = vec![(String::new(), 0)];
    while let Some((path, depth)) = stack.pop() {
        let dir = if path.is_empty() { root.to_path_buf() } else { root.join(&path) };
        if !path.is_empty() && (found.contains(&path) || dir.join("SKILL.md").is_file()) {
            if found.len() >= opts.max_skills && !found.contains(&path) {
                problems.push(DiscoveryProblem {
                    path: ".".into(),
                    kind: DiscoveryProblemKind::TooManySkills { limit: opts.max_skills },
                });
                return;
            }
            found.insert(path);
            continue;
        }
        if depth >= opts.max_depth {
            continue;
        }
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            if !entry.file_type().is_ok_and(|t| t.is_dir()) {
                continue;
            }
            let Some(name) = entry.file_name().to_str().map(str::to_string) else { continue };
            if SKIPPED.contains(&name.as_str()) || (name.starts_with('.') && !HIDDEN_ALLOWED.contains(&name.as_str())) {
                continue;
            }
            let child = if path.is_empty() { name } else { format!("{path}/{name}") };
            stack.push((child, depth + 1));
        }
    }
}

/// A skill's `name` from its frontmatter, reading at most 64 KiB.
fn skill_name(dir: &Path) -> Option<String> {
    let mut text = String::new();
    std::fs::File::open(dir.join("SKILL.md")).ok()?.take(64 << 10).read_to_string(&mut text).ok()?;
    let split = skilldeck_skill::frontmatter::split(&text).ok()?;
    let parsed = skilldeck_skill::frontmatter::parse_yaml(&split, false).ok()?;
    let name = parsed.fields.get("name")?.as_str()?.trim().to_string();
    (!name.is_empty()).then_some(name)
}

/// `.claude-plugin/marketplace.json` as far as skills go.
#[derive(Deserialize)]
struct Marketplace {
    #[serde(default)]
    plugins: Vec<MarketplacePlugin>,
    #[serde(default)]
    metadata: Option<MarketplaceMetadata>,
}

#[derive(Deserialize)]
struct MarketplaceMetadata {
    #[serde(default, rename = "pluginRoot")]
    plugin_root: Option<String>,
}

#[derive(Deserialize)]
struct MarketplacePlugin {
    name: String,
    #[serde(default)]
    description: Option<String>,
    source: serde_json::Value,
    #[serde(default)]
    skills: Option<Vec<String>>,
}

/// The plugins of the tree's marketplace, adding their skills to `found`.
fn marketplace(
    root: &Path,
    found: &mut BTreeSet<String>,
    problems: &mut Vec<DiscoveryProblem>,
) -> (Vec<Plugin>, Vec<RemotePlugin>) {
    const FILE: &str = ".claude-plugin/marketplace.json";
    let Ok(text) = std::fs::read_to_string(root.join(FILE)) else { return (Vec::new(), Vec::new()) };
    let market: Marketplace = match serde_json::from_str(&text) {
        Ok(market) => market,
        Err(e) => {
            problems.push(DiscoveryProblem {
                path: FILE.into(),
                kind: DiscoveryProblemKind::BadMarketplace { reason: e.to_string() },
            });
            return (Vec::new(), Vec::new());
        }
    };
    let plugin_root = market.metadata.and_then(|m| m.plugin_root).unwrap_or_default();
    let mut plugins = Vec::new();
    let mut elsewhere = Vec::new();
    for plugin in market.plugins {
        let problem = |kind| DiscoveryProblem { path: FILE.into(), kind };
        let source = match &plugin.source {
            serde_json::Value::String(source)
                if source.starts_with("./") || source.starts_with("../") || source == "." =>
            {
                normalize(&[plugin_root.as_str(), source.as_str()])
            }
            serde_json::Value::String(source) => {
                normalize(&[plugin_root.as_str(), source.as_str()]).filter(|_| !source.contains("://"))
            }
            _ => {
                let kind = match RemotePlugin::of(&plugin.name, plugin.description.as_deref(), &plugin.source) {
                    Some(Ok(remote)) => {
                        let source = Some(remote.source.clone());
                        elsewhere.push(remote);
                        DiscoveryProblemKind::RemotePlugin { plugin: plugin.name.clone(), source }
                    }
                    Some(Err(url)) => DiscoveryProblemKind::SchemeRefused { plugin: plugin.name.clone(), url },
                    None => DiscoveryProblemKind::RemotePlugin { plugin: plugin.name.clone(), source: None },
                };
                problems.push(problem(kind));
                continue;
            }
        };
        let Some(base) = source else {
            problems.push(problem(DiscoveryProblemKind::PathLeavesTree { plugin: plugin.name.clone() }));
            continue;
        };
        let mut skills = Vec::new();
        match &plugin.skills {
            Some(list) => {
                for entry in list {
                    let Some(mut path) = normalize(&[base.as_str(), entry.as_str()]) else {
                        problems.push(problem(DiscoveryProblemKind::PathLeavesTree { plugin: plugin.name.clone() }));
                        continue;
                    };
                    if let Some(parent) = path.strip_suffix("/SKILL.md").or_else(|| (path == "SKILL.md").then_some("."))
                    {
                        path = parent.to_string();
                    }
                    if tree_path(root, &path).join("SKILL.md").is_file() {
                        skills.push(path);
                    } else {
                        problems.push(DiscoveryProblem {
                            path,
                            kind: DiscoveryProblemKind::MissingSkill { plugin: plugin.name.clone() },
                        });
                    }
                }
            }
            None => {
                let parent = if base == "." { "skills".to_string() } else { format!("{base}/skills") };
                skills = skill_children(root, &parent);
            }
        }
        skills.sort();
        skills.dedup();
        found.extend(skills.iter().cloned());
        plugins.push(Plugin { name: plugin.name, description: plugin.description, skills });
    }
    (plugins, elsewhere)
}

fn tree_path(root: &Path, path: &str) -> PathBuf {
    if path == "." { root.to_path_buf() } else { root.join(path) }
}

/// `parts` joined and normalised as a tree path (`.` for the root); `None` if it climbs out.
fn normalize(parts: &[&str]) -> Option<String> {
    let mut out: Vec<&str> = Vec::new();
    for part in parts {
        if part.starts_with('/') {
            return None;
        }
        for segment in part.split(['/', '\\']) {
            match segment {
                "" | "." => {}
                ".." => {
                    out.pop()?;
                }
                other => out.push(other),
            }
        }
    }
    Some(if out.is_empty() { ".".into() } else { out.join("/") })
}
