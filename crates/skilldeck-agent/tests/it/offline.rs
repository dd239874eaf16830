//! The offline router: listing parsing, matching, references, and whole turns through the loop.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use crate::common;

use common::{Fixture, Recorder};
use serde_json::json;
use skilldeck_agent::describe::ToolOutcome;
use skilldeck_agent::events::AgentEvent;
use skilldeck_agent::message::{Message, ToolCall};
use skilldeck_agent::provider::Provider as _;
use skilldeck_agent::provider::offline::{self, ListedLine, OfflineProvider};
use skilldeck_agent::replay::{ReplayItem, replay};
use skilldeck_agent::session::SessionOptions;
use skilldeck_agent::transcript::{self, Record, TurnEnd};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

fn line(name: &str, version: Option<&str>, description: &str) -> ListedLine {
    ListedLine { name: name.into(), version: version.map(Into::into), description: description.into() }
}

#[test]
fn parses_the_listing_in_a_system_prompt() {
    let system = "Preamble.\n\n### Skills: `view_skill`\n\nAvailable Skills:\n- **market-research** (v:6): Systematic market analysis\n- **pdf**: Extract text and tables from PDF files\n\nIf a skill…";
    assert_eq!(
        offline::parse_listing(system),
        vec![
            line("market-research", Some("6"), "Systematic market analysis"),
            line("pdf", None, "Extract text and tables from PDF files"),
        ]
    );
    assert_eq!(offline::parse_listing("no listing here"), vec![]);
}

#[test]
fn picks_the_best_matching_skill() {
    let listed = vec![
        line("docx", None, "Create and edit Word documents"),
        line("market-research", Some("6"), "Systematic market analysis with competitive intelligence"),
        line("pdf", Some("3"), "Extract text and tables from PDF files"),
    ];
    let check = |request: &str, expected: Option<&str>| {
        assert_eq!(offline::best_match(request, &listed).map(|s| s.name.as_str()), expected, "{request}");
    };
    check("Extract the tables from this PDF", Some("pdf"));
    check("pull tables out of invoices", Some("pdf"));
    check("Do a market analysis of e-bikes", Some("market-research"));
    check("use market-research on coffee", Some("market-research"));
    check("edit my Word documents", Some("docx"));
    check("what's the weather", None);
}

#[test]
fn finds_the_reference_a_request_names() {
    let instructions = "Read references/guide.md first. Helpers are in scripts/extract.py.";
    let check = |request: &str, expected: Option<&str>| {
        assert_eq!(offline::requested_reference(request, instructions).as_deref(), expected, "{request}");
    };
    check("use references/guide.md", Some("references/guide.md"));
    check("what does guide.md say?", Some("references/guide.md"));
    check("run extract.py on it", Some("scripts/extract.py"));
    check("see `.skills/pdf/references/forms.md`", Some("references/forms.md"));
    check("summarize report.pdf", None);
    check("no file at all", None);
}

#[tokio::test]
async fn is_labelled_offline() {
    let info = OfflineProvider.info();
    assert_eq!(
        (info.kind.as_str(), info.model.as_str(), info.label.as_str()),
        ("offline", "offline-router", "offline (no language model)")
    );
}

