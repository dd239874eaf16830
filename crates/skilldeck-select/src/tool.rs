//! A tool's spec as a model sees it (name, description, JSON Schema of its input), shared by
//! `find_skills` here and `view_skill` in the mount.

use serde::Serialize;
use serde_json::Value;

/// A tool's spec: its name, description and JSON Schema for its input.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolSpec {
    /// The tool's name.
    pub name: String,
    /// What it does, for the model.
    pub description: String,
    /// The JSON Schema of its input.
    pub parameters: Value,
}
