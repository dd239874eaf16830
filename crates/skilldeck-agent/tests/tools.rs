//! The tools through the loop: file tools in the sandbox, shell limits, approval and pre-approval.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod common;

use common::{Fixture, Recorder, Scripted, call, say};
use serde_json::{Value, json};
use skilldeck_agent::events::AgentEvent;
use skilldeck_agent::message::Message;
use skilldeck_agent::session::SessionOptions;
use skilldeck_agent::tools::allowed;
use skilldeck_agent::tools::shell::{self, ShellLimits};
use skilldeck_agent::transcript::TurnEnd;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

#[test]
fn allowed_tools_patterns() {
    let check = |pattern: &str, command: &str, expected: bool| {
        assert_eq!(allowed::allows(pattern, command), expected, "{pattern} / {command}");
    };
    check("Bash(git diff:*)", "git diff", true);
    check("Bash(git diff:*)", "git diff --stat HEAD", true);
    check("Bash(git diff:*)", "git diffx", false);
    check("Bash(git diff:*)", "git status", false);
    check("Bash(git diff:*)", "git diff; rm -rf ~", false);
    check("Bash(git diff:*)", "git diff && curl x", false);
    check("Bash(git diff:*)", "git diff $(rm -rf ~)", false);
    check("Bash(git:*)", "git log -1", true);
    check("Bash(npm test)", "npm test", true);
    check("Bash(npm test)", "npm test --watch", false);
    check("Bash(python scripts/*)", "python scripts/extract.py in.pdf", false);
    check("Bash(python scripts/extract.py:*)", "python scripts/extract.py in.pdf", true);
    check("Bash", "anything | at all", true);
    check("Bash(*)", "ls", true);
    check("Shell(ls:*)", "ls -la", true);
    check("Read", "cat x", false);
    check("Bash(git diff", "git diff", false);
    assert_eq!(allowed::first_allowing(&["Read".into(), "Bash(ls:*)".into()], "ls -a"), Some("Bash(ls:*)"));
}

