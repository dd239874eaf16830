//! The edits the app's Settings makes to config.toml: providers added, changed, made default and
//! removed, and `[shell]` written, each keeping the user's comments; bad values refused with the
//! file's own message and the file left as it was. And the Test button's one request, through
//! the real OpenAI-compatible provider, against a loopback server.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use crate::common;

use common::loopback::{Loopback, Reply, openai_text};
use skilldeck_agent::config::{Api, Config, ConfigError, ProviderConfig};
use skilldeck_agent::config_edit::{self, ProviderForm};
use skilldeck_agent::provider::probe::probe;
use skilldeck_agent::tools::sandbox::NetworkPorts;
use skilldeck_skill::Tier;

const MINE: &str = "# my settings\nmax_steps = 30 # enough\n\n[providers.local] # the laptop's server\napi = \"openai\"\nbase_url = \"http://localhost:11434/v1\" # ollama\nmodel = \"qwen3:8b\"\ncontext_window = 32768 # small\n\n[shell]\n# keep commands short\ntimeout_secs = 60\n";

fn form(api: Api, base_url: Option<&str>, model: &str, key_env: Option<&str>) -> ProviderForm {
    ProviderForm {
        api,
        base_url: base_url.map(str::to_owned),
        model: Some(model.to_owned()),
        api_key_env: key_env.map(str::to_owned),
        tier: Tier::Ultra,
    }
}

fn comments_kept(text: &str) {
    for c in ["# my settings", "# enough", "# the laptop's server", "# ollama", "# small", "# keep commands short"] {
        assert!(text.contains(c), "{c} lost:\n{text}");
    }
}

#[test]
fn providers_are_added_changed_made_default_and_removed_keeping_comments() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("config.toml");
    std::fs::write(&path, MINE).unwrap();

    let claude = form(Api::Anthropic, None, "claude-sonnet-4-5", Some("ANTHROPIC_API_KEY"));
    assert!(config_edit::set_provider(&path, "claude", &claude).unwrap());
    assert!(!config_edit::set_provider(&path, "claude", &claude).unwrap(), "unchanged: nothing written");
    let c = Config::load(&path).unwrap();
    assert_eq!(c.providers["claude"].api_key_env.as_deref(), Some("ANTHROPIC_API_KEY"));
    assert_eq!(c.providers["claude"].base_url, None);
    let text = std::fs::read_to_string(&path).unwrap();
    comments_kept(&text);
    // The new table goes beside the other providers; the user's lines stay as written.
    let added = "[providers.claude]\napi = \"anthropic\"\nmodel = \"claude-sonnet-4-5\"\napi_key_env = \"ANTHROPIC_API_KEY\"\n\n";
    assert!(text.contains(&format!("# small\n\n{added}[shell]")), "{text}");
    assert_eq!(text.replace(added, ""), MINE);
    assert!(!text.contains("[providers]\n"), "no bare [providers] header:\n{text}");

    // Changing the local one: its other keys and each comment stay where they were.
    let mut local = form(Api::Openai, Some("http://127.0.0.1:8080/v1"), "llama3", None);
    local.tier = Tier::Lite;
    assert!(config_edit::set_provider(&path, "local", &local).unwrap());
    let text = std::fs::read_to_string(&path).unwrap();
    comments_kept(&text);
    assert!(text.contains("base_url = \"http://127.0.0.1:8080/v1\" # ollama"), "{text}");
    let p: ProviderConfig = Config::load(&path).unwrap().providers["local"].clone();
    assert_eq!((p.model.as_deref(), p.tier, p.context_window), (Some("llama3"), Tier::Lite, 32768));

    assert!(config_edit::set_default_provider(&path, "claude").unwrap());
    assert_eq!(Config::load(&path).unwrap().default_provider, "claude");
    let err = config_edit::set_default_provider(&path, "nope").unwrap_err();
    assert!(matches!(err, ConfigError::UnknownProvider { .. }), "{err}");

    // Removing the default provider takes `default_provider` with it: offline again.
    assert!(config_edit::remove_provider(&path, "claude").unwrap());
    assert!(!config_edit::remove_provider(&path, "claude").unwrap());
    let c = Config::load(&path).unwrap();
    assert_eq!((c.default_provider.as_str(), c.providers.len()), ("offline", 1));
    comments_kept(&std::fs::read_to_string(&path).unwrap());
}

