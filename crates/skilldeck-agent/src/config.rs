//! Agent settings from `$SKILLDECK_HOME/config.toml`: providers, tiers, budgets, enabled tools.
//! Holds the file's shape, its defaults and building a provider from it; never an API key.

use crate::provider::anthropic::AnthropicProvider;
use crate::provider::http::{self, HttpPolicy};
use crate::provider::offline::OfflineProvider;
use crate::provider::openai::OpenAiProvider;
use crate::provider::{Provider, ProviderError};
use crate::tools::ToolKind;
use crate::tools::limits::ResourceLimits;
use crate::tools::sandbox::{NetworkPorts, SandboxChoice, SandboxSettings};
use crate::tools::shell::ShellLimits;
use serde::{Deserialize, Serialize};
use skilldeck_select::listing::DEFAULT_BUDGET_TOKENS;
use skilldeck_skill::Tier;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// The built-in provider's name.
pub const OFFLINE: &str = "offline";

/// Why the settings could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("could not read {path}: {source}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not valid TOML of the expected shape.
    #[error("{path} is not valid: {message}")]
    Invalid {
        /// The file.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// A change to the file was refused (a value out of range, a table another reader refuses):
    /// nothing was written.
    #[error("{message} ({path} was not changed)")]
    Refused {
        /// The file.
        path: String,
        /// What is wrong with the value, and what to write instead.
        message: String,
    },
    /// A key was written into the file (as `api_key`, `api-key`, `apiKey`, `token`, …).
    #[error(
        "{path}: provider {provider:?} has `{field}`, which looks like a key; keys never go in this file. Put the key in an environment variable and name it with api_key_env"
    )]
    KeyInFile {
        /// The file.
        path: String,
        /// The provider.
        provider: String,
        /// The field's name (never its value).
        field: String,
    },
    /// A provider's `base_url` is not an http(s) address.
    #[error(
        "{path}: provider {provider:?} has base_url {url:?}, {reason}; use an address such as http://localhost:11434/v1"
    )]
    BadBaseUrl {
        /// The file.
        path: String,
        /// The provider.
        provider: String,
        /// The value (an address, not a secret).
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// No provider of that name.
    #[error("no provider named {name:?}; configured: {known}")]
    UnknownProvider {
        /// The name asked for.
        name: String,
        /// The names there are.
        known: String,
    },
    /// The provider could not be built.
    #[error(transparent)]
    Provider(#[from] ProviderError),
}

/// A field name that holds a key rather than naming its variable: `api_key`, `api-key`,
/// `apiKey`, `token`, `secret`, `password`…
fn looks_like_a_key(field: &str) -> bool {
    let f: String = field.chars().filter(char::is_ascii_alphanumeric).collect::<String>().to_ascii_lowercase();
    f != "apikeyenv" && ["key", "token", "secret", "password", "bearer", "auth"].iter().any(|s| f.contains(s))
}

/// A TOML error without the source snippet (the line it quotes may hold a secret) and with
/// quoted values replaced: the line, then what was wrong.
fn describe(e: &toml::de::Error, text: &str) -> String {
    let line = e.span().map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1);
    let mut message = String::new();
    let mut in_quotes = false;
    for c in e.message().trim().chars() {
        match (c, in_quotes) {
            ('"', false) => {
                in_quotes = true;
                message.push_str("\"…");
            }
            ('"', true) => {
                in_quotes = false;
                message.push('"');
            }
            (_, true) => {}
            (c, false) => message.push(c),
        }
    }
    match line {
        Some(n) => format!("line {n}: {message}"),
        None => message,
    }
}

/// Whether `url` can be a model server's address: http or https with a host.
pub fn check_base_url(url: &str) -> Result<(), String> {
    let parsed = reqwest::Url::parse(url).map_err(|e| format!("which is not an address ({e})"))?;
    match parsed.scheme() {
        "http" | "https" if parsed.host_str().is_some_and(|h| !h.is_empty()) => Ok(()),
        "http" | "https" => Err("which has no host".to_owned()),
        other => Err(format!("whose scheme `{other}` is not http or https")),
    }
}

