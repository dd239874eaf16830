//! Simple data flow inside one script or fenced code block, line by line in one pass: a
//! variable assigned a URL, a download or decoded bytes (or a file a download or a decoder
//! wrote) that a later line hands to a shell, `eval`, `exec` or `source`. And, across a skill's
//! files, a file that is binary by its bytes (an image, an archive) fed to a shell or
//! interpreter by a script. Holds no rule table; `scan` reports under the rules' ids.

use crate::text::{FileText, Kind};
use regex::bytes::{Regex, RegexBuilder};
use std::collections::HashMap;
use std::sync::OnceLock;

/// What a variable or file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Taint {
    /// A URL.
    Url,
    /// What a download returned.
    Fetched,
    /// Decoded bytes (base64, hex, packed).
    Decoded,
}

/// A flow found: the rule it is reported under, the line and the byte of the view it is on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Flow {
    /// `exec.download-pipe` (a URL or download run) or `exec.decode-exec` (decoded bytes run).
    pub rule: &'static str,
    /// The line, from 1.
    pub line: u32,
    /// The byte of the view where the line starts.
    pub at: usize,
}

fn re(pattern: &str) -> Option<Regex> {
    RegexBuilder::new(pattern).unicode(false).size_limit(8 << 20).build().ok()
}

/// Whatever may start a flow: a URL, a download, a decoder. `scan` finds its anchors in the
/// same pass as the rules' and hands their places to [`flows`].
pub const ANY: &str = r"(?i)://|curl|wget|urlopen|urlretrieve|axios|webrequest|restmethod|iwr|irm|download|requests\.|httpx|fetch|https?\.get|urllib|base64|b64decode|atob|buffer\.from|xxd|fromhex|unhexlify|pack|decode|codecs|zlib|marshal|base32|rev\b";

/// The words one of which every match of [`FEED_WORDS`] holds, with its word boundaries: `scan`
/// finds them in the rules' pass, and [`feeding_lines`] reads only their lines and those that
/// may source a file with `.`.
pub const FEED_GATE: &str = r"(?i)\b(?:sh|bash|zsh|dash|ksh|source|perl|ruby|node|eval|exec)\b|\bpython";

/// A line feeding something to a shell or interpreter, by a word (`| sh`, `python x`,
/// `eval`).
const FEED_WORDS: &str = r"(?i)\|\s*(?:sudo\s+)?(?:(?:ba|z|da|k)?sh|python[0-9.]*|perl|ruby|node|source)\b|(?:^|[\s;&|(`])(?:(?:ba|z|da|k)?sh|source|python[0-9.]*|perl|ruby|node)\s+(?:-\w+\s+)*[^\s|;&-]|\beval\b|\bexec\b";

/// A file sourced with `.`: at the start of the text or after `;`, `&` or `|`.
const DOT_SOURCE: &str = r"(?:^|[;&|]\s*)\.\s+\S";

/// Tools that write what they download or decode to a file.
const SHELL_TOOL: &str = r"(?i)\b(?:curl|wget|base64|base32|xxd|openssl|iwr|Invoke-WebRequest|urlretrieve)\b";

/// What hands code to a shell or interpreter.
const SINK: &str = r#"(?i)(?:^|[^.\w])(?:eval|exec)\b|(?:^\s*|[;&|(`{]\s*|\$\(\s*|\b(?:then|do|else)\s+)source\s+\S|^\s*\.\s|[;&|]\s*\.\s|\b(?:ba|z|da|k)?sh\s+-c\s+["']?\$|\|\s*(?:sudo\s+)?(?:(?:ba|z|da|k)?sh\b|(?:python[0-9.]*|perl|ruby|node)(?:\s*(?:$|[;&|)`]|-(?:\s|$))|["']))|\b(?:ba|z|da|k)?sh\s+["']?\$|\b(?:ba|z|da|k)?sh\s+<|\b(?:python[0-9.]*|node|perl|ruby)\s+-[ce]\s+["']?\$|\bnew\s+Function\b|\bFunction\s*\(|\bcompile\s*\(|\bos\.system\s*\(|\bos\.popen\s*\(|shell\s*=\s*True|\bexecSync\b|\bchild_process\b|\bInvoke-Expression\b|\biex\b|\brunpy\b"#;

