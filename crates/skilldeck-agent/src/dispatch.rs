//! Running one tool call: the right tool, pre-approval by active skills, the user's approval.
//! Holds the mapping of a call to its result JSON; errors are data here. How it looks is `describe`.

use crate::describe::{ToolOutcome, describe, describe_view};
use crate::events::{AgentEvent, Host, ShellAnswer, ShellQuestion, WriteQuestion};
use crate::message::ToolCall;
use crate::tools::allowed::{self, Grant};
use crate::tools::sandbox::ShellSandbox;
use crate::tools::shell::{self, ShellLimits};
use crate::tools::{ToolError, ToolErrorCode, ToolKind, files, git_guard, write_guard};
use serde_json::Value;
use skilldeck_core::SkillRegistry;
use skilldeck_mount::sandbox::Sandbox;
use skilldeck_mount::view_result::ViewResult;
use skilldeck_mount::view_skill::{Turn, view_skill};
use skilldeck_select::catalogue::Catalogue;
use skilldeck_select::find;
use skilldeck_select::listing::ListingOptions;
use skilldeck_skill::grants::Pattern;
use skilldeck_store::trust::Trust;
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
    /// Skills loaded in this turn, by name: their approved grants are in force.
    pub active: &'a mut BTreeSet<String>,
    /// The user's approvals of skills' `allowed-tools`, as read when the turn began.
    pub trust: &'a Trust,
    /// Commands the user allowed for the rest of the session.
    pub allowed_commands: &'a mut BTreeSet<String>,
    /// Paths that ask before a write (`write_guard`) the user allowed for the rest of the session.
    pub allowed_writes: &'a mut BTreeSet<String>,
    /// The shell's limits.
    pub shell: ShellLimits,
    /// The shell's OS sandbox.
    pub shell_sandbox: &'a ShellSandbox,
    /// What the session may be listed, for `find_skills`.
    pub listing: &'a ListingOptions,
    /// Skills `find_skills` returned in this call, which join the listing from the next call.
    pub found: &'a mut Vec<String>,
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

fn finished(call: &ToolCall, result: Result<Value, ToolError>) -> Finished {
    let value = result.unwrap_or_else(|e| e.to_json());
    Finished::new(call, value.to_string(), describe(call, &value))
}

impl Finished {
    /// A result with `content` for the model and its `outcome` for the host's event.
    fn new(call: &ToolCall, content: String, outcome: ToolOutcome) -> Self {
        let ok = outcome.ok;
        let event = AgentEvent::ToolFinished { call_id: call.id.clone(), name: call.name.clone(), outcome };
        Self { content, ok, event }
    }
}

/// The grants in force: the shell patterns of the skills loaded this turn whose `allowed-tools`
/// the user approved (or that ship bundled). A skill's own frontmatter grants nothing by itself.
pub fn grants_in_force(registry: &SkillRegistry, turn: &Turn, active: &BTreeSet<String>, trust: &Trust) -> Vec<Grant> {
    let mut grants = Vec::new();
    for s in turn.listing().skills.iter().filter(|s| active.contains(&s.name)) {
        let Some(entry) = registry.get(s.scope, &s.name).ok().flatten() else { continue };
        // A team skill whose files cannot be hashed is not in force (a `None` never trusts it).
        let content = registry.trust_content(s.scope, &s.name).ok().flatten();
        if !trust.state(s.scope, &s.name, &entry.meta, content.as_ref()).in_force() {
            continue;
        }
        grants.extend(
            entry
                .meta
                .allowed_tools
                .iter()
                .filter(|p| Pattern::parse(p).is_some_and(|p| !matches!(p, Pattern::Other(_))))
                .map(|p| Grant { skill: s.name.clone(), pattern: p.clone() }),
        );
    }
    grants
}

/// How a command may run without a question.
enum Approved {
    /// The user allowed it for the session.
    ByUser(String),
    /// Approved grants cover it: it runs with git's program-naming settings turned off.
    ByGrants(String),
}

impl Approved {
    fn label(&self) -> String {
        match self {
            Self::ByUser(l) | Self::ByGrants(l) => l.clone(),
        }
    }
}

