//! YAML parser errors in our words: maps what the parser reported, plus the frontmatter text,
//! to a message a person can act on and the line the problem really is on. Holds no parsing.
//!
//! The parser speaks in its own terms ("did not find expected alphabetic or numeric
//! character", "found unexpected end of stream") and often points past the cause: an unclosed
//! quote is reported where the file ends. Each rule below recognizes one common mistake from the
//! parser's report and the text, and says what it is where it is; anything else keeps the
//! parser's words at the parser's line.

use crate::diagnostic::{DiagCode, Diagnostic};

/// The characters YAML gives a meaning at the start of a plain value, and what it reads them as.
pub const INDICATORS: &[(char, &str)] = &[
    ('*', "an alias (a reference to an `&anchor`)"),
    ('&', "an anchor name"),
    ('!', "a type tag"),
    ('|', "the start of a block of text on the lines below"),
    ('>', "the start of a block of text on the lines below"),
    ('@', "a reserved character"),
    ('`', "a reserved character"),
    ('%', "a directive"),
];

/// What YAML reads `c` as at the start of a value, if it gives `c` a meaning there.
pub fn indicator_meaning(c: char) -> Option<&'static str> {
    INDICATORS.iter().find(|(i, _)| *i == c).map(|(_, m)| *m)
}

/// What to say of a value (`the value of `key``) that starts with the indicator `c`.
pub fn indicator_message(value_name: &str, c: char) -> Option<String> {
    let meaning = indicator_meaning(c)?;
    let c = code_span(c);
    Some(format!(
        "{value_name} starts with {c}, which YAML reads as {meaning}; a value that starts with {c} must be in quotes"
    ))
}

/// `c` as inline Markdown code: `` `*` ``, and `` `` ` `` `` for a backtick.
pub fn code_span(c: char) -> String {
    if c == '`' { "`` ` ``".to_owned() } else { format!("`{c}`") }
}

/// The `yaml_invalid` diagnostic for a parser error. `message` is the parser's text (with its
/// `at line L column C` marks), `parsed` the YAML the parser read, `original` the same YAML as
/// written (tabs kept; line ends `\n`), and `first_line` the file line of the YAML's first line.
pub fn explain(message: &str, parsed: &str, original: &str, first_line: u32) -> Diagnostic {
    let report = Report::read(message);
    let text = Text { parsed: parsed.lines().collect(), original: original.lines().collect(), first_line };
    let rules: [Rule; 10] = [
        surrogate_escape,
        stray_line,
        unclosed_quote,
        duplicate_key,
        tab_indent,
        leading_indicator,
        quote_then_text,
        colon_in_value,
        unclosed_flow,
        stray_indent,
    ];
    match rules.iter().find_map(|rule| rule(&report, &text)) {
        Some((index, msg)) => {
            let d = Diagnostic::error(DiagCode::YamlInvalid, msg).at(Some(text.file_line(index)));
            match text.entry(index).and_then(|e| e.key) {
                Some(k) => d.arg("field", k),
                None => d,
            }
        }
        None => Diagnostic::error(
            DiagCode::YamlInvalid,
            format!("the frontmatter is not valid YAML: {}", report.problem.trim()),
        )
        .at(Some(report.at.map_or(first_line, |m| text.file_line(m.line))))
        .arg("problem", report.problem.trim()),
    }
}

/// One mistake recognized: the 0-based YAML line it is on and what to say.
type Found = Option<(usize, String)>;

/// A rule: recognizes one kind of mistake from the parser's report and the text.
type Rule = fn(&Report<'_>, &Text<'_>) -> Found;

/// A place in the parsed YAML: 0-based line and 0-based column (in characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Mark {
    line: usize,
    column: usize,
}

/// The parser's message cut into its parts: `PROBLEM at MARK, while CONTEXT at MARK`.
#[derive(Debug)]
struct Report<'a> {
    problem: &'a str,
    at: Option<Mark>,
    context: Option<(&'a str, Mark)>,
}

