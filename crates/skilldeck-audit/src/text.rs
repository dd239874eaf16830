//! One file as the audit reads it: its kind (Markdown, script, data, binary), where its
//! fenced code blocks and HTML comments are, its lines, and evidence made safe to show.
//! Holds no rule.

use std::ops::Range;

/// What a file is, for which places of the rules it has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Instructions: `SKILL.md`, other Markdown and plain text.
    Markdown,
    /// Code: a script (under `scripts/`, a known extension, or a `#!` line).
    Script,
    /// Other text: JSON, YAML, HTML, CSV…
    Data,
    /// Not text (a NUL byte near its start).
    Binary,
}

const MARKDOWN: &[&str] = &["md", "markdown", "mdx", "mdc", "txt", "rst"];
const SCRIPTS: &[&str] = &[
    "sh",
    "bash",
    "zsh",
    "fish",
    "ksh",
    "py",
    "pyw",
    "js",
    "mjs",
    "cjs",
    "ts",
    "mts",
    "cts",
    "tsx",
    "jsx",
    "rb",
    "pl",
    "pm",
    "php",
    "ps1",
    "psm1",
    "psd1",
    "bat",
    "cmd",
    "vbs",
    "lua",
    "go",
    "rs",
    "java",
    "kt",
    "swift",
    "r",
    "jl",
    "applescript",
    "scpt",
    "awk",
    "tcl",
    "groovy",
    "cs",
];

/// The kind of the file at `path` holding `bytes`.
pub fn kind(path: &str, bytes: &[u8]) -> Kind {
    let head = bytes.get(..8192).unwrap_or(bytes);
    if head.contains(&0) {
        return Kind::Binary;
    }
    let name = path.rsplit('/').next().unwrap_or(path);
    let ext = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default();
    if MARKDOWN.contains(&ext.as_str()) {
        Kind::Markdown
    } else if SCRIPTS.contains(&ext.as_str())
        || bytes.starts_with(b"#!")
        || path.starts_with("scripts/")
        || path.starts_with("bin/")
    {
        Kind::Script
    } else {
        Kind::Data
    }
}

/// Where a Markdown file's fenced code blocks and HTML comments are (byte ranges).
#[derive(Debug, Default)]
pub struct Regions {
    /// Fenced code blocks, fences included.
    pub fences: Vec<Range<usize>>,
    /// HTML comments outside fences, `<!--` to `-->` (or the end).
    pub comments: Vec<Range<usize>>,
}

impl Regions {
    /// The regions of Markdown `text`.
    pub fn of_markdown(text: &[u8]) -> Self {
        let mut out = Self::default();
        if find(text, b"```", 0).is_none() && find(text, b"~~~", 0).is_none() && find(text, b"<!--", 0).is_none() {
            return out;
        }
        let mut open: Option<(usize, u8, usize)> = None;
        let mut at = 0;
        for line in text.split_inclusive(|b| *b == b'\n') {
            let start = at;
            at += line.len();
            let trimmed = trim_indent(line);
            let fence = fence_of(trimmed);
            match (open, fence) {
                (None, Some((ch, n))) => open = Some((start, ch, n)),
                (Some((from, ch, n)), Some((c, m))) if c == ch && m >= n && rest_is_blank(trimmed, m) => {
                    out.fences.push(from..at);
                    open = None;
                }
                _ => {}
            }
        }
        if let Some((from, _, _)) = open {
            out.fences.push(from..text.len());
        }
        let mut from = 0;
        while let Some(i) = find(text, b"<!--", from) {
            if let Some(f) = out.fences.iter().find(|f| f.contains(&i)) {
                from = f.end;
                continue;
            }
            let end = find(text, b"-->", i + 4).map_or(text.len(), |e| e + 3);
            out.comments.push(i..end);
            from = end;
        }
        out
    }

    /// Whether byte `at` is inside a fenced code block.
    pub fn in_fence(&self, at: usize) -> bool {
        in_ranges(&self.fences, at)
    }

    /// The fence holding byte `at`, if any.
    pub fn fence_at(&self, at: usize) -> Option<Range<usize>> {
        self.fences.iter().find(|f| f.contains(&at)).cloned()
    }
}

fn in_ranges(ranges: &[Range<usize>], at: usize) -> bool {
    let i = ranges.partition_point(|r| r.end <= at);
    ranges.get(i).is_some_and(|r| r.contains(&at))
}

fn trim_indent(line: &[u8]) -> &[u8] {
    let n = line.iter().take(3).take_while(|b| **b == b' ').count();
    line.get(n..).unwrap_or_default()
}

/// A fence line's character and length: three or more backticks or tildes.
fn fence_of(line: &[u8]) -> Option<(u8, usize)> {
    let ch = *line.first()?;
    if ch != b'`' && ch != b'~' {
        return None;
    }
    let n = line.iter().take_while(|b| **b == ch).count();
    (n >= 3).then_some((ch, n))
}

fn rest_is_blank(line: &[u8], from: usize) -> bool {
    line.get(from..).unwrap_or_default().iter().all(u8::is_ascii_whitespace)
}

/// The first `needle` in `hay` at or after `from`.
pub fn find(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    memchr::memmem::find(hay.get(from..)?, needle).map(|i| i + from)
}

/// One file being audited: its bytes and kind, with its lines and Markdown regions worked out
/// only when a finding needs them (most files have none).
#[derive(Debug)]
pub struct FileText<'a> {
    /// Its path in the skill.
    pub path: &'a str,
    /// Its bytes, up to the cap.
    pub bytes: &'a [u8],
    /// Its kind.
    pub kind: Kind,
    lines: std::cell::OnceCell<Lines>,
    regions: std::cell::OnceCell<Regions>,
}

