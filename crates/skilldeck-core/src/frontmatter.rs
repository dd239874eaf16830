//! Frontmatter: splitting `SKILL.md` into its YAML header and Markdown body, and parsing the YAML.
//! Holds the lenient reading (BOM, CRLF, unquoted colons) and the parser's limits; not field rules.

use crate::diagnostic::{DiagCode, Diagnostic};
use crate::yaml_explain;
use serde_yaml_ng::{Mapping, Value};

/// The largest frontmatter parsed, in bytes. Larger ones get `frontmatter_too_large` unparsed.
///
/// Why 16 KiB: the fields a skill needs are small — `description` and `description_zh` at most
/// 1,024 characters each (under 4 KiB of UTF-8 for the Chinese one), `compatibility` 500,
/// `version` 32 — and real descriptions run 155 characters at the median, 364 at p90. 16 KiB
/// holds all of them at their limits plus a generous `metadata` block. It also bounds the
/// parser: within the depth and alias limits of `yaml_bounds`, the worst 16 KiB frontmatter
/// found parses in a few milliseconds (`cargo bench --bench core -- hostile_yaml`), where 64 KiB
/// of `[` took 9 s and was paid again by every listing.
pub const MAX_FRONTMATTER_BYTES: usize = 16 * 1024;

/// `SKILL.md` cut into its parts. Line numbers are 1-based lines of the whole file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split<'a> {
    /// The YAML between the two `---` lines (line ends as in the file).
    pub yaml: &'a str,
    /// The line of the first YAML line (the one after the opening `---`).
    pub yaml_first_line: u32,
    /// The Markdown body after the closing `---`.
    pub body: &'a str,
}

/// Strips a UTF-8 byte-order mark.
fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// Whether a line (without its `\n`) is a `---` fence; trailing spaces and a `\r` are allowed.
fn is_fence(line: &str) -> bool {
    line.trim_end() == "---"
}

/// Splits `text` at its frontmatter fences.
pub fn split(text: &str) -> Result<Split<'_>, Diagnostic> {
    let text = strip_bom(text);
    let first_end = text.find('\n').unwrap_or(text.len());
    if !is_fence(&text[..first_end]) {
        return Err(Diagnostic::error(
            DiagCode::FrontmatterMissing,
            "SKILL.md does not start with a `---` line, so it has no frontmatter",
        )
        .at(Some(1)));
    }
    let yaml_start = (first_end + 1).min(text.len());
    let mut pos = yaml_start;
    let mut line_no: u32 = 2;
    while pos < text.len() {
        let end = text[pos..].find('\n').map_or(text.len(), |i| pos + i);
        if is_fence(&text[pos..end]) {
            let body_start = (end + 1).min(text.len());
            return Ok(Split { yaml: &text[yaml_start..pos], yaml_first_line: 2, body: &text[body_start..] });
        }
        pos = end + 1;
        line_no = line_no.saturating_add(1);
    }
    Err(Diagnostic::error(
        DiagCode::FrontmatterUnclosed,
        format!("the frontmatter opened on line 1 is never closed with `---` (read to line {})", line_no - 1),
    )
    .at(Some(1)))
}

/// The body of `SKILL.md` without its frontmatter; the whole text when there is none.
/// Leading blank lines of the body are dropped.
pub fn strip(text: &str) -> &str {
    match split(text) {
        Ok(s) => s.body.trim_start_matches(['\r', '\n']),
        Err(_) => strip_bom(text),
    }
}

/// The YAML of a frontmatter, parsed, with the lines each top-level key stands on.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedYaml {
    /// The top-level mapping (empty for an empty frontmatter).
    pub fields: Mapping,
    /// Top-level keys and the 1-based file line each stands on.
    pub key_lines: Vec<(String, u32)>,
    /// Warnings from lenient recovery.
    pub warnings: Vec<Diagnostic>,
}

impl ParsedYaml {
    /// The file line a top-level key stands on.
    pub fn line_of(&self, key: &str) -> Option<u32> {
        self.key_lines.iter().find(|(k, _)| k == key).map(|(_, l)| *l)
    }
}

/// Reads the key of a top-level `key: value` line, if the line is one.
fn top_level_key(line: &str) -> Option<(&str, &str)> {
    let first = line.chars().next()?;
    if first.is_whitespace() || matches!(first, '#' | '-' | '{' | '[' | '?') {
        return None;
    }
    let colon = line.find(':')?;
    let rest = &line[colon + 1..];
    if !(rest.is_empty() || rest.starts_with([' ', '\t', '\r'])) {
        return None;
    }
    let key = line[..colon].trim().trim_matches(['"', '\'']);
    Some((key, rest))
}

