//! A file's text as the rules read it, whatever bytes it holds: decoded (UTF-8 lossily, or
//! UTF-16 with a byte-order mark), NUL and other control characters dropped, invisible and
//! format characters dropped (zero-width, soft hyphen, word joiner, bidi controls, variation
//! selectors, tag characters), NFKC applied, Cyrillic, Greek and other lookalikes of Latin
//! letters written as those letters, typographic quotes, dashes and spaces written as ASCII; in
//! code, strings built from pieces joined (`'~/.s'+'sh'`, `"~/.s" "sh"`, `c'u'rl`, `${IFS}`).
//! Every step keeps the file's lines: line `n` of the view is line `n` of the file, so a finding
//! on the view names the file's own line and shows it as written. Holds no rule.

use std::borrow::Cow;
use unicode_normalization::UnicodeNormalization as _;

/// The view of `bytes` the rules read; `code(n)` says whether line `n` (from 1) is code, where
/// strings built from pieces are joined. Borrowed when nothing needs changing.
pub fn view<'a>(bytes: &'a [u8], code: &dyn Fn(u32) -> bool) -> Cow<'a, [u8]> {
    pieces(characters(bytes), code)
}

/// [`view`]'s code step on text [`characters`] already gave.
pub fn pieces<'a>(text: Cow<'a, [u8]>, code: &dyn Fn(u32) -> bool) -> Cow<'a, [u8]> {
    match joined_pieces(&text, code) {
        Some(out) => Cow::Owned(out),
        None => text,
    }
}

/// `text` with strings built from pieces joined on the lines `code` names, or `None` when no
/// line changes (most files: nothing is copied then).
pub fn joined_pieces(text: &[u8], code: &dyn Fn(u32) -> bool) -> Option<Vec<u8>> {
    let mut out: Option<Vec<u8>> = None;
    let mut scratch = Vec::new();
    // Only a line holding a quote or a `$` can change: found by searching for those, the line
    // number counted from the last one.
    let (mut copied, mut from, mut n, mut counted) = (0, 0, 1u32, 0);
    while let Some(c) = memchr::memchr3(b'\'', b'"', b'$', text.get(from..).unwrap_or_default()).map(|p| p + from) {
        let start = memchr::memrchr(b'\n', text.get(..c).unwrap_or_default()).map_or(0, |i| i + 1);
        let end = memchr::memchr(b'\n', text.get(c..).unwrap_or_default()).map_or(text.len(), |i| c + i + 1);
        let newlines = memchr::memchr_iter(b'\n', text.get(counted..start).unwrap_or_default()).count();
        n = n.saturating_add(u32::try_from(newlines).unwrap_or(u32::MAX));
        counted = start;
        from = end;
        let line = text.get(start..end).unwrap_or_default();
        if !code(n) {
            continue;
        }
        scratch.clear();
        if join_pieces(line, &mut scratch) {
            let o = out.get_or_insert_with(|| Vec::with_capacity(text.len()));
            o.extend_from_slice(text.get(copied..start).unwrap_or_default());
            o.extend_from_slice(&scratch);
            copied = end;
        }
    }
    let mut out = out?;
    out.extend_from_slice(text.get(copied..).unwrap_or_default());
    Some(out)
}

/// `text` with strings built from pieces joined on the lines within `code` (byte ranges that
/// start and end at line breaks: a script whole, a Markdown file's fences), or `None` when no
/// line changes.
pub fn joined_pieces_in(text: &[u8], code: &[std::ops::Range<usize>]) -> Option<Vec<u8>> {
    let mut out: Option<Vec<u8>> = None;
    let mut scratch = Vec::new();
    let mut copied = 0;
    for r in code {
        let mut from = r.start;
        let part_end = r.end.min(text.len());
        while let Some(c) =
            memchr::memchr3(b'\'', b'"', b'$', text.get(from..part_end).unwrap_or_default()).map(|p| p + from)
        {
            let start =
                memchr::memrchr(b'\n', text.get(r.start..c).unwrap_or_default()).map_or(r.start, |i| r.start + i + 1);
            let end = memchr::memchr(b'\n', text.get(c..part_end).unwrap_or_default()).map_or(part_end, |i| c + i + 1);
            from = end;
            scratch.clear();
            if join_pieces(text.get(start..end).unwrap_or_default(), &mut scratch) {
                let o = out.get_or_insert_with(|| Vec::with_capacity(text.len()));
                o.extend_from_slice(text.get(copied..start).unwrap_or_default());
                o.extend_from_slice(&scratch);
                copied = end;
            }
        }
    }
    let mut out = out?;
    out.extend_from_slice(text.get(copied..).unwrap_or_default());
    Some(out)
}

