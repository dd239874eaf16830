//! Adding Skilldeck to (and removing it from) other MCP clients' settings files: a plan first
//! (what the file would become), then its execution (backup, atomic write). Only our entry,
//! `skilldeck`, is ever added, replaced or removed; a file that does not parse is never written.

mod edit;
pub(crate) mod json;
mod locations;
pub(crate) mod text;
mod toml;
mod write;
mod yaml;

pub use edit::{EditError, NAME};
pub use locations::{ConfigFile, Format, Locations};

use crate::clients::{Client, entry};
use serde::Serialize;
use serde_json::Value;
use std::path::{Path, PathBuf};
use text::Text;

/// Why an install or uninstall did not happen. Nothing was written.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    /// The file does not parse.
    #[error("{path} does not parse ({message}); fix it or add Skilldeck by hand — it was not changed")]
    Unparsable {
        /// The file.
        path: PathBuf,
        /// The parser's message, with line and column.
        message: String,
    },
    /// The file parses but cannot be edited safely, or must not be edited: read-only, or a
    /// symbolic link leading nowhere Skilldeck could create the file.
    #[error("{path} was not changed: {message}")]
    Shape {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The file changed between the plan and its execution.
    #[error("{0} changed while Skilldeck was editing it; nothing was written, try again")]
    Changed(PathBuf),
    /// Reading or writing failed.
    #[error("could not {action} {path}: {source}")]
    Io {
        /// What was being done.
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// The failure.
        source: std::io::Error,
    },
}

impl InstallError {
    pub(crate) fn edit(path: &Path, e: EditError) -> Self {
        match e {
            EditError::Unparsable(message) => InstallError::Unparsable { path: path.to_owned(), message },
            EditError::Shape(message) => InstallError::Shape { path: path.to_owned(), message },
        }
    }
}

/// Whether and how Skilldeck is in a client's settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum State {
    /// No entry named `skilldeck` (or no file).
    NotInstalled,
    /// Our entry, exactly as `install` would write it.
    Installed,
    /// An entry named `skilldeck` that differs (another binary path, older arguments).
    Outdated,
    /// The file does not parse or is not shaped as expected.
    Unreadable {
        /// The parser's message.
        error: String,
    },
}

/// One client as `skilldeck mcp clients` and the app show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct ClientStatus {
    /// The client's id (`cursor`).
    pub id: &'static str,
    /// Its name (`Cursor`).
    pub name: &'static str,
    /// Whether the client looks installed on this machine.
    pub detected: bool,
    /// Its user-level settings file.
    pub path: PathBuf,
    /// Whether the file exists.
    pub exists: bool,
    /// Skilldeck's state in it.
    #[serde(flatten)]
    pub state: State,
}

/// What an install or uninstall does to the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
#[ts(rename = "McpAction")]
pub enum Action {
    /// Creates the file holding only our entry.
    Create,
    /// Adds our entry to the file.
    Add,
    /// Replaces our outdated entry.
    Replace,
    /// Removes our entry.
    Remove,
    /// Nothing to do: already as wanted.
    Unchanged,
}

/// An edit worked out but not yet written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// The client.
    pub client: Client,
    /// The file (symbolic links resolved: the file they point to is the one edited).
    pub path: PathBuf,
    /// What happens.
    pub action: Action,
    /// The file's bytes now (`None`: it does not exist).
    pub before: Option<Vec<u8>>,
    /// Its text afterwards.
    pub after: String,
}

/// What executing a plan did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct Applied {
    /// What happened.
    pub action: Action,
    /// The file.
    pub path: PathBuf,
    /// The copy of the old file, when there was one and it changed.
    pub backup: Option<PathBuf>,
}

fn read_entry(format: Format, text: &str) -> Result<Option<Value>, EditError> {
    match format {
        Format::Json { key } => json::read(text, key, false),
        Format::Jsonc { key } => json::read(text, key, true),
        Format::Toml => toml::read(text),
        Format::Yaml => yaml::read(text),
    }
}

fn set_entry(format: Format, text: &str, entry: &Value) -> Result<String, EditError> {
    match format {
        Format::Json { key } => json::set(text, key, false, entry),
        Format::Jsonc { key } => json::set(text, key, true, entry),
        Format::Toml => toml::set(text, entry),
        Format::Yaml => yaml::set(text, entry),
    }
}