/// Which wire format a provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum Api {
    /// OpenAI-compatible Chat Completions.
    Openai,
    /// Anthropic Messages.
    Anthropic,
    /// The built-in router, no model.
    Offline,
}

/// One `[providers.NAME]` table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderConfig {
    /// The wire format.
    pub api: Api,
    /// The server, e.g. `http://localhost:11434/v1` or `https://api.anthropic.com`.
    #[serde(default)]
    pub base_url: Option<String>,
    /// The model's name.
    #[serde(default)]
    pub model: Option<String>,
    /// The NAME of the environment variable holding the key (never the key).
    #[serde(default)]
    pub api_key_env: Option<String>,
    /// The model's tier; `lite` hides skills that need `ultra`.
    #[serde(default)]
    pub tier: Tier,
    /// The model's context window, in tokens.
    #[serde(default = "default_context_window")]
    pub context_window: usize,
    /// Seconds the stream may stay silent.
    #[serde(default)]
    pub idle_timeout_secs: Option<f64>,
    /// Retries on 429/5xx.
    #[serde(default)]
    pub max_retries: Option<u32>,
    /// Its name in `[providers.NAME]`: what its key in the system keychain is kept under
    /// (set by `Config::provider`; empty for one built by hand).
    #[serde(skip)]
    pub name: String,
}

fn default_context_window() -> usize {
    128_000
}

impl ProviderConfig {
    /// The built-in offline router's settings.
    pub fn offline() -> Self {
        Self {
            api: Api::Offline,
            base_url: None,
            model: None,
            api_key_env: None,
            tier: Tier::Ultra,
            context_window: 32_000,
            idle_timeout_secs: None,
            max_retries: None,
            name: OFFLINE.to_owned(),
        }
    }

    /// The provider's key: the variable `api_key_env` names when it is set, else the one the
    /// system keychain keeps for this provider (`keychain`, written by Settings › Models or
    /// `skilldeck key set`), else none; an error when `api_key_env` names a variable that is not
    /// set and the keychain holds nothing either.
    pub fn key(&self) -> Result<Option<String>, ProviderError> {
        if let Some(var) = self.api_key_env.as_deref()
            && let Ok(Some(key)) = http::key_from_env(Some(var))
        {
            return Ok(Some(key));
        }
        let kept = if self.name.is_empty() || self.name == OFFLINE {
            None
        } else {
            crate::keychain::get(&self.name).ok().flatten().map(|(key, _)| key)
        };
        match (kept, self.api_key_env.as_deref()) {
            (Some(key), _) => Ok(Some(key)),
            (None, Some(var)) => Err(ProviderError::Config(format!(
                "the environment variable {var} (named by api_key_env) is not set, and the system keychain holds no key for provider {:?}: set the variable, or keep the key with Settings › Models or `skilldeck key set {}`",
                self.name, self.name
            ))),
            (None, None) => Ok(None),
        }
    }

    /// The retry and timeout policy these settings ask for.
    pub fn policy(&self) -> HttpPolicy {
        let d = HttpPolicy::default();
        HttpPolicy {
            max_retries: self.max_retries.unwrap_or(d.max_retries),
            idle_timeout: self.idle_timeout_secs.map(Duration::from_secs_f64).unwrap_or(d.idle_timeout),
            ..d
        }
    }

    /// Builds the provider, with its key (`key`).
    pub fn build(&self) -> Result<Arc<dyn Provider>, ProviderError> {
        let need = |v: &Option<String>, what: &str| {
            v.clone().ok_or_else(|| ProviderError::Config(format!("this provider needs `{what}`")))
        };
        if let Some(url) = &self.base_url
            && let Err(reason) = check_base_url(url)
        {
            return Err(ProviderError::Config(format!("base_url {url:?} cannot be used, {reason}")));
        }
        Ok(match self.api {
            Api::Offline => Arc::new(OfflineProvider),
            Api::Openai => {
                let key = self.key()?;
                Arc::new(OpenAiProvider::new(
                    need(&self.base_url, "base_url")?,
                    need(&self.model, "model")?,
                    key,
                    self.policy(),
                )?)
            }
            Api::Anthropic => {
                let key = self.key()?;
                let base = self.base_url.clone().unwrap_or_else(|| "https://api.anthropic.com".to_owned());
                Arc::new(AnthropicProvider::new(base, need(&self.model, "model")?, key, self.policy())?)
            }
        })
    }
}