/// Whether `b` may be left as it is: printable ASCII, tab, line feed or carriage return.
const fn plain(b: u8) -> bool {
    (b.wrapping_sub(0x20) < 0x5f) | (b == b'\t') | (b == b'\n') | (b == b'\r')
}

/// The character-level steps: decoding, dropping, NFKC and lookalikes, line by line.
pub fn characters(bytes: &[u8]) -> Cow<'_, [u8]> {
    let utf16 = match bytes {
        [0xFF, 0xFE, rest @ ..] => Some((rest, false)),
        [0xFE, 0xFF, rest @ ..] => Some((rest, true)),
        _ => None,
    };
    if let Some((rest, big)) = utf16 {
        let units = rest.chunks_exact(2).map(|p| match p {
            [a, b] if big => u16::from_be_bytes([*a, *b]),
            [a, b] => u16::from_le_bytes([*a, *b]),
            _ => 0,
        });
        let s: String = char::decode_utf16(units).map(|c| c.unwrap_or('\u{FFFD}')).collect();
        return Cow::Owned(normalise_str(&s).into_bytes());
    }
    let Some(first) = first_unplain(bytes) else { return Cow::Borrowed(bytes) };
    if let Some(view) = valid(bytes, first) {
        return view.map_or(Cow::Borrowed(bytes), Cow::Owned);
    }
    // Lines of plain bytes are copied as they are, many at a time; only a line holding another
    // byte is looked at character by character.
    let mut out = Vec::with_capacity(bytes.len() + 16);
    let mut at = 0;
    while let Some(p) = first_unplain(bytes.get(at..).unwrap_or_default()).map(|p| p + at) {
        let start = memchr::memrchr(b'\n', bytes.get(at..p).unwrap_or_default()).map_or(at, |i| at + i + 1);
        let end = memchr::memchr(b'\n', bytes.get(p..).unwrap_or_default()).map_or(bytes.len(), |i| p + i + 1);
        out.extend_from_slice(bytes.get(at..start).unwrap_or_default());
        normalise_line(bytes.get(start..end).unwrap_or_default(), &mut out);
        at = end;
    }
    out.extend_from_slice(bytes.get(at..).unwrap_or_default());
    Cow::Owned(out)
}

/// What the view does with a character other than ASCII.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    /// Keeps it: stable under NFKC, not dropped, no lookalike.
    Keep,
    /// Drops it.
    Drop,
    /// Writes this ASCII character instead.
    Ascii(u8),
    /// Depends on its neighbours: NFKC may change it.
    Nfkc,
}

fn class(c: char) -> Class {
    if common(c) {
        Class::Keep
    } else if dropped(c) {
        Class::Drop
    } else if let Some(l) = lookalike(c) {
        Class::Ascii(l as u8)
    } else if stable(c) {
        Class::Keep
    } else {
        Class::Nfkc
    }
}

