//! Running one tool call: the right tool, pre-approval by active skills, the user's approval.
//! Holds the mapping of a call to a result JSON and a display line; errors are data here.

use crate::events::{AgentEvent, Host};
use crate::message::ToolCall;
use crate::tools::shell::{self, ShellLimits};
use crate::tools::{ToolError, ToolErrorCode, ToolKind, allowed, files};
use serde_json::Value;
use skilldeck_core::SkillRegistry;
use skilldeck_core::sandbox::Sandbox;
use skilldeck_core::view_result::ViewResult;
use skilldeck_core::view_skill::{Turn, view_skill};
use std::collections::BTreeSet;
use tokio_util::sync::CancellationToken;

/// What a tool call needs from its session.
pub struct ToolContext<'a> {
    /// The skills.
    pub registry: &'a SkillRegistry,
    /// The workspace.
    pub sandbox: &'a Sandbox,
    /// This turn (its listing and mounts).
    pub turn: &'a mut Turn,
    /// The tools offered.
    pub enabled: &'a [ToolKind],
    /// Skills loaded in this session, by name.
    pub active: &'a mut BTreeSet<String>,
    /// The shell's limits.
    pub shell: ShellLimits,
}

/// A finished call: the content the model gets and the event the host gets.
pub struct Finished {
    /// The result JSON text.
    pub content: String,
    /// Whether it succeeded.
    pub ok: bool,
    /// The host's event.
    pub event: AgentEvent,
}

fn finished(call: &ToolCall, result: Result<Value, ToolError>, display_ok: impl FnOnce(&Value) -> String) -> Finished {
    let (value, ok, display) = match result {
        Ok(v) => {
            let d = display_ok(&v);
            (v, true, d)
        }
        Err(e) => {
            let d = format!("{} failed: {}", call.name, e.message);
            (e.to_json(), false, d)
        }
    };
    Finished::new(call, value.to_string(), ok, display, value)
}

impl Finished {
    /// A result with `content` for the model and `client_view` for the host's event.
    fn new(call: &ToolCall, content: String, ok: bool, display: String, client_view: Value) -> Self {
        let event =
            AgentEvent::ToolFinished { call_id: call.id.clone(), name: call.name.clone(), ok, display, client_view };
        Self { content, ok, event }
    }
}

/// Which active skill's `allowed-tools` pre-approves `command`, as `skill (pattern)`.
pub fn preapproval(registry: &SkillRegistry, turn: &Turn, active: &BTreeSet<String>, command: &str) -> Option<String> {
    turn.listing().skills.iter().filter(|s| active.contains(&s.name)).find_map(|s| {
        let entry = registry.get(s.scope, &s.name).ok().flatten()?;
        allowed::first_allowing(&entry.meta.allowed_tools, command).map(|p| format!("{} ({p})", s.name))
    })
}

/// An error result for a call that will not run (the turn was stopped).
pub fn cancelled(call: &ToolCall) -> Finished {
    finished(
        call,
        Err(ToolError::new(ToolErrorCode::Cancelled, "the user stopped the turn before this call ran")),
        |_| String::new(),
    )
}

/// Runs one call. Never fails: every failure is a result the model can read.
pub async fn run(ctx: ToolContext<'_>, call: &ToolCall, host: &dyn Host, cancel: &CancellationToken) -> Finished {
    let kind = ToolKind::from_name(&call.name).filter(|k| ctx.enabled.contains(k));
    let Some(kind) = kind else {
        let names: Vec<&str> = ctx.enabled.iter().map(|k| k.name()).collect();
        let e = ToolError::new(
            ToolErrorCode::UnknownTool,
            format!("no tool {:?} in this session; the tools are: {}", call.name, names.join(", ")),
        );
        host.event(&started(call, None));
        return finished(call, Err(e), |_| String::new());
    };
    if !call.arguments.is_object() {
        host.event(&started(call, None));
        let e = ToolError::new(
            ToolErrorCode::InvalidArguments,
            format!(
                "the arguments must be a JSON object; got {}",
                crate::provider::openai::clip(&call.arguments_text())
            ),
        );
        return finished(call, Err(e), |_| String::new());
    }
    let input = &call.arguments;
    match kind {
        ToolKind::ViewSkill => {
            host.event(&started(call, None));
            let result = view_skill(ctx.registry, ctx.sandbox, ctx.turn, input);
            let (ok, display) = match &result {
                ViewResult::Ok(ok) => {
                    ctx.active.insert(ok.skill_name.clone());
                    let v = ok.version.as_deref().map(|v| format!(" v:{v}")).unwrap_or_default();
                    let p = ok.path.as_deref().map(|p| format!(" ({p})")).unwrap_or_default();
                    (true, format!("Skill activated: {}{v}{p}", ok.skill_name))
                }
                ViewResult::Err(e) => (false, format!("view_skill {} failed: {}", e.skill_name, e.error.message)),
            };
            let client_view = serde_json::to_value(result.client_view()).unwrap_or(Value::Null);
            Finished::new(call, result.to_json().to_string(), ok, display, client_view)
        }
        ToolKind::ReadFile => {
            host.event(&started(call, None));
            finished(call, files::read_file(ctx.sandbox, input), |v| {
                format!("Read {}", v["path"].as_str().unwrap_or_default())
            })
        }
        ToolKind::WriteFile => {
            host.event(&started(call, None));
            finished(call, files::write_file(ctx.sandbox, input), |v| {
                format!("Wrote {} ({} bytes)", v["path"].as_str().unwrap_or_default(), v["bytesWritten"])
            })
        }
        ToolKind::ListDir => {
            host.event(&started(call, None));
            finished(call, files::list_dir(ctx.sandbox, input), |v| {
                let p = v["path"].as_str().filter(|p| !p.is_empty()).unwrap_or(".");
                format!("Listed {p} ({} entries)", v["entries"].as_array().map_or(0, Vec::len))
            })
        }
        ToolKind::Shell => {
            let command = match shell::command_of(input) {
                Ok(c) => c,
                Err(e) => {
                    host.event(&started(call, None));
                    return finished(call, Err(e), |_| String::new());
                }
            };
            let pre = preapproval(ctx.registry, ctx.turn, ctx.active, command);
            host.event(&started(call, pre.clone()));
            let allowed = match pre {
                Some(_) => true,
                None => tokio::select! {
                    () = cancel.cancelled() => false,
                    a = host.approve_shell(command) => a,
                },
            };
            let result = if cancel.is_cancelled() {
                Err(ToolError::new(ToolErrorCode::Cancelled, "the user stopped the turn"))
            } else if !allowed {
                Err(ToolError::new(
                    ToolErrorCode::ShellDenied,
                    "the user did not allow this command; do not run it again without asking",
                ))
            } else {
                shell::run(ctx.sandbox.root(), command, ctx.shell, cancel).await
            };
            finished(call, result, |v| {
                let exit = match (&v["exitCode"], v["timedOut"].as_bool()) {
                    (_, Some(true)) => "timed out".to_owned(),
                    (Value::Number(n), _) => format!("exit {n}"),
                    _ => "killed".to_owned(),
                };
                format!("Ran `{command}`: {exit}")
            })
        }
    }
}

fn started(call: &ToolCall, preapproved_by: Option<String>) -> AgentEvent {
    AgentEvent::ToolStarted {
        call_id: call.id.clone(),
        name: call.name.clone(),
        arguments: call.arguments.clone(),
        preapproved_by,
    }
}
