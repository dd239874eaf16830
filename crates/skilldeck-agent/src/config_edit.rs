//! Changes to `config.toml` made by the tools (the per-skill switch, pins, the listing budget),
//! written in place.
//! Holds the edits; the user's comments and layout are kept (toml_edit), and a change that would
//! leave the file unreadable is never written.

use crate::config::{Config, ConfigError};
use std::path::Path;
use toml_edit::{Array, DocumentMut, Item, Table, TableLike, Value};

fn write_error(path: &Path, source: std::io::Error) -> ConfigError {
    ConfigError::Read { path: path.display().to_string(), source }
}

/// Switches skill `name` on or off for agents: `[listing] disabled` gains or loses the name.
/// Returns whether the file changed.
pub fn set_skill_enabled(path: &Path, name: &str, enabled: bool) -> Result<bool, ConfigError> {
    edit(
        path,
        |before| before.listing.disabled.contains(name) == enabled,
        |doc, shown| {
            let listing = listing_table(doc, shown)?;
            let disabled = listing.entry("disabled").or_insert(Item::Value(Value::Array(Array::new())));
            let Some(array) = disabled.as_array_mut() else {
                return Err(ConfigError::Invalid {
                    path: shown.to_owned(),
                    message: "`listing.disabled` must be an array".to_owned(),
                });
            };
            if enabled {
                array.retain(|v| v.as_str() != Some(name));
            } else {
                array.push(name);
            }
            Ok(())
        },
    )
}

/// Pins skill `name` (always shown in full in a ranked listing) or unpins it: `[listing] pinned`
/// gains or loses the name. Returns whether the file changed.
pub fn set_skill_pinned(path: &Path, name: &str, pinned: bool) -> Result<bool, ConfigError> {
    edit(
        path,
        |before| before.listing.pinned.contains(name) != pinned,
        |doc, shown| {
            let listing = listing_table(doc, shown)?;
            let list = listing.entry("pinned").or_insert(Item::Value(Value::Array(Array::new())));
            let Some(array) = list.as_array_mut() else {
                return Err(ConfigError::Invalid {
                    path: shown.to_owned(),
                    message: "`listing.pinned` must be an array".to_owned(),
                });
            };
            if pinned {
                array.push(name);
            } else {
                array.retain(|v| v.as_str() != Some(name));
            }
            Ok(())
        },
    )
}

/// The smallest and largest listing budgets accepted, in tokens.
pub const BUDGET_RANGE: std::ops::RangeInclusive<usize> = 100..=200_000;

/// Sets `[listing] budget_tokens`. Returns whether the file changed.
pub fn set_budget_tokens(path: &Path, tokens: usize) -> Result<bool, ConfigError> {
    if !BUDGET_RANGE.contains(&tokens) {
        return Err(ConfigError::Invalid {
            path: path.display().to_string(),
            message: format!(
                "a listing budget of {tokens} tokens is out of range; choose {} to {}",
                BUDGET_RANGE.start(),
                BUDGET_RANGE.end()
            ),
        });
    }
    edit(
        path,
        |before| before.listing.budget_tokens != tokens,
        |doc, shown| {
            let listing = listing_table(doc, shown)?;
            listing.insert("budget_tokens", Item::Value(Value::from(i64::try_from(tokens).unwrap_or(i64::MAX))));
            Ok(())
        },
    )
}

fn listing_table<'a>(doc: &'a mut DocumentMut, shown: &str) -> Result<&'a mut dyn TableLike, ConfigError> {
    doc.entry("listing")
        .or_insert_with(|| Item::Table(Table::new()))
        .as_table_like_mut()
        .ok_or_else(|| ConfigError::Invalid { path: shown.to_owned(), message: "`listing` must be a table".to_owned() })
}

/// Applies `change` to the file when `needed` says the settings differ, keeping the user's
/// comments and layout; the result must parse, or nothing is written. Returns whether it wrote.
fn edit(
    path: &Path,
    needed: impl FnOnce(&Config) -> bool,
    change: impl FnOnce(&mut DocumentMut, &str) -> Result<(), ConfigError>,
) -> Result<bool, ConfigError> {
    let shown = path.display().to_string();
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(source) => return Err(ConfigError::Read { path: shown, source }),
    };
    // The file must already be valid: a broken file is reported, not rewritten.
    let before = Config::parse(&text, &shown)?;
    if !needed(&before) {
        return Ok(false);
    }
    let mut doc: DocumentMut = text
        .parse()
        .map_err(|e: toml_edit::TomlError| ConfigError::Invalid { path: shown.clone(), message: e.to_string() })?;
    change(&mut doc, &shown)?;
    let out = doc.to_string();
    Config::parse(&out, &shown)?;
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
