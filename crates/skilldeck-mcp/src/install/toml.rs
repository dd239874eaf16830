//! Our entry in Codex's `config.toml` (`[mcp_servers.skilldeck]`), edited with `toml_edit` so
//! comments, ordering and formatting of everything else stay. Holds the edits; no file I/O.

use super::edit::{EditError, NAME};
use serde_json::Value;
use toml_edit::{DocumentMut, Item, Table, TableLike};

/// The table holding the servers.
const KEY: &str = "mcp_servers";

fn parse(text: &str) -> Result<DocumentMut, EditError> {
    text.parse::<DocumentMut>().map_err(|e| EditError::Unparsable(e.to_string().trim_end().to_owned()))
}

fn servers_mut(doc: &mut DocumentMut) -> Result<&mut dyn TableLike, EditError> {
    let item = doc.entry(KEY).or_insert_with(|| {
        let mut t = Table::new();
        t.set_implicit(true);
        Item::Table(t)
    });
    item.as_table_like_mut().ok_or_else(|| EditError::Shape(format!("`{KEY}` is not a table")))
}

/// Our entry as the file holds it, if any; an error when the file does not parse.
pub fn read(text: &str) -> Result<Option<Value>, EditError> {
    let doc = parse(text)?;
    let Some(servers) = doc.get(KEY) else { return Ok(None) };
    let Some(servers) = servers.as_table_like() else {
        return Err(EditError::Shape(format!("`{KEY}` is not a table")));
    };
    let Some(ours) = servers.get(NAME) else { return Ok(None) };
    // Read our entry alone through the toml crate, as data.
    let mut only = DocumentMut::new();
    only.insert(NAME, ours.clone());
    let table: toml::Table = toml::from_str(&only.to_string()).map_err(|e| EditError::Unparsable(e.to_string()))?;
    Ok(table.get(NAME).and_then(|v| serde_json::to_value(v).ok()))
}

/// The text with our entry set to `entry`: changed keys rewritten in place, the rest of the
/// table (and the file) untouched.
pub fn set(text: &str, entry: &Value) -> Result<String, EditError> {
    let mut doc = parse(text)?;
    let Value::Object(wanted) = entry else { return Err(EditError::Shape("the entry is not a table".into())) };
    let servers = servers_mut(&mut doc)?;
    match servers.get_mut(NAME).and_then(|i| i.as_table_like_mut()) {
        Some(ours) => {
            let stale: Vec<String> =
                ours.iter().map(|(k, _)| k.to_owned()).filter(|k| !wanted.contains_key(k)).collect();
            for k in stale {
                ours.remove(&k);
            }
            for (k, v) in wanted {
                let same = ours.get(k).and_then(|i| i.as_value()).map(|cur| same_value(cur, v)).unwrap_or(false);
                if !same {
                    ours.insert(k, Item::Value(value(v)?));
                }
            }
        }
        None => {
            let mut table = Table::new();
            for (k, v) in wanted {
                table.insert(k, Item::Value(value(v)?));
            }
            servers.insert(NAME, Item::Table(table));
        }
    }
    Ok(doc.to_string())
}

/// The text without our entry (unchanged when it has none).
pub fn remove(text: &str) -> Result<String, EditError> {
    let mut doc = parse(text)?;
    let Some(servers) = doc.get_mut(KEY) else { return Ok(text.to_owned()) };
    let Some(servers) = servers.as_table_like_mut() else {
        return Err(EditError::Shape(format!("`{KEY}` is not a table")));
    };
    if servers.remove(NAME).is_none() {
        return Ok(text.to_owned());
    }
    Ok(doc.to_string())
}

fn same_value(cur: &toml_edit::Value, want: &Value) -> bool {
    let text = format!("v = {}", cur.to_string().trim());
    toml::from_str::<toml::Table>(&text)
        .ok()
        .and_then(|t| t.get("v").and_then(|v| serde_json::to_value(v).ok()))
        .is_some_and(|v| &v == want)
}

/// A JSON value as a TOML value.
fn value(v: &Value) -> Result<toml_edit::Value, EditError> {
    Ok(match v {
        Value::Bool(b) => (*b).into(),
        Value::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => i.into(),
            (None, Some(f)) => f.into(),
            (None, None) => return Err(EditError::Shape(format!("{n} does not fit a TOML number"))),
        },
        Value::String(s) => s.as_str().into(),
        Value::Array(a) => {
            let mut arr = toml_edit::Array::new();
            for x in a {
                arr.push(value(x)?);
            }
            toml_edit::Value::Array(arr)
        }
        Value::Object(o) => {
            let mut t = toml_edit::InlineTable::new();
            for (k, x) in o {
                t.insert(k, value(x)?);
            }
            toml_edit::Value::InlineTable(t)
        }
        Value::Null => return Err(EditError::Shape("TOML has no null".into())),
    })
}