/// `[listing]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ListingConfig {
    /// The listing's budget, in tokens.
    pub budget_tokens: usize,
    /// Skills switched off for agents, by name: never listed, so never loaded.
    #[serde(skip_serializing_if = "BTreeSet::is_empty")]
    pub disabled: BTreeSet<String>,
    /// Skills pinned by name: always listed with their full description, whatever the request.
    #[serde(skip_serializing_if = "BTreeSet::is_empty")]
    pub pinned: BTreeSet<String>,
    /// Whether each turn names to the model the few skills the ranker finds closest to the
    /// request, in a note beside it, so a model that would answer from its own knowledge loads
    /// one instead.
    pub suggest: bool,
    /// The sentence-embedding model that ranks by meaning, by id: a Hugging Face hub id
    /// installed with `skilldeck model install` (in `$SKILLDECK_HOME/models/<owner>--<name>/`),
    /// or none for the shipped multilingual-e5-small.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

impl Default for ListingConfig {
    fn default() -> Self {
        Self {
            budget_tokens: DEFAULT_BUDGET_TOKENS,
            disabled: BTreeSet::new(),
            pinned: BTreeSet::new(),
            suggest: DEFAULT_SUGGEST,
            model: None,
        }
    }
}

/// Whether turns name the closest skills unless `[listing] suggest` says otherwise: on, since a
/// small local model loaded the right skill for 6 of 6 natural requests with the note and for
/// none without it (bench/selection/README.md).
pub const DEFAULT_SUGGEST: bool = true;

/// `[audit]`: what the audit of incoming skills holds back.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AuditConfig {
    /// The least serious unapproved finding that holds a skill back until the user approves it
    /// (`skilldeck trust NAME`): `high` (the default), `critical`, or `off`.
    pub hold: HoldAt,
}

/// `[audit] hold`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
pub enum HoldAt {
    /// High and critical findings hold a skill.
    #[default]
    High,
    /// Only critical findings do.
    Critical,
    /// Nothing is held; findings are still shown.
    Off,
}

impl HoldAt {
    /// The level the registry holds at (`None`: off).
    pub fn level(self) -> Option<skilldeck_skill::risk::RiskLevel> {
        match self {
            Self::High => Some(skilldeck_skill::risk::RiskLevel::High),
            Self::Critical => Some(skilldeck_skill::risk::RiskLevel::Critical),
            Self::Off => None,
        }
    }
}

/// `[tools]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ToolsConfig {
    /// The tools offered.
    pub enabled: Vec<ToolKind>,
}

impl Default for ToolsConfig {
    fn default() -> Self {
        Self { enabled: ToolKind::ALL.to_vec() }
    }
}

/// `[shell]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(default, deny_unknown_fields)]
pub struct ShellConfig {
    /// Seconds a command may run.
    pub timeout_secs: u64,
    /// Bytes of stdout, and of stderr, kept.
    pub output_cap_bytes: usize,
    /// `auto` (the default): every command runs in the OS sandbox; `none`: no sandbox, which
    /// only the user can choose, here.
    pub sandbox: SandboxChoice,
    /// Whether commands may use the network (off by default).
    pub network: bool,
    /// With the network allowed, the TCP ports commands may connect to: a list (SSH, DNS, HTTP
    /// and HTTPS by default) or `"all"`.
    pub network_ports: NetworkPorts,
    /// Environment variables passed to commands besides the allow-listed ones (`PATH`, `HOME`,
    /// the locale, the toolchains' folders…); every other variable is withheld.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub env: Vec<String>,
    /// Paths of the home folder commands may read besides the toolchains and git's settings
    /// (`~/notes`, `.config/mytool`, or absolute); the rest of the home folder is hidden.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub home_paths: Vec<PathBuf>,
    /// Memory a command may use, in MiB (the whole command where a cgroup can be made, and each
    /// of its processes).
    pub max_memory_mib: u64,
    /// Processes and threads a command may run at once.
    pub max_processes: u64,
    /// The largest file a command may write, in MiB.
    pub max_file_size_mib: u64,
    /// The size of a command's private `/tmp` (and of its home folder), in MiB.
    pub tmp_size_mib: u64,
}