/// [`characters`] of `bytes` whose first byte that is not [`plain`] is `first`, when they
/// are valid UTF-8 (`None` when not): runs of plain bytes and characters the view keeps are
/// left as they are (nothing is copied until something changes: `Some(None)` when nothing
/// does), every other character goes by its class (the last few remembered), and a line where
/// NFKC depends on neighbours is normalised whole.
fn valid(bytes: &[u8], first: usize) -> Option<Option<Vec<u8>>> {
    let mut out: Option<Vec<u8>> = None;
    let mut buf = [0u8; 4];
    // Keyed by a plain character, which never comes here: every slot starts empty.
    let mut seen = [('a', Class::Keep); 64];
    // `bytes[..i]` is on `out` (when there is one); where the line of the character at hand
    // starts, in `bytes` and in `out`.
    let (mut i, mut line_in, mut line_out) = (0, 0, 0);
    let mut next = Some(first);
    while let Some(mut p) = next {
        // Runs of CJK ideographs are kept as they are: stepped over three bytes at a time.
        while cjk_at(bytes, p) {
            p += 3;
        }
        if bytes.get(p).is_none_or(|b| plain(*b)) {
            next = first_unplain(bytes.get(p..).unwrap_or_default()).map(|q| q + p);
            continue;
        }
        let c = char_at(bytes, p)?;
        let after = p + c.len_utf8();
        next = match bytes.get(after) {
            Some(b) if !plain(*b) => Some(after),
            _ => first_unplain(bytes.get(after..).unwrap_or_default()).map(|q| q + after),
        };
        let slot = (u32::from(c) % 64) as usize;
        let class = match seen.get(slot) {
            Some((k, class)) if *k == c => *class,
            _ => {
                let class = class(c);
                if let Some(s) = seen.get_mut(slot) {
                    *s = (c, class);
                }
                class
            }
        };
        if class == Class::Keep {
            continue;
        }
        // Something changes at `p`: what is before it goes on `out` as it is.
        let o = out.get_or_insert_with(|| Vec::with_capacity(bytes.len() + 16));
        o.extend_from_slice(bytes.get(i..p).unwrap_or_default());
        if let Some(nl) = memchr::memrchr(b'\n', bytes.get(i..p).unwrap_or_default()) {
            line_in = i + nl + 1;
            line_out = o.len() - (p - line_in);
        }
        i = after;
        match class {
            Class::Keep => {}
            Class::Drop => {}
            Class::Ascii(b) => o.push(b),
            Class::Nfkc if alone(c, char_at(bytes, after)) => {
                for d in std::iter::once(c).nfkc() {
                    match lookalike(d) {
                        Some(l) => o.push(l as u8),
                        None if dropped(d) => {}
                        None => o.extend_from_slice(d.encode_utf8(&mut buf).as_bytes()),
                    }
                }
            }
            Class::Nfkc => {
                let end = memchr::memchr(b'\n', bytes.get(p..).unwrap_or_default()).map_or(bytes.len(), |k| p + k + 1);
                let line = std::str::from_utf8(bytes.get(line_in..end).unwrap_or_default()).ok()?;
                o.truncate(line_out);
                o.extend_from_slice(normalise_str(line).as_bytes());
                (i, line_in, line_out) = (end, end, o.len());
                next = first_unplain(bytes.get(end..).unwrap_or_default()).map(|q| q + end);
            }
        }
    }
    if let Some(o) = out.as_mut() {
        o.extend_from_slice(bytes.get(i..).unwrap_or_default());
    }
    Some(out)
}

/// Whether a CJK ideograph (U+4E00 to U+9FFF, which the view keeps as it is) is written at
/// byte `at` of `bytes` in UTF-8.
#[inline]
fn cjk_at(bytes: &[u8], at: usize) -> bool {
    let cont = |b: &u8| (0x80..=0xBF).contains(b);
    match bytes.get(at..at + 3) {
        Some([0xE4, b, c]) => (0xB8..=0xBF).contains(b) && cont(c),
        Some([0xE5..=0xE9, b, c]) => cont(b) && cont(c),
        _ => false,
    }
}

