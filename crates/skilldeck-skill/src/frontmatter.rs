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
    /// How many spaces the whole frontmatter is indented by (0 as the spec writes it); the
    /// YAML is read with that indentation removed.
    pub indent: usize,
    /// What was assumed to find the frontmatter; empty when the fences are as the spec writes them.
    pub assumed: Vec<Assumption>,
}

/// Something the reader assumed to find a frontmatter the spec would not call one. Default
/// validation reports each as a warning saying what was assumed; strict validation as an error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Assumption {
    /// The fences and fields are indented as a block by `indent` spaces.
    Indented {
        /// The spaces before the opening `---`.
        indent: usize,
    },
    /// The closing fence on `line` is indented, or has text after its `---`.
    LooseClosingFence {
        /// The file line of the closing fence.
        line: u32,
        /// The text after the `---` (empty when the fence is only indented).
        trailing: String,
    },
}

impl Assumption {
    /// The diagnostic for this assumption: a warning saying what was assumed, or in strict mode
    /// an error saying what the spec wants.
    pub fn diagnostic(&self, strict: bool) -> Diagnostic {
        match (self, strict) {
            (Self::Indented { indent }, false) => Diagnostic::warning(
                DiagCode::FrontmatterRecovered,
                format!(
                    "the frontmatter is indented by {indent} spaces as a whole; Skilldeck read it as if it started \
                     at the left margin, but other tools may find no frontmatter — remove the indentation"
                ),
            )
            .at(Some(1))
            .arg("indent", indent),
            (Self::Indented { indent }, true) => Diagnostic::error(
                DiagCode::FrontmatterMissing,
                format!(
                    "SKILL.md starts with `---` indented by {indent} spaces, which is not a frontmatter fence; \
                     remove the indentation from the fences and the fields"
                ),
            )
            .at(Some(1))
            .arg("indent", indent),
            (Self::LooseClosingFence { line, trailing }, false) => {
                let what = if trailing.is_empty() {
                    "is indented".to_owned()
                } else {
                    format!("has text after the `---` ({trailing:?})")
                };
                Diagnostic::warning(
                    DiagCode::FrontmatterRecovered,
                    format!(
                        "the line that closes the frontmatter {what}; Skilldeck read it as the closing `---` and \
                         the rest as the body, but other tools may not — write `---` alone at the left margin"
                    ),
                )
                .at(Some(*line))
                .arg("text", trailing)
            }
            (Self::LooseClosingFence { line, trailing }, true) => Diagnostic::error(
                DiagCode::FrontmatterUnclosed,
                format!(
                    "the frontmatter opened on line 1 has no line of exactly `---` to close it; line {line} comes \
                     closest, but {}; write `---` alone at the left margin",
                    if trailing.is_empty() {
                        "it is indented".to_owned()
                    } else {
                        format!("it has text after the `---` ({trailing:?})")
                    }
                ),
            )
            .at(Some(1))
            .arg("fence_line", line)
            .arg("text", trailing),
        }
    }
}

/// Strips a UTF-8 byte-order mark.
fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// Whether a line (without its `\n`) is a `---` fence; trailing spaces and a `\r` are allowed.
fn is_fence(line: &str) -> bool {
    line.trim_end() == "---"
}

/// The lines of `text` from byte `from`: `(start, end)` of each, without its `\n`.
fn lines_from(text: &str, from: usize) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut pos = from;
    std::iter::from_fn(move || {
        (pos < text.len()).then(|| {
            let end = text[pos..].find('\n').map_or(text.len(), |i| pos + i);
            let line = (pos, end);
            pos = end + 1;
            line
        })
    })
}

/// A line that may close the frontmatter but is not a plain `---`: indented, or `---` followed
/// by text (not by more dashes). Returns where its `---` ends.
fn loose_fence(line: &str) -> Option<usize> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    let rest = line[indent..].strip_prefix("---")?;
    let loose = indent > 0 || !rest.trim().is_empty();
    (loose && !rest.starts_with('-')).then_some(indent + 3)
}

