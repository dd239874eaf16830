//! `skilldeck agent` and `skilldeck sessions`: the agent loop from a terminal, and its transcripts.
//! Holds argument handling, the terminal host (streamed text, tool lines, shell approval).

use crate::context::Ctx;
use crate::output;
use crate::output::Outcome;
use anyhow::{Context as _, bail};
use clap::{Args, ValueEnum};
use skilldeck_agent::config::{Api, Config, ProviderConfig};
use skilldeck_agent::events::{AgentEvent, Host, ShellAnswer, ShellQuestion, WriteQuestion};
use skilldeck_agent::provider::Provider;
use skilldeck_agent::provider::anthropic::AnthropicProvider;
use skilldeck_agent::provider::http::HttpPolicy;
use skilldeck_agent::provider::openai::OpenAiProvider;
use skilldeck_agent::session::{Session, SessionOptions};
use skilldeck_agent::shown;
use skilldeck_agent::transcript::{self, TurnEnd};
use skilldeck_skill::visible::{visible, visible_line};
use skilldeck_store::SkilldeckHome;
use std::io::{IsTerminal as _, Write as _};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use tokio_util::sync::CancellationToken;

/// The environment variable holding the key for `--api`.
pub const API_KEY_ENV: &str = "SKILLDECK_API_KEY";

/// A wire format for `--api`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ApiArg {
    /// OpenAI-compatible Chat Completions (OpenAI, Ollama, llama.cpp, LM Studio, vLLM).
    Openai,
    /// Anthropic Messages.
    Anthropic,
}

/// Which model answers: a provider from config.toml, or a server named for this run. Shared by
/// `agent` and `eval`.
#[derive(Debug, Args)]
pub struct ProviderArgs {
    /// A provider from config.toml (default: its default_provider, else `offline`).
    #[arg(long, conflicts_with = "api")]
    provider: Option<String>,
    /// Point at a server for this run instead: its wire format (key from SKILLDECK_API_KEY).
    #[arg(long, requires_all = ["base_url", "model"])]
    api: Option<ApiArg>,
    /// The server's base URL, e.g. http://localhost:11434/v1.
    #[arg(long, requires = "api")]
    base_url: Option<String>,
    /// The model's name.
    #[arg(long, requires = "api")]
    model: Option<String>,
}

/// `skilldeck agent`'s arguments.
#[derive(Debug, Args)]
pub struct AgentArgs {
    /// The workspace folder the agent works in (not needed with --resume).
    #[arg(long, required_unless_present = "resume")]
    workspace: Option<PathBuf>,
    #[command(flatten)]
    model: ProviderArgs,
    /// Allow every shell command without asking (each still runs in the sandbox), and writes of
    /// files that run code later (.git/, .envrc, build files).
    #[arg(long)]
    yes: bool,
    /// Let shell commands use the network in this session (the sandbox cuts it off otherwise).
    #[arg(long)]
    network: bool,
    /// Continue a session (`skilldeck sessions` lists them).
    #[arg(long)]
    resume: Option<String>,
    /// The request; without one, read requests from standard input, one a line.
    prompt: Vec<String>,
}

/// The terminal host: streams text to stdout, prints tool lines, asks before shell commands.
/// Everything the model, a skill or a tool wrote is printed as `shown` makes it: an escape
/// sequence or a `\r` in a command cannot rewrite the question, a bidi control cannot reorder it.
struct TerminalHost {
    yes: bool,
    workspace: PathBuf,
    /// Whether the cursor is mid-line after streamed text.
    mid_line: AtomicBool,
}

impl TerminalHost {
    fn line(&self, text: &str) {
        let mut out = std::io::stdout().lock();
        if self.mid_line.swap(false, Ordering::Relaxed) {
            let _ = writeln!(out);
        }
        let _ = writeln!(out, "{text}");
        let _ = out.flush();
    }
}

#[async_trait::async_trait]
impl Host for TerminalHost {
    fn event(&self, event: &AgentEvent) {
        match &shown::event(event) {
            AgentEvent::TurnStarted { .. } => {}
            AgentEvent::TextDelta { text } => {
                let mut out = std::io::stdout().lock();
                let _ = out.write_all(text.as_bytes());
                let _ = out.flush();
                self.mid_line.store(!text.ends_with('\n'), Ordering::Relaxed);
            }
            AgentEvent::ToolStarted { name, arguments, preapproved_by, .. } => {
                if let (Some(by), Some(cmd)) = (preapproved_by, arguments.get("command").and_then(|c| c.as_str())) {
                    self.line(&format!("• {name}: `{cmd}` (pre-approved by {by})"));
                }
            }
            AgentEvent::ToolFinished { outcome, .. } => self.line(&format!("• {}", outcome.display)),
            AgentEvent::Compacted { results } => {
                eprintln!("(compacted {results} older tool result(s) to fit the context window)");
            }
            AgentEvent::TurnEnded { end, .. } => {
                if self.mid_line.swap(false, Ordering::Relaxed) {
                    println!();
                }
                match end {
                    TurnEnd::Answered | TurnEnd::Failed { .. } => {}
                    TurnEnd::StepLimit { steps } => eprintln!("(stopped after {steps} model calls: the step limit)"),
                    TurnEnd::Cancelled => eprintln!("(stopped)"),
                }
            }
        }
    }