impl<'a> Report<'a> {
    fn read(message: &'a str) -> Self {
        let (head, tail) = match message.split_once(", while ") {
            Some((h, t)) => (h, Some(t)),
            None => (message, None),
        };
        let (problem, at) = split_mark(head);
        let context = tail.and_then(|t| match split_mark(t) {
            (c, Some(m)) => Some((c, m)),
            (_, None) => None,
        });
        Self { problem, at, context }
    }

    fn says(&self, words: &str) -> bool {
        self.problem.contains(words)
    }

    fn context_says(&self, words: &str) -> Option<Mark> {
        self.context.filter(|(c, _)| c.contains(words)).map(|(_, m)| m)
    }
}

/// Splits `text at line L column C` into the text and the mark.
fn split_mark(s: &str) -> (&str, Option<Mark>) {
    let Some((text, mark)) = s.rsplit_once(" at line ") else { return (s, None) };
    let mut parts = mark.split(" column ");
    let number = |p: Option<&str>| p.and_then(|p| p.trim().parse::<usize>().ok());
    match (number(parts.next()), number(parts.next())) {
        (Some(line), Some(column)) if line > 0 && column > 0 => {
            (text, Some(Mark { line: line - 1, column: column - 1 }))
        }
        _ => (s, None),
    }
}

/// The frontmatter's lines as parsed and as written.
struct Text<'a> {
    parsed: Vec<&'a str>,
    original: Vec<&'a str>,
    first_line: u32,
}

impl Text<'_> {
    /// The file line of the 0-based YAML line `index`.
    fn file_line(&self, index: usize) -> u32 {
        self.first_line.saturating_add(u32::try_from(index).unwrap_or(u32::MAX))
    }

    fn line(&self, index: usize) -> Option<&str> {
        self.parsed.get(index).copied()
    }

    /// The field and value written on a line: `key: value`, or `- value` (no key).
    fn entry(&self, index: usize) -> Option<Entry<'_>> {
        let line = self.line(index)?;
        let indent = indent_of(line);
        let rest = &line[indent..];
        if let Some(value) = rest.strip_prefix("- ") {
            return Some(Entry { key: None, value: value.trim_start(), indent });
        }
        let (key, value) = match rest.split_once(": ") {
            Some((k, v)) => (k, v),
            None => (rest.strip_suffix(':')?, ""),
        };
        let key = key.trim().trim_matches(['"', '\'']);
        (!key.is_empty() && !key.starts_with('#')).then(|| Entry { key: Some(key), value: value.trim(), indent })
    }

    /// The key of the nearest line above `index` indented less than `indent`.
    fn parent_key(&self, index: usize, indent: usize) -> Option<&str> {
        (0..index).rev().filter_map(|i| self.entry(i)).find(|e| e.indent < indent).and_then(|e| e.key)
    }
}

/// A `key: value` or `- value` line.
struct Entry<'a> {
    key: Option<&'a str>,
    value: &'a str,
    indent: usize,
}

impl Entry<'_> {
    /// "the value of `key`", or "this value" for a list entry.
    fn value_name(&self) -> String {
        match self.key {
            Some(k) => format!("the value of `{k}`"),
            None => "this value".to_owned(),
        }
    }
}

fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// A JSON-style `\uD83E` escape (half of a UTF-16 surrogate pair) in a double-quoted value.
fn surrogate_escape(r: &Report<'_>, t: &Text<'_>) -> Found {
    if !r.says("invalid Unicode character escape") {
        return None;
    }
    let at = r.at?;
    let line = t.line(at.line)?;
    let start = line.match_indices("\\u").map(|(i, _)| i).find(|&i| {
        line.get(i + 2..i + 6)
            .and_then(|h| u32::from_str_radix(h, 16).ok())
            .is_some_and(|u| (0xD800..0xE000).contains(&u))
    })?;
    let pair = line.get(start..start + 12).filter(|p| p[6..].starts_with("\\u")).unwrap_or(&line[start..start + 6]);
    let whose = r.context.map_or(at.line, |(_, m)| m.line);
    let name = t.entry(whose).map_or("this value".to_owned(), |e| e.value_name());
    Some((
        at.line,
        format!(
            "{name} holds `{pair}`, a JSON-style escape (UTF-16 surrogates) that YAML does not allow; write the \
             character itself, or one `\\UXXXXXXXX` escape of its code point"
        ),
    ))
}

