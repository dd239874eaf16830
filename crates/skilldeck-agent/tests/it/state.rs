//! Settings, transcripts (resume, torn lines, interrupted calls) and compaction.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use crate::common;

use common::{Fixture, Recorder, Scripted, call, say};
use serde_json::json;
use skilldeck_agent::compaction;
use skilldeck_agent::config::{Api, Config, ConfigError, ProviderConfig};
use skilldeck_agent::config_edit;
use skilldeck_agent::events::AgentEvent;
use skilldeck_agent::message::{Message, ToolCall};
use skilldeck_agent::provider::offline::OfflineProvider;
use skilldeck_agent::session::{AgentError, Session, SessionOptions};
use skilldeck_agent::tools::ToolKind;
use skilldeck_agent::transcript::{self, Record, TranscriptError, TurnEnd};
use skilldeck_skill::Tier;
use std::collections::BTreeMap;
use std::io::Write as _;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

#[test]
fn the_documented_example_parses() {
    let src = include_str!("../../src/config.rs");
    let start = src.find("/// ```toml\n").unwrap() + "/// ```toml\n".len();
    let end = start + src[start..].find("/// ```\n").unwrap();
    let example: String =
        src[start..end].lines().map(|l| l.trim_start_matches("///").trim_start()).map(|l| format!("{l}\n")).collect();
    let c = Config::parse(&example, "example").unwrap();
    assert_eq!((c.default_provider.as_str(), c.providers.len()), ("local", 2));
    assert_eq!(c.provider("claude").unwrap().api, Api::Anthropic);
}

#[test]
fn a_missing_config_is_the_defaults() {
    let dir = tempfile::tempdir().unwrap();
    let c = Config::load(&dir.path().join("config.toml")).unwrap();
    assert_eq!(c, Config::default());
    assert_eq!(c.default_provider, "offline");
    assert_eq!(c.provider("offline").unwrap(), ProviderConfig::offline());
}

#[test]
fn a_shell_limit_of_zero_is_refused_with_its_key() {
    for key in ["max_memory_mib", "max_processes", "max_file_size_mib", "tmp_size_mib"] {
        let err = Config::parse(&format!("[shell]\n{key} = 0\n"), "config.toml").unwrap_err();
        assert!(matches!(err, ConfigError::Invalid { .. }), "{key}: {err}");
        assert!(err.to_string().contains(&format!("[shell] {key} is 0")), "{key}: {err}");
    }
    for bad in ["-1", "\"lots\""] {
        assert!(Config::parse(&format!("[shell]\nmax_memory_mib = {bad}\n"), "config.toml").is_err(), "{bad}");
    }
    let c = Config::parse("[shell]\nmax_memory_mib = 512\n", "config.toml").unwrap();
    assert_eq!(c.shell.sandbox().limits.max_memory_mib, 512);
}

#[test]
fn shell_network_ports_are_a_list_or_all() {
    use skilldeck_agent::tools::sandbox::{AllPorts, NetworkPorts};
    let ports = |text: &str| Config::parse(text, "config.toml").map(|c| c.shell.sandbox().network_ports);
    assert_eq!(ports("").unwrap(), NetworkPorts::Only(vec![22, 53, 80, 443]));
    assert_eq!(ports("[shell]\nnetwork_ports = [443, 8080]\n").unwrap(), NetworkPorts::Only(vec![443, 8080]));
    assert_eq!(ports("[shell]\nnetwork_ports = \"all\"\n").unwrap(), NetworkPorts::All(AllPorts::All));
    for bad in ["\"every\"", "[70000]", "[0]", "8080"] {
        let err = ports(&format!("[shell]\nnetwork_ports = {bad}\n")).unwrap_err();
        assert!(err.to_string().contains("config.toml") && err.to_string().contains("65535"), "{bad}: {err}");
    }
}

