//! Events, questions and replayed items as a screen shows them: every command, path, name and
//! model text with its control, escape, bidi and invisible characters written as visible escapes
//! (`skilldeck_skill::visible`). Holds only that mapping, shared by the CLI and the desktop app so
//! both show the same; the session keeps, records and runs the original text.

use crate::describe::ToolOutcome;
use crate::events::{AgentEvent, ShellQuestion, WriteQuestion};
use crate::replay::ReplayItem;
use crate::transcript::TurnEnd;
use serde_json::Value;
use skilldeck_skill::visible::{visible, visible_line};

/// `event` as shown: streamed text and failure messages may span lines; tool names, arguments
/// and summary lines stay on one.
pub fn event(event: &AgentEvent) -> AgentEvent {
    match event {
        AgentEvent::TurnStarted { turn, listed, provider } => {
            AgentEvent::TurnStarted { turn: turn.clone(), listed: *listed, provider: line(provider) }
        }
        AgentEvent::TextDelta { text } => AgentEvent::TextDelta { text: visible(text).into_owned() },
        AgentEvent::ToolStarted { call_id, name, arguments, preapproved_by } => AgentEvent::ToolStarted {
            call_id: call_id.clone(),
            name: line(name),
            arguments: strings(arguments, true),
            preapproved_by: preapproved_by.as_deref().map(line),
        },
        AgentEvent::ToolFinished { call_id, name, outcome: o } => {
            AgentEvent::ToolFinished { call_id: call_id.clone(), name: line(name), outcome: outcome(o) }
        }
        AgentEvent::Compacted { results } => AgentEvent::Compacted { results: *results },
        AgentEvent::TurnEnded { turn, end } => AgentEvent::TurnEnded { turn: turn.clone(), end: turn_end(end) },
    }
}

/// `question` as shown: the command and every reason on one line each, so nothing in them can
/// rewrite or hide part of the question.
pub fn question(question: &ShellQuestion) -> ShellQuestion {
    ShellQuestion {
        command: line(&question.command),
        sandboxed: question.sandboxed,
        sandbox: line(&question.sandbox),
        grant: question.grant.as_deref().map(line),
        not_covered: question.not_covered.as_deref().map(line),
    }
}

/// A write's `question` as shown: its path and reason on one line each.
pub fn write_question(question: &WriteQuestion) -> WriteQuestion {
    WriteQuestion { path: line(&question.path), reason: line(&question.reason), bytes: question.bytes }
}

/// A replayed item as shown, the same way as the live event it stands for.
pub fn replay_item(item: &ReplayItem) -> ReplayItem {
    match item {
        ReplayItem::User { text } => ReplayItem::User { text: visible(text).into_owned() },
        ReplayItem::Assistant { text } => ReplayItem::Assistant { text: visible(text).into_owned() },
        ReplayItem::Tool { call_id, name, arguments, outcome: o } => ReplayItem::Tool {
            call_id: call_id.clone(),
            name: line(name),
            arguments: strings(arguments, true),
            outcome: outcome(o),
        },
        ReplayItem::TurnEnded { end } => ReplayItem::TurnEnded { end: turn_end(end) },
        ReplayItem::Resumed { provider } => ReplayItem::Resumed { provider: line(provider) },
    }
}

/// A tool's outcome as shown: its summary line on one line, its result (command output, file
/// text) over as many as it has.
pub fn outcome(outcome: &ToolOutcome) -> ToolOutcome {
    ToolOutcome {
        ok: outcome.ok,
        display: line(&outcome.display),
        client_view: strings(&outcome.client_view, false),
        version: outcome.version.as_deref().map(line),
    }
}

fn turn_end(end: &TurnEnd) -> TurnEnd {
    match end {
        TurnEnd::Failed { message } => TurnEnd::Failed { message: visible(message).into_owned() },
        other => other.clone(),
    }
}

fn line(text: &str) -> String {
    visible_line(text).into_owned()
}

/// `value` with every string (keys too) as shown, on one line each when `one_line`.
fn strings(value: &Value, one_line: bool) -> Value {
    let show = |s: &str| if one_line { line(s) } else { visible(s).into_owned() };
    match value {
        Value::String(s) => Value::String(show(s)),
        Value::Array(items) => Value::Array(items.iter().map(|v| strings(v, one_line)).collect()),
        Value::Object(map) => map.iter().map(|(k, v)| (line(k), strings(v, one_line))).collect(),
        other => other.clone(),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn events_show_escapes_and_keep_their_shape() {
        let started = AgentEvent::ToolStarted {
            call_id: "c".into(),
            name: "shell".into(),
            arguments: json!({"command": "ls\u{1b}[2K\rrm", "n": 3, "list": ["a\u{202E}b"]}),
            preapproved_by: Some("x (Bash(\u{200B}ls:*))".into()),
        };
        assert_eq!(
            event(&started),
            AgentEvent::ToolStarted {
                call_id: "c".into(),
                name: "shell".into(),
                arguments: json!({"command": "ls\\e[2K\\rrm", "n": 3, "list": ["a\\u{202E}b"]}),
                preapproved_by: Some("x (Bash(\\u{200B}ls:*))".into()),
            }
        );
        let text = AgentEvent::TextDelta { text: "one\ntwo \u{1b}[31m".into() };
        assert_eq!(event(&text), AgentEvent::TextDelta { text: "one\ntwo \\e[31m".into() });
        let finished = AgentEvent::ToolFinished {
            call_id: "c".into(),
            name: "shell".into(),
            outcome: ToolOutcome {
                ok: true,
                display: "Ran `a\nb`: exit 0".into(),
                client_view: json!({"stdout": "x\ny\u{7}"}),
                version: None,
            },
        };
        let AgentEvent::ToolFinished { outcome, .. } = event(&finished) else { panic!() };
        assert_eq!(
            (outcome.display.as_str(), &outcome.client_view),
            ("Ran `a\\nb`: exit 0", &json!({"stdout": "x\ny\\x07"}))
        );
    }

    #[test]
    fn a_question_shows_its_command_on_one_line() {
        let q = ShellQuestion {
            command: "echo PWNED > hidden.txt #\u{1b}[2K\rRun `ls -la".into(),
            sandboxed: true,
            sandbox: "sandboxed".into(),
            grant: None,
            not_covered: Some("no grant for `echo\n`".into()),
        };
        let shown = question(&q);
        assert_eq!(shown.command, "echo PWNED > hidden.txt #\\e[2K\\rRun `ls -la");
        assert_eq!(shown.not_covered.as_deref(), Some("no grant for `echo\\n`"));
    }
}
