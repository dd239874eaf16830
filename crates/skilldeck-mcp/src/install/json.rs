//! One member of an object under a top-level key of a JSON or JSON-with-comments settings file
//! (our `skilldeck` entry among the servers, or one skill's entry in Claude Code's
//! `skillOverrides`), edited through a concrete syntax tree (`jsonc-parser`'s CST) so every
//! other byte — other entries, key order, comments, spacing — stays.
//! Holds the edits; reads and writes no file.

use super::edit::{EditError, NAME};
use jsonc_parser::CollectOptions;
use jsonc_parser::ParseOptions;
use jsonc_parser::ast;
use jsonc_parser::cst::{CstInputValue, CstObject, CstRootNode};
use serde_json::Value;

/// The parser's leniency: comments and trailing commas only where the format allows them.
fn options(comments: bool) -> ParseOptions {
    if comments {
        return ParseOptions::default();
    }
    ParseOptions {
        allow_comments: false,
        allow_loose_object_property_names: false,
        allow_trailing_commas: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        ..ParseOptions::default()
    }
}

fn parse(text: &str, comments: bool) -> Result<CstRootNode, EditError> {
    // The CST keeps comments whatever the options say: strict files are checked as JSON first.
    if !comments && !text.trim().is_empty() {
        serde_json::from_str::<serde::de::IgnoredAny>(text).map_err(|e| EditError::Unparsable(e.to_string()))?;
    }
    refuse_duplicate_keys(text, comments)?;
    CstRootNode::parse(text, &options(comments)).map_err(|e| EditError::Unparsable(e.to_string()))
}

/// Refuses a file in which one object holds a key twice, naming the key and the line of its
/// second occurrence. An agent reads the last of them (Claude Code as `JSON.parse` does) where
/// an edit would change the first and report success, so such a file is never edited.
fn refuse_duplicate_keys(text: &str, comments: bool) -> Result<(), EditError> {
    let parsed = jsonc_parser::parse_to_ast(text, &CollectOptions::default(), &options(comments))
        .map_err(|e| EditError::Unparsable(e.to_string()))?;
    let mut stack: Vec<&ast::Value<'_>> = parsed.value.iter().collect();
    while let Some(value) = stack.pop() {
        match value {
            ast::Value::Object(object) => {
                let mut seen = std::collections::HashSet::new();
                for prop in &object.properties {
                    if !seen.insert(prop.name.as_str()) {
                        let line = text.get(..prop.range.start).map_or(0, |before| before.matches('\n').count()) + 1;
                        return Err(EditError::Shape(format!(
                            "the key \"{}\" appears twice in one object (again on line {line}); the agent reads \
                             the last one, so Skilldeck does not edit this file: remove one of them and try again",
                            skilldeck_skill::visible::visible_line(prop.name.as_str())
                        )));
                    }
                    stack.push(&prop.value);
                }
            }
            ast::Value::Array(array) => stack.extend(array.elements.iter()),
            _ => {}
        }
    }
    Ok(())
}

/// The root object, or `None` for a file holding nothing (only whitespace or comments).
fn root_object(root: &CstRootNode) -> Result<Option<CstObject>, EditError> {
    match root.value() {
        None => Ok(None),
        Some(v) => match v.as_object() {
            Some(o) => Ok(Some(o)),
            None => Err(EditError::Shape("the file does not hold a JSON object".into())),
        },
    }
}

/// The servers object under `key`, if present.
fn servers(object: &CstObject, key: &str) -> Result<Option<CstObject>, EditError> {
    match object.get(key) {
        None => Ok(None),
        Some(prop) => match prop.value().and_then(|v| v.as_object()) {
            Some(o) => Ok(Some(o)),
            None => Err(EditError::Shape(format!("\"{key}\" is not a JSON object"))),
        },
    }
}

/// Our entry as the file holds it, if any; an error when the file does not parse.
pub fn read(text: &str, key: &str, comments: bool) -> Result<Option<Value>, EditError> {
    read_member(text, key, NAME, comments)
}

/// The text with our entry set to `entry` (added last, or replaced where it stands).
pub fn set(text: &str, key: &str, comments: bool, entry: &Value) -> Result<String, EditError> {
    set_member(text, key, NAME, comments, entry)
}