/// Splits `text` at its frontmatter fences. A frontmatter indented as a block, or closed by a
/// `---` with text after it, is read as meant and recorded in [`Split::assumed`].
pub fn split(text: &str) -> Result<Split<'_>, Diagnostic> {
    let text = strip_bom(text);
    let first_end = text.find('\n').unwrap_or(text.len());
    let first = &text[..first_end];
    let indent = first.len() - first.trim_start_matches(' ').len();
    if !is_fence(&first[indent..]) {
        return Err(Diagnostic::error(
            DiagCode::FrontmatterMissing,
            "SKILL.md does not start with a `---` line, so it has no frontmatter",
        )
        .at(Some(1)));
    }
    let yaml_start = (first_end + 1).min(text.len());
    let mut assumed = Vec::new();
    if indent > 0 {
        assumed.push(Assumption::Indented { indent });
    }
    let exact = |line: &str| if indent > 0 { is_fence(line.trim_start_matches(' ')) } else { is_fence(line) };
    let found = lines_from(text, yaml_start).find(|(s, e)| exact(&text[*s..*e])).map(|(s, e)| (s, e + 1));
    let found = found.or_else(|| {
        lines_from(text, yaml_start).zip(2u32..).find_map(|((s, e), line_no)| {
            let dashes_end = s + loose_fence(&text[s..e])?;
            let trailing = text[dashes_end..e].trim().to_owned();
            if indent == 0 || !trailing.is_empty() {
                assumed.push(Assumption::LooseClosingFence { line: line_no, trailing });
            }
            let body = dashes_end + (text[dashes_end..e].len() - text[dashes_end..e].trim_start().len());
            Some((s, if body >= e { e + 1 } else { body }))
        })
    });
    match found {
        Some((fence, body_start)) => {
            let yaml = &text[yaml_start..fence];
            // Fields indented as a block under unindented fences are valid YAML; read them
            // dedented, so every top-level field keeps its line.
            let indent = if indent == 0 && yaml.starts_with(' ') { block_indent(yaml) } else { indent };
            Ok(Split { yaml, yaml_first_line: 2, body: &text[body_start.min(text.len())..], indent, assumed })
        }
        None => Err(unclosed(&text[yaml_start..])),
    }
}

/// The indentation every line of `yaml` that holds something shares.
fn block_indent(yaml: &str) -> usize {
    yaml.lines().filter(|l| !l.trim().is_empty()).map(|l| l.len() - l.trim_start_matches(' ').len()).min().unwrap_or(0)
}

/// The error for a frontmatter with no closing fence: at the opening `---`, naming the last
/// line that looks like a field, after which the `---` belongs.
fn unclosed(yaml: &str) -> Diagnostic {
    let last_field = yaml
        .lines()
        .zip(2u32..)
        .filter(|(l, _)| top_level_key(l.trim_start_matches(' ')).is_some())
        .map(|(_, n)| n)
        .last();
    let lines = u32::try_from(yaml.lines().count()).unwrap_or(u32::MAX);
    let msg = match last_field {
        Some(n) => format!(
            "the frontmatter opened on line 1 is never closed: no line `---` follows it (read to line {}); add a \
             line `---` after its last field (line {n})",
            lines.saturating_add(1)
        ),
        None => format!(
            "the frontmatter opened on line 1 is never closed: no line `---` follows it (read to line {})",
            lines.saturating_add(1)
        ),
    };
    let d = Diagnostic::error(DiagCode::FrontmatterUnclosed, msg).at(Some(1));
    match last_field {
        Some(n) => d.arg("last_field_line", n),
        None => d,
    }
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
    /// The YAML as read: line ends `\n`, tabs as spaces, a block indentation removed.
    pub text: String,
    /// The file line of `text`'s first line.
    pub first_line: u32,
}

impl ParsedYaml {
    /// The file line a top-level key stands on.
    pub fn line_of(&self, key: &str) -> Option<u32> {
        self.key_lines.iter().find(|(k, _)| k == key).map(|(_, l)| *l)
    }