fn remove_entry(format: Format, text: &str) -> Result<String, EditError> {
    match format {
        Format::Json { key } => json::remove(text, key, false),
        Format::Jsonc { key } => json::remove(text, key, true),
        Format::Toml => toml::remove(text),
        Format::Yaml => yaml::remove(text),
    }
}

/// The most symbolic links followed from the settings file to the file itself (Linux's own
/// limit).
const MAX_LINKS: usize = 40;

/// The file a settings path stands for: a symbolic link's target, followed also when that target
/// does not exist yet (a dotfiles link made before its file), so the link is never replaced by a
/// regular file. A link whose target's folder is missing, or a loop, is refused.
fn resolve(path: &Path) -> Result<PathBuf, InstallError> {
    let io = |source| InstallError::Io { action: "follow the link", path: path.to_owned(), source };
    let mut current = path.to_owned();
    for _ in 0..MAX_LINKS {
        match std::fs::symlink_metadata(&current) {
            Ok(m) if m.file_type().is_symlink() => {
                let target = std::fs::read_link(&current).map_err(io)?;
                current = match current.parent() {
                    Some(dir) => dir.join(target),
                    None => target,
                };
            }
            Ok(_) => return std::fs::canonicalize(&current).map_err(io),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                if current == path {
                    return Ok(current);
                }
                // A dangling link: its target is created, in the target's folder.
                let folder = current.parent().and_then(|d| std::fs::canonicalize(d).ok());
                return match (folder, current.file_name()) {
                    (Some(dir), Some(name)) if dir.is_dir() => Ok(dir.join(name)),
                    _ => Err(InstallError::Shape {
                        path: path.to_owned(),
                        message: format!(
                            "it is a symbolic link to {}, which does not exist, nor does its folder; create that \
                             folder (or remove the link) and try again",
                            current.display()
                        ),
                    }),
                };
            }
            Err(e) => return Err(io(e)),
        }
    }
    Err(io(std::io::Error::other(format!("more than {MAX_LINKS} symbolic links in a row (a loop?)"))))
}

/// Refuses a file nobody may write (mode 0444 and the like): its owner protected it.
pub(crate) fn check_writable(path: &Path) -> Result<(), InstallError> {
    use std::os::unix::fs::PermissionsExt as _;
    match std::fs::metadata(path) {
        Ok(m) if m.permissions().mode() & 0o222 == 0 => Err(InstallError::Shape {
            path: path.to_owned(),
            message: format!(
                "it is read-only (mode {:o}), so Skilldeck leaves it as it is; to let Skilldeck edit it, run \
                 `chmod u+w {}` and try again, or add Skilldeck by hand",
                m.permissions().mode() & 0o7777,
                path.display()
            ),
        }),
        _ => Ok(()),
    }
}

