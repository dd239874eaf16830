//! The value checks of the agents' table (`agents::Accepts`): whether a YAML value is what the
//! agent that reads the field accepts. Holds the checks; not which agent reads what, nor
//! severities (`agent_rules` decides those).

use crate::agents::{Accepts, HOOK_EVENTS, HOOK_TYPES, MODEL_ALIASES};
use crate::diagnostic::DiagCode;
use crate::frontmatter::{kind_of, kind_token};
use crate::tool_patterns::{is_tool_pattern, split_tool_patterns};
use serde_yaml_ng::Value;

/// What is wrong with a value: the code, the words after the field's name, and the facts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// `field_type_invalid` (wrong kind of value) or `field_value_invalid`.
    pub code: DiagCode,
    /// What is wrong, e.g. "is \"spawn\"; use `fork` or leave it out".
    pub what: String,
    /// The facts for a translated template (`kind`, `expected`, `value`).
    pub args: Vec<(&'static str, String)>,
}

impl Problem {
    fn kind(v: &Value, expected: &'static str) -> Self {
        Self {
            code: DiagCode::FieldTypeInvalid,
            what: format!("is a {}, not {}", kind_of(v), expected_words(expected)),
            args: vec![("kind", kind_token(v).to_owned()), ("expected", expected.to_owned())],
        }
    }

    fn value(what: String, value: &str) -> Self {
        Self { code: DiagCode::FieldValueInvalid, what, args: vec![("value", value.to_owned())] }
    }
}

fn expected_words(token: &str) -> &'static str {
    match token {
        "bool" => "`true` or `false`",
        "mapping" => "a mapping",
        "list" => "text or a list of texts",
        _ => "text",
    }
}