    async fn approve_shell(&self, q: &ShellQuestion) -> ShellAnswer {
        // Only what is printed changes; the session runs `q.command` as the model wrote it.
        let q = &shown::question(q);
        let command = &q.command;
        if self.yes {
            return ShellAnswer::Once;
        }
        if !std::io::stdin().is_terminal() {
            eprintln!("refused shell command `{command}`: not on a terminal; pass --yes to allow shell commands");
            return ShellAnswer::Deny;
        }
        if self.mid_line.swap(false, Ordering::Relaxed) {
            println!();
        }
        eprintln!("Run `{command}` in {}?", visible_line(&self.workspace.to_string_lossy()));
        eprintln!("  {}", q.sandbox);
        if let Some(grant) = &q.grant {
            eprintln!("  covered by {grant}, but with no sandbox every command is asked");
        } else if let Some(why) = &q.not_covered {
            eprintln!("  not covered by the active skills' grants: {why}");
        }
        read_answer().await
    }

    async fn approve_write(&self, q: &WriteQuestion) -> ShellAnswer {
        // Only what is printed changes; the session writes `q.path` as the model wrote it.
        let q = &shown::write_question(q);
        let path = &q.path;
        if self.yes {
            return ShellAnswer::Once;
        }
        if !std::io::stdin().is_terminal() {
            eprintln!("refused writing `{path}`: {}; not on a terminal; pass --yes to allow it", q.reason);
            return ShellAnswer::Deny;
        }
        if self.mid_line.swap(false, Ordering::Relaxed) {
            println!();
        }
        eprintln!("Write `{path}` ({} bytes) in {}?", q.bytes, visible_line(&self.workspace.to_string_lossy()));
        eprintln!("  {}; the file would run outside the sandbox", q.reason);
        read_answer().await
    }
}

/// Reads the answer to an approval question from the terminal.
async fn read_answer() -> ShellAnswer {
    eprint!("[y] once, [s] for this session, [N] no: ");
    let _ = std::io::stderr().flush();
    let answer = tokio::task::spawn_blocking(|| {
        let mut line = String::new();
        std::io::stdin().read_line(&mut line).map(|_| line)
    })
    .await;
    match answer {
        Ok(Ok(a)) => match a.trim() {
            "y" | "Y" | "yes" => ShellAnswer::Once,
            "s" | "S" | "session" => ShellAnswer::Session,
            _ => ShellAnswer::Deny,
        },
        _ => ShellAnswer::Deny,
    }
}

/// The provider `args` name, and its settings.
pub fn build_provider(args: &ProviderArgs, config: &Config) -> anyhow::Result<(Arc<dyn Provider>, ProviderConfig)> {
    if let (Some(api), Some(base), Some(model)) = (args.api, &args.base_url, &args.model) {
        let key = std::env::var(API_KEY_ENV).ok().filter(|k| !k.is_empty());
        // One run against a server: the defaults for anything config.toml would say.
        let pc = ProviderConfig {
            api: match api {
                ApiArg::Openai => Api::Openai,
                ApiArg::Anthropic => Api::Anthropic,
            },
            model: Some(model.clone()),
            base_url: Some(base.clone()),
            context_window: 128_000,
            ..ProviderConfig::offline()
        };
        let provider: Arc<dyn Provider> = match api {
            ApiArg::Openai => Arc::new(OpenAiProvider::new(base, model, key, HttpPolicy::default())?),
            ApiArg::Anthropic => Arc::new(AnthropicProvider::new(base, model, key, HttpPolicy::default())?),
        };
        return Ok((provider, pc));
    }
    let name = args.provider.as_deref().unwrap_or(&config.default_provider);
    let pc = config.provider(name)?;
    let provider = pc.build().with_context(|| format!("cannot use the provider {name:?}"))?;
    Ok((provider, pc))
}

