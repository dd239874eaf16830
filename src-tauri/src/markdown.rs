//! Markdown to sanitized HTML for the viewer: the UI never renders untrusted markup itself.
//! Holds the rendering options and the sanitizer's policy; nothing else.

use pulldown_cmark::{Options, Parser, html};

/// Renders CommonMark (with tables, strikethrough and task lists) to HTML that is safe to
/// insert: scripts, event handlers, styles and remote images are removed; links open nothing
/// by themselves.
pub fn to_safe_html(markdown: &str) -> String {
    let opts = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let mut raw = String::with_capacity(markdown.len() * 3 / 2);
    html::push_html(&mut raw, Parser::new_ext(markdown, opts));
    ammonia::Builder::default()
        .url_schemes(["https", "http", "mailto"].into())
        .link_rel(Some("noopener noreferrer"))
        .add_tag_attributes("input", ["type", "checked", "disabled"])
        .add_tags(["input"])
        .clean(&raw)
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::to_safe_html;

    #[test]
    fn renders_and_sanitizes() {
        assert_eq!(to_safe_html("# Hi\n\n**b**"), "<h1>Hi</h1>\n<p><strong>b</strong></p>\n");
        let html = to_safe_html("<script>alert(1)</script>\n\n<img src=x onerror=alert(1)>");
        assert!(!html.contains("<script") && !html.contains("onerror"), "{html}");
        assert_eq!(to_safe_html("[a](javascript:alert(1))"), "<p><a rel=\"noopener noreferrer\">a</a></p>\n");
    }
}
