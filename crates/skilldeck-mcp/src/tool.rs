//! The `view_skill` tool as MCP clients see it: the core's spec with the L1 listing and the
//! self-heal rule in its description, its output schema, and the server's instructions.

use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::{Value, json};
use skilldeck_mount::view_result::ViewErrorCode;
use skilldeck_mount::view_skill::{SELF_HEAL_RULE, TOOL_NAME, tool_spec};
use skilldeck_select::listing::Listing;
use std::sync::Arc;

/// Every error code a `view_skill` result may carry, as the output schema lists them.
pub const OUTPUT_SCHEMA_ERROR_CODES: [ViewErrorCode; 6] = [
    ViewErrorCode::SkillNotFound,
    ViewErrorCode::SkillPathInvalid,
    ViewErrorCode::SkillCopyFailed,
    ViewErrorCode::SkillFileNotFound,
    ViewErrorCode::SkillFileTooLarge,
    ViewErrorCode::SkillFileBinary,
];

/// Why the list above is whole: adding a code to the core breaks this match until the list
/// names it too.
const fn listed(code: ViewErrorCode) -> usize {
    match code {
        ViewErrorCode::SkillNotFound => 0,
        ViewErrorCode::SkillPathInvalid => 1,
        ViewErrorCode::SkillCopyFailed => 2,
        ViewErrorCode::SkillFileNotFound => 3,
        ViewErrorCode::SkillFileTooLarge => 4,
        ViewErrorCode::SkillFileBinary => 5,
    }
}
const _: () = assert!(listed(ViewErrorCode::SkillFileBinary) + 1 == OUTPUT_SCHEMA_ERROR_CODES.len());

/// What the model is told about keeping up with new versions over a long session.
fn self_heal() -> String {
    format!(
        "{SELF_HEAL_RULE} The listing here is refreshed when the store changes (the server sends \
         notifications/tools/list_changed)."
    )
}

/// The server's `instructions`: the listing and the self-heal rule (many clients never show
/// them to the model, so the tool's description carries them too).
pub fn instructions(listing: &Listing) -> String {
    if listing.skills.is_empty() {
        return "Skilldeck serves Agent Skills through the view_skill tool; no skill is listed right now. \
                Skills imported with `skilldeck import` appear here (the server sends \
                notifications/tools/list_changed)."
            .to_owned();
    }
    format!(
        "Skilldeck serves Agent Skills. Before a task that a listed skill covers, load the skill with view_skill \
         and follow its instructions.\n\n{}\n\n{}",
        listing.text,
        self_heal()
    )
}

/// The JSON Schema of a result's `structuredContent`: `{skillName, path, version, content}`
/// (and `note` once compacted), or `{skillName, path, error: {code, message}}`.
pub fn output_schema() -> Value {
    let codes: Vec<Value> = OUTPUT_SCHEMA_ERROR_CODES.iter().map(|c| json!(c)).collect();
    json!({
        "type": "object",
        "properties": {
            "skillName": {"type": "string", "description": "The skill."},
            "path": {"type": ["string", "null"], "description": "The file read, or null for the instructions."},
            "version": {"type": ["string", "null"], "description": "The version the skill had when read (its revision)."},
            "content": {"type": "string", "description": "The text."},
            "note": {"type": "string"},
            "error": {
                "type": "object",
                "properties": {
                    "code": {"type": "string", "enum": codes},
                    "message": {"type": "string", "description": "What went wrong and what to do."}
                },
                "required": ["code", "message"]
            }
        },
        "required": ["skillName", "path"],
        "oneOf": [
            {"required": ["content"]},
            {"required": ["error"]}
        ]
    })
}

/// A JSON schema as the object rmcp takes (a non-object becomes its `type`).
pub(crate) fn object(value: Value) -> Arc<JsonObject> {
    match value {
        Value::Object(map) => Arc::new(map),
        other => {
            let mut map = JsonObject::new();
            map.insert("type".into(), other);
            Arc::new(map)
        }
    }
}

/// The tool for `listing`: `name` an enum of the listed skills, the listing in the
/// description. `None` when nothing is listed (a schema cannot hold an empty enum).
pub fn view_skill_tool(listing: &Listing) -> Option<Tool> {
    let spec = tool_spec(listing)?;
    let description = format!("{}\n\n{}\n\n{}", spec.description, listing.text, self_heal());
    Some(
        Tool::new(TOOL_NAME, description, object(spec.parameters))
            .with_title("Load a skill")
            .with_raw_output_schema(object(output_schema()))
            .with_annotations(
                ToolAnnotations::new().read_only(false).destructive(false).idempotent(true).open_world(false),
            ),
    )
}