    /// The file line of `child`, a key of the block mapping under the top-level key `parent`.
    pub fn child_line(&self, parent: &str, child: &str) -> Option<u32> {
        let from = usize::try_from(self.line_of(parent)?.checked_sub(self.first_line)?).ok()?;
        let mut child_indent = None;
        for (i, line) in self.text.lines().enumerate().skip(from + 1) {
            let indent = line.len() - line.trim_start_matches(' ').len();
            let rest = &line[indent..];
            if rest.is_empty() || rest.starts_with('#') {
                continue;
            }
            if indent == 0 {
                return None;
            }
            let want = *child_indent.get_or_insert(indent);
            if indent == want
                && let Some((key, _)) = top_level_key(rest)
                && key == child
            {
                return Some(self.first_line.saturating_add(u32::try_from(i).ok()?));
            }
        }
        None
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

/// Removes up to `indent` leading spaces from every line of `text`.
fn dedent(text: String, indent: usize) -> String {
    if indent == 0 {
        return text;
    }
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let spaces = line.len() - line.trim_start_matches(' ').len();
        out.push_str(&line[spaces.min(indent)..]);
    }
    out
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
            .at(Some(split.yaml_first_line))
            .arg("bytes", split.yaml.len())
            .arg("limit", MAX_FRONTMATTER_BYTES),
        ]);
    }
    let written = dedent(split.yaml.replace("\r\n", "\n"), split.indent);
    let yaml = written.replace('\t', "  ");
    // Bound the parser's work before it starts: its time grows with the square of the nesting
    // depth, and aliases can make a value tree far larger than the text.
    crate::yaml_bounds::check(&yaml, split.yaml_first_line).map_err(|d| vec![d])?;
    let first_line = split.yaml_first_line;
    let key_lines: Vec<(String, u32)> = yaml
        .lines()
        .enumerate()
        .filter_map(|(i, line)| top_level_key(line).map(|(k, _)| (k.to_owned(), first_line + i as u32)))
        .collect();
    let explained = |e: ParseFailure| match e {
        ParseFailure::NotMapping(d) => d,
        ParseFailure::Yaml(message) => runs_into_body(&yaml, &message, first_line)
            .unwrap_or_else(|| yaml_explain::explain(&message, &yaml, &written, first_line)),
    };
    match parse_mapping(&yaml, first_line) {
        Ok(fields) => {
            // `description: &more tool` parses, but as an anchor and the text `tool`: words
            // lost without a sound. Read such a value as the text it was meant to be; strict
            // mode reads YAML as written, so there it is an error.
            let (repaired, recovered) = quote_plain_values(&yaml, first_line, anchored_text);
            if recovered.is_empty() {
                return Ok(ParsedYaml { fields, key_lines, warnings: Vec::new(), text: yaml, first_line });
            }
            if strict {
                return Err(anchored_errors(&yaml, first_line));
            }
            let (fields, warnings) = match parse_mapping(&repaired, first_line) {
                Ok(repaired) => (repaired, recovered),
                Err(_) => (fields, Vec::new()),
            };
            Ok(ParsedYaml { fields, key_lines, warnings, text: yaml, first_line })
        }
        Err(first_error) => {
            // Strict mode reads YAML as written; and YAML built to exhaust the parser (deep
            // nesting, alias bombs) is refused, never repaired.
            let exhausting = matches!(&first_error, ParseFailure::Yaml(m) if m.contains("limit exceeded"));
            if strict || exhausting {
                return Err(vec![explained(first_error)]);
            }
            let (text, mut warnings) = match decode_surrogates(&yaml) {
                Some((decoded, found)) => (decoded, found.iter().map(|s| s.warning(&yaml, first_line)).collect()),
                None => (yaml.clone(), Vec::new()),
            };
            if !warnings.is_empty()
                && let Ok(fields) = parse_mapping(&text, first_line)
            {
                return Ok(ParsedYaml { fields, key_lines, warnings, text: yaml, first_line });
            }
            let (repaired, recovered) = quote_plain_values(&text, first_line, unreadable_plain);
            if recovered.is_empty() {
                return Err(vec![explained(first_error)]);
            }
            match parse_mapping(&repaired, first_line) {
                Ok(fields) => {
                    warnings.extend(recovered);
                    warnings.sort_by_key(|d| d.line);
                    Ok(ParsedYaml { fields, key_lines, warnings, text: yaml, first_line })
                }
                Err(_) => Err(vec![explained(first_error)]),
            }
        }
    }
}