#[test]
fn config_parses_providers_and_refuses_keys() {
    let text = r#"
default_provider = "local"
max_steps = 8
[listing]
budget_tokens = 900
[tools]
enabled = ["view_skill", "read_file"]
[providers.local]
api = "openai"
base_url = "http://127.0.0.1:11434/v1"
model = "qwen3"
api_key_env = "LOCAL_KEY"
tier = "lite"
context_window = 8192
"#;
    let c = Config::parse(text, "config.toml").unwrap();
    let mut providers = BTreeMap::new();
    providers.insert(
        "local".to_owned(),
        ProviderConfig {
            api: Api::Openai,
            base_url: Some("http://127.0.0.1:11434/v1".into()),
            model: Some("qwen3".into()),
            api_key_env: Some("LOCAL_KEY".into()),
            tier: Tier::Lite,
            context_window: 8192,
            idle_timeout_secs: None,
            max_retries: None,
            name: String::new(),
        },
    );
    let expected = Config {
        default_provider: "local".into(),
        max_steps: 8,
        listing: skilldeck_agent::config::ListingConfig { budget_tokens: 900, ..Default::default() },
        tools: skilldeck_agent::config::ToolsConfig { enabled: vec![ToolKind::ViewSkill, ToolKind::ReadFile] },
        providers,
        ..Config::default()
    };
    assert_eq!(c, expected);
    let opts = SessionOptions::from_config(&c, &c.provider("local").unwrap());
    assert_eq!((opts.listing.tier, opts.listing.budget_tokens, opts.context_window), (Tier::Lite, 900, 8192));

    let keyed = "[providers.x]\napi = \"openai\"\napi_key = \"sk-secret\"\n";
    assert!(matches!(Config::parse(keyed, "c.toml"), Err(ConfigError::KeyInFile { provider, .. }) if provider == "x"));
    assert!(matches!(Config::parse("max_stepz = 3", "c.toml"), Err(ConfigError::Invalid { .. })));
    // `[targets]` belongs to skilldeck-targets: the strict check lets it through untouched.
    let with_targets = Config::parse("[targets.mine]\npath = \"~/s\"\nskills = [\"a\"]\n", "c.toml").unwrap();
    assert_eq!(with_targets.targets["mine"]["path"].as_str(), Some("~/s"));
    // So is `[remotes]`, which belongs to skilldeck-remote.
    let with_remotes =
        Config::parse("[remotes.team]\nurl = \"s3://b/p\"\nendpoint = \"http://x\"\n", "c.toml").unwrap();
    assert_eq!(with_remotes.remotes["team"]["url"].as_str(), Some("s3://b/p"));
    // A key under a misspelled name is refused by name, and no message ever shows a value.
    for field in ["api-key", "apiKey", "token", "API_KEY", "secret_key"] {
        let text = format!("[providers.x]\napi = \"openai\"\n\"{field}\" = \"sk-live-1234\"\n");
        let err = Config::parse(&text, "c.toml").unwrap_err();
        assert!(matches!(&err, ConfigError::KeyInFile { field: f, .. } if f == field), "{field}: {err}");
        assert!(!err.to_string().contains("sk-live-1234"), "{err}");
    }
    for text in [
        "[providers.x]\napi = \"openai\"\ncontext_window = \"sk-live-1234\"\n",
        "[providers.x]\napi = \"openai\"\nmodel = \"m\"\nbase = \"sk-live-1234\"\n",
        "default_provider = \"sk-live-1234\nmax_steps = 3\n",
        "[listing]\nbudget_tokens = \"sk-live-1234\"\n",
    ] {
        let err = Config::parse(text, "c.toml").unwrap_err().to_string();
        assert!(!err.contains("sk-live-1234"), "{err}");
        assert!(err.contains("line "), "{err}");
    }
    // base_url is checked when the file is read, and when a provider is built from flags.
    let file_url = "[providers.x]\napi = \"openai\"\nmodel = \"m\"\nbase_url = \"file:///etc/passwd\"\n";
    let err = Config::parse(file_url, "c.toml").unwrap_err().to_string();
    assert!(err.contains("whose scheme `file` is not http or https"), "{err}");
    let flags = ProviderConfig { base_url: Some("localhost:11434".into()), ..c.provider("local").unwrap() };
    let err = flags.build().err().unwrap().to_string();
    assert!(err.contains("base_url \"localhost:11434\" cannot be used"), "{err}");
    let err = Config::default().provider("nope").unwrap_err().to_string();
    assert_eq!(err, "no provider named \"nope\"; configured: offline");
    // The key is read from the named variable at build time (else the system keychain), never
    // from the file; with neither, the error names both ways to give one.
    let p = ProviderConfig { api_key_env: Some("SKILLDECK_TEST_UNSET_VAR".into()), ..c.provider("local").unwrap() };
    assert_eq!(
        p.build().err().map(|e| e.to_string()),
        Some("the environment variable SKILLDECK_TEST_UNSET_VAR (named by api_key_env) is not set, and the system keychain holds no key for provider \"local\": set the variable, or keep the key with Settings › Models or `skilldeck key set local`".into())
    );
}

