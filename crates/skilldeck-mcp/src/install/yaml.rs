//! Our entry in Goose's `config.yaml` (`extensions: skilldeck:`). No maintained Rust YAML crate
//! round-trips comments, so only the lines of our block are written, as text; the result is
//! parsed again and must equal the original as data except for our entry, else nothing is
//! written. Limit: a file whose `extensions` is written inline (`{...}`) is refused, not edited.

use super::edit::{EditError, NAME};
use serde_json::Value;
use serde_yaml_ng::{Mapping, Value as Yaml};

/// The top-level key holding the servers.
const KEY: &str = "extensions";

fn parse(text: &str) -> Result<Yaml, EditError> {
    serde_yaml_ng::from_str::<Yaml>(text).map_err(|e| EditError::Unparsable(e.to_string()))
}

/// The `extensions` mapping of a parsed file, if any.
fn extensions(doc: &Yaml) -> Result<Option<&Mapping>, EditError> {
    match doc {
        Yaml::Null => Ok(None),
        Yaml::Mapping(m) => match m.get(KEY) {
            None | Some(Yaml::Null) => Ok(None),
            Some(Yaml::Mapping(e)) => Ok(Some(e)),
            Some(_) => Err(EditError::Shape(format!("`{KEY}` is not a mapping"))),
        },
        _ => Err(EditError::Shape("the file does not hold a YAML mapping".into())),
    }
}