fn tool_results(history: &[Message]) -> Vec<Value> {
    history
        .iter()
        .filter_map(|m| match m {
            Message::Tool { content, .. } => Some(serde_json::from_str(content).unwrap()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn file_tools_work_in_the_sandbox_and_refusals_are_data() {
    let fx = Fixture::new();
    let script = Scripted::new(vec![
        call("1", "write_file", json!({"path": "notes/a.txt", "content": "hello"})),
        call("2", "read_file", json!({"path": "notes/a.txt"})),
        call("3", "list_dir", json!({"path": "notes"})),
        call("4", "read_file", json!({"path": "../etc/passwd"})),
        call("5", "read_file", json!({"path": "missing.txt"})),
        call("6", "teleport", json!({})),
        call("7", "read_file", Value::String("{not json".into())),
        say("done"),
    ]);
    let mut s = fx.session(script.clone(), SessionOptions::default());
    let host = Recorder::new(false);
    assert_eq!(s.run_turn("go", &host, &CancellationToken::new()).await.unwrap(), TurnEnd::Answered);
    let results = tool_results(s.history());
    assert_eq!(results[0], json!({"path": "notes/a.txt", "bytesWritten": 5}));
    assert_eq!(results[1], json!({"path": "notes/a.txt", "content": "hello"}));
    assert_eq!(results[2], json!({"path": "notes", "entries": [{"name": "a.txt", "kind": "file", "size": 5}]}));
    let codes: Vec<&str> = results[3..].iter().map(|r| r["error"]["code"].as_str().unwrap()).collect();
    assert_eq!(codes, ["path_invalid", "not_found", "unknown_tool", "invalid_arguments"]);
    assert_eq!(std::fs::read_to_string(fx.workspace().join("notes/a.txt")).unwrap(), "hello");
}

#[tokio::test]
async fn shell_is_bounded_by_timeout_and_output_cap() {
    let dir = tempfile::tempdir().unwrap();
    let limits = ShellLimits { timeout: Duration::from_millis(300), output_cap: 10 };
    let cancel = CancellationToken::new();
    let out = shell::run(dir.path(), "printf 0123456789abcdef; echo err >&2; exit 3", limits, &cancel).await.unwrap();
    assert_eq!(
        out,
        json!({"command": "printf 0123456789abcdef; echo err >&2; exit 3", "exitCode": 3, "stdout": "0123456789",
               "stderr": "err\n", "truncated": true, "timedOut": false})
    );
    let started = Instant::now();
    // The child `sleep` is in the same process group, so the timeout kills it too.
    let out = shell::run(dir.path(), "sleep 30 & sleep 30; echo never", limits, &cancel).await.unwrap();
    assert_eq!(out["timedOut"], json!(true));
    assert_eq!(out["exitCode"], Value::Null);
    assert_eq!(out["stdout"], json!(""));
    assert!(started.elapsed() < Duration::from_secs(10));
    let out = shell::run(dir.path(), "pwd", ShellLimits::default(), &cancel).await.unwrap();
    assert_eq!(out["stdout"], json!(format!("{}\n", dir.path().canonicalize().unwrap().display())));
}

#[tokio::test]
async fn shell_asks_the_host_and_a_refusal_is_data() {
    let fx = Fixture::new();
    let script = Scripted::new(vec![call("1", "shell", json!({"command": "touch made"})), say("ok")]);
    let mut s = fx.session(script, SessionOptions::default());
    let host = Recorder::new(false);
    s.run_turn("go", &host, &CancellationToken::new()).await.unwrap();
    assert_eq!(*host.asked.lock().unwrap(), vec!["touch made".to_owned()]);
    assert_eq!(tool_results(s.history())[0]["error"]["code"], json!("shell_denied"));
    assert!(!fx.workspace().join("made").exists());

    let script = Scripted::new(vec![call("1", "shell", json!({"command": "touch made"})), say("ok")]);
    let mut s = fx.session(script, SessionOptions::default());
    let host = Recorder::new(true);
    s.run_turn("go", &host, &CancellationToken::new()).await.unwrap();
    assert_eq!(tool_results(s.history())[0]["exitCode"], json!(0));
    assert!(fx.workspace().join("made").exists());
}

#[tokio::test]
async fn an_active_skills_allowed_tools_pre_approve_matching_commands_only() {
    let fx = Fixture::new();
    fx.skill("gitter", "description: Inspect git changes\nallowed-tools: Bash(echo:*) Read\n", "# Git", &[]);
    let script = Scripted::new(vec![
        call("1", "shell", json!({"command": "echo before"})),
        call("2", "view_skill", json!({"name": "gitter"})),
        call("3", "shell", json!({"command": "echo after"})),
        call("4", "shell", json!({"command": "echo x; touch y"})),
        say("ok"),
    ]);
    let mut s = fx.session(script, SessionOptions::default());
    let host = Recorder::new(false);
    s.run_turn("go", &host, &CancellationToken::new()).await.unwrap();
    // Asked before the skill was active, and for the chained command; not for `echo after`.
    assert_eq!(*host.asked.lock().unwrap(), vec!["echo before".to_owned(), "echo x; touch y".to_owned()]);
    let pre: Vec<Option<String>> = host
        .take()
        .into_iter()
        .filter_map(|e| match e {
            AgentEvent::ToolStarted { name, preapproved_by, .. } if name == "shell" => Some(preapproved_by),
            _ => None,
        })
        .collect();
    assert_eq!(pre, vec![None, Some("gitter (Bash(echo:*))".to_owned()), None]);
    let results = tool_results(s.history());
    assert_eq!(results[2]["stdout"], json!("after\n"));
    assert_eq!(results[3]["error"]["code"], json!("shell_denied"));
}

#[tokio::test]
async fn cancelling_mid_tool_kills_the_command_and_the_session_goes_on() {
    let fx = Fixture::new();
    let script = Scripted::new(vec![
        vec![
            skilldeck_agent::StreamEvent::ToolCall {
                call: skilldeck_agent::ToolCall {
                    id: "1".into(),
                    name: "shell".into(),
                    arguments: json!({"command": "sleep 30"}),
                },
            },
            skilldeck_agent::StreamEvent::ToolCall {
                call: skilldeck_agent::ToolCall { id: "2".into(), name: "list_dir".into(), arguments: json!({}) },
            },
            skilldeck_agent::StreamEvent::Finish { stop: skilldeck_agent::StopReason::ToolUse },
        ],
        say("after"),
    ]);
    let mut s = fx.session(script, SessionOptions::default());
    let host = Recorder::new(true);
    let cancel = CancellationToken::new();
    let c2 = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        c2.cancel();
    });
    let started = Instant::now();
    assert_eq!(s.run_turn("go", &host, &cancel).await.unwrap(), TurnEnd::Cancelled);
    assert!(started.elapsed() < Duration::from_secs(10));
    let codes: Vec<Value> = tool_results(s.history()).iter().map(|r| r["error"]["code"].clone()).collect();
    assert_eq!(codes, [json!("cancelled"), json!("cancelled")]);
    assert_eq!(s.run_turn("again", &host, &CancellationToken::new()).await.unwrap(), TurnEnd::Answered);
    assert_eq!(s.history().last(), Some(&Message::Assistant { content: "after".into(), tool_calls: vec![] }));
}

#[tokio::test]
async fn the_step_limit_ends_a_turn() {
    let fx = Fixture::new();
    let script = Scripted::new((0..5).map(|i| call(&i.to_string(), "list_dir", json!({}))).collect());
    let opts = SessionOptions { max_steps: 3, ..SessionOptions::default() };
    let mut s = fx.session(script.clone(), opts);
    let end = s.run_turn("loop", &Recorder::new(false), &CancellationToken::new()).await.unwrap();
    assert_eq!(end, TurnEnd::StepLimit { steps: 3 });
    assert_eq!(script.requests().len(), 3);
}

#[tokio::test]
async fn dropping_a_running_command_kills_its_process_group() {
    let dir = tempfile::tempdir().unwrap();
    let cancel = CancellationToken::new();
    let run = shell::run(dir.path(), "sleep 2; touch late", ShellLimits::default(), &cancel);
    // Drop the call mid-command, as an aborted task would.
    assert!(tokio::time::timeout(Duration::from_millis(300), run).await.is_err());
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert!(!dir.path().join("late").exists());
}
