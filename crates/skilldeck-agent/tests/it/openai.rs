//! The Chat Completions provider against a loopback server speaking real SSE chunks: what the
//! requests carry, re-uploads between turns, and faults (429, 500s, malformed, stalls, cancels).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use crate::common;

use common::loopback::{Loopback, Reply, data, openai_text, openai_tools};
use common::{Fixture, Recorder};
use serde_json::{Value, json};
use skilldeck_agent::message::Message;
use skilldeck_agent::provider::http::HttpPolicy;
use skilldeck_agent::provider::openai::OpenAiProvider;
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
        max_retries: 2,
        base_delay: Duration::from_millis(20),
        max_delay: Duration::from_secs(5),
        idle_timeout: Duration::from_millis(500),
    }
}

async fn setup() -> (Fixture, Loopback, Session) {
    setup_with(policy()).await
}

async fn setup_with(policy: HttpPolicy) -> (Fixture, Loopback, Session) {
    let fx = Fixture::new();
    fx.skill("pdf", "description: Extract text and tables from PDF files\n", "# PDF v1\nUse pdfplumber.", &[]);
    fx.skill("docx", "description: Create and edit Word documents\n", "# DOCX", &[]);
    let server = Loopback::start().await;
    let provider =
        OpenAiProvider::new(format!("{}/v1", server.url), "test-model", Some("test-key".into()), policy).unwrap();
    let session = fx.session(Arc::new(provider), SessionOptions::default());
    (fx, server, session)
}

/// The transcript read back equals the session's history, and every tool call has its result.
fn assert_whole(session: &Session) {
    let records = transcript::read(session.transcript_path()).unwrap();
    let history = transcript::history(&records);
    assert_eq!(history, session.history());
    let mut open: Vec<String> = Vec::new();
    for m in &history {
        match m {
            Message::Assistant { tool_calls, .. } => {
                assert!(open.is_empty(), "unanswered calls {open:?}");
                open = tool_calls.iter().map(|c| c.id.clone()).collect();
            }
            Message::Tool { call_id, .. } => open.retain(|id| id != call_id),
            Message::User { .. } => assert!(open.is_empty(), "unanswered calls {open:?}"),
        }
    }
    assert!(open.is_empty(), "unanswered calls {open:?}");
}

async fn turn(session: &mut Session, prompt: &str) -> (TurnEnd, Recorder) {
    let host = Recorder::new(true);
    let end = session.run_turn(prompt, &host, &CancellationToken::new()).await.unwrap();
    (end, host)
}

#[tokio::test]
async fn requests_carry_the_listing_the_spec_and_the_exact_tool_result() {
    let (fx, server, mut session) = setup().await;
    server.push(Reply::sse(openai_tools(&[("call_1", "view_skill", json!({"name": "pdf"}))])));
    server.push(Reply::sse(openai_text("The PDF skill says: use pdfplumber.")));
    let (end, host) = turn(&mut session, "extract tables from report.pdf").await;
    assert_eq!(end, TurnEnd::Answered);
    assert_eq!(host.text(), "The PDF skill says: use pdfplumber.");
    assert_eq!(host.displays(), ["Skill activated: pdf v:1"]);

    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    for r in &reqs {
        assert_eq!((r.method.as_str(), r.path.as_str()), ("POST", "/v1/chat/completions"));
        assert_eq!(r.header("authorization"), Some("Bearer test-key"));
        assert_eq!((r.body["model"].as_str(), r.body["stream"].as_bool()), (Some("test-model"), Some(true)));
    }
    // The system prompt carries the listing, exactly as the registry builds it, and the rule.
    let listing = fx.registry.listing(&ListingOptions::default()).unwrap();
    let system = reqs[0].body["messages"][0].clone();
    assert_eq!(system["role"], "system");
    let system = system["content"].as_str().unwrap();
    assert!(system.contains(&listing.text), "{system}");
    assert!(listing.text.contains("- **pdf** (v:1): Extract text and tables from PDF files"));
    assert!(system.ends_with(SELF_HEAL_RULE));
    // The view_skill spec's enum follows the listing.
    let tools = reqs[0].body["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["function"]["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["view_skill", "read_file", "write_file", "list_dir", "shell"]);
    assert_eq!(tools[0]["function"]["parameters"]["properties"]["name"]["enum"], json!(["docx", "pdf"]));
    // The second request replays the call and sends back the result JSON of docs/contracts.md ("view_skill").
    let msgs = reqs[1].body["messages"].as_array().unwrap();
    assert_eq!(msgs.len(), 4);
    // The request, with the note naming the closest skill (`[listing] suggest`, on by default).
    let note = suggestion(&["pdf".to_owned()]);
    assert_eq!(msgs[1], json!({"role": "user", "content": format!("extract tables from report.pdf\n\n{note}")}));
    assert_eq!(
        msgs[2],
        json!({"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function",
            "function": {"name": "view_skill", "arguments": "{\"name\":\"pdf\"}"}}]})
    );
    assert_eq!((msgs[3]["role"].as_str(), msgs[3]["tool_call_id"].as_str()), (Some("tool"), Some("call_1")));
    let result: Value = serde_json::from_str(msgs[3]["content"].as_str().unwrap()).unwrap();
    assert_eq!(
        result,
        json!({"skillName": "pdf", "path": null, "version": "1", "content": "# PDF v1\nUse pdfplumber.\n"})
    );
    assert!(fx.workspace().join(".skills/pdf/SKILL.md").is_file());
    assert_whole(&session);
}