/// What runs a string as code in the language itself.
const CODE_SINK: &str =
    r"(?i)(?:^|[^.\w])(?:exec|eval)\s*\(|\bnew\s+Function\b|\bFunction\s*\(|\bInvoke-Expression\b|\biex\b";

struct Patterns {
    /// Whatever a flow may end in, over a whole unit: a sink, or a tool that writes a file
    /// (no file is tainted without one). A unit with none has no flow.
    ends: Regex,
    assign: Regex,
    shell_tool: Regex,
    url: Regex,
    fetch: Regex,
    decode: Regex,
    sink: Regex,
    code_sink: Regex,
    output: Regex,
    run_file: Regex,
    feeds: Regex,
}

fn patterns() -> Option<&'static Patterns> {
    static P: OnceLock<Option<Patterns>> = OnceLock::new();
    P.get_or_init(|| {
        Some(Patterns {
            shell_tool: re(SHELL_TOOL)?,
            // `^` and `$` in them mark a command's ends: each line's here, and a command after
            // `;` or `&` is found by the alternatives that name those.
            ends: re(&format!("(?m:(?:{SINK})|(?:{CODE_SINK})|(?:{SHELL_TOOL}))"))?,
            assign: re(
                r"^\s*(?:export\s+|local\s+|readonly\s+|declare\s+(?:-\w+\s+)*|const\s+|let\s+|var\s+|my\s+|set\s+)?\$?([A-Za-z_][A-Za-z0-9_]*)\s*(?:=|:=)([^=].*|)$",
            )?,
            url: re(r"(?i)\b(?:https?|ftp)://")?,
            fetch: re(
                r"(?i)\b(?:curl|wget|urlopen|urlretrieve|axios|Invoke-WebRequest|Invoke-RestMethod|iwr|irm|DownloadString|DownloadFile)\b|\brequests\.(?:get|post)\s*\(|\bhttpx\.(?:get|post|stream)\s*\(|\bfetch\s*\(|\bhttps?\.get\s*\(|\burllib\.request\b",
            )?,
            decode: re(
                r#"(?i)\bbase64\s+(?:-d|--decode|-D)\b|\bb64decode\b|\batob\s*\(|\bBuffer\.from\s*\([^\n)]*["'](?:base64|hex)|\bxxd\s+(?:-p\s+)?-r\b|\bbytes\.fromhex\b|\bunhexlify\b|\bpack\s*\(\s*["']H|\bdecode_base64\b|\bdecode64\b|\bbase64_decode\b|\bFromBase64String\b|\bcodecs\.decode\b|\bzlib\.decompress\b|\bmarshal\.loads\b|\bbase32\s+(?:-d|--decode)\b|\|\s*rev\b"#,
            )?,
            sink: re(SINK)?,
            code_sink: re(CODE_SINK)?,
            output: re(
                r#"(?:\s-o\s*|\s-O\s+|--output(?:-document)?[=\s]\s*|[^2&>]>>?\s*|\btee\s+(?:-a\s+)?|\burlretrieve\s*\([^,\n]*,\s*)["']?([~$\w./{}-]+)"#,
            )?,
            run_file: re(
                r#"(?:(?:^|[\s;&|(`])(?:sudo\s+)?(?:(?:ba|z|da|k)?sh|source|python[0-9.]*|perl|ruby|node|chmod\s+(?:[ugoa]*\+x|[0-7]{3,4}))|^\s*\.|[;&|]\s*\.)\s+(?:-\w+\s+)*["']?([~$\w./{}-]+)"#,
            )?,
            feeds: re(&format!("{FEED_WORDS}|{DOT_SOURCE}"))?,
        })
    })
    .as_ref()
}

/// Whether `line` names variable `name` (`$name`, `${name}`, or the bare word in code that
/// names variables without a sigil).
fn names(line: &[u8], name: &[u8]) -> bool {
    let word = |b: Option<&u8>| b.is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_');
    let Some(&lead) = name.first() else { return false };
    memchr::memchr_iter(lead, line).any(|i| {
        line.get(i..).is_some_and(|rest| rest.starts_with(name))
            && !word(i.checked_sub(1).and_then(|j| line.get(j)))
            && !word(line.get(i + name.len()))
    })
}

