//! Output helpers shared by the commands: JSON printing and human diagnostics.
//! Holds formatting only; no command logic.
//!
//! Human output shows what a skill, a source or a model wrote (names, descriptions, paths,
//! notes, errors) with its control, bidi and invisible characters as visible escapes
//! (`skilldeck_skill::visible`), so a folder named `\e[1A\e[2Kx` or a description holding
//! `\e]52;c;…\a` (which writes the terminal's clipboard) is read, never acted on: `outln!` and
//! `errln!` escape every line they print. JSON is printed as serde writes it (a string's control
//! characters are escapes there already), and `rawln!` prints a line exactly (`view`'s JSON).

use serde::Serialize;
use skilldeck_remote::SkillProblem;
use skilldeck_skill::visible::{visible, visible_line};
use skilldeck_skill::{Diagnostic, Severity};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io::Write as _;

/// `println!` for people: the line with every control, bidi and invisible character shown as an
/// escape (line feeds and tabs kept; see [`shown`]). A closed pipe is returned as an error
/// instead of a panic; `main` then exits quietly, as `skilldeck list | head` expects.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout(), "{}", $crate::output::shown(&format!($($arg)*)))?
    }};
}
pub(crate) use outln;

/// `eprintln!` for people: the line escaped as `outln!` escapes it.
macro_rules! errln {
    ($($arg:tt)*) => {{
        eprintln!("{}", $crate::output::shown(&format!($($arg)*)))
    }};
}
pub(crate) use errln;

/// `eprint!` for people (a question on the line it leaves open): escaped as `outln!` escapes.
macro_rules! err {
    ($($arg:tt)*) => {{
        eprint!("{}", $crate::output::shown(&format!($($arg)*)))
    }};
}
pub(crate) use err;

/// `outln!` without escaping, for text that must reach standard output exactly: a JSON line a
/// program reads (serde has escaped the control characters of its strings already).
macro_rules! rawln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout(), $($arg)*)?
    }};
}
pub(crate) use rawln;

/// `text` as people are shown it, over as many lines as it has: control (ESC, BEL, `\r`, C1),
/// bidi and invisible characters as escapes (`\e`, `\x07`, `\u{202E}`), line feeds and tabs
/// kept. Borrowed when there is nothing to escape, so ordinary output is unchanged. What
/// `outln!`, `errln!` and the helpers below print.
pub fn shown(text: &str) -> Cow<'_, str> {
    visible(text)
}

/// `text` on one line as people are shown it: like [`shown`], and line feeds and tabs as `\n`
/// and `\t`, for a name or a path in a column.
pub fn shown_line(text: &str) -> Cow<'_, str> {
    visible_line(text)
}

/// How a command ended, when it did not fail outright.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Exit 0.
    Ok,
    /// Exit 1: a skill failed validation.
    Invalid,
    /// Exit 2: an import refused a path or a skill (after importing everything else).
    Refused,
}

/// Prints a value as pretty JSON on stdout, buffered.
pub fn json<T: Serialize>(value: &T) -> anyhow::Result<()> {
    // 64 KiB at a time: a listing of 20,000 skills is tens of megabytes.
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    serde_json::to_writer_pretty(&mut out, value).map_err(std::io::Error::from)?;
    writeln!(out)?;
    out.flush()?;
    Ok(())
}

/// Prints one row for each of `items` as a JSON array, byte for byte as [`json`] prints a
/// `Vec` of the rows, each row made and serialized (by `row`, with [`json_row`]) on any core
/// (rayon) a chunk at a time: a listing of 20,000 skills neither waits on one core nor holds
/// every row at once.
pub fn json_rows<E: Sync>(items: &[E], row: impl Fn(&E) -> serde_json::Result<Vec<u8>> + Sync) -> anyhow::Result<()> {
    use rayon::prelude::*;
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    write_rows(
        &mut out,
        items.chunks(JSON_CHUNK).map(|chunk| chunk.par_iter().map(&row).collect::<Result<Vec<_>, _>>()),
    )?;
    out.flush()?;
    Ok(())
}

/// One row of [`json_rows`], serialized.
pub fn json_row(row: &impl Serialize) -> serde_json::Result<Vec<u8>> {
    serde_json::to_vec_pretty(row)
}

/// How many rows [`json_rows`] makes at once.
const JSON_CHUNK: usize = 512;