#[tokio::test]
async fn a_skill_reuploaded_between_turns_is_listed_anew_and_reloads_with_new_content() {
    let (fx, server, mut session) = setup().await;
    server.push(Reply::sse(openai_tools(&[("call_1", "view_skill", json!({"name": "pdf"}))])));
    server.push(Reply::sse(openai_text("Loaded v1.")));
    assert_eq!(turn(&mut session, "pdf please").await.0, TurnEnd::Answered);

    fx.skill("pdf", "description: Extract text and tables from PDF files\n", "# PDF v2\nUse pypdf now.", &[]);
    server.push(Reply::sse(openai_tools(&[("call_2", "view_skill", json!({"name": "pdf"}))])));
    server.push(Reply::sse(openai_text("Reloaded v2.")));
    let (end, host) = turn(&mut session, "pdf again").await;
    assert_eq!(end, TurnEnd::Answered);
    assert_eq!(host.displays(), ["Skill activated: pdf v:2"]);

    let reqs = server.requests();
    let system = |i: usize| reqs[i].body["messages"][0]["content"].as_str().unwrap().to_owned();
    assert!(system(0).contains("- **pdf** (v:1):"));
    assert!(system(2).contains("- **pdf** (v:2):"), "{}", system(2));
    let last = reqs[3].body["messages"].as_array().unwrap().last().unwrap().clone();
    let result: Value = serde_json::from_str(last["content"].as_str().unwrap()).unwrap();
    assert_eq!(
        result,
        json!({"skillName": "pdf", "path": null, "version": "2", "content": "# PDF v2\nUse pypdf now.\n"})
    );
    assert_eq!(
        std::fs::read_to_string(fx.workspace().join(".skills/pdf/SKILL.md")).unwrap(),
        "---\nname: pdf\ndescription: Extract text and tables from PDF files\n---\n# PDF v2\nUse pypdf now.\n"
    );
    assert_whole(&session);
}

#[tokio::test]
async fn a_429_is_retried_after_retry_after() {
    let (_fx, server, mut session) = setup().await;
    server.push(Reply::Status {
        code: 429,
        headers: vec![("Retry-After".into(), "1".into())],
        body: r#"{"error":{"message":"slow down"}}"#.into(),
    });
    server.push(Reply::sse(openai_text("fine")));
    let started = Instant::now();
    let (end, host) = turn(&mut session, "hi").await;
    assert_eq!((end, host.text().as_str()), (TurnEnd::Answered, "fine"));
    assert!(started.elapsed() >= Duration::from_millis(950), "{:?}", started.elapsed());
    assert_eq!(server.requests().len(), 2);
    assert_whole(&session);
}

#[tokio::test]
async fn repeated_500s_end_the_turn_with_a_clear_error_and_the_session_goes_on() {
    let (_fx, server, mut session) = setup().await;
    for _ in 0..3 {
        server.push(Reply::Status { code: 500, headers: vec![], body: "upstream exploded".into() });
    }
    let (end, _) = turn(&mut session, "hi").await;
    assert_eq!(
        end,
        TurnEnd::Failed { message: "the model server answered 500 after 3 attempt(s): upstream exploded".into() }
    );
    assert_eq!(server.requests().len(), 3);
    assert_whole(&session);
    server.push(Reply::sse(openai_text("back")));
    assert_eq!(turn(&mut session, "again").await.0, TurnEnd::Answered);
    assert_whole(&session);
    // The failed turn's prompt stays in the history; the next request carries both.
    let msgs = server.requests()[3].body["messages"].as_array().unwrap().len();
    assert_eq!(msgs, 3);
}