#[tokio::test]
async fn a_session_resumes_from_its_transcript_and_sessions_are_listed() {
    let fx = Fixture::new();
    fx.skill("pdf", "description: Extract text from PDF files\n", "# PDF", &[]);
    let mut s = fx.session(Arc::new(OfflineProvider), SessionOptions::default());
    s.run_turn("extract text from a pdf", &Recorder::new(false), &CancellationToken::new()).await.unwrap();
    let id = s.id().to_owned();
    let before = s.history().to_vec();
    drop(s);

    let listed = transcript::list(&fx.home.sessions_dir()).unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(
        (listed[0].id.as_str(), listed[0].turns, listed[0].title.as_str(), listed[0].provider.as_str()),
        (id.as_str(), 1, "extract text from a pdf", "offline (no language model)")
    );
    assert_eq!(listed[0].workspace, fx.workspace());

    let mut s =
        Session::resume(&fx.home, &id, Arc::clone(&fx.registry), Arc::new(OfflineProvider), SessionOptions::default())
            .unwrap();
    assert_eq!(s.history(), before.as_slice());
    assert_eq!(s.workspace(), fx.workspace());
    let host = Recorder::new(false);
    assert_eq!(s.run_turn("pdf again", &host, &CancellationToken::new()).await.unwrap(), TurnEnd::Answered);
    assert!(
        host.take().iter().any(|e| matches!(e, AgentEvent::TurnStarted { turn, .. } if *turn == format!("{id}-t2")))
    );
    assert_eq!(transcript::list(&fx.home.sessions_dir()).unwrap()[0].turns, 2);
    // The listing is recorded when it changes, not every turn (even across a resume).
    fx.skill("pdf", "description: Extract text from PDF files\n", "# PDF 2", &[]);
    s.run_turn("pdf once more", &host, &CancellationToken::new()).await.unwrap();
    let listings: Vec<Option<Vec<String>>> = transcript::read(s.transcript_path())
        .unwrap()
        .into_iter()
        .filter_map(|r| match r {
            Record::TurnStarted { listing, .. } => Some(
                listing
                    .map(|l| l.into_iter().map(|e| format!("{}@{}", e.name, e.version.unwrap_or_default())).collect()),
            ),
            _ => None,
        })
        .collect();
    assert_eq!(listings, vec![Some(vec!["pdf@1".to_owned()]), None, Some(vec!["pdf@2".to_owned()])]);

    // While it is open here, nobody else may append to it; once closed, it can be resumed again.
    let resume = || {
        Session::resume(&fx.home, &id, Arc::clone(&fx.registry), Arc::new(OfflineProvider), SessionOptions::default())
    };
    let lines = transcript::read(s.transcript_path()).unwrap().len();
    let err = resume().unwrap_err();
    assert!(matches!(err, AgentError::Transcript(TranscriptError::InUse { .. })), "{err}");
    assert!(err.to_string().contains("open elsewhere"), "{err}");
    assert_eq!(transcript::read(s.transcript_path()).unwrap().len(), lines, "the refused resume wrote nothing");
    drop(s);
    resume().unwrap();

    assert!(
        Session::resume(
            &fx.home,
            "../etc",
            Arc::clone(&fx.registry),
            Arc::new(OfflineProvider),
            SessionOptions::default()
        )
        .is_err()
    );
}

