//! `find_skills` over MCP: the tool offered while the listing does not show every skill, and a
//! call's effect on the session (what it finds joins the listing and the `view_skill` enum).

use crate::server::SkilldeckServer;
use crate::tool::object;
use rmcp::model::{CallToolResult, Tool, ToolAnnotations};
use serde_json::{Value, json};
use skilldeck_core::Catalogue;
use skilldeck_core::find::{self, TOOL_NAME, tool_spec};
use skilldeck_core::listing::Listing;

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

impl SkilldeckServer {
    /// Runs one `find_skills` call: searches every skill the session may be listed, adds the
    /// matches to what this session found, and rebuilds the listing; returns the result and
    /// whether what clients see changed (then they must be told).
    pub fn find(&self, input: &Value) -> (CallToolResult, bool) {
        let query = input.get("query").and_then(Value::as_str).map(str::trim).unwrap_or_default();
        if query.is_empty() {
            let error = json!({
                "query": query,
                "error": {"code": "query_missing", "message": "Give a few words about the task as query, e.g. {\"query\": \"fill a PDF form\"}."}
            });
            return (CallToolResult::structured_error(error), false);
        }
        let shared = &self.shared;
        let matches = match shared
            .listing_options()
            .and_then(|opts| Ok(shared.registry.find_skills(&opts, query, find::DEFAULT_LIMIT)?))
        {
            Ok(m) => m,
            Err(e) => {
                let error = json!({"query": query, "error": {"code": "store_unreadable", "message": e.to_string()}});
                return (CallToolResult::structured_error(error), false);
            }
        };
        shared.add_found(matches.iter().map(|m| m.name.clone()));
        let changed = match shared.refresh() {
            Ok(changed) => changed,
            Err(e) => {
                eprintln!("skilldeck mcp: {e}; the previous listing stays");
                false
            }
        };
        (CallToolResult::structured(find::result_json(query, &matches)), changed)
    }
}