#[tokio::test]
async fn a_malformed_stream_fails_the_turn_and_the_session_goes_on() {
    let (_fx, server, mut session) = setup().await;
    let mut events = openai_text("partial answer");
    events.truncate(2);
    events.push("data: {\"choices\": [oops\n\n".into());
    server.push(Reply::sse(events));
    let (end, host) = turn(&mut session, "hi").await;
    let TurnEnd::Failed { message } = &end else { panic!("{end:?}") };
    assert!(message.starts_with("the model's stream was malformed: a chunk is not JSON"), "{message}");
    assert_eq!(host.text(), "partial ");
    assert_eq!(session.history().last(), Some(&Message::Assistant { content: "partial ".into(), tool_calls: vec![] }));
    assert_whole(&session);
    // A stream that just stops, without a finish or [DONE], is an error too.
    let mut events = openai_text("cut short");
    events.truncate(2);
    server.push(Reply::sse(events));
    let (end, _) = turn(&mut session, "again").await;
    assert_eq!(end, TurnEnd::Failed { message: "the model's stream ended before the reply was complete".into() });
    server.push(Reply::sse(openai_text("ok")));
    assert_eq!(turn(&mut session, "once more").await.0, TurnEnd::Answered);
    assert_whole(&session);
}

#[tokio::test]
async fn a_stalled_stream_hits_the_idle_timeout() {
    let (_fx, server, mut session) = setup().await;
    let mut events = openai_text("slow answer");
    events.truncate(2);
    server.push(Reply::Sse { events, stall: true });
    let started = Instant::now();
    let (end, _) = turn(&mut session, "hi").await;
    assert_eq!(
        end,
        TurnEnd::Failed { message: "the model's stream was idle for 0.5 s; giving up on this reply".into() }
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_whole(&session);
    server.push(Reply::sse(openai_text("ok")));
    assert_eq!(turn(&mut session, "again").await.0, TurnEnd::Answered);
    assert_whole(&session);
}

#[tokio::test]
async fn cancelling_mid_stream_stops_at_once_and_the_session_goes_on() {
    // A long idle timeout, so only the cancellation can end this stream early.
    let (_fx, server, mut session) = setup_with(HttpPolicy { idle_timeout: Duration::from_secs(60), ..policy() }).await;
    let mut events = openai_text("never finished");
    events.truncate(2);
    server.push(Reply::Sse { events, stall: true });
    let cancel = CancellationToken::new();
    let c = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        c.cancel();
    });
    let host = Recorder::new(true);
    let started = Instant::now();
    assert_eq!(session.run_turn("hi", &host, &cancel).await.unwrap(), TurnEnd::Cancelled);
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(host.text(), "never ");
    assert_whole(&session);
    server.push(Reply::sse(openai_text("ok")));
    assert_eq!(turn(&mut session, "again").await.0, TurnEnd::Answered);
    assert_whole(&session);
}

#[tokio::test]
async fn cancelling_mid_tool_stops_the_command_and_the_session_goes_on() {
    let (fx, server, mut session) = setup().await;
    server.push(Reply::sse(openai_tools(&[("call_1", "shell", json!({"command": "sleep 30; touch late"}))])));
    let cancel = CancellationToken::new();
    let c = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(400)).await;
        c.cancel();
    });
    let host = Recorder::new(true);
    let started = Instant::now();
    assert_eq!(session.run_turn("run it", &host, &cancel).await.unwrap(), TurnEnd::Cancelled);
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_whole(&session);
    server.push(Reply::sse(openai_text("ok")));
    assert_eq!(turn(&mut session, "again").await.0, TurnEnd::Answered);
    let msgs = server.requests()[1].body["messages"].clone();
    let tool = msgs.as_array().unwrap().iter().find(|m| m["role"] == "tool").unwrap().clone();
    assert_eq!(
        serde_json::from_str::<Value>(tool["content"].as_str().unwrap()).unwrap(),
        json!({"error": {"code": "cancelled", "message": "the user stopped the command"}})
    );
    assert!(!fx.workspace().join("late").exists());
    assert_whole(&session);
}

