//! Resources and prompts: each listed skill's files as `skill://<name>/<path>` resources, and
//! each listed skill the user may invoke (not `user-invocable: false`) as a prompt whose message
//! is its instructions. Read from the store.

use crate::served::{Served, find as find_served};
use base64::Engine as _;
use rmcp::ErrorData;
use rmcp::model::{
    CompleteRequestParams, CompleteResult, CompletionInfo, GetPromptResult, Prompt, PromptMessage, ReadResourceResult,
    Reference, Resource, ResourceContents, ResourceTemplate, Role,
};
use skilldeck_core::SkillRegistry;
use skilldeck_select::listing::{ListedSkill, Listing};
use skilldeck_skill::{RelPath, SkillName};

/// Where skill resources live: `skill://<name>/<path>`.
pub const SCHEME: &str = "skill://";

/// The URI template clients fill to read any file of a listed skill.
fn template_uri() -> String {
    format!("{SCHEME}{{name}}/{{+path}}")
}

/// The template clients fill to read any file of a listed skill.
pub(crate) fn template() -> ResourceTemplate {
    ResourceTemplate::new(template_uri(), "skill-file")
        .with_title("A file of a listed skill")
        .with_description("Any file of a listed skill, by its path in the skill folder (SKILL.md, references/…).")
}

pub(crate) fn mime(path: &str) -> &'static str {
    if path.ends_with(".md") { "text/markdown" } else { "text/plain" }
}

fn listed<'a>(listing: &'a Listing, name: &str) -> Result<(&'a ListedSkill, SkillName), ErrorData> {
    let skill = listing.skills.iter().find(|s| s.name == name).ok_or_else(|| {
        ErrorData::resource_not_found(
            format!("no listed skill is named {name:?}; listed: {}", listing.names().join(", ")),
            None,
        )
    })?;
    let parsed = SkillName::parse(&skill.name).map_err(|e| ErrorData::invalid_params(e.to_string(), None))?;
    Ok((skill, parsed))
}

/// Every file of every listed skill. A skill that cannot be read is left out (its files are
/// still readable through the template once it can be).
pub(crate) fn resources(registry: &SkillRegistry, listing: &Listing) -> Vec<Resource> {
    let mut out = Vec::new();
    for skill in &listing.skills {
        let Ok(name) = SkillName::parse(&skill.name) else { continue };
        let Ok(tree) = registry.storage().read_tree_sync(skill.scope, &name) else { continue };
        let version = skill.version.as_deref().map(|v| format!(" (v:{v})")).unwrap_or_default();
        for entry in tree {
            let path = entry.path.as_str();
            let uri = format!("{SCHEME}{name}/{path}");
            let r = if path == "SKILL.md" {
                // Named and described from the frontmatter, as the Skills extension asks; the
                // title says which revision it is.
                let description = registry
                    .get(skill.scope, name.as_str())
                    .ok()
                    .flatten()
                    .and_then(|e| e.meta.description.clone())
                    .unwrap_or_else(|| skill.description.clone());
                Resource::new(uri, name.as_str())
                    .with_title(format!("The instructions of {name}{version}"))
                    .with_description(description)
            } else {
                Resource::new(uri, format!("{name}/{path}"))
            };
            out.push(r.with_mime_type(mime(path)).with_size(entry.size));
        }
    }
    out
}

/// Reads `skill://<name>/<path>` of a skill this server serves: text as text, anything else as
/// base64.
pub(crate) fn read(registry: &SkillRegistry, served: &[Served], uri: &str) -> Result<ReadResourceResult, ErrorData> {
    let rest = uri.strip_prefix(SCHEME).ok_or_else(|| {
        ErrorData::invalid_params(format!("{uri:?} is not a skill resource: use {SCHEME}<name>/<path>"), None)
    })?;
    let (name, path) = rest.split_once('/').ok_or_else(|| {
        ErrorData::invalid_params(format!("{uri:?} names no file: use {SCHEME}<name>/SKILL.md"), None)
    })?;
    let skill = find_served(served, name).ok_or_else(|| {
        ErrorData::resource_not_found(
            format!("no skill this server serves is named {name:?}; resources/list and skills/list name them"),
            None,
        )
    })?;
    let rel = RelPath::parse(path).map_err(|e| ErrorData::invalid_params(format!("{path:?}: {e}"), None))?;
    let bytes = registry
        .storage()
        .read_raw_file_sync(skill.scope, &skill.name, &rel)
        .map_err(|e| ErrorData::resource_not_found(format!("{uri}: {e}"), None))?;
    let contents = match String::from_utf8(bytes) {
        Ok(text) if !text.contains('\0') => ResourceContents::TextResourceContents {
            uri: uri.to_owned(),
            mime_type: Some(mime(path).to_owned()),
            text,
            meta: None,
        },
        Ok(text) => blob(uri, text.into_bytes()),
        Err(e) => blob(uri, e.into_bytes()),
    };
    Ok(ReadResourceResult::new(vec![contents]))
}