/// The character at byte `at` of `bytes` (`None` at the end or on bytes that are not UTF-8:
/// a bad lead or continuation byte, an overlong form, a surrogate, past U+10FFFF).
#[inline]
fn char_at(bytes: &[u8], at: usize) -> Option<char> {
    let lead = *bytes.get(at)?;
    let cont = |k: usize| bytes.get(at + k).filter(|b| **b & 0xC0 == 0x80).map(|b| u32::from(*b & 0x3F));
    let (v, least) = match lead {
        0..=0x7F => return Some(char::from(lead)),
        0xC2..=0xDF => ((u32::from(lead & 0x1F) << 6) | cont(1)?, 0x80),
        0xE0..=0xEF => ((u32::from(lead & 0x0F) << 12) | (cont(1)? << 6) | cont(2)?, 0x800),
        0xF0..=0xF4 => ((u32::from(lead & 0x07) << 18) | (cont(1)? << 12) | (cont(2)? << 6) | cont(3)?, 0x10000),
        _ => return None,
    };
    if v < least {
        return None;
    }
    char::from_u32(v)
}

/// Whether NFKC of a line holding `c` (a starter [`class`] calls [`Class::Nfkc`]) followed by
/// `next` holds NFKC of `c` alone in its place: nothing composes with or reorders around it
/// when its decomposition starts with a [`stable`] character and the next one is stable too
/// (or the line ends).
fn alone(c: char, next: Option<char>) -> bool {
    next.is_none_or(|n| !dropped(n) && stable(n))
        && unicode_normalization::char::canonical_combining_class(c) == 0
        && std::iter::once(c).nfkd().next().is_some_and(stable)
}

/// The first byte of `bytes` that is not [`plain`], looking at 32 bytes at a time (a loop
/// without branches, which the compiler turns into vector instructions).
fn first_unplain(bytes: &[u8]) -> Option<usize> {
    let mut chunks = bytes.chunks_exact(32);
    let mut at = 0;
    for chunk in &mut chunks {
        let mut odd = 0u8;
        for b in chunk {
            odd |= u8::from(!plain(*b));
        }
        if odd != 0 {
            return chunk.iter().position(|b| !plain(*b)).map(|i| at + i);
        }
        at += 32;
    }
    chunks.remainder().iter().position(|b| !plain(*b)).map(|i| at + i)
}

/// One line normalised onto `out`: character by character where each is stable under NFKC
/// (most are: ASCII, CJK, Hangul, emoji) or is a starter whose NFKC form composes with
/// neither neighbour (`…`, `™`, full-width punctuation and letters), the whole line through
/// NFKC when one is not.
fn normalise_line(line: &[u8], out: &mut Vec<u8>) {
    let mark = out.len();
    let mut buf = [0u8; 4];
    for chunk in line.utf8_chunks() {
        let text = chunk.valid();
        let mut i = 0;
        while i < text.len() {
            // A run of plain bytes is copied whole.
            let run = first_unplain(text.as_bytes().get(i..).unwrap_or_default()).unwrap_or(text.len() - i);
            out.extend_from_slice(text.as_bytes().get(i..i + run).unwrap_or_default());
            i += run;
            let Some(c) = text.get(i..).and_then(|t| t.chars().next()) else { break };
            i += c.len_utf8();
            if common(c) {
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                continue;
            }
            if dropped(c) {
                continue;
            }
            if let Some(l) = lookalike(c) {
                out.push(l as u8);
                continue;
            }
            if stable(c) {
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                continue;
            }
            // A starter between characters nothing composes with or reorders around: the line's
            // NFKC form holds the NFKC form of it in its place. Its decomposition must start
            // with such a character too, and the next character be one (or the line end).
            let next_stable = match text.get(i..).and_then(|t| t.chars().next()) {
                Some(n) => !dropped(n) && stable(n),
                None => chunk.invalid().is_empty(),
            };
            let alone = next_stable
                && unicode_normalization::char::canonical_combining_class(c) == 0
                && std::iter::once(c).nfkd().next().is_some_and(stable);
            if !alone {
                out.truncate(mark);
                out.extend_from_slice(normalise_str(&String::from_utf8_lossy(line)).as_bytes());
                return;
            }
            for d in std::iter::once(c).nfkc() {
                match lookalike(d) {
                    Some(l) => out.push(l as u8),
                    None if dropped(d) => {}
                    None => out.extend_from_slice(d.encode_utf8(&mut buf).as_bytes()),
                }
            }
        }
        if !chunk.invalid().is_empty() {
            out.extend_from_slice("\u{FFFD}".as_bytes());
        }
    }
}

