//! One file as the audit reads it: its kind (Markdown, script, data, binary), where its
//! fenced code blocks and HTML comments are, its lines, and evidence made safe to show.
//! Holds no rule.

pub use crate::chars::{is_bidi, is_invisible, is_rtl_letter, is_tag, is_zero_width};
use std::borrow::Cow;
use std::cell::OnceCell;
use std::fmt::Write as _;
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
    /// Not text: an image, archive, font, media file, compiled program or database by its
    /// first bytes (never a file a model reads or a shell runs, whatever it holds).
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

/// The kind of the file at `path` holding `bytes`. What a model reads or a shell could run is
/// text whatever bytes it holds (a NUL switches nothing off): `SKILL.md`, Markdown and text
/// files, scripts by extension, everything under `scripts/` or `bin/`, and any file starting
/// with `#!`. Only a file whose first bytes are those of an image, archive, font, media file,
/// compiled program or database is binary ([`binary_format`]); every other file is data.
pub fn kind(path: &str, bytes: &[u8]) -> Kind {
    let name = path.rsplit('/').next().unwrap_or(path);
    let ext = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default();
    if MARKDOWN.contains(&ext.as_str()) || path == "SKILL.md" {
        Kind::Markdown
    } else if SCRIPTS.contains(&ext.as_str())
        || bytes.starts_with(b"#!")
        || path.starts_with("scripts/")
        || path.starts_with("bin/")
        || path.contains("/scripts/")
    {
        Kind::Script
    } else if binary_format(bytes).is_some() {
        Kind::Binary
    } else {
        Kind::Data
    }
}

