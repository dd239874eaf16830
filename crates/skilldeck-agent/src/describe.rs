//! How a finished tool call looks to people: whether it worked, one display line, the client view.
//! Holds the one mapping from a call and its result JSON, used live and when a session is reopened.

use crate::message::ToolCall;
use crate::tools::ToolKind;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use skilldeck_mount::view_result::ViewResult;

/// A finished tool call as a UI shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ToolOutcome {
    /// Whether it succeeded.
    pub ok: bool,
    /// One line for people, e.g. `Skill activated: pdf v:3`.
    pub display: String,
    /// What a UI may show: for `view_skill` the core's client view (never the skill's text);
    /// for other tools the result as the model got it.
    pub client_view: Value,
    /// For a `view_skill` call that loaded a skill, the version it loaded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

/// Describes `call`, whose result the model received as `result`.
pub fn describe(call: &ToolCall, result: &Value) -> ToolOutcome {
    if ToolKind::from_name(&call.name) == Some(ToolKind::ViewSkill)
        && let Ok(view) = serde_json::from_value::<ViewResult>(result.clone())
    {
        return describe_view(&view);
    }
    if let Some(message) = result.pointer("/error/message").and_then(Value::as_str) {
        return ToolOutcome {
            ok: false,
            display: format!("{} failed: {message}", call.name),
            client_view: result.clone(),
            version: None,
        };
    }
    let path = |key: &str| result[key].as_str().filter(|p| !p.is_empty()).unwrap_or(".").to_owned();
    let display = match ToolKind::from_name(&call.name) {
        Some(ToolKind::ReadFile) => format!("Read {}", path("path")),
        Some(ToolKind::WriteFile) => format!("Wrote {} ({} bytes)", path("path"), result["bytesWritten"]),
        Some(ToolKind::ListDir) => {
            format!("Listed {} ({} entries)", path("path"), result["entries"].as_array().map_or(0, Vec::len))
        }
        Some(ToolKind::Shell) => {
            let command = call.arguments.get("command").and_then(Value::as_str).unwrap_or_default();
            let exit = match (&result["exitCode"], result["timedOut"].as_bool()) {
                (_, Some(true)) => "timed out".to_owned(),
                (Value::Number(n), _) => format!("exit {n}"),
                _ => "killed".to_owned(),
            };
            format!("Ran `{command}`: {exit}")
        }
        Some(ToolKind::FindSkills) => {
            let query = call.arguments.get("query").and_then(Value::as_str).unwrap_or_default();
            let names: Vec<&str> = result["matches"]
                .as_array()
                .map(|m| m.iter().filter_map(|f| f["name"].as_str()).collect())
                .unwrap_or_default();
            if names.is_empty() {
                format!("Searched skills for {query:?}: no match")
            } else {
                format!("Searched skills for {query:?}: {}", names.join(", "))
            }
        }
        Some(ToolKind::ViewSkill) | None => format!("{} finished", call.name),
    };
    ToolOutcome { ok: true, display, client_view: result.clone(), version: None }
}

/// Describes a `view_skill` result: the client view, never the skill's text.
pub fn describe_view(view: &ViewResult) -> ToolOutcome {
    let client_view = serde_json::to_value(view.client_view()).unwrap_or(Value::Null);
    match view {
        ViewResult::Ok(ok) => {
            let v = ok.version.as_deref().map(|v| format!(" v:{v}")).unwrap_or_default();
            let p = ok.path.as_deref().map(|p| format!(" ({p})")).unwrap_or_default();
            ToolOutcome {
                ok: true,
                display: format!("Skill activated: {}{v}{p}", ok.skill_name),
                client_view,
                version: ok.version.clone(),
            }
        }
        ViewResult::Err(e) => ToolOutcome {
            ok: false,
            display: format!("view_skill {} failed: {}", e.skill_name, e.error.message),
            client_view,
            version: None,
        },
    }
}
