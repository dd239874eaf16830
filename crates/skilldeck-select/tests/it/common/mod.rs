//! What the selection tests share: a valid skill's catalogue entry made from its frontmatter.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs, dead_code)]

use skilldeck_skill::entry::{ListedEntry, Scope, SkillEntry, Stored};
use skilldeck_skill::validate::{ValidateOptions, validate_text};
use std::sync::Arc;

/// The user skill `name` whose frontmatter, after its name, is `front`; it must be valid.
pub fn entry(name: &str, front: &str) -> ListedEntry {
    let md = format!("---\nname: {name}\n{front}---\n\n# Steps\n");
    let v = validate_text(&md, ValidateOptions { dir_name: Some(name), ..ValidateOptions::default() });
    let stored = Stored { skill_md: Some(md.as_bytes()), ..Stored::default() };
    let e = SkillEntry::new(Scope::User, name, v, stored);
    assert!(e.valid, "{name}: {:?}", e.diagnostics);
    ListedEntry { entry: Arc::new(e), shadowed: false }
}