/// Characters of the scripts skills are most often written in besides Latin that the view
/// keeps as they are (not dropped, no lookalike, [`stable`]): CJK ideographs, kana, Hangul
/// syllables, emoji. A shortcut past the other tests.
fn common(c: char) -> bool {
    matches!(
        c,
        '\u{4E00}'..='\u{9FFF}'
            | '\u{3041}'..='\u{3096}'
            | '\u{30A1}'..='\u{30FA}'
            | '\u{AC00}'..='\u{D7A3}'
            | '\u{1F300}'..='\u{1FAFF}'
    )
}

/// Whether NFKC leaves `c` as it is whatever surrounds it: ASCII, and starters that are
/// quick-checked as normalised (nothing composes with them as a second character).
fn stable(c: char) -> bool {
    c.is_ascii()
        || matches!(c, '\u{4E00}'..='\u{9FFF}' | '\u{AC00}'..='\u{D7A3}' | '\u{1F300}'..='\u{1FAFF}')
        || unicode_normalization::is_nfkc_quick(std::iter::once(c)) == unicode_normalization::IsNormalized::Yes
            && unicode_normalization::char::canonical_combining_class(c) == 0
}

/// One piece of text normalised (its line feeds kept as they are).
fn normalise_str(s: &str) -> String {
    let kept: String = s.chars().filter(|c| !dropped(*c)).collect();
    let mut out = String::with_capacity(kept.len());
    let simple = unicode_normalization::is_nfkc_quick(kept.chars()) == unicode_normalization::IsNormalized::Yes;
    let mut push = |c: char| match lookalike(c) {
        Some(l) => out.push(l),
        None if dropped(c) => {}
        None => out.push(c),
    };
    if simple {
        kept.chars().for_each(&mut push);
    } else {
        kept.chars().nfkc().for_each(&mut push);
    }
    out
}

/// Characters the view leaves out: control characters but tab, line feed and carriage return,
/// and characters that show as nothing or only change how their neighbours show.
pub fn dropped(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_control() && !matches!(c, '\t' | '\n' | '\r');
    }
    c.is_control()
        || crate::chars::is_invisible(c)
        || is_variation_selector(c)
        || matches!(
            c,
            '\u{061C}'
                | '\u{180B}'..='\u{180F}'
                | '\u{17B4}'
                | '\u{17B5}'
                | '\u{200B}'..='\u{200F}'
                | '\u{2060}'..='\u{206F}'
                | '\u{FE00}'..='\u{FE0F}'
                | '\u{FEFF}'
                | '\u{FFF9}'..='\u{FFFB}'
                | '\u{1D173}'..='\u{1D17A}'
                | '\u{E0000}'..='\u{E0FFF}'
        )
}

/// A variation selector (VS1–VS256): it changes how the character before it is drawn, and a run
/// of them draws nothing while it can carry a byte each.
pub fn is_variation_selector(c: char) -> bool {
    matches!(c, '\u{FE00}'..='\u{FE0F}' | '\u{E0100}'..='\u{E01EF}')
}