/// The flows in one unit of code: `text` (lines of a script, or of one fenced block), the
/// first line of which is line `first` at byte `base` of the view. Nothing flows before the
/// first line that names a URL, a download or a decoder, so the unit is read from there (and
/// not at all without one); a command with none of them and no tainted variable is passed
/// over without a regex.
fn unit(text: &[u8], first: u32, base: usize, sources: &[usize], out: &mut Vec<Flow>) {
    let Some(p) = patterns() else { return };
    let Some(&source) = sources.first() else { return };
    let from = memchr::memrchr(b'\n', text.get(..source).unwrap_or_default()).map_or(0, |i| i + 1);
    if !p.ends.is_match(text.get(from..).unwrap_or_default()) {
        return;
    }
    let skipped = memchr::memchr_iter(b'\n', text.get(..from).unwrap_or_default()).count();
    let first = first.saturating_add(u32::try_from(skipped).unwrap_or(u32::MAX));
    let mut vars: HashMap<Vec<u8>, Taint> = HashMap::new();
    let mut files: HashMap<Vec<u8>, Taint> = HashMap::new();
    let mut at = from;
    for (i, whole) in crate::chars::lines(text.get(from..).unwrap_or_default()).enumerate() {
        let n = first.saturating_add(u32::try_from(i).unwrap_or(u32::MAX));
        let start = at;
        at += whole.len();
        let whole = whole.strip_suffix(b"\n").unwrap_or(whole);
        if whole.len() > 4096 {
            continue;
        }
        statements(whole, &mut |from, line| {
            let s = start + from;
            let i = sources.partition_point(|x| *x < s);
            let source = sources.get(i).is_some_and(|x| *x < s + line.len());
            statement(p, line, source, n, base + start, &mut vars, &mut files, out);
        });
    }
}

/// A line's commands, split at `;` and `&&` (a rough cut: quotes are not read), each given to
/// `each` with where it starts in the line.
fn statements(line: &[u8], each: &mut dyn FnMut(usize, &[u8])) {
    let mut from = 0;
    let mut i = 0;
    while let Some(at) = memchr::memchr2(b';', b'&', line.get(i..).unwrap_or_default()).map(|p| p + i) {
        let cut = if line.get(at) == Some(&b';') {
            1
        } else if line.get(at + 1) == Some(&b'&') {
            2
        } else {
            0
        };
        if cut > 0 {
            each(from, line.get(from..at).unwrap_or_default());
            from = at + cut;
        }
        i = at + cut.max(1);
    }
    each(from, line.get(from..).unwrap_or_default());
}

