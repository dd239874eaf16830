//! The Markdown headings of a SKILL.md body, which the ranker searches beside the name and
//! description: text in, a short list out.

/// The most headings kept per skill, and the longest kept, in characters.
const MAX_HEADINGS: usize = 24;
const MAX_HEADING_CHARS: usize = 120;

/// The Markdown headings of a SKILL.md body (`#` to `######` lines outside code fences),
/// without their marks; the first few dozen.
pub fn headings(body: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in body.lines() {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            fenced = !fenced;
            continue;
        }
        if fenced || !t.starts_with('#') {
            continue;
        }
        let text = t.trim_start_matches('#');
        if t.len() - text.len() > 6 || !(text.is_empty() || text.starts_with(' ')) {
            continue;
        }
        let text = text.trim().trim_end_matches('#').trim();
        if !text.is_empty() {
            out.push(text.chars().take(MAX_HEADING_CHARS).collect());
            if out.len() == MAX_HEADINGS {
                break;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn headings_outside_fences() {
        let body =
            "# PDF tools\nintro\n## Extracting tables ##\n```\n# not a heading\n```\n#hashtag\n####### seven\n### \n";
        assert_eq!(super::headings(body), ["PDF tools", "Extracting tables"]);
    }
}
