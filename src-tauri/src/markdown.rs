//! Markdown to sanitized HTML for the viewer: the UI never renders untrusted markup itself.
//! Holds the rendering options, code-block highlighting and the sanitizer's policy.

use pulldown_cmark::{CodeBlockKind, CowStr, Event, Options, Parser, Tag, TagEnd, html};
use std::sync::OnceLock;
use syntect::html::{ClassStyle, ClassedHTMLGenerator};
use syntect::parsing::SyntaxSet;
use syntect::util::LinesWithEndings;

/// The prefix of every highlighting class, the only classes the sanitizer lets through.
const CLASS_PREFIX: &str = "hl-";

/// Code blocks larger than this are shown plain: highlighting them would stall the viewer.
const MAX_HIGHLIGHT_BYTES: usize = 64 << 10;

/// Renders CommonMark (with tables, strikethrough and task lists) to HTML that is safe to
/// insert: scripts, event handlers, styles and remote images are removed; links open nothing
/// by themselves. Fenced code blocks naming a known language are highlighted with classes
/// (`hl-keyword`, `hl-string`, …) that the style sheet colours.
pub fn to_safe_html(markdown: &str) -> String {
    let opts = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let mut raw = String::with_capacity(markdown.len() * 3 / 2);
    html::push_html(&mut raw, highlight_code(Parser::new_ext(markdown, opts)).into_iter());
    ammonia::Builder::default()
        .url_schemes(["https", "http", "mailto"].into())
        .link_rel(Some("noopener noreferrer"))
        .add_tag_attributes("input", ["type", "checked", "disabled"])
        .add_tags(["input"])
        .add_tag_attributes("span", ["class"])
        .attribute_filter(|_, attr, value| {
            if attr != "class" {
                return Some(value.into());
            }
            let kept: Vec<&str> = value.split_whitespace().filter(|c| c.starts_with(CLASS_PREFIX)).collect();
            (!kept.is_empty()).then(|| kept.join(" ").into())
        })
        .clean(&raw)
        .to_string()
}

/// Replaces each fenced code block in a known language by its highlighted HTML; other blocks
/// pass through unchanged.
fn highlight_code<'a>(events: impl Iterator<Item = Event<'a>>) -> Vec<Event<'a>> {
    let mut out = Vec::new();
    let mut block: Option<(CowStr<'a>, Vec<Event<'a>>)> = None;
    for event in events {
        match (&mut block, event) {
            (None, Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(lang)))) => {
                let start = Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(lang.clone())));
                block = Some((lang, vec![start]));
            }
            (Some((lang, held)), Event::End(TagEnd::CodeBlock)) => {
                let code: String = held
                    .iter()
                    .filter_map(|e| match e {
                        Event::Text(t) => Some(t.as_ref()),
                        _ => None,
                    })
                    .collect();
                match highlighted(lang, &code) {
                    Some(html) => out.push(Event::Html(html.into())),
                    None => {
                        out.append(held);
                        out.push(Event::End(TagEnd::CodeBlock));
                    }
                }
                block = None;
            }
            (Some((_, held)), e) => held.push(e),
            (None, e) => out.push(e),
        }
    }
    if let Some((_, held)) = block {
        out.extend(held);
    }
    out
}

/// The syntaxes, loaded once on the first code block.
fn syntaxes() -> &'static SyntaxSet {
    static SET: OnceLock<SyntaxSet> = OnceLock::new();
    SET.get_or_init(SyntaxSet::load_defaults_newlines)
}

/// `code` highlighted as `lang` inside `<pre><code>`, or `None` for an unknown language or a
/// block too large.
fn highlighted(lang: &str, code: &str) -> Option<String> {
    let token = lang.split([' ', ',', '{']).next().unwrap_or_default().trim();
    let token = match token {
        "sh" | "shell" | "zsh" | "console" => "bash",
        "yml" => "yaml",
        "js" | "mjs" | "jsx" | "ts" | "tsx" | "typescript" => "javascript",
        t => t,
    };
    if token.is_empty() || code.len() > MAX_HIGHLIGHT_BYTES {
        return None;
    }
    let set = syntaxes();
    let syntax = set.find_syntax_by_token(token)?;
    let mut html =
        ClassedHTMLGenerator::new_with_class_style(syntax, set, ClassStyle::SpacedPrefixed { prefix: CLASS_PREFIX });
    for line in LinesWithEndings::from(code) {
        html.parse_html_for_line_which_includes_newline(line).ok()?;
    }
    Some(format!("<pre><code>{}</code></pre>\n", html.finalize()))
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

    #[test]
    fn code_blocks_in_known_languages_are_highlighted() {
        let html = to_safe_html("```python\ndef f():\n    return \"x\"  # c\n```\n");
        assert!(html.contains("<span class=\"hl-storage"), "{html}");
        assert!(html.contains("hl-string"), "{html}");
        assert!(html.contains("hl-comment"), "{html}");
        // The code itself is still escaped text.
        let html = to_safe_html("```bash\necho '<script>x</script>'\n```\n");
        assert!(!html.contains("<script>") && html.contains("&lt;script&gt;"), "{html}");
        // Unknown languages and plain blocks pass through as before.
        assert_eq!(to_safe_html("```nolang\na < b\n```\n"), "<pre><code>a &lt; b\n</code></pre>\n");
    }

    #[test]
    fn only_highlighting_classes_survive() {
        let html = to_safe_html("<span class=\"hl-x evil\" style=\"x\">t</span> <span class=\"evil\">u</span>");
        assert!(html.contains("<span class=\"hl-x\">t</span>"), "{html}");
        assert!(html.contains("<span>u</span>"), "{html}");
    }
}