#[tokio::test]
async fn parallel_tool_calls_and_bad_arguments_come_back_as_data() {
    let (_fx, server, mut session) = setup().await;
    let mut events = openai_tools(&[
        ("call_a", "view_skill", json!({"name": "docx"})),
        ("call_b", "view_skill", json!({"name": "pfd"})),
    ]);
    // A third call whose arguments never become valid JSON.
    let bad = data(
        &json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 2, "id": "call_c", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": "}}]}, "finish_reason": null}]}),
    );
    events.insert(events.len() - 2, bad);
    server.push(Reply::sse(events));
    server.push(Reply::sse(openai_text("done")));
    assert_eq!(turn(&mut session, "docs").await.0, TurnEnd::Answered);
    let msgs = server.requests()[1].body["messages"].as_array().unwrap().clone();
    let results: Vec<Value> =
        msgs[3..].iter().map(|m| serde_json::from_str(m["content"].as_str().unwrap()).unwrap()).collect();
    assert_eq!(results[0]["skillName"], "docx");
    assert_eq!(
        results[1],
        json!({"skillName": "pfd", "path": null, "error": {"code": "skill_not_found", "message": "No listed skill is named \"pfd\". Did you mean pdf?"}})
    );
    assert_eq!(results[2]["error"]["code"], "invalid_arguments");
    assert_eq!(msgs[2]["tool_calls"][2]["function"]["arguments"], "{\"path\":");
    assert_whole(&session);
}

#[tokio::test]
async fn interleaved_argument_fragments_are_gathered_by_index() {
    let (_fx, server, mut session) = setup().await;
    let chunk = |tool_calls: Value, finish: Value| {
        data(&json!({"choices": [{"index": 0, "delta": {"tool_calls": tool_calls}, "finish_reason": finish}]}))
    };
    let events = vec![
        chunk(
            json!([{"index": 0, "id": "call_x", "type": "function", "function": {"name": "view_skill", "arguments": "{\"na"}}]),
            Value::Null,
        ),
        chunk(
            json!([{"index": 1, "id": "call_y", "type": "function", "function": {"name": "list_dir", "arguments": "{"}}]),
            Value::Null,
        ),
        chunk(json!([{"index": 0, "function": {"arguments": "me\": \"d"}}]), Value::Null),
        chunk(json!([{"index": 1, "function": {"arguments": "}"}}]), Value::Null),
        chunk(json!([{"index": 0, "function": {"arguments": "ocx\"}"}}]), Value::Null),
        data(&json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})),
        "data: [DONE]\n\n".to_owned(),
    ];
    server.push(Reply::sse(events));
    server.push(Reply::sse(openai_text("ok")));
    let (_, host) = turn(&mut session, "docs").await;
    assert_eq!(host.displays(), ["Skill activated: docx v:1", "Listed . (1 entries)"]);
    let Message::Assistant { tool_calls, .. } = &session.history()[1] else { panic!() };
    let got: Vec<(&str, &str, &Value)> =
        tool_calls.iter().map(|c| (c.id.as_str(), c.name.as_str(), &c.arguments)).collect();
    assert_eq!(got, [("call_x", "view_skill", &json!({"name": "docx"})), ("call_y", "list_dir", &json!({}))]);
}

#[test]
fn backoff_grows_with_jitter_and_honours_retry_after() {
    let p = HttpPolicy {
        max_retries: 5,
        base_delay: Duration::from_millis(100),
        max_delay: Duration::from_secs(2),
        idle_timeout: Duration::from_secs(1),
    };
    for retry in 0..6u32 {
        let full = Duration::from_millis(100 * 2u64.pow(retry)).min(Duration::from_secs(2));
        for _ in 0..50 {
            let d = p.delay(retry, None);
            assert!(d >= full / 2 && d <= full, "retry {retry}: {d:?}");
        }
    }
    assert_eq!(p.delay(0, Some(Duration::from_millis(1500))), Duration::from_millis(1500));
    assert_eq!(p.delay(0, Some(Duration::from_secs(600))), Duration::from_secs(2));
}

#[test]
fn retry_after_takes_seconds_or_an_http_date() {
    use skilldeck_agent::provider::http::parse_retry_after;
    let now = time::macros::datetime!(2015-10-21 07:28:00 UTC);
    let check = |v: &str, expected: Option<Duration>| assert_eq!(parse_retry_after(v, now), expected, "{v}");
    check("3", Some(Duration::from_secs(3)));
    check(" 0.5 ", Some(Duration::from_millis(500)));
    check("-4", Some(Duration::ZERO));
    check("Wed, 21 Oct 2015 07:28:30 GMT", Some(Duration::from_secs(30)));
    check("Wed, 21 Oct 2015 07:27:00 GMT", Some(Duration::ZERO));
    check("soon", None);
}
