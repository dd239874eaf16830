//! `view_skill` results: the JSON a model gets, its compacted form and the UI's client view.
//! Holds the shapes of docs/contracts.md ("view_skill") and the two transforms; not how results are produced.

use serde::{Deserialize, Serialize};

/// The note a compacted result carries.
pub const COMPACTED_NOTE: &str = "Call view_skill again to reload.";
/// The content a compacted result carries.
pub const COMPACTED_CONTENT: &str = "[compacted]";
/// What the UI shows for a successful call.
pub const ACTIVATED: &str = "Skill activated.";

/// The stable error codes of `view_skill`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ViewErrorCode {
    /// No listed skill has that name.
    SkillNotFound,
    /// The path is absolute, climbs with `..`, has a backslash, or leaves the skill.
    SkillPathInvalid,
    /// Mounting the skill into the workspace failed; nothing half-copied is left.
    SkillCopyFailed,
    /// The skill has no such file.
    SkillFileNotFound,
    /// The file is over the size `view_skill` returns.
    SkillFileTooLarge,
    /// The file is not text.
    SkillFileBinary,
}

/// `{code, message}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ViewError {
    /// The stable code.
    pub code: ViewErrorCode,
    /// What went wrong and what to do, for the model.
    pub message: String,
}

/// A successful result: `{skillName, path, version, content}`, with `note` once compacted, or
/// when the text names the skill's folder by an agent's variable (`${CLAUDE_SKILL_DIR}`): then
/// it says which mount path stands for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ViewOk {
    /// The skill.
    pub skill_name: String,
    /// The file read, or `null` for the skill's instructions.
    pub path: Option<String>,
    /// The version tag the skill had when read.
    pub version: Option<String>,
    /// The text.
    pub content: String,
    /// Present on compacted results, and on results whose text names the skill's folder by an
    /// agent's variable (what path it stands for).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// A failed call: `{skillName, path, error: {code, message}}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ViewErr {
    /// The skill asked for.
    pub skill_name: String,
    /// The path asked for.
    pub path: Option<String>,
    /// What went wrong.
    pub error: ViewError,
}

/// What a `view_skill` call returns to the model. Errors are data, never a crash of the turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ViewResult {
    /// Success.
    Ok(ViewOk),
    /// Failure.
    Err(ViewErr),
}

/// The UI's form of a successful result: `{skillName, path, content: "Skill activated."}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientOk {
    /// The skill.
    pub skill_name: String,
    /// The file read, or `null`.
    pub path: Option<String>,
    /// Always `Skill activated.`.
    pub content: String,
}

/// What the UI gets for a call: the activation notice, or the error as the model saw it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ClientView {
    /// Success, without the skill's text.
    Ok(ClientOk),
    /// Failure, unchanged.
    Err(ViewErr),
}

impl ViewResult {
    /// An error result.
    pub fn error(skill_name: &str, path: Option<&str>, code: ViewErrorCode, message: impl Into<String>) -> Self {
        Self::Err(ViewErr {
            skill_name: skill_name.to_owned(),
            path: path.map(str::to_owned),
            error: ViewError { code, message: message.into() },
        })
    }

    /// The result as the JSON value a model receives.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
    }

    /// The compacted form of an older result: a path-less success keeps its version and
    /// loses its text; anything else is returned unchanged.
    pub fn compacted(&self) -> Self {
        match self {
            Self::Ok(ok) if ok.path.is_none() => Self::Ok(ViewOk {
                skill_name: ok.skill_name.clone(),
                path: None,
                version: ok.version.clone(),
                content: COMPACTED_CONTENT.to_owned(),
                note: Some(COMPACTED_NOTE.to_owned()),
            }),
            Self::Ok(_) | Self::Err(_) => self.clone(),
        }
    }

    /// The UI's form: never the skill's text.
    pub fn client_view(&self) -> ClientView {
        match self {
            Self::Ok(ok) => ClientView::Ok(ClientOk {
                skill_name: ok.skill_name.clone(),
                path: ok.path.clone(),
                content: ACTIVATED.to_owned(),
            }),
            Self::Err(e) => ClientView::Err(e.clone()),
        }
    }
}