fn blob(uri: &str, bytes: Vec<u8>) -> ResourceContents {
    ResourceContents::BlobResourceContents {
        uri: uri.to_owned(),
        mime_type: Some("application/octet-stream".to_owned()),
        blob: base64::engine::general_purpose::STANDARD.encode(bytes),
        meta: None,
    }
}

/// Whether a listed skill is offered as a prompt: not when its author set `user-invocable:
/// false` (a prompt is the user invoking it by name; such a skill is only for the model).
fn user_invocable(registry: &SkillRegistry, skill: &ListedSkill) -> bool {
    registry.get(skill.scope, &skill.name).ok().flatten().is_none_or(|e| e.meta.user_invocable())
}

/// One prompt per listed skill the user may invoke, described as the listing describes it.
pub(crate) fn prompts(registry: &SkillRegistry, listing: &Listing) -> Vec<Prompt> {
    listing
        .skills
        .iter()
        .filter(|s| user_invocable(registry, s))
        .map(|s| {
            let version = s.version.as_deref().map(|v| format!(" (v:{v})")).unwrap_or_default();
            Prompt::new(&s.name, Some(s.description.clone()), None).with_title(format!("Skill: {}{version}", s.name))
        })
        .collect()
}

/// The prompt of a listed skill: one user message holding its instructions.
pub(crate) fn prompt(registry: &SkillRegistry, listing: &Listing, name: &str) -> Result<GetPromptResult, ErrorData> {
    let (skill, parsed) = listed(listing, name).map_err(|e| ErrorData::invalid_params(e.message, None))?;
    if !user_invocable(registry, skill) {
        return Err(ErrorData::invalid_params(
            format!("{name} is not offered as a prompt: its author set `user-invocable: false`"),
            None,
        ));
    }
    let skill_md = RelPath::parse("SKILL.md").map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
    let body = registry
        .storage()
        .read_file_sync(skill.scope, &parsed, &skill_md)
        .map_err(|e| ErrorData::internal_error(format!("could not read {name}: {e}"), None))?;
    let version = skill.version.as_deref().map(|v| format!(" (v:{v})")).unwrap_or_default();
    let text = format!(
        "Follow the skill {name}{version}. Its files are the resources {SCHEME}{name}/<path>; view_skill copies them \
         into the workspace at .skills/{name}/.\n\n{body}"
    );
    Ok(GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)])
        .with_description(skill.description.clone()))
}

/// `completion/complete`: for the resource template, the served skills' names starting with
/// what was typed (`name`), or the files of the skill the context names (`path`); nothing for
/// anything else (the prompts take no arguments).
pub(crate) fn complete(registry: &SkillRegistry, served: &[Served], request: &CompleteRequestParams) -> CompleteResult {
    let typed = request.argument.value.as_str();
    let candidates: Vec<String> = match &request.r#ref {
        Reference::Resource(r) if r.uri == template_uri() => match request.argument.name.as_str() {
            "name" => served.iter().map(|s| s.name.as_str().to_owned()).collect(),
            "path" => {
                let name = request.context.as_ref().and_then(|c| c.arguments.as_ref()).and_then(|a| a.get("name"));
                name.and_then(|n| find_served(served, n))
                    .and_then(|skill| registry.storage().read_tree_sync(skill.scope, &skill.name).ok())
                    .map(|tree| tree.into_iter().map(|e| e.path.as_str().to_owned()).collect())
                    .unwrap_or_default()
            }
            _ => Vec::new(),
        },
        _ => Vec::new(),
    };
    let matching: Vec<String> = candidates.into_iter().filter(|c| c.starts_with(typed)).collect();
    let total = matching.len();
    let values: Vec<String> = matching.into_iter().take(CompletionInfo::MAX_VALUES).collect();
    let shown = values.len();
    let mut info = CompletionInfo::new(values).unwrap_or_default();
    info.total = u32::try_from(total).ok();
    info.has_more = Some(total > shown);
    CompleteResult::new(info)
}