/// One command: what it runs of what is tainted, then what it taints. `source`: whether it
/// holds a match of `any` (a URL, a download or a decoder); every pattern that gives a taint
/// is one of those, so without one only a tainted variable it names can do anything.
#[allow(clippy::too_many_arguments)]
fn statement(
    p: &Patterns,
    line: &[u8],
    source: bool,
    n: u32,
    start: usize,
    vars: &mut HashMap<Vec<u8>, Taint>,
    files: &mut HashMap<Vec<u8>, Taint>,
    out: &mut Vec<Flow>,
) {
    if vars.is_empty() && files.is_empty() && !source {
        return;
    }
    let own = if !source {
        None
    } else if p.decode.is_match(line) {
        Some(Taint::Decoded)
    } else if p.fetch.is_match(line) {
        Some(Taint::Fetched)
    } else {
        None
    };
    let inherited = vars.iter().find(|(name, _)| names(line, name)).map(|(_, t)| *t);
    // Files a download or decoder writes (shell tools: a `>` in other code compares).
    if let Some(t) = own.or(inherited.filter(|t| *t != Taint::Url))
        && p.shell_tool.is_match(line)
    {
        for c in p.output.captures_iter(line) {
            if let Some(path) = c.get(1) {
                let path = path.as_bytes();
                if path.len() > 1 && !path.starts_with(b"/dev/") {
                    files.insert(path.to_vec(), t);
                }
            }
        }
    }
    // Sinks: a tainted variable or file handed to a shell or interpreter.
    let mut hit: Option<Taint> = None;
    if own == Some(Taint::Fetched) && p.code_sink.is_match(line) {
        hit = Some(Taint::Fetched);
    }
    if hit.is_none() && inherited.is_some() && p.sink.is_match(line) {
        let fetches = source && p.fetch.is_match(line);
        hit =
            vars.iter().filter(|(name, t)| names(line, name) && (**t != Taint::Url || fetches)).map(|(_, t)| *t).next();
    }
    if hit.is_none() && !files.is_empty() {
        for c in p.run_file.captures_iter(line) {
            // After `-m` comes a module's name (`python3 -m pip`), not a file.
            let module = c.get(0).is_some_and(|m| m.as_bytes().windows(3).any(|w| w == b"-m "));
            if let Some(t) = c.get(1).filter(|_| !module).and_then(|m| files.get(m.as_bytes())) {
                hit = Some(*t);
            }
        }
    }
    if hit.is_none() && !files.is_empty() {
        // A downloaded file run as a command: `/tmp/x` or `./x` at the start of a command.
        let cmd = line.trim_ascii_start();
        hit = files
            .iter()
            .find(|(path, _)| {
                // A path (`/tmp/x`, `./x`, `$D/x`, `~/x`), not a bare word: at the start of a
                // line of code that is a name being assigned or called.
                let pathlike = path.contains(&b'/') || path.starts_with(b"$") || path.starts_with(b"~");
                let rest = cmd.get(path.len()..).unwrap_or_default();
                pathlike
                    && cmd.starts_with(path)
                    && rest.first().is_none_or(|b| b.is_ascii_whitespace() || *b == b';')
                    && !rest.trim_ascii_start().starts_with(b"=")
            })
            .map(|(_, t)| *t);
    }
    if let Some(t) = hit {
        let rule = if t == Taint::Decoded { "exec.decode-exec" } else { "exec.download-pipe" };
        out.push(Flow { rule, line: n, at: start });
    }
    // Assignments: what the variable holds from now on.
    // Without a source or a tainted variable it names, an assignment taints nothing and
    // clears no taint.
    if (source || inherited.is_some())
        && memchr::memchr(b'=', line).is_some()
        && let Some(c) = p.assign.captures(line)
        && let (Some(name), Some(value)) = (c.get(1), c.get(2))
    {
        let v = value.as_bytes();
        let t = if p.decode.is_match(v) {
            Some(Taint::Decoded)
        } else if p.fetch.find_iter(v).any(|m| !in_plain_string(v, m.start())) {
            Some(Taint::Fetched)
        } else if let Some(t) = vars.iter().find(|(k, _)| names(v, k)).map(|(_, t)| *t) {
            Some(if t == Taint::Url && p.url.is_match(v) { Taint::Url } else { t })
        } else if p.url.is_match(v) {
            Some(Taint::Url)
        } else {
            None
        };
        match t {
            Some(t) if vars.len() < 256 => {
                vars.insert(name.as_bytes().to_vec(), t);
            }
            Some(_) => {}
            None => {
                vars.remove(name.as_bytes());
            }
        }
    }
}

/// Whether byte `at` of an assigned value is inside a string literal that is only text: in
/// single quotes, or in double quotes with no `$(` or backtick before it (which would run a
/// command). `cmd = f"curl -s {url}"` holds the text of a command, not what a download
/// returned; running it downloads, and a pipe to a shell in it is the pattern rules' to see.
fn in_plain_string(v: &[u8], at: usize) -> bool {
    let mut quote: Option<u8> = None;
    let mut runs = false;
    let mut i = 0;
    while let Some(&b) = v.get(i).filter(|_| i < at) {
        match quote {
            _ if b == b'\\' => i += 1,
            None if b == b'\'' || b == b'"' => (quote, runs) = (Some(b), false),
            Some(q) if b == q => quote = None,
            Some(b'"') if b == b'`' || (b == b'$' && v.get(i + 1) == Some(&b'(')) => runs = true,
            _ => {}
        }
        i += 1;
    }
    quote.is_some() && !runs
}