/// Whether `command` runs without a question, and why; else the question to ask.
fn decide(ctx: &ToolContext<'_>, command: &str) -> Result<Approved, ShellQuestion> {
    if ctx.allowed_commands.contains(command) {
        return Ok(Approved::ByUser("you, for this session".to_owned()));
    }
    let grants = grants_in_force(ctx.registry, ctx.turn, ctx.active, ctx.trust);
    let mut covered = allowed::covering(&grants, command);
    // A narrow grant covers the git command the user meant, not what the repository's config
    // makes git run: a config that could name a program means the user is asked. Nor does it
    // cover an option that writes a file something runs later (`--output=.git/hooks/x`).
    if let Ok(by) = &covered
        && !by.iter().any(|g| Pattern::parse(&g.pattern) == Some(Pattern::AnyCommand))
        && let Some(why) = allowed::simple_commands(command).unwrap_or_default().iter().find_map(|w| {
            write_guard::option_writes(w)
                .or_else(|| git_guard::is_git(w).then(|| git_guard::refuses(ctx.sandbox.root(), w)).flatten())
        })
    {
        covered = Err(allowed::NotCovered(why));
    }
    let sandboxed = ctx.shell_sandbox.is_sandboxed();
    match covered {
        // A grant means "runs in the sandbox without asking"; with no sandbox the user is asked.
        Ok(by) if sandboxed => Ok(Approved::ByGrants(labels(&by))),
        covered => Err(ShellQuestion {
            command: command.to_owned(),
            sandboxed,
            sandbox: ctx.shell_sandbox.describe(),
            grant: covered.as_ref().ok().map(|by| labels(by)),
            not_covered: covered.err().filter(|_| !grants.is_empty()).map(|e| e.0),
        }),
    }
}

fn labels(grants: &[Grant]) -> String {
    grants.iter().map(Grant::label).collect::<Vec<_>>().join(", ")
}

/// An error result for a call past a limit of the turn (`note` says which, for the model).
pub fn over_limit(call: &ToolCall, note: String) -> Finished {
    finished(call, Err(ToolError::new(ToolErrorCode::LimitReached, note)))
}

/// An error result for a call that will not run (the turn was stopped).
pub fn cancelled(call: &ToolCall) -> Finished {
    finished(call, Err(ToolError::new(ToolErrorCode::Cancelled, "the user stopped the turn before this call ran")))
}

