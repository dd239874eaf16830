//! The agentskills.io discovery index (schema 0.2.0) read from its JSON: where it lives for a
//! base address, `$schema` checked, each entry validated and its URL resolved. No fetching.
//!
//! The rules (agentskills.io, "Well-Known URI"): the index is at
//! `/.well-known/agent-skills/index.json`; `$schema` must be a known URI, else the client warns
//! and stops; each entry has `name`, `description`, `type` (`skill-md` or `archive`), `url` and
//! `digest` (`sha256:` + 64 lowercase hex of the artifact's raw bytes), and may have `version`;
//! unknown fields are ignored; an entry of unknown `type` is skipped with a warning; `url` is
//! resolved per RFC 3986 against the index URL.
//!
//! Where the spec is silent, the safe choice: an entry with any required field missing or
//! malformed is refused (named by its `name`, or `#<position>`), and so is every entry of a
//! name listed twice; a name must be a valid skill name, since it becomes a folder; an
//! artifact URL must be `http(s)` (the client then refuses plain `http` beyond this computer).

use super::error::{EntryRefusal, Refused, WellKnownError};
use crate::http::{Sha256Digest, shown_url};
use serde_json::Value;
use skilldeck_skill::name::SkillName;
use std::collections::HashMap;
use std::path::PathBuf;
use url::Url;

/// The `$schema` of a 0.2.0 discovery index, the one this version reads.
pub const SCHEMA_0_2_0: &str = "https://schemas.agentskills.io/discovery/0.2.0/schema.json";

/// Where the index lives below a base address.
pub const WELL_KNOWN_PATH: &str = ".well-known/agent-skills/index.json";

/// How an entry's skill is distributed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EntryKind {
    /// `"skill-md"`: one `SKILL.md` file.
    SkillMd,
    /// `"archive"`: a `.tar.gz` or `.zip` of the skill's folder.
    Archive,
}

impl EntryKind {
    /// The `type` value as the index writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::SkillMd => "skill-md",
            Self::Archive => "archive",
        }
    }
}

/// One skill an index lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexSkill {
    /// Its name.
    pub name: SkillName,
    /// Its description, as the index gives it.
    pub description: String,
    /// How it is distributed.
    pub kind: EntryKind,
    /// Its artifact's URL, resolved against the index URL.
    pub url: Url,
    /// The SHA-256 its artifact must have.
    pub digest: Sha256Digest,
    /// The artifact's version, when the index gives one.
    pub version: Option<String>,
    /// The folder it was fetched into (`<dir>/<name>`); `None` in a listing.
    pub dir: Option<PathBuf>,
}

/// The index URL for `base`: the address itself when it names a `.json` file, else
/// `<base>/.well-known/agent-skills/index.json` (a base already ending in
/// `/.well-known/agent-skills` gets `index.json`). Only that one place is tried: a base with a
/// path is not retried at its host's root, which may be another publisher's.
pub fn index_url(base: &str) -> Result<Url, WellKnownError> {
    let bad = |reason: &str| WellKnownError::BadBase { base: base.to_owned(), reason: reason.to_owned() };
    let mut url =
        Url::parse(base.trim()).map_err(|e| bad(&format!("{e}; give an address like https://example.com")))?;
    let bad = |reason: &str| WellKnownError::BadBase { base: shown_url(&url), reason: reason.to_owned() };
    if !matches!(url.scheme(), "https" | "http") || url.host().is_none() {
        return Err(bad("give an https:// address"));
    }
    url.set_fragment(None);
    if url.path().to_ascii_lowercase().ends_with(".json") {
        return Ok(url);
    }
    url.set_query(None);
    let path = url.path().trim_end_matches('/').to_owned();
    let joined = if path.ends_with("/.well-known/agent-skills") {
        format!("{path}/index.json")
    } else {
        format!("{path}/{WELL_KNOWN_PATH}")
    };
    url.set_path(&joined);
    Ok(url)
}

