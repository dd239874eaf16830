//! The Anthropic Messages provider against a loopback server speaking real SSE events: what the
//! requests carry, re-uploads between turns, and faults.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use crate::common;

use common::loopback::{Loopback, Reply, anthropic_text, anthropic_tools, event};
use common::{Fixture, Recorder};
use serde_json::{Value, json};
use skilldeck_agent::message::Message;
use skilldeck_agent::provider::anthropic::AnthropicProvider;
use skilldeck_agent::provider::http::HttpPolicy;
use skilldeck_agent::session::{Session, SessionOptions, suggestion};
use skilldeck_agent::transcript::{self, TurnEnd};
use skilldeck_mount::view_skill::SELF_HEAL_RULE;
use skilldeck_select::catalogue::Catalogue;
use skilldeck_select::listing::ListingOptions;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

fn policy() -> HttpPolicy {
    HttpPolicy {
        max_retries: 1,
        base_delay: Duration::from_millis(20),
        max_delay: Duration::from_secs(5),
        idle_timeout: Duration::from_millis(500),
    }
}

async fn setup() -> (Fixture, Loopback, Session) {
    let fx = Fixture::new();
    fx.skill(
        "pdf",
        "description: Extract text and tables from PDF files\n",
        "# PDF v1",
        &[("references/guide.md", "guide v1")],
    );
    fx.skill("docx", "description: Create and edit Word documents\n", "# DOCX", &[]);
    let server = Loopback::start().await;
    let provider = AnthropicProvider::new(server.url.clone(), "claude-test", Some("ak-test".into()), policy()).unwrap();
    let session = fx.session(Arc::new(provider), SessionOptions::default());
    (fx, server, session)
}

fn assert_whole(session: &Session) {
    let records = transcript::read(session.transcript_path()).unwrap();
    assert_eq!(transcript::history(&records), session.history());
}

async fn turn(session: &mut Session, prompt: &str) -> (TurnEnd, Recorder) {
    let host = Recorder::new(true);
    let end = session.run_turn(prompt, &host, &CancellationToken::new()).await.unwrap();
    (end, host)
}

#[tokio::test]
async fn requests_carry_the_listing_the_spec_and_the_exact_tool_results() {
    let (fx, server, mut session) = setup().await;
    server.push(Reply::sse(anthropic_tools(&[
        ("toolu_1", "view_skill", json!({"name": "pdf"})),
        ("toolu_2", "view_skill", json!({"name": "pdf", "path": "references/guide.md"})),
    ])));
    server.push(Reply::sse(anthropic_text("Done with the guide.")));
    let (end, host) = turn(&mut session, "pdf tables").await;
    assert_eq!(end, TurnEnd::Answered);
    assert_eq!(host.text(), "Loading.Done with the guide.");
    assert_eq!(host.displays(), ["Skill activated: pdf v:1", "Skill activated: pdf v:1 (references/guide.md)"]);

    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    for r in &reqs {
        assert_eq!((r.method.as_str(), r.path.as_str()), ("POST", "/v1/messages"));
        assert_eq!((r.header("x-api-key"), r.header("anthropic-version")), (Some("ak-test"), Some("2023-06-01")));
        assert_eq!((r.body["model"].as_str(), r.body["stream"].as_bool()), (Some("claude-test"), Some(true)));
    }
    let listing = fx.registry.listing(&ListingOptions::default()).unwrap();
    let system = reqs[0].body["system"].as_str().unwrap();
    assert!(system.contains(&listing.text) && system.ends_with(SELF_HEAL_RULE), "{system}");
    let tools = reqs[0].body["tools"].as_array().unwrap();
    assert_eq!(tools[0]["name"], "view_skill");
    assert_eq!(tools[0]["input_schema"]["properties"]["name"]["enum"], json!(["docx", "pdf"]));

    let msgs = reqs[1].body["messages"].as_array().unwrap();
    assert_eq!(msgs.len(), 3);
    // The request, with the note naming the closest skill (`[listing] suggest`, on by default).
    let text = format!("pdf tables\n\n{}", suggestion(&["pdf".to_owned()]));
    assert_eq!(msgs[0], json!({"role": "user", "content": [{"type": "text", "text": text}]}));
    assert_eq!(
        msgs[1],
        json!({"role": "assistant", "content": [
            {"type": "text", "text": "Loading."},
            {"type": "tool_use", "id": "toolu_1", "name": "view_skill", "input": {"name": "pdf"}},
            {"type": "tool_use", "id": "toolu_2", "name": "view_skill", "input": {"name": "pdf", "path": "references/guide.md"}},
        ]})
    );
    // Both results in one user message, each exactly the JSON of docs/contracts.md ("view_skill").
    let blocks = msgs[2]["content"].as_array().unwrap();
    assert_eq!(msgs[2]["role"], "user");
    let results: Vec<(String, Value)> = blocks
        .iter()
        .map(|b| {
            assert_eq!(b["type"], "tool_result");
            (
                b["tool_use_id"].as_str().unwrap().to_owned(),
                serde_json::from_str(b["content"].as_str().unwrap()).unwrap(),
            )
        })
        .collect();
    assert_eq!(
        results,
        vec![
            ("toolu_1".to_owned(), json!({"skillName": "pdf", "path": null, "version": "1", "content": "# PDF v1\n"})),
            (
                "toolu_2".to_owned(),
                json!({"skillName": "pdf", "path": "references/guide.md", "version": "1", "content": "guide v1"})
            ),
        ]
    );
    assert_whole(&session);
}

