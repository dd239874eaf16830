//! `find_skills` over MCP: the tool offered while the listing does not show every skill and the
//! schema of its result. A call's effect on the session is the server's (`SkilldeckServer::find`).

use crate::tool::object;
use rmcp::model::{Tool, ToolAnnotations};
use serde_json::{Value, json};
use skilldeck_select::find::{self, TOOL_NAME, tool_spec};
use skilldeck_select::listing::Listing;

/// The JSON Schema of a `find_skills` result's `structuredContent`: `{query, matches, note}`,
/// each match `{name, version, description, why}`.
pub fn find_output_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "The words searched for."},
            "matches": {
                "type": "array",
                "description": "The best matches, best first; each is now in the listing and the view_skill enum.",
                "items": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string", "description": "The skill, to load with view_skill."},
                        "version": {"type": ["string", "null"], "description": "Its version, as v:N."},
                        "description": {"type": "string", "description": "Its whole description."},
                        "why": {"type": "string", "description": "Which words matched, and where."}
                    },
                    "required": ["name", "version", "description", "why"]
                }
            },
            "note": {"type": "string", "description": "What to do next."}
        },
        "required": ["query", "matches", "note"]
    })
}

/// The `find_skills` tool when `listing` does not show every skill and the session may search;
/// `None` otherwise (a store that fits has nothing to find).
pub fn find_skills_tool(listing: &Listing, enabled: bool) -> Option<Tool> {
    if !enabled || !listing.is_partial() || listing.skills.is_empty() && listing.more == 0 {
        return None;
    }
    let spec = tool_spec();
    let description = format!(
        "{} {}\n\nAfter a call the server sends notifications/tools/list_changed: the view_skill tool's name enum \
         then holds the skills found.",
        spec.description,
        find::WHEN_TO_SEARCH
    );
    Some(
        Tool::new(TOOL_NAME, description, object(spec.parameters))
            .with_title("Search the skills")
            .with_raw_output_schema(object(find_output_schema()))
            .with_annotations(
                ToolAnnotations::new().read_only(true).destructive(false).idempotent(true).open_world(false),
            ),
    )
}
