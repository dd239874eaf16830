//! Changes to `config.toml` made by the tools (the per-skill switch), written in place.
//! Holds the edits; the user's comments and layout are kept (toml_edit), and a change that would
//! leave the file unreadable is never written.

use crate::config::{Config, ConfigError};
use std::path::Path;
use toml_edit::{Array, DocumentMut, Item, Table, Value};

fn write_error(path: &Path, source: std::io::Error) -> ConfigError {
    ConfigError::Read { path: path.display().to_string(), source }
}

/// Switches skill `name` on or off for agents: `[listing] disabled` gains or loses the name.
/// Returns whether the file changed.
pub fn set_skill_enabled(path: &Path, name: &str, enabled: bool) -> Result<bool, ConfigError> {
    let shown = path.display().to_string();
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(source) => return Err(ConfigError::Read { path: shown, source }),
    };
    // The file must already be valid: a broken file is reported, not rewritten.
    let before = Config::parse(&text, &shown)?;
    if before.listing.disabled.contains(name) != enabled {
        return Ok(false);
    }
    let mut doc: DocumentMut = text
        .parse()
        .map_err(|e: toml_edit::TomlError| ConfigError::Invalid { path: shown.clone(), message: e.to_string() })?;
    let listing = doc.entry("listing").or_insert_with(|| Item::Table(Table::new()));
    let Some(listing) = listing.as_table_like_mut() else {
        return Err(ConfigError::Invalid { path: shown, message: "`listing` must be a table".to_owned() });
    };
    let disabled = listing.entry("disabled").or_insert(Item::Value(Value::Array(Array::new())));
    let Some(array) = disabled.as_array_mut() else {
        return Err(ConfigError::Invalid { path: shown, message: "`listing.disabled` must be an array".to_owned() });
    };
    if enabled {
        array.retain(|v| v.as_str() != Some(name));
    } else {
        array.push(name);
    }
    let out = doc.to_string();
    let after = Config::parse(&out, &shown)?;
    debug_assert_eq!(after.listing.disabled.contains(name), !enabled);
    replace(path, &out)?;
    Ok(true)
}

/// Writes `text` beside `path` and renames it over, so a reader never sees half a file.
fn replace(path: &Path, text: &str) -> Result<(), ConfigError> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| write_error(dir, e))?;
    }
    let temp = path.with_extension(format!("toml.{}.tmp", std::process::id()));
    std::fs::write(&temp, text).map_err(|e| write_error(&temp, e))?;
    std::fs::rename(&temp, path).map_err(|e| {
        let _ = std::fs::remove_file(&temp);
        write_error(path, e)
    })
}
