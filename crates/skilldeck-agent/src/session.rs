//! A session: a conversation on one workspace folder, and its turn loop.
//! Holds creating, resuming and running turns (listing, request, stream, tools, transcript).

use crate::compaction;
use crate::config::{Config, ConfigError, ProviderConfig};
use crate::dispatch::{self, ToolContext};
use crate::events::{AgentEvent, Host};
use crate::message::{Message, ModelRequest, StreamEvent, ToolCall};
use crate::provider::{Provider, ProviderError};
use crate::tools::ToolKind;
use crate::tools::host::HostEnv;
use crate::tools::sandbox::{SandboxSettings, ShellSandbox};
use crate::tools::shell::ShellLimits;
use crate::transcript::{self, ListedRef, Record, Transcript, TranscriptError, TurnEnd};
use futures_util::StreamExt as _;
use skilldeck_core::SkillRegistry;
use skilldeck_mount::sandbox::{Sandbox, SandboxError};
use skilldeck_mount::view_result::ViewResult;
use skilldeck_mount::view_skill::ToolSpec;
use skilldeck_mount::view_skill::{SELF_HEAL_RULE, TOOL_NAME, Turn};
use skilldeck_mount::workspace_guard::Guard;
use skilldeck_select::catalogue::Catalogue;
use skilldeck_select::find;
use skilldeck_select::listing::ListingOptions;
use skilldeck_select::ranker::Query;
use skilldeck_store::trust::Trust;
use skilldeck_store::{SkilldeckHome, StorageError};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// What stops a session outright (model failures do not: they end a turn).
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    /// The workspace folder cannot be used.
    #[error("cannot use {path} as the workspace: {source}")]
    Workspace {
        /// The folder.
        path: PathBuf,
        /// Why.
        source: SandboxError,
    },
    /// The workspace folder is one the agent may never work in (home, a folder above it, a system
    /// folder, Skilldeck's data, a folder of secrets).
    #[error("cannot use it as the workspace: {0}")]
    Refused(#[from] skilldeck_mount::workspace_guard::Refused),
    /// The skill store failed.
    #[error(transparent)]
    Storage(#[from] StorageError),
    /// The transcript failed.
    #[error(transparent)]
    Transcript(#[from] TranscriptError),
    /// The workspace's `.skilldeck.toml` cannot be used.
    #[error(transparent)]
    Profile(#[from] crate::profile::ProfileError),
}

/// How a session runs.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionOptions {
    /// What the listing shows (scopes, tier, budget).
    pub listing: ListingOptions,
    /// The tools offered.
    pub tools: Vec<ToolKind>,
    /// The most model calls in one turn.
    pub max_steps: usize,
    /// The model's context window, in tokens.
    pub context_window: usize,
    /// The share of the window past which older tool results are compacted.
    pub compact_at: f64,
    /// The shell's limits.
    pub shell: ShellLimits,
    /// The shell's sandbox.
    pub sandbox: SandboxSettings,
    /// Whether each turn names to the model the skills closest to the request, in a note after
    /// it (the ranker's first few, which join the listing so they can be loaded).
    pub suggest: bool,
    /// The most tokens one turn may spend (request and reply tokens of all its model calls):
    /// past it the turn ends as failed, so an unattended run cannot run away. None: no cap.
    pub max_turn_tokens: Option<u64>,
}

/// The tokens a session's model calls cost: as the provider counted them, or estimated (about
/// three bytes a token) for a call whose provider reports none (the offline router).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct TokenUsage {
    /// Tokens sent.
    pub input_tokens: u64,
    /// Tokens received.
    pub output_tokens: u64,
    /// Model calls made.
    pub calls: u64,
    /// Of those, the calls whose tokens were estimated.
    pub estimated_calls: u64,
}

impl TokenUsage {
    /// Input and output together.
    pub fn total(&self) -> u64 {
        self.input_tokens + self.output_tokens
    }

    fn add(&mut self, other: TokenUsage) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.calls += other.calls;
        self.estimated_calls += other.estimated_calls;
    }
}

impl Default for SessionOptions {
    fn default() -> Self {
        Self::from_config(&Config::default(), &ProviderConfig::offline())
    }
}

impl SessionOptions {
    /// The options the settings give the default provider: what `prompt`, `view`, `tool-spec` and
    /// the app's listing preview show.
    pub fn for_default_provider(config: &Config) -> Result<Self, ConfigError> {
        Ok(Self::from_config(config, &config.provider(&config.default_provider)?))
    }

