//! `find_skills` in the loop: offered only when the listing does not show every skill, and what
//! it finds joins the listing and the `view_skill` enum from the next call (against loopback
//! OpenAI and Anthropic servers, and the offline router).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use crate::common;

use common::loopback::{Loopback, Reply, anthropic_text, anthropic_tools, openai_text, openai_tools};
use common::{Fixture, Recorder};
use serde_json::{Value, json};
use skilldeck_agent::message::Message;
use skilldeck_agent::provider::Provider;
use skilldeck_agent::provider::anthropic::AnthropicProvider;
use skilldeck_agent::provider::http::HttpPolicy;
use skilldeck_agent::provider::offline::OfflineProvider;
use skilldeck_agent::provider::openai::OpenAiProvider;
use skilldeck_agent::session::SessionOptions;
use skilldeck_agent::transcript::{self, Record, TurnEnd};
use skilldeck_select::find::WHEN_TO_SEARCH;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

const HIDDEN: &str = "parser-debugging";

/// A store whose listing, at a small budget, cannot show every skill.
fn store() -> Fixture {
    let fx = Fixture::new();
    for i in 0..30 {
        fx.skill(
            &format!("alpha-{i:02}"),
            &format!(
                "description: Prepare quarterly revenue report number {i} with charts and summaries for the board\n"
            ),
            "# Steps",
            &[],
        );
    }
    fx.skill(HIDDEN, "description: Debug recursive-descent parsers that report wrong line numbers\n", "# Parser", &[]);
    fx
}

fn opts() -> SessionOptions {
    let mut o = SessionOptions::default();
    o.listing.budget_tokens = 200;
    o
}

fn policy() -> HttpPolicy {
    HttpPolicy { max_retries: 0, ..HttpPolicy::default() }
}

#[derive(Clone, Copy, PartialEq)]
enum Wire {
    OpenAi,
    Anthropic,
}

/// The system prompt, tool names and `view_skill` enum of a request, whatever the wire format.
fn parts(wire: Wire, body: &Value) -> (String, Vec<String>, Vec<String>) {
    let (system, tools) = match wire {
        Wire::OpenAi => (body["messages"][0]["content"].as_str().unwrap().to_owned(), body["tools"].clone()),
        Wire::Anthropic => (body["system"].as_str().unwrap().to_owned(), body["tools"].clone()),
    };
    let tools = tools.as_array().unwrap().clone();
    let name = |t: &Value| match wire {
        Wire::OpenAi => t["function"]["name"].as_str().unwrap().to_owned(),
        Wire::Anthropic => t["name"].as_str().unwrap().to_owned(),
    };
    let schema = |t: &Value| match wire {
        Wire::OpenAi => t["function"]["parameters"].clone(),
        Wire::Anthropic => t["input_schema"].clone(),
    };
    let view = tools.iter().find(|t| name(t) == "view_skill").unwrap();
    let enum_: Vec<String> = schema(view)["properties"]["name"]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect();
    (system, tools.iter().map(name).collect(), enum_)
}