impl Default for ShellConfig {
    fn default() -> Self {
        let d = ShellLimits::default();
        let r = ResourceLimits::default();
        Self {
            timeout_secs: d.timeout.as_secs(),
            output_cap_bytes: d.output_cap,
            sandbox: SandboxChoice::Auto,
            network: false,
            network_ports: NetworkPorts::default(),
            env: Vec::new(),
            home_paths: Vec::new(),
            max_memory_mib: r.max_memory_mib,
            max_processes: r.max_processes,
            max_file_size_mib: r.max_file_size_mib,
            tmp_size_mib: r.tmp_size_mib,
        }
    }
}

impl ShellConfig {
    /// The message for a resource limit set to 0, which no command could run under.
    fn zero_limit(&self) -> Option<String> {
        [
            ("max_memory_mib", self.max_memory_mib),
            ("max_processes", self.max_processes),
            ("max_file_size_mib", self.max_file_size_mib),
            ("tmp_size_mib", self.tmp_size_mib),
        ]
        .into_iter()
        .find(|(_, v)| *v == 0)
        .map(|(key, _)| {
            format!(
                "[shell] {key} is 0: no command could run; set a positive number or remove the line for the default"
            )
        })
    }

    /// As limits.
    pub fn limits(&self) -> ShellLimits {
        ShellLimits { timeout: Duration::from_secs(self.timeout_secs), output_cap: self.output_cap_bytes }
    }

    /// The sandbox settings.
    pub fn sandbox(&self) -> SandboxSettings {
        SandboxSettings {
            choice: self.sandbox,
            network: self.network,
            network_ports: self.network_ports.clone(),
            env: self.env.clone(),
            home_paths: self.home_paths.clone(),
            limits: ResourceLimits {
                max_memory_mib: self.max_memory_mib,
                max_processes: self.max_processes,
                max_file_size_mib: self.max_file_size_mib,
                tmp_size_mib: self.tmp_size_mib,
            },
        }
    }
}

/// The whole file. Every part has a default, so a missing file means the defaults.
///
/// ```toml
/// default_provider = "local"      # `offline` when unset: the router, no language model
/// max_steps = 24                  # model calls per turn
/// compact_at = 0.6                # share of the context window that triggers compaction
///
/// [listing]
/// budget_tokens = 1500            # o200k tokens for the whole skills section
/// pinned = ["pdf"]                # always listed in full, however many skills there are
///
/// [tools]
/// enabled = ["view_skill", "find_skills", "read_file", "write_file", "list_dir", "shell"]
///
/// [shell]
/// timeout_secs = 120
/// output_cap_bytes = 32768
/// sandbox = "auto"                # every command in the OS sandbox; "none" turns it off
/// network = false                 # commands get no network unless this is true
/// network_ports = [22, 53, 80, 443] # then TCP to these ports only (Linux 6.7+), or "all"
/// env = ["MY_VAR"]                # variables passed besides PATH, HOME, the locale, toolchains'
/// home_paths = ["~/notes"]        # readable besides the toolchains; the rest of ~ is hidden
/// max_memory_mib = 4096           # a command's memory
/// max_processes = 1024            # processes and threads at once
/// max_file_size_mib = 2048        # the largest file it may write
/// tmp_size_mib = 1024             # its private /tmp (and home folder)
///
/// [providers.local]               # any OpenAI-compatible server
/// api = "openai"
/// base_url = "http://localhost:11434/v1"
/// model = "qwen3:8b"
/// tier = "lite"
/// context_window = 32768
///
/// [providers.claude]
/// api = "anthropic"
/// model = "claude-sonnet-4-5"
/// api_key_env = "ANTHROPIC_API_KEY" # the variable's NAME; a key in this file is refused
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// The provider used when none is named; `offline` by default.
    pub default_provider: String,
    /// The most model calls in one turn.
    pub max_steps: usize,
    /// The share of the context window past which older tool results are compacted.
    pub compact_at: f64,
    /// The listing.
    pub listing: ListingConfig,
    /// The tools.
    pub tools: ToolsConfig,
    /// The shell tool.
    pub shell: ShellConfig,
    /// What the audit holds back.
    pub audit: AuditConfig,
    /// The providers by name; `offline` is always there.
    pub providers: BTreeMap<String, ProviderConfig>,
    /// `[targets.NAME]`: where skills are synced. Read by `skilldeck-targets`; kept whole
    /// here so the strict check of the other tables lets it through.
    #[serde(skip_serializing_if = "toml::Table::is_empty")]
    pub targets: toml::Table,
    /// `[remotes.NAME]`: team stores. Read by `skilldeck-remote`; kept whole here so the
    /// strict check of the other tables lets it through.
    #[serde(skip_serializing_if = "toml::Table::is_empty")]
    pub remotes: toml::Table,
    /// `[sources]`: where skills are installed from. Read by `skilldeck-sources`; kept whole
    /// here so the strict check of the other tables lets it through.
    #[serde(skip_serializing_if = "toml::Table::is_empty")]
    pub sources: toml::Table,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            default_provider: OFFLINE.to_owned(),
            max_steps: 24,
            compact_at: 0.6,
            listing: ListingConfig::default(),
            tools: ToolsConfig::default(),
            shell: ShellConfig::default(),
            audit: AuditConfig::default(),
            providers: BTreeMap::new(),
            targets: toml::Table::new(),
            remotes: toml::Table::new(),
            sources: toml::Table::new(),
        }
    }
}