#[tokio::test]
async fn a_skill_reuploaded_between_turns_is_listed_anew_and_reloads_with_new_content() {
    let (fx, server, mut session) = setup().await;
    server.push(Reply::sse(anthropic_tools(&[("toolu_1", "view_skill", json!({"name": "pdf"}))])));
    server.push(Reply::sse(anthropic_text("v1 loaded")));
    turn(&mut session, "pdf").await;
    fx.skill("pdf", "description: Extract text and tables from PDF files\n", "# PDF v2", &[]);
    server.push(Reply::sse(anthropic_tools(&[("toolu_2", "view_skill", json!({"name": "pdf"}))])));
    server.push(Reply::sse(anthropic_text("v2 loaded")));
    assert_eq!(turn(&mut session, "pdf again").await.0, TurnEnd::Answered);
    let reqs = server.requests();
    assert!(reqs[0].body["system"].as_str().unwrap().contains("- **pdf** (v:1):"));
    assert!(reqs[2].body["system"].as_str().unwrap().contains("- **pdf** (v:2):"));
    let last = reqs[3].body["messages"].as_array().unwrap().last().unwrap()["content"].as_array().unwrap().clone();
    let result: Value = serde_json::from_str(last.last().unwrap()["content"].as_str().unwrap()).unwrap();
    assert_eq!(result, json!({"skillName": "pdf", "path": null, "version": "2", "content": "# PDF v2\n"}));
    assert_whole(&session);
}

#[tokio::test]
async fn faults_end_the_turn_cleanly_and_the_session_goes_on() {
    let (_fx, server, mut session) = setup().await;
    // 429 then success.
    server.push(Reply::Status { code: 429, headers: vec![("retry-after-ms".into(), "50".into())], body: "{}".into() });
    server.push(Reply::sse(anthropic_text("after 429")));
    assert_eq!(turn(&mut session, "a").await.1.text(), "after 429");
    // Repeated 529 (overloaded).
    for _ in 0..2 {
        server.push(Reply::Status { code: 529, headers: vec![], body: "overloaded".into() });
    }
    assert_eq!(
        turn(&mut session, "b").await.0,
        TurnEnd::Failed { message: "the model server answered 529 after 2 attempt(s): overloaded".into() }
    );
    // An error event mid-stream.
    let mut events = anthropic_text("half an answer");
    events.truncate(4);
    events.push(event(
        "error",
        &json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
    ));
    server.push(Reply::sse(events));
    let (end, host) = turn(&mut session, "c").await;
    assert_eq!(
        end,
        TurnEnd::Failed {
            message: "the model's stream was malformed: the server reported an error mid-stream: {\"message\":\"Overloaded\",\"type\":\"overloaded_error\"}".into()
        }
    );
    assert_eq!(host.text(), "half ");
    // Malformed JSON.
    server.push(Reply::sse(vec!["event: message_start\ndata: {nope\n\n".into()]));
    assert!(matches!(turn(&mut session, "d").await.0, TurnEnd::Failed { message } if message.contains("not JSON")));
    // A stall.
    let mut events = anthropic_text("stalling answer");
    events.truncate(3);
    server.push(Reply::Sse { events, stall: true });
    let started = Instant::now();
    assert_eq!(
        turn(&mut session, "e").await.0,
        TurnEnd::Failed { message: "the model's stream was idle for 0.5 s; giving up on this reply".into() }
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    // Cancellation mid-stream.
    let mut events = anthropic_text("cancel me");
    events.truncate(4);
    server.push(Reply::Sse { events, stall: true });
    let cancel = CancellationToken::new();
    let c = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        c.cancel();
    });
    assert_eq!(session.run_turn("f", &Recorder::new(true), &cancel).await.unwrap(), TurnEnd::Cancelled);
    assert_whole(&session);
    server.push(Reply::sse(anthropic_text("all good")));
    assert_eq!(turn(&mut session, "g").await.1.text(), "all good");
    assert_whole(&session);
    // Roles still alternate in the request after all that.
    let msgs = server.requests().last().unwrap().body["messages"].as_array().unwrap().clone();
    for pair in msgs.windows(2) {
        assert_ne!(pair[0]["role"], pair[1]["role"]);
    }
    assert_eq!(session.history().iter().filter(|m| matches!(m, Message::User { .. })).count(), 7);
}
