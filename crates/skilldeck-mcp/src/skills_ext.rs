//! The MCP Skills extension (`io.modelcontextprotocol/skills`, SEP-2640) over the skills this
//! server lists: `skills/list` in pages, `skills/get`, and `resources/directory/read`. Each entry
//! carries the skill's frontmatter as its author wrote it and a manifest of every file with the
//! SHA-256 and size of the bytes `resources/read` returns.
//!
//! A skill's manifest is kept by its content digest (the one the registry already knows), so a
//! request hashes a skill's files only when they changed since the server last described it.

use crate::catalog::{SCHEME, mime};
use crate::served::{Served, find};
use rmcp::ErrorData;
use rmcp::model::{
    CacheScope, DIRECTORY_MIME_TYPE, GetSkillResult, ListResourcesResult, ListSkillsResult, Resource, Skill,
    SkillFrontmatter, SkillResource, SkillResources,
};
use serde_json::Value;
use skilldeck_core::SkillRegistry;
use skilldeck_skill::{Digest, Scope};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

/// Entries in one `skills/list` page: each carries its whole manifest, so a page stays small
/// enough to parse at once while a store of 20,000 skills takes 200 round trips, not one reply
/// of hundreds of megabytes.
pub(crate) const PAGE: usize = 100;

/// How long a host may take a listing or an entry as current. The server also sends
/// `notifications/resources/list_changed` when the store changes; this bounds a host that does
/// not listen.
const TTL_MS: u64 = 60_000;

/// One skill described: what it was described from (its digest) and the entry.
struct Described {
    digest: Digest,
    skill: Skill,
}

/// The entries described so far in this session, by scope and name.
#[derive(Default)]
pub(crate) struct Manifests {
    described: Mutex<HashMap<(Scope, String), Arc<Described>>>,
}

/// The URI of a skill's `SKILL.md`: `skill://<name>/SKILL.md`.
fn skill_uri(name: &str) -> String {
    format!("{SCHEME}{name}/SKILL.md")
}

/// A YAML value as JSON: mapping keys that are not text are written as YAML writes them.
fn json_of(value: &serde_yaml_ng::Value) -> Value {
    use serde_yaml_ng::Value as Y;
    match value {
        Y::Null => Value::Null,
        Y::Bool(b) => Value::Bool(*b),
        Y::Number(n) => serde_json::to_value(n).unwrap_or(Value::Null),
        Y::String(s) => Value::String(s.clone()),
        Y::Sequence(items) => Value::Array(items.iter().map(json_of).collect()),
        Y::Mapping(m) => Value::Object(m.iter().map(|(k, v)| (key_of(k), json_of(v))).collect()),
        Y::Tagged(t) => json_of(&t.value),
    }
}

fn key_of(key: &serde_yaml_ng::Value) -> String {
    match key {
        serde_yaml_ng::Value::String(s) => s.clone(),
        other => serde_yaml_ng::to_string(other).map(|s| s.trim_end().to_owned()).unwrap_or_default(),
    }
}

/// The frontmatter of `skill_md` as a JSON object, every field as written. Read as YAML reads
/// it (a host parses the same bytes to check the entry); a frontmatter only Skilldeck's lenient
/// reading understands is given as that reading has it.
fn frontmatter(name: &str, skill_md: &[u8]) -> Result<SkillFrontmatter, String> {
    use skilldeck_skill::frontmatter::{parse_yaml, split};
    let text = std::str::from_utf8(skill_md).map_err(|e| format!("SKILL.md is not UTF-8: {e}"))?;
    let parts = split(text).map_err(|d| d.message)?;
    let parsed = parse_yaml(&parts, true).or_else(|_| parse_yaml(&parts, false)).map_err(|d| {
        d.into_iter().next().map(|d| d.message).unwrap_or_else(|| "the frontmatter cannot be read".to_owned())
    })?;
    let mut fields: BTreeMap<String, Value> = BTreeMap::new();
    for (k, v) in &parsed.fields {
        fields.insert(key_of(k), json_of(v));
    }
    let description = match fields.remove("description") {
        Some(Value::String(d)) => d,
        _ => return Err("the frontmatter has no description".to_owned()),
    };
    let name = match fields.remove("name") {
        Some(Value::String(n)) => n,
        _ => name.to_owned(),
    };
    let mut front = SkillFrontmatter::new(name, description);
    front.extra.extend(fields);
    Ok(front)
}