async fn found_skills_join_the_next_call(wire: Wire) {
    let fx = store();
    let server = Loopback::start().await;
    let calls = [
        vec![("c1", "find_skills", json!({"query": "parser wrong line numbers"}))],
        vec![("c2", "view_skill", json!({"name": HIDDEN}))],
    ];
    let provider: Arc<dyn Provider> = match wire {
        Wire::OpenAi => {
            for c in &calls {
                server.push(Reply::sse(openai_tools(c)));
            }
            server.push(Reply::sse(openai_text("Fixed.")));
            Arc::new(OpenAiProvider::new(format!("{}/v1", server.url), "m", Some("k".into()), policy()).unwrap())
        }
        Wire::Anthropic => {
            for c in &calls {
                server.push(Reply::sse(anthropic_tools(c)));
            }
            server.push(Reply::sse(anthropic_text("Fixed.")));
            Arc::new(AnthropicProvider::new(server.url.clone(), "m", Some("k".into()), policy()).unwrap())
        }
    };
    let mut session = fx.session(provider, opts());
    let host = Recorder::new(true);
    let end = session.run_turn("the compiler bug again", &host, &CancellationToken::new()).await.unwrap();
    assert_eq!(end, TurnEnd::Answered);
    assert_eq!(
        host.displays(),
        [
            format!("Searched skills for \"parser wrong line numbers\": {HIDDEN}"),
            format!("Skill activated: {HIDDEN} v:1")
        ]
    );
    let reqs = server.requests();
    assert_eq!(reqs.len(), 3);
    // First call: the skill is neither shown nor in the enum; search is offered and explained.
    let (system, tools, enum_) = parts(wire, &reqs[0].body);
    assert!(tools.contains(&"find_skills".to_owned()), "{tools:?}");
    assert!(system.contains(WHEN_TO_SEARCH) && system.contains("more skills are not listed here"), "{system}");
    assert!(!enum_.contains(&HIDDEN.to_owned()) && !system.contains(HIDDEN), "{system}");
    for n in &enum_ {
        assert!(system.contains(&format!("- **{n}**")), "{n} in the enum but not shown");
    }
    // Next call: what search found is listed and loadable.
    let (system, _, enum_) = parts(wire, &reqs[1].body);
    assert!(enum_.contains(&HIDDEN.to_owned()), "{enum_:?}");
    assert!(system.contains(&format!("- **{HIDDEN}** (v:1): Debug recursive-descent parsers")), "{system}");
    assert!(fx.workspace().join(".skills/parser-debugging/SKILL.md").is_file());
    // The next turn still lists it: found skills stay for the session.
    assert_eq!(session.found(), [HIDDEN]);
    // In every call, the enum holds only skills the listing shows (found ones are shown too).
    for r in &reqs {
        let (system, _, enum_) = parts(wire, &r.body);
        for n in &enum_ {
            assert!(system.contains(&format!("- **{n}**")), "{n} in the enum but not shown");
        }
    }

    // The transcript keeps what was found: a resumed session, with a new provider, still lists
    // it and lets the model load it, though this turn's request shares no word with it.
    let (id, path) = (session.id().to_owned(), session.transcript_path().to_owned());
    drop(session);
    let records = skilldeck_agent::transcript::read(&path).unwrap();
    assert_eq!(skilldeck_agent::transcript::found(&records), [HIDDEN]);
    let again = Loopback::start().await;
    let provider: Arc<dyn Provider> = match wire {
        Wire::OpenAi => {
            again.push(Reply::sse(openai_text("Hello again.")));
            Arc::new(OpenAiProvider::new(format!("{}/v1", again.url), "m", Some("k".into()), policy()).unwrap())
        }
        Wire::Anthropic => {
            again.push(Reply::sse(anthropic_text("Hello again.")));
            Arc::new(AnthropicProvider::new(again.url.clone(), "m", Some("k".into()), policy()).unwrap())
        }
    };
    let mut resumed =
        skilldeck_agent::session::Session::resume(&fx.home, &id, Arc::clone(&fx.registry), provider, opts()).unwrap();
    assert_eq!(resumed.found(), [HIDDEN]);
    let end =
        resumed.run_turn("quarterly revenue board", &Recorder::new(true), &CancellationToken::new()).await.unwrap();
    assert_eq!(end, TurnEnd::Answered);
    let (system, tools, enum_) = parts(wire, &again.requests()[0].body);
    assert!(enum_.contains(&HIDDEN.to_owned()), "{enum_:?}");
    assert!(system.contains(&format!("- **{HIDDEN}**")), "{system}");
    assert!(tools.contains(&"find_skills".to_owned()));
    for n in &enum_ {
        assert!(system.contains(&format!("- **{n}**")), "{n} in the enum but not shown");
    }
}

#[tokio::test]
async fn found_skills_join_the_next_openai_call() {
    found_skills_join_the_next_call(Wire::OpenAi).await;
}

#[tokio::test]
async fn found_skills_join_the_next_anthropic_call() {
    found_skills_join_the_next_call(Wire::Anthropic).await;
}

#[tokio::test]
async fn the_offline_router_searches_then_loads_what_it_found() {
    let fx = store();
    let mut session = fx.session(Arc::new(OfflineProvider), opts());
    let host = Recorder::new(true);
    session.run_turn("the compiler reports wrong line numbers", &host, &CancellationToken::new()).await.unwrap();
    assert_eq!(
        host.displays(),
        [
            format!("Searched skills for \"the compiler reports wrong line numbers\": {HIDDEN}"),
            format!("Skill activated: {HIDDEN} v:1")
        ]
    );
}

#[tokio::test]
async fn a_store_that_fits_offers_no_search() {
    let fx = store();
    let server = Loopback::start().await;
    server.push(Reply::sse(openai_text("Hi.")));
    let provider =
        Arc::new(OpenAiProvider::new(format!("{}/v1", server.url), "m", Some("k".into()), policy()).unwrap());
    let mut o = opts();
    o.listing.budget_tokens = 20_000;
    let mut session = fx.session(provider, o);
    session.run_turn("hello", &Recorder::new(true), &CancellationToken::new()).await.unwrap();
    let (system, tools, enum_) = parts(Wire::OpenAi, &server.requests()[0].body);
    assert!(!tools.contains(&"find_skills".to_owned()) && !system.contains(WHEN_TO_SEARCH));
    assert_eq!(enum_.len(), 31);
}