/// `text` (a whole `SKILL.md`) with every frontmatter value that YAML would misread (an
/// unquoted `: `, a leading `*`, `&`, `@`, `` ` `` …) put in double quotes: the one-click fix for
/// the `yaml_recovered` warning and the most common `yaml_invalid` error in real skills. `None`
/// when no value needs it, or the frontmatter is not written as the spec writes it.
pub fn quoted(text: &str) -> Option<String> {
    let split = split(text).ok()?;
    if split.indent != 0 || split.yaml.contains('\r') {
        return None;
    }
    let start = (split.yaml.as_ptr() as usize).checked_sub(text.as_ptr() as usize)?;
    let end = start + split.yaml.len();
    let first_line = split.yaml_first_line;
    let (mut repaired, mut found) = quote_plain_values(split.yaml, first_line, unreadable_plain);
    if found.is_empty() {
        (repaired, found) = quote_plain_values(split.yaml, first_line, anchored_text);
    }
    if found.is_empty() || parse_mapping(&repaired, first_line).is_err() {
        return None;
    }
    // The repair keeps the line count with empty lines where a value went on: drop them.
    let lines: Vec<&str> = repaired.lines().filter(|l| !l.is_empty()).collect();
    let mut out = String::with_capacity(text.len() + 8);
    out.push_str(&text[..start]);
    for l in lines {
        out.push_str(l);
        out.push('\n');
    }
    out.push_str(&text[end..]);
    Some(out)
}

/// A frontmatter whose closing `---` is missing before the Markdown body, so the body was read
/// as YAML up to a later `---` (a horizontal rule): the parser fails somewhere in the body.
/// Reported at the opening fence, naming the heading the body starts with.
fn runs_into_body(yaml: &str, message: &str, first_line: u32) -> Option<Diagnostic> {
    let lines: Vec<&str> = yaml.lines().collect();
    let is_heading = |l: &str| {
        let hashes = l.len() - l.trim_start_matches('#').len();
        (1..=6).contains(&hashes) && l[hashes..].starts_with(' ') && !l[hashes..].trim().is_empty()
    };
    let heading = (1..lines.len()).find(|&i| {
        is_heading(lines[i]) && lines[i - 1].trim().is_empty() && lines[..i].iter().any(|l| top_level_key(l).is_some())
    })?;
    // The parser's marks: `at line N`, 1-based lines of the YAML.
    let failed_at =
        message.split(" at line ").skip(1).filter_map(|t| t.split_whitespace().next()?.parse::<usize>().ok()).max()?;
    // Prose after the heading, up to where the parser failed: a line of words, not a field or a
    // comment (a `# Section` comment between fields is YAML, and so are the fields after it).
    let prose = lines.iter().take(failed_at).skip(heading + 1).any(|l| {
        let t = l.trim();
        !t.is_empty() && !l.starts_with([' ', '#', '-']) && top_level_key(l).is_none()
    });
    if failed_at <= heading || !prose {
        return None;
    }
    let line_of = |i: usize| first_line.saturating_add(u32::try_from(i).unwrap_or(u32::MAX));
    let fence = line_of(lines.len());
    let last_field = (0..heading).rev().find(|&i| top_level_key(lines[i]).is_some()).map_or(first_line, line_of);
    Some(
        Diagnostic::error(
            DiagCode::FrontmatterUnclosed,
            format!(
                "the frontmatter opened on line {} is not closed before the Markdown: the first `---` after it is \
                 on line {fence}, so the heading on line {} ({:?}) and the text after it were read as YAML; add a \
                 line `---` after the last field (line {last_field})",
                first_line - 1,
                line_of(heading),
                lines[heading].trim()
            ),
        )
        .at(Some(first_line - 1))
        .arg("heading_line", line_of(heading))
        .arg("fence_line", fence)
        .arg("last_field_line", last_field),
    )
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
            .at(Some(first_line))
            .arg("kind", kind_token(&other)),
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

/// A stable token for the kind of a YAML value, for a diagnostic's `kind` argument (a UI
/// translates it): `null`, `bool`, `number`, `text`, `list`, `mapping` or `tagged`.
pub fn kind_token(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "text",
        Value::Sequence(_) => "list",
        Value::Mapping(_) => "mapping",
        Value::Tagged(_) => "tagged",
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

/// A line holding a value: `key: value`, `- value` or `- key: value`, at any depth.
struct Entry<'a> {
    /// The key, or `None` for a list entry.
    key: Option<&'a str>,
    /// The value as written on the line, trimmed.
    value: &'a str,
    /// The byte where the value starts.
    value_at: usize,
    /// The column of the key (or of the `-`): more of a plain value is indented past it.
    col: usize,
}

impl Entry<'_> {
    /// "the value of `key`", or "the list entry".
    fn value_name(&self) -> String {
        match self.key {
            Some(k) => format!("the value of `{k}`"),
            None => "the list entry".to_owned(),
        }
    }
}