/// Parses frontmatter YAML. Never panics and never hangs: the size is capped, and nesting depth
/// and alias expansion are bounded by a pre-scan (`yaml_bounds`) before the parser runs.
pub fn parse_yaml(split: &Split<'_>, strict: bool) -> Result<ParsedYaml, Vec<Diagnostic>> {
    if split.yaml.len() > MAX_FRONTMATTER_BYTES {
        return Err(vec![
            Diagnostic::error(
                DiagCode::FrontmatterTooLarge,
                format!(
                    "the frontmatter is {} bytes; the limit is {MAX_FRONTMATTER_BYTES} bytes, so it was not parsed; \
                     keep a few short fields there and move long text into the body or references/",
                    split.yaml.len()
                ),
            )
            .at(Some(split.yaml_first_line)),
        ]);
    }
    let written = split.yaml.replace("\r\n", "\n");
    let yaml = written.replace('\t', "  ");
    // Bound the parser's work before it starts: its time grows with the square of the nesting
    // depth, and aliases can make a value tree far larger than the text.
    crate::yaml_bounds::check(&yaml, split.yaml_first_line).map_err(|d| vec![d])?;
    let key_lines: Vec<(String, u32)> = yaml
        .lines()
        .enumerate()
        .filter_map(|(i, line)| top_level_key(line).map(|(k, _)| (k.to_owned(), split.yaml_first_line + i as u32)))
        .collect();
    let first_line = split.yaml_first_line;
    let explained = |e: ParseFailure| match e {
        ParseFailure::NotMapping(d) => d,
        ParseFailure::Yaml(message) => yaml_explain::explain(&message, &yaml, &written, first_line),
    };
    match parse_mapping(&yaml, first_line) {
        Ok(fields) => {
            // `description: &more tool` parses, but as an anchor and the text `tool`: words
            // lost without a sound. Read such a field as the text it was meant to be; strict
            // mode reads YAML as written, so there it is an error.
            let (repaired, recovered) = quote_plain_values(&yaml, first_line, anchored_text);
            if recovered.is_empty() {
                return Ok(ParsedYaml { fields, key_lines, warnings: Vec::new() });
            }
            if strict {
                return Err(anchored_errors(&yaml, first_line));
            }
            match parse_mapping(&repaired, first_line) {
                Ok(fields) => Ok(ParsedYaml { fields, key_lines, warnings: recovered }),
                Err(_) => Ok(ParsedYaml { fields, key_lines, warnings: Vec::new() }),
            }
        }
        Err(first_error) => {
            // Strict mode reads YAML as written; and YAML built to exhaust the parser (deep
            // nesting, alias bombs) is refused, never repaired.
            let exhausting = matches!(&first_error, ParseFailure::Yaml(m) if m.contains("limit exceeded"));
            if strict || exhausting {
                return Err(vec![explained(first_error)]);
            }
            let (repaired, recovered) = quote_plain_values(&yaml, first_line, unreadable_plain);
            if recovered.is_empty() {
                return Err(vec![explained(first_error)]);
            }
            match parse_mapping(&repaired, first_line) {
                Ok(fields) => Ok(ParsedYaml { fields, key_lines, warnings: recovered }),
                Err(_) => Err(vec![explained(first_error)]),
            }
        }
    }
}

/// Why YAML text did not give a mapping.
enum ParseFailure {
    /// The parser refused it, with its message (and marks).
    Yaml(String),
    /// It parsed, but not to a mapping.
    NotMapping(Diagnostic),
}

/// Parses YAML text that must be a mapping (or empty).
fn parse_mapping(yaml: &str, first_line: u32) -> Result<Mapping, ParseFailure> {
    match serde_yaml_ng::from_str::<Value>(yaml) {
        Ok(Value::Mapping(m)) => Ok(m),
        Ok(Value::Null) => Ok(Mapping::new()),
        Ok(other) => Err(ParseFailure::NotMapping(
            Diagnostic::error(
                DiagCode::YamlNotMapping,
                format!("the frontmatter is a {}, not `field: value` lines", kind_of(&other)),
            )
            .at(Some(first_line)),
        )),
        Err(e) => Err(ParseFailure::Yaml(e.to_string())),
    }
}