/// A line with no `: ` among fields: the parser reads it as the start of a key and reports the
/// line after it ("could not find expected ':'"). Point at the line itself.
fn stray_line(r: &Report<'_>, t: &Text<'_>) -> Found {
    if !r.says("could not find expected ':'") {
        return None;
    }
    let at = r.context_says("simple key")?;
    let above = (0..at.line).rev().filter_map(|i| t.entry(i)).find_map(|e| e.key);
    let hint = match above {
        Some(k) => format!("if it continues the value of `{k}`, indent it under that field"),
        None => "if it continues the value above, indent it".to_owned(),
    };
    Some((
        at.line,
        format!(
            "this line is not a `field: value` line (it has no `: `), so YAML cannot read it; {hint}; if it is \
             instructions, the frontmatter's closing `---` is missing above it"
        ),
    ))
}

/// An opening quote never closed: the parser reports the end of the text.
fn unclosed_quote(r: &Report<'_>, t: &Text<'_>) -> Found {
    let opened = r.context_says("quoted scalar")?;
    if !r.says("end of stream") {
        return None;
    }
    let q = t.line(opened.line)?.chars().nth(opened.column).filter(|c| matches!(c, '"' | '\''))?;
    let whose = t.entry(opened.line).and_then(|e| e.key).map_or(String::new(), |k| format!(" of `{k}`"));
    Some((
        opened.line,
        format!("the {q} that opens the value{whose} is never closed; add the closing {q} at the end of the value"),
    ))
}

/// A key given twice in one mapping: point at the second.
fn duplicate_key(r: &Report<'_>, t: &Text<'_>) -> Found {
    let (path, rest) = match r.problem.split_once("duplicate entry with key ") {
        Some((p, rest)) => (p.trim().trim_end_matches(':'), rest),
        None => return None,
    };
    let key = rest.trim().trim_matches('"');
    let start = r.at.unwrap_or(Mark { line: 0, column: 0 });
    let mut first = None;
    for i in start.line..t.parsed.len() {
        let Some(e) = t.entry(i) else { continue };
        if e.indent < start.column {
            break;
        }
        if e.indent != start.column || e.key != Some(key) {
            continue;
        }
        match first {
            None => first = Some(i),
            Some(f) => {
                let shown = if path.is_empty() { key.to_owned() } else { format!("{path}.{key}") };
                return Some((i, format!("`{shown}` is given twice (first on line {}); keep one", t.file_line(f))));
            }
        }
    }
    None
}

/// A line indented with a tab, which the parser counts as a different depth.
fn tab_indent(r: &Report<'_>, t: &Text<'_>) -> Found {
    let at = r.at?;
    let structural = ["mapping values", "expected key", "block sequence entries", "indentation"];
    if !structural.iter().any(|w| r.says(w)) {
        return None;
    }
    let tabbed =
        |i: usize| t.original.get(i).is_some_and(|l| l.chars().take_while(|c| c.is_whitespace()).any(|c| c == '\t'));
    let above = (0..at.line).rev().find(|i| t.line(*i).is_some_and(|l| !l.trim().is_empty()));
    let line = [Some(at.line), above].into_iter().flatten().find(|i| tabbed(*i))?;
    Some((
        line,
        "this line is indented with a tab, which puts it at a different depth than the lines around it; \
         indent with spaces only"
            .to_owned(),
    ))
}

