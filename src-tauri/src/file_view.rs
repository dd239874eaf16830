//! How the viewer shows a file: Markdown rendered, other text as is, images inlined, and
//! binaries by type. The type is told from the bytes first (a PDF stays a PDF even when its
//! bytes happen to be valid UTF-8), then from the extension.
//! Holds the decision and the frontmatter table; rendering Markdown is `markdown`.

use crate::markdown::to_safe_html;
use crate::views::{FieldRow, FileView, shown};
use base64::Engine as _;
use serde_yaml_ng::Value;
use skilldeck_skill::frontmatter;
use skilldeck_skill::visible::visible_line;

/// Images above this size are described, not inlined (the viewer gets them as a data URL).
const MAX_INLINE_IMAGE: usize = 8 << 20;

/// How `bytes`, the file at `path` in a skill, is shown.
pub fn file_view(path: &str, bytes: Vec<u8>) -> FileView {
    let size = bytes.len() as u64;
    let lower = path.to_ascii_lowercase();
    if let Some(kind) = infer::get(&bytes).filter(|k| k.matcher_type() != infer::MatcherType::Text) {
        return match image_mime(kind.mime_type()) {
            Some(mime) if bytes.len() <= MAX_INLINE_IMAGE => image(mime, &bytes),
            _ => FileView::Binary { kind_name: kind_name(&lower, Some(kind)), size },
        };
    }
    let text = match String::from_utf8(bytes) {
        Ok(t) if !t.contains('\0') => t,
        _ => return FileView::Binary { kind_name: kind_name(&lower, None), size },
    };
    if lower.ends_with(".svg") && text.len() <= MAX_INLINE_IMAGE {
        // Shown through <img>, where an SVG's scripts and external loads never run.
        return image("image/svg+xml", text.as_bytes());
    }
    // What the file holds, shown: a control, bidi or invisible character is an escape (`\e`).
    if !(lower.ends_with(".md") || lower.ends_with(".markdown")) {
        return FileView::Text { text: shown(&text), size };
    }
    let is_skill_md = path == "SKILL.md";
    let frontmatter = if is_skill_md { frontmatter_rows(&text) } else { Vec::new() };
    let body = if is_skill_md { frontmatter::strip(&text) } else { &text };
    FileView::Markdown { html: shown(&to_safe_html(body)), frontmatter, size }
}

/// The image types the viewer previews.
fn image_mime(mime: &str) -> Option<&'static str> {
    ["image/png", "image/jpeg", "image/gif", "image/webp"].into_iter().find(|m| *m == mime)
}

fn image(mime: &str, bytes: &[u8]) -> FileView {
    let data = base64::engine::general_purpose::STANDARD.encode(bytes);
    FileView::Image { data_url: format!("data:{mime};base64,{data}"), mime: mime.to_owned(), size: bytes.len() as u64 }
}

/// A readable type for a binary file: from its bytes when they say, else its extension.
fn kind_name(lower_path: &str, kind: Option<infer::Type>) -> String {
    let ext = lower_path.rsplit_once('.').map(|(_, e)| e).unwrap_or_default();
    match kind.map(|k| k.mime_type()) {
        Some("application/pdf") => return "PDF document".to_owned(),
        Some(m) if m.starts_with("image/") => {
            return format!("{} image", kind.map_or("", |k| k.extension()).to_uppercase());
        }
        Some(m) if m.starts_with("font/") || m.contains("font") => return "font".to_owned(),
        Some("application/zip" | "application/gzip" | "application/x-tar" | "application/x-7z-compressed") => {
            return "archive".to_owned();
        }
        Some(_) if ext.is_empty() => return format!("{} file", kind.map_or("", |k| k.extension())),
        _ => {}
    }
    match ext {
        "png" | "jpg" | "jpeg" | "gif" | "webp" | "ico" => format!("{} image", ext.to_uppercase()),
        "pdf" => "PDF document".to_owned(),
        "zip" | "gz" | "tar" | "tgz" => "archive".to_owned(),
        "ttf" | "otf" | "woff" | "woff2" => "font".to_owned(),
        "" => "binary file".to_owned(),
        e => format!(".{e} file"),
    }
}

/// The frontmatter's fields as rows in file order; a nested mapping or list becomes indented
/// rows under its key, a list of plain values one comma-separated row.
fn frontmatter_rows(text: &str) -> Vec<FieldRow> {
    let mut rows = Vec::new();
    for (key, value) in frontmatter::field_rows(text) {
        push_rows(&mut rows, key, &value, 0);
    }
    // Keys and values as shown: `description: "x\e]52;…\a"` shows its escapes.
    rows.into_iter()
        .map(|r| FieldRow { key: visible_line(&r.key).into_owned(), value: shown(&r.value), depth: r.depth })
        .collect()
}

/// How deep nested rows go; deeper values show as JSON on their row.
const MAX_DEPTH: u8 = 4;