/// The ASCII character `c` is drawn like, for letters of other scripts that look like Latin
/// ones (Cyrillic, Greek, Armenian, a few Latin variants), and typographic quotes, dashes,
/// slashes and spaces NFKC keeps.
pub fn lookalike(c: char) -> Option<char> {
    Some(match c {
        // Cyrillic.
        'а' | 'ɑ' | 'α' => 'a',
        'А' | 'Α' => 'A',
        'В' | 'Β' => 'B',
        'в' | 'ь' => 'b',
        'с' | 'ϲ' => 'c',
        'С' | 'Ϲ' => 'C',
        'ԁ' => 'd',
        'е' | 'ё' | 'ε' => 'e',
        'Е' | 'Ё' | 'Ε' => 'E',
        'ɡ' => 'g',
        'һ' | 'հ' => 'h',
        'Н' | 'Η' => 'H',
        'і' | 'ї' | 'ı' | 'ɩ' | 'ι' | 'ί' => 'i',
        'І' | 'Ї' | 'Ι' | 'Ӏ' => 'I',
        'ј' | 'ϳ' => 'j',
        'Ј' => 'J',
        'к' | 'κ' => 'k',
        'К' | 'Κ' => 'K',
        'ӏ' => 'l',
        'м' => 'm',
        'М' | 'Μ' => 'M',
        'п' | 'ո' => 'n',
        'Ν' => 'N',
        'о' | 'ο' | 'ό' | 'օ' | 'σ' => 'o',
        'О' | 'Ο' => 'O',
        'р' | 'ρ' => 'p',
        'Р' | 'Ρ' => 'P',
        'ԛ' => 'q',
        'г' => 'r',
        'ѕ' => 's',
        'Ѕ' => 'S',
        'т' | 'τ' => 't',
        'Т' | 'Τ' => 'T',
        'υ' | 'ս' => 'u',
        'ν' | 'ѵ' => 'v',
        'ԝ' | 'ѡ' => 'w',
        'х' | 'χ' => 'x',
        'Х' | 'Χ' => 'X',
        'у' | 'ү' | 'ʏ' => 'y',
        'У' | 'Ү' | 'Υ' => 'Y',
        'Ζ' => 'Z',
        // Punctuation NFKC leaves as it is.
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' | '\u{2032}' | '\u{02BC}' | '\u{FF07}' => '\'',
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' | '\u{2033}' => '"',
        '\u{2010}'..='\u{2015}' | '\u{2212}' | '\u{FE63}' => '-',
        '\u{2044}' | '\u{2215}' => '/',
        '\u{2028}' | '\u{2029}' | '\u{0085}' | '\u{00A0}' | '\u{3000}' => ' ',
        _ => return None,
    })
}

/// A line of code with strings built from pieces joined: `'a'+'b'`, `"a" . "b"`, `"a" "b"`
/// become `'ab'`/`"ab"`, a quote between two word characters (`c'u'rl`) goes, and `${IFS}` or
/// `$IFS` is a space. Written onto `out` (empty) only when something changes; whether it did.
fn join_pieces(line: &[u8], out: &mut Vec<u8>) -> bool {
    let mut changed = false;
    // `line[copied..]` is not yet on `out`; nothing before `i` changes any more.
    let (mut copied, mut i) = (0, 0);
    while let Some(j) = memchr::memchr3(b'\'', b'"', b'$', line.get(i..).unwrap_or_default()).map(|p| p + i) {
        let last = if j > copied { line.get(j - 1).copied() } else { out.last().copied() };
        match change_at(line, j, last) {
            Some((skip, space)) => {
                out.extend_from_slice(line.get(copied..j).unwrap_or_default());
                if space {
                    out.push(b' ');
                }
                i = j + skip;
                copied = i;
                changed = true;
            }
            None => i = j + 1,
        }
    }
    if changed {
        out.extend_from_slice(line.get(copied..).unwrap_or_default());
    }
    changed
}

