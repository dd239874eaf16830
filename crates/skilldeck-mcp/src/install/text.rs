//! A settings file's text as the editors see it and as it is written back: a byte order mark
//! and CRLF line endings are taken off before parsing and put back after editing, so the rest
//! of the file stays byte for byte. Knows no format.

/// The byte order mark some Windows editors put at the start of a UTF-8 file.
const BOM: char = '\u{feff}';

/// A file's text, split into what the editors read and how it is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Text {
    original: String,
    body: String,
    bom: bool,
    crlf: bool,
}

impl Text {
    /// `original`, with a leading byte order mark taken off, and its line endings made LF when
    /// every line ends in CRLF (a file mixing both is edited as it is).
    pub(crate) fn new(original: String) -> Self {
        let without_bom = original.strip_prefix(BOM);
        let bom = without_bom.is_some();
        let rest = without_bom.unwrap_or(&original);
        let crlf = rest.contains("\r\n") && rest.matches('\n').count() == rest.matches("\r\n").count();
        let body = if crlf { rest.replace("\r\n", "\n") } else { rest.to_owned() };
        Self { original, body, bom, crlf }
    }

    /// The text the editors read and edit.
    pub(crate) fn body(&self) -> &str {
        &self.body
    }

    /// The file's text as it was read.
    pub(crate) fn into_original(self) -> String {
        self.original
    }

    /// An edited body written as the file was: its byte order mark and CRLF line endings back.
    pub(crate) fn restore(&self, edited: String) -> String {
        let edited = if self.crlf { edited.replace('\n', "\r\n") } else { edited };
        if self.bom { format!("{BOM}{edited}") } else { edited }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bom_and_crlf_come_off_for_editing_and_back_after() {
        let t = Text::new("\u{feff}a = 1\r\nb = 2\r\n".to_owned());
        assert_eq!(t.body(), "a = 1\nb = 2\n");
        assert_eq!(t.restore("a = 1\nb = 3\n".to_owned()), "\u{feff}a = 1\r\nb = 3\r\n");
        let mixed = Text::new("a\r\nb\n".to_owned());
        assert_eq!(mixed.body(), "a\r\nb\n", "a file mixing endings is edited as it is");
        assert_eq!(mixed.restore("a\r\nb\nc\n".to_owned()), "a\r\nb\nc\n");
        assert_eq!(Text::new("x".to_owned()).into_original(), "x");
    }
}