/// The first problem with `value` for `accepts`; `None` when it is accepted.
pub fn check(accepts: Accepts, value: &Value) -> Option<Problem> {
    match accepts {
        Accepts::Any => None,
        Accepts::Text => text(value).err(),
        Accepts::TextMax(max) => {
            let t = match text(value) {
                Ok(t) => t,
                Err(p) => return Some(p),
            };
            let len = t.chars().count();
            (len > max).then(|| Problem {
                code: DiagCode::FieldValueInvalid,
                what: format!("is {len} characters; the limit is {max}"),
                args: vec![("length", len.to_string()), ("limit", max.to_string())],
            })
        }
        Accepts::Hint => list_of(value, '\n').err(),
        Accepts::Bool => match value {
            Value::Bool(_) => None,
            other => Some(Problem::kind(other, "bool")),
        },
        Accepts::OneOf(words) => match text(value) {
            Err(p) => Some(p),
            Ok(t) if words.contains(&t) => None,
            Ok(t) => Some(Problem::value(format!("is {t:?}; use {}", one_of(words)), t)),
        },
        Accepts::Model => match text(value) {
            Err(p) => Some(p),
            Ok(t) if is_model(t) => None,
            Ok(t) => Some(Problem::value(
                format!(
                    "is {t:?}, neither a model alias ({}) nor a full model id such as `claude-sonnet-4-5`",
                    MODEL_ALIASES.join(", ")
                ),
                t,
            )),
        },
        Accepts::Hooks => hooks(value).err(),
        Accepts::Globs => match value {
            Value::String(s) => globs(&split_outside_braces(s)).err(),
            other => list_of(other, ',').and_then(|items| globs(&items)).err(),
        },
        Accepts::Tools => match list_of(value, ' ') {
            Err(p) => Some(p),
            Ok(items) => {
                let bad: Vec<String> =
                    items.iter().flat_map(|i| split_tool_patterns(i)).filter(|p| !is_tool_pattern(p)).collect();
                (!bad.is_empty()).then(|| {
                    Problem::value(format!("holds what is not a tool pattern: {}", bad.join(", ")), &bad.join(", "))
                })
            }
        },
        Accepts::Names => match list_of(value, ' ') {
            Err(p) => Some(p),
            Ok(items) => {
                let bad: Vec<&str> = items
                    .iter()
                    .flat_map(|i| i.split_whitespace())
                    .filter(|n| !n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'))
                    .collect();
                (!bad.is_empty()).then(|| {
                    Problem::value(
                        format!("holds names that are not single words: {}", bad.join(", ")),
                        &bad.join(", "),
                    )
                })
            }
        },
        Accepts::CodexMetadata => match value {
            Value::Mapping(m) => match m.get("short-description") {
                None | Some(Value::Null) => None,
                Some(v) => check(Accepts::TextMax(1024), v)
                    .map(|p| Problem { what: format!("has a `short-description` that {}", p.what), ..p }),
            },
            // Not a mapping at all: Skilldeck's own `metadata` reader says so.
            _ => None,
        },
    }
}

fn text(value: &Value) -> Result<&str, Problem> {
    match value {
        Value::String(s) => Ok(s),
        other => Err(Problem::kind(other, "text")),
    }
}

/// `a`, `a` or `b`, `a`, `b` or `c`, each in backticks.
fn one_of(words: &[&str]) -> String {
    let quoted: Vec<String> = words.iter().map(|w| format!("`{w}`")).collect();
    match quoted.split_last() {
        None => String::new(),
        Some((last, [])) => format!("{last} or leave it out"),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

/// A text split on `sep` (and white space around it), or a list of texts.
fn list_of(value: &Value, sep: char) -> Result<Vec<String>, Problem> {
    match value {
        Value::String(s) => Ok(s.split(sep).map(str::trim).filter(|p| !p.is_empty()).map(str::to_owned).collect()),
        Value::Sequence(items) => items
            .iter()
            .map(|i| match i {
                Value::String(s) => Ok(s.trim().to_owned()),
                other => Err(Problem::kind(other, "text")),
            })
            .collect(),
        other => Err(Problem::kind(other, "list")),
    }
}

/// `a, b/{c,d}` → `a`, `b/{c,d}`: commas inside braces are a glob's alternatives.
fn split_outside_braces(s: &str) -> Vec<String> {
    let (mut out, mut cur, mut depth) = (Vec::new(), String::new(), 0usize);
    for c in s.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                out.push(std::mem::take(&mut cur).trim().to_owned());
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    out.push(cur.trim().to_owned());
    out.retain(|g| !g.is_empty());
    out
}

/// A model alias, or a full id that names a Claude model (`claude-opus-4-1`,
/// `claude-sonnet-4-5-20250929`, `us.anthropic.claude-…` on Bedrock, `claude-…@date` on
/// Vertex), with `[1m]` allowed at the end.
pub fn is_model(t: &str) -> bool {
    if MODEL_ALIASES.contains(&t) {
        return true;
    }
    let id = t.strip_suffix("[1m]").unwrap_or(t);
    id.contains("claude-")
        && !id.ends_with('-')
        && id.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '-' | '.' | ':' | '@'))
}

/// Every pattern a glob (`src/**/*.rs`, `*.{ts,tsx}`): not empty, brackets and braces closed,
/// `**` only as a whole path part.
fn globs(items: &[String]) -> Result<(), Problem> {
    for g in items {
        let balanced = g.matches('{').count() == g.matches('}').count();
        // `glob` does not know braces; each alternative is checked on its own.
        let plain = g.replace(['{', '}'], "").replace(',', "/");
        if g.is_empty() || !balanced || glob::Pattern::new(&plain).is_err() {
            return Err(Problem::value(format!("holds {g:?}, which is not a glob pattern"), g));
        }
    }
    if items.is_empty() {
        return Err(Problem::value("names no pattern".to_owned(), ""));
    }
    Ok(())
}

/// Claude Code's hook shape: a mapping of events to lists of `{matcher?, hooks: [handler]}`,
/// each handler `{type, …}` with what its type needs.
fn hooks(value: &Value) -> Result<(), Problem> {
    let Value::Mapping(events) = value else { return Err(Problem::kind(value, "mapping")) };
    for (event, groups) in events {
        let name = event.as_str().unwrap_or_default();
        if !HOOK_EVENTS.contains(&name) {
            return Err(Problem::value(
                format!("names the event {name:?}; events are {}", HOOK_EVENTS.join(", ")),
                name,
            ));
        }
        let Value::Sequence(groups) = groups else {
            return Err(Problem::value(format!("`{name}` should be a list of `{{matcher, hooks}}` entries"), name));
        };
        for group in groups {
            let handlers = match group.get("hooks") {
                Some(Value::Sequence(h)) if !h.is_empty() => h,
                _ => return Err(Problem::value(format!("an entry of `{name}` has no `hooks:` list"), name)),
            };
            if group.get("matcher").is_some_and(|m| !m.is_string()) {
                return Err(Problem::value(format!("an entry of `{name}` has a `matcher` that is not text"), name));
            }
            for h in handlers {
                let kind = h.get("type").and_then(Value::as_str).unwrap_or_default();
                let needs = match kind {
                    "command" => "command",
                    "prompt" | "agent" => "prompt",
                    "http" => "url",
                    _ => {
                        let msg = format!("a hook of `{name}` has type {kind:?}; types are {}", HOOK_TYPES.join(", "));
                        return Err(Problem::value(msg, kind));
                    }
                };
                if !h.get(needs).is_some_and(Value::is_string) {
                    return Err(Problem::value(format!("a `{kind}` hook of `{name}` has no `{needs}:` text"), kind));
                }
            }
        }
    }
    Ok(())
}
