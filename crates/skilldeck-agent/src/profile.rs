//! Workspace profiles: `.skilldeck.toml` in a workspace narrows the skills offered there.
//! Holds reading the file and its errors; the core's listing and search apply the profile.

use serde::Deserialize;
use skilldeck_select::listing::Profile;
use std::collections::BTreeSet;
use std::path::Path;

/// The profile's file name, at the top of the workspace.
pub const PROFILE_FILE: &str = ".skilldeck.toml";

/// Why a workspace's profile could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    /// The file could not be read.
    #[error("could not read {path}: {source}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not what a profile holds.
    #[error(
        "{path} is not a valid profile: {message}. It holds `skills = [\"name\", …]` and/or `tags = [\"tag\", …]`; fix it or delete it to offer every skill"
    )]
    Invalid {
        /// The file.
        path: String,
        /// What is wrong.
        message: String,
    },
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    skills: BTreeSet<String>,
    #[serde(default)]
    tags: BTreeSet<String>,
}

/// Reads `workspace/.skilldeck.toml`; `None` when there is none (every skill is offered).
pub fn load(workspace: &Path) -> Result<Option<Profile>, ProfileError> {
    let path = workspace.join(PROFILE_FILE);
    let shown = path.display().to_string();
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(ProfileError::Read { path: shown, source }),
    };
    let file: File = toml::from_str(&text)
        .map_err(|e| ProfileError::Invalid { path: shown.clone(), message: e.message().to_owned() })?;
    if file.skills.is_empty() && file.tags.is_empty() {
        return Err(ProfileError::Invalid { path: shown, message: "it names no skill and no tag".to_owned() });
    }
    Ok(Some(Profile { skills: file.skills, tags: file.tags }))
}
