//! A skill as the catalogue holds it: where it lives (scope, revision), its typed frontmatter,
//! its diagnostics and its size, as plain values that listing and search take without a store.

use crate::diagnostic::{DiagCode, Diagnostic};
use crate::digest::Digest;
use crate::meta::SkillMeta;
use crate::name::SkillName;
use crate::risk::RiskSummary;
use crate::validate::Validated;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::sync::{Arc, OnceLock};

pub use crate::scope::{Revision, Scope};

/// One discovered skill, valid or not.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SkillEntry {
    /// Its scope.
    pub scope: Scope,
    /// Its folder name, which is its name.
    pub name: String,
    /// The typed frontmatter.
    pub meta: SkillMeta,
    /// Every problem found.
    pub diagnostics: Vec<Diagnostic>,
    /// The description on one line, when that differs from the description as written (most
    /// are one line already, and a store of 20,000 skills need not hold them twice).
    #[serde(skip)]
    pub one_line: Option<String>,
    /// The content digest, when it was read with the summary (a registry `with_digests`).
    #[serde(skip)]
    pub digest: Option<Digest>,
    /// The stored revision, from `.version`.
    pub revision: Option<Revision>,
    /// The version tag shown: the revision, else the frontmatter `version`, else none.
    pub version: Option<String>,
    /// Whether no diagnostic is an error.
    pub valid: bool,
    /// How many files it holds (never counting `.version`).
    pub file_count: usize,
    /// Their total size in bytes.
    pub total_bytes: u64,
    /// The headings of its SKILL.md, which the ranker searches too.
    #[serde(skip)]
    pub headings: Vec<String>,
    /// What the audit found in its files, when they were audited (a registry's entries
    /// always are; one built from `SKILL.md` alone is not).
    #[serde(skip)]
    pub risk: Option<RiskSummary>,
    /// What its listing lines cost a model, once counted (kept with the parse cache, so a
    /// listing of cached skills needs no tokenizer).
    #[serde(skip)]
    pub line_tokens: Derived<LineTokens>,
}

/// A value derived from the rest of an entry, computed once when first needed. It takes no part
/// in comparing entries: equal entries derive equal values, whether computed yet or not.
#[derive(Debug, Clone)]
pub struct Derived<T>(OnceLock<T>);

impl<T> Default for Derived<T> {
    fn default() -> Self {
        Self(OnceLock::new())
    }
}

impl<T> Derived<T> {
    /// Already known as `value` (read from a cache).
    pub fn known(value: T) -> Self {
        Self(OnceLock::from(value))
    }

    /// The value, when it was computed or known.
    pub fn get(&self) -> Option<&T> {
        self.0.get()
    }

    /// The value, computed by `compute` the first time.
    pub fn get_or_init(&self, compute: impl FnOnce() -> T) -> &T {
        self.0.get_or_init(compute)
    }
}

impl<T> PartialEq for Derived<T> {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// What one skill's listing lines cost in o200k tokens, for each form the listing shows (the
/// full description, the shortened one, the name only): the line alone, followed by one line
/// break, and followed by two. A listing's text is those lines joined by line breaks, and a
/// break before `- ` always ends a token, so these add up to the exact count of the text.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineTokens {
    /// The line with its full description.
    pub full: [u32; 3],
    /// The line with its description shortened (the same as `full` when it is short already).
    pub short: [u32; 3],
    /// The line with the name (and version) only.
    pub name: [u32; 3],
}

/// `text` on one line: runs of white space made one space, none at either end; borrowed when
/// `text` is so already (most descriptions), so a listing of 20,000 skills copies none of them.
pub fn one_line(text: &str) -> std::borrow::Cow<'_, str> {
    let mut after_space = true;
    let already = text.chars().all(|c| {
        let fine = if c == ' ' { !after_space } else { !c.is_whitespace() };
        after_space = c == ' ';
        fine
    }) && !after_space;
    if already || text.is_empty() {
        return std::borrow::Cow::Borrowed(text);
    }
    std::borrow::Cow::Owned(text.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// [`one_line`] of `text` when that is not `text` itself, as [`SkillEntry::one_line`] keeps it.
pub fn one_line_if_changed(text: &str) -> Option<String> {
    match one_line(text) {
        std::borrow::Cow::Owned(changed) => Some(changed),
        std::borrow::Cow::Borrowed(_) => None,
    }
}

impl SkillEntry {
    /// The description on one line (runs of white space made one space), as listings show it.
    pub fn listing_description(&self) -> &str {
        self.one_line.as_deref().unwrap_or_else(|| self.meta.description.as_deref().unwrap_or_default())
    }
}

/// A skill as listed across scopes: the cached entry and whether another scope shadows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ListedEntry {
    /// The skill.
    #[serde(flatten)]
    pub entry: Arc<SkillEntry>,
    /// Whether a skill of the same name in a later scope (`user`) hides it.
    pub shadowed: bool,
}

/// What the store knows of a skill besides its `SKILL.md`'s frontmatter, for [`SkillEntry::new`].
#[derive(Debug, Clone, Copy, Default)]
pub struct Stored<'a> {
    /// The stored revision, from `.version`.
    pub revision: Option<Revision>,
    /// The content digest, when it was read.
    pub digest: Option<Digest>,
    /// How many files it holds (never counting `.version`).
    pub file_count: usize,
    /// Their total size in bytes.
    pub total_bytes: u64,
    /// Its `SKILL.md` as read, for its headings.
    pub skill_md: Option<&'a [u8]>,
}

impl SkillEntry {
    /// One skill from what validating its `SKILL.md` found and what the store knows of it; a
    /// folder name that is not a valid skill name is one more diagnostic.
    pub fn new(scope: Scope, dir_name: &str, v: Validated, stored: Stored<'_>) -> Self {
        let revision = stored.revision;
        let mut diagnostics = v.diagnostics;
        if let Err(e) = SkillName::parse(dir_name)
            && !diagnostics.iter().any(|d| d.code == DiagCode::NameInvalid)
        {
            diagnostics.push(Diagnostic::error(
                DiagCode::NameInvalid,
                format!("the folder name {dir_name:?} is not a valid skill name: {e}"),
            ));
        }
        let version = revision.map(|r| r.to_string()).or_else(|| v.meta.version.clone());
        let description = v.meta.description.as_deref().unwrap_or_default();
        let one_line = one_line_if_changed(description);
        let headings = stored
            .skill_md
            .map(|b| crate::headings::headings(crate::frontmatter::strip(&String::from_utf8_lossy(b))))
            .unwrap_or_default();
        Self {
            scope,
            name: dir_name.to_owned(),
            valid: !diagnostics.iter().any(Diagnostic::is_error),
            one_line,
            digest: stored.digest,
            meta: v.meta,
            diagnostics,
            revision,
            version,
            file_count: stored.file_count,
            total_bytes: stored.total_bytes,
            headings,
            risk: None,
            line_tokens: Derived::default(),
        }
    }

    /// A skill whose folder could not be read, with `why` as its one diagnostic.
    pub fn unreadable(scope: Scope, dir_name: &str, why: impl fmt::Display) -> Self {
        let d = Diagnostic::error(DiagCode::SkillUnreadable, format!("the skill could not be read: {why}"));
        Self {
            scope,
            name: dir_name.to_owned(),
            meta: SkillMeta::default(),
            diagnostics: vec![d],
            one_line: None,
            digest: None,
            revision: None,
            version: None,
            valid: false,
            file_count: 0,
            total_bytes: 0,
            headings: Vec::new(),
            risk: None,
            line_tokens: Derived::default(),
        }
    }
}
