//! Resolving targets: each known tool (detected or not) and each configured target, with the
//! folders skills go to at user level and, given a project, at project level.

use crate::config::{TargetConfig, TargetsConfig};
use crate::env::Env;
use crate::error::TargetError;
use crate::known::KNOWN;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// Which kind of folder a target folder is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// The tool's user-level folder.
    User,
    /// The tool's folder inside the given project.
    Project,
    /// A folder the user named in config.toml.
    Custom,
}

/// One folder skills are delivered to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct Folder {
    /// The tool id or configured target name it belongs to.
    pub target: String,
    /// User, project or custom.
    pub level: Level,
    /// The folder.
    pub path: PathBuf,
    /// Whether it exists now (as a folder, or a link to one).
    pub exists: bool,
    /// Only these skills go here; `None`: every enabled valid skill. (Shown as `only`: a
    /// folder's report lists the skills found there as `skills`.)
    #[serde(rename = "only", skip_serializing_if = "Option::is_none")]
    pub skills: Option<Vec<String>>,
    /// Skills with one of these tags go here too (see `source::takes`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// These skills never go here.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub exclude: Vec<String>,
    /// How skills are delivered here, when config.toml says (`mode = "link"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<crate::record::Mode>,
    /// Synced after commands that change skills (`auto = true`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub auto: bool,
    /// For a project folder: the project it belongs to, which it must not lead out of.
    #[serde(skip)]
    pub project: Option<PathBuf>,
}

impl Folder {
    /// For a project folder that leads out of its project once links are resolved (a
    /// `.claude/skills` linked to a home folder): the error saying so. Nothing is read or
    /// written there through the project.
    pub fn outside_project(&self) -> Option<TargetError> {
        let project = self.project.as_deref()?;
        let root = std::fs::canonicalize(project).unwrap_or_else(|_| project.to_path_buf());
        let (_, real) = crate::record::folder_id(&self.path);
        (!real.starts_with(&root)).then(|| TargetError::OutsideProject {
            path: self.path.clone(),
            resolved: real,
            project: root,
        })
    }
}

/// A tool or configured target, with its folders.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Target {
    /// The id (`claude-code`) or the configured name.
    pub id: String,
    /// The name shown to people.
    pub name: String,
    /// Whether the tool is installed (its folder exists), or the target is configured.
    pub detected: bool,
    /// Whether `sync` without names goes to it: detected and not switched off, or switched on.
    /// (A project folder that already exists is synced even for a tool not detected here,
    /// unless the tool is switched off.)
    pub active: bool,
    /// Switched off in config.toml (`enabled = false`).
    pub off: bool,
    /// Kept in sync as skills change (`auto = true`).
    pub auto: bool,
    /// Its folders: the user-level one, then the project's.
    pub folders: Vec<Folder>,
}

fn folder(target: &str, level: Level, path: PathBuf, cfg: Option<&TargetConfig>) -> Folder {
    Folder {
        target: target.to_owned(),
        level,
        exists: path.is_dir(),
        path,
        skills: cfg.and_then(|c| c.skills.clone()),
        tags: cfg.and_then(|c| c.tags.clone()).unwrap_or_default(),
        exclude: cfg.and_then(|c| c.exclude.clone()).unwrap_or_default(),
        mode: cfg.and_then(|c| c.mode),
        auto: cfg.and_then(|c| c.auto).unwrap_or(false),
        project: None,
    }
}

/// Every known tool, then every configured target, with their folders. Project folders of a
/// tool are listed when a project is given and the tool is active or the folder already exists.
pub fn resolve(env: &Env, config: &TargetsConfig, project: Option<&Path>) -> Result<Vec<Target>, TargetError> {
    let mut out = Vec::new();
    for tool in KNOWN {
        let cfg = config.targets.get(tool.id);
        let detected = tool.detect.resolve(env).is_some_and(|p| p.is_dir());
        let active = cfg.and_then(|c| c.enabled).unwrap_or(detected);
        let mut folders = Vec::new();
        if let Some(path) = tool.user.resolve(env) {
            folders.push(folder(tool.id, Level::User, path, cfg));
        }
        if let Some(project) = project {
            for rel in tool.project {
                let path = project.join(rel);
                if active || path.is_dir() {
                    let f = folder(tool.id, Level::Project, path, cfg);
                    folders.push(Folder { project: Some(project.to_path_buf()), ..f });
                }
            }
        }
        let off = cfg.and_then(|c| c.enabled) == Some(false);
        let auto = cfg.and_then(|c| c.auto) == Some(true);
        out.push(Target { id: tool.id.to_owned(), name: tool.name.to_owned(), detected, active, off, auto, folders });
    }
    for (name, cfg) in &config.targets {
        let Some(path) = &cfg.path else { continue };
        if crate::known::by_id(name).is_some() {
            continue;
        }
        let path = env.expand(path);
        let active = cfg.enabled.unwrap_or(true);
        let folders = vec![folder(name, Level::Custom, path, Some(cfg))];
        let auto = cfg.auto == Some(true);
        out.push(Target { id: name.clone(), name: name.clone(), detected: true, active, off: !active, auto, folders });
    }
    Ok(out)
}

/// Whether `sync` without target names goes to folder `f` of `t`: the target is active, or the
/// folder is a project folder that already exists and the tool is not switched off.
pub fn synced_by_default(t: &Target, f: &Folder) -> bool {
    t.active || (!t.off && f.level == Level::Project && f.exists)
}

/// The folders kept in sync automatically: every folder of each target with `auto = true`
/// that is not switched off (`enabled = false`).
pub fn auto(targets: &[Target]) -> Vec<Folder> {
    targets.iter().filter(|t| !t.off).flat_map(|t| t.folders.iter().filter(|f| f.auto).cloned()).collect()
}

/// The folders a sync goes to: of the named targets (any, even undetected), or else of every
/// active one, the project folders that already exist of tools not switched off, and the
/// existing folders of targets switched off (where a sync removes what Skilldeck put; see
/// `budget::fit`). An unknown name is an error naming the known ones.
pub fn chosen(targets: &[Target], names: &[String]) -> Result<Vec<Folder>, TargetError> {
    if names.is_empty() {
        return Ok(targets
            .iter()
            .flat_map(|t| t.folders.iter().filter(move |f| synced_by_default(t, f) || (t.off && f.exists)).cloned())
            .collect());
    }
    let mut out = Vec::new();
    for name in names {
        let Some(t) = targets.iter().find(|t| &t.id == name) else {
            let known: Vec<&str> = targets.iter().map(|t| t.id.as_str()).collect();
            return Err(TargetError::UnknownTarget { name: name.clone(), known: known.join(", ") });
        };
        out.extend(t.folders.iter().cloned());
    }
    Ok(out)
}