impl Config {
    /// Reads `path`; the defaults when it does not exist.
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        let shown = path.display().to_string();
        match std::fs::read_to_string(path) {
            Ok(text) => Self::parse(&text, &shown),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Self::default()),
            Err(source) => Err(ConfigError::Read { path: shown, source }),
        }
    }

    /// Parses the file's text (`path` is for messages). No message ever quotes a value from the
    /// file, which could be a secret: only keys, lines and what was expected.
    pub fn parse(text: &str, path: &str) -> Result<Self, ConfigError> {
        let invalid = |e: toml::de::Error| ConfigError::Invalid { path: path.to_owned(), message: describe(&e, text) };
        let raw: toml::Table = toml::from_str(text).map_err(invalid)?;
        if let Some(providers) = raw.get("providers").and_then(toml::Value::as_table) {
            for (name, p) in providers {
                let secret = p.as_table().and_then(|t| t.keys().find(|k| looks_like_a_key(k)));
                if let Some(field) = secret {
                    return Err(ConfigError::KeyInFile {
                        path: path.to_owned(),
                        provider: name.clone(),
                        field: field.clone(),
                    });
                }
            }
        }
        let config: Self = toml::from_str(text).map_err(invalid)?;
        if let Some(message) = config.shell.zero_limit() {
            return Err(ConfigError::Invalid { path: path.to_owned(), message });
        }
        for (name, p) in &config.providers {
            if let Some(url) = &p.base_url
                && let Err(reason) = check_base_url(url)
            {
                return Err(ConfigError::BadBaseUrl {
                    path: path.to_owned(),
                    provider: name.clone(),
                    url: url.clone(),
                    reason,
                });
            }
        }
        Ok(config)
    }

    /// The provider named `name`, with `offline` built in.
    pub fn provider(&self, name: &str) -> Result<ProviderConfig, ConfigError> {
        match self.providers.get(name) {
            Some(p) => Ok(ProviderConfig { name: name.to_owned(), ..p.clone() }),
            None if name == OFFLINE => Ok(ProviderConfig::offline()),
            None => {
                let mut known: Vec<&str> = self.providers.keys().map(String::as_str).collect();
                known.push(OFFLINE);
                known.sort_unstable();
                known.dedup();
                Err(ConfigError::UnknownProvider { name: name.to_owned(), known: known.join(", ") })
            }
        }
    }
}