#[tokio::test]
async fn a_torn_last_line_and_an_unanswered_call_leave_a_whole_history() {
    let fx = Fixture::new();
    let script = Scripted::new(vec![call("c1", "list_dir", json!({})), say("done")]);
    let mut s = fx.session(script, SessionOptions::default());
    s.run_turn("go", &Recorder::new(false), &CancellationToken::new()).await.unwrap();
    let id = s.id().to_owned();
    let path = s.transcript_path().to_owned();
    drop(s);
    // Simulate a crash after the model's tool call was written: drop the result and later
    // lines, then leave half a line.
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let keep = lines.iter().position(|l| l.contains("\"role\":\"tool\"")).unwrap();
    let mut torn = lines[..keep].join("\n");
    torn.push_str("\n{\"type\":\"message\",\"mess");
    std::fs::write(&path, torn).unwrap();

    let records = transcript::read(&path).unwrap();
    let history = transcript::history(&records);
    assert_eq!(
        history,
        vec![
            Message::user("go"),
            Message::Assistant {
                content: String::new(),
                tool_calls: vec![ToolCall { id: "c1".into(), name: "list_dir".into(), arguments: json!({}) }]
            },
            Message::Tool {
                call_id: "c1".into(),
                name: "list_dir".into(),
                content: json!({"error": {"code": "interrupted", "message": "The session stopped before this call finished; run it again if it is still needed."}}).to_string()
            },
        ]
    );
    let script = Scripted::new(vec![say("resumed")]);
    let mut s =
        Session::resume(&fx.home, &id, Arc::clone(&fx.registry), script.clone(), SessionOptions::default()).unwrap();
    s.run_turn("more", &Recorder::new(false), &CancellationToken::new()).await.unwrap();
    // The torn line was ended, so every later line parses.
    let records = transcript::read(&path).unwrap();
    assert!(matches!(records.last(), Some(Record::TurnEnded { end: TurnEnd::Answered, .. })));
    assert_eq!(transcript::history(&records).len(), 5);
    assert_eq!(script.requests()[0].messages.len(), 4);
    let mut f = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
    writeln!(f, "not json").unwrap();
    assert_eq!(transcript::read(&path).unwrap().len(), records.len());
}

#[test]
fn compaction_shrinks_older_results_and_keeps_versions() {
    let big = "x".repeat(3000);
    let view =
        |path: Option<&str>| json!({"skillName": "pdf", "path": path, "version": "3", "content": big}).to_string();
    let tool = |id: &str, name: &str, content: String| Message::Tool { call_id: id.into(), name: name.into(), content };
    let mut history = vec![
        Message::user("one"),
        tool("a", "view_skill", view(None)),
        tool("b", "read_file", json!({"path": "f", "content": big}).to_string()),
        tool(
            "c",
            "view_skill",
            json!({"skillName": "pdf", "path": null, "error": {"code": "skill_not_found", "message": "m"}}).to_string(),
        ),
        Message::user("two"),
        tool("d", "view_skill", view(None)),
    ];
    let n = compaction::compact("sys", &mut history, 4, 100);
    assert_eq!(n, 2);
    assert_eq!(
        history[1],
        tool("a", "view_skill", json!({"skillName": "pdf", "path": null, "version": "3", "content": "[compacted]", "note": "Call view_skill again to reload."}).to_string())
    );
    let Message::Tool { content, .. } = &history[2] else { panic!() };
    let cut: serde_json::Value = serde_json::from_str(content).unwrap();
    assert_eq!(cut["truncated"].as_str().unwrap().chars().count(), compaction::KEEP_CHARS);
    assert!(cut["note"].as_str().unwrap().starts_with(compaction::CUT_MARK));
    // Errors stay; the current turn's results stay; compacting again changes nothing.
    assert_eq!(history[5], tool("d", "view_skill", view(None)));
    let again = history.clone();
    assert_eq!(compaction::compact("sys", &mut history, 4, 100), 0);
    assert_eq!(history, again);
}