/// The file to edit (a symbolic link's target) and its bytes, `None` when missing.
pub(crate) fn read(path: &Path) -> Result<(PathBuf, Option<Vec<u8>>), InstallError> {
    let real = resolve(path)?;
    match std::fs::read(&real) {
        Ok(b) => Ok((real, Some(b))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok((real, None)),
        Err(source) => Err(InstallError::Io { action: "read", path: real, source }),
    }
}

pub(crate) fn text_of(path: &Path, bytes: &[u8]) -> Result<Text, InstallError> {
    String::from_utf8(bytes.to_vec()).map(Text::new).map_err(|e| InstallError::Unparsable {
        path: path.to_owned(),
        message: format!("not UTF-8 text (byte {})", e.utf8_error().valid_up_to()),
    })
}

/// Skilldeck's state in `file`, for a server started as `command`.
pub fn status(file: &ConfigFile, command: &str) -> ClientStatus {
    let state = match read(&file.path) {
        Err(e) => State::Unreadable { error: e.to_string() },
        Ok((_, None)) => State::NotInstalled,
        Ok((path, Some(bytes))) => match text_of(&path, &bytes) {
            Err(e) => State::Unreadable { error: e.to_string() },
            Ok(text) => match read_entry(file.format, text.body()) {
                Err(e) => State::Unreadable { error: e.to_string() },
                Ok(None) => State::NotInstalled,
                Ok(Some(v)) if v == entry(file.client, command) => State::Installed,
                Ok(Some(_)) => State::Outdated,
            },
        },
    };
    ClientStatus {
        id: file.client.id(),
        name: file.client.name(),
        detected: file.detected(),
        path: file.path.clone(),
        exists: file.path.exists(),
        state,
    }
}

/// Every known client's status, in `Client::ALL` order.
pub fn statuses(locations: &Locations, command: &str) -> Vec<ClientStatus> {
    Client::ALL.iter().map(|&c| status(&locations.config_file(c), command)).collect()
}

/// The plan adding (or refreshing) our entry, running `command mcp`.
pub fn plan_install(file: &ConfigFile, command: &str) -> Result<Plan, InstallError> {
    let (path, before) = read(&file.path)?;
    let text = match &before {
        Some(b) => text_of(&path, b)?,
        None => Text::new(String::new()),
    };
    let current = read_entry(file.format, text.body()).map_err(|e| InstallError::edit(&path, e))?;
    let wanted = entry(file.client, command);
    let action = match (&before, &current) {
        (None, _) => Action::Create,
        (Some(_), None) => Action::Add,
        (Some(_), Some(v)) if *v == wanted => Action::Unchanged,
        (Some(_), Some(_)) => Action::Replace,
    };
    let after = match action {
        Action::Unchanged => text.into_original(),
        _ => {
            check_writable(&path)?;
            text.restore(set_entry(file.format, text.body(), &wanted).map_err(|e| InstallError::edit(&path, e))?)
        }
    };
    Ok(Plan { client: file.client, path, action, before, after })
}

/// The plan removing our entry (nothing to do when it is absent or the file missing).
pub fn plan_uninstall(file: &ConfigFile) -> Result<Plan, InstallError> {
    let (path, before) = read(&file.path)?;
    let Some(bytes) = &before else {
        return Ok(Plan { client: file.client, path, action: Action::Unchanged, before, after: String::new() });
    };
    let text = text_of(&path, bytes)?;
    let present = read_entry(file.format, text.body()).map_err(|e| InstallError::edit(&path, e))?.is_some();
    let (action, after) = if present {
        check_writable(&path)?;
        let edited = remove_entry(file.format, text.body()).map_err(|e| InstallError::edit(&path, e))?;
        (Action::Remove, text.restore(edited))
    } else {
        (Action::Unchanged, text.into_original())
    };
    Ok(Plan { client: file.client, path, action, before, after })
}

/// How many backups of one settings file are kept: the newest, older ones are deleted when a
/// new one is written (`~/.claude.json` runs to tens of MB).
pub const KEPT_BACKUPS: usize = 3;

/// Executes `plan`: a backup of the old file first (the oldest beyond [`KEPT_BACKUPS`] deleted),
/// then the new text written atomically, or in place when the file has other hard links, so
/// they keep sharing it. Refuses when the file changed since the plan was made or is read-only.
pub fn apply(plan: &Plan) -> Result<Applied, InstallError> {
    let done = |backup| Applied { action: plan.action, path: plan.path.clone(), backup };
    if plan.action == Action::Unchanged {
        return Ok(done(None));
    }
    write_planned(&plan.path, plan.before.as_deref(), &plan.after).map(done)
}

/// Writes `after` to `path`, which held `before` when the edit was worked out (`None`: it did
/// not exist): a backup of the old file first (the oldest beyond [`KEPT_BACKUPS`] deleted),
/// then the new text atomically, or in place when the file has other hard links. Refuses when
/// the file changed meanwhile or is read-only. Returns the backup's path, when one was made.
pub(crate) fn write_planned(path: &Path, before: Option<&[u8]>, after: &str) -> Result<Option<PathBuf>, InstallError> {
    use std::os::unix::fs::MetadataExt as _;
    let (_, now) = read(path)?;
    if now.as_deref() != before {
        return Err(InstallError::Changed(path.to_owned()));
    }
    check_writable(path)?;
    let io = |action| move |source| InstallError::Io { action, path: path.to_owned(), source };
    let backup = match before {
        Some(old) => Some(write::backup(path, old, KEPT_BACKUPS).map_err(io("back up"))?),
        None => None,
    };
    let linked = std::fs::metadata(path).is_ok_and(|m| m.nlink() > 1);
    if linked {
        write::write_in_place(path, after.as_bytes()).map_err(io("write"))?;
    } else {
        write::atomic_write(path, after.as_bytes()).map_err(io("write"))?;
    }
    Ok(backup)
}

#[cfg(test)]
mod tests;