    /// The options the settings give for a provider.
    pub fn from_config(config: &Config, provider: &ProviderConfig) -> Self {
        Self {
            listing: ListingOptions {
                view_skill_enabled: config.tools.enabled.contains(&ToolKind::ViewSkill),
                tier: provider.tier,
                budget_tokens: config.listing.budget_tokens,
                disabled: config.listing.disabled.clone(),
                pinned: config.listing.pinned.clone(),
                find_skills_enabled: config.tools.enabled.contains(&ToolKind::FindSkills),
                ..ListingOptions::default()
            },
            tools: config.tools.enabled.clone(),
            max_steps: config.max_steps.max(1),
            context_window: provider.context_window,
            compact_at: config.compact_at,
            shell: config.shell.limits(),
            sandbox: config.shell.sandbox(),
            suggest: config.listing.suggest,
            max_turn_tokens: None,
        }
    }
}

/// The system prompt of a turn: a short preamble, the listing and the self-heal rule.
pub fn system_prompt(workspace: &Path, listing_text: &str, view_skill: bool) -> String {
    system_prompt_with_search(workspace, listing_text, view_skill, false)
}

/// The system prompt of a turn whose listing does not show every skill: with `find_skills`
/// offered, it also says when to search.
pub fn system_prompt_with_search(workspace: &Path, listing_text: &str, view_skill: bool, find_skills: bool) -> String {
    let mut s = format!(
        "You are the Skilldeck agent. You work in the workspace folder {}: every path you give a tool is \
         relative to it, and shell commands run in it. Use the skills below when a request matches one: load it \
         with view_skill, follow its instructions, and load the files they point to the same way.",
        workspace.display()
    );
    if !listing_text.is_empty() {
        s.push_str("\n\n");
        s.push_str(listing_text);
    }
    if find_skills {
        s.push_str("\n\n");
        s.push_str(find::WHEN_TO_SEARCH);
    }
    if view_skill {
        s.push_str("\n\n");
        s.push_str(SELF_HEAL_RULE);
    }
    s
}

/// How many of the closest skills a turn names.
pub const SUGGESTED: usize = 3;

/// The note a turn adds to the request as the model receives it, naming the skills closest to
/// it, best first; empty for none. It goes with the request, not into the system prompt: a
/// small local model ignored it in the system prompt and followed it beside the request
/// (bench/selection/README.md). It spells out the call, which such a model copies more
/// readily than it composes one.
pub fn suggestion(names: &[String]) -> String {
    let Some((first, rest)) = names.split_first() else {
        return String::new();
    };
    let mut s = format!(
        "For this request, first call view_skill with {{\"name\": \"{first}\"}}: it is the skill closest to \
         the request. Then follow its instructions."
    );
    if !rest.is_empty() {
        let others: Vec<String> = rest.iter().map(|n| format!("`{n}`")).collect();
        s.push_str(&format!(
            " If it plainly does not fit, load the next closest instead ({}), and answer without a skill only when \
             none fits.",
            others.join(", then ")
        ));
    }
    s
}

/// `history` as the model receives it: the request at `at` (this turn's) followed by the note
/// naming `suggested`. The history itself keeps the user's words alone.
fn with_suggestion(history: &[Message], at: usize, suggested: &[String]) -> Vec<Message> {
    let mut messages = history.to_vec();
    if let (false, Some(Message::User { content })) = (suggested.is_empty(), messages.get_mut(at)) {
        content.push_str("\n\n");
        content.push_str(&suggestion(suggested));
    }
    messages
}