/// The text without our entry (unchanged when it has none).
pub fn remove(text: &str, key: &str, comments: bool) -> Result<String, EditError> {
    remove_member(text, key, NAME, comments)
}

/// The whole object under `key`, as data (`None` when absent); an error when the file does
/// not parse or `key` is not an object.
pub fn read_object(text: &str, key: &str, comments: bool) -> Result<Option<serde_json::Map<String, Value>>, EditError> {
    if text.trim().is_empty() {
        return Ok(None);
    }
    let root = parse(text, comments)?;
    let Some(object) = root_object(&root)? else { return Ok(None) };
    let Some(servers) = servers(&object, key)? else { return Ok(None) };
    match servers.to_serde_value() {
        Some(Value::Object(m)) => Ok(Some(m)),
        _ => Err(EditError::Shape(format!("\"{key}\" is not a JSON object"))),
    }
}

/// Member `member` of the object under `key`, as the file holds it, if any; an error when the
/// file does not parse.
pub fn read_member(text: &str, key: &str, member: &str, comments: bool) -> Result<Option<Value>, EditError> {
    if !comments {
        // Strict JSON reads as data, with no syntax tree: ~/.claude.json runs to tens of MB.
        if text.trim().is_empty() {
            return Ok(None);
        }
        let doc: Value = serde_json::from_str(text).map_err(|e| EditError::Unparsable(e.to_string()))?;
        let Value::Object(root) = doc else {
            return Err(EditError::Shape("the file does not hold a JSON object".into()));
        };
        return match root.get(key) {
            None => Ok(None),
            Some(Value::Object(servers)) => Ok(servers.get(member).cloned()),
            Some(_) => Err(EditError::Shape(format!("\"{key}\" is not a JSON object"))),
        };
    }
    let root = parse(text, comments)?;
    let Some(object) = root_object(&root)? else { return Ok(None) };
    let Some(servers) = servers(&object, key)? else { return Ok(None) };
    Ok(servers.get(member).and_then(|p| p.value()).and_then(|v| v.to_serde_value()))
}

/// The text with member `member` of the object under `key` set to `entry` (added last, or
/// replaced where it stands; the object made when missing).
pub fn set_member(text: &str, key: &str, member: &str, comments: bool, entry: &Value) -> Result<String, EditError> {
    let root = parse(text, comments)?;
    if root_object(&root)?.is_none() && text.trim().is_empty() {
        let mut fresh = serde_json::Map::new();
        fresh.insert(key.to_owned(), serde_json::json!({ member: entry }));
        let pretty =
            serde_json::to_string_pretty(&Value::Object(fresh)).map_err(|e| EditError::Shape(e.to_string()))?;
        return Ok(pretty + "\n");
    }
    let object = root.object_value_or_set();
    let servers = match object.object_value_or_create(key) {
        Some(s) => s,
        None => return Err(EditError::Shape(format!("\"{key}\" is not a JSON object"))),
    };
    match servers.get(member) {
        Some(prop) => prop.set_value(input(entry)),
        None => {
            servers.append(member, input(entry));
        }
    }
    Ok(root.to_string())
}

/// The text without member `member` of the object under `key` (unchanged when it has none).
pub fn remove_member(text: &str, key: &str, member: &str, comments: bool) -> Result<String, EditError> {
    let root = parse(text, comments)?;
    let Some(object) = root_object(&root)? else { return Ok(text.to_owned()) };
    let Some(servers) = servers(&object, key)? else { return Ok(text.to_owned()) };
    if let Some(prop) = servers.get(member) {
        prop.remove();
    }
    Ok(root.to_string())
}

/// A JSON value as the CST inserts it.
fn input(value: &Value) -> CstInputValue {
    match value {
        Value::Null => CstInputValue::Null,
        Value::Bool(b) => CstInputValue::Bool(*b),
        Value::Number(n) => CstInputValue::Number(n.to_string()),
        Value::String(s) => CstInputValue::String(s.clone()),
        Value::Array(a) => CstInputValue::Array(a.iter().map(input).collect()),
        Value::Object(o) => CstInputValue::Object(o.iter().map(|(k, v)| (k.clone(), input(v))).collect()),
    }
}
