//! A `SKILL.md`'s frontmatter `name` rewritten, every other byte kept: for a skill kept or
//! renamed under another name (`add --as`, `skilldeck rename`). Text in, text out; no files.

use crate::frontmatter;

/// `skill_md` with its frontmatter's top-level `name` set to `new` (a line added at the top of
/// the frontmatter when it has none); every other byte as it was. A text without a frontmatter
/// is returned as it is: the import names such a skill after its folder.
pub fn with_name(skill_md: &str, new: &str) -> String {
    let Ok(split) = frontmatter::split(skill_md) else { return skill_md.to_owned() };
    // Where the YAML starts in the text (the split borrows from it).
    let start = (split.yaml.as_ptr() as usize).saturating_sub(skill_md.as_ptr() as usize);
    let end = start + split.yaml.len();
    if end > skill_md.len() {
        return skill_md.to_owned();
    }
    let pad = " ".repeat(split.indent);
    let mut out = String::with_capacity(skill_md.len() + new.len());
    out.push_str(&skill_md[..start]);
    let mut replaced = false;
    let mut in_old_value = false;
    for line in split.yaml.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        let indent = body.len() - body.trim_start_matches(' ').len();
        if in_old_value {
            // A block or folded value of the old name goes on on deeper lines.
            if indent > split.indent || body.trim().is_empty() {
                continue;
            }
            in_old_value = false;
        }
        let key = body.get(split.indent..).filter(|_| indent == split.indent);
        let is_name = key
            .and_then(|k| ["name", "\"name\"", "'name'"].iter().find_map(|n| k.strip_prefix(n)))
            .is_some_and(|rest| rest.trim_start().starts_with(':'));
        if is_name && !replaced {
            out.push_str(&format!("{pad}name: {new}{}", &line[body.len()..]));
            replaced = true;
            in_old_value = true;
            continue;
        }
        out.push_str(line);
    }
    if !replaced {
        let eol = if split.yaml.contains("\r\n") || skill_md[..start].ends_with("\r\n") { "\r\n" } else { "\n" };
        out.insert_str(start, &format!("{pad}name: {new}{eol}"));
    }
    out.push_str(&skill_md[end..]);
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn check(input: &str, expected: &str) {
        assert_eq!(with_name(input, "pdf-two"), expected, "from {input:?}");
    }

    #[test]
    fn the_name_is_rewritten_and_nothing_else() {
        check(
            "---\nname: pdf\ndescription: PDFs.\n---\nBody.\n",
            "---\nname: pdf-two\ndescription: PDFs.\n---\nBody.\n",
        );
        check(
            "---\r\ndescription: PDFs.\r\nname: \"pdf\"   # quoted\r\n---\r\nBody.\r\n",
            "---\r\ndescription: PDFs.\r\nname: pdf-two\r\n---\r\nBody.\r\n",
        );
        // A folded value's lines go with it; a nested `name` is not the skill's.
        check(
            "---\nname: >\n  pdf\n  tool\nmetadata:\n  name: x\n---\n",
            "---\nname: pdf-two\nmetadata:\n  name: x\n---\n",
        );
        check("---\n'name': pdf\n---\n", "---\nname: pdf-two\n---\n");
        // No name: one is added first; no frontmatter: unchanged (the folder names it).
        check("---\ndescription: PDFs.\n---\nB\n", "---\nname: pdf-two\ndescription: PDFs.\n---\nB\n");
        check("# no frontmatter\n", "# no frontmatter\n");
        // An indented frontmatter keeps its indentation; `names:` is another key.
        check("  ---\n  names: [a]\n  name: pdf\n  ---\nB\n", "  ---\n  names: [a]\n  name: pdf-two\n  ---\nB\n");
    }
}