/// The flows in a file: a script whole, each fenced code block of Markdown. `anchors`: where
/// in the view the anchors of [`ANY`] are, in order (every match of it starts at one: none of
/// its words spans a `;`, `&` or line break, so a command holds a match only if one of these
/// is inside it, and a command holding one but no match is read to no effect).
pub fn flows(f: &FileText<'_>, anchors: &[usize]) -> Vec<Flow> {
    let mut out = Vec::new();
    let view: &[u8] = &f.view;
    if anchors.is_empty() {
        return out;
    }
    let within = |r: &std::ops::Range<usize>| -> Vec<usize> {
        let from = anchors.partition_point(|a| *a < r.start);
        anchors.get(from..).unwrap_or_default().iter().take_while(|a| **a < r.end).map(|a| a - r.start).collect()
    };
    match f.kind {
        Kind::Script => unit(view, 1, 0, anchors, &mut out),
        Kind::Markdown => {
            for r in &f.regions().fences {
                let sources = within(r);
                if sources.is_empty() {
                    continue;
                }
                let first = f.lines().number(r.start);
                unit(view.get(r.clone()).unwrap_or_default(), first, r.start, &sources, &mut out);
            }
        }
        Kind::Data | Kind::Binary => {}
    }
    out.dedup_by_key(|f| f.line);
    out.truncate(10);
    out
}

/// The lines of a text file that may feed a file to a shell or interpreter, as `(line, byte of
/// the view, the logical line joined)`: kept until every file of the skill is read, to see
/// whether one of them names a binary file. `words`: where in the view the anchors of
/// [`FEED_GATE`] are; only their lines and the lines that may source a file with `.` are
/// searched, each on its own.
pub fn feeding_lines(f: &FileText<'_>, words: &[usize]) -> Vec<(u32, usize, Vec<u8>)> {
    if memchr::memchr2(b'|', b'<', &f.view).is_none() && memchr::memmem::find(&f.view, b"sh ").is_none() {
        return Vec::new();
    }
    let Some(p) = patterns() else { return Vec::new() };
    let view: &[u8] = &f.view;
    let lines = f.lines();
    let mut candidates: Vec<u32> = words.iter().map(|w| lines.number(*w)).collect();
    // `. file`: a `.` and a space with nothing before them on the line but spaces, `;`, `&` or `|`.
    for i in memchr::memchr_iter(b'.', view) {
        if !view.get(i + 1).is_some_and(|b| *b == b' ' || *b == b'\t') {
            continue;
        }
        let before = view.get(..i).unwrap_or_default();
        let prev = before.iter().rev().find(|b| **b != b' ' && **b != b'\t');
        if prev.is_none_or(|b| matches!(b, b'\n' | b';' | b'&' | b'|')) {
            candidates.push(lines.number(i));
        }
    }
    candidates.sort_unstable();
    candidates.dedup();
    let mut out: Vec<(u32, usize, Vec<u8>)> = Vec::new();
    for n in candidates {
        let r = lines.range(view, n);
        let text = view.get(r.clone()).unwrap_or_default();
        let mut from = 0;
        while let Some(m) = p.feeds.find_at(text, from) {
            from = m.start() + 1;
            let end = r.start + m.end().saturating_sub(1);
            let line = lines.number(end);
            if out.last().is_some_and(|(l, _, _)| *l == line) {
                continue;
            }
            let Some(logical) = f.logical_range_within(end, 2048) else { continue };
            out.push((line, end, crate::text::joined(view.get(logical).unwrap_or_default()).into_owned()));
            if out.len() >= 64 {
                return out;
            }
        }
    }
    out
}

/// Whether `line` feeds the file named `name` (a binary file's path in the skill) to a shell
/// or interpreter: piped in after reading its bytes, given as the script to run, or
/// redirected in.
pub fn feeds_file(line: &[u8], path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    if name.len() < 3 || memchr::memmem::find(line, name.as_bytes()).is_none() {
        return false;
    }
    let n = regex::escape(name);
    let interp = r"(?:(?:ba|z|da|k)?sh|source|python[0-9.]*|perl|ruby|node|eval)";
    let pattern = format!(
        r#"\b(?:cat|tail|head|dd|tac|cut|sed|awk|xxd|strings|openssl|gzip|gunzip|zcat|base64|unzip|bsdtar|tar)\b[^|\n;&]*{n}[^|\n;&]*\|[^\n;&]*?\b{interp}\b|\b{interp}\s+(?:-\w+\s+)*["']?[^\s"']*{n}|(?:^|[;&|]\s*)\.\s+["']?[^\s"']*{n}|\b{interp}\b[^\n|;&]*<\s*["']?[^\s"']*{n}"#
    );
    re(&pattern).is_some_and(|r| r.is_match(line))
}
