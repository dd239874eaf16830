//! Text made safe to show: characters that a terminal or a renderer would act on, or draw as
//! nothing, are written as visible escapes (`\e`, `\r`, `\u{202E}`), so what people read is
//! what the text holds. Holds the classification of those characters and the two display forms;
//! no I/O. Used wherever a command, a path or model- or skill-written text reaches a screen, and
//! reusable to find hidden text (`first_hidden`) and the control characters validation refuses
//! in a field shown on one line (`first_control`, `control_name`).
//!
//! What is shown as an escape, and why:
//! - C0 controls (U+0000–U+001F) and DEL: ESC starts terminal sequences (clear a line, set a
//!   title, move the cursor), `\r` returns to the line's start so later text overwrites earlier.
//!   `\n` and `\t` are kept by `visible` (multi-line text) and escaped by `visible_line`.
//! - C1 controls (U+0080–U+009F): U+009B is a one-character CSI on some terminals.
//! - Bidirectional controls (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069): they reorder
//!   what is drawn, so `exe.txt` can be drawn as `txt.exe` ("Trojan Source").
//! - Invisible characters: zero-width space and joiners (U+200B–U+200D), word joiner and invisible
//!   operators (U+2060–U+206F), soft hyphen U+00AD, U+034F, Mongolian vowel separator U+180E,
//!   the Hangul fillers (U+115F, U+1160, U+3164, U+FFA0), BOM U+FEFF, interlinear annotation
//!   (U+FFF9–U+FFFB), and the tag characters (U+E0000–U+E007F), which can spell out a whole
//!   hidden text.
//! - Line and paragraph separators (U+2028, U+2029): line breaks to a renderer, nothing to a
//!   terminal.
//! - Variation selectors (U+FE00–U+FE0F, U+E0100–U+E01EF): U+FE00–U+FE0F right after a visible
//!   character is kept (that is how emoji choose their look, e.g. ❤️); any other, such as a run of
//!   them, which can carry hidden bytes, is escaped.
//!
//! A backslash is not escaped: `\e` in the output may be a real ESC or the two characters the
//! text held. That ambiguity can only make harmless text look odd, never hide anything, and
//! escaping every backslash would make ordinary shell commands hard to read.
//! Look-alike letters (Cyrillic `а` for Latin `a`) are visible and are not this module's job.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Why a character is shown as an escape.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Hidden {
    /// A C0 control, DEL or a C1 control (including `\n` and `\t` when they are not allowed).
    Control,
    /// A bidirectional control, which reorders what is drawn.
    Bidi,
    /// A character drawn as nothing (zero-width, joiners, fillers, tag characters, BOM).
    Invisible,
    /// U+2028 or U+2029, a line break to some renderers and nothing to others.
    LineBreak,
    /// A variation selector that selects nothing visible (not right after a visible character,
    /// or a supplementary one).
    VariationSelector,
}

/// Which line breaks a display form keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lines {
    /// Keep `\n` and `\t` (and show `\r\n` as `\n`).
    Multi,
    /// Escape them too: the text must stay on one line.
    Single,
}

/// The class of `c` when it is hidden whatever precedes it; `None` for a character shown as
/// itself (`\n` and `\t` are `Control` here; `visible` keeps them). U+FE00–U+FE0F is `None`:
/// whether it is hidden depends on the character before it (see `first_hidden`).
pub fn hidden(c: char) -> Option<Hidden> {
    match c {
        '\u{0}'..='\u{1F}' | '\u{7F}'..='\u{9F}' => Some(Hidden::Control),
        '\u{61C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' => Some(Hidden::Bidi),
        '\u{AD}'
        | '\u{34F}'
        | '\u{115F}'
        | '\u{1160}'
        | '\u{180E}'
        | '\u{200B}'..='\u{200D}'
        | '\u{2060}'..='\u{2065}'
        | '\u{206A}'..='\u{206F}'
        | '\u{3164}'
        | '\u{FEFF}'
        | '\u{FFA0}'
        | '\u{FFF9}'..='\u{FFFB}'
        | '\u{E0000}'..='\u{E007F}' => Some(Hidden::Invisible),
        '\u{2028}' | '\u{2029}' => Some(Hidden::LineBreak),
        '\u{E0100}'..='\u{E01EF}' => Some(Hidden::VariationSelector),
        _ => None,
    }
}