/// Writes rows, each serialized alone by `to_vec_pretty`, as the pretty array that holds them:
/// every row indented one level (a JSON text holds no raw line feed but between its tokens, so
/// each line feed in a row starts a line of it).
fn write_rows(
    out: &mut impl std::io::Write,
    chunks: impl Iterator<Item = serde_json::Result<Vec<Vec<u8>>>>,
) -> anyhow::Result<()> {
    let mut first = true;
    for chunk in chunks {
        for row in chunk? {
            out.write_all(if first { b"[\n  " } else { b",\n  " })?;
            first = false;
            let mut lines = row.split(|b| *b == b'\n');
            if let Some(line) = lines.next() {
                out.write_all(line)?;
            }
            for line in lines {
                out.write_all(b"\n  ")?;
                out.write_all(line)?;
            }
        }
    }
    out.write_all(if first { b"[]\n" } else { b"\n]\n" })?;
    Ok(())
}

/// A diagnostic as it appears in JSON: `{code, severity, message, line}`.
#[derive(Debug, Serialize)]
pub struct DiagJson<'a> {
    /// The stable code.
    pub code: &'a str,
    /// `error` or `warning`.
    pub severity: Severity,
    /// What is wrong.
    pub message: &'a str,
    /// The line in SKILL.md, or null.
    pub line: Option<u32>,
    /// The message's facts for a translated template (`{"field": "name", "line": "2"}`);
    /// left out when empty.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub args: BTreeMap<String, String>,
}

/// Diagnostics in their JSON form.
pub fn diags_json(diags: &[Diagnostic]) -> Vec<DiagJson<'_>> {
    diags
        .iter()
        .map(|d| DiagJson {
            code: d.code.as_str(),
            severity: d.severity,
            message: &d.message,
            line: d.line,
            args: d.args_map(),
        })
        .collect()
}

/// Prints diagnostics for people, each followed by how to fix it.
pub fn print_diags(diags: &[Diagnostic], indent: &str) -> anyhow::Result<()> {
    for d in diags {
        outln!("{indent}{d}");
        outln!("{indent}  fix: {}", d.code.fix());
    }
    Ok(())
}

/// Prints on stderr what a finished write could not tidy up after its revision went live; stdout
/// (and its JSON) stays the write's result.
pub fn print_warnings(warnings: &[String]) {
    for w in warnings {
        errln!("warning: {w}");
    }
}

/// The warning for a skill a refresh or materialise skipped.
pub fn problem_line(remote: &str, p: &SkillProblem) -> String {
    shown(&format!("warning: {remote}: {}", p.line())).into_owned()
}

/// A byte count for people.
pub fn size(bytes: u64) -> String {
    match bytes {
        b if b < 1024 => format!("{b} B"),
        b if b < 1024 * 1024 => format!("{:.1} KiB", b as f64 / 1024.0),
        b => format!("{:.1} MiB", b as f64 / (1024.0 * 1024.0)),
    }
}

/// `v:N` or an empty string.
pub fn badge(version: Option<&str>) -> String {
    version.map(|v| format!("v:{v}")).unwrap_or_default()
}

/// An error and its causes on one line, `: `-separated, leaving out a cause whose text the line
/// already holds (an error that quotes its source would otherwise say the same thing twice);
/// a control character a cause quotes (a source's path, a skill's name) is shown escaped.
pub fn error_text(e: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if text.is_empty() || line.contains(&text) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(&text);
    }
    shown(&line).into_owned()
}

/// A progress bar drawn on stderr in `template` when stderr is a terminal, hidden otherwise
/// (so piped output and tests get no control characters).
pub fn stderr_bar(template: &str) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::hidden();
    if std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
        bar.set_style(
            indicatif::ProgressStyle::with_template(template)
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
    }
    bar
}

#[cfg(test)]
mod tests {
    use super::write_rows;

    fn as_json_rows(rows: &[serde_json::Value], chunk: usize) -> String {
        let mut out = Vec::new();
        let chunks = rows.chunks(chunk).map(|c| c.iter().map(super::json_row).collect());
        write_rows(&mut out, chunks).expect("written");
        String::from_utf8(out).expect("utf-8")
    }

    #[test]
    fn rows_written_in_chunks_are_the_bytes_serde_writes_for_the_whole_array() {
        let rows: Vec<serde_json::Value> = (0..7)
            .map(|i| {
                serde_json::json!({
                    "name": format!("skill-{i}"),
                    "description": "two\nlines, a \"quote\" and {braces}",
                    "diagnostics": if i % 2 == 0 { serde_json::json!([]) } else { serde_json::json!([{"line": i}]) },
                    "counts": {"high": i},
                })
            })
            .collect();
        for chunk in [1, 3, 7, 100] {
            let whole = serde_json::to_string_pretty(&rows).expect("serialized") + "\n";
            assert_eq!(as_json_rows(&rows, chunk), whole, "chunks of {chunk}");
        }
        let none: Vec<serde_json::Value> = Vec::new();
        assert_eq!(as_json_rows(&none, 4), serde_json::to_string_pretty(&none).expect("serialized") + "\n");
    }
}