#[test]
fn bad_values_are_refused_with_the_files_own_message_and_nothing_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("config.toml");
    std::fs::write(&path, MINE).unwrap();
    let shown = path.display().to_string();

    // The message the CLI gives when it reads such a file.
    let bad = form(Api::Openai, Some("localhost:11434"), "m", None);
    let err = config_edit::set_provider(&path, "x", &bad).unwrap_err().to_string();
    let mut cli_text = MINE.to_owned();
    cli_text.push_str("[providers.x]\napi = \"openai\"\nbase_url = \"localhost:11434\"\nmodel = \"m\"\n");
    let cli = Config::parse(&cli_text, &shown).unwrap_err().to_string();
    assert_eq!(err, cli);
    assert!(err.contains("use an address such as http://localhost:11434/v1"), "{err}");

    // A key where the variable's name belongs, a bad name, a missing base URL.
    let keyed = form(Api::Openai, Some("http://h/v1"), "m", Some("sk-proj-abcDEF1234567890abcdef"));
    let err = config_edit::set_provider(&path, "x", &keyed).unwrap_err().to_string();
    assert!(err.contains("never the key itself"), "{err}");
    let keyed = form(Api::Openai, Some("http://h/v1"), "m", Some("abcDEF1234567890abcdefXYZ"));
    assert!(config_edit::set_provider(&path, "x", &keyed).is_err(), "a bare key is no variable name");
    assert!(config_edit::set_provider(&path, "a b", &form(Api::Anthropic, None, "m", None)).is_err());
    assert!(config_edit::set_provider(&path, "offline", &form(Api::Anthropic, None, "m", None)).is_err());
    let err = config_edit::set_provider(&path, "x", &form(Api::Openai, None, "m", None)).unwrap_err().to_string();
    assert!(err.contains("needs `base_url`"), "{err}");

    // A limit of 0: the file's own check.
    let mut shell = Config::load(&path).unwrap().shell;
    shell.max_processes = 0;
    let err = config_edit::set_shell(&path, &shell).unwrap_err().to_string();
    assert!(err.contains("max_processes is 0"), "{err}");

    assert_eq!(std::fs::read_to_string(&path).unwrap(), MINE, "never a half-written file");
    let mut leftovers: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    leftovers.sort();
    // The writers' lock file stays (removing it would let two writers lock two files).
    assert_eq!(leftovers, ["config.toml", "config.toml.lock"], "no temp file left behind");
}

#[test]
fn shell_settings_are_written_key_by_key() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("config.toml");
    std::fs::write(&path, MINE).unwrap();
    let mut shell = Config::load(&path).unwrap().shell;
    assert!(!config_edit::set_shell(&path, &shell).unwrap(), "unchanged: nothing written");
    shell.network = true;
    shell.network_ports = NetworkPorts::Only(vec![443, 8080]);
    shell.env = vec!["MY_VAR".to_owned()];
    shell.home_paths = vec!["~/notes".into()];
    shell.max_memory_mib = 2048;
    assert!(config_edit::set_shell(&path, &shell).unwrap());
    let text = std::fs::read_to_string(&path).unwrap();
    comments_kept(&text);
    assert!(text.contains("# keep commands short\ntimeout_secs = 60\n"), "{text}");
    assert!(!text.contains("max_processes"), "unchanged keys are not written:\n{text}");
    assert_eq!(Config::load(&path).unwrap().shell, shell);

    // Emptied lists go; the rest stays.
    shell.env.clear();
    shell.network_ports = NetworkPorts::default();
    assert!(config_edit::set_shell(&path, &shell).unwrap());
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(!text.contains("env ="), "{text}");
    assert_eq!(Config::load(&path).unwrap().shell, shell);
}

#[tokio::test(flavor = "current_thread")]
async fn the_test_button_sends_one_request_through_the_real_provider() {
    let server = Loopback::start().await;
    server.push(Reply::sse(openai_text("Hello there.")));
    let config = ProviderConfig {
        base_url: Some(format!("{}/v1", server.url)),
        model: Some("tiny".into()),
        ..ProviderConfig::offline()
    };
    let config = ProviderConfig { api: Api::Openai, ..config };
    let provider = config.build().unwrap();
    assert_eq!(probe(provider.as_ref()).await.unwrap(), "Hello there.");
    let sent = server.requests();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].path, "/v1/chat/completions");
    assert_eq!(sent[0].body["model"], "tiny");

    // An error status, in plain words.
    server.push(Reply::Status { code: 401, headers: vec![], body: "{\"error\":\"bad key\"}".into() });
    let err = probe(provider.as_ref()).await.unwrap_err().to_string();
    assert!(err.contains("answered 401"), "{err}");
}