/// Reads an index's bytes fetched from `index_url`: the skills it lists, and the entries refused
/// with why. `Err` when the index as a whole cannot be used (not JSON, an unknown `$schema`, no
/// `skills` array).
pub fn parse_index(bytes: &[u8], index_url: &Url) -> Result<(Vec<IndexSkill>, Vec<Refused>), WellKnownError> {
    let shown = shown_url(index_url);
    let value: Value = serde_json::from_slice(bytes)
        .map_err(|e| WellKnownError::NotJson { url: shown.clone(), reason: e.to_string() })?;
    let Value::Object(top) = value else {
        return Err(WellKnownError::NotJson { url: shown, reason: "the top level is not an object".to_owned() });
    };
    match top.get("$schema") {
        Some(Value::String(s)) if s == SCHEMA_0_2_0 => {}
        other => {
            let found = other.map(|v| match v {
                Value::String(s) => s.chars().take(200).collect(),
                v => v.to_string().chars().take(200).collect(),
            });
            return Err(WellKnownError::UnknownSchema { url: shown, found, known: SCHEMA_0_2_0.to_owned() });
        }
    }
    let Some(Value::Array(entries)) = top.get("skills") else {
        return Err(WellKnownError::Malformed { url: shown, reason: "it has no `skills` array".to_owned() });
    };
    let mut skills = Vec::new();
    let mut refused = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        match parse_entry(entry, index_url) {
            Ok(skill) => skills.push(skill),
            Err((name, reason)) => refused.push(Refused { name: name.unwrap_or_else(|| format!("#{i}")), reason }),
        }
    }
    let mut count: HashMap<String, usize> = HashMap::new();
    for s in &skills {
        *count.entry(s.name.as_str().to_owned()).or_default() += 1;
    }
    let (kept, twice): (Vec<_>, Vec<_>) = skills.into_iter().partition(|s| count[s.name.as_str()] == 1);
    refused.extend(
        twice.into_iter().map(|s| Refused { name: s.name.as_str().to_owned(), reason: EntryRefusal::DuplicateName }),
    );
    Ok((kept, refused))
}

/// One entry, or its name (when it has a string one) and why it is refused.
fn parse_entry(entry: &Value, index_url: &Url) -> Result<IndexSkill, (Option<String>, EntryRefusal)> {
    let Value::Object(fields) = entry else {
        return Err((None, invalid("the entry is not an object")));
    };
    let text = |key: &str| fields.get(key).and_then(Value::as_str);
    let raw_name = text("name").map(|n| n.chars().take(100).collect::<String>());
    let fail = |reason: EntryRefusal| (raw_name.clone(), reason);
    let name = SkillName::parse(text("name").ok_or_else(|| fail(invalid("`name` is missing or not a string")))?)
        .map_err(|e| fail(invalid(&format!("`name` is not a valid skill name: {e}"))))?;
    let kind = match text("type") {
        Some("skill-md") => EntryKind::SkillMd,
        Some("archive") => EntryKind::Archive,
        Some(other) => return Err(fail(EntryRefusal::UnknownType { found: other.chars().take(100).collect() })),
        None => return Err(fail(invalid("`type` is missing or not a string"))),
    };
    let description = text("description")
        .filter(|d| !d.trim().is_empty())
        .ok_or_else(|| fail(invalid("`description` is missing or empty")))?
        .to_owned();
    let url_text = text("url").ok_or_else(|| fail(invalid("`url` is missing or not a string")))?;
    let url = index_url
        .join(url_text)
        .map_err(|e| fail(invalid(&format!("`url` {url_text:?} does not resolve against the index URL: {e}"))))?;
    if !matches!(url.scheme(), "https" | "http") {
        return Err(fail(invalid(&format!("`url` {} is not an http(s) address", shown_url(&url)))));
    }
    let digest_text = text("digest").ok_or_else(|| fail(invalid("`digest` is missing or not a string")))?;
    let digest = Sha256Digest::parse(digest_text).map_err(|e| fail(invalid(&format!("`digest`: {e}"))))?;
    let version = text("version").map(str::to_owned);
    Ok(IndexSkill { name, description, kind, url, digest, version, dir: None })
}