/// Whether `c` is one of U+FE00–U+FE0F, the variation selectors kept after a visible character.
fn is_basic_selector(c: char) -> bool {
    ('\u{FE00}'..='\u{FE0F}').contains(&c)
}

/// The first hidden character of `text` (as `visible` would escape it), with its byte offset and
/// class; `None` when `text` shows as it is. `\n` and `\t` count only when `multi_line` is false
/// (a `\r` before `\n` counts either way; `visible` shows that pair as `\n`).
pub fn first_hidden(text: &str, multi_line: bool) -> Option<(usize, char, Hidden)> {
    let lines = if multi_line { Lines::Multi } else { Lines::Single };
    let mut shown_before = false;
    for (i, c) in text.char_indices() {
        match classify(c, shown_before, lines) {
            Some(kind) => return Some((i, c, kind)),
            None => shown_before = !is_basic_selector(c) && !matches!(c, '\n' | '\t'),
        }
    }
    None
}

/// The class of `c` in a display form, knowing whether a visible character came right before it.
fn classify(c: char, shown_before: bool, lines: Lines) -> Option<Hidden> {
    match c {
        '\n' | '\t' if lines == Lines::Multi => None,
        c if is_basic_selector(c) => (!shown_before).then_some(Hidden::VariationSelector),
        c => hidden(c),
    }
}

/// The control characters of `text` that a terminal or renderer acts on, with their positions
/// in characters: C0 controls but tab and line feed (a `\r` right before `\n` is a line end, not
/// a control), DEL and C1 controls. What validation refuses in a field shown on one line
/// (`description`), where `visible` and `visible_line` show them escaped.
pub fn controls(text: &str) -> impl Iterator<Item = (usize, char)> + '_ {
    let mut chars = text.chars().enumerate().peekable();
    std::iter::from_fn(move || {
        while let Some((i, c)) = chars.next() {
            let line_end = matches!(c, '\n' | '\t') || (c == '\r' && chars.peek().is_some_and(|&(_, n)| n == '\n'));
            if !line_end && hidden(c) == Some(Hidden::Control) {
                return Some((i, c));
            }
        }
        None
    })
}

/// The first of `controls(text)`.
pub fn first_control(text: &str) -> Option<(usize, char)> {
    controls(text).next()
}

/// A control character named for people: its common name where it has one and its code point,
/// with the escape `visible` shows it as (`ESC (U+001B, shown as \e)`).
pub fn control_name(c: char) -> String {
    let name = match c {
        '\u{0}' => "NUL",
        '\u{7}' => "BEL",
        '\u{8}' => "backspace",
        '\u{9}' => "tab",
        '\u{a}' => "line feed",
        '\u{b}' => "vertical tab",
        '\u{c}' => "form feed",
        '\u{d}' => "carriage return",
        '\u{1b}' => "ESC",
        '\u{7f}' => "DEL",
        '\u{9b}' => "CSI",
        '\u{9d}' => "OSC",
        _ => "",
    };
    let code = u32::from(c);
    let shown = visible_line(&c.to_string()).into_owned();
    if name.is_empty() {
        format!("U+{code:04X} (shown as {shown})")
    } else {
        format!("{name} (U+{code:04X}, shown as {shown})")
    }
}

/// `text` for a screen, possibly over several lines: `\n` and `\t` are kept (`\r\n` is shown as
/// `\n`), every other hidden character (see `hidden`) is shown as an escape. Borrows when there is
/// nothing to escape. For model answers, file contents, command output.
pub fn visible(text: &str) -> Cow<'_, str> {
    escape(text, Lines::Multi)
}

/// `text` for one line of a screen: like `visible`, and `\n` and `\t` are shown as `\n` and `\t`
/// too. For a command in a question, a path, a name: what is shown on the line is all there is.
pub fn visible_line(text: &str) -> Cow<'_, str> {
    escape(text, Lines::Single)
}