#[test]
fn the_audit_hold_is_set_in_place_and_a_bad_level_refused() {
    use skilldeck_agent::config::HoldAt;
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("config.toml");
    let mine = format!("{MINE}\n[audit] # what waits for my approval\nhold = \"high\" # the default\n");
    std::fs::write(&path, &mine).unwrap();
    assert!(!config_edit::set_audit_hold(&path, "high").unwrap(), "unchanged: nothing written");
    assert!(config_edit::set_audit_hold(&path, "critical").unwrap());
    let text = std::fs::read_to_string(&path).unwrap();
    comments_kept(&text);
    assert!(text.contains("[audit] # what waits for my approval\nhold = \"critical\" # the default\n"), "{text}");
    assert_eq!(Config::load(&path).unwrap().audit.hold, HoldAt::Critical);
    assert!(config_edit::set_audit_hold(&path, "off").unwrap());
    assert_eq!(Config::load(&path).unwrap().audit.hold, HoldAt::Off);

    let before = std::fs::read_to_string(&path).unwrap();
    let err = config_edit::set_audit_hold(&path, "medium").unwrap_err().to_string();
    assert_eq!(
        err,
        format!(
            "[audit] hold = \"medium\" is not a level: write \"high\" (the default), \"critical\" or \"off\" ({} was not changed)",
            path.display()
        )
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), before, "nothing written");

    // A file without [audit] gains one.
    let fresh = tmp.path().join("fresh.toml");
    std::fs::write(&fresh, MINE).unwrap();
    assert!(config_edit::set_audit_hold(&fresh, "critical").unwrap());
    let text = std::fs::read_to_string(&fresh).unwrap();
    assert!(text.starts_with(MINE) && text.contains("[audit]\nhold = \"critical\"\n"), "{text}");
}

/// `[sources]`'s own reading as skilldeck-sources does it, in miniature: the periods it takes.
fn sources_check(text: &str) -> Result<(), String> {
    let table: toml::Table = toml::from_str(text).map_err(|e| e.to_string())?;
    let every = table.get("sources").and_then(|s| s.get("check_every")).and_then(toml::Value::as_str);
    match every {
        None | Some("daily" | "hourly" | "off" | "6h") => Ok(()),
        Some(other) => Err(format!("[sources] check_every = {other:?} is not a period")),
    }
}

#[test]
fn sources_keys_are_written_in_place_and_the_readers_check_refuses_a_bad_one() {
    use config_edit::SourcesForm;
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("config.toml");
    let mine = format!("{MINE}\n[sources]\n# our mirror\ngithub = \"https://git.example.com\" # internal\n");
    std::fs::write(&path, &mine).unwrap();
    let form = |every: Option<&str>| SourcesForm {
        github: Some("https://git.example.com".into()),
        gitlab: None,
        check_every: every.map(str::to_owned),
    };
    assert!(!config_edit::set_sources(&path, &form(None), sources_check).unwrap(), "unchanged: nothing written");
    assert!(config_edit::set_sources(&path, &form(Some("6h")), sources_check).unwrap());
    let text = std::fs::read_to_string(&path).unwrap();
    comments_kept(&text);
    assert!(
        text.ends_with(
            "[sources]\n# our mirror\ngithub = \"https://git.example.com\" # internal\ncheck_every = \"6h\"\n"
        ),
        "{text}"
    );

    // Refused by the reader's check: its message, nothing written.
    let err = config_edit::set_sources(&path, &form(Some("soon")), sources_check).unwrap_err().to_string();
    assert_eq!(err, format!("[sources] check_every = \"soon\" is not a period ({} was not changed)", path.display()));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text, "nothing written");

    // Emptied: the key goes, and its default applies; the comments stay.
    let cleared = SourcesForm { check_every: Some("  ".into()), ..form(None) };
    assert!(config_edit::set_sources(&path, &cleared, sources_check).unwrap());
    assert_eq!(std::fs::read_to_string(&path).unwrap(), mine);
}

#[test]
fn a_team_remotes_refresh_interval_is_set_in_range_and_only_for_a_remote_that_exists() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("config.toml");
    let mine = format!("{MINE}\n[remotes.team] # the team's bucket\nurl = \"s3://team-skills\"\n");
    std::fs::write(&path, &mine).unwrap();
    assert!(config_edit::set_remote_refresh_secs(&path, "team", Some(900)).unwrap());
    assert!(!config_edit::set_remote_refresh_secs(&path, "team", Some(900)).unwrap(), "unchanged");
    let text = std::fs::read_to_string(&path).unwrap();
    comments_kept(&text);
    assert!(
        text.ends_with("[remotes.team] # the team's bucket\nurl = \"s3://team-skills\"\nrefresh_secs = 900\n"),
        "{text}"
    );

    let err = config_edit::set_remote_refresh_secs(&path, "team", Some(700_000)).unwrap_err().to_string();
    assert!(
        err.starts_with("a refresh interval of 700000 seconds is out of range; choose 0 to 604800 seconds ("),
        "{err}"
    );
    assert!(err.ends_with("config.toml was not changed)"), "{err}");
    let err = config_edit::set_remote_refresh_secs(&path, "other", Some(60)).unwrap_err().to_string();
    assert!(err.contains("there is no remote named \"other\""), "{err}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text, "nothing written");

    // None: back to the default (the key goes).
    assert!(config_edit::set_remote_refresh_secs(&path, "team", None).unwrap());
    assert_eq!(std::fs::read_to_string(&path).unwrap(), mine);
}