#[tokio::test]
async fn a_workspace_profile_narrows_the_listing_and_search() {
    let fx = store();
    fx.skill("tagged-helper", "description: Prepare quarterly revenue slides\ntags: [finance, slides]\n", "# T", &[]);
    std::fs::write(fx.workspace().join(".skilldeck.toml"), "skills = [\"parser-debugging\"]\ntags = [\"slides\"]\n")
        .unwrap();
    let script = common::Scripted::new(vec![
        common::call("c1", "find_skills", json!({"query": "quarterly revenue report"})),
        common::say("done"),
    ]);
    let mut session = fx.session(script.clone(), opts());
    session.run_turn("revenue report please", &Recorder::new(true), &CancellationToken::new()).await.unwrap();
    let reqs = script.requests();
    let system = &reqs[0].system;
    assert!(
        system.contains("- **parser-debugging** (v:1)") && system.contains("- **tagged-helper** (v:1)"),
        "{system}"
    );
    assert!(!system.contains("alpha-"), "{system}");
    let result = match reqs[1].messages.last().unwrap() {
        skilldeck_agent::message::Message::Tool { content, .. } => serde_json::from_str::<Value>(content).unwrap(),
        other => panic!("{other:?}"),
    };
    let names: Vec<&str> = result["matches"].as_array().unwrap().iter().map(|m| m["name"].as_str().unwrap()).collect();
    assert_eq!(names[0], "tagged-helper");
    assert!(
        names.iter().all(|n| ["tagged-helper", HIDDEN].contains(n)),
        "search sees only what the profile offers: {names:?}"
    );

    // A profile that offers nothing, or has a typo, is refused with what to do.
    std::fs::write(fx.workspace().join(".skilldeck.toml"), "skill = [\"pdf\"]\n").unwrap();
    let err = skilldeck_agent::session::Session::create(
        &fx.home,
        Arc::clone(&fx.registry),
        &fx.workspace(),
        Arc::new(OfflineProvider),
        opts(),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains(".skilldeck.toml is not a valid profile") && err.contains("delete it"), "{err}");
}

#[tokio::test]
async fn a_suggesting_session_names_the_closest_skill_beside_the_request_and_lets_it_be_loaded_at_once() {
    let fx = store();
    let server = Loopback::start().await;
    server.push(Reply::sse(openai_tools(&[("c1", "view_skill", json!({"name": HIDDEN}))])));
    server.push(Reply::sse(openai_text("Fixed.")));
    let provider =
        Arc::new(OpenAiProvider::new(format!("{}/v1", server.url), "m", Some("k".into()), policy()).unwrap());
    let mut session = fx.session(provider, SessionOptions { suggest: true, ..opts() });
    let request = "the parser reports wrong line numbers";
    let end = session.run_turn(request, &Recorder::new(true), &CancellationToken::new()).await.unwrap();
    assert_eq!(end, TurnEnd::Answered);
    let reqs = server.requests();
    // Every call of the turn carries the note after the user's words; the skill it names is
    // listed in full and in the enum.
    let note = format!("first call view_skill with {{\"name\": \"{HIDDEN}\"}}: it is the skill closest");
    for r in &reqs {
        let user = r.body["messages"][1]["content"].as_str().unwrap();
        assert!(user.starts_with(&format!("{request}\n\n")) && user.contains(&note), "{user}");
    }
    let (system, _, enum_) = parts(Wire::OpenAi, &reqs[0].body);
    assert!(!system.contains(&note), "{system}");
    assert!(enum_.contains(&HIDDEN.to_owned()), "{enum_:?}");
    assert!(system.contains(&format!("- **{HIDDEN}** (v:1): Debug recursive-descent parsers")), "{system}");
    assert!(fx.workspace().join(".skills/parser-debugging/SKILL.md").is_file());
    // The history and the transcript keep the user's words alone, and the transcript names the
    // suggestion.
    assert!(session.history().iter().any(|m| matches!(m, Message::User { content } if content == request)));
    let records = transcript::read(session.transcript_path()).unwrap();
    assert!(records.iter().any(
        |r| matches!(r, Record::TurnStarted { suggested, .. } if suggested.first().map(String::as_str) == Some(HIDDEN))
    ));
    // A follow-up whose closest skill was loaded already: its instructions are in the history,
    // so the turn names nothing.
    server.push(Reply::sse(openai_text("Still fixed.")));
    let follow_up = "the parser still reports wrong line numbers";
    session.run_turn(follow_up, &Recorder::new(true), &CancellationToken::new()).await.unwrap();
    let last = server.requests().last().unwrap().body["messages"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["content"], follow_up);

    // A session that does not suggest says nothing of the kind.
    let server = Loopback::start().await;
    server.push(Reply::sse(openai_text("Done.")));
    let provider =
        Arc::new(OpenAiProvider::new(format!("{}/v1", server.url), "m", Some("k".into()), policy()).unwrap());
    let mut plain = fx.session(provider, SessionOptions { suggest: false, ..opts() });
    plain.run_turn(request, &Recorder::new(true), &CancellationToken::new()).await.unwrap();
    assert_eq!(server.requests()[0].body["messages"][1]["content"], request);
}