#[tokio::test]
async fn a_turn_loads_the_skill_then_the_named_reference_and_answers() {
    let fx = Fixture::new();
    fx.skill(
        "pdf",
        "description: Extract text and tables from PDF files\n",
        "# PDF\nSee references/guide.md for tables.",
        &[("references/guide.md", "Use pdfplumber for tables."), ("scripts/run.sh", "#!/bin/sh\necho hi\n")],
    );
    fx.skill("docx", "description: Create and edit Word documents\n", "# DOCX", &[]);
    let mut session = fx.session(Arc::new(OfflineProvider), SessionOptions::default());
    let host = Recorder::new(false);
    let prompt = "Extract the tables from a PDF; what does guide.md say?";
    let end = session.run_turn(prompt, &host, &CancellationToken::new()).await.unwrap();
    assert_eq!(end, TurnEnd::Answered);

    let view1 = json!({"skillName": "pdf", "path": null, "version": "1", "content": "# PDF\nSee references/guide.md for tables.\n"});
    let view2 = json!({"skillName": "pdf", "path": "references/guide.md", "version": "1", "content": "Use pdfplumber for tables."});
    let answer = "[offline router: no language model]\nLoaded the skill **pdf** (v:1); its files are in the workspace at .skills/pdf/.\n\n# PDF\nSee references/guide.md for tables.\n\n--- references/guide.md ---\nUse pdfplumber for tables.\n";
    let expected = vec![
        Message::user(prompt),
        Message::Assistant {
            content: String::new(),
            tool_calls: vec![ToolCall {
                id: "offline_1".into(),
                name: "view_skill".into(),
                arguments: json!({"name": "pdf"}),
            }],
        },
        Message::Tool { call_id: "offline_1".into(), name: "view_skill".into(), content: view1.to_string() },
        Message::Assistant {
            content: String::new(),
            tool_calls: vec![ToolCall {
                id: "offline_2".into(),
                name: "view_skill".into(),
                arguments: json!({"name": "pdf", "path": "references/guide.md"}),
            }],
        },
        Message::Tool { call_id: "offline_2".into(), name: "view_skill".into(), content: view2.to_string() },
        Message::Assistant { content: answer.into(), tool_calls: vec![] },
    ];
    assert_eq!(session.history(), expected.as_slice());
    assert_eq!(host.displays(), vec!["Skill activated: pdf v:1", "Skill activated: pdf v:1 (references/guide.md)"]);
    assert_eq!(host.text(), answer);

    // The whole skill is mounted, and the transcript holds every message in order.
    let ws = fx.workspace();
    assert_eq!(
        std::fs::read_to_string(ws.join(".skills/pdf/references/guide.md")).unwrap(),
        "Use pdfplumber for tables."
    );
    assert!(ws.join(".skills/pdf/scripts/run.sh").is_file());
    assert!(!ws.join(".skills/pdf/.version").exists());
    let records = transcript::read(session.transcript_path()).unwrap();
    assert_eq!(transcript::history(&records), expected);
    let kinds: Vec<&str> = records
        .iter()
        .map(|r| match r {
            Record::Session { .. } => "session",
            Record::Resumed { .. } => "resumed",
            Record::TurnStarted { .. } => "turn_started",
            Record::Message { .. } => "message",
            Record::TurnEnded { .. } => "turn_ended",
            Record::Found { .. } => "found",
        })
        .collect();
    assert_eq!(
        kinds,
        ["session", "turn_started", "message", "message", "message", "message", "message", "message", "turn_ended"]
    );
    assert!(matches!(&records[1], Record::TurnStarted { listing: Some(l), .. } if l.len() == 2));
}

#[tokio::test]
async fn a_reopened_session_replays_what_the_user_saw_live() {
    let fx = Fixture::new();
    fx.skill(
        "pdf",
        "description: Extract text from PDF files
",
        "# PDF
See references/guide.md.",
        &[],
    );
    let mut session = fx.session(Arc::new(OfflineProvider), SessionOptions::default());
    let host = Recorder::new(false);
    let prompt = "Extract text from this PDF";
    session.run_turn(prompt, &host, &CancellationToken::new()).await.unwrap();
    let shown = |event: &AgentEvent| match event {
        AgentEvent::ToolFinished { outcome, .. } => Some(outcome.clone()),
        _ => None,
    };
    let live: Vec<ToolOutcome> = host.take().iter().filter_map(shown).collect();
    let items = replay(&transcript::read(session.transcript_path()).unwrap());
    let replayed: Vec<ToolOutcome> = items
        .iter()
        .filter_map(|i| match i {
            ReplayItem::Tool { outcome, .. } => Some(outcome.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(replayed, live, "the same chips live and replayed");
    let chip = ToolOutcome {
        ok: true,
        display: "Skill activated: pdf v:1".into(),
        client_view: json!({"skillName": "pdf", "path": null, "content": "Skill activated."}),
        version: Some("1".into()),
    };
    assert_eq!(live, vec![chip.clone()], "the client view, never the skill's text");
    let answer = match &items[2] {
        ReplayItem::Assistant { text } => text.clone(),
        other => panic!("expected the answer, got {other:?}"),
    };
    assert!(answer.starts_with("[offline router: no language model]"), "{answer}");
    assert_eq!(
        items,
        vec![
            ReplayItem::User { text: prompt.into() },
            ReplayItem::Tool {
                call_id: "offline_1".into(),
                name: "view_skill".into(),
                arguments: json!({"name": "pdf"}),
                outcome: chip,
            },
            ReplayItem::Assistant { text: answer },
            ReplayItem::TurnEnded { end: TurnEnd::Answered },
        ]
    );
}

#[tokio::test]
async fn no_match_and_no_skills_are_answered_plainly() {
    let fx = Fixture::new();
    let host = Recorder::new(false);
    let mut session = fx.session(Arc::new(OfflineProvider), SessionOptions::default());
    session.run_turn("hello", &host, &CancellationToken::new()).await.unwrap();
    assert_eq!(
        host.text(),
        "[offline router: no language model] No skills are listed in this session, so there is nothing to load."
    );
    fx.skill("pdf", "description: Extract text from PDF files\n", "# PDF", &[]);
    let host = Recorder::new(false);
    session.run_turn("what's the weather", &host, &CancellationToken::new()).await.unwrap();
    assert_eq!(
        host.text(),
        "[offline router: no language model] No listed skill matches your request. Name one of these to load it: pdf."
    );
}
