//! A description on one line, as every listing shows it.

use skilldeck_skill::entry::{one_line, one_line_if_changed};
use std::borrow::Cow;

#[test]
fn a_description_on_one_line_already_is_borrowed_and_every_other_is_made_one() {
    for text in ["Extract text from PDFs.", "", "a b c", "中文 描述"] {
        assert!(matches!(one_line(text), Cow::Borrowed(t) if t == text), "{text:?}");
        assert_eq!(one_line_if_changed(text), None, "{text:?}");
    }
    for (text, made) in [
        ("two\nlines", "two lines"),
        ("  padded ", "padded"),
        ("double  space", "double space"),
        ("tab\there", "tab here"),
        ("ends with a space ", "ends with a space"),
        ("no-break\u{a0}space", "no-break space"),
        (" ", ""),
        ("\u{3000}ideographic", "ideographic"),
    ] {
        assert_eq!(one_line(text), made, "{text:?}");
        assert_eq!(one_line_if_changed(text).as_deref(), Some(made), "{text:?}");
    }
}