/// What binary format `bytes` start with, by their magic bytes: images, archives and
/// compressed files, fonts, media, compiled programs, databases. `None` for anything else,
/// which the audit reads as text.
pub fn binary_format(bytes: &[u8]) -> Option<&'static str> {
    const MAGIC: &[(&[u8], &str)] = &[
        (b"\x89PNG\r\n\x1a\n", "a PNG image"),
        (b"\xff\xd8\xff", "a JPEG image"),
        (b"GIF87a", "a GIF image"),
        (b"GIF89a", "a GIF image"),
        (b"II*\0", "a TIFF image"),
        (b"MM\0*", "a TIFF image"),
        (b"\0\0\x01\0", "an icon"),
        (b"8BPS", "a Photoshop image"),
        (b"icns", "an icon"),
        (b"%PDF-", "a PDF document"),
        (b"PK\x03\x04", "a ZIP archive"),
        (b"PK\x05\x06", "a ZIP archive"),
        (b"\x1f\x8b", "a gzip file"),
        (b"BZh", "a bzip2 file"),
        (b"\xfd7zXZ\0", "an xz file"),
        (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
        (b"\x28\xb5\x2f\xfd", "a zstd file"),
        (b"Rar!\x1a\x07", "a RAR archive"),
        (b"wOFF", "a web font"),
        (b"wOF2", "a web font"),
        (b"\0\x01\0\0\0", "a TrueType font"),
        (b"OTTO", "an OpenType font"),
        (b"OggS", "an Ogg file"),
        (b"fLaC", "a FLAC file"),
        (b"ID3", "an MP3 file"),
        (b"\x1aE\xdf\xa3", "a Matroska or WebM file"),
        (b"\x7fELF", "an ELF program"),
        (b"\xfe\xed\xfa\xce", "a Mach-O program"),
        (b"\xfe\xed\xfa\xcf", "a Mach-O program"),
        (b"\xce\xfa\xed\xfe", "a Mach-O program"),
        (b"\xcf\xfa\xed\xfe", "a Mach-O program"),
        (b"\xca\xfe\xba\xbe", "a Mach-O or Java class file"),
        (b"\0asm", "a WebAssembly module"),
        (b"SQLite format 3\0", "an SQLite database"),
        (b"\x93NUMPY", "a NumPy array"),
        (b"PAR1", "a Parquet file"),
        (b"\x89HDF\r\n\x1a\n", "an HDF5 file"),
    ];
    if let Some((_, what)) = MAGIC.iter().find(|(m, _)| bytes.starts_with(m)) {
        return Some(what);
    }
    let at = |range: std::ops::Range<usize>| bytes.get(range).unwrap_or_default();
    if at(0..4) == b"RIFF" && matches!(at(8..12), b"WEBP" | b"WAVE" | b"AVI ") {
        return Some("a RIFF image or media file");
    }
    if at(4..8) == b"ftyp" {
        return Some("an MP4, MOV or HEIF file");
    }
    if at(257..262) == b"ustar" {
        return Some("a tar archive");
    }
    if bytes.starts_with(b"MZ") && bytes.get(..64).is_some_and(|h| h.contains(&0)) {
        return Some("a Windows program");
    }
    None
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
        for line in crate::chars::lines(text) {
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

/// One file being audited: its bytes and kind, the view the rules read (`norm`), with its
/// lines, logical lines and Markdown regions worked out only when a rule needs them.
#[derive(Debug)]
pub struct FileText<'a> {
    /// Its path in the skill.
    pub path: &'a str,
    /// Its bytes, up to the cap, as written.
    pub bytes: &'a [u8],
    /// Its kind.
    pub kind: Kind,
    /// What the rules read: `bytes` normalised line for line (`norm::view`); line `n` of it is
    /// line `n` of `bytes`.
    pub view: Cow<'a, [u8]>,
    lines: OnceCell<Lines>,
    raw_lines: OnceCell<Lines>,
    regions: OnceCell<Regions>,
    logical: OnceCell<Vec<usize>>,
}

impl<'a> FileText<'a> {
    /// The file at `path` holding `bytes`.
    pub fn new(path: &'a str, bytes: &'a [u8]) -> Self {
        let kind = kind(path, bytes);
        let (lines, regions) = (OnceCell::new(), OnceCell::new());
        let view = match kind {
            Kind::Binary => Cow::Borrowed(&[][..]),
            Kind::Script => {
                let chars = crate::norm::characters(bytes);
                match crate::norm::joined_pieces_in(&chars, std::slice::from_ref(&(0..chars.len()))) {
                    Some(joined) => Cow::Owned(joined),
                    None => chars,
                }
            }
            // Data has no code: no line of it is joined.
            Kind::Data => crate::norm::characters(bytes),
            Kind::Markdown => {
                let chars = crate::norm::characters(bytes);
                if memchr::memchr2(b'\'', b'"', &chars).is_none() {
                    chars
                } else {
                    let r = Regions::of_markdown(&chars);
                    match crate::norm::joined_pieces_in(&chars, &r.fences) {
                        Some(joined) => Cow::Owned(joined),
                        None => {
                            // The view is `chars`: what was worked out on it holds.
                            let _ = regions.set(r);
                            chars
                        }
                    }
                }
            }
        };
        Self { path, bytes, kind, view, lines, raw_lines: OnceCell::new(), regions, logical: OnceCell::new() }
    }

    /// The lines of the view (the same lines as the file's).
    pub fn lines(&self) -> &Lines {
        self.lines.get_or_init(|| Lines::of(&self.view))
    }

    /// Its fenced code blocks and HTML comments in the view (none unless Markdown).
    pub fn regions(&self) -> &Regions {
        self.regions.get_or_init(|| {
            if self.kind == Kind::Markdown { Regions::of_markdown(&self.view) } else { Regions::default() }
        })
    }

    /// Where each logical line of the view starts: a paragraph of Markdown prose is one (a
    /// renderer and a model read it as one), a line of data is one, and a line of code ending in `\`, `|`, `&&`, `(`, `,`, `+` or
    /// `=` runs on into the next, as a shell or interpreter reads it. So an instruction or a
    /// command split over lines is matched whole.
    pub fn logical_starts(&self) -> &[usize] {
        self.logical.get_or_init(|| {
            let lines = self.lines();
            let mut starts = vec![0];
            for n in 1..lines.count() {
                if let Some(next) = lines.start(n + 1).filter(|s| *s < self.view.len())
                    && !self.joins_next(n)
                {
                    starts.push(next);
                }
            }
            starts
        })
    }

    /// Whether line `n` (from 1) runs on into the next, as [`FileText::logical_starts`] reads
    /// lines (no: when there is no next line).
    fn joins_next(&self, n: u32) -> bool {
        let view: &[u8] = &self.view;
        let lines = self.lines();
        let here = lines.range(view, n);
        if lines.start(n + 1).is_none_or(|s| s >= view.len()) {
            return false;
        }
        let line = view.get(here.clone()).unwrap_or_default();
        let next = view.get(lines.range(view, n + 1)).unwrap_or_default();
        let code = match self.kind {
            Kind::Script => true,
            Kind::Markdown => self.regions().in_fence(here.start),
            Kind::Data | Kind::Binary => return false,
        };
        if code {
            continues(line) || starts_as_continuation(next)
        } else {
            !is_blank(line)
                && !is_blank(next)
                && fence_of(trim_indent(next)).is_none()
                && fence_of(trim_indent(line)).is_none()
        }
    }

    /// The bytes of the view a rule reads around line `n`: up to `w` lines either side,
    /// within the logical line holding it (`FileText::logical_range`), found by looking at
    /// those lines alone.
    pub fn window(&self, n: u32, w: u32) -> Range<usize> {
        let view: &[u8] = &self.view;
        let lines = self.lines();
        let here = lines.range(view, n).start;
        let mut first = n;
        while first > 1 && n - first < w && self.joins_next(first - 1) {
            first -= 1;
        }
        let mut last = n;
        while last - n < w && self.joins_next(last) {
            last += 1;
        }
        let logical_end = if last - n < w {
            lines.start(last + 1).filter(|s| *s < view.len()).unwrap_or(view.len())
        } else {
            usize::MAX
        };
        let end = lines.range(view, n.saturating_add(w)).end + 1;
        lines.range(view, first).start..end.min(logical_end).min(view.len()).max(here)
    }

    /// The logical line holding byte `at` of the view, as [`FileText::logical_range`] gives
    /// it, when it is at most `max` bytes long: found by reading only the lines around `at`
    /// (`None` when longer).
    pub fn logical_range_within(&self, at: usize, max: usize) -> Option<Range<usize>> {
        if self.logical.get().is_some() {
            return Some(self.logical_range(at)).filter(|r| r.len() <= max);
        }
        let view: &[u8] = &self.view;
        let lines = self.lines();
        let n = lines.number(at);
        let (mut first, mut last) = (n, n);
        let too_long =
            |first: u32, last: u32| lines.range(view, last).end.saturating_sub(lines.range(view, first).start) > max;
        while first > 1 && self.joins_next(first - 1) {
            first -= 1;
            if too_long(first, last) {
                return None;
            }
        }
        while self.joins_next(last) {
            last += 1;
            if too_long(first, last) {
                return None;
            }
        }
        let start = lines.range(view, first).start;
        let end = lines.start(last + 1).filter(|s| *s < view.len()).unwrap_or(view.len());
        Some(start..end).filter(|r| r.len() <= max)
    }

    /// The logical line holding byte `at` of the view: its range.
    pub fn logical_range(&self, at: usize) -> Range<usize> {
        let starts = self.logical_starts();
        let i = starts.partition_point(|s| *s <= at).saturating_sub(1);
        let start = starts.get(i).copied().unwrap_or(0);
        let end = starts.get(i + 1).copied().unwrap_or(self.view.len());
        start..end
    }

    /// Line `n` around byte `at` of the view, shown as the file writes it, made safe to show
    /// and cut.
    pub fn evidence(&self, n: u32, at: usize) -> String {
        let (raw, in_line) = self.raw_line(n, at);
        visible(&String::from_utf8_lossy(raw), in_line, EVIDENCE_CHARS)
    }

    /// Line `n` as the file writes it, and where byte `at` of the view falls in it: what
    /// [`FileText::evidence`] shows, for showing later.
    pub fn raw_line(&self, n: u32, at: usize) -> (&'a [u8], usize) {
        // A view that is the file's bytes has the file's lines.
        let same = self.view.as_ptr() == self.bytes.as_ptr() && self.view.len() == self.bytes.len();
        let raw = if same { self.lines() } else { self.raw_lines.get_or_init(|| Lines::of(self.bytes)) };
        let r = raw.range(self.bytes, n);
        let in_line = at.saturating_sub(self.lines().range(&self.view, n).start);
        (self.bytes.get(r).unwrap_or_default(), in_line)
    }
}

/// A logical line of the view as the rules read it: a shell's `\\` before a line break written
/// as spaces (the result is as long as the slice). Other line breaks stay: a rule's `\s`
/// crosses them, and `^` and `$` still mark each line.
pub fn joined(slice: &[u8]) -> Cow<'_, [u8]> {
    let continued = memchr::memchr_iter(b'\\', slice).any(|i| match slice.get(i + 1) {
        Some(b'\n') => true,
        Some(b'\r') => slice.get(i + 2) == Some(&b'\n'),
        _ => false,
    });
    if !continued {
        return Cow::Borrowed(slice);
    }
    let mut out = slice.to_vec();
    for i in memchr::memchr_iter(b'\n', slice) {
        let mut j = i;
        if j > 0 && slice.get(j - 1) == Some(&b'\r') {
            j -= 1;
        }
        if j > 0 && slice.get(j - 1) == Some(&b'\\') {
            for k in j - 1..=i {
                if let Some(b) = out.get_mut(k) {
                    *b = b' ';
                }
            }
        }
    }
    Cow::Owned(out)
}