fn escape(text: &str, lines: Lines) -> Cow<'_, str> {
    let Some((start, _, _)) = first_hidden(text, lines == Lines::Multi) else {
        return Cow::Borrowed(text);
    };
    let mut out = String::with_capacity(text.len() + 16);
    out.push_str(&text[..start]);
    let rest = &text[start..];
    // The first hidden character is never kept, so "shown before" only matters from the next one.
    let mut shown_before = false;
    let mut chars = rest.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\r' && lines == Lines::Multi && chars.peek() == Some(&'\n') {
            continue;
        }
        if classify(c, shown_before, lines).is_none() {
            out.push(c);
            shown_before = !is_basic_selector(c) && !matches!(c, '\n' | '\t');
            continue;
        }
        shown_before = false;
        match c {
            '\u{1B}' => out.push_str("\\e"),
            '\r' => out.push_str("\\r"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\u{0}'..='\u{7F}' => {
                let _ = write!(out, "\\x{:02x}", u32::from(c));
            }
            _ => {
                let _ = write!(out, "\\u{{{:X}}}", u32::from(c));
            }
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn clean_text_is_borrowed() {
        for text in ["", "ls -la", "naïve café ❤️ 日本語", "a\nb\tc"] {
            assert!(matches!(visible(text), Cow::Borrowed(_)), "{text:?}");
        }
        assert!(matches!(visible_line("ls -la | grep 'a\\|b'"), Cow::Borrowed(_)));
        assert!(matches!(visible_line("a\nb"), Cow::Owned(_)));
    }

    #[test]
    fn terminal_controls_are_escaped() {
        let faked = "echo PWNED > hidden.txt #\u{1b}[2K\rRun `ls -la";
        assert_eq!(visible_line(faked), "echo PWNED > hidden.txt #\\e[2K\\rRun `ls -la");
        assert_eq!(visible(faked), "echo PWNED > hidden.txt #\\e[2K\\rRun `ls -la");
        assert_eq!(visible_line("a\0b\u{7}c\u{8}d\u{7f}"), "a\\x00b\\x07c\\x08d\\x7f");
        assert_eq!(visible("\u{b}\u{c}"), "\\x0b\\x0c");
    }

    #[test]
    fn line_breaks_are_kept_only_in_multi_line_text() {
        assert_eq!(visible("a\nb\tc\r\nd"), "a\nb\tc\nd");
        assert_eq!(visible("a\rb\r"), "a\\rb\\r");
        assert_eq!(visible_line("ls\nrm -rf ~\t#"), "ls\\nrm -rf ~\\t#");
        assert_eq!(visible_line("a\r\nb"), "a\\r\\nb");
        assert_eq!(visible("a\u{2028}b\u{2029}"), "a\\u{2028}b\\u{2029}");
    }

    #[test]
    fn c1_controls_are_escaped() {
        assert_eq!(visible("\u{9b}31m\u{85}\u{80}"), "\\u{9B}31m\\u{85}\\u{80}");
    }

    #[test]
    fn bidi_controls_are_escaped() {
        for c in ['\u{61C}', '\u{200E}', '\u{200F}', '\u{202A}', '\u{202E}', '\u{2066}', '\u{2069}'] {
            assert_eq!(visible(&format!("a{c}b")), format!("a\\u{{{:X}}}b", u32::from(c)));
            assert_eq!(hidden(c), Some(Hidden::Bidi));
        }
        assert_eq!(visible_line("report\u{202E}fdp.exe"), "report\\u{202E}fdp.exe");
    }

    #[test]
    fn invisible_characters_are_escaped() {
        for c in
            ['\u{AD}', '\u{180E}', '\u{200B}', '\u{200C}', '\u{200D}', '\u{2060}', '\u{2064}', '\u{FEFF}', '\u{3164}']
        {
            assert_eq!(hidden(c), Some(Hidden::Invisible), "{c:?}");
            assert_eq!(visible(&format!("x{c}")), format!("x\\u{{{:X}}}", u32::from(c)));
        }
        // Tag characters can spell a whole hidden sentence: "hi" in tags.
        assert_eq!(visible("ok\u{E0068}\u{E0069}"), "ok\\u{E0068}\\u{E0069}");
    }

    #[test]
    fn a_variation_selector_is_kept_only_right_after_a_visible_character() {
        assert_eq!(visible("❤\u{FE0F} ok"), "❤\u{FE0F} ok");
        assert_eq!(visible_line("✔\u{FE0E}"), "✔\u{FE0E}");
        // A run, one at the start, or one after an escape carries nothing visible.
        assert_eq!(visible("a\u{FE0F}\u{FE01}"), "a\u{FE0F}\\u{FE01}");
        assert_eq!(visible("\u{FE0F}a"), "\\u{FE0F}a");
        assert_eq!(visible("\n\u{FE0F}"), "\n\\u{FE0F}");
        assert_eq!(visible("\u{1b}\u{FE0F}"), "\\e\\u{FE0F}");
        assert_eq!(visible("a\u{E0100}"), "a\\u{E0100}");
        assert_eq!(
            first_hidden("a\u{FE0F}\u{FE0F}", true).map(|(i, _, k)| (i, k)),
            Some((4, Hidden::VariationSelector))
        );
    }

    #[test]
    fn first_control_skips_line_ends_and_names_the_character() {
        assert_eq!(first_control("plain\ttext\r\nmore\n"), None);
        assert_eq!(first_control("bidi \u{202E} is not a control"), None);
        assert_eq!(first_control("x\u{1b}]52;c;QQ==\u{7}"), Some((1, '\u{1b}')));
        assert_eq!(first_control("é\u{7}"), Some((1, '\u{7}')));
        assert_eq!(first_control("a\rb"), Some((1, '\r')));
        assert_eq!(first_control("\u{9b}2K"), Some((0, '\u{9b}')));
        assert_eq!(
            controls("\u{1b}[2K\r\n\u{7}\u{7f}").collect::<Vec<_>>(),
            [(0, '\u{1b}'), (6, '\u{7}'), (7, '\u{7f}')]
        );
        assert_eq!(control_name('\u{1b}'), "ESC (U+001B, shown as \\e)");
        assert_eq!(control_name('\u{7}'), "BEL (U+0007, shown as \\x07)");
        assert_eq!(control_name('\u{9b}'), "CSI (U+009B, shown as \\u{9B})");
        assert_eq!(control_name('\u{1}'), "U+0001 (shown as \\x01)");
    }

    #[test]
    fn first_hidden_finds_the_offset() {
        assert_eq!(first_hidden("abc", false), None);
        assert_eq!(first_hidden("a\nb", true), None);
        assert_eq!(first_hidden("a\nb", false), Some((1, '\n', Hidden::Control)));
        assert_eq!(first_hidden("é\u{200B}", true), Some((2, '\u{200B}', Hidden::Invisible)));
    }

    /// Whether `out`, a display form, still holds anything a screen would act on or hide.
    fn holds_hidden(out: &str, multi_line: bool) -> bool {
        first_hidden(out, multi_line).is_some() || (!multi_line && out.contains(['\n', '\t']))
    }

    #[test]
    fn no_output_holds_a_control_bidi_or_invisible_character() {
        // Every character alone, after a letter and doubled, in both forms.
        for c in (0..=0x10FFFF_u32).filter_map(char::from_u32) {
            for text in [c.to_string(), format!("a{c}"), format!("{c}{c}b")] {
                assert!(!holds_hidden(&visible_line(&text), false), "{text:?}");
                assert!(!holds_hidden(&visible(&text), true), "{text:?}");
                assert!(!visible(&text).contains(['\r', '\u{1b}']), "{text:?}");
            }
        }
        // Random strings drawn mostly from the characters that matter.
        let pool: Vec<char> =
            "a \n\t\r\u{1b}\u{7f}\u{9b}\u{200B}\u{202E}\u{2066}\u{FEFF}\u{FE0F}\u{E0041}\u{2028}é❤\\".chars().collect();
        let mut rng = fastrand::Rng::with_seed(7);
        for _ in 0..20_000 {
            let text: String = (0..rng.usize(0..24)).map(|_| pool[rng.usize(..pool.len())]).collect();
            let line = visible_line(&text);
            assert!(!holds_hidden(&line, false), "{text:?} -> {line:?}");
            let multi = visible(&text);
            assert!(!holds_hidden(&multi, true) && !multi.contains('\r'), "{text:?} -> {multi:?}");
            // Escaping a display form again changes nothing: nothing is left to escape.
            assert_eq!(visible_line(&line), line);
            assert_eq!(visible(&multi), multi);
        }
    }
}