/// Runs one call. Never fails: every failure is a result the model can read.
pub async fn run(mut ctx: ToolContext<'_>, call: &ToolCall, host: &dyn Host, cancel: &CancellationToken) -> Finished {
    let kind = ToolKind::from_name(&call.name).filter(|k| ctx.enabled.contains(k));
    let Some(kind) = kind else {
        let names: Vec<&str> = ctx.enabled.iter().map(|k| k.name()).collect();
        let e = ToolError::new(
            ToolErrorCode::UnknownTool,
            format!("no tool {:?} in this session; the tools are: {}", call.name, names.join(", ")),
        );
        host.event(&started(call, None));
        return finished(call, Err(e));
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
        return finished(call, Err(e));
    }
    let input = &call.arguments;
    match kind {
        ToolKind::ViewSkill => {
            host.event(&started(call, None));
            let result = view_skill(ctx.registry, ctx.sandbox, ctx.turn, input);
            if let ViewResult::Ok(ok) = &result {
                ctx.active.insert(ok.skill_name.clone());
            }
            Finished::new(call, result.to_json().to_string(), describe_view(&result))
        }
        ToolKind::FindSkills => {
            host.event(&started(call, None));
            let result = match input.get("query").and_then(Value::as_str).map(str::trim) {
                Some(q) if !q.is_empty() => match ctx.registry.find_skills(ctx.listing, q, find::DEFAULT_LIMIT) {
                    Ok(matches) => {
                        for m in &matches {
                            if !ctx.found.contains(&m.name) {
                                ctx.found.push(m.name.clone());
                            }
                        }
                        Ok(find::result_json(q, &matches))
                    }
                    Err(e) => Err(ToolError::new(ToolErrorCode::Io, format!("the skill store could not be read: {e}"))),
                },
                _ => Err(ToolError::new(
                    ToolErrorCode::InvalidArguments,
                    "`query` must be a non-empty string: a few words about the task, e.g. \"fill a PDF form\"",
                )),
            };
            finished(call, result)
        }
        ToolKind::ReadFile => {
            host.event(&started(call, None));
            finished(call, files::read_file(ctx.sandbox, input))
        }
        ToolKind::WriteFile => {
            host.event(&started(call, None));
            if let Err(e) = approve_write(&mut ctx, input, host, cancel).await {
                return finished(call, Err(e));
            }
            finished(call, files::write_file(ctx.sandbox, input))
        }
        ToolKind::ListDir => {
            host.event(&started(call, None));
            finished(call, files::list_dir(ctx.sandbox, input))
        }
        ToolKind::Shell => {
            let command = match shell::command_of(input) {
                Ok(c) => c,
                Err(e) => {
                    host.event(&started(call, None));
                    return finished(call, Err(e));
                }
            };
            let decision = decide(&ctx, command);
            host.event(&started(call, decision.as_ref().ok().map(Approved::label)));
            let by_grants = matches!(decision, Ok(Approved::ByGrants(_)));
            let allowed = match decision {
                Ok(_) => true,
                Err(question) => {
                    let answer = tokio::select! {
                        () = cancel.cancelled() => ShellAnswer::Deny,
                        a = host.approve_shell(&question) => a,
                    };
                    if answer == ShellAnswer::Session {
                        ctx.allowed_commands.insert(command.to_owned());
                    }
                    answer.allows()
                }
            };
            let result = if cancel.is_cancelled() {
                Err(ToolError::new(ToolErrorCode::Cancelled, "the user stopped the turn"))
            } else if !allowed {
                Err(ToolError::new(
                    ToolErrorCode::ShellDenied,
                    "the user did not allow this command; do not run it again without asking",
                ))
            } else if by_grants && command_runs_git(command) {
                let mut sandbox = ctx.shell_sandbox.clone();
                sandbox.policy.env.extend(git_guard::environment());
                shell::run(&sandbox, ctx.sandbox.root(), command, ctx.shell, cancel).await
            } else {
                shell::run(ctx.shell_sandbox, ctx.sandbox.root(), command, ctx.shell, cancel).await
            };
            finished(call, result)
        }
    }
}

fn command_runs_git(command: &str) -> bool {
    allowed::simple_commands(command).is_ok_and(|c| c.iter().any(|w| git_guard::is_git(w)))
}

/// Asks the user before `write_file` writes a file that runs code later; `Err` when it may not.
async fn approve_write(
    ctx: &mut ToolContext<'_>,
    input: &Value,
    host: &dyn Host,
    cancel: &CancellationToken,
) -> Result<(), ToolError> {
    let (Some(path), Some(content)) =
        (input.get("path").and_then(Value::as_str), input.get("content").and_then(Value::as_str))
    else {
        return Ok(()); // `write_file` itself says what is missing.
    };
    let Some(reason) = write_guard::asks_in(ctx.sandbox, path) else { return Ok(()) };
    if ctx.allowed_writes.contains(path) {
        return Ok(());
    }
    let question = WriteQuestion { path: path.to_owned(), reason, bytes: content.len() };
    let answer = tokio::select! {
        () = cancel.cancelled() => ShellAnswer::Deny,
        a = host.approve_write(&question) => a,
    };
    if cancel.is_cancelled() {
        return Err(ToolError::new(ToolErrorCode::Cancelled, "the user stopped the turn"));
    }
    if answer == ShellAnswer::Session {
        ctx.allowed_writes.insert(path.to_owned());
    }
    if answer.allows() {
        Ok(())
    } else {
        Err(ToolError::new(
            ToolErrorCode::WriteDenied,
            format!(
                "the user did not allow writing {path}: {}. Do not write it again without asking; say what it \
                 should hold instead",
                question.reason
            ),
        ))
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