/// Our entry as the file holds it, if any; an error when the file does not parse.
pub fn read(text: &str) -> Result<Option<Value>, EditError> {
    let doc = parse(text)?;
    let Some(ext) = extensions(&doc)? else { return Ok(None) };
    Ok(ext.get(NAME).and_then(|v| serde_json::to_value(v).ok()))
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// A line holding only a comment or nothing.
fn is_filler(line: &str) -> bool {
    let t = line.trim();
    t.is_empty() || t.starts_with('#')
}

/// Where things are in the file's lines.
struct Layout {
    /// The `extensions:` line.
    key: Option<usize>,
    /// The indentation of its children (when it has any).
    child_indent: Option<usize>,
    /// One past the last line of its block that holds content.
    block_end: usize,
    /// Our entry's lines (start, one past the end), trailing comments excluded.
    ours: Option<(usize, usize)>,
}

fn layout(lines: &[&str]) -> Result<Layout, EditError> {
    let key = lines.iter().position(|l| {
        l.strip_prefix(KEY).and_then(|r| r.strip_prefix(':')).is_some_and(|r| {
            let r = r.trim();
            r.is_empty() || r.starts_with('#') || r == "{}"
        })
    });
    let Some(key) = key else {
        if lines.iter().any(|l| l.starts_with(KEY)) {
            return Err(EditError::Shape(format!("`{KEY}` is written inline; add the snippet by hand")));
        }
        return Ok(Layout { key: None, child_indent: None, block_end: lines.len(), ours: None });
    };
    let mut block_end = key + 1;
    let mut child_indent = None;
    for (i, l) in lines.iter().enumerate().skip(key + 1) {
        if is_filler(l) {
            continue;
        }
        if indent(l) == 0 {
            break;
        }
        child_indent.get_or_insert(indent(l));
        block_end = i + 1;
    }
    let mut ours = None;
    if let Some(ci) = child_indent {
        let is_ours =
            |l: &str| indent(l) == ci && l.trim_start().strip_prefix(NAME).is_some_and(|r| r.starts_with(':'));
        if let Some(start) = (key + 1..block_end).find(|&i| is_ours(lines[i])) {
            let mut end = start + 1;
            for (i, l) in lines.iter().enumerate().take(block_end).skip(start + 1) {
                if is_filler(l) {
                    continue;
                }
                if indent(l) <= ci {
                    break;
                }
                end = i + 1;
            }
            ours = Some((start, end));
        }
    }
    Ok(Layout { key: Some(key), child_indent, block_end, ours })
}

/// Our block, indented by `by`.
fn block(entry: &Value, by: usize) -> Result<Vec<String>, EditError> {
    let mut m = serde_json::Map::new();
    m.insert(NAME.to_owned(), entry.clone());
    let text = serde_yaml_ng::to_string(&Value::Object(m)).map_err(|e| EditError::Shape(e.to_string()))?;
    Ok(text.lines().map(|l| format!("{}{l}", " ".repeat(by))).collect())
}

fn join(lines: &[String], trailing_newline: bool) -> String {
    let mut out = lines.join("\n");
    if trailing_newline && !out.is_empty() {
        out.push('\n');
    }
    out
}

/// The data the file must hold after the edit: the original with our entry set (or removed).
fn expected(before: &Yaml, entry: Option<&Value>) -> Result<Yaml, EditError> {
    let mut doc = match before {
        Yaml::Null => Mapping::new(),
        Yaml::Mapping(m) => m.clone(),
        _ => return Err(EditError::Shape("the file does not hold a YAML mapping".into())),
    };
    let mut ext = match doc.get(KEY) {
        Some(Yaml::Mapping(e)) => e.clone(),
        _ => Mapping::new(),
    };
    match entry {
        Some(e) => {
            let v = serde_yaml_ng::to_value(e).map_err(|e| EditError::Shape(e.to_string()))?;
            ext.insert(Yaml::from(NAME), v);
        }
        None => {
            ext.remove(NAME);
        }
    }
    doc.insert(Yaml::from(KEY), Yaml::Mapping(ext));
    Ok(Yaml::Mapping(doc))
}

/// Checks the edited text holds exactly `want` as data, else refuses the edit.
fn verified(text: String, want: &Yaml) -> Result<String, EditError> {
    if &parse(&text)? == want {
        Ok(text)
    } else {
        Err(EditError::Shape(format!(
            "editing only our lines under `{KEY}` would change other settings (an unusual layout); add the snippet by hand"
        )))
    }
}

/// The text with our entry set to `entry`, only our lines written.
pub fn set(text: &str, entry: &Value) -> Result<String, EditError> {
    let before = parse(text)?;
    extensions(&before)?;
    let want = expected(&before, Some(entry))?;
    let lines: Vec<&str> = text.lines().collect();
    let at = layout(&lines)?;
    let mut out: Vec<String> = lines.iter().map(|l| (*l).to_owned()).collect();
    match (at.key, at.child_indent, at.ours) {
        (Some(_), Some(ci), Some((start, end))) => {
            out.splice(start..end, block(entry, ci)?);
        }
        (Some(_), Some(ci), None) => {
            out.splice(at.block_end..at.block_end, block(entry, ci)?);
        }
        (Some(key), None, _) => {
            out[key] = format!("{KEY}:");
            out.splice(key + 1..key + 1, block(entry, 2)?);
        }
        (None, _, _) => {
            out.push(format!("{KEY}:"));
            out.extend(block(entry, 2)?);
        }
    }
    verified(join(&out, true), &want)
}

/// The text without our entry (unchanged when it has none).
pub fn remove(text: &str) -> Result<String, EditError> {
    let before = parse(text)?;
    let has = extensions(&before)?.is_some_and(|e| e.contains_key(NAME));
    if !has {
        return Ok(text.to_owned());
    }
    let want = expected(&before, None)?;
    let lines: Vec<&str> = text.lines().collect();
    let at = layout(&lines)?;
    let (Some(key), Some((start, end))) = (at.key, at.ours) else {
        return Err(EditError::Shape(format!("could not find `{NAME}:` under `{KEY}:`; remove it by hand")));
    };
    let mut out: Vec<String> = lines.iter().map(|l| (*l).to_owned()).collect();
    out.drain(start..end);
    // Nothing left under the key: an empty mapping, not null.
    let left = out.iter().skip(key + 1).take_while(|l| is_filler(l) || indent(l) > 0).any(|l| !is_filler(l));
    if !left {
        out[key] = format!("{KEY}: {{}}");
    }
    verified(join(&out, text.ends_with('\n')), &want)
}