/// What joining does at byte `i` of `line` (a quote or `$`), after the byte `last` kept
/// before it: how many bytes it drops there and whether a space takes their place.
fn change_at(line: &[u8], i: usize, last: Option<u8>) -> Option<(usize, bool)> {
    let word = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'/' | b'~' | b'-');
    let b = *line.get(i)?;
    if b == b'$' {
        let rest = line.get(i..).unwrap_or_default();
        return [&b"${IFS}"[..], b"$IFS"].iter().find(|p| rest.starts_with(p)).map(|p| (p.len(), true));
    }
    // A closing quote, a join (`+`, `.` or only spaces) and the same quote opening again.
    let mut j = i + 1;
    while line.get(j).is_some_and(|c| *c == b' ' || *c == b'\t') {
        j += 1;
    }
    let mut k = j;
    if line.get(k).is_some_and(|c| *c == b'+' || *c == b'.') {
        k += 1;
        while line.get(k).is_some_and(|c| *c == b' ' || *c == b'\t') {
            k += 1;
        }
    }
    let joined = (k > i + 1 || j > i + 1) && line.get(k) == Some(&b);
    let before_is_word = last.is_some_and(word);
    if joined && before_is_word && line.get(k + 1).is_some_and(|c| word(*c)) {
        return Some((k + 1 - i, false));
    }
    if before_is_word && line.get(i + 1).is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_') {
        return Some((1, false));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &[u8]) -> String {
        String::from_utf8_lossy(&view(s, &|_| true)).into_owned()
    }

    #[test]
    fn the_view_reads_what_the_eye_or_the_shell_reads() {
        assert_eq!(v(b"cu\0rl"), "curl");
        assert_eq!(v("c\u{00AD}u\u{2060}rl".as_bytes()), "curl");
        assert_eq!(v("Іgnore prevіous".as_bytes()), "Ignore previous");
        assert_eq!(v("ｉｇｎｏｒｅ".as_bytes()), "ignore");
        assert_eq!(v("Don\u{2019}t".as_bytes()), "Dont");
        assert_eq!(v(b"open('~/.s'+'sh/id_rsa')"), "open('~/.ssh/id_rsa')");
        assert_eq!(v(b"p = \"~/.s\" \"sh\""), "p = \"~/.ssh\"");
        assert_eq!(v(b"c'u'rl${IFS}x"), "curl x");
        assert_eq!(v(b"print('a', 'b')"), "print('a', 'b')");
        let lines = "a\0\nb\u{200B}\r\nc".as_bytes();
        assert_eq!(v(lines).matches('\n').count(), 2);
        let utf16: Vec<u8> =
            [0xFF, 0xFE].into_iter().chain("hi\nyo".encode_utf16().flat_map(u16::to_le_bytes)).collect();
        assert_eq!(v(&utf16), "hi\nyo");
    }

    #[test]
    fn characters_are_decoded_as_the_standard_library_decodes_them() {
        let samples: [&[u8]; 8] = [
            "aé—…ｉ中😀".as_bytes(),
            b"\xC0\xAF",
            b"\xE0\x80\xAF",
            b"\xED\xA0\x80",
            b"\xF4\x90\x80\x80",
            b"\xF0\x9F\x98",
            b"\xE2\x80",
            b"\xFF",
        ];
        for s in samples {
            let want = std::str::from_utf8(s).ok().and_then(|t| t.chars().next());
            assert_eq!(char_at(s, 0), want, "{s:?}");
        }
    }

    #[test]
    fn cjk_ideographs_are_found_by_their_bytes() {
        for c in ['\u{4E00}', '中', '\u{9FFF}', '\u{4DFF}', '\u{A000}', 'é', '\u{3001}'] {
            let mut buf = [0u8; 4];
            let wanted = ('\u{4E00}'..='\u{9FFF}').contains(&c);
            assert_eq!(cjk_at(c.encode_utf8(&mut buf).as_bytes(), 0), wanted, "{c:?}");
        }
        assert!(!cjk_at(b"\xE4\xB8", 0));
    }

    #[test]
    fn the_view_of_a_line_is_its_nfkc_form_character_by_character_or_whole() {
        for line in
            ["a…b", "中：文", "x\u{FF41}\u{0301}y", "ｅ\u{0301}", "\u{1100}\u{1161}", "ﬁ—“q”", "Ａ\u{200B}\u{0301}"]
        {
            let whole = normalise_str(line);
            assert_eq!(String::from_utf8_lossy(&characters(line.as_bytes())), whole, "{line:?}");
        }
    }

    #[test]
    fn prose_keeps_its_quotes() {
        let prose = view(b"Don't 'quote' me", &|_| false);
        assert_eq!(&*prose, b"Don't 'quote' me");
    }
}
