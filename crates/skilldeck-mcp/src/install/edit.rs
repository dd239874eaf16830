//! What the three format editors (`json`, `toml`, `yaml`) share: the name of our entry and why
//! a file's text could not be edited.

/// The name of our entry in every client's server table.
pub const NAME: &str = "skilldeck";

/// Why a file's text could not be edited.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    /// The file does not parse: the parser's message, with its line and column.
    #[error("{0}")]
    Unparsable(String),
    /// The file parses but is not shaped as the client's settings are.
    #[error("{0}")]
    Shape(String),
}