fn push_rows(rows: &mut Vec<FieldRow>, key: String, value: &Value, depth: u8) {
    let scalar = |v: &Value| match v {
        Value::String(s) => Some(s.clone()),
        Value::Null => Some(String::new()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    };
    let as_text = |v: &Value| serde_json::to_string(v).unwrap_or_default();
    if let Some(text) = scalar(value) {
        rows.push(FieldRow { key, value: text, depth });
        return;
    }
    if depth >= MAX_DEPTH {
        rows.push(FieldRow { key, value: as_text(value), depth });
        return;
    }
    match value {
        Value::Sequence(items) if items.iter().all(|v| scalar(v).is_some()) => {
            let joined = items.iter().filter_map(scalar).collect::<Vec<_>>().join(", ");
            rows.push(FieldRow { key, value: joined, depth });
        }
        Value::Sequence(items) => {
            rows.push(FieldRow { key, value: String::new(), depth });
            for (i, item) in items.iter().enumerate() {
                push_rows(rows, format!("{}.", i + 1), item, depth + 1);
            }
        }
        Value::Mapping(map) => {
            rows.push(FieldRow { key, value: String::new(), depth });
            for (k, v) in map {
                push_rows(rows, scalar(k).unwrap_or_else(|| as_text(k)), v, depth + 1);
            }
        }
        Value::Tagged(tagged) => push_rows(rows, key, &tagged.value, depth),
        _ => rows.push(FieldRow { key, value: as_text(value), depth }),
    }
}

#[cfg(test)]
mod tests {
    use super::file_view;
    use crate::views::{FieldRow, FileView};

    #[test]
    fn a_pdf_is_binary_even_when_its_bytes_are_utf8() {
        let pdf = b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer\n%%EOF\n".to_vec();
        assert!(std::str::from_utf8(&pdf).is_ok());
        assert_eq!(
            file_view("references/manual.pdf", pdf),
            FileView::Binary { kind_name: "PDF document".into(), size: 59 }
        );
    }

    #[test]
    fn images_are_inlined_and_svg_goes_through_img() {
        let png = [0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, b'I', b'H', b'D', b'R'].to_vec();
        let FileView::Image { mime, data_url, size } = file_view("assets/logo.png", png) else {
            panic!("not an image")
        };
        assert_eq!((mime.as_str(), size), ("image/png", 16));
        assert!(data_url.starts_with("data:image/png;base64,iVBORw0KGgo"), "{data_url}");
        let svg = "<svg xmlns=\"http://www.w3.org/2000/svg\"><script>alert(1)</script></svg>".to_owned();
        let FileView::Image { mime, .. } = file_view("assets/x.svg", svg.into_bytes()) else {
            panic!("svg not an image")
        };
        assert_eq!(mime, "image/svg+xml");
    }

    #[test]
    fn nested_frontmatter_becomes_indented_rows() {
        let md = "---\nname: a\nmetadata:\n  author: me\n  aibuddy:\n    dependencies: [x, y]\n    n: 2\n---\nbody\n";
        let FileView::Markdown { frontmatter, .. } = file_view("SKILL.md", md.as_bytes().to_vec()) else {
            panic!("not markdown")
        };
        let row = |key: &str, value: &str, depth| FieldRow { key: key.into(), value: value.into(), depth };
        assert_eq!(
            frontmatter,
            vec![
                row("name", "a", 0),
                row("metadata", "", 0),
                row("author", "me", 1),
                row("aibuddy", "", 1),
                row("dependencies", "x, y", 2),
                row("n", "2", 2),
            ]
        );
    }

    /// Issue 42, item 4: what a skill wrote reaches the webview with its controls visible.
    #[test]
    fn control_characters_are_shown_as_escapes() {
        let md = "---\nname: a\ndescription: \"x\\e]52;c;QQ==\\a\\u202Eb\"\n---\n# T\u{1b}[2K\n";
        let FileView::Markdown { frontmatter, html, .. } = file_view("SKILL.md", md.as_bytes().to_vec()) else {
            panic!("not markdown")
        };
        assert_eq!(frontmatter[1].value, "x\\e]52;c;QQ==\\x07\\u{202E}b");
        assert!(html.contains("T\\e[2K") && !html.contains('\u{1b}'), "{html}");
        let FileView::Text { text, .. } = file_view("run.sh", b"echo \x1b]0;t\x07\n".to_vec()) else { panic!() };
        assert_eq!(text, "echo \\e]0;t\\x07\n");
        let d = skilldeck_skill::Diagnostic::warning(skilldeck_skill::DiagCode::NameInvalid, "bad \u{1b}[2K")
            .arg("value", "p\u{9b}2K");
        let view = crate::views::DiagView::from(&d);
        assert_eq!((view.message.as_str(), view.args["value"].as_str()), ("bad \\e[2K", "p\\u{9B}2K"));
    }

    #[test]
    fn plain_text_and_nul_bytes() {
        assert_eq!(
            file_view("scripts/run.sh", b"echo hi\n".to_vec()),
            FileView::Text { text: "echo hi\n".into(), size: 8 }
        );
        assert_eq!(file_view("data.bin", vec![1, 0, 2]), FileView::Binary { kind_name: ".bin file".into(), size: 3 });
    }
}