fn invalid(reason: &str) -> EntryRefusal {
    EntryRefusal::Invalid { reason: reason.to_owned() }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]
    use super::*;

    fn check_base(base: &str, expected: &str) {
        assert_eq!(index_url(base).unwrap().as_str(), expected, "{base}");
    }

    #[test]
    fn index_urls_from_bases() {
        check_base("https://example.com", "https://example.com/.well-known/agent-skills/index.json");
        check_base("https://example.com/", "https://example.com/.well-known/agent-skills/index.json");
        check_base("https://example.com/team/", "https://example.com/team/.well-known/agent-skills/index.json");
        check_base(
            "https://example.com/.well-known/agent-skills/",
            "https://example.com/.well-known/agent-skills/index.json",
        );
        check_base("https://example.com/v1.2.0/index.json", "https://example.com/v1.2.0/index.json");
        assert!(matches!(index_url("example.com"), Err(WellKnownError::BadBase { .. })));
        assert!(matches!(index_url("file:///etc"), Err(WellKnownError::BadBase { .. })));
    }

    const DIGEST: &str = "sha256:90f8ec5669cd34183b9b0fdf8b94f5efb4c3672876330f4aa76088c2b4ad17be";

    fn entry(name: &str, kind: &str, url: &str) -> Value {
        serde_json::json!({"name": name, "type": kind, "description": "d", "url": url, "digest": DIGEST, "extra": 1})
    }

    fn parse(skills: Vec<Value>) -> (Vec<IndexSkill>, Vec<Refused>) {
        let index = serde_json::json!({"$schema": SCHEMA_0_2_0, "skills": skills});
        let at = Url::parse("https://example.com/sub/.well-known/agent-skills/index.json").unwrap();
        parse_index(index.to_string().as_bytes(), &at).unwrap()
    }

    #[test]
    fn urls_resolve_against_the_index_url() {
        let (skills, refused) = parse(vec![
            entry("a", "skill-md", "a/SKILL.md"),
            entry("b", "archive", "/b.tar.gz"),
            entry("c", "archive", "https://cdn.example.net/c.zip"),
            entry("d", "skill-md", "../d/SKILL.md"),
        ]);
        assert_eq!(refused, vec![]);
        let urls: Vec<&str> = skills.iter().map(|s| s.url.as_str()).collect();
        assert_eq!(
            urls,
            [
                "https://example.com/sub/.well-known/agent-skills/a/SKILL.md",
                "https://example.com/b.tar.gz",
                "https://cdn.example.net/c.zip",
                "https://example.com/sub/.well-known/d/SKILL.md",
            ]
        );
        assert_eq!(skills[0].digest.as_str(), DIGEST);
        assert_eq!(skills[1].kind, EntryKind::Archive);
    }

    #[test]
    fn bad_entries_are_refused_by_name_and_the_rest_kept() {
        let mut no_digest = entry("e", "skill-md", "e/SKILL.md");
        no_digest.as_object_mut().unwrap().remove("digest");
        let (skills, refused) = parse(vec![
            entry("ok", "skill-md", "ok/SKILL.md"),
            entry("twice", "skill-md", "t1/SKILL.md"),
            entry("twice", "archive", "t2.zip"),
            entry("plugin", "marketplace", "p.json"),
            entry("Bad Name", "skill-md", "x/SKILL.md"),
            entry("f", "skill-md", "ftp://example.com/f"),
            no_digest,
            serde_json::json!("not an object"),
        ]);
        assert_eq!(skills.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(), ["ok"]);
        let why: Vec<(&str, &str)> = refused
            .iter()
            .map(|r| {
                let code = match &r.reason {
                    EntryRefusal::Invalid { .. } => "invalid",
                    EntryRefusal::UnknownType { .. } => "unknown_type",
                    EntryRefusal::DuplicateName => "duplicate",
                    other => panic!("{other:?}"),
                };
                (r.name.as_str(), code)
            })
            .collect();
        assert_eq!(
            why,
            [
                ("plugin", "unknown_type"),
                ("Bad Name", "invalid"),
                ("f", "invalid"),
                ("e", "invalid"),
                ("#7", "invalid"),
                ("twice", "duplicate"),
                ("twice", "duplicate"),
            ]
        );
    }

    #[test]
    fn an_unknown_or_absent_schema_stops_everything() {
        let at = Url::parse("https://example.com/.well-known/agent-skills/index.json").unwrap();
        let check = |index: Value, found: Option<&str>| {
            let got = parse_index(index.to_string().as_bytes(), &at);
            assert_eq!(
                got,
                Err(WellKnownError::UnknownSchema {
                    url: at.to_string(),
                    found: found.map(str::to_owned),
                    known: SCHEMA_0_2_0.to_owned()
                })
            );
        };
        check(
            serde_json::json!({"$schema": "https://schemas.agentskills.io/discovery/0.3.0/schema.json", "skills": []}),
            Some("https://schemas.agentskills.io/discovery/0.3.0/schema.json"),
        );
        check(serde_json::json!({"version": "0.2.0", "skills": []}), None);
        check(serde_json::json!({"$schema": 2, "skills": []}), Some("2"));
        assert!(matches!(parse_index(b"[]", &at), Err(WellKnownError::NotJson { .. })));
        assert!(matches!(
            parse_index(serde_json::json!({"$schema": SCHEMA_0_2_0}).to_string().as_bytes(), &at),
            Err(WellKnownError::Malformed { .. })
        ));
    }
}