#[tokio::test]
async fn a_long_session_compacts_and_keeps_working() {
    let fx = Fixture::new();
    fx.skill("pdf", "description: Extract text from PDF files\n", &format!("# PDF\n{}", "word ".repeat(2000)), &[]);
    let opts = SessionOptions { context_window: 6000, ..SessionOptions::default() };
    let mut s = fx.session(Arc::new(OfflineProvider), opts);
    let host = Recorder::new(false);
    for _ in 0..4 {
        assert_eq!(s.run_turn("extract pdf text", &host, &CancellationToken::new()).await.unwrap(), TurnEnd::Answered);
    }
    assert!(host.take().iter().any(|e| matches!(e, AgentEvent::Compacted { .. })));
    let compacted = s
        .history()
        .iter()
        .filter(|m| matches!(m, Message::Tool { content, .. } if content.contains("[compacted]")))
        .count();
    // Every older load is compacted; the last turn's is whole.
    let loads = s.history().iter().filter(|m| matches!(m, Message::Tool { .. })).count();
    assert_eq!((loads, compacted), (4, 3));
}

fn assert_send<T: Send>(_: &T) {}

#[test]
fn a_turn_can_run_on_any_thread() {
    // The desktop app spawns turns on a multi-threaded runtime: the future must be Send.
    let fx = Fixture::new();
    let mut s = fx.session(Arc::new(OfflineProvider), SessionOptions::default());
    let host = Recorder::new(false);
    let cancel = CancellationToken::new();
    let fut = s.run_turn("x", &host, &cancel);
    assert_send(&fut);
}

#[tokio::test]
async fn one_long_turn_compacts_its_own_older_steps_as_a_last_resort() {
    let fx = Fixture::new();
    std::fs::write(fx.workspace().join("big.txt"), "y".repeat(9000)).unwrap();
    let script = Scripted::new(vec![
        call("1", "read_file", json!({"path": "big.txt"})),
        call("2", "read_file", json!({"path": "big.txt"})),
        call("3", "read_file", json!({"path": "big.txt"})),
        say("done"),
    ]);
    let opts = SessionOptions { context_window: 8000, ..SessionOptions::default() };
    let mut s = fx.session(script.clone(), opts);
    assert_eq!(s.run_turn("read", &Recorder::new(false), &CancellationToken::new()).await.unwrap(), TurnEnd::Answered);
    // Each request kept the newest result whole and cut the older ones of the same turn.
    let sizes: Vec<Vec<usize>> = script
        .requests()
        .iter()
        .map(|r| {
            r.messages
                .iter()
                .filter_map(|m| match m {
                    Message::Tool { content, .. } => Some(content.len()),
                    _ => None,
                })
                .collect()
        })
        .collect();
    let whole = json!({"path": "big.txt", "content": "y".repeat(9000)}).to_string().len();
    assert_eq!(sizes[..2], [vec![], vec![whole]]);
    assert_eq!(sizes[2][1], whole);
    assert!(sizes[2][0] < 1000 && sizes[3][0] < 1000 && sizes[3][1] < 1000, "{sizes:?}");
    assert_eq!(sizes[3][2], whole);
}

