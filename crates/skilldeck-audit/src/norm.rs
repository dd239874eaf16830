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
    let needs_code = memchr::memchr2(b'\'', b'"', &text).is_some()
        || memchr::memmem::find(&text, b"$IFS").is_some()
        || memchr::memmem::find(&text, b"${IFS").is_some();
    if !needs_code {
        return text;
    }
    let mut out = Vec::with_capacity(text.len());
    let mut changed = false;
    for (i, line) in text.split_inclusive(|b| *b == b'\n').enumerate() {
        let n = u32::try_from(i + 1).unwrap_or(u32::MAX);
        if code(n) && (memchr::memchr2(b'\'', b'"', line).is_some() || memchr::memchr(b'$', line).is_some()) {
            let joined = join_pieces(line);
            changed |= joined.len() != line.len() || joined != line;
            out.extend_from_slice(&joined);
        } else {
            out.extend_from_slice(line);
        }
    }
    if changed { Cow::Owned(out) } else { text }
}

/// Whether `b` may be left as it is: printable ASCII, tab, line feed or carriage return.
const fn plain(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\r' | 0x20..=0x7e)
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
    if bytes.iter().all(|b| plain(*b)) {
        return Cow::Borrowed(bytes);
    }
    let mut out = Vec::with_capacity(bytes.len());
    for line in bytes.split_inclusive(|b| *b == b'\n') {
        if line.iter().all(|b| plain(*b)) {
            out.extend_from_slice(line);
        } else {
            normalise_line(line, &mut out);
        }
    }
    Cow::Owned(out)
}

/// One line normalised onto `out`: character by character where each is stable under NFKC
/// (most are: ASCII, CJK, Hangul, emoji), the whole line through NFKC when one is not.
fn normalise_line(line: &[u8], out: &mut Vec<u8>) {
    let mark = out.len();
    let mut buf = [0u8; 4];
    for chunk in line.utf8_chunks() {
        for c in chunk.valid().chars() {
            if c.is_ascii() {
                if !dropped(c) {
                    out.push(c as u8);
                }
                continue;
            }
            if dropped(c) {
                continue;
            }
            if let Some(l) = lookalike(c) {
                out.push(l as u8);
                continue;
            }
            let stable = matches!(c, '\u{4E00}'..='\u{9FFF}' | '\u{AC00}'..='\u{D7A3}' | '\u{1F300}'..='\u{1FAFF}')
                || unicode_normalization::is_nfkc_quick(std::iter::once(c)) == unicode_normalization::IsNormalized::Yes
                    && unicode_normalization::char::canonical_combining_class(c) == 0;
            if !stable {
                out.truncate(mark);
                out.extend_from_slice(normalise_str(&String::from_utf8_lossy(line)).as_bytes());
                return;
            }
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        }
        if !chunk.invalid().is_empty() {
            out.extend_from_slice("\u{FFFD}".as_bytes());
        }
    }
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
/// `$IFS` is a space.
fn join_pieces(line: &[u8]) -> Vec<u8> {
    let word = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'/' | b'~' | b'-');
    let mut out: Vec<u8> = Vec::with_capacity(line.len());
    let mut i = 0;
    while let Some(&b) = line.get(i) {
        if b == b'$' {
            let rest = line.get(i..).unwrap_or_default();
            if let Some(n) = [&b"${IFS}"[..], b"$IFS"].iter().find(|p| rest.starts_with(p)).map(|p| p.len()) {
                out.push(b' ');
                i += n;
                continue;
            }
        }
        if b == b'\'' || b == b'"' {
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
            let before_is_word = out.last().is_some_and(|c| word(*c));
            if joined && before_is_word && line.get(k + 1).is_some_and(|c| word(*c)) {
                i = k + 1;
                continue;
            }
            if before_is_word && line.get(i + 1).is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_') {
                i += 1;
                continue;
            }
        }
        out.push(b);
        i += 1;
    }
    out
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
    fn prose_keeps_its_quotes() {
        let prose = view(b"Don't 'quote' me", &|_| false);
        assert_eq!(&*prose, b"Don't 'quote' me");
    }
}