impl<'a> FileText<'a> {
    /// The file at `path` holding `bytes`.
    pub fn new(path: &'a str, bytes: &'a [u8]) -> Self {
        Self { path, bytes, kind: kind(path, bytes), lines: Default::default(), regions: Default::default() }
    }

    /// Its lines.
    pub fn lines(&self) -> &Lines {
        self.lines.get_or_init(|| Lines::of(self.bytes))
    }

    /// Its fenced code blocks and HTML comments (none unless Markdown).
    pub fn regions(&self) -> &Regions {
        self.regions.get_or_init(|| {
            if self.kind == Kind::Markdown { Regions::of_markdown(self.bytes) } else { Regions::default() }
        })
    }

    /// Line `n` around byte `at`, made safe to show and cut.
    pub fn evidence(&self, n: u32, at: usize) -> String {
        let r = self.lines().range(self.bytes, n);
        let shown = String::from_utf8_lossy(self.bytes.get(r.clone()).unwrap_or_default());
        visible(&shown, at.saturating_sub(r.start), EVIDENCE_CHARS)
    }
}

/// Where each line of a text starts, for line numbers and showing a line.
#[derive(Debug)]
pub struct Lines {
    starts: Vec<usize>,
}

impl Lines {
    /// The lines of `text`.
    pub fn of(text: &[u8]) -> Self {
        let mut starts = vec![0];
        starts.extend(memchr::memchr_iter(b'\n', text).map(|i| i + 1));
        Self { starts }
    }

    /// The line holding byte `at`, from 1.
    pub fn number(&self, at: usize) -> u32 {
        u32::try_from(self.starts.partition_point(|s| *s <= at)).unwrap_or(u32::MAX)
    }

    /// The byte range of line `n` (from 1), without its line break.
    pub fn range(&self, text: &[u8], n: u32) -> Range<usize> {
        let i = (n as usize).saturating_sub(1);
        let start = self.starts.get(i).copied().unwrap_or(text.len());
        let end = self.starts.get(i + 1).map_or(text.len(), |e| e.saturating_sub(1));
        let end = if end > start && text.get(end - 1) == Some(&b'\r') { end - 1 } else { end };
        start..end.max(start)
    }
}

/// The longest evidence shown, in characters.
pub const EVIDENCE_CHARS: usize = 200;

/// `text` as it is safe to show: invisible and control characters written as `<U+XXXX>`,
/// cut to about `max` characters around byte `focus` (with `…` where cut).
pub fn visible(text: &str, focus: usize, max: usize) -> String {
    let focus = focus.min(text.len());
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let at = chars.partition_point(|(i, _)| *i < focus);
    let (from, to) = if chars.len() <= max {
        (0, chars.len())
    } else {
        let from = at.saturating_sub(max / 3).min(chars.len() - max);
        (from, from + max)
    };
    let mut out = String::new();
    if from > 0 {
        out.push('…');
    }
    // Escapes make the text longer: the cut counts what is shown, not what was read.
    let mut shown = 0;
    let mut cut = to < chars.len();
    for (_, c) in chars.get(from..to).unwrap_or_default() {
        let piece = if is_invisible(*c) || (c.is_control() && *c != '\t') {
            format!("<U+{:04X}>", u32::from(*c))
        } else {
            c.to_string()
        };
        shown += piece.chars().count();
        if shown > max {
            cut = true;
            break;
        }
        out.push_str(&piece);
    }
    if cut {
        out.push('…');
    }
    out.trim().to_owned()
}

/// Characters that render as nothing or change how neighbours render.
pub fn is_invisible(c: char) -> bool {
    is_tag(c)
        || is_zero_width(c)
        || is_bidi(c)
        || matches!(
            c,
            '\u{00AD}' | '\u{034F}' | '\u{115F}' | '\u{1160}' | '\u{3164}' | '\u{FFA0}' | '\u{2061}'..='\u{2064}'
        )
}

/// A Unicode tag character.
pub fn is_tag(c: char) -> bool {
    ('\u{E0000}'..='\u{E007F}').contains(&c)
}

/// A zero-width character.
pub fn is_zero_width(c: char) -> bool {
    matches!(c, '\u{200B}' | '\u{200C}' | '\u{200D}' | '\u{2060}' | '\u{FEFF}' | '\u{180E}')
}

/// A bidirectional embedding, override or isolate.
pub fn is_bidi(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// A letter of a right-to-left script (Hebrew, Arabic, Syriac, Thaana, N'Ko and their forms).
pub fn is_rtl_letter(c: char) -> bool {
    matches!(c, '\u{0590}'..='\u{08FF}' | '\u{FB1D}'..='\u{FDFF}' | '\u{FE70}'..='\u{FEFC}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_and_comments_are_found() {
        let md = b"a\n```sh\nrm x\n```\n<!-- c -->\n~~~\n<!-- in -->\n";
        let r = Regions::of_markdown(md);
        assert_eq!(r.fences.len(), 2);
        assert!(r.in_fence(9));
        assert_eq!(r.comments.len(), 1);
        assert!(!r.in_fence(r.comments[0].start));
    }

    #[test]
    fn evidence_shows_the_invisible_and_is_cut() {
        assert_eq!(visible("a\u{200B}b", 0, 200), "a<U+200B>b");
        let long = "x".repeat(1000);
        let v = visible(&long, 500, 50);
        assert!(v.starts_with('…') && v.ends_with('…') && v.chars().count() == 52, "{v}");
    }

    #[test]
    fn lines_number_and_range() {
        let t = b"one\r\ntwo\nthree";
        let l = Lines::of(t);
        assert_eq!(l.number(0), 1);
        assert_eq!(l.number(6), 2);
        assert_eq!(&t[l.range(t, 1)], b"one");
        assert_eq!(&t[l.range(t, 3)], b"three");
    }
}