/// The skills whose instructions a `view_skill` call of `history` returned.
fn loaded_skills(history: &[Message]) -> BTreeSet<String> {
    history
        .iter()
        .filter_map(|m| match m {
            Message::Tool { name, content, .. } if name == TOOL_NAME => match serde_json::from_str(content) {
                Ok(ViewResult::Ok(ok)) if ok.path.is_none() => Some(ok.skill_name),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// How many earlier messages rank the listing besides the latest request.
const CONTEXT_MESSAGES: usize = 4;

/// The ranking query of a turn: the new request first, then the latest messages before it.
fn turn_query(history: &[Message], prompt: &str) -> Query {
    let earlier: Vec<&str> = history
        .iter()
        .rev()
        .filter_map(|m| match m {
            Message::User { content } => Some(content.as_str()),
            Message::Assistant { content, .. } if !content.is_empty() => Some(content.as_str()),
            Message::Assistant { .. } | Message::Tool { .. } => None,
        })
        .take(CONTEXT_MESSAGES)
        .collect();
    Query::conversation(prompt, &earlier)
}

/// The most tool calls of one model reply that run; those past it get an error result.
pub const MAX_CALLS_PER_REPLY: usize = 64;

/// The most bytes of tool results one turn gathers; calls past it get an error result, so a
/// turn's transcript and history stay bounded.
pub const MAX_RESULT_BYTES_PER_TURN: usize = 4 * 1024 * 1024;

fn turn_budget_note(bytes: usize) -> String {
    format!(
        "not kept: this turn's tool results came to {bytes} bytes, over the {MAX_RESULT_BYTES_PER_TURN}-byte limit \
         of one turn; answer with what you have, or ask the user to continue in a new message"
    )
}

/// A conversation on a workspace folder.
pub struct Session {
    id: String,
    registry: Arc<SkillRegistry>,
    sandbox: Sandbox,
    provider: Arc<dyn Provider>,
    opts: SessionOptions,
    history: Vec<Message>,
    transcript: Transcript,
    turns: usize,
    active: BTreeSet<String>,
    allowed_commands: BTreeSet<String>,
    allowed_writes: BTreeSet<String>,
    home: SkilldeckHome,
    shell_sandbox: ShellSandbox,
    last_listing: Option<Vec<ListedRef>>,
    found: Vec<String>,
    /// The skills this turn names to the model as closest to the request.
    suggested: Vec<String>,
    /// What the model calls of this process have cost.
    usage: TokenUsage,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session").field("id", &self.id).field("workspace", &self.sandbox.root()).finish()
    }
}

/// Opens the workspace, refusing the folders `workspace_guard` names: with the home folder as the
/// workspace the file tools could write Skilldeck's approvals or the user's shell start-up files.
fn open_workspace(path: &Path, home: &SkilldeckHome) -> Result<Sandbox, AgentError> {
    let sandbox = Sandbox::open(path).map_err(|source| AgentError::Workspace { path: path.to_owned(), source })?;
    let host = HostEnv::current();
    let masked = crate::tools::host::secrets(host.home().as_deref(), &host, home.root());
    Guard::for_user(Some(home.root())).masking(masked).check(path)?;
    Ok(sandbox)
}

/// The workspace's profile narrows the listing, unless the caller chose one already.
fn apply_profile(opts: &mut SessionOptions, workspace: &Path) -> Result<(), AgentError> {
    if opts.listing.profile.is_none() {
        opts.listing.profile = crate::profile::load(workspace)?;
    }
    Ok(())
}

impl Session {
    /// Starts a new session on `workspace`, writing its transcript under `home`.
    pub fn create(
        home: &SkilldeckHome,
        registry: Arc<SkillRegistry>,
        workspace: &Path,
        provider: Arc<dyn Provider>,
        mut opts: SessionOptions,
    ) -> Result<Self, AgentError> {
        let sandbox = open_workspace(workspace, home)?;
        apply_profile(&mut opts, sandbox.root())?;
        let mut attempt = 0;
        let (id, transcript) = loop {
            let id = transcript::new_id();
            let first = Record::Session {
                format: transcript::FORMAT,
                id: id.clone(),
                workspace: sandbox.root().to_owned(),
                provider: provider.info(),
                created: transcript::now(),
            };
            match Transcript::create(&home.sessions_dir(), &first) {
                Ok(t) => break (id, t),
                // Two sessions made in the same second drew the same suffix: draw again.
                Err(e) if e.is_taken() && attempt < 8 => attempt += 1,
                Err(e) => return Err(e.into()),
            }
        };
        let shell_sandbox = ShellSandbox::new(opts.sandbox.clone(), sandbox.root(), home.root());
        Ok(Self {
            id,
            registry,
            sandbox,
            provider,
            opts,
            history: Vec::new(),
            transcript,
            turns: 0,
            active: BTreeSet::new(),
            allowed_commands: BTreeSet::new(),
            allowed_writes: BTreeSet::new(),
            home: home.clone(),
            shell_sandbox,
            last_listing: None,
            found: Vec::new(),
            suggested: Vec::new(),
            usage: TokenUsage::default(),
        })
    }

    /// Opens session `id` again: its workspace and history come from the transcript.
    pub fn resume(
        home: &SkilldeckHome,
        id: &str,
        registry: Arc<SkillRegistry>,
        provider: Arc<dyn Provider>,
        mut opts: SessionOptions,
    ) -> Result<Self, AgentError> {
        let path = transcript::path_of(&home.sessions_dir(), id)?;
        if !path.is_file() {
            return Err(TranscriptError::NotFound { id: id.to_owned() }.into());
        }
        let records = transcript::read(&path)?;
        let Some(Record::Session { workspace, .. }) = records.first() else {
            return Err(TranscriptError::NotFound { id: id.to_owned() }.into());
        };
        let sandbox = open_workspace(workspace, home)?;
        apply_profile(&mut opts, sandbox.root())?;
        let turns = records.iter().filter(|r| matches!(r, Record::TurnStarted { .. })).count();
        let history = transcript::history(&records);
        let last_listing = transcript::last_listing(&records);
        let found = transcript::found(&records);
        let mut transcript = Transcript::open(&path)?;
        transcript.append(&Record::Resumed { provider: provider.info(), at: transcript::now() })?;
        let shell_sandbox = ShellSandbox::new(opts.sandbox.clone(), sandbox.root(), home.root());
        Ok(Self {
            id: id.to_owned(),
            registry,
            sandbox,
            provider,
            opts,
            history,
            transcript,
            turns,
            active: BTreeSet::new(),
            allowed_commands: BTreeSet::new(),
            allowed_writes: BTreeSet::new(),
            home: home.clone(),
            shell_sandbox,
            last_listing,
            found,
            suggested: Vec::new(),
            usage: TokenUsage::default(),
        })
    }

    /// The session's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The workspace folder.
    pub fn workspace(&self) -> &Path {
        self.sandbox.root()
    }

    /// The conversation so far, as the model sees it (compacted where it was compacted).
    pub fn history(&self) -> &[Message] {
        &self.history
    }

    /// What this session's model calls have cost since it was created or resumed.
    pub fn usage(&self) -> TokenUsage {
        self.usage
    }

    /// The transcript's file.
    pub fn transcript_path(&self) -> &Path {
        self.transcript.path()
    }

    /// Lets shell commands use the network from now on (`true`), or only as config.toml says.
    pub fn allow_network(&mut self, allowed: bool) {
        self.shell_sandbox.policy.network = self.opts.sandbox.network || allowed;
    }

    /// How shell commands are confined in this session.
    pub fn shell_sandbox(&self) -> &ShellSandbox {
        &self.shell_sandbox
    }

    /// Who answers.
    pub fn provider(&self) -> &dyn Provider {
        self.provider.as_ref()
    }

    fn record(&mut self, message: Message) -> Result<(), AgentError> {
        self.transcript.append(&Record::Message { message: message.clone() })?;
        self.history.push(message);
        Ok(())
    }

    fn end(&mut self, host: &dyn Host, turn: &str, end: TurnEnd) -> Result<TurnEnd, AgentError> {
        self.transcript.append(&Record::TurnEnded {
            turn: turn.to_owned(),
            at: transcript::now(),
            end: end.clone(),
        })?;
        host.event(&AgentEvent::TurnEnded { turn: turn.to_owned(), end: end.clone() });
        Ok(end)
    }

    /// Runs one turn for `prompt`: rebuilds the listing, then asks the model and runs its tool
    /// calls until it answers without any, the step limit, a failure or `cancel`. A model
    /// failure or a cancellation ends the turn (the history stays whole); only store and
    /// transcript failures are errors.
    pub async fn run_turn(
        &mut self,
        prompt: &str,
        host: &dyn Host,
        cancel: &CancellationToken,
    ) -> Result<TurnEnd, AgentError> {
        self.turns += 1;
        // Grants hold in the turn their skill is loaded in; approvals are read afresh each turn.
        // An unreadable trust file approves nothing (`skilldeck trust` reports it).
        self.active.clear();
        let trust = Trust::load(&self.home).unwrap_or_default();
        let turn_id = format!("{}-t{}", self.id, self.turns);
        let query = turn_query(&self.history, prompt);
        self.suggested = self.closest(prompt)?;
        let mut turn = Turn::new(turn_id.clone(), self.listing(&query)?);
        let listing: Vec<ListedRef> = turn
            .listing()
            .skills
            .iter()
            .map(|s| ListedRef { name: s.name.clone(), version: s.version.clone() })
            .collect();
        let changed = self.last_listing.as_ref() != Some(&listing);
        self.transcript.append(&Record::TurnStarted {
            turn: turn_id.clone(),
            at: transcript::now(),
            listing: changed.then(|| listing.clone()),
            suggested: self.suggested.clone(),
        })?;
        self.last_listing = Some(listing);
        host.event(&AgentEvent::TurnStarted {
            turn: turn_id.clone(),
            listed: turn.listing().skills.len(),
            provider: self.provider.info().label,
        });
        let keep_from = self.history.len();
        self.record(Message::user(prompt))?;
        let (mut system, mut tools) = self.request_parts(&turn);
        let mut result_bytes = 0usize;
        let spent_before = self.usage.total();
        for _ in 0..self.opts.max_steps {
            let limit = (self.opts.context_window as f64 * self.opts.compact_at) as usize;
            if compaction::estimate(&system, &self.history) > limit {
                // Earlier turns first; then, as a last resort, this turn's results but the last step's.
                let mut n = compaction::compact(&system, &mut self.history, keep_from, limit);
                if compaction::estimate(&system, &self.history) > limit {
                    let last_step = self.history.iter().rposition(|m| matches!(m, Message::Assistant { .. }));
                    n += compaction::compact(&system, &mut self.history, last_step.unwrap_or(keep_from), limit);
                }
                if n > 0 {
                    host.event(&AgentEvent::Compacted { results: n });
                }
            }
            let request = ModelRequest {
                system: system.clone(),
                messages: with_suggestion(&self.history, keep_from, &self.suggested),
                tools: tools.clone(),
            };
            let (text, calls, failure, usage) = self.stream_reply(&request, host, cancel).await;
            self.usage.add(usage.unwrap_or_else(|| TokenUsage {
                input_tokens: compaction::estimate(&request.system, &request.messages) as u64,
                output_tokens: (text.len() + calls.iter().map(|c| c.arguments_text().len()).sum::<usize>()).div_ceil(3)
                    as u64,
                calls: 1,
                estimated_calls: 1,
            }));
            if let Some(e) = failure {
                if !text.is_empty() {
                    self.record(Message::Assistant { content: text, tool_calls: Vec::new() })?;
                }
                let end = match e {
                    ProviderError::Cancelled => TurnEnd::Cancelled,
                    other => TurnEnd::Failed { message: other.to_string() },
                };
                return self.end(host, &turn_id, end);
            }
            self.record(Message::Assistant { content: text, tool_calls: calls.clone() })?;
            if calls.is_empty() {
                return self.end(host, &turn_id, TurnEnd::Answered);
            }
            let spent = self.usage.total() - spent_before;
            if let Some(cap) = self.opts.max_turn_tokens.filter(|cap| spent > *cap) {
                let message = format!(
                    "stopped: this turn's model calls came to {spent} tokens, over its cap of {cap}; its tool calls \
                     were not run"
                );
                return self.end(host, &turn_id, TurnEnd::Failed { message });
            }
            let found_before = self.found.len();
            for (i, call) in calls.iter().enumerate() {
                let done = if cancel.is_cancelled() {
                    dispatch::cancelled(call)
                } else if i >= MAX_CALLS_PER_REPLY {
                    dispatch::over_limit(
                        call,
                        format!(
                            "not run: one reply may make at most {MAX_CALLS_PER_REPLY} tool calls and this one made {}; \
                             make the calls that matter most, a few at a time",
                            calls.len()
                        ),
                    )
                } else if result_bytes >= MAX_RESULT_BYTES_PER_TURN {
                    dispatch::over_limit(call, turn_budget_note(result_bytes))
                } else {
                    let ctx = ToolContext {
                        registry: &self.registry,
                        sandbox: &self.sandbox,
                        turn: &mut turn,
                        enabled: &self.opts.tools,
                        active: &mut self.active,
                        trust: &trust,
                        allowed_commands: &mut self.allowed_commands,
                        allowed_writes: &mut self.allowed_writes,
                        shell: self.opts.shell,
                        shell_sandbox: &self.shell_sandbox,
                        listing: &self.opts.listing,
                        found: &mut self.found,
                    };
                    let done = dispatch::run(ctx, call, host, cancel).await;
                    if result_bytes + done.content.len() > MAX_RESULT_BYTES_PER_TURN {
                        dispatch::over_limit(call, turn_budget_note(result_bytes + done.content.len()))
                    } else {
                        done
                    }
                };
                result_bytes += done.content.len();
                self.record(Message::Tool {
                    call_id: call.id.clone(),
                    name: call.name.clone(),
                    content: done.content,
                })?;
                host.event(&done.event);
            }
            if cancel.is_cancelled() {
                return self.end(host, &turn_id, TurnEnd::Cancelled);
            }
            if self.found.len() != found_before {
                // What search found joins the listing and the enum from the next call on, and
                // the transcript keeps it for a resume.
                let skills = self.found[found_before..].to_vec();
                self.transcript.append(&Record::Found { turn: turn_id.clone(), skills })?;
                turn.set_listing(self.listing(&query)?);
                (system, tools) = self.request_parts(&turn);
            }
        }
        let steps = self.opts.max_steps;
        self.end(host, &turn_id, TurnEnd::StepLimit { steps })
    }

    /// The listing for `query`, with what `find_skills` found this session and the skills this
    /// turn suggests.
    fn listing(&self, query: &Query) -> Result<skilldeck_select::listing::Listing, AgentError> {
        let mut found = self.found.clone();
        found.extend(self.suggested.iter().filter(|n| !self.found.contains(n)).cloned());
        let opts = ListingOptions { found, ..self.opts.listing.clone() };
        Ok(self.registry.listing_for(&opts, query)?)
    }

    /// The skills closest to `request` when the session suggests them, best first. Not for the
    /// offline router, which ranks the skills itself. None when the closest was loaded earlier
    /// in the session (a follow-up: its instructions are already in the history); others loaded
    /// earlier are left out.
    fn closest(&self, request: &str) -> Result<Vec<String>, AgentError> {
        if !self.opts.suggest
            || !self.opts.tools.contains(&ToolKind::ViewSkill)
            || self.provider.info().kind == "offline"
        {
            return Ok(Vec::new());
        }
        let found = self.registry.find_skills(&self.opts.listing, request, SUGGESTED)?;
        let loaded = loaded_skills(&self.history);
        if found.first().is_some_and(|f| loaded.contains(&f.name)) {
            return Ok(Vec::new());
        }
        Ok(found.into_iter().map(|f| f.name).filter(|n| !loaded.contains(n)).collect())
    }

    /// The system prompt and tools of a model call over `turn`'s listing: `find_skills` only
    /// when the listing does not show every skill in full.
    fn request_parts(&self, turn: &Turn) -> (String, Vec<ToolSpec>) {
        let view_enabled = self.opts.tools.contains(&ToolKind::ViewSkill);
        let search = view_enabled && turn.listing().is_partial();
        let mut tools = Vec::new();
        let mut searching = false;
        for kind in &self.opts.tools {
            match kind {
                ToolKind::ViewSkill => tools.extend(turn.spec()),
                ToolKind::FindSkills if search => {
                    searching = true;
                    tools.extend(kind.spec());
                }
                ToolKind::FindSkills => {}
                other => tools.extend(other.spec()),
            }
        }
        let system = system_prompt_with_search(self.sandbox.root(), &turn.listing().text, view_enabled, searching);
        (system, tools)
    }

    /// Skills `find_skills` found in this session, oldest first.
    pub fn found(&self) -> &[String] {
        &self.found
    }

    /// Streams one reply: its text, its complete tool calls, and the failure that cut it short.
    async fn stream_reply(
        &self,
        request: &ModelRequest,
        host: &dyn Host,
        cancel: &CancellationToken,
    ) -> (String, Vec<ToolCall>, Option<ProviderError>, Option<TokenUsage>) {
        let mut text = String::new();
        let mut calls = Vec::new();
        let mut usage = None;
        let stream = tokio::select! {
            () = cancel.cancelled() => Err(ProviderError::Cancelled),
            s = self.provider.stream(request, cancel) => s,
        };
        let mut stream = match stream {
            Ok(s) => s,
            Err(e) => return (text, calls, Some(e), None),
        };
        loop {
            let next = tokio::select! {
                () = cancel.cancelled() => Some(Err(ProviderError::Cancelled)),
                n = stream.next() => n,
            };
            match next {
                Some(Ok(StreamEvent::TextDelta { text: t })) => {
                    host.event(&AgentEvent::TextDelta { text: t.clone() });
                    text.push_str(&t);
                }
                Some(Ok(StreamEvent::ToolCall { call })) => calls.push(call),
                Some(Ok(StreamEvent::Usage { input_tokens, output_tokens })) => {
                    usage = Some(TokenUsage { input_tokens, output_tokens, calls: 1, estimated_calls: 0 });
                }
                Some(Ok(StreamEvent::Finish { .. })) => return (text, calls, None, usage),
                Some(Err(e)) => return (text, calls, Some(e), usage),
                None => return (text, calls, Some(ProviderError::Truncated), usage),
            }
        }
    }
}
