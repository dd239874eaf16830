//! What `add` says of each skill of a source it does not install: its name, its path in the
//! source, a stable code, why, and what would let it in, whether the source refused it (too big,
//! a link out, an index entry), its name is taken here, or the import refused it. Holds the list,
//! its JSON and its lines; choosing and importing are `add.rs`.

use serde::Serialize;
use skilldeck_sources::fetch::{Candidate, Note};
use skilldeck_sources::setup;
use skilldeck_store::import::ErrorInfo;

/// A skill of the source whose name is taken by a skill that did not come from it.
#[derive(Debug, Clone, Serialize)]
pub struct Clash {
    /// The name.
    pub name: String,
    /// Its path in the source.
    pub path: String,
    /// Where the skill of that name came from (`None`: made or imported here).
    pub from: Option<String>,
    /// The scope (`system`: bundled with Skilldeck; `team`) of the skill of that name that a
    /// user skill would hide, when no user skill holds the name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shadows: Option<String>,
}

/// One skill not installed, as `add --json` lists it under `refused` and its line says it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Refused {
    /// The skill's name (its frontmatter's, else its folder's).
    pub name: String,
    /// Its path inside the source (an index entry's name).
    pub path: String,
    /// A stable snake_case code: `skill_too_big`, `skill_file_too_big`, `skill_link_leaves`,
    /// `source_clash`, `name_invalid`, an index entry's…
    pub reason_code: String,
    /// Why, in a sentence.
    pub reason: String,
    /// What would let it in, in a sentence.
    pub fix: String,
}

impl Refused {
    /// The skill a note refuses, when it refuses one.
    pub fn of_note(note: &Note) -> Option<Self> {
        let refusal = note.refused.as_ref()?;
        Some(Self {
            name: refusal.name.clone(),
            path: note.path.clone(),
            reason_code: refusal.code.to_owned(),
            reason: note.what.clone(),
            fix: refusal.fix.clone(),
        })
    }

    /// A skill whose name a skill from elsewhere holds.
    pub fn of_clash(c: &Clash) -> Self {
        let (reason, fix) = match c.shadows.as_deref() {
            Some(scope) => {
                let which = if scope == "system" { "bundled with Skilldeck" } else { "in the team scope" };
                (
                    format!(
                        "a skill named {} is {which}, and a user skill of that name would hide it from every agent",
                        c.name
                    ),
                    "Add it under another name with --as NEW-NAME, or with --force to hide that one".to_owned(),
                )
            }
            None => {
                let from =
                    c.from.as_deref().map_or("was made or imported here".to_owned(), |f| format!("came from {f}"));
                (
                    format!("a skill named {} already exists and {from}", c.name),
                    "Add it under another name with --as NEW-NAME, or with --force to make this source's content its next revision"
                        .to_owned(),
                )
            }
        };
        Self { name: c.name.clone(), path: c.path.clone(), reason_code: "source_clash".to_owned(), reason, fix }
    }

    /// A skill the import refused (`error`), read (`name`) or not; `candidate` is the source's.
    pub fn of_import(candidate: Option<&Candidate>, name: Option<&str>, path: &str, error: &ErrorInfo) -> Self {
        let name = name
            .map(str::to_owned)
            .or_else(|| candidate.map(|c| c.name.clone()))
            .unwrap_or_else(|| path.rsplit('/').next().unwrap_or(path).to_owned());
        // A skill whose name cannot be told: what validation says of its SKILL.md first.
        let first = match (error.code.as_str(), candidate) {
            ("name_invalid", Some(c)) => setup::first_error(&c.dir),
            _ => None,
        };
        let reason = match first {
            Some(first) => format!("{} (its SKILL.md: {first})", error.message),
            None => error.message.clone(),
        };
        Self { name, path: path.to_owned(), reason_code: error.code.clone(), reason, fix: import_fix(&error.code) }
    }

    /// Its line: `refused    PATH: REASON [CODE]. FIX`, the name after the path when the
    /// folder is named otherwise.
    pub fn line(&self) -> String {
        let named = if self.path.rsplit('/').next() == Some(self.name.as_str()) {
            String::new()
        } else {
            format!(" ({})", self.name)
        };
        format!("refused    {}{named}: {} [{}]. {}", self.path, self.reason, self.reason_code, self.fix)
    }
}

/// What would let in a skill the import refused with `code`.
fn import_fix(code: &str) -> String {
    let upstream = "upstream, or in a fork you add instead";
    match code {
        "name_invalid" => {
            format!(
                "It comes in once its SKILL.md sets `name:` to lowercase letters, digits and single hyphens ({upstream})"
            )
        }
        "name_duplicate" => {
            "Add it on its own with --skill PATH and, to keep both, --as NEW-NAME for one of them".to_owned()
        }
        "upload_too_large" => format!("It comes in once files are taken out of it ({upstream})"),
        "source_hostile" => format!("It comes in once that entry is a plain file inside the skill ({upstream})"),
        "skill_md_missing" => format!("It comes in once it has a SKILL.md at its top ({upstream})"),
        _ => format!("It comes in once what the reason names is fixed ({upstream}), or after trying again"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_names_the_path_the_reason_its_code_and_the_fix() {
        let clash = Clash { name: "pdf".into(), path: "skills/pdf".into(), from: None, shadows: None };
        assert_eq!(
            Refused::of_clash(&clash).line(),
            "refused    skills/pdf: a skill named pdf already exists and was made or imported here [source_clash]. \
             Add it under another name with --as NEW-NAME, or with --force to make this source's content its next \
             revision"
        );
        let error = ErrorInfo { code: "name_invalid".into(), message: "cannot tell the skill's name".into() };
        let refused = Refused::of_import(None, None, "skills/My_Tool", &error);
        assert_eq!(refused.name, "My_Tool");
        assert!(refused.line().starts_with("refused    skills/My_Tool: cannot tell the skill's name [name_invalid]. It comes in once its SKILL.md sets `name:`"), "{}", refused.line());
        let renamed = Refused { name: "tool".into(), ..refused };
        assert!(renamed.line().starts_with("refused    skills/My_Tool (tool): "), "{}", renamed.line());
    }
}