/// A plain value starting with a character YAML reserves.
fn leading_indicator(r: &Report<'_>, t: &Text<'_>) -> Found {
    let line = r.context.map(|(_, m)| m).or(r.at)?.line;
    let entry = t.entry(line)?;
    let c = entry.value.chars().next()?;
    let blamed = match c {
        '|' | '>' => r.says("expected comment or line break"),
        _ => true,
    };
    if !blamed {
        return None;
    }
    indicator_message(&entry.value_name(), c).map(|msg| (line, msg))
}

/// A quoted value that ends early because it holds its own quote character, with text after.
fn quote_then_text(r: &Report<'_>, t: &Text<'_>) -> Found {
    let at = r.at?;
    if !r.says("expected key") && !r.says("expected <document end>") {
        return None;
    }
    let entry = t.entry(at.line)?;
    let q = entry.value.chars().next().filter(|c| matches!(c, '"' | '\''))?;
    let line = t.line(at.line)?;
    let value_col = line[..line.find(entry.value)?].chars().count();
    if at.column <= value_col {
        return None;
    }
    let (inside, other) = if q == '"' { ("\\\"", '\'') } else { ("''", '"') };
    Some((
        at.line,
        format!(
            "{} is in {q} quotes and holds a {q} of its own, which ends it early; write that {q} as {inside}, or \
             quote the value with {other} instead",
            entry.value_name()
        ),
    ))
}

/// A `: ` inside a plain value, which YAML reads as the start of another field.
fn colon_in_value(r: &Report<'_>, t: &Text<'_>) -> Found {
    let at = r.at?;
    if !r.says("mapping values are not allowed") {
        return None;
    }
    let entry = t.entry(at.line)?;
    let indented_under = (entry.indent > 0).then(|| t.parent_key(at.line, entry.indent)).flatten();
    let parent_is_value = indented_under.is_some()
        && (0..at.line)
            .rev()
            .filter_map(|i| t.entry(i))
            .find(|e| e.indent < entry.indent)
            .is_some_and(|e| !e.value.is_empty());
    if parent_is_value && let Some(parent) = indented_under {
        return Some((
            at.line,
            format!(
                "this line is indented under `{parent}`, so YAML reads it as more of that value, where `: ` is not \
                 allowed; remove the indentation if it is a field of its own, or put the whole value in double \
                 quotes"
            ),
        ));
    }
    Some((
        at.line,
        format!(
            "{} holds `: `, which YAML reads as the start of another field; put the whole value in double quotes",
            entry.value_name()
        ),
    ))
}

/// A `[` or `{` never closed: the parser reports where it gave up, not where it opened.
fn unclosed_flow(r: &Report<'_>, t: &Text<'_>) -> Found {
    let opened = r.context_says("flow sequence").or_else(|| r.context_says("flow mapping"))?;
    if !r.says("did not find expected ','") {
        return None;
    }
    let open = t.line(opened.line)?.chars().nth(opened.column).filter(|c| matches!(c, '[' | '{'))?;
    let close = if open == '[' { ']' } else { '}' };
    let whose = t.entry(opened.line).and_then(|e| e.key).map_or(String::new(), |k| format!(" of `{k}`"));
    Some((
        opened.line,
        format!(
            "the `{open}` that opens the value{whose} is never closed with `{close}`; close it, or put the value in \
             quotes if the `{open}` is text"
        ),
    ))
}

/// A field indented to a depth that matches none above it.
fn stray_indent(r: &Report<'_>, t: &Text<'_>) -> Found {
    let at = r.at?;
    if !r.says("expected key") {
        return None;
    }
    let entry = t.entry(at.line)?;
    let shallower = (0..at.line).rev().filter_map(|i| t.entry(i)).find(|e| e.indent != entry.indent)?;
    (entry.indent > 0 && shallower.indent > entry.indent).then(|| {
        (
            at.line,
            format!(
                "this line is indented by {} spaces, which matches none of the fields above it; line it up with the \
                 fields it belongs with",
                entry.indent
            ),
        )
    })
}
