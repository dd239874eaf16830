//! Classes of characters the audit treats specially: the invisible ones (tag characters,
//! zero-width, bidirectional controls and other blanks) and right-to-left letters. Beneath both
//! the text reader (`text.rs`) and the normalised view (`norm.rs`), which each use them; and
//! the lines of a text, found with `memchr`.

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

/// The lines of `text`, each with its line break (as `split_inclusive` gives them), found a
/// word at a time.
pub fn lines(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut at = 0;
    std::iter::from_fn(move || {
        let rest = text.get(at..).filter(|r| !r.is_empty())?;
        let len = memchr::memchr(b'\n', rest).map_or(rest.len(), |i| i + 1);
        at += len;
        rest.get(..len)
    })
}