/// Reads a line as an [`Entry`], if it is one.
fn entry(line: &str) -> Option<Entry<'_>> {
    let mut at = line.len() - line.trim_start_matches(' ').len();
    let mut col = at;
    let mut dashed = false;
    while line[at..].starts_with("- ") {
        dashed = true;
        col = at;
        at += 2;
        at += line[at..].len() - line[at..].trim_start_matches(' ').len();
    }
    let rest = &line[at..];
    let keyed = !rest.starts_with(['#', '{', '[', '?', '"', '\'', '*', '&', '!', '|', '>', '@', '`', '%', '-'])
        && rest.find(':').is_some_and(|c| rest[c + 1..].is_empty() || rest[c + 1..].starts_with(' '));
    let (key, value_from) = if keyed {
        let c = rest.find(':')?;
        col = at;
        (Some(rest[..c].trim().trim_matches(['"', '\''])), at + c + 1)
    } else if dashed {
        (None, at)
    } else {
        return None;
    };
    let value = line[value_from..].trim();
    let value_at = value_from + (line[value_from..].len() - line[value_from..].trim_start().len());
    Some(Entry { key, value, value_at, col })
}

/// Whether `value` starts with a real reference: an alias (`*name`) whose anchor is defined in
/// `yaml`, or an anchor (`&name`) that an alias uses. Such values are YAML, not stray text.
fn is_real_reference(value: &str, yaml: &str) -> bool {
    let (sigil, other) = match value.chars().next() {
        Some('*') => ('*', '&'),
        Some('&') => ('&', '*'),
        _ => return false,
    };
    let name = value[sigil.len_utf8()..].split([' ', ',', ']', '}']).next().unwrap_or("");
    !name.is_empty() && yaml.contains(&format!("{other}{name}"))
}

/// Strict mode's errors for the values that `anchored_text` picks.
fn anchored_errors(yaml: &str, first_line: u32) -> Vec<Diagnostic> {
    yaml.lines()
        .enumerate()
        .filter_map(|(i, line)| {
            let e = entry(line)?;
            if !anchored_text(e.value) {
                return None;
            }
            let msg = yaml_explain::indicator_message(&e.value_name(), e.value.chars().next()?)?;
            let d = Diagnostic::error(DiagCode::YamlInvalid, msg).at(Some(first_line + i as u32));
            Some(match e.key {
                Some(k) => d.arg("field", k),
                None => d,
            })
        })
        .collect()
}

/// The entry on `line` whose plain value `needs` picks, unless it is a real reference.
fn picked<'l>(line: &'l str, yaml: &str, needs: fn(&str) -> bool) -> Option<Entry<'l>> {
    entry(line).filter(|e| {
        let plain = !e.value.is_empty() && !e.value.starts_with(['"', '\'', '[', '{', '|', '>']);
        plain && needs(e.value) && !is_real_reference(e.value, yaml)
    })
}