/// Runs one turn, stopping it on Ctrl-C.
async fn turn(session: &mut Session, host: &TerminalHost, prompt: &str) -> anyhow::Result<TurnEnd> {
    let cancel = CancellationToken::new();
    let stopper = cancel.clone();
    let watch = tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            stopper.cancel();
        }
    });
    let end = session.run_turn(prompt, host, &cancel).await;
    watch.abort();
    Ok(end?)
}

/// `skilldeck agent`.
pub fn run(args: AgentArgs) -> anyhow::Result<Outcome> {
    let (ctx, _) = Ctx::open_listing()?;
    let home = SkilldeckHome::from_env()?;
    let config = Config::load(&home.config_path())?;
    let (provider, pc) = build_provider(&args.model, &config)?;
    let mut opts = SessionOptions::from_config(&config, &pc);
    opts.sandbox.network |= args.network;
    let shell_enabled = opts.tools.contains(&skilldeck_agent::tools::ToolKind::Shell);
    let registry = Arc::new(ctx.registry);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("could not start the async runtime")?;
    rt.block_on(async move {
        let mut session = match (&args.resume, &args.workspace) {
            (Some(id), _) => Session::resume(&home, id, registry, provider, opts)?,
            (None, Some(ws)) => Session::create(&home, registry, ws, provider, opts)?,
            (None, None) => bail!("--workspace is required for a new session"),
        };
        if let (Some(_), Some(ws)) = (&args.resume, &args.workspace)
            && std::fs::canonicalize(ws).ok().as_deref() != Some(session.workspace())
        {
            eprintln!(
                "note: a resumed session keeps its workspace {}; --workspace is ignored",
                visible_line(&session.workspace().to_string_lossy())
            );
        }
        let info = session.provider().info();
        eprintln!(
            "Session {} on {} with {}",
            session.id(),
            visible_line(&session.workspace().to_string_lossy()),
            visible_line(&if info.kind == "offline" { info.label } else { format!("{} ({})", info.model, info.kind) })
        );
        if shell_enabled && !session.shell_sandbox().is_sandboxed() {
            eprintln!("warning: shell commands run {}; each one is asked first", session.shell_sandbox().describe());
        }
        let host = TerminalHost { yes: args.yes, workspace: session.workspace().to_owned(), mid_line: false.into() };
        if !args.prompt.is_empty() {
            return match turn(&mut session, &host, &args.prompt.join(" ")).await? {
                TurnEnd::Failed { message } => bail!("{}", visible(&message)),
                TurnEnd::Answered | TurnEnd::StepLimit { .. } | TurnEnd::Cancelled => Ok(Outcome::Ok),
            };
        }
        interactive(&mut session, &host).await
    })
}

/// Reads requests from stdin, one a line, until end of input, `/exit` or Ctrl-C at the prompt.
async fn interactive(session: &mut Session, host: &TerminalHost) -> anyhow::Result<Outcome> {
    let tty = std::io::stdin().is_terminal();
    if tty {
        eprintln!("Type a request and press Enter; /exit or Ctrl-D ends, Ctrl-C stops a turn.");
    }
    loop {
        if tty {
            eprint!("> ");
            let _ = std::io::stderr().flush();
        }
        let read = tokio::task::spawn_blocking(|| {
            let mut line = String::new();
            std::io::stdin().read_line(&mut line).map(|n| (n, line))
        });
        let (n, line) = tokio::select! {
            r = read => r.context("reading standard input")??,
            _ = tokio::signal::ctrl_c() => return Ok(Outcome::Ok),
        };
        let prompt = line.trim();
        if n == 0 || prompt == "/exit" {
            return Ok(Outcome::Ok);
        }
        if prompt.is_empty() {
            continue;
        }
        if let TurnEnd::Failed { message } = turn(session, host, prompt).await? {
            eprintln!("error: {}", visible(&message));
        }
    }
}

/// `skilldeck sessions`: every transcript, newest first.
pub fn sessions(json: bool) -> anyhow::Result<Outcome> {
    let home = SkilldeckHome::from_env()?;
    let list = transcript::list(&home.sessions_dir())?;
    if json {
        output::json(&list)?;
        return Ok(Outcome::Ok);
    }
    if list.is_empty() {
        crate::output::outln!("No sessions yet. `skilldeck agent --workspace DIR` starts one.");
    }
    for s in &list {
        let workspace = s.workspace.to_string_lossy();
        let (provider, workspace) = (visible_line(&s.provider), visible_line(&workspace));
        crate::output::outln!("{}  {} turn(s)  {provider}  {workspace}", s.id, s.turns);
        if !s.title.is_empty() {
            crate::output::outln!("    {}", visible_line(&s.title));
        }
    }
    Ok(Outcome::Ok)
}