#[test]
fn the_per_skill_switch_edits_config_toml_in_place() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("config.toml");
    // No file yet: switching a skill off creates one.
    assert!(config_edit::set_skill_enabled(&path, "pdf", false).unwrap());
    assert_eq!(Config::load(&path).unwrap().listing.disabled, ["pdf".to_owned()].into());
    assert!(!config_edit::set_skill_enabled(&path, "pdf", false).unwrap(), "already off: nothing to write");

    // A file the user wrote keeps its comments and layout.
    let mine =
        "# my settings\ndefault_provider = \"offline\" # for now\n\n[listing]\nbudget_tokens = 900 # small model\n";
    std::fs::write(&path, mine).unwrap();
    assert!(config_edit::set_skill_enabled(&path, "docx", false).unwrap());
    assert!(config_edit::set_skill_enabled(&path, "pdf", false).unwrap());
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.starts_with(mine.trim_end()), "the user's lines stay as written:\n{text}");
    let config = Config::load(&path).unwrap();
    assert_eq!(config.listing.budget_tokens, 900);
    assert_eq!(config.listing.disabled, ["docx".to_owned(), "pdf".to_owned()].into());
    assert_eq!(
        SessionOptions::from_config(&config, &ProviderConfig::offline()).listing.disabled,
        config.listing.disabled
    );
    assert!(config_edit::set_skill_enabled(&path, "docx", true).unwrap());
    assert_eq!(Config::load(&path).unwrap().listing.disabled, ["pdf".to_owned()].into());
    assert!(std::fs::read_to_string(&path).unwrap().contains("# small model"));

    // The listing budget, as the app's listing preview and `skilldeck budget` set it.
    assert!(config_edit::set_budget_tokens(&path, 3000).unwrap());
    assert!(!config_edit::set_budget_tokens(&path, 3000).unwrap(), "unchanged: nothing to write");
    let config = Config::load(&path).unwrap();
    assert_eq!((config.listing.budget_tokens, config.listing.disabled.len()), (3000, 1));
    assert!(std::fs::read_to_string(&path).unwrap().starts_with("# my settings"));
    let err = config_edit::set_budget_tokens(&path, 5).unwrap_err().to_string();
    assert!(err.contains("out of range; choose 100 to 200000"), "{err}");

    // Naming the closest skills: on by default, switched off and on again, comments kept.
    assert!(config.listing.suggest);
    assert!(config_edit::set_listing_suggest(&path, false).unwrap());
    assert!(!config_edit::set_listing_suggest(&path, false).unwrap(), "unchanged: nothing to write");
    let config = Config::load(&path).unwrap();
    assert!(!config.listing.suggest && !SessionOptions::from_config(&config, &ProviderConfig::offline()).suggest);
    assert_eq!(config.listing.budget_tokens, 3000);
    assert!(std::fs::read_to_string(&path).unwrap().starts_with("# my settings"));
    assert!(config_edit::set_listing_suggest(&path, true).unwrap());
    assert!(Config::load(&path).unwrap().listing.suggest);

    // A broken file is reported and left exactly as it was.
    let broken = "[listing]\nbudget_tokens = \"lots\"\n";
    std::fs::write(&path, broken).unwrap();
    assert!(matches!(config_edit::set_skill_enabled(&path, "pdf", false), Err(ConfigError::Invalid { .. })));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), broken);
    let mut leftovers: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    leftovers.sort();
    assert_eq!(leftovers, ["config.toml", "config.toml.lock"], "no temp file left behind");
}

#[test]
fn pinning_edits_config_toml_in_place_keeping_comments() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("config.toml");
    let mine =
        "# my settings\n[listing]\n# always in full:\npinned = [\"docx\"] # the one I use\nbudget_tokens = 900\n";
    std::fs::write(&path, mine).unwrap();
    assert!(config_edit::set_skill_pinned(&path, "pdf", true).unwrap());
    assert!(!config_edit::set_skill_pinned(&path, "pdf", true).unwrap(), "already pinned: nothing to write");
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(
        text,
        "# my settings\n[listing]\n# always in full:\npinned = [\"docx\", \"pdf\"] # the one I use\nbudget_tokens = 900\n"
    );
    let config = Config::load(&path).unwrap();
    assert_eq!(config.listing.pinned, ["docx".to_owned(), "pdf".to_owned()].into());
    assert_eq!(SessionOptions::from_config(&config, &ProviderConfig::offline()).listing.pinned, config.listing.pinned);
    assert!(config_edit::set_skill_pinned(&path, "docx", false).unwrap());
    assert_eq!(Config::load(&path).unwrap().listing.pinned, ["pdf".to_owned()].into());
    assert!(std::fs::read_to_string(&path).unwrap().contains("# always in full:\n"));
    // A file where `pinned` is not a list is reported and left as it was.
    let broken = "[listing]\npinned = \"pdf\"\n";
    std::fs::write(&path, broken).unwrap();
    assert!(config_edit::set_skill_pinned(&path, "docx", true).is_err());
    assert_eq!(std::fs::read_to_string(&path).unwrap(), broken);
}