/// Quotes the plain values `needs` picks (`unreadable_plain`: what YAML refuses;
/// `anchored_text`: what it misreads), at any depth and with the lines a plain value runs on
/// to folded in. Returns the repaired text (same line count) and one warning per value changed.
fn quote_plain_values(yaml: &str, first_line: u32, needs: fn(&str) -> bool) -> (String, Vec<Diagnostic>) {
    let picks = |line| picked(line, yaml, needs);
    // Most frontmatter needs nothing: say so without building a copy (listing runs this per skill).
    if !yaml.lines().any(|l| picks(l).is_some()) {
        return (String::new(), Vec::new());
    }
    let lines: Vec<&str> = yaml.lines().collect();
    let mut out = String::with_capacity(yaml.len() + 16);
    let mut warnings = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let Some(e) = picks(line) else {
            out.push_str(line);
            out.push('\n');
            i += 1;
            continue;
        };
        // More of the plain value: the lines below indented past its key, blank lines between.
        let mut text = e.value.to_owned();
        let mut end = i + 1;
        let mut blanks = 0;
        for (j, next) in lines.iter().enumerate().skip(i + 1) {
            let indent = next.len() - next.trim_start_matches(' ').len();
            let rest = next.trim();
            if rest.is_empty() {
                blanks += 1;
                continue;
            }
            if indent <= e.col || rest.starts_with('#') {
                break;
            }
            text.push_str(&if blanks > 0 { "\n".repeat(blanks) } else { " ".to_owned() });
            text.push_str(rest);
            blanks = 0;
            end = j + 1;
        }
        let escaped = text.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n");
        let why = match e.value.chars().next().and_then(|c| Some((c, yaml_explain::indicator_meaning(c)?))) {
            Some((c, meaning)) => format!("starts with {}, which YAML reads as {meaning}", yaml_explain::code_span(c)),
            None => "holds `: `, which YAML reads as the start of another field".to_owned(),
        };
        let d = Diagnostic::warning(
            DiagCode::YamlRecovered,
            format!(
                "{} {why}; Skilldeck read it as text, but other tools may not — put the whole value in double \
                 quotes",
                e.value_name()
            ),
        )
        .at(Some(first_line + i as u32));
        warnings.push(match e.key {
            Some(k) => d.arg("field", k),
            None => d,
        });
        out.push_str(&line[..e.value_at]);
        out.push('"');
        out.push_str(&escaped);
        out.push_str("\"\n");
        // Keep the line count, so every later line keeps its number.
        for _ in i + 1..end {
            out.push('\n');
        }
        i = end;
    }
    (out, warnings)
}

/// A JSON-style `\uXXXX` escape of a UTF-16 surrogate in a double-quoted value, which YAML
/// refuses and JavaScript's YAML readers decode.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Surrogate {
    /// The 0-based YAML line the escape is on.
    line: usize,
    /// The 0-based YAML line its quoted value opens on.
    opened: usize,
    /// The escape as written (`\ud83e\udec0`, or one lone half).
    written: String,
    /// What it was read as (U+FFFD for a lone half).
    read_as: char,
}

impl Surrogate {
    fn warning(&self, yaml: &str, first_line: u32) -> Diagnostic {
        let whose = yaml.lines().nth(self.opened).and_then(entry).map_or("a value".to_owned(), |e| e.value_name());
        let code = format!("U+{:04X}", u32::from(self.read_as));
        let d = Diagnostic::warning(
            DiagCode::YamlRecovered,
            format!(
                "{whose} holds `{}`, a JSON-style escape (UTF-16 surrogates) that YAML does not allow; Skilldeck \
                 read it as {:?} ({code}), as JavaScript tools do — write the character itself, or `\\U{:08X}`",
                self.written,
                self.read_as,
                u32::from(self.read_as)
            ),
        )
        .at(Some(first_line.saturating_add(u32::try_from(self.line).unwrap_or(u32::MAX))))
        .arg("escape", &self.written)
        .arg("char", code);
        match yaml.lines().nth(self.opened).and_then(entry).and_then(|e| e.key) {
            Some(k) => d.arg("field", k),
            None => d,
        }
    }
}