/// The top-level frontmatter fields of `SKILL.md` as `(key, value)` in file order, for tables
/// in a UI, with nested values kept as they are. Empty when there is no readable frontmatter.
pub fn field_rows(text: &str) -> Vec<(String, Value)> {
    let Ok(split) = split(text) else { return Vec::new() };
    let Ok(parsed) = parse_yaml(&split, false) else { return Vec::new() };
    parsed
        .key_lines
        .iter()
        .filter_map(|(key, _)| Some((key.clone(), parsed.fields.get(key.as_str())?.clone())))
        .collect()
}

/// A word for the kind of a YAML value, for messages.
pub fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "empty value",
        Value::Bool(_) => "true/false value",
        Value::Number(_) => "number",
        Value::String(_) => "text",
        Value::Sequence(_) => "list",
        Value::Mapping(_) => "mapping",
        Value::Tagged(_) => "tagged value",
    }
}

/// A plain value YAML refuses: an unquoted `: ` inside it, or a leading indicator.
fn unreadable_plain(value: &str) -> bool {
    value.contains(": ") || value.starts_with(['*', '&', '@', '`', '%', '!'])
}

/// A plain value YAML reads, but not as the text written: an anchor or a tag (not a standard
/// `!!` one) followed by words, as in `&more tool` or `!important note`.
fn anchored_text(value: &str) -> bool {
    let tagged = value.starts_with('&') || (value.starts_with('!') && !value.starts_with("!!"));
    tagged
        && value.split_once(' ').is_some_and(|(_, rest)| {
            !rest.trim().is_empty() && !rest.trim_start().starts_with(['[', '{', '|', '>', '#'])
        })
}

/// Strict mode's errors for top-level values that `anchored_text` picks.
fn anchored_errors(yaml: &str, first_line: u32) -> Vec<Diagnostic> {
    yaml.lines()
        .enumerate()
        .filter_map(|(i, line)| {
            let (key, rest) = top_level_key(line)?;
            let value = rest.trim();
            if !anchored_text(value) {
                return None;
            }
            let msg = yaml_explain::indicator_message(&format!("the value of `{key}`"), value.chars().next()?)?;
            Some(Diagnostic::error(DiagCode::YamlInvalid, msg).at(Some(first_line + i as u32)))
        })
        .collect()
}

/// Quotes the plain top-level values `needs` picks (`unreadable_plain`: what YAML refuses;
/// `anchored_text`: what it misreads). Returns the repaired text and one warning per line changed.
fn quote_plain_values(yaml: &str, first_line: u32, needs: fn(&str) -> bool) -> (String, Vec<Diagnostic>) {
    let mut out = String::with_capacity(yaml.len() + 16);
    let mut warnings = Vec::new();
    for (i, line) in yaml.lines().enumerate() {
        let repaired = top_level_key(line).and_then(|(key, rest)| {
            let value = rest.trim();
            let plain = !value.is_empty() && !value.starts_with(['"', '\'', '[', '{', '|', '>']);
            (plain && needs(value)).then(|| {
                let escaped = value.replace('\\', "\\\\").replace('"', "\\\"");
                let why = match value.chars().next().and_then(|c| Some((c, yaml_explain::indicator_meaning(c)?))) {
                    Some((c, meaning)) => {
                        format!("starts with {}, which YAML reads as {meaning}", yaml_explain::code_span(c))
                    }
                    None => "holds `: `, which YAML reads as the start of another field".to_owned(),
                };
                warnings.push(
                    Diagnostic::warning(
                        DiagCode::YamlRecovered,
                        format!(
                            "the value of `{key}` {why}; Skilldeck read it as text, but other tools may not — \
                             put the whole value in double quotes"
                        ),
                    )
                    .at(Some(first_line + i as u32)),
                );
                format!("{key}: \"{escaped}\"")
            })
        });
        out.push_str(repaired.as_deref().unwrap_or(line));
        out.push('\n');
    }
    (out, warnings)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_handles_bom_crlf_and_fences() {
        let s = split("\u{feff}---\r\nname: a\r\n---\r\nbody\r\n").unwrap();
        assert_eq!(s, Split { yaml: "name: a\r\n", yaml_first_line: 2, body: "body\r\n" });
        assert_eq!(split("---\n---\n").unwrap().yaml, "");
        assert_eq!(split("---\nname: a\n---").unwrap().body, "");
        assert_eq!(split("# no\n").unwrap_err().code, DiagCode::FrontmatterMissing);
        assert_eq!(split("---\nname: a\n").unwrap_err().code, DiagCode::FrontmatterUnclosed);
        assert_eq!(strip("---\nname: a\n---\n\n# Title\n"), "# Title\n");
        assert_eq!(strip("# Title\n"), "# Title\n");
    }
}
