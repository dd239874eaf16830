//! A `SKILL.md`'s frontmatter `name` or `description` rewritten, every other byte kept: for a
//! skill kept or renamed under another name (`add --as`, `skilldeck rename`), and a description
//! proposed by `skilldeck eval --optimize-description`. Text in, text out; no files.

use crate::frontmatter;

/// `skill_md` with its frontmatter's top-level `name` set to `new` (a line added at the top of
/// the frontmatter when it has none); every other byte as it was. A text without a frontmatter
/// is returned as it is: the import names such a skill after its folder.
pub fn with_name(skill_md: &str, new: &str) -> String {
    with_key(skill_md, "name", new)
}

/// `skill_md` with its frontmatter's top-level `description` set to `description`, written as
/// a YAML scalar (quoted where it must be); every other byte as it was.
pub fn with_description(skill_md: &str, description: &str) -> String {
    with_key(skill_md, "description", &yaml_scalar(description))
}

/// `s` as a YAML scalar on one line: plain where YAML reads it back unchanged, double-quoted
/// and escaped otherwise.
pub fn yaml_scalar(s: &str) -> String {
    let plain = !s.is_empty()
        && !s.contains(": ")
        && !s.contains(" #")
        && !s.ends_with(':')
        && !s.starts_with(|c: char| "-?:,[]{}#&*!|>'\"%@`".contains(c) || c.is_whitespace())
        && !s.ends_with(char::is_whitespace)
        && !s.contains(['\n', '\r', '\t']);
    if plain {
        return s.to_owned();
    }
    let escaped =
        s.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n").replace('\r', "\\r").replace('\t', "\\t");
    format!("\"{escaped}\"")
}

/// `skill_md` with the top-level `key` set to `rendered` (already a YAML value).
fn with_key(skill_md: &str, key_name: &str, new: &str) -> String {
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
        let quoted = [key_name.to_owned(), format!("\"{key_name}\""), format!("'{key_name}'")];
        let is_name = key
            .and_then(|k| quoted.iter().find_map(|n| k.strip_prefix(n.as_str())))
            .is_some_and(|rest| rest.trim_start().starts_with(':'));
        if is_name && !replaced {
            out.push_str(&format!("{pad}{key_name}: {new}{}", &line[body.len()..]));
            replaced = true;
            in_old_value = true;
            continue;
        }
        out.push_str(line);
    }
    if !replaced {
        let eol = if split.yaml.contains("\r\n") || skill_md[..start].ends_with("\r\n") { "\r\n" } else { "\n" };
        out.insert_str(start, &format!("{pad}{key_name}: {new}{eol}"));
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
    fn a_description_is_rewritten_as_a_yaml_scalar_that_reads_back_the_same() {
        let md = "---\nname: pdf\ndescription: >\n  Old\n  text.\nlicense: MIT\n---\nBody.\n";
        for d in [
            "Use this skill when: a PDF must be filled",
            "Plain words, no colon",
            "\"Quoted\" # and a hash",
            "back\\slash",
        ] {
            let out = with_description(md, d);
            let split = crate::frontmatter::split(&out).unwrap();
            let yaml: serde_yaml_ng::Value = serde_yaml_ng::from_str(split.yaml).unwrap();
            assert_eq!(yaml["description"].as_str(), Some(d), "{out}");
            assert_eq!(yaml["license"].as_str(), Some("MIT"));
            assert!(out.ends_with("---\nBody.\n"));
        }
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
