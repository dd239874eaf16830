//! The agents' frontmatter rules applied to a parsed frontmatter: lenient validation names the
//! agents that read a field outside the spec, `validate --for AGENT` checks what that agent
//! reads and warns about what it ignores. Holds the diagnostics; the table is `agents`.

use crate::agent_values::{self, Problem};
use crate::agents::{self, Agent, INFORMATIONAL};
use crate::diagnostic::{DiagCode, Diagnostic, Severity};
use crate::frontmatter::ParsedYaml;
use crate::spec::{self, SKILLDECK_FIELDS};
use serde_yaml_ng::Value;

/// Which rules a frontmatter is held to beyond the spec's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reading {
    /// Skilldeck's own: every agent's fields known, their values checked as warnings.
    Lenient,
    /// One agent's: what it reads checked as errors, what it ignores warned about.
    For(Agent),
}

/// Fields beyond the spec that Skilldeck itself honours: `disable-model-invocation` keeps a
/// skill out of every listing, `user-invocable: false` (or Copilot's `user-invokable: false`)
/// out of MCP prompts, `when_to_use` is ranked with the description.
pub const HONOURED: &[&str] = &["disable-model-invocation", "user-invocable", "user-invokable", "when_to_use"];

/// The diagnostics `reading` adds for the frontmatter's fields, in key order.
pub fn check(parsed: &ParsedYaml, reading: Reading) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (k, value) in &parsed.fields {
        let key = &k.as_str().map_or_else(|| format!("{k:?}"), str::to_owned);
        let from = out.len();
        match reading {
            Reading::Lenient => lenient(key, value, &mut out),
            Reading::For(agent) => for_agent(agent, key, value, &mut out),
        }
        let line = parsed.line_of(key);
        for d in &mut out[from..] {
            d.line = line;
        }
    }
    if let Some(d) = agent_without_fork(parsed, reading) {
        out.push(d);
    }
    out
}

/// Whether Skilldeck reads `key` itself (the spec's fields and its own): their values are
/// checked by its field readers, whoever else reads them.
fn read_by_skilldeck(key: &str) -> bool {
    spec::FIELDS.contains(&key) || SKILLDECK_FIELDS.contains(&key)
}

/// A field outside the spec, the way Skilldeck reads it: each agent that reads it checks its
/// value (a warning, naming the agents); a field no agent reads is unknown, as before.
fn lenient(key: &str, value: &Value, out: &mut Vec<Diagnostic>) {
    // The spec's fields are Skilldeck's readers' to check; only what an agent reads inside
    // `metadata` is its own.
    let ours = read_by_skilldeck(key);
    if ours && key != "metadata" {
        return;
    }
    let readers: Vec<Agent> = agents::readers(key).map(|r| r.agent).collect();
    if readers.is_empty() && !ours {
        out.push(
            Diagnostic::warning(
                DiagCode::FieldUnknown,
                format!("`{key}` is not a known field; it is kept but ignored (move it under `metadata:`)"),
            )
            .arg("field", key),
        );
        return;
    }
    // One diagnostic per distinct problem, naming every agent that finds it.
    let mut said: Vec<(Problem, Vec<Agent>, &str)> = Vec::new();
    for row in agents::readers(key) {
        if let Some(p) = agent_values::check(row.accepts, value) {
            match said.iter_mut().find(|(q, _, _)| q.what == p.what) {
                Some((_, agents, _)) => agents.push(row.agent),
                None => said.push((p, vec![row.agent], row.cite)),
            }
        }
    }
    for (p, agents, cite) in &said {
        out.push(problem(Severity::Warning, key, p, agents, cite));
    }
    if ours || HONOURED.contains(&key) || !said.is_empty() {
        return;
    }
    out.push(
        Diagnostic::warning(
            DiagCode::FieldUnknown,
            format!(
                "`{key}` is read by {}, not by Skilldeck or the agentskills.io format; it is kept, and other agents \
                 ignore it",
                agents::names(&readers)
            ),
        )
        .arg("field", key)
        .arg("read_by", ids(&readers)),
    );
}

/// A field as `agent` reads it: a bad value is an error, a field it ignores a warning.
fn for_agent(agent: Agent, key: &str, value: &Value, out: &mut Vec<Diagnostic>) {
    match agents::read_by(agent, key) {
        // The spec's fields are checked by Skilldeck's readers, to the same limits; only what
        // an agent reads inside `metadata` is its own.
        Some(_) if read_by_skilldeck(key) && key != "metadata" => {}
        Some(row) => {
            if let Some(p) = agent_values::check(row.accepts, value) {
                out.push(problem(Severity::Error, key, &p, &[agent], row.cite));
            }
        }
        None if INFORMATIONAL.contains(&key) || key == "name" || key == "description" => {}
        None => {
            let others: Vec<Agent> = agents::readers(key).map(|r| r.agent).collect();
            let mut msg = format!("`{key}` is not read by {agent}, which ignores it");
            if SKILLDECK_FIELDS.contains(&key) || HONOURED.contains(&key) {
                msg.push_str("; Skilldeck reads it");
            }
            if !others.is_empty() {
                msg.push_str(&format!(
                    "; {} read{} it",
                    agents::names(&others),
                    if others.len() == 1 { "s" } else { "" }
                ));
            }
            let mut d = Diagnostic::warning(DiagCode::FieldIgnored, msg).arg("field", key).arg("agent", agent.id());
            if !others.is_empty() {
                d = d.arg("read_by", ids(&others));
            }
            out.push(d);
        }
    }
}

/// Claude Code's `agent` does nothing without `context: fork`.
fn agent_without_fork(parsed: &ParsedYaml, reading: Reading) -> Option<Diagnostic> {
    if !matches!(reading, Reading::Lenient | Reading::For(Agent::ClaudeCode)) {
        return None;
    }
    let fields = &parsed.fields;
    let forked = fields.get("context").and_then(Value::as_str) == Some("fork");
    (fields.get("agent").is_some_and(Value::is_string) && !forked).then(|| {
        Diagnostic::warning(
            DiagCode::FieldValueInvalid,
            "`agent` has no effect without `context: fork`: Claude Code runs a subagent only for a forked skill",
        )
        .at(parsed.line_of("agent"))
        .arg("field", "agent")
        .arg("read_by", Agent::ClaudeCode.id())
        .arg("needs", "context: fork")
    })
}

fn ids(agents: &[Agent]) -> String {
    agents.iter().map(|a| a.id()).collect::<Vec<_>>().join(",")
}

fn problem(severity: Severity, key: &str, p: &Problem, agents: &[Agent], cite: &str) -> Diagnostic {
    let who = agents::names(agents);
    let verb = if agents.len() == 1 { "reads" } else { "read" };
    let msg = format!("`{key}` {} ({who} {verb} it: {cite})", p.what);
    let d = match severity {
        Severity::Error => Diagnostic::error(p.code, msg),
        Severity::Warning => Diagnostic::warning(p.code, msg),
    };
    let d = d.arg("field", key).arg("read_by", ids(agents));
    p.args.iter().fold(d, |d, (k, v)| d.arg(k, v))
}