impl Manifests {
    /// The entry of a listed skill: the one described before when its content is unchanged,
    /// else described afresh from one reading of its files.
    fn entry(&self, registry: &SkillRegistry, skill: &Served) -> Result<Arc<Described>, String> {
        let name = skill.name.as_str();
        let key = (skill.scope, name.to_owned());
        // The registry's digest is asked only to check a kept entry: a skill described for the
        // first time is read once, not hashed and then read.
        let kept = self.lock().get(&key).cloned();
        if let Some(d) = kept
            && registry.digest(skill.scope, name).map_err(|e| e.to_string())? == d.digest
        {
            return Ok(d);
        }
        let snapshot = registry.storage().snapshot_dir(skill.scope, name).map_err(|e| e.to_string())?;
        let skill_md = snapshot.files.skill_md().ok_or("the skill has no SKILL.md")?;
        let front = frontmatter(name, skill_md)?;
        // Every file once, SKILL.md among them, with the digest of the bytes resources/read
        // returns (both read the files as they are, no line ends changed).
        let files = snapshot
            .files
            .iter()
            .map(|(path, bytes)| SkillResource::from_bytes(format!("{SCHEME}{name}/{path}"), bytes))
            .collect();
        let described = Arc::new(Described {
            digest: snapshot.files.digest(),
            skill: Skill::new(skill_uri(name), front, SkillResources::Files(files)),
        });
        self.lock().insert(key, Arc::clone(&described));
        Ok(described)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<(Scope, String), Arc<Described>>> {
        self.described.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// One page of `skills/list`: the served skills from `cursor` (an offset this server gave),
    /// by name. A skill that cannot be read now is left out of the page.
    pub(crate) fn list(
        &self,
        registry: &SkillRegistry,
        served: &[Served],
        cursor: Option<&str>,
    ) -> Result<ListSkillsResult, ErrorData> {
        let start = match cursor {
            None => 0,
            Some(c) => c.parse::<usize>().ok().filter(|&n| n <= served.len()).ok_or_else(|| {
                ErrorData::invalid_params(
                    format!("{c:?} is not a cursor this server gave; start again without one"),
                    None,
                )
            })?,
        };
        let end = (start + PAGE).min(served.len());
        let mut skills = Vec::with_capacity(end - start);
        for skill in &served[start..end] {
            match self.entry(registry, skill) {
                Ok(d) => skills.push(d.skill.clone()),
                Err(e) => tracing::warn!(skill = %skill.name, error = %e, "skills/list: left out"),
            }
        }
        let mut result =
            ListSkillsResult::with_all_items(skills).with_ttl_ms(TTL_MS).with_cache_scope(CacheScope::Private);
        if end < served.len() {
            result.next_cursor = Some(end.to_string());
        }
        Ok(result)
    }

    /// `skills/get`: the entry of the served skill whose `SKILL.md` is at `uri`.
    pub(crate) fn get(
        &self,
        registry: &SkillRegistry,
        served: &[Served],
        uri: &str,
    ) -> Result<GetSkillResult, ErrorData> {
        let name = uri
            .strip_prefix(SCHEME)
            .and_then(|rest| rest.strip_suffix("/SKILL.md"))
            .filter(|name| !name.contains('/'))
            .ok_or_else(|| {
                ErrorData::invalid_params(
                    format!("{uri:?} is not the URI of a skill's SKILL.md on this server: use {SCHEME}<name>/SKILL.md"),
                    None,
                )
            })?;
        let skill = find(served, name).ok_or_else(|| {
            ErrorData::invalid_params(format!("this server serves no skill at {uri}; skills/list names them"), None)
        })?;
        let described = self
            .entry(registry, skill)
            .map_err(|e| ErrorData::internal_error(format!("could not read {name}: {e}"), None))?;
        Ok(GetSkillResult::new(described.skill.clone()).with_ttl_ms(TTL_MS).with_cache_scope(CacheScope::Private))
    }
}

/// `resources/directory/read`: the direct children of a served skill's folder
/// (`skill://<name>`) or of a folder in it (`skill://<name>/references`), files with their
/// size and folders as `inode/directory`.
pub(crate) fn read_directory(
    registry: &SkillRegistry,
    served: &[Served],
    uri: &str,
) -> Result<ListResourcesResult, ErrorData> {
    let not_a_directory = || {
        ErrorData::invalid_params(
            format!(
                "{uri:?} is not a folder of a skill this server serves: use {SCHEME}<name> or {SCHEME}<name>/<folder>"
            ),
            None,
        )
    };
    let rest = uri.strip_prefix(SCHEME).ok_or_else(not_a_directory)?.trim_end_matches('/');
    let (name, folder) = rest.split_once('/').unwrap_or((rest, ""));
    let skill = find(served, name).ok_or_else(not_a_directory)?;
    let tree = registry
        .storage()
        .read_tree_sync(skill.scope, &skill.name)
        .map_err(|e| ErrorData::internal_error(format!("could not read {name}: {e}"), None))?;
    let prefix = if folder.is_empty() { String::new() } else { format!("{folder}/") };
    let mut files = Vec::new();
    let mut folders = std::collections::BTreeSet::new();
    for entry in &tree {
        let Some(inside) = entry.path.as_str().strip_prefix(&prefix) else { continue };
        match inside.split_once('/') {
            Some((sub, _)) => {
                folders.insert(sub.to_owned());
            }
            None => files.push(
                Resource::new(format!("{SCHEME}{name}/{}", entry.path), inside.to_owned())
                    .with_mime_type(mime(inside))
                    .with_size(entry.size),
            ),
        }
    }
    if files.is_empty() && folders.is_empty() {
        return Err(not_a_directory());
    }
    let mut children: Vec<Resource> = folders
        .into_iter()
        .map(|sub| Resource::new(format!("{SCHEME}{name}/{prefix}{sub}"), sub).with_mime_type(DIRECTORY_MIME_TYPE))
        .collect();
    children.extend(files);
    Ok(ListResourcesResult::with_all_items(children).with_ttl_ms(TTL_MS).with_cache_scope(CacheScope::Private))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_frontmatter_is_every_field_as_written() {
        let md = b"---\nname: pdf\ndescription: Fill PDF forms.\nlicense: MIT\nmetadata:\n  version: 2\n  tags: [a, b]\n  1: one\n---\n# PDF\n";
        let front = frontmatter("pdf", md).unwrap();
        assert_eq!(front.name, "pdf");
        assert_eq!(front.description, "Fill PDF forms.");
        assert_eq!(front.extra["license"], "MIT");
        assert_eq!(front.extra["metadata"], serde_json::json!({"version": 2, "tags": ["a", "b"], "1": "one"}));
        assert!(!front.extra.contains_key("name") && !front.extra.contains_key("description"));
    }

    #[test]
    fn a_frontmatter_without_a_description_is_refused() {
        assert!(frontmatter("x", b"---\nname: x\n---\nbody\n").is_err());
        assert!(frontmatter("x", b"no frontmatter").is_err());
    }
}
