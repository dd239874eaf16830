//! `ApiError`: the one error type that crosses the IPC boundary, as `{code, message}`.
//! Holds the conversions from core errors; the UI switches on `code`, never on `message`.

use serde::Serialize;
use skilldeck_core::StorageError;
use skilldeck_core::import::ImportError;

/// An error as the UI gets it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[error("{message} [{code}]")]
pub struct ApiError {
    /// A stable snake_case code.
    pub code: String,
    /// What went wrong and what to do, for people.
    pub message: String,
}

impl ApiError {
    /// An error with a code and message.
    pub fn new(code: &str, message: impl Into<String>) -> Self {
        Self { code: code.to_owned(), message: message.into() }
    }
}

impl From<StorageError> for ApiError {
    fn from(e: StorageError) -> Self {
        Self::new(e.code(), e.to_string())
    }
}

impl From<ImportError> for ApiError {
    fn from(e: ImportError) -> Self {
        Self::new(e.code(), e.to_string())
    }
}

impl From<skilldeck_core::name::NameError> for ApiError {
    fn from(e: skilldeck_core::name::NameError) -> Self {
        Self::new("name_invalid", format!("not a skill name: {e}"))
    }
}

impl From<skilldeck_core::relpath::PathError> for ApiError {
    fn from(e: skilldeck_core::relpath::PathError) -> Self {
        Self::new("path_invalid", format!("refused path: {e}"))
    }
}

impl From<skilldeck_core::trust::TrustError> for ApiError {
    fn from(e: skilldeck_core::trust::TrustError) -> Self {
        Self::new("trust_failed", e.to_string())
    }
}

/// Results of commands.
pub type ApiResult<T> = Result<T, ApiError>;