fn is_blank(line: &[u8]) -> bool {
    line.iter().all(u8::is_ascii_whitespace)
}

/// Whether a line of code runs on into the next.
fn continues(line: &[u8]) -> bool {
    let t = line.trim_ascii_end();
    [&b"\\"[..], b"|", b"&&", b"||", b"(", b",", b"+", b"="].iter().any(|e| t.ends_with(e))
}

/// Whether a line of code carries on the one before it.
fn starts_as_continuation(line: &[u8]) -> bool {
    let t = line.trim_ascii_start();
    [&b"|"[..], b"&&", b"||", b"."].iter().any(|s| t.starts_with(s)) && !t.starts_with(b"./")
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

    /// How many lines there are (a text ending in a line break has an empty last line).
    pub fn count(&self) -> u32 {
        u32::try_from(self.starts.len()).unwrap_or(u32::MAX)
    }

    /// Where line `n` (from 1) starts, if there is one.
    pub fn start(&self, n: u32) -> Option<usize> {
        self.starts.get((n as usize).checked_sub(1)?).copied()
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
    let mut piece = String::new();
    for (_, c) in chars.get(from..to).unwrap_or_default() {
        piece.clear();
        if is_invisible(*c) || (c.is_control() && *c != '\t') {
            let _ = write!(piece, "<U+{:04X}>", u32::from(*c));
        } else {
            piece.push(*c);
        }
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
