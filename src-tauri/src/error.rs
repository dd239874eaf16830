//! `ApiError`: the one error type that crosses the IPC boundary, as `{code, message, args}`.
//! Holds the conversions from core errors; the UI switches on `code`, never on `message`, and
//! builds its translated text from `code` and `args` (the English `message` is the fallback).

use serde::Serialize;
use skilldeck_store::StorageError;
use skilldeck_store::import::ImportError;
use std::collections::BTreeMap;

/// An error as the UI gets it. Serializing it (the moment it crosses to the UI) logs its code
/// and message: the errors a user saw are in the log they attach to a bug report.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message} [{code}]")]
pub struct ApiError {
    /// A stable snake_case code.
    pub code: String,
    /// What went wrong and what to do, for people, in English.
    pub message: String,
    /// The values a translated message needs (`path`, `entry`, `reason`, …).
    pub args: BTreeMap<&'static str, String>,
}

impl Serialize for ApiError {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        /// The wire shape: `{code, message, args?}`.
        #[derive(Serialize)]
        struct Wire<'a> {
            code: &'a str,
            message: &'a str,
            #[serde(skip_serializing_if = "BTreeMap::is_empty")]
            args: &'a BTreeMap<&'static str, String>,
        }
        tracing::warn!(code = %self.code, message = %self.message, "error shown to the user");
        Wire { code: &self.code, message: &self.message, args: &self.args }.serialize(serializer)
    }
}

impl ApiError {
    /// An error with a code and message.
    pub fn new(code: &str, message: impl Into<String>) -> Self {
        Self { code: code.to_owned(), message: message.into(), args: BTreeMap::new() }
    }

    /// The same error with the argument `key` set to `value`.
    pub fn arg(mut self, key: &'static str, value: impl ToString) -> Self {
        self.args.insert(key, value.to_string());
        self
    }
}

impl From<StorageError> for ApiError {
    fn from(e: StorageError) -> Self {
        Self::new(e.code(), e.to_string())
    }
}

impl From<skilldeck_remote::RemoteError> for ApiError {
    fn from(e: skilldeck_remote::RemoteError) -> Self {
        Self::new(e.code(), e.to_string())
    }
}

impl From<ImportError> for ApiError {
    fn from(e: ImportError) -> Self {
        let err = Self::new(e.code(), e.to_string());
        match &e {
            ImportError::NotFound(p)
            | ImportError::Unsupported(p)
            | ImportError::DanglingLink(p)
            | ImportError::NotASkill(p) => err.arg("path", p.display()),
            ImportError::Duplicate { name, first } => err.arg("name", name).arg("first", first),
            ImportError::Hostile { entry, reason } => err.arg("entry", entry).arg("reason", reason),
            ImportError::Limit(l) => err.arg("reason", l),
            ImportError::Archive { path, reason } => err.arg("path", path.display()).arg("reason", reason),
            ImportError::NoName { found } => err.arg("found", found),
            ImportError::Io { path, source } => err.arg("path", path.display()).arg("reason", source),
            ImportError::Storage(_) => err,
        }
    }
}

impl From<skilldeck_skill::name::NameError> for ApiError {
    fn from(e: skilldeck_skill::name::NameError) -> Self {
        Self::new("name_invalid", format!("not a skill name: {e}"))
    }
}

impl From<skilldeck_skill::relpath::PathError> for ApiError {
    fn from(e: skilldeck_skill::relpath::PathError) -> Self {
        Self::new("path_invalid", format!("refused path: {e}"))
    }
}

impl From<skilldeck_store::trust::TrustError> for ApiError {
    fn from(e: skilldeck_store::trust::TrustError) -> Self {
        Self::new("trust_failed", e.to_string())
    }
}

impl From<skilldeck_targets::TargetError> for ApiError {
    fn from(e: skilldeck_targets::TargetError) -> Self {
        use skilldeck_targets::TargetError as E;
        let err = Self::new(e.code(), e.to_string());
        match &e {
            E::NotAFolder { path } | E::ReadOnly { path, .. } => err.arg("path", path.display()),
            E::UnknownTarget { name, .. } => err.arg("name", name),
            _ => err,
        }
    }
}

/// Results of commands.
pub type ApiResult<T> = Result<T, ApiError>;