/// A `\uXXXX` escape at the start of `s`, as its code unit.
fn unit(s: &str) -> Option<u32> {
    let hex = s.strip_prefix("\\u")?.get(..4)?;
    u32::from_str_radix(hex, 16).ok()
}

/// Decodes JSON-style surrogate escapes in double-quoted values (`"\ud83e\udec0"` → `🫀`, as
/// js-yaml does; a lone half → U+FFFD). `None` when there are none.
fn decode_surrogates(yaml: &str) -> Option<(String, Vec<Surrogate>)> {
    #[derive(PartialEq)]
    enum State {
        Plain,
        Comment,
        Single,
        Double,
    }
    let mut out = String::with_capacity(yaml.len());
    let mut found = Vec::new();
    let mut state = State::Plain;
    let (mut line, mut opened) = (0usize, 0usize);
    let mut value_start = true;
    let mut prev = '\n';
    let mut i = 0;
    while let Some(c) = yaml[i..].chars().next() {
        match state {
            State::Plain => match c {
                '#' if prev == ' ' || prev == '\n' => state = State::Comment,
                '"' if value_start => (state, opened) = (State::Double, line),
                '\'' if value_start => state = State::Single,
                ':' | '-' | '[' | '{' | ',' | '?' | '\n' => value_start = true,
                ' ' => {}
                _ => value_start = false,
            },
            State::Comment => {
                if c == '\n' {
                    (state, value_start) = (State::Plain, true);
                }
            }
            State::Single => {
                if c == '\'' && yaml[i + 1..].starts_with('\'') {
                    out.push_str("''");
                    i += 2;
                    continue;
                }
                if c == '\'' {
                    (state, value_start) = (State::Plain, false);
                }
            }
            State::Double => match c {
                '\\' => {
                    let high = unit(&yaml[i..]).filter(|u| (0xD800..0xDC00).contains(u));
                    let low = unit(yaml.get(i + 6..).unwrap_or("")).filter(|u| (0xDC00..0xE000).contains(u));
                    let (read_as, len) = match (high, low) {
                        (Some(h), Some(l)) => {
                            (char::from_u32(0x10000 + ((h - 0xD800) << 10) + (l - 0xDC00)).unwrap_or('\u{fffd}'), 12)
                        }
                        _ if unit(&yaml[i..]).is_some_and(|u| (0xD800..0xE000).contains(&u)) => ('\u{fffd}', 6),
                        _ => {
                            // Any other escape is kept as written, with the character it escapes.
                            let next = yaml[i + 1..].chars().next().map_or(0, char::len_utf8);
                            out.push_str(&yaml[i..i + 1 + next]);
                            if yaml[i + 1..].starts_with('\n') {
                                line += 1;
                            }
                            i += 1 + next;
                            continue;
                        }
                    };
                    found.push(Surrogate { line, opened, written: yaml[i..i + len].to_owned(), read_as });
                    out.push_str(&format!("\\U{:08X}", u32::from(read_as)));
                    i += len;
                    prev = 'x';
                    continue;
                }
                '"' => (state, value_start) = (State::Plain, false),
                _ => {}
            },
        }
        if c == '\n' {
            line += 1;
        }
        prev = c;
        out.push(c);
        i += c.len_utf8();
    }
    (!found.is_empty()).then_some((out, found))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_handles_bom_crlf_and_fences() {
        let s = split("\u{feff}---\r\nname: a\r\n---\r\nbody\r\n").unwrap();
        assert_eq!(
            s,
            Split { yaml: "name: a\r\n", yaml_first_line: 2, body: "body\r\n", indent: 0, assumed: Vec::new() }
        );
        assert_eq!(split("---\n---\n").unwrap().yaml, "");
        assert_eq!(split("---\nname: a\n---").unwrap().body, "");
        assert_eq!(split("# no\n").unwrap_err().code, DiagCode::FrontmatterMissing);
        assert_eq!(split("---\nname: a\n").unwrap_err().code, DiagCode::FrontmatterUnclosed);
        assert_eq!(strip("---\nname: a\n---\n\n# Title\n"), "# Title\n");
        assert_eq!(strip("# Title\n"), "# Title\n");
    }
}
